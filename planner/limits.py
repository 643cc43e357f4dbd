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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn

from planner import request_codes
from planner.errors import TOO_DEEP, RequestError, excerpt

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
        TOO_DEEP,
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
        raise ValueError(f"the number {excerpt(text)} is out of range")
    return value


MAX_NUMBER_DIGITS = (
    100  # characters of one JSON integer; far past 2**128, far below Python's int-string limit
)


def bounded_int(text: str) -> int:
    """A JSON integer, refused by its length before conversion (Python's limit would raise mid-parse)."""
    if len(text) > MAX_NUMBER_DIGITS:
        raise ValueError(
            f"an integer of {len(text)} digits is longer than the {MAX_NUMBER_DIGITS}-digit limit"
        )
    return int(text)


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
        value = json.loads(
            text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=bounded_int
        )
    except RecursionError:
        raise too_deep(limits.max_depth) from None
    except ValueError as exc:
        raise RequestError(
            request_codes.PARSE_ERROR, f"request is not valid JSON: {excerpt(str(exc))}"
        ) from None
    check_depth(text, limits.max_depth)
    return value


_COMPACT_SEPARATORS = (",", ":")


def dump_json(value: Any) -> str:
    """Deterministic compact JSON: sorted keys, no spaces, ASCII only."""
    return json.dumps(
        value, sort_keys=True, separators=_COMPACT_SEPARATORS, ensure_ascii=True, allow_nan=False
    )


# `dump_json`'s encoding less what cannot change its length for parsed JSON: key order (the keys
# are strings) and the cycle check (a parsed document has no cycles).
_MEASURING = json.JSONEncoder(
    separators=_COMPACT_SEPARATORS, ensure_ascii=True, allow_nan=False, check_circular=False
)


def json_length(value: Any) -> int:
    """The length of `dump_json(value)` for a parsed JSON value, without sorting its keys."""
    return len(_MEASURING.encode(value))


def pretty_json(value: Any) -> str:
    """Deterministic JSON for people and files: sorted keys, two-space indent, trailing newline."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=True, allow_nan=False) + "\n"


DEFAULT_MAX_MEMORY = 1024 * 1024 * 1024  # bytes of address space a command or a service worker may hold


def _spelled(value: float) -> str:
    return str(int(value)) if math.isfinite(value) and value == int(value) else f"{value:g}"


@dataclass(frozen=True, slots=True)
class OptionRange:
    """The values a numeric command-line option accepts, checked as the command line is read
    (the README's "Limits" table lists them). `unlimited` are values outside `[low, high]` that
    mean "no limit" (`0`, `inf`); NaN is never a value."""

    low: float
    high: float
    unit: str
    integer: bool = True
    unlimited: tuple[float, ...] = ()

    def describe(self) -> str:
        bounds = f"{_spelled(self.low)} to {_spelled(self.high)} {self.unit}"
        unlimited = " or ".join(_spelled(value) for value in self.unlimited)
        return f"{bounds} ({unlimited}: unlimited)" if unlimited else bounds

    def read(self, text: str) -> float:
        """The option's value from its command-line text; out of range is a usage error naming the range."""
        import argparse

        kind = "a whole number" if self.integer else "a number"
        try:
            value: float = int(text, 10) if self.integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expects {kind} from {self.describe()}, got {excerpt(text)!r}"
            ) from None
        if value in self.unlimited or self.low <= value <= self.high:
            return value
        raise argparse.ArgumentTypeError(f"{excerpt(text)} is outside {self.describe()}")


MAX_WORKERS = 64  # worker processes one command may start, on every machine
WORKERS = OptionRange(1, MAX_WORKERS, "processes")
BYTES = OptionRange(1, 1 << 30, "bytes")  # --max-bytes: one input or request is read whole
DEPTH = OptionRange(1, 10_000, "levels")  # --max-depth (the JSON reader's own guard stops far below)
TIMEOUT = OptionRange(0.001, 1_000_000, "seconds", integer=False, unlimited=(0, math.inf))
SECONDS = OptionRange(0.001, 1_000_000, "seconds", integer=False)  # --read-timeout, --idle-timeout
CONNECTIONS = OptionRange(1, 65_536, "connections")
MEMORY = OptionRange(1, 1 << 62, "bytes", unlimited=(0,))  # --max-memory; `memory_capped` states its floor
START_HEADROOM = 64 * 1024 * 1024  # address space a command needs beyond what it maps when the cap is set


def _address_space_bytes() -> int:
    """This process's mapped address space (what RLIMIT_AS counts); 0 where /proc cannot tell."""
    import os

    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def smallest_cap() -> int:
    """The smallest `--max-memory` this process can run under: what it maps now plus `START_HEADROOM`,
    rounded up to 16 MiB (what a process maps at start varies by a few pages from run to run)."""
    step = 16 * 1024 * 1024
    return -(-(_address_space_bytes() + START_HEADROOM) // step) * step


def check_cap(max_bytes: int | None) -> None:
    """On the command line: refuse a cap below `smallest_cap` as `request.too_large` naming that
    floor, rather than run a command that could not even start under it (0 or None: no cap)."""
    if max_bytes and max_bytes < (floor := smallest_cap()):
        raise RequestError(
            request_codes.TOO_LARGE,
            f"--max-memory {max_bytes} is below the {floor} bytes this command needs to start (what it "
            f"maps already, plus {START_HEADROOM} to work in); give at least {floor}, or 0 for no cap",
        )


@contextmanager
def memory_capped(max_bytes: int | None, *, own_process: bool = False) -> Iterator[None]:
    """Bound this process's address space (RLIMIT_AS) inside the block, so a runaway request fails as
    `MemoryError` (answered `request.too_large`) instead of taking the machine; None or 0: unbounded.

    Only the soft limit moves (never above the hard one), and it is restored afterwards, so a
    caller that runs a command in its own process (a test, an embedding tool) keeps its limit.
    `own_process`: the process is the command's own (the command line, after `check_cap`, or a
    service worker), and the cap always holds. Otherwise the caller is a host (a test, a tool
    calling `main(argv)`): a process that already maps half the cap is left unbounded, since its
    other threads could not even start under the cap.
    """
    if not max_bytes or max_bytes <= 0 or (not own_process and _address_space_bytes() * 2 >= max_bytes):
        yield
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = max_bytes if hard == resource.RLIM_INFINITY else min(max_bytes, hard)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
