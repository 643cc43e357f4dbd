"""Handing freed heap memory back to the system after a large message.

The C allocator keeps the pages of freed large objects for reuse, in one arena per thread
that allocated them, so a service that answered a few 4 MiB messages on several threads
can stay tens of megabytes larger for the rest of its life. glibc's `malloc_trim` returns
every arena's free pages; elsewhere (another C library) this does nothing.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache


@cache
def _trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


def hand_back_memory() -> None:
    """Return the free pages of every allocator arena to the system (a few milliseconds)."""
    trim = _trim()
    if trim is not None:
        trim(0)
