"""The time budget of one request: a `time.monotonic()` deadline the service and the cores share.

Cores check it between steps and give each Z3 check the time left as that solver's own
`timeout`, so a budget never needs a signal (which could fire inside Z3) and never touches
Z3's global parameters. `time.monotonic()` reads one system-wide clock on Linux, so a
deadline set by the service holds unchanged in the worker process that answers the request.
"""

from __future__ import annotations

import math
import time


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
