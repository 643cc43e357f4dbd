"""Concrete semantics of typed offsets and bindings: Python ints cast as the IR casts them.

The reference the Z3 encoding is checked against, and what the prover uses to confirm each
counterexample (and to name the reading that breaks it) before reporting it. A value is held
as the int its dtype reads (`[-2**(W-1), 2**(W-1))` signed, `[0, 2**W)` unsigned). A division
or modulo by zero has no value (`None`): an offset whose evaluation divides by zero breaks
every goal; a binding whose expression divides by zero leaves its name unconstrained.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from planner.proofs import loops
from planner.proofs.dtype import Dtype, Reading, goal_dtype
from planner.proofs.expr import BinOp, Const, Expr, Name, Neg
from planner.proofs.scope import Declaration, Scope


def wrap(value: int, bits: int) -> int:
    """`value` reduced to a signed `bits`-wide two's-complement integer."""
    half = 1 << (bits - 1)
    return ((value + half) % (1 << bits)) - half


def represent(value: int, dtype: Dtype) -> int:
    """`value`'s low `dtype.bits` bits, read as the dtype reads them."""
    return wrap(value, dtype.bits) if dtype.signed else value % (1 << dtype.bits)


def cast(value: int, source: Dtype, target: Dtype, reading: Reading) -> int:
    """An IR cast: widening extends by the source's signedness (an unsigned source sign-extends
    under the `sign` reading), narrowing and equal widths keep the low bits."""
    if target.bits > source.bits and not source.signed and reading.extension == "sign":
        value = wrap(value, source.bits)
    return represent(value, target)


def signed_values(bits: int, low: int | None = None, high: int | None = None) -> range:
    """`[low, high]` clipped to the signed `bits`-wide integers (open sides reach the ends)."""
    return dtype_values(Dtype(bits, True), low, high)


def dtype_values(dtype: Dtype, low: int | None = None, high: int | None = None) -> range:
    """`[low, high]` clipped to the values of `dtype` (open sides reach the ends)."""
    start = dtype.low if low is None else max(low, dtype.low)
    stop = dtype.high + 1 if high is None else min(high + 1, dtype.high + 1)
    return range(start, max(start, stop))


def power_of_two_log(value: int) -> int | None:
    """log2 of a positive power of two (floor ops by it are shifts and masks), else None."""
    return value.bit_length() - 1 if value > 0 and value & (value - 1) == 0 else None


def truncating_div(a: int, b: int) -> int:
    """Quotient rounded toward zero (`arith.divsi`)."""
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def divide(op: str, a: int, b: int, division: str) -> int:
    """`a // b` or `a % b` (b != 0) under floor or truncating division; unsigned operands agree on both."""
    if division == "floor":
        return a // b if op == "//" else a % b
    quotient = truncating_div(a, b)
    return quotient if op == "//" else a - b * quotient


_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "min": min,
    "max": max,
}


def evaluate(expr: Expr, env: Mapping[str, int], scope: Scope, reading: Reading) -> int | None:
    """The value of `expr` at its own dtype (`scope.type_of`) under `env`, or None if it divides by zero."""
    dtype = scope.type_of(expr)
    if isinstance(expr, Const):
        return represent(expr.value, dtype)
    if isinstance(expr, Name):
        return represent(env[expr.id], dtype)
    if isinstance(expr, Neg):
        operand = evaluate(expr.operand, env, scope, reading)
        return None if operand is None else represent(-operand, dtype)
    values = []
    for side in (expr.left, expr.right):
        value = evaluate(side, env, scope, reading)
        if value is None:
            return None
        values.append(cast(value, scope.type_of(side), dtype, reading))
    left, right = values
    op = expr.op if isinstance(expr, BinOp) else expr.fn
    if op in ("//", "%"):
        if right == 0:
            return None
        return represent(divide(op, left, right, reading.division), dtype)
    return represent(_ARITHMETIC[op](left, right), dtype)


def cast_into(
    expr: Expr, env: Mapping[str, int], scope: Scope, target: Dtype, reading: Reading
) -> int | None:
    """`expr` evaluated, then cast to `target` as an assignment would."""
    value = evaluate(expr, env, scope, reading)
    return None if value is None else cast(value, scope.type_of(expr), target, reading)


def offset_value(expr: Expr, env: Mapping[str, int], scope: Scope, reading: Reading) -> int | None:
    """The executed value of an offset: evaluated, then cast into the signed index (`goal_dtype`)."""
    return cast_into(expr, env, scope, goal_dtype(scope.type_of(expr), scope.index), reading)


def _within(value: int, low: int | None, high: int | None) -> bool:
    return (low is None or low <= value) and (high is None or value <= high)


def iteration(loop: Declaration, env: Mapping[str, int], scope: Scope, reading: Reading) -> int | None:
    """Which iteration of `loop` its variable's value in `env` is, or None where the loop is unconstrained."""
    value = represent(env[loop.name], loop.dtype)
    if loop.kind == "spmd":
        return value
    start, _, step = (cast_into(op, env, scope, loop.dtype, reading) for op in loop.operands)
    return None if start is None or step is None else loops.iteration(value, start, step)


def admits(decl: Declaration, env: Mapping[str, int], scope: Scope, reading: Reading) -> bool:
    """Whether `env[decl.name]` is a value the binding allows, given the other names in `env`."""
    value = represent(env[decl.name], decl.dtype)
    operands = [cast_into(op, env, scope, decl.dtype, reading) for op in decl.operands]
    if decl.kind == "assign":
        return operands[0] is None or value == operands[0]
    if decl.kind == "for":
        start, stop, step = operands
        return start is None or stop is None or step is None or loops.takes(value, start, stop, step)
    if decl.kind == "spmd":
        return operands[0] is None or 0 <= value < operands[0]
    if decl.kind == "induction":
        init, step = operands
        loop = scope.declaration(decl.loop or "")
        count = None if loop is None else iteration(loop, env, scope, reading)
        if init is None or step is None or count is None:
            return True
        return value == represent(init + step * count, decl.dtype)
    return _within(value, decl.low, decl.high)


def admitted(env: Mapping[str, int], scope: Scope, reading: Reading) -> bool:
    """Whether every binding admits `env` under one reading."""
    return all(admits(decl, env, scope, reading) for decl in scope.declarations)


def window_end(
    offset: Expr, extent: Expr, env: Mapping[str, int], scope: Scope, reading: Reading
) -> int | None:
    """`offset + extent` exactly (no wrap), both as executed index values: where a window ends."""
    start, size = offset_value(offset, env, scope, reading), offset_value(extent, env, scope, reading)
    return None if start is None or size is None else start + size


def goal_holds(goal: str, value: int | None, factor: int, bits: int) -> bool:
    """Whether one executed offset meets the goal (docs/design/nz-layout.md 7.3); no value never does.

    `multiple_of` reads the low `log2(factor)` bits (at most `bits` of them).
    """
    if value is None:
        return False
    if goal == "non_negative":
        return value >= 0
    low_bits = min(factor.bit_length() - 1, bits)
    return value % (1 << low_bits) == 0
