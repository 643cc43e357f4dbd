"""A brute-force oracle for `proofs.check`: evaluate offsets concretely over every assignment.

Use it to cross-check the prover on small widths (8 or 16 bits), where enumerating every
admissible assignment under every reading is cheap::

    from planner.testing.oracles.arith import oracle_check
    outcome = oracle_check(request, "non_negative")
    if outcome.holds: ...                       # true for every admissible assignment and reading
    else: print(outcome.counterexample, outcome.reading)

The semantics are the oracle's own (`arith_values`: the IR's typing, both divisions, both
extensions of unsigned values), and so are the admissible assignments (`arith_domains`); each
goal is decided over all assignments of a reading at once. The executed offset is cast into
the signed index. An offset that divides by zero breaks every goal; a binding whose
expression divides by zero leaves its name unconstrained. Nothing here comes from
`planner.proofs` except the expression parser and the protocol models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from planner.proofs.expr import Expr, free_names, parse_expr
from planner.proofs.protocol import Binding, ProofsCheckRequest
from planner.testing.oracles.arith_domains import (
    DEFAULT_LIMIT,
    MAX_ORACLE_BITS,
    Assignments,
    OracleLimitExceeded,
    assignments,
    binding_types,
    expressions,
    parse,
)
from planner.testing.oracles.arith_values import (
    IR_READING,
    Column,
    OracleReading,
    TypeOf,
    compute,
    exact_column,
    executed,
    wrap,
)

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_ORACLE_BITS",
    "OracleLimitExceeded",
    "OracleOutcome",
    "OracleReading",
    "admits",
    "assignments",
    "evaluate",
    "holds_at",
    "oracle_check",
    "oracle_window",
    "readings_of",
    "wrap",
]

Mask = npt.NDArray[np.bool_]


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


def evaluate(
    expr: Expr | int | str,
    env: Mapping[str, int],
    bits: int,
    widths: Mapping[str, int] | None = None,
    *,
    unsigned: frozenset[str] = frozenset(),
    reading: OracleReading = IR_READING,
) -> int | None:
    """The executed value of `expr` under `env` with a `bits`-wide index, or None if it divides by zero.

    `widths` gives the width a name's value lives at (default: `bits`), `unsigned` the names
    bound unsigned.
    """
    known = widths or {}
    columns = {name: exact_column([value]) for name, value in env.items()}
    value, defined = _executed(
        parse_expr(expr), columns, lambda n: (known.get(n, bits), n not in unsigned), bits, reading, 1
    )
    return int(value[0]) if defined[0] else None


def _executed(
    expr: Expr, columns: Mapping[str, Column], types: TypeOf, index: int, reading: OracleReading, size: int
) -> tuple[Column, Mask]:
    computed = compute(expr, columns, types, index, reading, size)
    return executed(computed.value, index, reading), computed.defined


def readings_of(division: str, bindings: Sequence[Binding], *exprs: int | str) -> tuple[OracleReading, ...]:
    """The readings worth enumerating: the requested divisions (only floor if nothing divides),
    and sign-extension only if some binding is unsigned."""
    texts = [str(e) for e in exprs] + [str(e) for b in bindings for e in expressions(b)]
    divides = any("//" in text or "%" in text for text in texts)
    divisions = ("floor", "trunc") if division == "either" else (division,)
    if not divides:
        divisions = divisions[:1]
    extensions = ("zero", "sign") if any(not b.is_signed for b in bindings) else ("zero",)
    return tuple(OracleReading(d, e) for d in divisions for e in extensions)


def _goal_holds(
    request: ProofsCheckRequest, goal: str, columns: Mapping[str, Column], reading: OracleReading, size: int
) -> Mask:
    """Per assignment: `multiple_of` asks for `log2(factor)` low zero bits, at most as many as the
    value has; `non_negative` for a value `>= 0`; neither holds where the offset divides by zero."""
    types = binding_types(request.bindings, request.bits)
    computed = compute(parse(request.expr), columns, types, request.bits, reading, size)
    value = executed(computed.value, request.bits, reading)
    if goal == "non_negative":
        met = value >= 0
    else:
        width = max(request.bits, computed.value.bits)
        met = value % min(request.factor, 1 << width) == 0
    defined: Mask = computed.defined & np.asarray(met, dtype=bool)
    return defined


def holds_at(
    request: ProofsCheckRequest, goal: str, env: Mapping[str, int], reading: OracleReading = IR_READING
) -> bool:
    """Whether `goal` holds for the request's offset under one assignment `env` (every name read)."""
    columns = {name: exact_column([value]) for name, value in env.items()}
    return bool(_goal_holds(request, goal, columns, reading, 1)[0])


def admits(
    bindings: Sequence[Binding],
    env: Mapping[str, int],
    *,
    index_bits: int,
    target: str | None = None,
    reading: OracleReading = IR_READING,
    limit: int = DEFAULT_LIMIT,
) -> bool:
    """Whether `env` (naming every bound and read name) is an admissible assignment under `reading`."""
    every = assignments(
        bindings, index_bits=index_bits, target=target, extra_names=sorted(env), limit=limit, reading=reading
    )
    for table in every.tables():
        if set(table.names) != set(env):
            return False
        same = np.ones(table.size, dtype=bool)
        for name, value in env.items():
            same &= table.columns[name] == value
        if same.any():
            return True
    return False


def _exhaust(
    bindings: Sequence[Binding],
    readings: Sequence[OracleReading],
    breaks: Callable[[Assignments, OracleReading], Mask],
    *,
    index_bits: int,
    target: str | None,
    names: Sequence[str],
    limit: int,
) -> OracleOutcome:
    count = 0
    for reading in readings:
        every = assignments(
            bindings, index_bits=index_bits, target=target, extra_names=names, limit=limit, reading=reading
        )
        for table in every.tables():
            broken = np.flatnonzero(breaks(table, reading))
            if broken.size:
                first = int(broken[0])
                return OracleOutcome(False, table.row(first), count + first + 1, reading)
            count += table.size
    return OracleOutcome(True, None, count)


def oracle_check(request: ProofsCheckRequest, goal: str, *, limit: int = DEFAULT_LIMIT) -> OracleOutcome:
    """Decide one goal of a `proofs.check` request by enumerating every admissible assignment."""
    return _exhaust(
        request.bindings,
        readings_of(request.division, request.bindings, request.expr),
        lambda table, reading: ~_goal_holds(request, goal, table.columns, reading, table.size),
        index_bits=request.bits,
        target=request.target,
        names=sorted(free_names(parse(request.expr))),
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
    types = binding_types(bindings, index_bits)

    def breaks(table: Assignments, reading: OracleReading) -> Mask:
        (start, a), (length, b) = (
            _executed(parse(side), table.columns, types, index_bits, reading, table.size)
            for side in (offset, extent)
        )
        broken: Mask = ~(a & b) | np.asarray(start + length > bound, dtype=bool)
        return broken

    names = sorted(free_names(parse(offset)) | free_names(parse(extent)))
    return _exhaust(
        bindings,
        readings_of(division, bindings, offset, extent),
        breaks,
        index_bits=index_bits,
        target=target,
        names=names,
        limit=limit,
    )
