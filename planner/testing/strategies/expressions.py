"""Hypothesis strategies for offset expressions, binding lists and `proofs.check` requests.

The pieces compose: `expressions(names)` draws offsets over given names, `binding_lists(bits)`
draws an ordered, well-formed binding list whose names later draws may use, and
`proof_requests()` puts both into a `ProofsCheckRequest`. With `exhaustive=True` (the
default) every drawn request stays small enough to enumerate with
`planner.testing.oracles.arith`: widths of at most 16 bits and at most `MAX_ASSIGNMENTS`
admissible assignments by construction. Example::

    @given(proof_requests(widths=(8,)))
    def test_prover_agrees(request): ...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from hypothesis import strategies as st

from planner.proofs.expr import BinOp, Const, Expr, MinMaxCall, Name, Neg, parse_expr, to_json_value
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

SMALL_WIDTHS = (8, 16)
ALL_WIDTHS = (8, 16, 32, 64)
MAX_ASSIGNMENTS = 1 << 12  # product of per-binding domain sizes in exhaustive mode
FREE_NAME_MAX_BITS = 8  # an unbound name multiplies the assignments by 2**bits
FACTORS = (1, 2, 16, 32, 64)

__all__ = [
    "ALL_WIDTHS",
    "FACTORS",
    "MAX_ASSIGNMENTS",
    "SMALL_WIDTHS",
    "binding_lists",
    "constants",
    "expressions",
    "proof_requests",
]


@cache
def constants(bits: int) -> st.SearchStrategy[int]:
    """Small ints, tile-sized multiples and the edges of the signed `bits`-wide range."""
    top = 1 << (bits - 1)
    return st.one_of(
        st.integers(-4, 40),
        st.integers(-8, 16).map(lambda k: 16 * k),
        st.integers(0, bits - 1).map(lambda shift: 1 << shift),
        st.sampled_from((top - 1, -top, top - 16)),
    )


@cache  # building a recursive strategy is costly; draws from one are cheap
def _trees(names: tuple[str, ...], bits: int, max_leaves: int) -> st.SearchStrategy[Expr]:
    leaves: st.SearchStrategy[Expr] = constants(bits).map(Const)
    if names:
        leaves = st.sampled_from(names).map(Name) | leaves
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.builds(BinOp, st.sampled_from(("+", "-", "*", "//", "%")), inner, inner),
            st.builds(MinMaxCall, st.sampled_from(("min", "max")), inner, inner),
            inner.map(Neg),
        ),
        max_leaves=max_leaves,
    )


def expressions(names: Sequence[str], *, bits: int = 16, max_leaves: int = 6) -> st.SearchStrategy[int | str]:
    """Offsets in protocol spelling (an int, or expression text) over `names` and constants."""
    return _texts(tuple(names), bits, max_leaves)


@cache
def _texts(names: tuple[str, ...], bits: int, max_leaves: int) -> st.SearchStrategy[int | str]:
    return _trees(names, bits, max_leaves).map(to_json_value)


@dataclass(frozen=True, slots=True)
class _Drawn:
    binding: Binding
    domain: int  # an upper bound on how many values the binding admits


def _domain_of_assign(expr: int | str, bits: int) -> int:
    """One value, unless the expression divides (by zero, the name is unconstrained)."""
    return 1 << bits if isinstance(expr, str) and ("//" in expr or "%" in expr) else 1


def _domain_of_range(
    start: int | str, stop: int | str, step: int | str, bits: int, index_bits: int, signed: bool
) -> int:
    """Values a loop admits. Its bounds are literals, INDEX values cast to the loop's dtype, so a
    step of 256 at an 8-bit index is 0 and leaves the loop unconstrained."""
    if not (isinstance(start, int) and isinstance(stop, int) and isinstance(step, int)):
        return 1 << bits
    first, end, stride = (_literal_as(value, bits, index_bits, signed) for value in (start, stop, step))
    return max(-((first - end) // stride), 1) if stride != 0 else 1 << bits


def _counts_iterations(loop: Binding, index_bits: int) -> bool:
    """Whether a loop's current value gives an iteration number: an SPMD lane does, a `for` only
    with a literal non-zero step (a step the oracle may read as 0 leaves it unconstrained)."""
    if not isinstance(loop, ForBinding):
        return True
    own = index_bits if loop.bits is None else loop.bits
    return isinstance(loop.step, int) and _literal_as(loop.step, own, index_bits, loop.is_signed) != 0


def _literal_as(value: int, bits: int, index_bits: int, signed: bool) -> int:
    """An int literal as a `bits`-wide binding reads it: wrapped at the index width, then cast."""
    top = 1 << (index_bits - 1)
    as_index = (value + top) % (1 << index_bits) - top
    pattern = as_index % (1 << bits)
    return pattern - (1 << bits) if signed and pattern >= 1 << (bits - 1) else pattern


def _declared(value: int | str, bits: int, signed: bool) -> int | str:
    """A declared field (loop bound, extent) clamped into its binding's dtype: out of it is a bad request."""
    expr = parse_expr(value)
    return _clamp(expr.value, bits, signed) if isinstance(expr, Const) else value


