"""`planner suggest` against `planner plan` on the same file: generated `@pl.jit` sources with 10, 100
and 1,000 candidate weights.

Each kernel has one ND weight read into a matmul's B operand (two in three plan as NZ; the
third is refused on an unaligned row offset, `--refused-every`), and one kernel in ten is
called by a host function that passes the weight on, so its caller is annotated with it.
Both commands run in process (`suggest_text`, `plan_text`) on the same text, taking turns so
a change in the machine's load reaches both; the median wall time of each and their ratio
(goal: suggest <= 2x plan, linear in the file) are measured in the same run, with the ratio of
their median CPU times beside it (steadier on a loaded machine). `plan` of these ND files reads
them and plans nothing; `suggest` also plans every weight as NZ, and a refusal is confirmed by
Z3. Not a test.

    .venv/bin/python benchmarks/bench_suggest.py [--candidates 10 100 1000] [--repeats 5] [--refused-every 3]
"""

from __future__ import annotations

import argparse

from bench_suggest_files import alternating_medians, ratio_columns

from planner.adapters.pypto import plan_text
from planner.advice.suggest import suggest_text


def kernel(index: int, refused_every: int) -> list[str]:
    """One kernel: weight `w` feeds the matmul's B operand at rows `n0`, aligned except in one kernel
    of every `refused_every` (none for 0), whose refusal Z3 confirms with a counterexample."""
    refused = refused_every and index % refused_every == refused_every - 1
    rows = "nb * 8" if refused else "nb * 256"
    return [
        "@pl.jit.incore",
        f"def kernel_{index}(",
        "    x: pl.Tensor[[64, 1024], pl.FP16],",
        "    w: pl.Tensor[[512, 1024], pl.FP16],",
        "    out: pl.Out[pl.Tensor[[64, 512], pl.FP32]],",
        "):",
        "    for nb in pl.spmd(2):",
        f"        n0 = {rows}",
        "        acc = pl.matmul(x[:, 0:256], w[n0 : n0 + 256, 0:256], out_dtype=pl.FP32, b_trans=True)",
        "        for k0 in pl.range(256, 1024, 256):",
        "            window = w[n0 : n0 + 256, k0 : k0 + 256]",
        "            acc = pl.matmul_acc(acc, x[:, k0 : k0 + 256], window, b_trans=True)",
        "        out[:, 0:256] = acc",
        "    return out",
        "",
        "",
    ]


def caller(index: int) -> list[str]:
    """A host function passing its own ND weight to kernel `index`."""
    return [
        "@pl.jit",
        f"def host_{index}(",
        "    x: pl.Tensor[[64, 1024], pl.FP16],",
        "    w: pl.Tensor[[512, 1024], pl.FP16],",
        "    out: pl.Out[pl.Tensor[[64, 512], pl.FP32]],",
        "):",
        f"    out = kernel_{index}(x, w, out)",
        "    return out",
        "",
        "",
    ]


def generated_source(candidates: int, refused_every: int = 3) -> str:
    lines = ['"""Generated kernels for bench_suggest."""', "", "import pypto.language as pl", "", ""]
    for index in range(candidates):
        lines += kernel(index, refused_every)
        if index % 10 == 0:
            lines += caller(index)
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--refused-every", type=int, default=3, help="one refused weight in N (0: none)")
    arguments = parser.parse_args()
    print(
        f"{'candidates':>10} {'lines':>7} {'plan':>10} {'suggest':>10} {'ratio':>7} {'cpu':>7} "
        f"{'per candidate':>14}"
    )
    for count in arguments.candidates:
        text = generated_source(count, arguments.refused_every)
        found = suggest_text(text, filename="b.py").response.tensors
        assert len(found) == count, "every kernel's weight is a candidate"
        runs = [
            lambda text=text: plan_text(text, filename="b.py"),
            lambda text=text: suggest_text(text, filename="b.py"),
        ]
        planned, suggested = alternating_medians(runs, arguments.repeats)
        columns, verdict = ratio_columns(planned, suggested)
        per_candidate = suggested[0] / count * 1e3
        print(f"{count:>10} {text.count(chr(10)):>7} {columns} {per_candidate:11.2f}ms{verdict}")


if __name__ == "__main__":
    main()
