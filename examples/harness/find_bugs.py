#!/usr/bin/env python3
"""Run the harness against both deliberately wrong passes and print the shrunk counterexamples.

    .venv/bin/python examples/harness/find_bugs.py

Exits 0 when the harness finds both bugs (what it is for), 1 if either goes unnoticed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from reassociating_layout import plan

from planner.testing import PassDisagreement, check_kernelcfg_pass, check_layout_pass

HERE = Path(__file__).resolve().parent


def find_reassociation() -> int:
    return int(check_layout_pass(plan))


def find_greedy_fpu() -> int:
    return int(check_kernelcfg_pass([sys.executable, str(HERE / "greedy_fpu.py")]))


CHECKS: tuple[tuple[str, Callable[[], int]], ...] = (
    ("layout pass that re-associates n0 // 16 into nb * 16 (a Python callable)", find_reassociation),
    ("kernel-config pass that picks FPU greedily (a command line)", find_greedy_fpu),
)


def main() -> int:
    found = 0
    for title, run in CHECKS:
        print(f"== {title}")
        try:
            compared = run()
        except PassDisagreement as disagreement:
            found += 1
            print(disagreement, end="\n\n")
        else:
            print(f"no disagreement in {compared} requests\n")
    return 0 if found == len(CHECKS) else 1


if __name__ == "__main__":
    sys.exit(main())
