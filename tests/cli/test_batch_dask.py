"""`planner batch --dask` gives the process pool's answers, byte for byte, on real dask clusters.

A real `dask scheduler` and two `dask worker --nthreads 4` processes on loopback plan a
generated corpus (tests/support/batch_corpus.py) next to `--dask local` and the process pool; a
worker killed mid-batch loses no input. The planner runs as the `planner` command in a
subprocess, as a user runs it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from planner.cli import batch_dask
from planner.cli.batch import collect_inputs, plan_file
from planner.cli.batch_tasks import FileResult
from planner.limits import Limits
from tests.support.batch_corpus import write_corpus
from tests.support.commands import PLANNER

distributed = pytest.importorskip("distributed")

DASK = str(Path(sys.executable).with_name("dask"))
BATCH_SECONDS = 300  # a batch that runs longer has hung
START_SECONDS = 120  # for the scheduler and both workers to be up on a loaded machine


def planner_batch(*args: str) -> tuple[int, bytes]:
    done = subprocess.run([*PLANNER, "batch", *args], capture_output=True, timeout=BATCH_SECONDS)
    return done.returncode, done.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    assert len(write_corpus(root)) >= 300
    return root


@pytest.fixture(scope="module")
def pool_answer(corpus: Path) -> tuple[int, bytes]:
    return planner_batch(str(corpus), "--workers", "2", "--quiet")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End one process we started, with its children (its own session), SIGKILL if it lingers."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=20)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a scheduler with two 4-thread workers (each under its nanny), on 127.0.0.1."""
    where = tmp_path_factory.mktemp("dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    started: list[subprocess.Popen[bytes]] = []

    def start(*argv: str) -> None:
        with (where / f"{len(started)}.log").open("wb") as log:
            started.append(subprocess.Popen(argv, cwd=where, stdout=log, stderr=log, start_new_session=True))

    start(DASK, "scheduler", "--host", "127.0.0.1", "--port", address.rpartition(":")[2], "--no-dashboard")
    for _ in range(2):
        start(
            DASK, "worker", address, "--nthreads", "4", "--host", "127.0.0.1", "--no-dashboard",
            "--local-directory", str(where), "--death-timeout", "60",
        )  # fmt: skip
    try:
        with distributed.Client(address, timeout=START_SECONDS) as client:
            client.wait_for_workers(2, timeout=START_SECONDS)
        yield address
    finally:
        for process in reversed(started):
            _stop(process)


def test_a_real_cluster_of_threaded_workers_answers_as_the_process_pool(
    corpus: Path, pool_answer: tuple[int, bytes], scheduler: str
) -> None:
    assert planner_batch(str(corpus), "--dask", scheduler, "--quiet") == pool_answer


@pytest.mark.slow
@pytest.mark.parametrize("run", range(5))
def test_a_real_cluster_answers_as_the_process_pool_run_after_run(
    corpus: Path, pool_answer: tuple[int, bytes], scheduler: str, run: int
) -> None:
    assert planner_batch(str(corpus), "--dask", scheduler, "--quiet") == pool_answer


def test_a_local_cluster_answers_as_the_process_pool(corpus: Path, pool_answer: tuple[int, bytes]) -> None:
    assert planner_batch(str(corpus), "--dask", "local", "--workers", "2", "--quiet") == pool_answer


def _worker_pid_with_work(client: Any, deadline: float) -> int:
    """The pid of a worker the scheduler has handed tasks to, once there is one."""
    while time.monotonic() < deadline:
        busy = [worker for worker, tasks in client.processing().items() if tasks]
        if busy:
            pid: int = client.run(os.getpid, workers=busy[:1])[busy[0]]
            return pid
        time.sleep(0.05)
    raise AssertionError("no worker was handed a task")


def test_a_worker_killed_mid_batch_loses_no_input(
    corpus: Path, pool_answer: tuple[int, bytes], scheduler: str
) -> None:
    with distributed.Client(scheduler, timeout=START_SECONDS) as client:
        client.wait_for_workers(2, timeout=START_SECONDS)
        batch = subprocess.Popen(
            [*PLANNER, "batch", str(corpus), "--dask", scheduler, "--quiet"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            os.kill(_worker_pid_with_work(client, time.monotonic() + BATCH_SECONDS), signal.SIGKILL)
            out, _ = batch.communicate(timeout=BATCH_SECONDS)
        finally:
            if batch.poll() is None:
                batch.kill()
                batch.wait()
    answered = [json.loads(line)["input"] for line in out.splitlines()]
    assert answered == collect_inputs([corpus])
    assert (batch.returncode, out) == pool_answer  # dask ran the lost worker's chunks again


class _Scripted:
    """A stand-in for a dask client: each task runs at once; a task naming a poisoned path fails
    as a task whose worker died does, and tasks complete in reverse order of submission."""

    def __init__(self, poisoned: str) -> None:
        self.poisoned = poisoned
        self.completed: list[Future[list[FileResult]]] = []

    def submit(
        self, task: Any, paths: list[str], plan: Callable[[str], FileResult], *, pure: bool
    ) -> Future[list[FileResult]]:
        assert not pure  # a resubmitted part must not be answered from the failed one
        future: Future[list[FileResult]] = Future()
        future.key = f"task-{id(future)}"  # type: ignore[attr-defined]
        if self.poisoned in paths:
            future.set_exception(RuntimeError("KilledWorker: the worker died each time"))
        else:
            future.set_result(task(paths, plan))
        self.completed.insert(0, future)
        return future

    def add(self, future: Future[list[FileResult]]) -> None:
        pass  # submit already queued it

    def __iter__(self) -> Iterator[Future[list[FileResult]]]:
        while self.completed:
            yield self.completed.pop(0)


def test_a_file_whose_task_always_fails_is_one_internal_error_and_its_chunk_mates_are_answered(
    corpus: Path,
) -> None:
    paths = collect_inputs([corpus / "copy0" / "ttlang"])
    poisoned = paths[len(paths) // 2]
    scripted = _Scripted(poisoned)
    answers = list(
        batch_dask._in_order(scripted, scripted, paths, partial(plan_file, limits=Limits()), processes=1)
    )
    assert [answer.input for answer in answers] == paths
    for answer in answers:
        if answer.input == poisoned:
            assert answer.exit == 2 and answer.error is not None
            assert answer.error["code"] == "request.internal"
            assert poisoned in answer.error["message"] and "KilledWorker" in answer.error["message"]
        else:
            assert answer == plan_file(answer.input, Limits())


def _answers_in_both_orders(paths: list[str]) -> list[str]:
    """The paths whose answer changes when the files planned before them in the process change."""
    forward = {path: plan_file(path, Limits()) for path in paths}
    backward = {path: plan_file(path, Limits()) for path in reversed(paths)}
    return [path for path in paths if forward[path] != backward[path]]


def test_a_tt_lang_file_is_answered_the_same_whatever_was_read_before_it_in_the_process(
    corpus: Path,
) -> None:
    folders = [corpus / "copy0" / name for name in ("ttlang", "lit", "json")]
    assert _answers_in_both_orders(collect_inputs(folders)) == []


@pytest.mark.slow
def test_every_file_is_answered_the_same_whatever_was_read_before_it_in_the_process(corpus: Path) -> None:
    assert _answers_in_both_orders(collect_inputs([corpus])) == []
