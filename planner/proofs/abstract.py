"""Fast sufficient proofs: a value range and a power-of-two residue per expression.

Two tiny abstract domains, one combination rule per node (the style of TVM's
`const_int_bound` and `modular_set`), over the exact semantics of `planner.proofs.concrete`:
values are signed two's complement at a width and every operation wraps.

- `Bounds(lo, hi)`: the signed value lies in `[lo, hi]`. An operation whose exact result
  range leaves the width's range may wrap, so it widens to the full range.
- `Residue(k, base)`: the value is `base` modulo `2**k` (`k` at most the width). Residues
  modulo a power of two survive wraparound because `2**k` divides `2**W`, which is why the
  alignment half needs no range at all.

A goal these domains establish is proven for every admissible assignment; anything else
(including every refutation) is left to Z3. An expression that may divide by zero is never
decided here: Z3 refutes it with the offending assignment.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.proofs.concrete import power_of_two_log, signed_values, wrap
from planner.proofs.expr import BinOp, Const, Expr, Name, Neg
from planner.proofs.scope import Declaration, Scope


@dataclass(frozen=True, slots=True)
class Bounds:
    lo: int
    hi: int


@dataclass(frozen=True, slots=True)
class Residue:
    k: int
    base: int


@dataclass(frozen=True, slots=True)
class Facts:
    bounds: Bounds
    residue: Residue


def signed_range(bits: int) -> Bounds:
    every = signed_values(bits)
    return Bounds(every.start, every.stop - 1)


def _fit(lo: int, hi: int, bits: int) -> Bounds:
    """The exact range if no value wraps at `bits`, else every value of the width."""
    full = signed_range(bits)
    return Bounds(lo, hi) if full.lo <= lo and hi <= full.hi else full


def _residue(k: int, base: int) -> Residue:
    return Residue(k, base % (1 << k))


def _twos(value: int, cap: int) -> int:
    """How many low zero bits `value` has, at most `cap` (zero has all of them)."""
    return cap if value == 0 else min((value & -value).bit_length() - 1, cap)


def _top(bits: int) -> Facts:
    return Facts(signed_range(bits), Residue(0, 0))


def _constant(value: int, bits: int) -> Facts:
    wrapped = wrap(value, bits)
    return Facts(Bounds(wrapped, wrapped), _residue(bits, wrapped))


def _floor_div_bounds(a: Bounds, b: Bounds) -> list[int]:
    return [x // y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]


def _combine(op: str, a: Facts, b: Facts, bits: int) -> Facts | None:
    """One rule per operator; None when the divisor may be zero."""
    ra, rb = a.residue, b.residue
    if op == "+":
        bounds = _fit(a.bounds.lo + b.bounds.lo, a.bounds.hi + b.bounds.hi, bits)
        return Facts(bounds, _residue(min(ra.k, rb.k), ra.base + rb.base))
    if op == "-":
        bounds = _fit(a.bounds.lo - b.bounds.hi, a.bounds.hi - b.bounds.lo, bits)
        return Facts(bounds, _residue(min(ra.k, rb.k), ra.base - rb.base))
    if op == "*":
        corners = [x * y for x in (a.bounds.lo, a.bounds.hi) for y in (b.bounds.lo, b.bounds.hi)]
        k = min(ra.k + rb.k, ra.k + _twos(rb.base, bits), rb.k + _twos(ra.base, bits), bits)
        return Facts(_fit(min(corners), max(corners), bits), _residue(k, ra.base * rb.base))
    if op in ("min", "max"):
        pick = min if op == "min" else max
        k = min(ra.k, rb.k, _twos(ra.base - rb.base, bits))
        bounds = Bounds(pick(a.bounds.lo, b.bounds.lo), pick(a.bounds.hi, b.bounds.hi))
        return Facts(bounds, _residue(k, ra.base))
    if b.bounds.lo <= 0 <= b.bounds.hi:
        return None
    j = power_of_two_log(b.bounds.lo) if b.bounds.lo == b.bounds.hi else None
    if op == "//":
        quotients = _floor_div_bounds(a.bounds, b.bounds)
        residue = _residue(ra.k - j, ra.base >> j) if j is not None and j <= ra.k else Residue(0, 0)
        return Facts(_fit(min(quotients), max(quotients), bits), residue)
    if b.bounds.lo > 0:
        inside = a.bounds.lo >= 0 and a.bounds.hi < b.bounds.lo
        bounds = a.bounds if inside else Bounds(0, b.bounds.hi - 1)
    else:
        inside = b.bounds.hi < a.bounds.lo and a.bounds.hi <= 0
        bounds = a.bounds if inside else Bounds(b.bounds.lo + 1, 0)
    residue = _residue(min(ra.k, j), ra.base) if j is not None else Residue(0, 0)
    return Facts(bounds, residue)


class AbstractProver:
    """Proves goals from per-name ranges and residues; answers only "proven" or "not here"."""

    def __init__(self, scope: Scope) -> None:
        self._scope = scope
        self._declarations = {decl.name: decl for decl in scope.declarations}
        self._names: dict[str, Facts] = {}

    def proves(self, expr: Expr, goal: str, factor: int, bits: int) -> bool:
        """Whether `goal` holds for `expr` at `bits` under every admissible assignment."""
        facts = self.facts(expr, bits)
        if facts is None:
            return False
        if goal == "non_negative":
            return facts.bounds.lo >= 0
        need = min(factor.bit_length() - 1, bits)
        return facts.residue.k >= need and facts.residue.base % (1 << need) == 0

    def facts(self, expr: Expr, bits: int) -> Facts | None:
        """Range and residue of `expr` at `bits`, or None if it may divide by zero."""
        if isinstance(expr, Const):
            return _constant(expr.value, bits)
        if isinstance(expr, Name):
            return self._resized(self._name(expr.id), self._scope.width(expr.id), bits)
        if isinstance(expr, Neg):
            inner = self.facts(expr.operand, bits)
            if inner is None:
                return None
            return Facts(
                _fit(-inner.bounds.hi, -inner.bounds.lo, bits), _residue(inner.residue.k, -inner.residue.base)
            )
        left, right = self.facts(expr.left, bits), self.facts(expr.right, bits)
        if left is None or right is None:
            return None
        return _combine(expr.op if isinstance(expr, BinOp) else expr.fn, left, right, bits)

    @staticmethod
    def _resized(facts: Facts, width: int, bits: int) -> Facts:
        """A name read at another width is sign-extended or truncated (residues mod 2**min survive)."""
        if width == bits:
            return facts
        residue = _residue(min(facts.residue.k, bits), facts.residue.base)
        return Facts(_fit(facts.bounds.lo, facts.bounds.hi, bits), residue)

    def _name(self, name: str) -> Facts:
        if name not in self._names:
            decl = self._declarations.get(name)
            self._names[name] = _top(self._scope.width(name)) if decl is None else self._declared(decl)
        return self._names[name]

    def _declared(self, decl: Declaration) -> Facts:
        """What one binding alone says about its name (the table in `planner.proofs.scope`)."""
        bits = decl.bits
        operands = [self.facts(op, bits) for op in decl.operands]
        if any(facts is None for facts in operands):
            return _top(bits)  # the binding may divide by zero: its name is then unconstrained
        known = [facts for facts in operands if facts is not None]
        if decl.kind == "assign":
            return known[0]
        if decl.kind == "for":
            start, stop, step = known
            if step.bounds.lo <= 0 or start.bounds.lo > stop.bounds.hi - 1:
                return _top(bits)
            k = min(start.residue.k, step.residue.k, _twos(step.residue.base, bits))
            return Facts(Bounds(start.bounds.lo, stop.bounds.hi - 1), _residue(k, start.residue.base))
        if decl.kind == "spmd":
            extent = known[0].bounds
            return _top(bits) if extent.hi < 1 else Facts(Bounds(0, extent.hi - 1), Residue(0, 0))
        full = signed_range(bits)
        lo = full.lo if decl.low is None else max(decl.low, full.lo)
        hi = full.hi if decl.high is None else min(decl.high, full.hi)
        return _top(bits) if lo > hi else Facts(Bounds(lo, hi), Residue(0, 0))
