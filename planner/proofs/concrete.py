"""Concrete semantics of offsets and bindings: Python ints wrapped to two's complement.

The reference the Z3 encoding is checked against, and what the prover uses to confirm each
counterexample before reporting it. A division or modulo by zero has no value (`None`):
an offset whose evaluation divides by zero breaks every goal; a binding whose expression
divides by zero leaves its name unconstrained (see `planner.proofs.scope`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from planner.proofs.expr import BinOp, Const, Expr, Name, Neg
from planner.proofs.scope import Declaration, Scope


def wrap(value: int, bits: int) -> int:
    """`value` reduced to a signed `bits`-wide two's-complement integer."""
    half = 1 << (bits - 1)
    return ((value + half) % (1 << bits)) - half


def signed_values(bits: int, low: int | None = None, high: int | None = None) -> range:
    """`[low, high]` clipped to the signed `bits`-wide integers (open sides reach the ends)."""
    top = 1 << (bits - 1)
    start = -top if low is None else max(low, -top)
    stop = top if high is None else min(high + 1, top)
    return range(start, max(start, stop))


def power_of_two_log(value: int) -> int | None:
    """log2 of a positive power of two (floor ops by it are shifts and masks), else None."""
    return value.bit_length() - 1 if value > 0 and value & (value - 1) == 0 else None


_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "min": min,
    "max": max,
}


def evaluate(expr: Expr, env: Mapping[str, int], bits: int, width_of: Callable[[str], int]) -> int | None:
    """The signed `bits`-wide value of `expr` under `env`, or None if it divides by zero.

    A name is read at its own width (`width_of(name)`) and then sign-extended or truncated to
    `bits`; every operation wraps at `bits`; `//` and `%` are floor operations.
    """
    if isinstance(expr, Const):
        return wrap(expr.value, bits)
    if isinstance(expr, Name):
        return wrap(wrap(env[expr.id], width_of(expr.id)), bits)
    if isinstance(expr, Neg):
        operand = evaluate(expr.operand, env, bits, width_of)
        return None if operand is None else wrap(-operand, bits)
    left = evaluate(expr.left, env, bits, width_of)
    right = evaluate(expr.right, env, bits, width_of)
    op = expr.op if isinstance(expr, BinOp) else expr.fn
    if left is None or right is None or (op in ("//", "%") and right == 0):
        return None
    return wrap(_ARITHMETIC[op](left, right), bits)


def _within(value: int, low: int | None, high: int | None) -> bool:
    return (low is None or low <= value) and (high is None or value <= high)


def admits(decl: Declaration, env: Mapping[str, int], scope: Scope) -> bool:
    """Whether `env[decl.name]` is a value the binding allows, given the other names in `env`."""
    value = wrap(env[decl.name], decl.bits)
    operands = [evaluate(op, env, decl.bits, scope.width) for op in decl.operands]
    if decl.kind == "assign":
        return operands[0] is None or value == operands[0]
    if decl.kind == "for":
        start, stop, step = operands
        if start is None or stop is None or step is None or step <= 0:
            return True
        return start <= value < stop and (value - start) % step == 0
    if decl.kind == "spmd":
        return operands[0] is None or 0 <= value < operands[0]
    return _within(value, decl.low, decl.high)


def goal_holds(goal: str, value: int | None, factor: int, bits: int) -> bool:
    """Whether one evaluated offset meets the goal (nz-layout.md 7.3); no value never does."""
    if value is None:
        return False
    if goal == "non_negative":
        return value >= 0
    low_bits = min(factor.bit_length() - 1, bits)
    return value % (1 << low_bits) == 0
