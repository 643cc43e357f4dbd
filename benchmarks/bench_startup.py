"""Whole-process cold runs of the real job, the way lit RUN lines and pre-commit hooks call us.

Each command is one fresh process on a small input: `planner-opt` on a small kernel, `planner plan`
on a small PyPTO program and on a small MLIR file, `planner suggest` on a small program, and every
RUN line of `tests/lit` as a shell pipeline. The baselines run in the same loop, interleaved round by
round so machine load hits all alike: `python -c pass` (the interpreter floor), `xdsl-opt` on an
empty function (the MLIR tool floor), and the floor of any tool that reads and prints MLIR through
xDSL (a one-constant function parsed and printed with only the builtin, func and arith dialects).
`--before TREE` runs the same planner commands a second time with an older checkout of the project
first on `PYTHONPATH`, so a change is measured against what it replaced in the same run.

Bytecode is compiled first, for the project, the older tree and the installed packages: an installed
wheel has it, and an environment that sets `PYTHONDONTWRITEBYTECODE` would otherwise recompile every
changed module on every start. Figures: median wall time of ROUNDS runs after one warm-up round, and
each command's ratio against the first two baselines. Each target ends in one line, `target ...: met` or
`target ...: MISSED`.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shlex
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LIT = ROOT / "tests" / "lit"
ROUNDS = 15
EMPTY_FUNCTION = "func.func @empty() {\n  func.return\n}\n"
XDSL_FLOOR = """
import sys
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer
context = Context()
for dialect in (Builtin, Func, Arith):
    context.load_dialect(dialect)
