"""The enumeration oracle's reading of a request (docs/design/kernel-config.md sections 2, 3, 5).

Its own literal transcription of section 2's op table and section 3's requirement rules,
sharing nothing with the resolver: each op becomes needs (a DST element or a DFB read) and
each strategy-dependent op one tuple of needs per legal strategy; an op holding several DST
slots at once (row normalization's `tiles`) also states that count. A request the spec
refuses before the search raises `Refused`; one beyond the table raises `BeyondOracle`.
Imports only the protocol models and the target tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planner.kernelcfg.protocol import (
    DfbOperand,
    KernelcfgResolveRequest,
    KernelOp,
    Operand,
    ScalarOperand,
    UnattachedOperand,
    UnfinalizedDfbOperand,
    ValueOperand,
)
from planner.targets.tenstorrent import TT_DTYPES, FullFp32Kind, Primitive, Route, TtDtype

_P = Primitive
_DFB, _DST, _NONE = Route.DFB, Route.DST, Route.NONE
_DST_IF_PRODUCED = "dst if produced"  # tile_accumulate op1: Dst when a tile op made it, else DFB


@dataclass(frozen=True)
class _OpRow:
    """One row of section 2's table: primitive, operand routes, result in DST, full-fp32 kind."""

    primitive: Primitive
    routes: tuple[Route | str, ...]
    result_in_dst: bool = True
    full_fp32: FullFp32Kind | None = None


_UNARY = _OpRow(_P.ELEMENTWISE_UNARY, (_DST,))
_STRATEGY_BINARY = ("tile_add", "tile_sub", "tile_mul")
_CHOICE_ROUTES = {"fpu": (_DFB, _DFB), "sfpu": (_DST, _DST)}
_FIXED: dict[str, _OpRow] = {
    "tile_max": _OpRow(_P.ELEMENTWISE_BINARY, (_DST, _DST)),
    "tile_min": _OpRow(_P.ELEMENTWISE_BINARY, (_DST, _DST)),
    **{
        f"tile_{name}": _UNARY
        for name in ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "neg", "abs", "relu", "typecast")
    },
    "copy_tile": _OpRow(_P.COPY, (_DFB,)),
    "copy_dst": _OpRow(_P.COPY, (_DST,)),
    "dst_index": _OpRow(_P.DST_INDEX, (), result_in_dst=False),
    "tile_store": _OpRow(_P.STORE, (_DST,), result_in_dst=False),
    "tile_transpose": _OpRow(_P.TRANSPOSE, (_DFB,)),
    "tile_fill": _OpRow(_P.FILL, ()),
    "tile_matmul_block": _OpRow(_P.MATMUL, (_DFB, _DFB, _DST), full_fp32=FullFp32Kind.MATMUL),
    "tile_accumulate": _OpRow(_P.ELEMENTWISE_BINARY, (_DST, _DST_IF_PRODUCED)),
}
_BCAST = {"col": _P.BROADCAST_COLUMN, "row": _P.BROADCAST_ROW, "scalar": _P.BROADCAST_SCALAR}
_BCAST_NUMBERS = {"1": "col", "2": "row", "3": "scalar"}
_REDUCE = {
    "row": FullFp32Kind.REDUCE_ROW,
    "col": FullFp32Kind.REDUCE_COLUMN,
    "scalar": FullFp32Kind.REDUCE_SCALAR,
}
_THREE_STATE = {
    "auto": "auto",
    "enabled": "enabled",
    "true": "enabled",
    "1": "enabled",
    "disabled": "disabled",
    "false": "disabled",
    "0": "disabled",
}


def _row(op: KernelOp) -> _OpRow | None:
    """The fixed op's row; broadcast, reduce and row normalization read their attribute."""
    if op.op == "tile_bcast":
        kind = str(op.attrs.get("kind"))
        primitive = _BCAST.get(_BCAST_NUMBERS.get(kind, kind))
        return None if primitive is None else _OpRow(primitive, (_DFB, _NONE))
    if op.op == "tile_reduce":
        reduce_kind = _REDUCE.get(str(op.attrs.get("dim")))
        return None if reduce_kind is None else _OpRow(_P.REDUCE, (_DFB, _DFB, _NONE), full_fp32=reduce_kind)
    if op.op == "tile_row_normalization_block":
        gamma = str(op.attrs.get("gamma", "true")) == "true"
        return _OpRow(_P.REDUCE, (_DFB, _DFB if gamma else _NONE, _NONE))
    return _FIXED.get(op.op)


