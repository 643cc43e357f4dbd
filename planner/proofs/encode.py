"""Z3 bit-vector encoding of offsets, bindings and goals (nz-layout.md 7.3).

Every value is a bit-vector at an exact width with two's-complement wraparound. A term
carries the divisors of every `//` and `%` it contains: it is defined when none is zero,
mirroring `planner.proofs.concrete` exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from planner.proofs.concrete import evaluate, power_of_two_log, signed_values
from planner.proofs.expr import BinOp, Const, Expr, Name, Neg, free_names
from planner.proofs.scope import Declaration, Scope


@dataclass(frozen=True, slots=True)
class Term:
    """An encoded expression: its value and every divisor it divides by."""

    value: z3.BitVecRef
    divisors: tuple[z3.BitVecRef, ...] = ()

    def defined(self) -> z3.BoolRef:
        """No divisor is zero (true when there is none)."""
        return conjunction([divisor != 0 for divisor in self.divisors], self.value.ctx)


def conjunction(conditions: list[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    """All of `conditions`, in `ctx` even when there are none."""
    return z3.And(conditions) if conditions else z3.BoolVal(True, ctx)


def resize(value: z3.BitVecRef, bits: int) -> z3.BitVecRef:
    """Sign-extend or truncate to `bits`, as an IR cast between signed integer widths does."""
    width = value.size()
    if width < bits:
        return z3.SignExt(bits - width, value)
    return z3.Extract(bits - 1, 0, value) if width > bits else value


def _power_of_two_shift(divisor: z3.BitVecRef) -> int | None:
    """log2 of a positive constant power-of-two divisor (then floor ops are shifts and masks)."""
    if not z3.is_bv_value(divisor):
        return None
    return power_of_two_log(divisor.as_signed_long())


def floor_mod(a: z3.BitVecRef, k: z3.BitVecRef) -> z3.BitVecRef:
    """Floor modulo: the remainder takes the divisor's sign (Z3 `bvsmod`)."""
    shift = _power_of_two_shift(k)
    if shift is not None:
        return a & ((1 << shift) - 1)
    return a % k  # z3's `%` on bit-vectors is bvsmod


def floor_div(a: z3.BitVecRef, k: z3.BitVecRef) -> z3.BitVecRef:
    """Floor quotient: `(a - bvsmod(a, k)) / k`, exact one bit wider, then wrapped back."""
    shift = _power_of_two_shift(k)
    if shift is not None:
        return a >> shift
    exact_multiple = z3.SignExt(1, a) - z3.SignExt(1, a % k)
    return z3.Extract(a.size() - 1, 0, exact_multiple / z3.SignExt(1, k))  # `/` is bvsdiv


_OPERATIONS: dict[str, Callable[[z3.BitVecRef, z3.BitVecRef], z3.BitVecRef]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": floor_div,
    "%": floor_mod,
    "min": lambda a, b: z3.If(a <= b, a, b),
    "max": lambda a, b: z3.If(a >= b, a, b),
}