Printer().print_op(Parser(context, open(sys.argv[1]).read()).parse_module())
"""
ARITH_FUNCTION = "func.func @constant() {\n  %c0 = arith.constant 0 : index\n  func.return\n}\n"
_RUN = re.compile(r"^\s*//\s*RUN:\s?(.*)$")


@dataclass(frozen=True)
class Command:
    """One process to time: its argv (or a shell line) and the environment it adds."""

    argv: list[str]
    env: Mapping[str, str] = field(default_factory=dict)


def planner_commands() -> dict[str, list[str]]:
    """The real job on small inputs: name -> argv."""
    return {
        "planner-opt small kernel": [
            str(BIN / "planner-opt"),
            str(EXAMPLES / "ttlang" / "fpu_sfpu_mix.mlir"),
            "-p",
            "ttl-set-compute-kernel-config",
        ],
        "planner plan small PyPTO": [
            str(BIN / "planner"),
            "plan",
            str(EXAMPLES / "pypto" / "nz_matmul_spmd.py"),
        ],
        "planner plan small MLIR": [
            str(BIN / "planner"),
            "plan",
            str(EXAMPLES / "ttlang" / "fpu_sfpu_mix.mlir"),
        ],
        "planner suggest small": [
            str(BIN / "planner"),
            "suggest",
            str(EXAMPLES / "pypto" / "suggest_weights.py"),
        ],
    }


def lit_run_lines(scratch: Path) -> dict[str, str]:
    """Every RUN line of tests/lit as the shell pipeline lit runs: `%s`, `%t` and `not` substituted."""
    lines: dict[str, str] = {}
    for test in sorted(LIT.glob("*.mlir")):
        for number, match in enumerate(filter(None, map(_RUN.match, test.read_text().splitlines())), 1):
            line = (
                match.group(1).replace("%s", shlex.quote(str(test))).replace("%t", str(scratch / test.stem))
            )
            line = re.sub(r"(^|\|\s*)not\s", r"\1! ", line.replace("FileCheck", "filecheck"))
            lines[f"lit {test.stem} RUN {number}"] = line
    return lines


def commands(scratch: Path, before: Path | None) -> dict[str, Command]:
    """Name -> command, baselines first; each planner command also `(before)` when an old tree is given."""
    empty, constant = scratch / "empty.mlir", scratch / "constant.mlir"
    empty.write_text(EMPTY_FUNCTION, encoding="utf-8")
    constant.write_text(ARITH_FUNCTION, encoding="utf-8")
    table = {
        "python -c pass": Command([sys.executable, "-c", "pass"]),
        "xdsl-opt empty function": Command([str(BIN / "xdsl-opt"), str(empty)]),
        "xDSL parse+print floor": Command([sys.executable, "-c", XDSL_FLOOR, str(constant)]),
    }
    jobs = {name: Command(argv) for name, argv in planner_commands().items()}
    jobs |= {
        name: Command(["bash", "-o", "pipefail", "-c", line]) for name, line in lit_run_lines(scratch).items()
    }
    path = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    for name, job in jobs.items():
        table[name] = Command(job.argv, path)
        if before is not None:
            table[f"{name} (before)"] = Command(job.argv, path | {"PYTHONPATH": str(before)})
    return table


def compile_bytecode(trees: list[Path]) -> None:
    """Bytecode for the project, the older tree and the installed packages, as an installed wheel has it."""
    for directory in [*(tree / "planner" for tree in trees), Path(sysconfig.get_paths()["purelib"])]:
        compileall.compile_dir(directory, quiet=2, workers=0)


def run_once(command: Command) -> float:
    environment = os.environ | dict(command.env)
    start = time.perf_counter()
    subprocess.run(
        command.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment, check=False
    )
    return time.perf_counter() - start


def measure(table: dict[str, Command], rounds: int) -> dict[str, float]:
    """Median wall seconds per command; one warm-up round first, then rounds interleaved."""
    for command in table.values():
        run_once(command)
    samples: dict[str, list[float]] = {name: [] for name in table}
    for _ in range(rounds):
        for name, command in table.items():
            samples[name].append(run_once(command))
    return {name: statistics.median(times) for name, times in samples.items()}


def target(what: str, met: bool, measured: str) -> None:
    print(f"target {what}: {'met' if met else 'MISSED'} ({measured})")


def lit_median(medians: dict[str, float], before: bool) -> float:
    """The median over tests/lit's RUN lines, of this tree or of the older one."""
    return statistics.median(
        seconds
        for name, seconds in medians.items()
        if name.startswith("lit ") and name.endswith("(before)") == before
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="an older checkout of the project to measure against")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    before = args.before.resolve() if args.before else None
    compile_bytecode([ROOT] + ([before] if before else []))
    with tempfile.TemporaryDirectory() as scratch:
        medians = measure(commands(Path(scratch), before), args.rounds)
    python, xdsl = medians["python -c pass"], medians["xdsl-opt empty function"]
    print(f"cold runs, median of {args.rounds} after one warm-up, interleaved; bytecode compiled")
    for name, seconds in medians.items():
        if not name.startswith("lit "):
            ratios = f"x{seconds / python:6.2f} python  x{seconds / xdsl:5.2f} xdsl-opt"
            print(f"  {name:36s} {seconds * 1e3:8.1f} ms  {ratios}")
    lit_now = lit_median(medians, before=False)
    print(f"  {'lit, median per RUN line':36s} {lit_now * 1e3:8.1f} ms")
    opt, plan = medians["planner-opt small kernel"], medians["planner plan small PyPTO"]
    target("planner-opt small kernel <= 0.4x xdsl-opt", opt <= 0.4 * xdsl, f"x{opt / xdsl:.2f}")
    target(
        "planner plan small PyPTO <= 10x python and <= 0.25 s",
        plan <= 10 * python and plan <= 0.25,
        f"{plan * 1e3:.1f} ms, x{plan / python:.2f}",
    )
    if before is not None:
        lit_before = lit_median(medians, before=True)
        print(f"  {'lit, median per RUN line (before)':36s} {lit_before * 1e3:8.1f} ms")
        target(
            "lit median per RUN line halves",
            lit_now <= lit_before / 2,
            f"x{lit_now / lit_before:.2f} of before",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
