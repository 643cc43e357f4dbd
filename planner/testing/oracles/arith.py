"""A brute-force oracle for `proofs.check`: evaluate offsets concretely over every assignment.

Use it to cross-check the prover on small widths (8 or 16 bits), where enumerating every
admissible assignment under every reading is cheap::

    from planner.testing.oracles.arith import oracle_check
    outcome = oracle_check(request, "non_negative")
    if outcome.holds: ...                       # true for every admissible assignment and reading
    else: print(outcome.counterexample, outcome.reading)

It has its own evaluator of the IR's semantics (docs/design/nz-layout.md 7.3), written over raw bit
patterns rather than the prover's signed values: an int literal is INDEX, a binary node
computes at the wider operand's dtype (the left one's on a tie), assignments cast, unsigned
`//` and `%` divide the patterns, signed ones floor or truncate per reading, and an unsigned
value widens by zero- or sign-extension per reading. The executed offset is cast into the
signed index. An offset that divides by zero breaks every goal; a binding whose expression
divides by zero leaves its name unconstrained. Nothing here comes from `planner.proofs`
except the expression parser and the protocol models.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from planner.proofs.expr import BinOp, Const, Expr, MinMaxCall, Name, Neg, free_names, parse_expr
from planner.proofs.protocol import (
    AssignBinding,
    Binding,
    BlockIdxBinding,
    BlockNumBinding,
    ForBinding,
    InductionBinding,
    IterArgBinding,
    ParamBinding,
    ProofsCheckRequest,
    SpmdBinding,
)
from planner.targets.ascend import ASCEND_TARGETS

MAX_ORACLE_BITS = 16
DEFAULT_LIMIT = 1_000_000

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_ORACLE_BITS",
    "OracleLimitExceeded",
    "OracleOutcome",
    "OracleReading",
    "assignments",
    "evaluate",
    "holds_at",
    "oracle_check",
    "oracle_window",
    "readings_of",
    "wrap",
]

_parse = lru_cache(maxsize=4096)(parse_expr)  # enumeration re-reads the same binding expressions


class OracleLimitExceeded(ValueError):
    """Enumeration would visit more assignments than the caller's limit (or a width above 16)."""


@dataclass(frozen=True, slots=True)
class OracleReading:
    """How signed `//`/`%` round (`floor`, `trunc`) and how unsigned values widen (`zero`, `sign`)."""

    division: str = "floor"
    extension: str = "zero"


@dataclass(frozen=True, slots=True)
class OracleOutcome:
    """Whether a goal holds for every admissible assignment under every reading, by exhaustion.

    `counterexample` is the first admissible assignment (readings in order floor/zero,
    floor/sign, trunc/zero, trunc/sign; assignments in enumeration order) that breaks the
    goal, and `reading` the reading it breaks under; `assignments` counts the admissible
    assignments visited (0 means the claim holds vacuously).
    """

    holds: bool
    counterexample: dict[str, int] | None
    assignments: int
    reading: OracleReading | None = None


def wrap(value: int, bits: int) -> int:
    """`value` read as a signed `bits`-wide two's-complement integer."""
    pattern = value & ((1 << bits) - 1)
    return pattern - (1 << bits) if pattern >> (bits - 1) else pattern


# --- typed values as raw bit patterns -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Typed:
    pattern: int  # the low `bits` bits, in [0, 2**bits)
    bits: int
    signed: bool

    @property
    def number(self) -> int:
        """The int the dtype reads from the pattern."""
        return wrap(self.pattern, self.bits) if self.signed else self.pattern


def _typed(number: int, bits: int, signed: bool) -> _Typed:
    return _Typed(number & ((1 << bits) - 1), bits, signed)


def _convert(value: _Typed, bits: int, signed: bool, reading: OracleReading) -> _Typed:
    """Cast: keep the low bits, or fill the new high bits with copies of the top bit when extending
    a signed value (or an unsigned one read as sign-extending), with zeros otherwise."""
    pattern = value.pattern & ((1 << bits) - 1)
    top_set = value.pattern >> (value.bits - 1) & 1
    if bits > value.bits and top_set and (value.signed or reading.extension == "sign"):
        pattern |= ((1 << bits) - 1) ^ ((1 << value.bits) - 1)
    return _Typed(pattern, bits, signed)


