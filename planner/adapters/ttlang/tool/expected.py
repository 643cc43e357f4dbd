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

from planner.adapters.ttlang.reading.diagnostics import Diagnostic
from planner.adapters.ttlang.reading.source import Chunk

# Up to the text's opening braces. Possessive quantifiers never give back what they matched, so a
# megabyte of spaces after `expected-error` costs one pass, not one pass per start position.
_DESIGNATOR = re.compile(
    r"//\s*+expected-(?P<severity>error|warning|note|remark)\s*+"
    r"(?:@(?P<where>above|below|[+-]\d++))?\s*+\{\{"
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
    # An offset longer than any file (and than Python converts) names a line past either end.
    offset = int(where) if len(where) <= 10 else (count if where[0] == "+" else -count)
    return index + offset


def expected_diagnostics(chunk: Chunk) -> list[Expected]:
    """The expected diagnostics a chunk's comments declare, lines numbered in the whole file."""
    lines = chunk.text.split("\n")
    found = [(index, *designator) for index, line in enumerate(lines) for designator in _designators(line)]
    designated = {index for index, *_ in found}
    return [
        Expected(
            severity,
            chunk.first_line + _target(index, where, designated, len(lines)),
            text,
            chunk.first_line + index,
        )
        for index, severity, where, text in found
    ]


def _designators(line: str) -> Iterable[tuple[str, str | None, str]]:
    """(severity, designator, text) of each `expected-*` comment on one line, left to right.

    A text runs to the first `}}` after its `{{`; the next comment is sought after that `}}`.
    An opening with no `}}` after it ends the line's comments, since no later one can close
    either: each character is looked at a bounded number of times however the line is built.
    """
    position = 0
    while (opening := _DESIGNATOR.search(line, position)) is not None:
        closing = line.find("}}", opening.end())
        if closing < 0:
            return
        yield opening.group("severity"), opening.group("where"), line[opening.end() : closing]
        position = closing + 2


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
