"""Whether two coordinates are the same function of the program's values, with wraparound.

Comparing text would call `n0 // 16` and `(n0) // 16` different and `n0 // 16` and
`nb * 16` equal-looking; what matters is the value each one yields at run time. Both are
evaluated under admissible assignments of the request's bindings, at the request's index
width, each name read at its own width: every assignment when the brute-force oracle can
enumerate them (widths up to 16 bits), the boundary values of every range otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from planner.proofs.expr import Expr, ExpressionError, free_names, parse_expr
from planner.proofs.protocol import Binding
from planner.testing.boundary import boundary_assignments
from planner.testing.oracles.arith import OracleLimitExceeded, assignments, evaluate

EXHAUSTIVE_LIMIT = 20_000  # partial assignments the oracle may visit before sampling takes over


@dataclass(frozen=True)
class Context:
    """What gives names their values: the request's bindings, index width and target."""

    bindings: Sequence[Binding]
    index_bits: int
    target: str | None = None

    @property
    def widths(self) -> dict[str, int]:
        """The names bound at a width of their own; every other name lives at the index width."""
        return {b.name: b.bits for b in self.bindings if b.bits is not None}

    @property
    def unsigned(self) -> frozenset[str]:
        """The names bound unsigned."""
        return frozenset(b.name for b in self.bindings if not b.is_signed)


@dataclass(frozen=True)
class Difference:
    """An admissible assignment under which the two coordinates take different values."""

    assignment: dict[str, int]
    left: int | None  # None: the coordinate divides by zero there
    right: int | None
    unreadable: bool = False  # a side is not an expression of the protocol grammar

    def describe(self, left_text: str, right_text: str) -> str:
        if self.unreadable:
            return f"{left_text} and {right_text} are not both expressions of the protocol grammar"
        where = ", ".join(f"{name}={value}" for name, value in sorted(self.assignment.items()))
        values = f"{left_text} = {_value(self.left)} but {right_text} = {_value(self.right)}"
        return f"{values} at {where or 'any values'}"


def _value(value: int | None) -> str:
    return "undefined (division by zero)" if value is None else str(value)


def first_difference(left: int | str, right: int | str, context: Context) -> Difference | None:
    """An assignment where `left` and `right` differ, or None if none was found.

    A coordinate that is not an expression of the protocol grammar differs everywhere.
    """
    try:
        left_expr, right_expr = parse_expr(left), parse_expr(right)
    except ExpressionError:
        return Difference({}, None, None, unreadable=True)
    if left_expr == right_expr:
        return None
    names = sorted(free_names(left_expr) | free_names(right_expr))
    for env in admissible_assignments(context, names):
        left_value = _at(left_expr, env, context)
        right_value = _at(right_expr, env, context)
        if left_value != right_value:
            return Difference(
                {name: env[name] for name in sorted(env) if name in names}, left_value, right_value
            )
    return None


def _at(expr: Expr, env: dict[str, int], context: Context) -> int | None:
    return evaluate(expr, env, context.index_bits, context.widths, unsigned=context.unsigned)


def admissible_assignments(context: Context, names: Sequence[str]) -> Iterator[dict[str, int]]:
    """Every admissible assignment if the oracle can enumerate them, else the boundary ones."""
    try:
        return iter(
            list(
                assignments(
                    context.bindings,
                    index_bits=context.index_bits,
                    target=context.target,
                    extra_names=names,
                    limit=EXHAUSTIVE_LIMIT,
                )
            )
        )
    except OracleLimitExceeded:
        return boundary_assignments(
            context.bindings, index_bits=context.index_bits, target=context.target, extra_names=names
        )
