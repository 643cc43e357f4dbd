"""`planner batch`: plan many files, one JSON line per input, sorted by input path.

Each file is planned alone (its adapter by extension/content, a JSON file through its
method), in a process pool by default or on dask.distributed when asked
(`planner.cli.batch_dask`), many files per task, answers streamed back in input order. A file that
cannot be read or parsed, or runs past `--timeout`, is a typed error on its own line; the batch
goes on. Progress is drawn with tqdm only when stderr is a terminal, so captured logs stay clean.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from functools import partial
from pathlib import Path

from planner.adapters import detect_adapter, plan_with
from planner.adapters.pypto.reading.program import imports_pypto
from planner.budget import WATCHDOG_GRACE
from planner.cancellation import die_with_parent
from planner.cli.batch_tasks import FileResult, chunk_size
from planner.cli.module_paths import file_context
from planner.cli.request_files import answer_request_file
from planner.explain.conflicts import diagnostic_lines
from planner.inputs import read_input, read_text
from planner.limits import Limits, dump_json
from planner.request_codes import timed_out, to_request_error

INPUT_SUFFIXES = frozenset({".py", ".mlir", ".json"})
SKIPPED = "skipped"  # the `kind` of a .py file that is not PyPTO


def collect_inputs(paths: Iterable[Path]) -> list[str]:
    """Files given, plus every .py/.mlir/.json file under the directories given, sorted."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.is_file() and p.suffix in INPUT_SUFFIXES)
        else:
            found.add(path)
    return sorted(str(path) for path in found)


def _plan_json(path: str, data: bytes, limits: Limits) -> FileResult:
    subject = answer_request_file(data, limits)
    if not subject.refused:
        return FileResult(path, 0, subject.method)
    return FileResult(path, 1, subject.method, diagnostic_lines(path, subject))


def _plan_ir(
    path: str, text: str, max_bytes: int, module_paths: tuple[str, ...], target_arch: str | None
) -> FileResult:
    """A `.py` file that imports no PyPTO (a model's `config.py`) is skipped, not an error.
    `target_arch` (`--target-arch`) is given to TT-Lang files alone."""
    adapter = detect_adapter(path, text)
    if adapter == "pypto" and path.endswith(".py") and not imports_pypto(text):
        return FileResult(path, 0, SKIPPED)
    context = file_context(path, list(module_paths), {}, max_bytes) if adapter == "pypto" else None
    options = {"target-arch": target_arch} if adapter == "ttlang" and target_arch is not None else {}
    outcome = plan_with(adapter, text, filename=path, options=options, context=context)
    return FileResult(path, 0 if outcome.ok else 1, adapter, list(outcome.diagnostics))


def plan_file(
    path: str, limits: Limits, module_paths: tuple[str, ...] = (), target_arch: str | None = None
) -> FileResult:
    """Plan one file within its own deadline; never raises (module level, so worker processes can run it).
    `module_paths`: the `--path` directories a PyPTO file's imports are also read from;
    `target_arch`: the target of TT-Lang files whose module names none or is not shown.

    The work runs on a thread that is abandoned at the deadline (plus the watchdog's grace) if it
    has not answered: a read that blocks (a FIFO with no writer) or a step that never checks the
    deadline costs that file `request.timeout`, never the batch.
    """
    answered: list[FileResult] = []
    work = threading.Thread(
        target=lambda: answered.append(_plan_file(path, limits, module_paths, target_arch)), daemon=True
    )
    work.start()
    work.join(None if limits.time_budget is None else limits.time_budget + WATCHDOG_GRACE)
    return answered[0] if answered else FileResult(path, 2, error=timed_out().to_json())


def _plan_file(
    path: str, limits: Limits, module_paths: tuple[str, ...], target_arch: str | None
) -> FileResult:
    try:
        if path.endswith(".json"):
            return _plan_json(path, read_input(path, limits.max_bytes), limits)
        return _plan_ir(path, read_text(path, limits.max_bytes), limits.max_bytes, module_paths, target_arch)
    except Exception as exc:
        return FileResult(path, 2, error=to_request_error(exc).to_json())


def _pool(paths: list[str], workers: int, plan: Callable[[str], FileResult]) -> Iterator[FileResult]:
    if workers <= 1:
        yield from map(plan, paths)
        return
    with ProcessPoolExecutor(
        max_workers=workers, initializer=die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        yield from pool.map(plan, paths, chunksize=chunk_size(len(paths), workers))


def run(
    paths: list[str],
    *,
    workers: int,
    dask: str | None,
    limits: Limits,
    progress: bool,
    module_paths: tuple[str, ...] = (),
    target_arch: str | None = None,
) -> list[FileResult]:
    """Plan every path; results sorted by input path whatever order they finished in.

    `progress` draws a tqdm bar on stderr (the caller asks only when stderr is a terminal).
    """
    from tqdm import tqdm

    plan = partial(plan_file, limits=limits, module_paths=module_paths, target_arch=target_arch)
    if dask is not None:
        from planner.cli.batch_dask import run_on_dask

        results = run_on_dask(paths, workers, dask, plan)
    else:
        results = _pool(paths, workers, plan)
    shown = tqdm(results, total=len(paths), unit="file", disable=not progress)
    return sorted(shown, key=lambda result: result.input)


def result_line(result: FileResult) -> str:
    return dump_json(asdict(result))