def _quotient(a: int, b: int, division: str) -> int:
    floor = a // b
    if division == "floor" or a % b == 0 or (a < 0) == (b < 0):
        return floor
    return floor + 1  # truncation rounds toward zero: one above the floor when the signs differ


def _compute(
    expr: Expr,
    env: Mapping[str, int],
    types: Callable[[str], tuple[int, bool]],
    index: int,
    reading: OracleReading,
) -> _Typed | None:
    if isinstance(expr, Const):
        return _typed(expr.value, index, True)
    if isinstance(expr, Name):
        bits, signed = types(expr.id)
        return _typed(env[expr.id], bits, signed)
    if isinstance(expr, Neg):
        inner = _compute(expr.operand, env, types, index, reading)
        return None if inner is None else _typed(-inner.pattern, inner.bits, inner.signed)
    left = _compute(expr.left, env, types, index, reading)
    right = _compute(expr.right, env, types, index, reading)
    if left is None or right is None:
        return None
    ruling = right if right.bits > left.bits else left
    a = _convert(left, ruling.bits, ruling.signed, reading)
    b = _convert(right, ruling.bits, ruling.signed, reading)
    op = expr.op if isinstance(expr, BinOp) else expr.fn
    x, y = a.number, b.number
    if op in ("//", "%"):
        if y == 0:
            return None
        q = _quotient(x, y, reading.division)
        result = q if op == "//" else x - q * y
    elif isinstance(expr, MinMaxCall):
        result = min(x, y) if op == "min" else max(x, y)
    else:
        result = {"+": x + y, "-": x - y, "*": x * y}[op]
    return _typed(result, ruling.bits, ruling.signed)


def _executed(value: _Typed | None, index: int, reading: OracleReading) -> int | None:
    """An offset's value once cast into the signed index (never narrowed below its own width)."""
    if value is None:
        return None
    return _convert(value, max(value.bits, index), True, reading).number


def evaluate(
    expr: Expr | int | str,
    env: Mapping[str, int],
    bits: int,
    widths: Mapping[str, int] | None = None,
    *,
    unsigned: frozenset[str] = frozenset(),
    reading: OracleReading = OracleReading(),
) -> int | None:
    """The executed value of `expr` under `env` with a `bits`-wide index, or None if it divides by zero.

    `widths` gives the width a name's value lives at (default: `bits`), `unsigned` the names
    bound unsigned.
    """
    known = widths or {}
    value = _compute(parse_expr(expr), env, lambda n: (known.get(n, bits), n not in unsigned), bits, reading)
    return _executed(value, bits, reading)


# --- admissible assignments -----------------------------------------------------------------------


def _dtype_range(bits: int, signed: bool, low: int | None = None, high: int | None = None) -> range:
    first = -(1 << (bits - 1)) if signed else 0
    last = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    start = first if low is None else max(low, first)
    stop = last + 1 if high is None else min(high + 1, last + 1)
    return range(start, max(start, stop))


@dataclass(frozen=True, slots=True)
class _Types:
    index: int
    own: Mapping[str, tuple[int, bool]]

    def __call__(self, name: str) -> tuple[int, bool]:
        return self.own.get(name, (self.index, True))


def _types(bindings: Sequence[Binding], index: int) -> _Types:
    return _Types(index, {b.name: (index if b.bits is None else b.bits, b.is_signed) for b in bindings})


