"""`planner suggest` against `planner plan` on PyPTO files given on the command line.

Each file (a directory stands for every `.py` file under it) is read with the modules it
imports found as `planner --path ROOT` finds them, then planned and suggested in process
(`plan_text`, `suggest_text`), alternately, so a change in the machine's load reaches both;
the median wall time of each, their ratio (goal: suggest <= 2x plan) and the ratio of their
median CPU times (steadier on a loaded machine) are printed per file, with the number of
candidate weights. A file no kernel of which reads is listed as skipped. Not a test.

    .venv/bin/python benchmarks/bench_suggest_files.py FILE_OR_DIR... [--path ROOT] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto import plan_text
from planner.advice.suggest import suggest_text
from planner.cli.module_paths import file_context
from planner.limits import Limits

GOAL = 2.0


def python_files(arguments: list[str]) -> Iterator[Path]:
    for argument in arguments:
        path = Path(argument)
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def alternating_medians(runs: list[Callable[[], object]], repeats: int) -> list[tuple[float, float]]:
    """The median wall and CPU seconds of each run, the runs taking turns `repeats` times."""
    samples: list[list[tuple[float, float]]] = [[] for _ in runs]
    for _ in range(repeats):
        for run, times in zip(runs, samples, strict=True):
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            times.append((time.perf_counter() - wall, time.process_time() - cpu))
    return [
        (statistics.median(wall for wall, _ in times), statistics.median(cpu for _, cpu in times))
        for times in samples
    ]


def ratio_columns(planned: tuple[float, float], suggested: tuple[float, float]) -> tuple[str, str]:
    """The plan and suggest medians with their wall and CPU ratios as printed columns, and the note
    marking a wall ratio over the goal."""
    (plan_wall, plan_cpu), (suggest_wall, suggest_cpu) = planned, suggested
    ratio = suggest_wall / plan_wall
    cpu_ratio = suggest_cpu / plan_cpu
    columns = f"{plan_wall * 1e3:8.1f}ms {suggest_wall * 1e3:8.1f}ms {ratio:6.2f}x {cpu_ratio:6.2f}x"
    return columns, "" if ratio <= GOAL else f"  (goal {GOAL}x)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="PyPTO files, or directories of them")
    parser.add_argument("--path", action="append", default=[], help="a root imported modules are found under")
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    print(f"{'plan':>10} {'suggest':>10} {'ratio':>7} {'cpu':>7} {'weights':>8}  file")
    for file in python_files(arguments.files):
        text = file.read_text(encoding="utf-8")
        name = str(file)
        context = file_context(name, arguments.path, {}, Limits().max_bytes)

        def plan(text: str = text, name: str = name, context: object = context) -> object:
            return plan_text(text, filename=name, context=context)  # type: ignore[arg-type]

        def suggest(text: str = text, name: str = name, context: object = context) -> object:
            return suggest_text(text, filename=name, context=context)  # type: ignore[arg-type]

        try:
            weights = len(suggest_text(text, filename=name, context=context).response.tensors)
        except AdapterInputError as exc:
            print(f"{'':>10} {'':>10} {'':>7} {'':>7} {'':>8}  {file}: skipped ({exc.code})")
            continue
        columns, verdict = ratio_columns(*alternating_medians([plan, suggest], arguments.repeats))
        print(f"{columns} {weights:>8}  {file}{verdict}")


if __name__ == "__main__":
    main()
