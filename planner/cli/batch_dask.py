"""`planner batch --dask`: chunks of files on dask.distributed, answered in input order, none lost.

A dask worker runs several tasks at once in threads of one process, and the planner's
readers keep process-wide state that threads must not share: CPython 3.11's `ast` (two
parses at once can fail with "AST constructor recursion depth mismatch") and xDSL's parser
(a module read beside another can come back unparsable). So each worker process plans one
chunk at a time, under a process-wide lock held for the whole task, whatever thread count
the cluster was started with; every answer is the one the process pool gives.

The client keeps a few chunks per worker in flight, so no worker sits on a queue of
chunks while another is idle, and yields answers in input order as chunks complete. A chunk
whose worker died is rescheduled by dask; if dask gives it up, its files are sent again one
by one, and a file whose own task fails is answered with a `request.internal` naming it, so
every input gets exactly one answer.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from planner import extras, request_codes
from planner.cli.batch_tasks import FileResult, chunk_size
from planner.errors import RequestError, excerpt

IN_FLIGHT_PER_WORKER = 2  # chunks handed to the scheduler per worker process before one completes

_ONE_CHUNK_PER_PROCESS = threading.Lock()


def plan_chunk(paths: list[str], plan: Callable[[str], FileResult]) -> list[FileResult]:
    """The task a worker runs: the chunk's files in order, one chunk per worker process at a time.
    `plan` answers one file (`planner.cli.batch.plan_file` with the batch's settings bound)."""
    with _ONE_CHUNK_PER_PROCESS:
        return [plan(path) for path in paths]


def lost_file(path: str, exc: BaseException) -> FileResult:
    """The answer for a file whose own task failed (its worker died each time dask ran it, or the
    cluster could not run the task at all)."""
    cause = excerpt(f"{type(exc).__name__}: {exc}")
    error = RequestError(
        request_codes.INTERNAL,
        f"{path} was not planned: its dask task failed ({cause}); "
        f"see the workers' logs, or run `planner batch {path}` without --dask",
    )
    return FileResult(path, 2, error=error.to_json())


@contextmanager
def _client(distributed: Any, address: str, workers: int) -> Iterator[Any]:
    """A client of the cluster at `address`, or of a local one of `workers` one-thread processes."""
    if address != "local":
        with distributed.Client(address) as client:
            yield client
        return
    local = distributed.LocalCluster(
        n_workers=max(workers, 1), threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    with local, distributed.Client(local) as client:
        yield client


def run_on_dask(
    paths: list[str], workers: int, address: str, plan: Callable[[str], FileResult]
) -> Iterator[FileResult]:
    """One answer per path, in input order."""
    distributed = extras.dask_distributed()
    with _client(distributed, address, workers) as client:
        processes = max(len(client.nthreads()), 1)
        yield from _in_order(client, distributed.as_completed(), paths, plan, processes)


def _in_order(
    client: Any, running: Any, paths: list[str], plan: Callable[[str], FileResult], processes: int
) -> Iterator[FileResult]:
    """Chunks through `client`, a few per worker process in flight; `running` yields them as they complete."""
    size = chunk_size(len(paths), processes)
    waiting = deque(range(start, min(start + size, len(paths))) for start in range(0, len(paths), size))
    parts: dict[str, range] = {}

    def submit(part: range) -> None:
        future = client.submit(plan_chunk, [paths[index] for index in part], plan, pure=False)
        parts[future.key] = part
        running.add(future)

    for _ in range(processes * IN_FLIGHT_PER_WORKER):
        if waiting:
            submit(waiting.popleft())
    answers: dict[int, FileResult] = {}
    next_index = 0
    for future in running:
        part = parts.pop(future.key)
        try:
            answers.update(zip(part, future.result(), strict=True))
        except Exception as exc:
            if len(part) > 1:
                for index in part:
                    submit(range(index, index + 1))
            else:
                answers[part.start] = lost_file(paths[part.start], exc)
        if waiting:
            submit(waiting.popleft())
        while next_index in answers:
            yield answers.pop(next_index)
            next_index += 1
