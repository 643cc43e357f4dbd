"""The arithmetic oracle's admissible assignments: every value each binding admits, as tables.

Bindings are read in order (docs/design/protocol.md): each one's values may depend on the
names bound before it, so a table grows binding by binding: every row so far is repeated
once per value the next binding admits under that row. A binding's values always form an
arithmetic range per row (a single value for an assignment or an induction, `start <= v <
stop` stepping by `step` for a loop, a dtype's whole range where nothing constrains it), so
one growth step is a few numpy operations however many rows there are.

Growth goes depth first over slices of at most `CHUNK` rows, so the complete assignments come
out as a sequence of tables, lazily, in the order a depth-first enumeration would visit them
(names read but never bound first, as INDEX values, then the bindings): a caller that stops
at the first assignment breaking a goal never builds the rest.
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
CHUNK = 1 << 16  # rows per growth step: bounds the memory, and the work past a first counterexample

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
    """Per row, the values `range(start, stop, step)` one binding admits (`step` != 0)."""

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
) -> Enumeration:
    """Every admissible assignment of a binding list under one reading (iterating gives `{name: int}`).

    Names in `extra_names` or read by a binding without being bound are unconstrained INDEX
    values. Raises `OracleLimitExceeded` at once when a width exceeds 16 bits, and while
    enumerating once more than `limit` partial assignments (every row of every growth step)
    have been visited.
    """
    types = binding_types(bindings, index_bits)
    if max([index_bits, *(bits for bits, _ in types.own.values())]) > MAX_ORACLE_BITS:
        raise OracleLimitExceeded(f"the oracle enumerates widths up to {MAX_ORACLE_BITS} bits only")
    read = set(extra_names).union(*(free_names(parse(e)) for b in bindings for e in expressions(b)))
    steps: list[str | Binding] = [*sorted(read - set(types.own)), *bindings]
    lanes = None if target is None else ASCEND_TARGETS[target].max_block_count
    return Enumeration(steps, types, reading, limit, lanes)


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


class Enumeration:
    """The admissible assignments of one binding list under one reading, built as they are read."""

    def __init__(
        self,
        steps: Sequence[str | Binding],
        types: BindingTypes,
        reading: OracleReading,
        limit: int,
        lanes: int | None,
    ) -> None:
        self.steps = steps  # an unbound name (any INDEX value) or a binding, in enumeration order
        self.types, self.reading, self.limit, self.lanes = types, reading, limit, lanes
        self.by_name = {step.name: step for step in steps if not isinstance(step, str)}
        self.columns: dict[str, Column] = {}
        self.size = 1
        self.visited = 1

    def __iter__(self) -> Iterator[dict[str, int]]:
        return (row for table in self.tables() for row in table)

    def tables(self) -> Iterator[Assignments]:
        """Every admissible assignment, as consecutive tables of at most `CHUNK` rows (more only
        where a single partial assignment alone admits more values)."""
        self.columns, self.size, self.visited = {}, 1, 1
        return self._grow(0)

    def _grow(self, level: int) -> Iterator[Assignments]:
        if level == len(self.steps):
            yield Assignments(tuple(self.columns), self.columns, self.size)
            return
        step = self.steps[level]
        if isinstance(step, str):
            name, ranges = step, self.every(self.types.index, True)
        else:
            name, ranges = step.name, self.admitted(step)
        counts = np.maximum(0, -((ranges.start - ranges.stop) // ranges.step))
        ends = np.cumsum(counts)
        parent = self.columns
        first = 0
        while first < len(counts):
            before = int(ends[first - 1]) if first else 0
            last = max(first + 1, int(np.searchsorted(ends, before + CHUNK, side="right")))
            total = int(ends[last - 1]) - before
            if total:
                self._expand(name, parent, ranges, counts, first, last, total)
                yield from self._grow(level + 1)
            first = last

    def _expand(
        self,
        name: str,
        parent: Mapping[str, Column],
        ranges: _Ranges,
        counts: Column,
        first: int,
        last: int,
        total: int,
    ) -> None:
        """The table of rows `first:last` of `parent`, each repeated once per value it admits."""
        self.visited += total
        if self.visited > self.limit:
            raise OracleLimitExceeded(f"more than {self.limit} assignments to enumerate")
        span = counts[first:last]
        rows = first + np.repeat(np.arange(last - first), span)
        within = np.arange(total) - np.repeat(np.cumsum(span) - span, span)
        self.columns = {existing: column[rows] for existing, column in parent.items()}
        self.columns[name] = ranges.start[rows] + ranges.step[rows] * within
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

    def admitted(self, binding: Binding) -> _Ranges:
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
                ok = a & b & c & (stride != 0)  # `range` counts up or down; a zero step has no values
                return self._where(ok, self._ranges(first, end, np.where(ok, stride, 1)), every)
            case SpmdBinding(extent=extent):
                lanes_here, defined = self.value_of(extent, bits, signed)
                first_lane = np.zeros(self.size, dtype=np.int64)
                past_last = np.maximum(0, np.minimum(lanes_here, every.stop))
                return self._where(defined, self._ranges(first_lane, past_last), every)
            case InductionBinding(init=init, step=step, loop=loop):
                count, counted = self._iteration(self.by_name[loop])
                (first, a), (stride, b) = self.value_of(init, bits, signed), self.value_of(step, bits, signed)
                value = typed(first + stride * count, bits, signed).number
                return self._where(counted & a & b, self._ranges(value, value + 1), every)
            case BlockIdxBinding():
                return self.every(bits, signed, 0, None if self.lanes is None else self.lanes - 1)
            case BlockNumBinding():
                return self.every(bits, signed, 0, self.lanes)
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
        ok = a & b & (step != 0)
        return (self.columns[loop.name] - start) // np.where(ok, step, 1), ok

    @staticmethod
    def _where(condition: Column, chosen: _Ranges, otherwise: _Ranges) -> _Ranges:
        return _Ranges(
            np.where(condition, chosen.start, otherwise.start),
            np.where(condition, chosen.stop, otherwise.stop),
            np.where(condition, chosen.step, otherwise.step),
        )
