"""A bound on bracket nesting, checked before parsing, and the stack that bound needs.

xDSL's parser, verifier and printer recurse several Python frames per nested attribute, type
or region (eight per `scf.if` level when parsing), so the interpreter's default limit of 1,000
frames runs out near 120 levels. Real kernels nest a few levels; anything past `NESTING_LIMIT`
is refused as a parse error at the bracket that goes too deep, and reading IR within the limit
runs under `room_for_nesting`, which raises the recursion limit by a bounded amount for as
long as the reading lasts.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

NESTING_LIMIT = 128
FRAMES_PER_LEVEL = 16
"""Python frames one bracket level may cost across parsing, verifying, collecting and printing
(eight measured for parsing an `scf.if`), with room to spare."""

SKIPPED_TEXT = r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"|//[^\n]*+'
"""A string literal or a line comment, matched possessively: no backtracking, so the regex
engine's memory stays constant however long the string is."""

_TOKENS = re.compile(SKIPPED_TEXT + r"|->|[(\[{<]|[)\]}>]")
_OPENING = frozenset("([{<")


def too_deep_at(text: str, limit: int = NESTING_LIMIT) -> int | None:
    """The offset of the first bracket opening level `limit + 1` (strings, comments and `->` skipped)."""
    depth = 0
    for token in _TOKENS.finditer(text):
        bracket = token.group(0)
        if bracket in _OPENING:
            depth += 1
            if depth > limit:
                return token.start()
        elif len(bracket) == 1:
            depth = max(depth - 1, 0)
    return None


@contextmanager
def room_for_nesting() -> Iterator[None]:
    """Run the body with `FRAMES_PER_LEVEL * NESTING_LIMIT` more frames allowed than its caller
    has, restoring the caller's limit afterwards (at most 2,048 frames, well within a thread's
    default C stack since Python-to-Python calls do not consume it)."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(previous + FRAMES_PER_LEVEL * NESTING_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)
