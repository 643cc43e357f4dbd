"""Z3 bit-vector encoding of offsets, bindings and goals (docs/design/nz-layout.md 7.3).

Every value is a bit-vector at an exact width with two's-complement wraparound. A term
carries the divisors of every `//` and `%` it contains: it is defined when none is zero,
mirroring `planner.proofs.concrete` exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from planner.proofs.concrete import cast_into, power_of_two_log
from planner.proofs.dtype import Dtype, Reading, goal_dtype
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


def trunc_div(a: z3.BitVecRef, k: z3.BitVecRef) -> z3.BitVecRef:
    """Quotient rounded toward zero (`bvsdiv`); by `2**s`, a shift of `a` biased up by `2**s - 1` when
    negative, so no divider is built."""
    shift = _power_of_two_shift(k)
    if shift is None:
        return a / k  # `/` is bvsdiv
    bias = (a >> (a.size() - 1)) & ((1 << shift) - 1)
    return (a + bias) >> shift


def trunc_mod(a: z3.BitVecRef, k: z3.BitVecRef) -> z3.BitVecRef:
    """Remainder with the dividend's sign (`bvsrem`): `a - trunc_div(a, k) * k`."""
    shift = _power_of_two_shift(k)
    if shift is None:
        return z3.SRem(a, k)
    return a - (trunc_div(a, k) << shift)


_OPERATIONS: dict[str, Callable[[z3.BitVecRef, z3.BitVecRef], z3.BitVecRef]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
}


def less_or_equal(a: z3.BitVecRef, b: z3.BitVecRef, signed: bool) -> z3.BoolRef:
    return a <= b if signed else z3.ULE(a, b)


def less(a: z3.BitVecRef, b: z3.BitVecRef, signed: bool) -> z3.BoolRef:
    return a < b if signed else z3.ULT(a, b)


