"""The time budget of one request: a `time.monotonic()` deadline the service and the cores share.

Cores check it between steps and give each Z3 check the time left as that solver's own
`timeout`, so a budget never needs a signal (which could fire inside Z3) and never touches
Z3's global parameters. `time.monotonic()` reads one system-wide clock on Linux, so a
deadline set by the service holds unchanged in the worker process that answers the request.
`gc_paused` keeps a large request's cost linear in its size.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

WATCHDOG_GRACE = 0.25  # seconds past a deadline before a watchdog gives up on the cooperative stop


class BudgetExceeded(Exception):
    """The request ran past its deadline."""


def deadline_after(seconds: float | None) -> float | None:
    """The deadline `seconds` from now (None: unlimited)."""
    return None if seconds is None else time.monotonic() + seconds


def check_deadline(deadline: float | None) -> None:
    """Raise `BudgetExceeded` once the deadline has passed; a cooperative check between steps."""
    if deadline is not None and time.monotonic() >= deadline:
        raise BudgetExceeded


def remaining_ms(deadline: float | None) -> int | None:
    """Whole milliseconds left (at least 1) for a solver call; raises once the deadline has passed."""
    check_deadline(deadline)
    return None if deadline is None else max(1, math.ceil((deadline - time.monotonic()) * 1000))


def expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside (nested uses are fine).

    Validating or resolving a large request allocates many small objects that form no cycles;
    the collector's passes over them, and over every live object, would cost more than the work.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def watchdog(seconds: float | None, expire: Callable[[], None]) -> Iterator[None]:
    """Call `expire` (which ends the process) if the block is still running `seconds` from now.

    The cooperative deadline stops the cores between steps; this covers a step that never checks
    it (a blocking read of a FIFO with no writer, a parse, a search), without a worker process.
    `inf` is no deadline, as None is; a finite wait beyond what a timer can hold is held to that.
    """
    if seconds is None or math.isinf(seconds):
        yield
        return
    import threading

    seconds = min(seconds, threading.TIMEOUT_MAX)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
