"""Signals end the whole command: SIGINT, SIGTERM and SIGHUP stop it and every process it started.

`cancel_on_signals` (the command line's own process only; a host keeps its own handlers) has
the signal's byte written to a pipe a thread watches, so the command ends at once even while
its main thread sits in a long C call (a solver, a parse). Ending it: every descendant process
is killed (pool workers, a dask local cluster, service workers and their fork server), each
output's temporary file is removed (an output target keeps its previous content whole: it is
only ever replaced by a rename), one typed `request.cancelled` line goes to stderr, and the
exit status is 128 + the signal's number, as a shell expects.

`die_with_parent` is what every worker process runs first: the kernel kills it (Linux
`PR_SET_PDEATHSIG`) when the process that started it ends, even by SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from types import FrameType

from planner.request_codes import CANCELLED

CANCELLING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

_partial_outputs: set[str] = set()  # temporary files being written, removed if the command is cancelled
_ending = threading.Lock()


def writing_partial(path: str) -> None:
    """`path` is an output's temporary file, not yet renamed onto its target."""
    _partial_outputs.add(path)


def done_partial(path: str) -> None:
    _partial_outputs.discard(path)


def _children_by_parent() -> dict[int, list[int]]:
    """Every process's children, from /proc (empty where there is none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs, to any depth."""
    children = _children_by_parent()
    found: list[int] = []
    frontier = [pid]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found.extend(kids)
        frontier.extend(kids)
    return found


def _kill_descendants() -> None:
    for _ in range(2):  # a second sweep catches a child forked during the first
        for pid in descendants(os.getpid()):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _end(tool: str, signum: int) -> None:
    """Stop everything this command started and exit 128 + `signum`; the first signal only."""
    if not _ending.acquire(blocking=False):
        return
    for path in list(_partial_outputs):
        with contextlib.suppress(OSError):
            os.unlink(path)
    name = signal.Signals(signum).name
    line = (
        f"{tool}: error: [{CANCELLED}] stopped by {name} before it finished; "
        "every output target keeps its previous content\n"
    )
    with contextlib.suppress(OSError):  # stderr gone: the exit status still says it
        os.write(2, line.encode())  # not sys.stderr: the main thread may hold its lock
        _silence_stderr()  # the line is the last word: not what other threads say of the workers' end
    _kill_descendants()
    os._exit(128 + signum)


def _silence_stderr() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def hold_if_ending() -> None:
    """On the main thread, before it answers: wait for a cancellation under way to end the process,
    so what its ending did (killed workers) is never answered as a failure of the command."""
    if _ending.locked():
        threading.Event().wait()


def _watch(wakeups: int, tool: str) -> None:
    while True:
        try:
            received = os.read(wakeups, 1)
        except InterruptedError:
            continue
        if not received:
            return
        if received[0] in CANCELLING:
            _end(tool, received[0])


def cancel_on_signals(tool: str) -> None:
    """End the command (see the module's docstring) on SIGINT, SIGTERM or SIGHUP; main thread only.

    The Python-level handler does the same when it runs first (an event loop that took the
    wakeup pipe for its own), so either path ends the command, once.
    """
    wakeups, wakeup_write = os.pipe()
    os.set_blocking(wakeup_write, False)

    def handler(signum: int, _frame: FrameType | None) -> None:
        _end(tool, signum)

    for each in CANCELLING:
        signal.signal(each, handler)
    signal.set_wakeup_fd(wakeup_write, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(wakeups, tool), name="cancellation", daemon=True).start()


def die_with_parent(parent: int) -> None:
    """In a worker process started by `parent`: be killed when `parent` ends, however it ends.

    The worker drops the handlers a forked copy inherits: the parent ends its workers itself,
    and Ctrl-C, which reaches the whole process group, is the parent's to answer.
    """
    if threading.current_thread() is threading.main_thread():
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the parent's own sweep ends its workers
        return
    if os.getppid() != parent:  # the parent ended before the request took hold
        os._exit(128 + signal.SIGKILL)
