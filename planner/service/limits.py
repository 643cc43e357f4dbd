"""Request limits and the bounded JSON reader every entry point shares.

Depth is measured on the raw text before `json.loads` runs, so a deeply nested message
never reaches a recursive parser or validator.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, NoReturn

from planner.contract import RequestError
from planner.service import codes

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


@dataclass(frozen=True, slots=True)
class Limits:
    """What one request may cost: bytes, JSON nesting, batch entries, wall-clock seconds."""

    max_bytes: int = 4 * 1024 * 1024
    max_depth: int = 64
    max_batch: int = 256
    time_budget: float | None = 10.0


def check_depth(text: str, max_depth: int) -> None:
    """Refuse text whose arrays/objects nest deeper than `max_depth` (strings ignored)."""
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for bracket in _BRACKET.findall(_JSON_STRING.sub('""', text)):
        depth += 1 if bracket in "[{" else -1
        if depth > max_depth:
            raise RequestError(
                codes.TOO_DEEP,
                f"JSON nests deeper than {max_depth} levels; flatten the request or raise --max-depth",
            )


def too_large(max_bytes: int) -> RequestError:
    """The refusal of a request above the byte limit (its bytes are not read further)."""
    return RequestError(
        codes.TOO_LARGE, f"request is above the {max_bytes} byte limit; split it or raise --max-bytes"
    )


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def parse_json(data: bytes, limits: Limits) -> Any:
    """Decode one JSON document within the size and depth limits, or raise a typed error."""
    if len(data) > limits.max_bytes:
        raise too_large(limits.max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(
            codes.PARSE_ERROR, f"request is not UTF-8: {exc.reason} at byte {exc.start}"
        ) from None
    check_depth(text, limits.max_depth)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise RequestError(codes.PARSE_ERROR, f"request is not valid JSON: {exc}") from None


def dump_json(value: Any) -> str:
    """Deterministic compact JSON: sorted keys, no spaces, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def pretty_json(value: Any) -> str:
    """Deterministic JSON for people and files: sorted keys, two-space indent, trailing newline."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=True, allow_nan=False) + "\n"
