"""MLIR's `-verify-diagnostics`: `// expected-error @below {{text}}` comments checked against emitted ones.

A designator names a line: none (its own line), `@+N` / `@-N` (relative), `@below` / `@above`
(the nearest line below / above that holds no designator). An emitted diagnostic matches an
expected one of the same severity on the same line whose text it contains; every emitted
diagnostic must be expected and every expected one emitted. A mismatch is reported as an
error at the line concerned, as MLIR's verifier does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from planner.adapters.ttlang.diagnostics import Diagnostic
from planner.adapters.ttlang.source import Chunk

_DESIGNATOR = re.compile(
    r"//\s*expected-(?P<severity>error|warning|note|remark)\s*"
    r"(?:@(?P<where>above|below|[+-]\d+))?\s*\{\{(?P<text>.*?)\}\}"
)


@dataclass(frozen=True)
class Expected:
    """One expected diagnostic: its severity, the line it names, its text, and where it is written."""

    severity: str
    line: int
    text: str
    written_at: int


def _target(index: int, where: str | None, designated: set[int], count: int) -> int:
    """The 0-based line a designator on line `index` names."""
    if where is None:
        return index
    if where in ("below", "above"):
        step = 1 if where == "below" else -1
        target = index + step
        while 0 <= target < count and target in designated:
            target += step
        return target
    return index + int(where)


def expected_diagnostics(chunk: Chunk) -> list[Expected]:
    """The expected diagnostics a chunk's comments declare, lines numbered in the whole file."""
    lines = chunk.text.split("\n")
    found = [(index, match) for index, line in enumerate(lines) for match in _DESIGNATOR.finditer(line)]
    designated = {index for index, _ in found}
    return [
        Expected(
            match.group("severity"),
            chunk.first_line + _target(index, match.group("where"), designated, len(lines)),
            match.group("text"),
            chunk.first_line + index,
        )
        for index, match in found
    ]


def _matches(expected: Expected, emitted: Diagnostic) -> bool:
    same_place = (expected.severity, expected.line) == (emitted.severity, emitted.line)
    return same_place and expected.text in emitted.message


def verify(emitted: Iterable[Diagnostic], expected: Iterable[Expected]) -> list[Diagnostic]:
    """The mismatches between emitted and expected diagnostics (none: the chunk verifies)."""
    waiting = list(expected)
    problems: list[Diagnostic] = []
    for item in emitted:
        match = next((candidate for candidate in waiting if _matches(candidate, item)), None)
        if match is None:
            message = f"unexpected {item.severity}: {item.message}"
            problems.append(Diagnostic("error", item.line, item.column, message))
        else:
            waiting.remove(match)
    for missing in waiting:
        message = f'expected {missing.severity} "{missing.text}" was not produced'
        problems.append(Diagnostic("error", missing.written_at, 1, message))
    return problems
