"""Fast sufficient proofs: a value range and a power-of-two residue per typed expression.

Two tiny abstract domains, one combination rule per node (the style of TVM's
`const_int_bound` and `modular_set`), over the exact semantics of `planner.proofs.concrete`:
each node computes at its IR dtype (`planner.proofs.dtype`) and wraps there. The facts of a
node hold under every reading the prover was built for (each division rounding, each
extension of unsigned values), so what they prove holds for the code that runs.

- `Bounds(lo, hi)`: the value, as its dtype reads it, lies in `[lo, hi]`. An operation whose
  exact result range leaves the dtype's range may wrap, so it widens to the full range.
- `Residue(k, base)`: the value is `base` modulo `2**k` (`k` at most the width). Residues
  modulo a power of two survive wraparound and every cast because `2**k` divides `2**W`,
  which is why the alignment half needs no range at all.

A goal these domains establish is proven for every admissible assignment; anything else
(including every refutation) is left to Z3. An expression that may divide by zero is never
decided here: Z3 refutes it with the offending assignment.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.proofs.concrete import cast, power_of_two_log, represent, truncating_div
from planner.proofs.dtype import Dtype, ExtensionReading, Reading, goal_dtype
from planner.proofs.expr import BinOp, Const, Expr, Name, Neg, free_names
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


def full_range(dtype: Dtype) -> Bounds:
    return Bounds(dtype.low, dtype.high)


def _fit(lo: int, hi: int, dtype: Dtype) -> Bounds:
    """The exact range if no value wraps in `dtype`, else every value of the dtype."""
    return Bounds(lo, hi) if dtype.low <= lo and hi <= dtype.high else full_range(dtype)


def _residue(k: int, base: int) -> Residue:
    return Residue(k, base % (1 << k))


def _twos(value: int, cap: int) -> int:
    """How many low zero bits `value` has, at most `cap` (zero has all of them)."""
    return cap if value == 0 else min((value & -value).bit_length() - 1, cap)


def _last_aligned(lo: int, hi: int, residue: Residue) -> int:
    """The largest value in `[lo, hi]` that is `residue.base` modulo `2**residue.k`; `hi` if none is.

    A loop's variable steps in that residue class, so its last value is this one, not `stop - 1`.
    """
    aligned = hi - (hi - residue.base) % (1 << residue.k)
    return aligned if aligned >= lo else hi


def _first_aligned(lo: int, hi: int, residue: Residue) -> int:
    """The smallest value in `[lo, hi]` that is `residue.base` modulo `2**residue.k`; `lo` if none is.

    A countdown's variable steps down in that residue class, so its last value is this one, not `stop + 1`.
    """
    aligned = lo + (residue.base - lo) % (1 << residue.k)
    return aligned if aligned <= hi else lo


def _loop_values(start: Facts, stop: Facts, step: Facts, dtype: Dtype) -> Facts:
    """`range(start, stop, step)` (`planner.proofs.loops`): `[start, stop)` counting up, `(stop, start]`
    counting down, in `start`'s residue class modulo the step's power-of-two part (a multiple of
    `2**k` added to `start` keeps its residue mod `2**k`, and `-step` has the step's low zero bits).
    A step that may be 0 or of either sign, or an empty range (no value to describe), tells nothing."""
    k = min(start.residue.k, step.residue.k, _twos(step.residue.base, dtype.bits))
    residue = _residue(k, start.residue.base)
    first, last = start.bounds.lo, start.bounds.hi
    if step.bounds.lo > 0 and first <= stop.bounds.hi - 1:
        return Facts(Bounds(first, _last_aligned(first, stop.bounds.hi - 1, residue)), residue)
    if step.bounds.hi < 0 and stop.bounds.lo + 1 <= last:
        return Facts(Bounds(_first_aligned(stop.bounds.lo + 1, last, residue), last), residue)
    return _top(dtype)


def _top(dtype: Dtype) -> Facts:
    return Facts(full_range(dtype), Residue(0, 0))


def _constant(value: int, dtype: Dtype) -> Facts:
    held = represent(value, dtype)
    return Facts(Bounds(held, held), _residue(dtype.bits, held))


def _join(a: Facts, b: Facts) -> Facts:
    """What holds of a value that is either `a`'s or `b`'s (one per reading)."""
    bounds = Bounds(min(a.bounds.lo, b.bounds.lo), max(a.bounds.hi, b.bounds.hi))
    k = min(a.residue.k, b.residue.k, _twos(a.residue.base - b.residue.base, max(a.residue.k, b.residue.k)))
    return Facts(bounds, _residue(k, a.residue.base))


def cast_facts(facts: Facts, source: Dtype, target: Dtype, extensions: frozenset[ExtensionReading]) -> Facts:
    """An IR cast. Widening keeps a signed value; an unsigned one at or above `2**(W-1)` drops by
    `2**W` when sign-extended. Narrowing or reinterpreting keeps the value only if it fits."""
    lo, hi = facts.bounds.lo, facts.bounds.hi
    residue = _residue(min(facts.residue.k, target.bits), facts.residue.base)
    if lo == hi:  # a single value casts exactly, once per extension
        values = [cast(lo, source, target, Reading("floor", extension)) for extension in sorted(extensions)]
        return Facts(Bounds(min(values), max(values)), residue)
    if target.bits > source.bits and not source.signed and "sign" in extensions:
        half = 1 << (source.bits - 1)
        if hi >= half:  # sign-extended, [max(lo, half), hi] drops by 2**W; the hull keeps the rest
            lo = max(lo, half) - (1 << source.bits)
            hi = hi if "zero" in extensions or facts.bounds.lo < half else hi - (1 << source.bits)
    return Facts(_fit(lo, hi, target), residue)


def _floor_division(op: str, a: Facts, b: Facts, dtype: Dtype, j: int | None) -> Facts:
    ra = a.residue
    if op == "//":
        quotients = [x // y for x in (a.bounds.lo, a.bounds.hi) for y in (b.bounds.lo, b.bounds.hi)]
        shifts = j is not None and j <= ra.k and b.bounds.lo > 0  # floor by 2**j is an arithmetic shift
        residue = _residue(ra.k - j, ra.base >> j) if shifts and j is not None else Residue(0, 0)
        return Facts(_fit(min(quotients), max(quotients), dtype), residue)
    if b.bounds.lo > 0:
        inside = a.bounds.lo >= 0 and a.bounds.hi < b.bounds.lo
        bounds = a.bounds if inside else Bounds(0, b.bounds.hi - 1)
    else:
        inside = b.bounds.hi < a.bounds.lo and a.bounds.hi <= 0
        bounds = a.bounds if inside else Bounds(b.bounds.lo + 1, 0)
    # a = q*d + r with d = +-2**j: r is a modulo 2**j, whichever way q rounds
    residue = _residue(min(ra.k, j), ra.base) if j is not None else Residue(0, 0)
    return Facts(bounds, residue)


def _truncating_division(op: str, a: Facts, b: Facts, dtype: Dtype, j: int | None) -> Facts:
    ra = a.residue
    if op == "//":
        corners = [(x, y) for x in (a.bounds.lo, a.bounds.hi) for y in (b.bounds.lo, b.bounds.hi)]
        quotients = [truncating_div(x, y) for x, y in corners]
        # an exact division (the low j bits are 0) or a non-negative dividend rounds as floor does
        exact = j is not None and j <= ra.k and ra.base % (1 << j) == 0
        if j is not None and j <= ra.k and b.bounds.lo > 0 and (exact or a.bounds.lo >= 0):
            residue = _residue(ra.k - j, ra.base >> j)
        else:
            residue = Residue(0, 0)
        return Facts(_fit(min(quotients), max(quotients), dtype), residue)
    # the remainder takes the dividend's sign, |r| < |d| and |r| <= |a|
    most = max(abs(b.bounds.lo), abs(b.bounds.hi)) - 1
    bounds = Bounds(max(min(a.bounds.lo, 0), -most), min(max(a.bounds.hi, 0), most))
    residue = _residue(min(ra.k, j), ra.base) if j is not None else Residue(0, 0)
    return Facts(bounds, residue)


def _combine(op: str, a: Facts, b: Facts, dtype: Dtype, divisions: frozenset[str]) -> Facts | None:
    """One rule per operator at the node's dtype; None when the divisor may be zero."""
    ra, rb = a.residue, b.residue
    bits = dtype.bits
    if op == "+":
        bounds = _fit(a.bounds.lo + b.bounds.lo, a.bounds.hi + b.bounds.hi, dtype)
        return Facts(bounds, _residue(min(ra.k, rb.k), ra.base + rb.base))
    if op == "-":
        bounds = _fit(a.bounds.lo - b.bounds.hi, a.bounds.hi - b.bounds.lo, dtype)
        return Facts(bounds, _residue(min(ra.k, rb.k), ra.base - rb.base))
    if op == "*":
        corners = [x * y for x in (a.bounds.lo, a.bounds.hi) for y in (b.bounds.lo, b.bounds.hi)]
        k = min(ra.k + rb.k, ra.k + _twos(rb.base, bits), rb.k + _twos(ra.base, bits), bits)
        return Facts(_fit(min(corners), max(corners), dtype), _residue(k, ra.base * rb.base))
    if op in ("min", "max"):
        pick = min if op == "min" else max
        k = min(ra.k, rb.k, _twos(ra.base - rb.base, bits))
        bounds = Bounds(pick(a.bounds.lo, b.bounds.lo), pick(a.bounds.hi, b.bounds.hi))
        return Facts(bounds, _residue(k, ra.base))
    if b.bounds.lo <= 0 <= b.bounds.hi:
        return None
    j = power_of_two_log(abs(b.bounds.lo)) if b.bounds.lo == b.bounds.hi else None
    if not dtype.signed:  # unsigned operands: floor and truncation agree
        return _floor_division(op, a, b, dtype, j)
    rules = {"floor": _floor_division, "trunc": _truncating_division}
    results = [rules[division](op, a, b, dtype, j) for division in sorted(divisions)]
    joined = results[0]
    for other in results[1:]:
        joined = _join(joined, other)
    return joined


def _negate(inner: Facts, dtype: Dtype) -> Facts:
    """`-a` wraps in `a`'s dtype: an unsigned non-zero value becomes `2**W - a`."""
    residue = _residue(inner.residue.k, -inner.residue.base)
    lo, hi = inner.bounds.lo, inner.bounds.hi
    if dtype.signed:
        return Facts(_fit(-hi, -lo, dtype), residue)
    if lo == hi == 0:
        return Facts(Bounds(0, 0), residue)
    size = 1 << dtype.bits
    return Facts(Bounds(size - hi, size - lo) if lo > 0 else full_range(dtype), residue)


class AbstractProver:
    """Proves goals from per-name ranges and residues; answers only "proven" or "not here"."""

    def __init__(self, scope: Scope, readings: tuple[Reading, ...]) -> None:
        self._scope = scope
        self._divisions = frozenset(reading.division for reading in readings)
        self._extensions = frozenset(reading.extension for reading in readings)
        self._position = {decl.name: index for index, decl in enumerate(scope.declarations)}
        self._names: dict[str, Facts] = {}

    def proves(self, expr: Expr, goal: str, factor: int) -> bool:
        """Whether `goal` holds for the executed value of `expr` under every admissible assignment."""
        facts = self.executed(expr)
        if facts is None:
            return False
        if goal == "non_negative":
            return facts.bounds.lo >= 0
        bits = goal_dtype(self._scope.type_of(expr), self._scope.index).bits
        need = min(factor.bit_length() - 1, bits)
        return facts.residue.k >= need and facts.residue.base % (1 << need) == 0

    def proves_window(self, offset: Expr, extent: Expr, bound: int) -> bool:
        """Whether `offset + extent <= bound` (exact) under every admissible assignment."""
        start, size = self.executed(offset), self.executed(extent)
        return start is not None and size is not None and start.bounds.hi + size.bounds.hi <= bound

    def executed(self, expr: Expr) -> Facts | None:
        """Facts of the offset's executed value: `expr` cast into the signed index."""
        facts = self.facts(expr)
        dtype = self._scope.type_of(expr)
        return None if facts is None else self._cast(facts, dtype, goal_dtype(dtype, self._scope.index))

    def _cast(self, facts: Facts, source: Dtype, target: Dtype) -> Facts:
        return cast_facts(facts, source, target, self._extensions)

    def facts(self, expr: Expr) -> Facts | None:
        """Range and residue of `expr` at its dtype, or None if it may divide by zero."""
        dtype = self._scope.type_of(expr)
        if isinstance(expr, Const):
            return _constant(expr.value, dtype)
        if isinstance(expr, Name):
            return self._name(expr.id)
        if isinstance(expr, Neg):
            inner = self.facts(expr.operand)
            return None if inner is None else _negate(inner, dtype)
        sides = [self.facts(side) for side in (expr.left, expr.right)]
        if sides[0] is None or sides[1] is None:
            return None
        left = self._cast(sides[0], self._scope.type_of(expr.left), dtype)
        right = self._cast(sides[1], self._scope.type_of(expr.right), dtype)
        return _combine(expr.op if isinstance(expr, BinOp) else expr.fn, left, right, dtype, self._divisions)

    def _name(self, name: str) -> Facts:
        if name not in self._names:
            for decl in self._unresolved_reads(name):
                self._names[decl.name] = self._declared(decl)
            self._names.setdefault(name, _top(self._scope.dtype(name)))
        return self._names[name]

    def _unresolved_reads(self, name: str) -> list[Declaration]:
        """The not yet resolved bindings `name` reads, transitively, in program order.

        Resolving them in that order keeps the recursion of `facts` to one expression's
        depth, however long a chain of bindings is (bindings never read ahead).
        """
        found: dict[str, Declaration] = {}
        pending = [name]
        while pending:
            decl = self._scope.declaration(pending.pop())
            if decl is None or decl.name in found or decl.name in self._names:
                continue
            found[decl.name] = decl
            pending.extend(read for operand in decl.operands for read in free_names(operand))
            pending.extend([] if decl.loop is None else [decl.loop])
        return sorted(found.values(), key=lambda decl: self._position[decl.name])

    def _operands(self, decl: Declaration) -> list[Facts] | None:
        """A binding's operands cast to its dtype, or None if one may divide by zero."""
        known = []
        for op in decl.operands:
            facts = self.facts(op)
            if facts is None:
                return None
            known.append(self._cast(facts, self._scope.type_of(op), decl.dtype))
        return known

    def _declared(self, decl: Declaration) -> Facts:
        """What one binding alone says about its name (the table in `planner.proofs.scope`)."""
        dtype = decl.dtype
        known = self._operands(decl)
        if known is None:
            return _top(dtype)  # the binding may divide by zero: its name is then unconstrained
        if decl.kind == "assign":
            return known[0]
        if decl.kind == "for":
            start, stop, step = known
            return _loop_values(start, stop, step, dtype)
        if decl.kind == "spmd":
            extent = known[0].bounds
            return _top(dtype) if extent.hi < 1 else Facts(Bounds(0, extent.hi - 1), Residue(0, 0))
        if decl.kind == "induction":
            return self._induction(decl, known[0], known[1])
        lo = dtype.low if decl.low is None else max(decl.low, dtype.low)
        hi = dtype.high if decl.high is None else min(decl.high, dtype.high)
        return _top(dtype) if lo > hi else Facts(Bounds(lo, hi), Residue(0, 0))

    def _induction(self, decl: Declaration, init: Facts, step: Facts) -> Facts:
        """`init + step * i` with `i` in `[0, last]`, the loop's last iteration index."""
        loop = self._scope.declaration(decl.loop or "")
        last = None if loop is None else self._last_iteration(loop)
        if last is None:
            return _top(decl.dtype)
        count = Facts(_fit(0, last, decl.dtype), Residue(0, 0))
        product = _combine("*", step, count, decl.dtype, self._divisions)
        assert product is not None
        total = _combine("+", init, product, decl.dtype, self._divisions)
        assert total is not None
        return total

    def _last_iteration(self, loop: Declaration) -> int | None:
        known = self._operands(loop)
        if known is None:
            return None
        if loop.kind == "spmd":
            return known[0].bounds.hi - 1 if known[0].bounds.hi >= 1 else None
        start, stop, step = known
        if step.bounds.lo > 0:
            return max(0, (stop.bounds.hi - 1 - start.bounds.lo) // step.bounds.lo)
        if step.bounds.hi < 0:  # a countdown: `start` down to just above `stop`
            return max(0, (start.bounds.hi - stop.bounds.lo - 1) // -step.bounds.hi)
        return None

    def never_runs(self, name: str) -> bool:
        """Whether the `for` loop bound as `name` takes no value: its range is empty, either direction,
        whatever values its bounds and step take."""
        decl = self._scope.declaration(name)
        known = None if decl is None or decl.kind != "for" else self._operands(decl)
        if known is None:
            return False
        start, stop, step = (facts.bounds for facts in known)
        return (step.lo > 0 and start.lo >= stop.hi) or (step.hi < 0 and start.hi <= stop.lo)