class Encoder:
    """Encodes typed expressions over one scope; terms are memoised per expression.

    Two Boolean selectors stand for the reading (`planner.proofs.dtype.Reading`): every
    signed `//`/`%` truncates when `truncating` holds and floors otherwise, and every
    unsigned widening sign-extends when `sign_extending` holds. Leaving them free lets one
    query cover every reading; a model's selectors name the reading that breaks a goal.
    Each encoder owns a fresh Z3 context, so what it builds (and so the models a solver
    finds) depends only on its own history, never on other provers in the process.
    """

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.ctx = z3.Context()
        self.truncating = z3.Bool("reading.trunc", self.ctx)
        self.sign_extending = z3.Bool("reading.sign", self.ctx)
        self._variables: dict[str, z3.BitVecRef] = {}
        self._terms: dict[Expr, Term] = {}

    def variable(self, name: str) -> z3.BitVecRef:
        """The bit-vector holding a name's value at its own width."""
        if name not in self._variables:
            self._variables[name] = z3.BitVec(name, self.scope.width(name), self.ctx)
        return self._variables[name]

    def division_is(self, division: str) -> z3.BoolRef:
        """The selector constraint for a request's division semantics (`either` leaves it free)."""
        if division == "either":
            return z3.BoolVal(True, self.ctx)
        return self.truncating if division == "trunc" else z3.Not(self.truncating)

    def cast(self, value: z3.BitVecRef, source: Dtype, target: Dtype) -> z3.BitVecRef:
        """An IR cast (`planner.proofs.concrete.cast`), the unsigned widening left to the selector."""
        grow = target.bits - source.bits
        if grow < 0:
            return z3.Extract(target.bits - 1, 0, value)
        if grow == 0:
            return value
        if source.signed:
            return z3.SignExt(grow, value)
        return z3.If(self.sign_extending, z3.SignExt(grow, value), z3.ZeroExt(grow, value))

    def term(self, expr: Expr) -> Term:
        """The value of `expr` at its own dtype, with the divisors that must be non-zero."""
        if expr not in self._terms:
            self._terms[expr] = self._encode(expr)
        return self._terms[expr]

    def cast_term(self, expr: Expr, target: Dtype) -> Term:
        """`expr` encoded and cast to `target`, as an assignment to a `target` value would."""
        term = self.term(expr)
        return Term(self.cast(term.value, self.scope.type_of(expr), target), term.divisors)

    def _encode(self, expr: Expr) -> Term:
        dtype = self.scope.type_of(expr)
        if isinstance(expr, Const):
            return self._constant(expr.value, dtype)
        if isinstance(expr, Name):
            return Term(self.variable(expr.id))
        folded = constant_value(expr, dtype, self.scope)
        if folded is not None:  # name-free, no division by zero, one value under every reading
            return self._constant(folded, dtype)
        if isinstance(expr, Neg):
            operand = self.term(expr.operand)
            return Term(-operand.value, operand.divisors)
        left, right = self.cast_term(expr.left, dtype), self.cast_term(expr.right, dtype)
        op = expr.op if isinstance(expr, BinOp) else expr.fn
        divisors = left.divisors + right.divisors + ((right.value,) if op in ("//", "%") else ())
        return Term(self._operation(op, left.value, right.value, dtype.signed), divisors)

    def _operation(self, op: str, a: z3.BitVecRef, b: z3.BitVecRef, signed: bool) -> z3.BitVecRef:
        if op in _OPERATIONS:
            return _OPERATIONS[op](a, b)
        if op == "min":
            return z3.If(less_or_equal(a, b, signed), a, b)
        if op == "max":
            return z3.If(less_or_equal(b, a, signed), a, b)
        if not signed:  # unsigned division: floor and truncation agree
            return z3.UDiv(a, b) if op == "//" else z3.URem(a, b)
        if op == "//":
            return z3.If(self.truncating, trunc_div(a, b), floor_div(a, b))
        return z3.If(self.truncating, trunc_mod(a, b), floor_mod(a, b))

    def _constant(self, value: int, dtype: Dtype) -> Term:
        return Term(z3.BitVecVal(value % (1 << dtype.bits), dtype.bits, self.ctx))

    def admissible(self, decl: Declaration) -> z3.BoolRef:
        """The binding's rule, plus the high-bits-zero fact it implies when its bounds are constant.

        The redundant fact is exact (it follows from the rule) and lets the solver cut
        products with small lane and loop indices down to their low bits.
        """
        rule = self._rule(decl)
        value = self.variable(decl.name)
        high = constant_high(decl, self.scope)
        if high is None or high.bit_length() >= decl.bits:
            return rule
        return z3.And(rule, z3.Extract(decl.bits - 1, max(high.bit_length(), 1), value) == 0)

    def _operands(self, decl: Declaration) -> tuple[list[z3.BitVecRef], z3.BoolRef]:
        """A binding's operands cast to its dtype, and the condition that none divides by zero."""
        terms = [self.cast_term(op, decl.dtype) for op in decl.operands]
        return [term.value for term in terms], conjunction([term.defined() for term in terms], self.ctx)

    def _rule(self, decl: Declaration) -> z3.BoolRef:
        """The binding's rule (table in `planner.proofs.scope`) as a constraint on its variable."""
        value = self.variable(decl.name)
        operands, defined = self._operands(decl)
        signed = decl.dtype.signed
        if decl.kind == "assign":
            return z3.Implies(defined, value == operands[0])
        if decl.kind == "for":
            return z3.Implies(defined, self._loop_values(decl, *operands))
        if decl.kind == "spmd":
            zero = z3.BitVecVal(0, decl.bits, self.ctx)
            inside = z3.And(less_or_equal(zero, value, signed), less(value, operands[0], signed))
            return z3.Implies(defined, inside)
        if decl.kind == "induction":
            return self._induction(decl, value, operands, defined)
        return z3.And(_at_least(value, decl.dtype, decl.low), _at_most(value, decl.dtype, decl.high))

    def _loop_values(
        self, loop: Declaration, start: z3.BitVecRef, stop: z3.BitVecRef, step: z3.BitVecRef
    ) -> z3.BoolRef:
        """`planner.proofs.loops`' rule: the values of `range(start, stop, step)`, any value for step 0.

        A step whose sign the bindings fix gets its one branch; any other gets both, so a goal
        proven here holds whichever sign the step has at run time."""
        value = self.variable(loop.name)
        signed = loop.dtype.signed
        branches = []
        for direction in self._directions(loop):
            difference, stride = self._distance(loop, direction, start, step)
            low, high = (start, stop) if direction > 0 else (stop, start)
            inside = (
                z3.And(less_or_equal(low, value, signed), less(value, high, signed))
                if direction > 0
                else z3.And(less(low, value, signed), less_or_equal(value, high, signed))
            )
            branches.append((direction, z3.And(inside, z3.URem(difference, stride) == 0)))
        if len(branches) == 1:
            direction, values = branches[0]
            return values if self._step_sign(loop) == direction else z3.Implies(step != 0, values)
        (_, up), (_, down) = branches
        return z3.If(step > 0, up, z3.If(step < 0, down, z3.BoolVal(True, self.ctx)))

    def _step_sign(self, loop: Declaration) -> int | None:
        """1 or -1 for a constant non-zero step, else None."""
        step = constant_value(loop.operands[2], loop.dtype, self.scope)
        return None if not step else (1 if step > 0 else -1)

    def _directions(self, loop: Declaration) -> tuple[int, ...]:
        """The directions the loop may count in: a constant step's own, both for a signed symbolic one."""
        sign = self._step_sign(loop)
        if sign is not None:
            return (sign,)
        return (1, -1) if loop.dtype.signed else (1,)

    def _distance(
        self, loop: Declaration, direction: int, start: z3.BitVecRef, step: z3.BitVecRef
    ) -> tuple[z3.BitVecRef, z3.BitVecRef]:
        """`(|value - start|, |step|)` one bit wider, exact for any value the loop takes counting in
        `direction` (so `-step` of the most negative step cannot wrap)."""
        extend = z3.SignExt if loop.dtype.signed else z3.ZeroExt
        value = extend(1, self.variable(loop.name))
        if direction > 0:
            return value - extend(1, start), z3.ZeroExt(1, step)
        return extend(1, start) - value, -z3.SignExt(1, step)

    def _induction(
        self, decl: Declaration, value: z3.BitVecRef, operands: list[z3.BitVecRef], defined: z3.BoolRef
    ) -> z3.BoolRef:
        """`value == init + step * i` for the iteration `i` of its loop, where the loop constrains it."""
        init, step = operands
        loop = self.scope.declaration(decl.loop or "")
        assert loop is not None and loop.kind in ("for", "spmd")
        if loop.kind == "spmd":
            count = z3.ZeroExt(1, self.variable(loop.name))
            constrained = z3.BoolVal(True, self.ctx)
        else:
            (loop_start, _, loop_step), loop_defined = self._operands(loop)
            counts = [
                z3.UDiv(*self._distance(loop, direction, loop_start, loop_step))
                for direction in self._directions(loop)
            ]
            count = counts[0] if len(counts) == 1 else z3.If(loop_step > 0, counts[0], counts[1])
            constrained = z3.And(loop_defined, loop_step != 0)
        width = count.size()
        if width > decl.bits:
            count = z3.Extract(decl.bits - 1, 0, count)
        else:
            count = z3.ZeroExt(decl.bits - width, count)
        return z3.Implies(z3.And(defined, constrained), value == init + step * count)

    def violation(self, goal: str, expr: Expr, factor: int) -> z3.BoolRef:
        """The negated goal for an offset's executed value (docs/design/nz-layout.md 7.3)."""
        executed = self.cast_term(expr, goal_dtype(self.scope.type_of(expr), self.scope.index)).value
        if goal == "non_negative":
            return executed < 0
        low_bits = min(factor.bit_length() - 1, executed.size())
        return z3.BoolVal(False, self.ctx) if low_bits == 0 else z3.Extract(low_bits - 1, 0, executed) != 0

    def window_end(self, offset: Expr, extent: Expr) -> z3.BitVecRef:
        """`offset + extent` of executed values, two bits wider than either so it cannot wrap."""
        ends = [
            self.cast_term(side, goal_dtype(self.scope.type_of(side), self.scope.index)).value
            for side in (offset, extent)
        ]
        width = max(end.size() for end in ends) + 2
        start, size = (z3.SignExt(width - end.size(), end) for end in ends)
        return start + size


