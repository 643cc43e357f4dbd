"""What planning one IR file produces, whichever adapter read it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner.errors import InputError


@dataclass(frozen=True)
class AdapterOutcome:
    """The result of planning one file.

    `text` is the planned IR when `ok`, otherwise the input byte-for-byte. `diagnostics`
    are rendered compiler-style lines (`file:line:col: error: [code] message`, MLIR
    `loc: error: ...` / `note: ...`). `report` is JSON-serialisable: per function, the
    request sent to the planning core and the response it gave. `notes` is set when the
    input is source that planning reports on instead of rewriting: `text` is then always
    the input byte-for-byte and the notes (`file:line:col: note: ...`) are the plan.
    `partial`: not `ok` only because some kernels could not be read; the others planned, and
    `text` (printed IR with their plans applied) or `notes` carry their plans.
    """

    ok: bool
    text: str
    diagnostics: list[str] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)
    notes: list[str] | None = None
    partial: bool = False


IR_NOTE = "the op in the IR"
CALLED_FROM = "called from"


@dataclass(frozen=True)
class SourcePlace:
    """Where a problem at an op is in the source its location names (`kernel.py:42:14`), as MLIR
    reports it, and, for a call site, the positions of its callers."""

    position: str
    called_from: tuple[str, ...] = ()

    def render(self, severity: str, message: str, in_ir: str) -> str:
        """MLIR's lines: at the source position, a `called from` note per caller, then the op's
        position in the file read (`in_ir`) as a last note."""
        lines = [f"{self.position}: {severity}: {message}"]
        lines += [f"{caller}: note: {CALLED_FROM}" for caller in self.called_from]
        lines.append(f"{in_ir}: note: {IR_NOTE}")
        return "\n".join(lines)


class AdapterInputError(InputError):
    """The input is not IR this adapter reads; its code is a stable `adapter.<name>`.

    `others`: the first problem of each further function of the same file that cannot be read,
    so a user fixing the file sees the whole list at once. `source`: for a problem at an op whose
    location names a file position, that position (`line` and `column` stay the op's in the file
    read)."""

    others: tuple[AdapterInputError, ...] = ()
    source: SourcePlace | None = None
