"""The arithmetic oracle's evaluator: offsets as the IR computes them, over whole columns of values.

Its own reading of docs/design/nz-layout.md 7.3, written over raw bit patterns rather than the
prover's signed values: an int literal is INDEX, a binary node computes at the wider operand's
dtype (the left one's on a tie), casts keep the low bits or extend, unsigned `//` and `%`
divide the patterns, signed ones floor or truncate per reading, and an unsigned value widens
by zero- or sign-extension per reading.

Every function works on numpy arrays, one element per assignment, so the oracle evaluates
all assignments of a binding list in one pass. Arrays are `int64` where every width involved
is at most 16 bits (a product of two such values stays below 2**33, so nothing overflows), and
Python ints (`object`) otherwise, which are exact at any width. Nothing here comes from
`planner.proofs` except the expression tree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from planner.proofs.expr import BinOp, Const, Expr, MinMaxCall, Name, Neg

Column: TypeAlias = npt.NDArray[Any]  # one value per assignment: int64, or object holding ints
TypeOf: TypeAlias = Callable[[str], tuple[int, bool]]  # a name's (bits, signed)


@dataclass(frozen=True, slots=True)
class OracleReading:
    """How signed `//`/`%` round (`floor`, `trunc`) and how unsigned values widen (`zero`, `sign`)."""

    division: str = "floor"
    extension: str = "zero"


IR_READING = OracleReading()  # what the IR means: floor division, unsigned values zero-extended


def wrap(value: int, bits: int) -> int:
    """`value` read as a signed `bits`-wide two's-complement integer."""
    pattern = value & ((1 << bits) - 1)
    return pattern - (1 << bits) if pattern >> (bits - 1) else pattern


@dataclass(frozen=True, slots=True)
class Typed:
    """A column of values of one dtype, kept as bit patterns in `[0, 2**bits)`."""

    pattern: Column
    bits: int
    signed: bool

    @property
    def number(self) -> Column:
        """The ints the dtype reads from the patterns."""
        if not self.signed:
            return self.pattern
        top = (self.pattern >> (self.bits - 1)) & 1
        return np.where(top == 1, self.pattern - (1 << self.bits), self.pattern)


@dataclass(frozen=True, slots=True)
class Computed:
    """An expression's column of values; `defined` is False where it divides by zero."""

    value: Typed
    defined: npt.NDArray[np.bool_]


def typed(number: Column, bits: int, signed: bool) -> Typed:
    return Typed(number & ((1 << bits) - 1), bits, signed)


def convert(value: Typed, bits: int, signed: bool, reading: OracleReading) -> Typed:
    """Cast: keep the low bits, or fill the new high bits with copies of the top bit when extending
    a signed value (or an unsigned one read as sign-extending), with zeros otherwise."""
    pattern = value.pattern & ((1 << bits) - 1)
    if bits > value.bits and (value.signed or reading.extension == "sign"):
        top = (value.pattern >> (value.bits - 1)) & 1
        fill = ((1 << bits) - 1) ^ ((1 << value.bits) - 1)
        pattern = np.where(top == 1, pattern | fill, pattern)
    return Typed(pattern, bits, signed)


def compute(
    expr: Expr, columns: Mapping[str, Column], types: TypeOf, index: int, reading: OracleReading, size: int
) -> Computed:
    """The value of `expr` at every assignment (`columns` holds each name's values)."""
    dtype = next(iter(columns.values())).dtype if columns else np.dtype(object)
    everywhere = np.ones(size, dtype=bool)

    def walk(node: Expr) -> Computed:
        if isinstance(node, Const):
            pattern = np.full(size, node.value & ((1 << index) - 1), dtype=dtype)
            return Computed(Typed(pattern, index, True), everywhere)
        if isinstance(node, Name):
            bits, signed = types(node.id)
            return Computed(typed(columns[node.id], bits, signed), everywhere)
        if isinstance(node, Neg):
            inner = walk(node.operand)
            return Computed(typed(-inner.value.pattern, inner.value.bits, inner.value.signed), inner.defined)
        assert isinstance(node, BinOp | MinMaxCall)
        left, right = walk(node.left), walk(node.right)
        op = node.op if isinstance(node, BinOp) else node.fn
        return _binary(op, left, right, reading)

    return walk(expr)


def _binary(op: str, left: Computed, right: Computed, reading: OracleReading) -> Computed:
    ruling = right.value if right.value.bits > left.value.bits else left.value
    x = convert(left.value, ruling.bits, ruling.signed, reading).number
    y = convert(right.value, ruling.bits, ruling.signed, reading).number
    defined = left.defined & right.defined
    if op in ("//", "%"):
        zero = y == 0
        defined = defined & ~zero
        divisor = np.where(zero, 1, y)
        quotient = x // divisor
        if reading.division == "trunc":  # toward zero: one above the floor when the signs differ
            inexact = (x - quotient * divisor) != 0
            quotient = np.where(inexact & ((x < 0) != (divisor < 0)), quotient + 1, quotient)
        result = quotient if op == "//" else x - quotient * divisor
    elif op in ("min", "max"):
        result = np.minimum(x, y) if op == "min" else np.maximum(x, y)
    else:
        result = {"+": np.add, "-": np.subtract, "*": np.multiply}[op](x, y)
    return Computed(typed(result, ruling.bits, ruling.signed), defined)


def executed(value: Typed, index: int, reading: OracleReading) -> Column:
    """An offset's values once cast into the signed index (never narrowed below its own width)."""
    return convert(value, max(value.bits, index), True, reading).number


def exact_column(values: list[int]) -> Column:
    """A column of Python ints, exact at any width."""
    column = np.empty(len(values), dtype=object)
    column[:] = values
    return column
