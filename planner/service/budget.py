"""The per-request time budget.

Two mechanisms, both needed: Z3's own `timeout` parameter stops a solver call (the core
then reports the obligation as "unknown", never "proven"), and an interval timer raises
`BudgetExceeded` between Python steps (e.g. a long CSP search). The timer can only be armed
on the main thread; elsewhere only the Z3 limit and a handler's own `deadline` apply.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class BudgetExceeded(Exception):
    """The request ran past its time budget."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise BudgetExceeded


def _limit_z3(seconds: float) -> None:
    """Cap every Z3 check made from now on (a no-op until a core has imported z3)."""
    z3 = sys.modules.get("z3")
    if z3 is not None:
        z3.set_param("timeout", max(1, int(seconds * 1000)))


@contextmanager
def time_budget(seconds: float | None) -> Iterator[float | None]:
    """Run the body within `seconds`; yields the monotonic deadline (None: unlimited)."""
    if seconds is None:
        yield None
        return
    deadline = time.monotonic() + seconds
    _limit_z3(seconds)
    if threading.current_thread() is not threading.main_thread():
        yield deadline
        return
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield deadline
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