def _binding_values(
    binding: Binding,
    env: Mapping[str, int],
    types: _Types,
    lanes: int | None,
    by_name: Mapping[str, Binding],
    reading: OracleReading,
) -> Sequence[int]:
    """Every value the binding admits, given the names bound before it (docs/design/protocol.md)."""
    bits, signed = types(binding.name)
    every = _dtype_range(bits, signed)

    def value_of(source: int | str) -> int | None:
        computed = _compute(_parse(source), env, types, types.index, reading)
        return None if computed is None else _convert(computed, bits, signed, reading).number

    match binding:
        case AssignBinding(expr=expr):
            value = value_of(expr)
            return every if value is None else (value,)
        case ForBinding(start=start, stop=stop, step=step):
            first, end, stride = value_of(start), value_of(stop), value_of(step)
            if first is None or end is None or stride is None or stride <= 0:
                return every
            return range(first, end, stride)
        case SpmdBinding(extent=extent):
            lanes_here = value_of(extent)
            return every if lanes_here is None else _dtype_range(bits, signed, 0, lanes_here - 1)
        case InductionBinding(init=init, step=step, loop=loop):
            count = _iteration(by_name[loop], env, types, reading)
            first, stride = value_of(init), value_of(step)
            if count is None or first is None or stride is None:
                return every
            return (_typed(first + stride * count, bits, signed).number,)
        case BlockIdxBinding():
            return _dtype_range(bits, signed, 0, None if lanes is None else lanes - 1)
        case BlockNumBinding():
            return _dtype_range(bits, signed, 0, lanes)
        case ParamBinding(min=low, max=high):
            return _dtype_range(bits, signed, low, high)
        case IterArgBinding():
            return every
    raise TypeError(f"not a binding: {binding!r}")


def _iteration(loop: Binding, env: Mapping[str, int], types: _Types, reading: OracleReading) -> int | None:
    """The iteration number of the loop's current value, or None where the loop is unconstrained."""
    if isinstance(loop, SpmdBinding):
        return env[loop.name]
    assert isinstance(loop, ForBinding)
    bits, signed = types(loop.name)
    start_value = _compute(_parse(loop.start), env, types, types.index, reading)
    step_value = _compute(_parse(loop.step), env, types, types.index, reading)
    if start_value is None or step_value is None:
        return None
    start = _convert(start_value, bits, signed, reading).number
    step = _convert(step_value, bits, signed, reading).number
    return None if step <= 0 else (env[loop.name] - start) // step


def assignments(
    bindings: Sequence[Binding],
    *,
    index_bits: int,
    target: str | None = None,
    extra_names: Sequence[str] = (),
    limit: int = DEFAULT_LIMIT,
    reading: OracleReading = OracleReading(),
) -> Iterator[dict[str, int]]:
    """Every admissible assignment of a binding list under one reading, as `{name: int}`.

    Names in `extra_names` or read by a binding without being bound are unconstrained INDEX
    values and are enumerated first. Raises `OracleLimitExceeded` when a width exceeds 16
    bits or more than `limit` partial assignments would be visited.
    """
    types = _types(bindings, index_bits)
    if max([index_bits, *(bits for bits, _ in types.own.values())]) > MAX_ORACLE_BITS:
        raise OracleLimitExceeded(f"the oracle enumerates widths up to {MAX_ORACLE_BITS} bits only")
    read = set(extra_names).union(*(free_names(_parse(e)) for b in bindings for e in _expressions(b)))
    unbound = sorted(read - set(types.own))
    lanes = None if target is None else ASCEND_TARGETS[target].max_block_count
    by_name = {binding.name: binding for binding in bindings}
    visited = 0

    def extend(env: dict[str, int], position: int) -> Iterator[dict[str, int]]:
        nonlocal visited
        visited += 1
        if visited > limit:
            raise OracleLimitExceeded(f"more than {limit} assignments to enumerate")
        if position == len(unbound) + len(bindings):
            yield dict(env)
            return
        values: Sequence[int]
        if position < len(unbound):
            name, values = unbound[position], _dtype_range(index_bits, True)
        else:
            binding = bindings[position - len(unbound)]
            name = binding.name
            values = _binding_values(binding, env, types, lanes, by_name, reading)
        for value in values:
            env[name] = value
            yield from extend(env, position + 1)
        env.pop(name, None)

    return extend({}, 0)