def _clamp(value: int, bits: int, signed: bool) -> int:
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return min(max(value, low), high)


_KINDS = st.sampled_from(
    ("assign", "for", "for", "spmd", "block_idx", "block_num", "iter_arg", "param", "induction", "induction")
)
_SIGNED = st.integers(0, 3).map(lambda n: n != 0)  # one binding in four is unsigned
_WIDTH_OVERRIDES = st.sampled_from((None, None, None, *SMALL_WIDTHS))
_LOOP_STARTS = st.integers(-8, 32)
_LOOP_STEPS = st.sampled_from((1, 2, 8, 16, 32, 256, -1, -16, -256))
_TRIP_COUNTS = st.integers(0, 16)
_EXTENTS = st.integers(0, 16)
_PARAM_LOWS = st.none() | st.integers(-40, 40)
_PARAM_HIGHS = st.none() | st.integers(-40, 80)
_SYMBOLIC = st.integers(0, 3).map(lambda n: n == 0)  # one operand in four reads earlier names


def _operand(draw: st.DrawFn, fixed: st.SearchStrategy[int], earlier: Sequence[str], bits: int) -> int | str:
    """Mostly a constant from `fixed`; sometimes an expression over earlier names."""
    if draw(_SYMBOLIC) and earlier:
        return draw(expressions(earlier, bits=bits, max_leaves=3))
    return draw(fixed)


@st.composite
def _binding(draw: st.DrawFn, name: str, earlier: Sequence[Binding], bits: int, target: str | None) -> _Drawn:
    width = draw(_WIDTH_OVERRIDES)
    signed = draw(_SIGNED)
    own = bits if width is None else width
    kind = draw(_KINDS)
    lanes = ASCEND_TARGETS[target].max_block_count if target else 1 << own
    names = [b.name for b in earlier]
    loops = [b.name for b in earlier if isinstance(b, ForBinding | SpmdBinding)]
    typed = {"bits": width, "signed": signed}
    if kind == "assign" or (kind == "induction" and not loops):
        expr = _operand(draw, constants(own), names, own)
        return _Drawn(AssignBinding(name=name, expr=expr, **typed), _domain_of_assign(expr, own))
    if kind == "induction":
        init = _operand(draw, constants(own), names, own)
        step = _operand(draw, _LOOP_STEPS | st.integers(-16, 16), names, own)
        loop = draw(st.sampled_from(loops))
        domain = max(_domain_of_assign(init, own), _domain_of_assign(step, own))
        if not _counts_iterations(next(b for b in earlier if b.name == loop), bits):
            domain = 1 << own  # the loop's value is unconstrained, and so is the induction
        return _Drawn(InductionBinding(name=name, init=init, step=step, loop=loop, **typed), domain)
    if kind == "for":
        start = _declared(_operand(draw, _LOOP_STARTS, names, own), own, signed)
        step = _declared(_operand(draw, _LOOP_STEPS, names, own), own, signed)
        if isinstance(step, int) and step == 0:  # a literal step of 0 is a bad request, not a loop
            step = 1
        trips = draw(_TRIP_COUNTS)
        stop = start + trips * step if isinstance(start, int) and isinstance(step, int) else 64
        stop_or_symbolic = _declared(_operand(draw, st.just(stop), names, own), own, signed)
        return _Drawn(
            ForBinding(name=name, start=start, stop=stop_or_symbolic, step=step, **typed),
            _domain_of_range(start, stop_or_symbolic, step, own, bits, signed),
        )
    if kind == "spmd":
        extent = _declared(_operand(draw, _EXTENTS, names, own), own, signed)
        return _Drawn(
            SpmdBinding(name=name, extent=extent, **typed),
            max(extent, 1) if isinstance(extent, int) else 1 << own,
        )
    if kind == "block_idx":
        return _Drawn(BlockIdxBinding(name=name, **typed), min(lanes, 1 << own))
    if kind == "block_num":
        return _Drawn(BlockNumBinding(name=name, **typed), min(lanes + 1, 1 << own))
    if kind == "iter_arg":
        return _Drawn(IterArgBinding(name=name, **typed), 1 << own)
    low, high = draw(_PARAM_LOWS), draw(_PARAM_HIGHS)
    low = None if low is None else _clamp(low, own, signed)
    high = None if high is None else _clamp(high, own, signed)
    span = (1 << own) if low is None or high is None else max(high - low + 1, 1)
    return _Drawn(ParamBinding(name=name, min=low, max=high, **typed), span)