@dataclass(frozen=True)
class Need:
    """One requirement: a DST element (`dfb` None) or a DFB read, of one op."""

    op: str
    operand: int | None  # None: the op's result
    dfb: int | None
    primitive: Primitive
    route: Route
    elem: TtDtype


@dataclass(frozen=True)
class Refusal:
    """A refusal before the search (target, policy, an op, a DFB index): its code and where."""

    code: str
    op: str | None = None
    operand: int | None = None


class Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.code)
        self.refusal = refusal


class BeyondOracle(Exception):
    """The request uses an op (or form) the oracle's table does not cover."""


def refuse(code: str, op: str | None = None, operand: int | None = None) -> Refused:
    return Refused(Refusal(code, op, operand))


def three_state(value: bool | str) -> str:
    if isinstance(value, bool):
        return "enabled" if value else "disabled"
    if value not in _THREE_STATE:
        raise refuse("kcfg.policy_option_invalid")
    return _THREE_STATE[value]


class _Reader:
    """Section 3 over the request: operand elements, DFB resolution, the needs of each op."""

    def __init__(self, request: KernelcfgResolveRequest) -> None:
        self.dfbs = {spec.index: TT_DTYPES.get(spec.dtype) for spec in request.dfbs}
        self.ops = {op.id: op for op in request.ops}
        if len(self.dfbs) != len(request.dfbs) or len(self.ops) != len(request.ops):
            raise BeyondOracle

    def result_elem(self, op: KernelOp, seen: frozenset[str] = frozenset()) -> TtDtype:
        """`result_dtype`, else the element of the first operand that is a tile."""
        if op.result_dtype is not None:
            return _known(TT_DTYPES.get(op.result_dtype))
        if op.id in seen:
            raise BeyondOracle
        for operand in op.operands:
            if isinstance(operand, DfbOperand):
                return _known(self.dfbs.get(operand.dfb))
            if isinstance(operand, UnattachedOperand):
                return _known(TT_DTYPES.get(operand.unattached))
            if isinstance(operand, ValueOperand):
                return self.result_elem(self.producer(op, operand), seen | {op.id})
        raise BeyondOracle

    def producer(self, op: KernelOp, operand: ValueOperand) -> KernelOp:
        producer = self.ops.get(operand.value)
        if producer is None or producer.id == op.id:
            raise BeyondOracle
        return producer

    def needs(self, op: KernelOp, primitive: Primitive, routes: Sequence[Route | str]) -> tuple[Need, ...]:
        """Steps 1-4 for each routed operand; raises `_Unresolved` for a DFB route with no DFB."""
        found: list[Need] = []
        for number, operand in enumerate(op.operands):
            route = routes[number] if number < len(routes) else _NONE
            if route is _NONE:
                continue
            if isinstance(operand, ScalarOperand) or (
                isinstance(operand, UnattachedOperand) and operand.unattached not in TT_DTYPES
            ):
                raise refuse("kcfg.operand_not_tile", op.id, number)
            if isinstance(operand, UnfinalizedDfbOperand):
                raise refuse("kcfg.dfb_index_unfinalized", op.id, number)
            if route == _DST_IF_PRODUCED:
                route = _DST if isinstance(operand, ValueOperand) else _DFB
            assert isinstance(route, Route)
            if isinstance(operand, DfbOperand):
                found.append(
                    Need(op.id, number, operand.dfb, primitive, route, _known(self.dfbs.get(operand.dfb)))
                )
            elif route is _DFB:
                raise _Unresolved(number)
            if route is _DST:
                found.append(Need(op.id, number, None, primitive, _DST, self.operand_elem(op, operand)))
        return tuple(found)

    def operand_elem(self, op: KernelOp, operand: Operand) -> TtDtype:
        if isinstance(operand, DfbOperand):
            return _known(self.dfbs.get(operand.dfb))
        if isinstance(operand, ValueOperand):
            return self.result_elem(self.producer(op, operand))
        assert isinstance(operand, UnattachedOperand)
        return _known(TT_DTYPES.get(operand.unattached))

    def result_need(self, op: KernelOp, primitive: Primitive, in_dst: bool) -> tuple[Need, ...]:
        return (Need(op.id, None, None, primitive, _DST, self.result_elem(op)),) if in_dst else ()


