"""How the IR types an offset: each node's width and signedness, and the readings of the code that runs.

The rules (docs/design/nz-layout.md 7.3, PyPTO `PromoteBinaryOperands`):

| node | dtype |
|---|---|
| int literal | INDEX: the index width, signed |
| name | its binding's `bits` and `signed` (an unbound name is INDEX) |
| `a op b`, `min(a, b)`, `max(a, b)` | the wider operand's dtype; equal widths: the left operand's |
| `-a` | `a`'s dtype |

Operands are cast to the node's dtype before it computes: widening sign-extends a signed
value and zero-extends an unsigned one, narrowing truncates. A `Reading` fixes the two
choices on which generated code and the IR may differ: whether a signed `//`/`%` floors or
truncates, and whether an unsigned value widens by zero- (the IR) or sign-extension (an
`arith.index_cast` bridge). Every obligation must hold under each reading it admits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from planner.proofs.expr import BinOp, Const, Expr, MinMaxCall, Name, Neg

DivisionSemantics: TypeAlias = Literal["floor", "trunc", "either"]
DivisionReading: TypeAlias = Literal["floor", "trunc"]
ExtensionReading: TypeAlias = Literal["zero", "sign"]


@dataclass(frozen=True, slots=True)
class Dtype:
    """An integer dtype: `bits` wide, signed or unsigned."""

    bits: int
    signed: bool = True

    @property
    def low(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def high(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def holds(self, value: int) -> bool:
        """Whether `value` is representable without a cast."""
        return self.low <= value <= self.high

    def describe(self) -> str:
        return f"{'INT' if self.signed else 'UINT'}{self.bits}"


@dataclass(frozen=True, slots=True)
class Reading:
    """One way the generated code may compute: how signed `//`/`%` round, how unsigned values widen."""

    division: DivisionReading = "floor"
    extension: ExtensionReading = "zero"

    def as_json(self) -> dict[str, str]:
        return {"division": self.division, "extension": self.extension}


IR_READING = Reading()
"""The IR's own meaning: floor division, unsigned values zero-extended."""


def readings(division: DivisionSemantics) -> tuple[Reading, ...]:
    """Every reading an obligation must hold under: the requested divisions, both extensions always."""
    divisions: tuple[DivisionReading, ...] = ("floor", "trunc") if division == "either" else (division,)
    return tuple(Reading(d, e) for d in divisions for e in ("zero", "sign"))


def promote(left: Dtype, right: Dtype) -> Dtype:
    """The dtype a binary node computes at: the wider operand's, the left one's on a tie."""
    return right if right.bits > left.bits else left


def type_of(expr: Expr, dtype_of: Callable[[str], Dtype], index: Dtype) -> Dtype:
    """The dtype of `expr` under the rules in the module docstring."""
    if isinstance(expr, Const):
        return index
    if isinstance(expr, Name):
        return dtype_of(expr.id)
    if isinstance(expr, Neg):
        return type_of(expr.operand, dtype_of, index)
    assert isinstance(expr, BinOp | MinMaxCall)
    return promote(type_of(expr.left, dtype_of, index), type_of(expr.right, dtype_of, index))


def goal_dtype(offset: Dtype, index: Dtype) -> Dtype:
    """Where an offset's goal is judged: cast into the signed index (never narrowed below its own width)."""
    return Dtype(max(offset.bits, index.bits), True)