def _expressions(binding: Binding) -> tuple[int | str, ...]:
    match binding:
        case AssignBinding(expr=expr):
            return (expr,)
        case ForBinding(start=start, stop=stop, step=step):
            return (start, stop, step)
        case SpmdBinding(extent=extent):
            return (extent,)
        case InductionBinding(init=init, step=step):
            return (init, step)
    return ()


def readings_of(division: str, bindings: Sequence[Binding], *exprs: int | str) -> tuple[OracleReading, ...]:
    """The readings worth enumerating: the requested divisions (only floor if nothing divides),
    and sign-extension only if some binding is unsigned."""
    texts = [str(e) for e in exprs] + [str(e) for b in bindings for e in _expressions(b)]
    divides = any("//" in text or "%" in text for text in texts)
    divisions = ("floor", "trunc") if division == "either" else (division,)
    if not divides:
        divisions = divisions[:1]
    extensions = ("zero", "sign") if any(not b.is_signed for b in bindings) else ("zero",)
    return tuple(OracleReading(d, e) for d in divisions for e in extensions)


def _goal_holds(goal: str, value: int | None, factor: int, width: int) -> bool:
    """`multiple_of` asks for `log2(factor)` low zero bits, at most as many as the value has."""
    if value is None:
        return False
    if goal == "non_negative":
        return value >= 0
    return value % min(factor, 1 << width) == 0


def holds_at(
    request: ProofsCheckRequest, goal: str, env: Mapping[str, int], reading: OracleReading = OracleReading()
) -> bool:
    """Whether `goal` holds for the request's offset under one assignment `env` (every name read)."""
    types = _types(request.bindings, request.bits)
    computed = _compute(_parse(request.expr), env, types, request.bits, reading)
    width = request.bits if computed is None else max(request.bits, computed.bits)
    return _goal_holds(goal, _executed(computed, request.bits, reading), request.factor, width)


def _exhaust(
    bindings: Sequence[Binding],
    readings: Sequence[OracleReading],
    breaks: Callable[[Mapping[str, int], OracleReading], bool],
    *,
    index_bits: int,
    target: str | None,
    names: Sequence[str],
    limit: int,
) -> OracleOutcome:
    count = 0
    for reading in readings:
        for env in assignments(
            bindings, index_bits=index_bits, target=target, extra_names=names, limit=limit, reading=reading
        ):
            count += 1
            if breaks(env, reading):
                return OracleOutcome(False, env, count, reading)
    return OracleOutcome(True, None, count)


def oracle_check(request: ProofsCheckRequest, goal: str, *, limit: int = DEFAULT_LIMIT) -> OracleOutcome:
    """Decide one goal of a `proofs.check` request by enumerating every admissible assignment."""
    return _exhaust(
        request.bindings,
        readings_of(request.division, request.bindings, request.expr),
        lambda env, reading: not holds_at(request, goal, env, reading),
        index_bits=request.bits,
        target=request.target,
        names=sorted(free_names(_parse(request.expr))),
        limit=limit,
    )


def oracle_window(
    bindings: Sequence[Binding],
    offset: int | str,
    extent: int | str,
    bound: int,
    *,
    index_bits: int,
    division: str = "floor",
    target: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> OracleOutcome:
    """Decide `offset + extent <= bound` (exact, both cast into the index) by enumeration."""
    types = _types(bindings, index_bits)

    def breaks(env: Mapping[str, int], reading: OracleReading) -> bool:
        ends = [
            _executed(_compute(_parse(side), env, types, index_bits, reading), index_bits, reading)
            for side in (offset, extent)
        ]
        return ends[0] is None or ends[1] is None or ends[0] + ends[1] > bound

    names = sorted(free_names(_parse(offset)) | free_names(_parse(extent)))
    return _exhaust(
        bindings,
        readings_of(division, bindings, offset, extent),
        breaks,
        index_bits=index_bits,
        target=target,
        names=names,
        limit=limit,
    )
