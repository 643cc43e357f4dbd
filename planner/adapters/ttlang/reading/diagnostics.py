"""MLIR-style diagnostics at the parsed source locations (docs/design/kernel-config.md section 8).

`file:line:col: error: 'ttl.tile_bcast' op <message>` followed by `file:line:col: note: ...`;
the location of an op is its first token, as MLIR reports it. Messages that already carry
the `'<op name>' op ` prefix are not prefixed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from xdsl.ir import Operation

from planner.adapters.ttlang.reading.source import ParsedChunk

Severity = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Located:
    """Where a diagnostic points: an op of a parsed chunk (None: the chunk's first character)."""

    parsed: ParsedChunk
    op: Operation | None

    def line_col(self) -> tuple[int, int]:
        site = self.parsed.sites.get(self.op) if self.op is not None else None
        return self.parsed.line_col(site.start if site is not None else 0)


def with_op_prefix(op: Operation | None, message: str) -> str:
    """MLIR's `'<op name>' op ` prefix, unless the message already has one."""
    if op is None or message.startswith("'"):
        return message
    return f"'{op.name}' op {message}"


@dataclass(frozen=True)
class Diagnostic:
    """One MLIR diagnostic: its severity, where it points in the whole file, and its text."""

    severity: Severity
    line: int
    column: int
    message: str

    def render(self, filename: str) -> str:
        return f"{filename}:{self.line}:{self.column}: {self.severity}: {self.message}"


def diagnostic(where: Located, severity: Severity, message: str) -> Diagnostic:
    """The diagnostic at `where`, its message prefixed with the op name as MLIR does (not notes)."""
    line, column = where.line_col()
    text = message if severity == "note" else with_op_prefix(where.op, message)
    return Diagnostic(severity, line, column, text)
