"""The arithmetic oracle's admissible assignments: every value each binding admits, as one table.

Bindings are read in order (docs/design/protocol.md): each one's values may depend on the
names bound before it, so the table grows binding by binding: every row so far is repeated
once per value the next binding admits under that row. A binding's values always form an
arithmetic range per row (a single value for an assignment or an induction, `start <= v <
stop` stepping by `step` for a loop, a dtype's whole range where nothing constrains it), so
one growth step is a few numpy operations however many rows there are. Rows come out in the
order a depth-first enumeration would visit them: names read but never bound first (as
INDEX values), then the bindings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from planner.proofs.expr import free_names, parse_expr
from planner.proofs.protocol import (
    AssignBinding,
    Binding,
    BlockIdxBinding,
    BlockNumBinding,
    ForBinding,
    InductionBinding,
    IterArgBinding,
    ParamBinding,
    SpmdBinding,
)
from planner.targets.ascend import ASCEND_TARGETS
from planner.testing.oracles.arith_values import IR_READING, Column, OracleReading, compute, convert, typed

MAX_ORACLE_BITS = 16
DEFAULT_LIMIT = 1_000_000

parse = lru_cache(maxsize=4096)(parse_expr)  # every example re-reads its binding expressions


class OracleLimitExceeded(ValueError):
    """Enumeration would visit more assignments than the caller's limit (or a width above 16)."""


@dataclass(frozen=True, slots=True)
class BindingTypes:
    """Each name's (bits, signed); a name without a binding is a signed INDEX value."""

    index: int
    own: Mapping[str, tuple[int, bool]]

    def __call__(self, name: str) -> tuple[int, bool]:
        return self.own.get(name, (self.index, True))


def binding_types(bindings: Sequence[Binding], index: int) -> BindingTypes:
    return BindingTypes(index, {b.name: (index if b.bits is None else b.bits, b.is_signed) for b in bindings})


@dataclass(frozen=True, slots=True)
class Assignments:
    """Admissible assignments as columns: row `i` of every column is one assignment."""

    names: tuple[str, ...]
    columns: Mapping[str, Column]
    size: int

    def row(self, i: int) -> dict[str, int]:
        return {name: int(self.columns[name][i]) for name in self.names}

    def __iter__(self) -> Iterator[dict[str, int]]:
        return (self.row(i) for i in range(self.size))


@dataclass(frozen=True, slots=True)
class _Ranges:
    """Per row, the values `range(start, stop, step)` one binding admits (`step` > 0)."""

    start: Column
    stop: Column
    step: Column


def assignments(
    bindings: Sequence[Binding],
    *,
    index_bits: int,
    target: str | None = None,
    extra_names: Sequence[str] = (),
    limit: int = DEFAULT_LIMIT,
    reading: OracleReading = IR_READING,
) -> Assignments:
    """Every admissible assignment of a binding list under one reading (iterating gives `{name: int}`).

    Names in `extra_names` or read by a binding without being bound are unconstrained INDEX
    values. Raises `OracleLimitExceeded` when a width exceeds 16 bits or a full enumeration
    would visit more than `limit` partial assignments (the root, and every row of every step).
    """
    types = binding_types(bindings, index_bits)
    if max([index_bits, *(bits for bits, _ in types.own.values())]) > MAX_ORACLE_BITS:
        raise OracleLimitExceeded(f"the oracle enumerates widths up to {MAX_ORACLE_BITS} bits only")
    read = set(extra_names).union(*(free_names(parse(e)) for b in bindings for e in expressions(b)))
    unbound = sorted(read - set(types.own))
    grower = _Grower(types, reading, limit)
    for name in unbound:
        grower.grow(name, grower.every(index_bits, True))
    lanes = None if target is None else ASCEND_TARGETS[target].max_block_count
    by_name = {binding.name: binding for binding in bindings}
    for binding in bindings:
        grower.grow(binding.name, grower.admitted(binding, lanes, by_name))
    return Assignments(tuple(grower.columns), grower.columns, grower.size)


def expressions(binding: Binding) -> tuple[int | str, ...]:
    """The expressions a binding reads."""
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


