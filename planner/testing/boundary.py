"""Admissible assignments at any width: every value where ranges are small, the edges where not.

Exhaustive enumeration (`planner.testing.oracles.arith.assignments`) stops at 16 bits; the
bugs worth finding live at 32 and 64 (a product that wraps only near the top of a loop's
range). Two expressions that differ somewhere usually differ at a range's first, second,
middle, second-to-last or last value, so those are the values tried for each binding,
in program order, under the same semantics as the prover (`planner.proofs.scope`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from planner.proofs.concrete import cast_into, dtype_values, iteration, represent, signed_values
from planner.proofs.dtype import IR_READING, Reading
from planner.proofs.expr import free_names
from planner.proofs.protocol import Binding
from planner.proofs.scope import Declaration, Scope, make_scope

DEFAULT_SAMPLE_LIMIT = 4096
SMALL_RANGE = 8  # a range this short is taken whole


def edges(values: range) -> tuple[int, ...]:
    """A range's first, second, middle, second-to-last and last values (all of a short range)."""
    if len(values) <= SMALL_RANGE:
        return tuple(values)
    picks = (values[0], values[1], values[len(values) // 2], values[-2], values[-1])
    return tuple(dict.fromkeys(picks))


def _candidates(decl: Declaration, env: dict[str, int], scope: Scope, reading: Reading) -> tuple[int, ...]:
    """The values tried for one binding, given the names bound before it."""
    operands = [cast_into(op, env, scope, decl.dtype, reading) for op in decl.operands]
    unconstrained = dtype_values(decl.dtype)
    if decl.kind == "assign":
        return edges(unconstrained) if operands[0] is None else (operands[0],)
    if decl.kind == "for":
        start, stop, step = operands
        if start is None or stop is None or step is None or step == 0:
            return edges(unconstrained)
        return edges(range(start, stop, step))
    if decl.kind == "spmd":
        return edges(unconstrained if operands[0] is None else dtype_values(decl.dtype, 0, operands[0] - 1))
    if decl.kind == "induction":
        loop = scope.declaration(decl.loop or "")
        count = None if loop is None else iteration(loop, env, scope, reading)
        init, step = operands
        if init is None or step is None or count is None:
            return edges(unconstrained)
        return (represent(init + step * count, decl.dtype),)
    return edges(dtype_values(decl.dtype, decl.low, decl.high))


def boundary_assignments(
    bindings: Sequence[Binding],
    *,
    index_bits: int,
    target: str | None = None,
    extra_names: Sequence[str] = (),
    limit: int = DEFAULT_SAMPLE_LIMIT,
    reading: Reading = IR_READING,
) -> Iterator[dict[str, int]]:
    """Admissible assignments `{name: int}` under one reading, built from each binding's edge values.

    Names in `extra_names` or read by a binding that no binding binds are unconstrained
    index-width values and take the edges of that range. At most `limit` assignments are produced.
    """
    scope = make_scope(bindings, index_bits, target)
    read = set(extra_names).union(*(free_names(op) for decl in scope.declarations for op in decl.operands))
    free = sorted(read - {decl.name for decl in scope.declarations})
    produced = 0

    def extend(env: dict[str, int], position: int) -> Iterator[dict[str, int]]:
        nonlocal produced
        if position == len(free) + len(scope.declarations):
            produced += 1
            yield dict(env)
            return
        if position < len(free):
            name, values = free[position], edges(signed_values(index_bits))
        else:
            decl = scope.declarations[position - len(free)]
            name, values = decl.name, _candidates(decl, env, scope, reading)
        for value in values:
            if produced >= limit:
                return
            env[name] = value
            yield from extend(env, position + 1)
        env.pop(name, None)

    return extend({}, 0)
