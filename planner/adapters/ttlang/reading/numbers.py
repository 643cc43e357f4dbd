"""A bound on the length of integer literals, checked before parsing.

Python refuses to convert a decimal string of more than 4,300 digits to an `int`, and xDSL
converts every integer it reads (constants, attribute values, the dimensions of a
`tensor<...>` shape), so an overlong literal would surface as an internal error instead of a
parse error. No tile dimension, buffer index or constant a kernel can use needs more than
`DIGIT_LIMIT` digits; a longer run of digits (decimal, or hexadecimal after `0x`) outside
strings and comments is refused at its first digit, the digits of a float literal included
(no float needs that many to be exact).
"""

from __future__ import annotations

import re

from planner.adapters.ttlang.reading.nesting import SKIPPED_TEXT
from planner.limits import MAX_NUMBER_DIGITS

DIGIT_LIMIT = MAX_NUMBER_DIGITS  # the JSON reader's bound, for the same reason

_TOKENS = re.compile(SKIPPED_TEXT + r"|0[xX][0-9a-fA-F]++|[0-9]++")


def overlong_number_at(text: str, limit: int = DIGIT_LIMIT) -> int | None:
    """The offset of the first run of more than `limit` digits (a `0x` prefix not counted)."""
    for token in _TOKENS.finditer(text):
        digits = token.group(0)
        if digits[0] in '"/':
            continue
        length = len(digits) - 2 if digits[1:2] in ("x", "X") else len(digits)
        if length > limit:
            return token.start()
    return None
