"""Request limits and the bounded JSON reader every entry point shares.

Reading is linear in the message's length whatever it holds: the standard library's C
parser reads it (its own recursion guard stops a nesting deeper than the interpreter's
recursion limit), then one vectorised pass over the text outside strings measures the
nesting against `max_depth`, before anything recursive (validation) sees the value.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, NoReturn

from planner import request_codes
from planner.contract import RequestError

# One JSON string, escapes included. Only ever run on text the parser accepted, where every
# string is closed, so each match ends at its closing quote and the scan stays linear.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


@dataclass(frozen=True, slots=True)
class Limits:
    """What one message may cost: bytes, JSON nesting, batch entries, wall-clock seconds."""

    max_bytes: int = 4 * 1024 * 1024
    max_depth: int = 64
    max_batch: int = 256
    time_budget: float | None = 10.0


def too_deep(max_depth: int) -> RequestError:
    return RequestError(
        request_codes.TOO_DEEP,
        f"JSON nests deeper than {max_depth} levels; flatten the request or raise --max-depth",
    )


def nesting_depth(valid_json: str) -> int:
    """How deep the arrays and objects of a valid JSON text nest (brackets inside strings ignored)."""
    import numpy

    structure = _JSON_STRING.sub("", valid_json).encode("ascii")  # outside strings, JSON is ASCII
    brackets = numpy.frombuffer(structure, dtype=numpy.uint8)
    steps = numpy.isin(brackets, (0x5B, 0x7B)).astype(numpy.int32) - numpy.isin(brackets, (0x5D, 0x7D))
    return int(steps.cumsum().max(initial=0))


def check_depth(valid_json: str, max_depth: int) -> None:
    """Refuse a valid JSON text whose arrays/objects nest deeper than `max_depth`."""
    if valid_json.count("[") + valid_json.count("{") > max_depth and nesting_depth(valid_json) > max_depth:
        raise too_deep(max_depth)


def too_large(max_bytes: int) -> RequestError:
    """The refusal of a request above the byte limit (its bytes are not read further)."""
    return RequestError(
        request_codes.TOO_LARGE, f"request is above the {max_bytes} byte limit; split it or raise --max-bytes"
    )


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    """A JSON number read as a float; one beyond the float range (e.g. 1e400) is refused."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {request_codes.excerpt(text)} is out of range")
    return value


def parse_json(data: bytes, limits: Limits) -> Any:
    """Decode one JSON document within the size and depth limits, or raise a typed error."""
    if len(data) > limits.max_bytes:
        raise too_large(limits.max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(
            request_codes.PARSE_ERROR, f"request is not UTF-8: {exc.reason} at byte {exc.start}"
        ) from None
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except RecursionError:
        raise too_deep(limits.max_depth) from None
    except ValueError as exc:
        raise RequestError(
            request_codes.PARSE_ERROR, f"request is not valid JSON: {request_codes.excerpt(str(exc))}"
        ) from None
    check_depth(text, limits.max_depth)
    return value


def dump_json(value: Any) -> str:
    """Deterministic compact JSON: sorted keys, no spaces, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def pretty_json(value: Any) -> str:
    """Deterministic JSON for people and files: sorted keys, two-space indent, trailing newline."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=True, allow_nan=False) + "\n"
