"""Whole-process cold runs of the real job, the way lit RUN lines and pre-commit hooks call us.

Each command is one fresh process on a small input: `planner-opt` on a small kernel, `planner plan`
on a small PyPTO program and on a small MLIR file, `planner suggest` on a small program. The
baselines run in the same loop, interleaved round by round so machine load hits all alike:
`python -c pass` (the interpreter floor) and `xdsl-opt` on an empty function (the MLIR tool floor).
Figures: median wall time of ROUNDS runs after one warm-up round, and each command's ratio against
both baselines. Each target ends in one line, `target ...: met` or `target ...: MISSED`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
PLANNER = str(BIN / "planner")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ROUNDS = 15
EMPTY_FUNCTION = "func.func @empty() {\n  func.return\n}\n"


def commands(empty: Path) -> dict[str, list[str]]:
    """Name -> argv, baselines first."""
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "xdsl-opt empty function": [str(BIN / "xdsl-opt"), str(empty)],
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


def run_once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def measure(argvs: dict[str, list[str]], rounds: int) -> dict[str, float]:
    """Median wall seconds per command; one warm-up round first, then rounds interleaved."""
    for argv in argvs.values():
        run_once(argv)
    samples: dict[str, list[float]] = {name: [] for name in argvs}
    for _ in range(rounds):
        for name, argv in argvs.items():
            samples[name].append(run_once(argv))
    return {name: statistics.median(times) for name, times in samples.items()}


def target(what: str, met: bool, measured: str) -> None:
    print(f"target {what}: {'met' if met else 'MISSED'} ({measured})")


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        empty = Path(scratch) / "empty.mlir"
        empty.write_text(EMPTY_FUNCTION, encoding="utf-8")
        medians = measure(commands(empty), ROUNDS)
    python, xdsl = medians["python -c pass"], medians["xdsl-opt empty function"]
    print(f"cold runs, median of {ROUNDS} after one warm-up, interleaved")
    for name, seconds in medians.items():
        ratios = f"x{seconds / python:6.2f} python  x{seconds / xdsl:5.2f} xdsl-opt"
        print(f"  {name:28s} {seconds * 1e3:8.1f} ms  {ratios}")
    opt, plan = medians["planner-opt small kernel"], medians["planner plan small PyPTO"]
    target("planner-opt small kernel <= 0.4x xdsl-opt", opt <= 0.4 * xdsl, f"x{opt / xdsl:.2f}")
    target(
        "planner plan small PyPTO <= 10x python and <= 0.25 s",
        plan <= 10 * python and plan <= 0.25,
        f"{plan * 1e3:.1f} ms, x{plan / python:.2f}",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
