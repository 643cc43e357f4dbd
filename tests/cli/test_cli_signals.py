"""SIGINT, SIGTERM and SIGHUP end the whole command: every process it started is gone within 2 s
(checked in /proc), one typed `request.cancelled` line is printed, the exit status is 128 + the
signal, and an output target keeps its previous content. Workers die with their parent even when
it is killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.commands import PLANNER, PLANNER_OPT
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
STOPPED_WITHIN = 2.0  # seconds


def _parents() -> dict[int, int]:
    """Every live process's parent, read from /proc (a zombie counts as gone)."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != b"Z":
                found[int(entry)] = int(fields[1])
    return found


def _tree(pid: int) -> set[int]:
    parents = _parents()
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, of in parents.items() if of == parent]
        found.update(children)
        frontier.extend(children)
    return found


def _alive(pids: set[int]) -> set[int]:
    return pids & set(_parents())


def _wait_for_tree(process: subprocess.Popen[str], size: int, limit: float = 60.0) -> set[int]:
    """The command's descendants once it has at least `size` of them."""
    until = time.monotonic() + limit
    while time.monotonic() < until:
        tree = _tree(process.pid)
        if len(tree) >= size:
            time.sleep(0.3)  # let the workers settle into their first task
            return _tree(process.pid)
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError(f"the command never started {size} processes")


@contextmanager
def _started(argv: list[str]) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def _stop(process: subprocess.Popen[str], signum: int, tree: set[int]) -> tuple[int, str]:
    """Send `signum`; the exit status and stderr, once the command and all of `tree` are gone."""
    process.send_signal(signum)
    sent = time.monotonic()
    _, err = process.communicate(timeout=30)
    while _alive(tree) and time.monotonic() - sent < STOPPED_WITHIN:
        time.sleep(0.05)
    assert time.monotonic() - sent < STOPPED_WITHIN, "the command took too long to stop"
    assert _alive(tree) == set(), "a process the command started outlived it"
    return process.returncode, err


def _cancelled_line(tool: str, signum: int) -> str:
    return (
        f"{tool}: error: [request.cancelled] stopped by {signal.Signals(signum).name} before it finished; "
        "every output target keeps its previous content\n"
    )


@pytest.fixture
def blocking_input(tmp_path: Path) -> Path:
    """A FIFO nobody writes to: a command reading it waits until it is stopped."""
    fifo = tmp_path / "never.mlir"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_batch_ends_the_batch_and_its_pool_workers(
    tmp_path: Path, blocking_input: Path, signum: int
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("the previous results\n")
    argv = [*PLANNER, "batch", str(blocking_input), str(EXAMPLES / "ttlang"), "--workers", "2"]
    with _started([*argv, "-o", str(out), "--timeout", "60"]) as process:
        tree = _wait_for_tree(process, 2)
        code, err = _stop(process, signum, tree)
    assert (code, err) == (128 + signum, _cancelled_line("planner", signum))
    assert out.read_text() == "the previous results\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "never.mlir",
        "out.jsonl",
    ]  # no temporary left


def test_pool_workers_die_with_a_batch_killed_by_sigkill(blocking_input: Path) -> None:
    argv = [
        *PLANNER,
        "batch",
        str(blocking_input),
        str(EXAMPLES / "ttlang"),
        "--workers",
        "2",
        "--timeout",
        "60",
    ]
    with _started(argv) as process:
        tree = _wait_for_tree(process, 2)
        code, err = _stop(process, signal.SIGKILL, tree)
    assert (code, err) == (-signal.SIGKILL, "")


@contextmanager
def _reading(fifo: Path, process: subprocess.Popen[str]) -> Iterator[None]:
    """Once `process` has opened `fifo` to read (and waits for bytes that never come)."""
    until = time.monotonic() + 60
    while True:
        try:
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO until a reader has it open
            break
        except OSError:
            assert process.poll() is None and time.monotonic() < until, process.communicate()
            time.sleep(0.05)
    try:
        yield
    finally:
        os.close(writer)


@pytest.mark.parametrize("tool", ["planner", "planner-opt"])
def test_a_signal_ends_a_command_blocked_in_its_read(blocking_input: Path, tool: str) -> None:
    argv = (
        [*PLANNER, "plan", str(blocking_input)] if tool == "planner" else [*PLANNER_OPT, str(blocking_input)]
    )
    with _started([*argv, "--timeout", "60"]) as process, _reading(blocking_input, process):
        code, err = _stop(process, signal.SIGTERM, set())
    assert (code, err) == (128 + signal.SIGTERM, _cancelled_line(tool, signal.SIGTERM))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_service_workers_end_with_the_service(signum: int) -> None:
    with _started([*PLANNER, "serve", "--http", "127.0.0.1:0", "--workers", "2"]) as process:
        tree = _wait_for_tree(process, 4)  # the fork server, its two workers, the resource tracker
        code, _ = _stop(process, signum, tree)
    assert code == (128 + signum if signum != signal.SIGKILL else -signal.SIGKILL)


def test_a_signal_ends_a_dask_local_cluster_with_the_batch(blocking_input: Path) -> None:
    pytest.importorskip("distributed")
    argv = [*PLANNER, "batch", str(blocking_input), "--dask", "local", "--workers", "2", "--timeout", "60"]
    with _started(argv) as process:
        tree = _wait_for_tree(process, 3, limit=120)  # two workers, the resource tracker
        code, err = _stop(process, signal.SIGTERM, tree)
    assert (code, err) == (128 + signal.SIGTERM, _cancelled_line("planner", signal.SIGTERM))
