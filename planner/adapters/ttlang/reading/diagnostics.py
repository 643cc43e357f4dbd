"""MLIR-style diagnostics at the parsed source locations (docs/design/kernel-config.md section 8).

`file:line:col: error: 'ttl.tile_bcast' op <message>` followed by `file:line:col: note: ...`;
an op's position in the IR file is its name, where MLIR's parser locates it (`ttl.foo` of
`%0 = ttl.foo`, the quoted name of a generic op). Where the op's location names a file
position (`loc("kernel.py":42:14)`, TT-Lang's debug locations), the diagnostic is reported
there, as `mlir-opt` does, each caller of a call site follows as a `called from` note, and the
op's position in the IR file follows as a last note. The IR position stays the diagnostic's
line for `-verify-diagnostics`, whose `expected-*` comments name lines of the IR file. Messages
that already carry the `'<op name>' op ` prefix are not prefixed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from xdsl.ir import Operation

from planner.adapters.outcome import SourcePlace
from planner.adapters.ttlang.reading.locations import source_place
from planner.adapters.ttlang.reading.source import ParsedChunk

Severity = Literal["error", "warning", "note", "remark"]


@dataclass(frozen=True)
class Located:
    """Where a diagnostic points: an op of a parsed chunk (None: the chunk's first character)."""

    parsed: ParsedChunk
    op: Operation | None

    def line_col(self) -> tuple[int, int]:
        """The op's name in the IR file, where MLIR locates an op (the chunk's start: no op)."""
        return self.parsed.op_line_col(self.op) if self.op is not None else self.parsed.line_col(0)

    def source(self) -> SourcePlace | None:
        """The file position the op's location names, if it names one."""
        return source_place(self.op.location) if self.op is not None else None


def with_op_prefix(op: Operation | None, message: str) -> str:
    """MLIR's `'<op name>' op ` prefix, unless the message already has one."""
    if op is None or message.startswith("'"):
        return message
    return f"'{op.name}' op {message}"


@dataclass(frozen=True)
class Diagnostic:
    """One MLIR diagnostic: its severity, where it points in the whole IR file, its text, and
    the source position the op's location names (None: reported in the IR file)."""

    severity: Severity
    line: int
    column: int
    message: str
    source: SourcePlace | None = None

    def render(self, filename: str) -> str:
        """The diagnostic's lines: at its source position with its notes, else in the IR file."""
        in_ir = f"{filename}:{self.line}:{self.column}"
        if self.source is None:
            return f"{in_ir}: {self.severity}: {self.message}"
        return self.source.render(self.severity, self.message, in_ir)

    def to_json(self, filename: str) -> dict[str, object]:
        """Both positions: `location` in the IR file, `source_location` (and callers) when known."""
        found: dict[str, object] = {
            "severity": self.severity,
            "message": self.message,
            "location": f"{filename}:{self.line}:{self.column}",
        }
        if self.source is not None:
            found["source_location"] = self.source.position
            found["called_from"] = list(self.source.called_from)
        return found


def diagnostic(where: Located, severity: Severity, message: str) -> Diagnostic:
    """The diagnostic at `where`, its message prefixed with the op name as MLIR does (errors and
    warnings)."""
    line, column = where.line_col()
    text = with_op_prefix(where.op, message) if severity in ("error", "warning") else message
    return Diagnostic(severity, line, column, text, where.source())