class _Grower:
    """The table so far, and the step that adds one name's column."""

    def __init__(self, types: BindingTypes, reading: OracleReading, limit: int) -> None:
        self.types, self.reading, self.limit = types, reading, limit
        self.columns: dict[str, Column] = {}
        self.size = 1
        self.visited = 1

    def grow(self, name: str, ranges: _Ranges) -> None:
        counts = np.maximum(0, -((ranges.start - ranges.stop) // ranges.step))
        total = int(counts.sum())
        self.visited += total
        if self.visited > self.limit:
            raise OracleLimitExceeded(f"more than {self.limit} assignments to enumerate")
        rows = np.repeat(np.arange(self.size), counts)
        within = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        values = ranges.start[rows] + ranges.step[rows] * within
        self.columns = {existing: column[rows] for existing, column in self.columns.items()}
        self.columns[name] = values
        self.size = total

    def every(self, bits: int, signed: bool, low: int | None = None, high: int | None = None) -> _Ranges:
        """A dtype's range, clipped to `[low, high]`, for every row."""
        first = -(1 << (bits - 1)) if signed else 0
        last = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        start = first if low is None else max(low, first)
        stop = last + 1 if high is None else min(high + 1, last + 1)
        return self._ranges(np.full(self.size, start), np.full(self.size, max(start, stop)))

    def _ranges(self, start: Column, stop: Column, step: Column | None = None) -> _Ranges:
        every_one = np.ones(self.size, dtype=np.int64) if step is None else step.astype(np.int64)
        return _Ranges(start.astype(np.int64), stop.astype(np.int64), every_one)

    def value_of(self, source: int | str, bits: int, signed: bool) -> tuple[Column, Column]:
        """A binding expression's values cast to the binding's dtype, and where they are defined."""
        computed = compute(parse(source), self.columns, self.types, self.types.index, self.reading, self.size)
        return convert(computed.value, bits, signed, self.reading).number, computed.defined

    def admitted(self, binding: Binding, lanes: int | None, by_name: Mapping[str, Binding]) -> _Ranges:
        """The values a binding admits under each row (docs/design/protocol.md)."""
        bits, signed = self.types(binding.name)
        every = self.every(bits, signed)
        match binding:
            case AssignBinding(expr=expr):
                value, defined = self.value_of(expr, bits, signed)
                return self._where(defined, self._ranges(value, value + 1), every)
            case ForBinding(start=start, stop=stop, step=step):
                (first, a), (end, b), (stride, c) = (
                    self.value_of(e, bits, signed) for e in (start, stop, step)
                )
                ok = a & b & c & (stride > 0)
                return self._where(ok, self._ranges(first, end, np.where(ok, stride, 1)), every)
            case SpmdBinding(extent=extent):
                lanes_here, defined = self.value_of(extent, bits, signed)
                first_lane = np.zeros(self.size, dtype=np.int64)
                past_last = np.maximum(0, np.minimum(lanes_here, every.stop))
                return self._where(defined, self._ranges(first_lane, past_last), every)
            case InductionBinding(init=init, step=step, loop=loop):
                count, counted = self._iteration(by_name[loop])
                (first, a), (stride, b) = self.value_of(init, bits, signed), self.value_of(step, bits, signed)
                value = typed(first + stride * count, bits, signed).number
                return self._where(counted & a & b, self._ranges(value, value + 1), every)
            case BlockIdxBinding():
                return self.every(bits, signed, 0, None if lanes is None else lanes - 1)
            case BlockNumBinding():
                return self.every(bits, signed, 0, lanes)
            case ParamBinding(min=low, max=high):
                return self.every(bits, signed, low, high)
            case IterArgBinding():
                return every
        raise TypeError(f"not a binding: {binding!r}")

    def _iteration(self, loop: Binding) -> tuple[Column, Column]:
        """The iteration number of the loop's current value, and where the loop is constrained."""
        if isinstance(loop, SpmdBinding):
            return self.columns[loop.name], np.ones(self.size, dtype=bool)
        assert isinstance(loop, ForBinding)
        bits, signed = self.types(loop.name)
        (start, a), (step, b) = (
            self.value_of(loop.start, bits, signed),
            self.value_of(loop.step, bits, signed),
        )
        ok = a & b & (step > 0)
        return (self.columns[loop.name] - start) // np.where(ok, step, 1), ok

    @staticmethod
    def _where(condition: Column, chosen: _Ranges, otherwise: _Ranges) -> _Ranges:
        return _Ranges(
            np.where(condition, chosen.start, otherwise.start),
            np.where(condition, chosen.stop, otherwise.stop),
            np.where(condition, chosen.step, otherwise.step),
        )