class _Unresolved(Exception):
    def __init__(self, operand: int) -> None:
        super().__init__(operand)
        self.operand = operand


def _known(dtype: TtDtype | None) -> TtDtype:
    if dtype is None:
        raise BeyondOracle
    return dtype


def _choice_options(op: KernelOp, reader: _Reader) -> dict[str, tuple[Need, ...]]:
    """Section 2's explicit-attribute rules and section 3 step 3 for a strategy-dependent op."""
    if len(op.operands) != 2:
        raise BeyondOracle
    explicit = op.explicit_strategy
    if explicit is not None and explicit not in _CHOICE_ROUTES:
        raise refuse("kcfg.strategy_attr_malformed", op.id)
    fpu_legal = reader.result_elem(op).is_float and op.same_tile_coords
    legal = ["fpu", "sfpu"] if fpu_legal else ["sfpu"]
    if explicit is not None and explicit not in legal:
        raise refuse("kcfg.strategy_explicit_illegal", op.id)
    options: dict[str, tuple[Need, ...]] = {}
    for strategy in legal:
        if explicit not in (None, strategy):
            continue
        try:
            operand_needs = reader.needs(op, _P.ELEMENTWISE_BINARY, _CHOICE_ROUTES[strategy])
        except _Unresolved as unresolved:
            if explicit is not None:
                raise refuse("kcfg.strategy_explicit_dfb_unresolved", op.id, unresolved.operand) from None
            continue
        options[strategy] = operand_needs + reader.result_need(op, _P.ELEMENTWISE_BINARY, True)
    if not options:
        raise refuse("kcfg.strategy_none_legal", op.id)
    return options


def _fixed_needs(op: KernelOp, row: _OpRow, reader: _Reader) -> tuple[Need, ...]:
    if op.explicit_strategy is not None:
        code = (
            "kcfg.strategy_attr_on_fixed_op"
            if op.explicit_strategy in _CHOICE_ROUTES
            else "kcfg.strategy_attr_malformed"
        )
        raise refuse(code, op.id)
    try:
        needs = reader.needs(op, row.primitive, row.routes)
    except _Unresolved as unresolved:
        raise refuse("kcfg.operand_dfb_unresolved", op.id, unresolved.operand) from None
    if op.op == "tile_row_normalization_block" and _slots(op) == 0:
        raise refuse("kcfg.dst_slots_invalid", op.id)
    return needs + reader.result_need(op, row.primitive, row.result_in_dst)


def _slots(op: KernelOp) -> int:
    """The DST slots a row normalization holds at once (`attrs.tiles`, default 1)."""
    tiles = op.attrs.get("tiles", 1)
    if not isinstance(tiles, int) or isinstance(tiles, bool) or tiles < 0:
        raise BeyondOracle
    return tiles


@dataclass(frozen=True)
class KernelNeeds:
    """A kernel's needs: fixed ones, each choice op's per strategy, the full-fp32 kinds its
    fixed ops could prefer, and the DST slots the hungriest op holds at once (0: none stated)."""

    fixed: list[Need]
    choices: dict[str, dict[str, tuple[Need, ...]]]
    preferences: list[FullFp32Kind]
    slots: int


def kernel_needs(request: KernelcfgResolveRequest) -> KernelNeeds:
    """Section 3 over every op in walk order; the first op refusal wins."""
    reader = _Reader(request)
    fixed: list[Need] = []
    choices: dict[str, dict[str, tuple[Need, ...]]] = {}
    preferences: list[FullFp32Kind] = []
    slots = 0
    for op in request.ops:
        if op.op in _STRATEGY_BINARY:
            choices[op.id] = _choice_options(op, reader)
            continue
        row = _row(op)
        if row is None:
            raise BeyondOracle
        fixed.extend(_fixed_needs(op, row, reader))
        if row.full_fp32 is not None:
            preferences.append(row.full_fp32)
        if op.op == "tile_row_normalization_block":
            slots = max(slots, _slots(op))
    return KernelNeeds(fixed, choices, preferences, slots)