class Encoder:
    """Encodes expressions over one scope; terms are memoised per (expression, width).

    Each encoder owns a fresh Z3 context, so what it builds (and so the models a solver
    finds) depends only on its own history, never on other provers in the process.
    """

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.ctx = z3.Context()
        self._variables: dict[str, z3.BitVecRef] = {}
        self._terms: dict[tuple[Expr, int], Term] = {}

    def variable(self, name: str) -> z3.BitVecRef:
        """The bit-vector holding a name's value at its own width."""
        if name not in self._variables:
            self._variables[name] = z3.BitVec(name, self.scope.width(name), self.ctx)
        return self._variables[name]

    def term(self, expr: Expr, bits: int) -> Term:
        """The value of `expr` at `bits`, with the divisors that must be non-zero."""
        key = (expr, bits)
        if key not in self._terms:
            self._terms[key] = self._encode(expr, bits)
        return self._terms[key]

    def _encode(self, expr: Expr, bits: int) -> Term:
        if isinstance(expr, Const):
            return self._constant(expr.value, bits)
        if isinstance(expr, Name):
            return Term(resize(self.variable(expr.id), bits))
        folded = None if free_names(expr) else evaluate(expr, {}, bits, lambda _: bits)
        if folded is not None:  # name-free and no division by zero: fold exactly, fewer solver terms
            return self._constant(folded, bits)
        if isinstance(expr, Neg):
            operand = self.term(expr.operand, bits)
            return Term(-operand.value, operand.divisors)
        left, right = self.term(expr.left, bits), self.term(expr.right, bits)
        op = expr.op if isinstance(expr, BinOp) else expr.fn
        divisors = left.divisors + right.divisors + ((right.value,) if op in ("//", "%") else ())
        return Term(_OPERATIONS[op](left.value, right.value), divisors)

    def _constant(self, value: int, bits: int) -> Term:
        return Term(z3.BitVecVal(value % (1 << bits), bits, self.ctx))

    def admissible(self, decl: Declaration) -> z3.BoolRef:
        """The binding's rule, plus the high-bits-zero fact it implies when its bounds are constant.

        The redundant fact is exact (it follows from the rule) and lets the solver cut
        products with small lane and loop indices down to their low bits.
        """
        rule = self._rule(decl)
        value = self.variable(decl.name)
        high = constant_high(decl)
        if high is None or high.bit_length() >= decl.bits:
            return rule
        return z3.And(rule, z3.Extract(decl.bits - 1, max(high.bit_length(), 1), value) == 0)

    def _rule(self, decl: Declaration) -> z3.BoolRef:
        """The binding's rule (table in `planner.proofs.scope`) as a constraint on its variable."""
        value = self.variable(decl.name)
        terms = [self.term(op, decl.bits) for op in decl.operands]
        defined = conjunction([term.defined() for term in terms], self.ctx)
        if decl.kind == "assign":
            return z3.Implies(defined, value == terms[0].value)
        if decl.kind == "for":
            start, stop, step = (term.value for term in terms)
            stride = z3.URem(z3.SignExt(1, value) - z3.SignExt(1, start), z3.ZeroExt(1, step)) == 0
            return z3.Implies(z3.And(defined, step > 0), z3.And(start <= value, value < stop, stride))
        if decl.kind == "spmd":
            return z3.Implies(defined, z3.And(value >= 0, value < terms[0].value))
        return z3.And(_at_least(value, decl.low), _at_most(value, decl.high))

    def violation(self, goal: str, value: z3.BitVecRef, factor: int) -> z3.BoolRef:
        """The negated goal for one value (nz-layout.md 7.3)."""
        if goal == "non_negative":
            return value < 0
        low_bits = min(factor.bit_length() - 1, value.size())
        return z3.BoolVal(False, self.ctx) if low_bits == 0 else z3.Extract(low_bits - 1, 0, value) != 0


def constant_high(decl: Declaration) -> int | None:
    """`high` when the binding alone confines its name to `[0, high]` (constant bounds), else None."""
    if any(free_names(op) for op in decl.operands):
        return None
    values = [evaluate(op, {}, decl.bits, lambda _: decl.bits) for op in decl.operands]
    known = [value for value in values if value is not None]
    if len(known) < len(values):
        return None
    low, high = decl.low, decl.high
    if decl.kind == "assign":
        low, high = known[0], known[0]
    elif decl.kind == "for":
        start, stop, step = known
        low, high = (start, stop - 1) if step > 0 else (None, None)
    elif decl.kind == "spmd":
        low, high = 0, known[0] - 1
    return high if low is not None and high is not None and 0 <= low <= high else None


def _at_least(value: z3.BitVecRef, low: int | None) -> z3.BoolRef:
    every = signed_values(value.size())
    smallest, largest = every.start, every.stop - 1
    if low is None or low <= smallest:
        return z3.BoolVal(True, value.ctx)
    return z3.BoolVal(False, value.ctx) if low > largest else value >= low


def _at_most(value: z3.BitVecRef, high: int | None) -> z3.BoolRef:
    every = signed_values(value.size())
    smallest, largest = every.start, every.stop - 1
    if high is None or high >= largest:
        return z3.BoolVal(True, value.ctx)
    return z3.BoolVal(False, value.ctx) if high < smallest else value <= high
