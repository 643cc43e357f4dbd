"""A brute-force oracle for `proofs.check`: evaluate offsets concretely over every assignment.

Use it to cross-check the Z3 prover on small widths (8 or 16 bits), where enumerating every
admissible assignment is cheap::

    from planner.testing.oracles.arith import oracle_check
    outcome = oracle_check(request, "non_negative")
    if outcome.holds: ...                       # true for every admissible assignment
    else: print(outcome.counterexample)         # one admissible assignment that breaks it

Semantics match the prover exactly (nz-layout.md 7.3): two's complement with wraparound,
floor `//` and `%`, names sign-extended or truncated to the width they are used at. An
offset that divides by zero breaks every goal; a binding whose expression divides by zero
leaves its name unconstrained. The admissible values of each binding kind are generated
here directly from the protocol's definitions, independently of the Z3 encoding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from planner.proofs.concrete import evaluate as _evaluate
from planner.proofs.concrete import goal_holds, signed_values, wrap
from planner.proofs.expr import Expr, Name, free_names, parse_expr
from planner.proofs.protocol import (
    AssignBinding,
    Binding,
    BlockIdxBinding,
    BlockNumBinding,
    ForBinding,
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
    "assignments",
    "declared_width",
    "evaluate",
    "holds_at",
    "oracle_check",
    "wrap",
]


_parse = lru_cache(maxsize=4096)(parse_expr)  # enumeration re-reads the same binding expressions


class OracleLimitExceeded(ValueError):
    """Enumeration would visit more assignments than the caller's limit (or a width above 16)."""


@dataclass(frozen=True, slots=True)
class OracleOutcome:
    """Whether a goal holds for every admissible assignment, by exhaustion.

    `counterexample` is the first admissible assignment (in enumeration order) that breaks
    the goal, over every bound and free name; `assignments` counts the admissible
    assignments visited (0 means the claim holds vacuously).
    """

    holds: bool
    counterexample: dict[str, int] | None
    assignments: int


def evaluate(
    expr: Expr | int | str, env: Mapping[str, int], bits: int, widths: Mapping[str, int] | None = None
) -> int | None:
    """The signed `bits`-wide value of `expr` under `env`, or None if it divides by zero.

    `widths` gives the width a name's value lives at (default: `bits`); the value is
    sign-extended or truncated to `bits` where it is read.
    """
    known = widths or {}
    return _evaluate(parse_expr(expr), env, bits, lambda name: known.get(name, bits))


def _binding_values(
    binding: Binding, bits: int, lanes: int | None, value_of: Callable[[int | str], int | None]
) -> Sequence[int]:
    """Every value the binding admits, given the names bound before it (service-protocol.md)."""
    every = signed_values(bits)
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
            return every if lanes_here is None else signed_values(bits, 0, lanes_here - 1)
        case BlockIdxBinding():
            return signed_values(bits, 0, None if lanes is None else lanes - 1)
        case BlockNumBinding():
            return signed_values(bits, 0, lanes)
        case ParamBinding(min=low, max=high):
            return signed_values(bits, low, high)
        case IterArgBinding():
            return every
    raise TypeError(f"not a binding: {binding!r}")


def assignments(
    bindings: Sequence[Binding],
    *,
    index_bits: int,
    target: str | None = None,
    extra_names: Sequence[str] = (),
    limit: int = DEFAULT_LIMIT,
) -> Iterator[dict[str, int]]:
    """Every admissible assignment of a binding list, as `{name: signed int}`.

    Names in `extra_names` or read by a binding without being bound are unconstrained
    values of `index_bits` and are enumerated first. Raises `OracleLimitExceeded` when a
    width exceeds 16 bits or more than `limit` partial assignments would be visited.
    """
    widths = {b.name: index_bits if b.bits is None else b.bits for b in bindings}
    if max([index_bits, *widths.values()]) > MAX_ORACLE_BITS:
        raise OracleLimitExceeded(f"the oracle enumerates widths up to {MAX_ORACLE_BITS} bits only")
    read = set(extra_names).union(*(free_names(parse_expr(e)) for b in bindings for e in _expressions(b)))
    unbound = sorted(read - set(widths))
    lanes = None if target is None else ASCEND_TARGETS[target].max_block_count
    visited = 0

    def width_of(name: str) -> int:
        return widths.get(name, index_bits)

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
            name, values = unbound[position], signed_values(index_bits)
        else:
            binding = bindings[position - len(unbound)]
            bits = width_of(binding.name)
            name = binding.name
            values = _binding_values(
                binding, bits, lanes, lambda source: _evaluate(_parse(source), env, bits, width_of)
            )
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
    return ()


def declared_width(request: ProofsCheckRequest) -> int:
    """The width the offset is checked at: a bare name's own `bits`, otherwise `request.bits`."""
    expr = parse_expr(request.expr)
    own = {b.name: b.bits for b in request.bindings if b.bits is not None}
    return own.get(expr.id, request.bits) if isinstance(expr, Name) else request.bits


def holds_at(request: ProofsCheckRequest, goal: str, env: Mapping[str, int]) -> bool:
    """Whether `goal` holds for the request's offset under one assignment `env` (every name read)."""
    own = {b.name: b.bits for b in request.bindings if b.bits is not None}
    bits = declared_width(request)
    value = _evaluate(_parse(request.expr), env, bits, lambda name: own.get(name, request.bits))
    return goal_holds(goal, value, request.factor, bits)


def oracle_check(request: ProofsCheckRequest, goal: str, *, limit: int = DEFAULT_LIMIT) -> OracleOutcome:
    """Decide one goal of a `proofs.check` request by enumerating every admissible assignment."""
    names = sorted(free_names(parse_expr(request.expr)))
    count = 0
    for env in assignments(
        request.bindings, index_bits=request.bits, target=request.target, extra_names=names, limit=limit
    ):
        count += 1
        if not holds_at(request, goal, env):
            return OracleOutcome(False, env, count)
    return OracleOutcome(True, None, count)
