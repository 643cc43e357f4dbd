"""A bound on bracket nesting, checked before parsing.

xDSL's parser recurses once per nested attribute, type or region, so a deeply nested input
would exhaust the interpreter's stack instead of being reported. Real kernels nest a few
levels; anything past `NESTING_LIMIT` is refused as a parse error at the bracket that goes
too deep.
"""

from __future__ import annotations

import re

NESTING_LIMIT = 128
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|[(\[{<]|[)\]}>]')
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