@st.composite
def binding_lists(
    draw: st.DrawFn,
    bits: int,
    *,
    max_size: int = 4,
    target: str | None = None,
    exhaustive: bool = True,
    prefix: str = "v",
    max_assignments: int = MAX_ASSIGNMENTS,
) -> list[Binding]:
    """An ordered binding list `v0, v1, ...` whose expressions read only earlier names.

    Every kind appears: assignments, loops (constant or symbolic bounds, occasionally a
    symbolic step), SPMD lanes, block index/count, iter-args, inductions over earlier loops and
    ranged or open params. Some bindings carry their own width, one in four is unsigned. With
    `exhaustive`, a binding that would push the number of admissible assignments past
    `max_assignments` is replaced by an assignment.
    """
    size = draw(st.integers(0, max_size))
    chosen: list[Binding] = []
    budget = max_assignments
    for index in range(size):
        name = f"{prefix}{index}"
        drawn = draw(_binding(name, chosen, bits, target))
        if exhaustive and drawn.domain > budget:
            drawn = _Drawn(AssignBinding(name=name, expr=draw(constants(bits))), 1)
        budget //= drawn.domain
        chosen.append(drawn.binding)
    return chosen


@st.composite
def proof_requests(
    draw: st.DrawFn,
    *,
    widths: Sequence[int] = SMALL_WIDTHS,
    max_bindings: int = 4,
    exhaustive: bool = True,
    max_leaves: int = 6,
    free_name_bits: int = FREE_NAME_MAX_BITS,
) -> ProofsCheckRequest:
    """A complete `proofs.check` request: width, target, bindings, offset, factor, goals and division.

    The offset reads the bound names and, sometimes, one unbound name `u` (at most
    `free_name_bits` wide in exhaustive mode; with `free_name_bits=16` at 16 bits, `u` comes
    first and the bindings share what is left of the budget). Use `widths=(8, 16)` (the
    default) with `exhaustive=True` for oracle checks, or `ALL_WIDTHS` with
    `exhaustive=False` for prover-only runs.
    """
    bits = draw(st.sampled_from(tuple(widths)))
    target = draw(st.sampled_from((None, *sorted(ASCEND_TARGETS))))
    free_name = draw(st.booleans()) and (bits <= free_name_bits or not exhaustive)
    budget = max(MAX_ASSIGNMENTS >> bits, 4) if free_name else MAX_ASSIGNMENTS
    lists = binding_lists(
        bits, max_size=max_bindings, target=target, exhaustive=exhaustive, max_assignments=budget
    )
    bindings = draw(lists)
    names = [b.name for b in bindings] + (["u"] if free_name else [])
    expr = draw(expressions(names, bits=bits, max_leaves=max_leaves))
    factor = draw(st.sampled_from(FACTORS))
    goals = draw(st.sampled_from((["multiple_of", "non_negative"], ["multiple_of"], ["non_negative"])))
    division = draw(st.sampled_from(("floor", "trunc", "either")))
    return ProofsCheckRequest(
        expr=expr, bindings=bindings, bits=bits, factor=factor, goals=goals, target=target, division=division
    )