def constant_value(expr: Expr, dtype: Dtype, scope: Scope) -> int | None:
    """The value of a name-free expression cast to `dtype` when every division reading agrees on it."""
    if free_names(expr):
        return None
    values = {cast_into(expr, {}, scope, dtype, Reading(division)) for division in ("floor", "trunc")}
    return values.pop() if len(values) == 1 else None


def constant_high(decl: Declaration, scope: Scope) -> int | None:
    """`high` when the binding alone confines its name to `[0, high]` (constant bounds), else None."""
    if decl.kind == "induction":
        return None
    values = [constant_value(op, decl.dtype, scope) for op in decl.operands]
    known = [value for value in values if value is not None]
    if len(known) < len(values):
        return None
    low, high = decl.low, decl.high
    if decl.kind == "assign":
        low, high = known[0], known[0]
    elif decl.kind == "for":
        start, stop, step = known
        low, high = (start, stop - 1) if step > 0 else (stop + 1, start) if step < 0 else (None, None)
    elif decl.kind == "spmd":
        low, high = 0, known[0] - 1
    return high if low is not None and high is not None and 0 <= low <= high else None


def _at_least(value: z3.BitVecRef, dtype: Dtype, low: int | None) -> z3.BoolRef:
    if low is None or low <= dtype.low:
        return z3.BoolVal(True, value.ctx)
    if low > dtype.high:
        return z3.BoolVal(False, value.ctx)
    return less_or_equal(z3.BitVecVal(low % (1 << dtype.bits), dtype.bits, value.ctx), value, dtype.signed)


def _at_most(value: z3.BitVecRef, dtype: Dtype, high: int | None) -> z3.BoolRef:
    if high is None or high >= dtype.high:
        return z3.BoolVal(True, value.ctx)
    if high < dtype.low:
        return z3.BoolVal(False, value.ctx)
    return less_or_equal(value, z3.BitVecVal(high % (1 << dtype.bits), dtype.bits, value.ctx), dtype.signed)
