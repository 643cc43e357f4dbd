"""`planner batch`: plan many files, one JSON line per input, sorted by input path.

Each file is planned alone (its adapter by extension/content, a JSON file through its
method), in a process pool by default or on dask.distributed when asked. A file that
cannot be read or parsed is a typed error on its own line; the batch goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from planner.adapters import detect_adapter, plan_with
from planner.service import optional
from planner.service.errors import to_request_error
from planner.service.explain import Subject, diagnostic_lines
from planner.service.limits import Limits, dump_json
from planner.service.methods import find_method, invoke
from planner.service.requests import read_input, read_request

INPUT_SUFFIXES = frozenset({".py", ".mlir", ".json"})
_BAR_WIDTH = 30


@dataclass(frozen=True, slots=True)
class FileResult:
    """One input's outcome: `exit` is what `planner plan` / `planner call` would return for it."""

    input: str
    exit: int
    kind: str | None = None
    diagnostics: list[str] = field(default_factory=list)
    error: dict[str, Any] | None = None


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
    request = read_request(data, limits)
    response = invoke(request.method, request.params, limits.time_budget)
    if find_method(request.method).succeeded(response):
        return FileResult(path, 0, request.method)
    subject = Subject(request.method, request.params.get("function"), request.params, response)
    return FileResult(path, 1, request.method, diagnostic_lines(path, subject))


def _plan_ir(path: str, data: bytes) -> FileResult:
    text = data.decode("utf-8")
    adapter = detect_adapter(path, text)
    outcome = plan_with(adapter, text, filename=path, options={})
    return FileResult(path, 0 if outcome.ok else 1, adapter, list(outcome.diagnostics))


def plan_file(path: str) -> FileResult:
    """Plan one file; never raises (module level, so worker processes can run it)."""
    try:
        data = read_input(path)
        return _plan_json(path, data, Limits()) if path.endswith(".json") else _plan_ir(path, data)
    except Exception as exc:
        return FileResult(path, 2, error=to_request_error(exc).to_json())


def _pool(paths: list[str], workers: int) -> Iterator[FileResult]:
    if workers <= 1:
        yield from map(plan_file, paths)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for future in as_completed([pool.submit(plan_file, path) for path in paths]):
            yield future.result()


def _dask(paths: list[str], workers: int, address: str) -> Iterator[FileResult]:
    distributed = optional.dask_distributed()
    cluster = (
        distributed.LocalCluster(n_workers=max(workers, 1), processes=True) if address == "local" else None
    )
    with distributed.Client(cluster if cluster is not None else address) as client:
        yield from (future.result() for future in distributed.as_completed(client.map(plan_file, paths)))
    if cluster is not None:
        cluster.close()


def _progress_bar(stream: TextIO, total: int) -> Callable[[int], None]:
    def show(done: int) -> None:
        filled = _BAR_WIDTH * done // max(total, 1)
        stream.write(f"\r[{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {done}/{total}")
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


def run(paths: list[str], *, workers: int, dask: str | None, progress: TextIO) -> list[FileResult]:
    """Plan every path; results sorted by input path whatever order they finished in."""
    show = _progress_bar(progress, len(paths))
    results = _dask(paths, workers, dask) if dask is not None else _pool(paths, workers)
    finished = []
    for result in results:
        finished.append(result)
        show(len(finished))
    return sorted(finished, key=lambda result: result.input)


def result_line(result: FileResult) -> str:
    return dump_json(asdict(result))
