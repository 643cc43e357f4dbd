"""Adapter throughput: a generated PyPTO program with 1,000 NZ loads, parse + plan + print.

Prints the median (and p99) of each stage and of the whole `plan_text` call, with ratios
against `ast.parse` of the same text measured in the same run (the floor any reader pays).
Target: whole `plan_text` median <= 1 s. Not a test.

    .venv/bin/python benchmarks/bench_adapters.py [--loads 1000] [--repeats 15]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import time
from collections.abc import Callable

from planner.adapters.pypto import build_requests, plan_text
from planner.layout import plan

ROWS, COLS, TILE_ROWS, TILE_COLS = 4096, 2048, 256, 512


def generated_program(loads: int) -> str:
    """Loads on an INT8 NZ weight: half at constant offsets, half at loop-variable offsets."""
    lines = [
        "# pypto.program: Bench",
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        "class Bench:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        f"    def main(self, w: pl.Tensor[[{ROWS}, {COLS}], pl.INT8, pl.NZ]):",
        f"        for nb in pl.spmd({ROWS // TILE_ROWS}):",
        f"            n0: pl.Scalar[pl.INDEX] = nb * {TILE_ROWS}",
        f"            for k0 in pl.pipeline(0, {COLS}, {TILE_COLS}, stage=2):",
    ]
    tile = f"pl.Tile[[{TILE_ROWS}, {TILE_COLS}], pl.INT8, pl.Mem.Mat]"
    for index in range(loads):
        if index % 2:
            offsets = "[n0, k0]"
        else:
            row = (index // 2 * TILE_ROWS) % ROWS
            col = (index // 2 * TILE_COLS) % COLS
            offsets = f"[{row}, {col}]"
        lines.append(
            f"                t{index}: {tile} = pl.tile.load(w, {offsets}, [{TILE_ROWS}, {TILE_COLS}], "
            "target_memory=pl.Mem.Mat)"
        )
    lines.append("        return w")
    return "\n".join(lines) + "\n"


def timings(action: Callable[[], object], repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return samples


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    text = generated_program(args.loads)
    (function,) = build_requests(text)
    outcome = plan_text(text)
    assert outcome.ok, outcome.diagnostics
    stages = {
        "ast.parse (baseline)": lambda: ast.parse(text),
        "build_requests": lambda: build_requests(text),
        "layout.plan": lambda: plan(function.request),
        "plan_text (parse+plan+print)": lambda: plan_text(text),
    }
    results = {name: timings(action, args.repeats) for name, action in stages.items()}
    baseline = statistics.median(results["ast.parse (baseline)"])
    print(f"PyPTO adapter, {args.loads} NZ loads, {len(text)} characters, {args.repeats} runs each")
    for name, samples in results.items():
        median = statistics.median(samples)
        tail = f"p99 {p99(samples) * 1e3:9.2f} ms  x{median / baseline:7.1f}"
        print(f"  {name:30s} median {median * 1e3:9.2f} ms  {tail}")
    total = statistics.median(results["plan_text (parse+plan+print)"])
    verdict = "met" if total <= 1.0 else "NOT met"
    print(f"  target plan_text median <= 1000 ms: {verdict} ({total * 1e3:.0f} ms)")


if __name__ == "__main__":
    main()
