"""Worker processes that answer requests, so no request can hold the service past its deadline.

The service answers each request in a worker process. Inside it the cores stop by
themselves at the deadline (each Z3 check gets the time left as its own timeout, and they
check the deadline between obligations), so most late requests come back as a typed
`request.timeout` and the worker stays warm. A step that does not check (an adapter parse,
a long search) cannot delay the service either: `GRACE` seconds after the deadline the pool
kills the busy worker, starts a fresh one and answers `request.timeout` itself. A worker
whose memory grew by more than `RECYCLE_GROWTH` (a solver's heap is not handed back to the
system) is replaced after its answer, so the service's memory stays bounded.

Workers start from a fork server that has imported the cores once, so a replacement is
ready in milliseconds and no worker is ever forked from a threaded parent.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import time
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from typing import Any

from planner import request_codes
from planner.cancellation import die_with_parent
from planner.contract import JsonObject
from planner.errors import RequestError
from planner.limits import memory_capped
from planner.service.bounded import CONSTANT_TIME, bounded, preload
from planner.service.methods import METHODS, answer

GRACE = 0.2  # seconds a worker may run past the deadline before it is replaced
RECYCLE_GROWTH = 32 * 1024 * 1024  # bytes of memory a worker may gain before it is replaced
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _preloaded_modules() -> list[str]:
    """Every module a method may import: the fork server imports them once for all workers."""
    return sorted({__name__}.union(*(method.modules() for method in METHODS.values())))


def _serve(connection: Connection, max_memory: int | None) -> None:
    """A worker's loop: `(method, params, deadline)` in, `(ok, answer)` out, until the pipe closes.

    Its address space is capped at `max_memory`: a request that needs more is `request.too_large`.
    """
    die_with_parent(os.getppid())  # Ctrl-C stops the service, which stops its workers
    with memory_capped(max_memory, own_process=True):  # a worker is its own process: the cap holds
        _answer_all(connection)


def _answer_all(connection: Connection) -> None:
    while True:
        try:
            method, params, deadline = connection.recv()
        except (EOFError, OSError):
            return
        outcome = answer(method, params, deadline)
        if isinstance(outcome, RequestError):
            connection.send((False, outcome.to_json()))
        else:
            connection.send((True, outcome))


def _resident_bytes(pid: int | None) -> int:
    """A process's resident memory (0 where /proc cannot tell)."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _error(payload: dict[str, Any]) -> RequestError:
    return RequestError(payload["code"], payload["message"], payload.get("details"))


class Worker:
    """One worker process and the pipe to it; replaced whole when it overruns or dies."""

    def __init__(self, context: ForkServerContext, max_memory: int | None) -> None:
        self._context = context
        self._max_memory = max_memory
        self._process: BaseProcess
        self._connection: Connection
        self._start()

    def _start(self) -> None:
        ours, theirs = self._context.Pipe()
        self._process = self._context.Process(target=_serve, args=(theirs, self._max_memory), daemon=True)
        self._process.start()
        theirs.close()
        self._connection = ours
        self._started_bytes = _resident_bytes(self._process.pid)

    def replace(self) -> None:
        """Kill the process (whatever it is doing) and start a fresh one."""
        self._process.kill()
        self._process.join()
        self._connection.close()
        self._start()

    def stop(self) -> None:
        self._connection.close()  # the worker's loop ends at end of file
        self._process.join(timeout=1)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()

    def call(self, method: object, params: object, deadline: float | None) -> JsonObject | RequestError:
        """Answer one request in the worker, or `request.timeout` once it is GRACE past the deadline."""
        try:
            self._connection.send((method, params, deadline))
        except (BrokenPipeError, OSError):  # the worker died while idle (e.g. killed from outside)
            self.replace()
            self._connection.send((method, params, deadline))
        wait = None if deadline is None else max(0.0, deadline - time.monotonic()) + GRACE
        if not self._connection.poll(wait):
            self.replace()
            return request_codes.timed_out()
        try:
            ok, payload = self._connection.recv()
        except (EOFError, OSError):
            self._process.join(timeout=1)
            code = self._process.exitcode
            self.replace()
            if self._max_memory and code == -signal.SIGABRT:
                # A solver's allocation refused under the cap can end in C++'s terminate (abort),
                # beyond the reach of its MemoryError.
                return RequestError(
                    request_codes.TOO_LARGE,
                    f"the request needs more than the {self._max_memory}-byte cap (--max-memory); split it",
                )
            return request_codes.internal_fault(RuntimeError(f"the worker process ended (exit code {code})"))
        if _resident_bytes(self._process.pid) - self._started_bytes > RECYCLE_GROWTH:
            self.replace()
        return payload if ok else _error(payload)


class WorkerPool:
    """`size` workers shared by the service's connections; `run` is the service's `Runner`.

    Constant-time requests are always answered in this process, never behind a busy worker.
    With `inline`, every request whose work is `bounded` is answered here too (the stdio
    face, one message at a time; the HTTP face keeps the rest in the workers, so its
    dispatch threads never contend for the interpreter lock).
    """

    def __init__(self, size: int, *, inline: bool = False, max_memory: int | None = None) -> None:
        self._inline = inline
        if inline:
            preload()
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_preloaded_modules())
        self._idle: queue.Queue[Worker] = queue.Queue()
        for _ in range(max(size, 1)):
            self._idle.put(Worker(context, max_memory))

    def run(self, method: object, params: object, deadline: float | None) -> JsonObject | RequestError:
        """Answer on the first idle worker; waiting for one counts against the deadline."""
        if method in CONSTANT_TIME or (self._inline and bounded(method, params)):
            return answer(method, params, deadline)
        try:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            worker = self._idle.get(timeout=wait)
        except queue.Empty:
            return request_codes.timed_out()
        try:
            return worker.call(method, params, deadline)
        finally:
            self._idle.put(worker)

    def close(self) -> None:
        while True:
            try:
                self._idle.get_nowait().stop()
            except queue.Empty:
                return

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
