"""Exhaustive-enumeration oracle for `kernelcfg.resolve` on small kernels.

It shares no logic with the resolver: it reads the request itself, with its own literal
transcription of docs/design/kernel-config.md sections 2 (op semantics), 3 (requirements), 5 (policy)
and 6 (steps 2, 7, 8, 9), and imports only the protocol models and the target tables. It
then enumerates every assignment of strategies x DST width x unpack mode (per f32 DFB; the
setting is inert for other element types) and checks each requirement against the target
relations directly. Use it to check that a kernel resolves exactly when some assignment
exists, that a returned plan meets every requirement, and that its width and unpack list
are the ones steps 7 and 9 give for its strategies.

Op mnemonics outside section 2's table (the spec's "..." of unary ops) are beyond the
oracle: `enum_oracle` returns None and `refusal` says nothing for them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from planner.kernelcfg.protocol import (
    DfbOperand,
    KernelcfgResolveRequest,
    KernelConfigPlan,
    KernelOp,
    Operand,
    ScalarOperand,
    UnattachedOperand,
    UnfinalizedDfbOperand,
    ValueOperand,
)
from planner.targets.tenstorrent import (
    TT_DTYPES,
    WIDTHS,
    FullFp32Kind,
    KernelTargetEnvironment,
    Primitive,
    Route,
    TargetError,
    TtDtype,
    UnpackMode,
    build_target,
)

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
class Assignment:
    """One complete configuration: a strategy per choice op, a width, a mode per f32 DFB."""

    strategies: Mapping[str, str]
    width: int
    modes: Mapping[int, UnpackMode]


@dataclass(frozen=True)
class EnumOracle:
    """The requirements of one kernel, checkable against any assignment."""

    target: KernelTargetEnvironment
    fp32_dest_acc: str  # auto | enabled | disabled
    full_sync: bool
    explicit_unpack: frozenset[int] | None
    fixed: tuple[Need, ...]
    choices: Mapping[str, Mapping[str, tuple[Need, ...]]]  # op -> strategy -> its needs
    f32_dfbs: tuple[int, ...]
    prefer32: bool

    def need_ok(self, need: Need, width: int, modes: Mapping[int, UnpackMode]) -> bool:
        """Sections 4.3 and 4.4 for one requirement under one width and mode table."""
        if need.dfb is None:
            if width == 16 and need.elem.is_32bit:
                return False
            return self.target.supports_destination_width(need.primitive, need.elem, width)
        mode = modes.get(need.dfb, UnpackMode.DEFAULT) if need.elem.is_f32 else UnpackMode.DEFAULT
        if self.explicit_unpack is not None and need.elem.is_f32:
            configured = UnpackMode.UNPACK_TO_DEST if need.dfb in self.explicit_unpack else UnpackMode.DEFAULT
            if mode is not configured:
                return False
        return (width, mode) in self.target.supported_dfb_configurations(
            need.primitive, need.route, need.elem
        )

    def width_ok(self, width: int) -> bool:
        return {"enabled": width == 32, "disabled": width == 16}.get(self.fp32_dest_acc, True)

    def satisfies(self, assignment: Assignment) -> bool:
        """Every requirement, fixed and of the chosen options, holds under `assignment`."""
        if not self.width_ok(assignment.width) or set(assignment.strategies) != set(self.choices):
            return False
        needs = list(self.fixed)
        for op, options in self.choices.items():
            chosen = options.get(assignment.strategies[op])
            if chosen is None:
                return False
            needs.extend(chosen)
        return all(self.need_ok(need, assignment.width, assignment.modes) for need in needs)

    def assignments(self, strategies: Mapping[str, str] | None = None) -> Iterator[Assignment]:
        """Every assignment (or every one with the given strategies)."""
        ops = sorted(self.choices)
        strategy_sets = (
            [list(self.choices[op]) for op in ops] if strategies is None else [[strategies[op]] for op in ops]
        )
        for chosen in itertools.product(*strategy_sets):
            for width in WIDTHS:
                for modes in itertools.product(list(UnpackMode), repeat=len(self.f32_dfbs)):
                    yield Assignment(
                        dict(zip(ops, chosen, strict=True)),
                        width,
                        dict(zip(self.f32_dfbs, modes, strict=True)),
                    )

    def satisfiable(self) -> bool:
        return any(self.satisfies(a) for a in self.assignments())

    def plan_assignment(self, plan: KernelConfigPlan) -> Assignment:
        """The plan read as an assignment: listed f32 DFBs unpack to DST, the others default."""
        listed = set(plan.unpack_to_dest_fp32)
        modes = {d: UnpackMode.UNPACK_TO_DEST if d in listed else UnpackMode.DEFAULT for d in self.f32_dfbs}
        return Assignment(dict(plan.strategies), plan.dst_width, modes)

    def plan_satisfies(self, plan: KernelConfigPlan) -> bool:
        return self.satisfies(self.plan_assignment(plan))

    def settled(self, strategies: Mapping[str, str]) -> tuple[int, list[int], str] | None:
        """Steps 7-9 for fixed strategies: the width, the unpack list and the sync, or None if none fits.

        Width: 32 if (a supported full-fp32 preference or no 16-bit assignment) and a 32-bit
        assignment exists, else 16. Unpack: the explicit set verbatim, else the f32 DFBs whose
        mode is unpack-to-DST in the chosen width's assignment.
        """
        if set(strategies) != set(self.choices):
            return None
        fitting = [a for a in self.assignments(strategies) if self.satisfies(a)]
        widths = {a.width for a in fitting}
        if not widths:
            return None
        width = 32 if (self.prefer32 or 16 not in widths) and 32 in widths else 16
        if self.explicit_unpack is not None:
            unpack = sorted(self.explicit_unpack)
        else:
            chosen = [a for a in fitting if a.width == width]
            unpack = sorted(
                d for d in self.f32_dfbs if all(a.modes[d] is UnpackMode.UNPACK_TO_DEST for a in chosen)
            )
        return width, unpack, "full" if self.full_sync else "double_buffered"


@dataclass(frozen=True)
class Refusal:
    """A refusal before the search (target, policy, an op, a DFB index): its code and where."""

    code: str
    op: str | None = None
    operand: int | None = None


class _Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.code)
        self.refusal = refusal


class _BeyondOracle(Exception):
    """The request uses an op (or form) the oracle's table does not cover."""


def _refuse(code: str, op: str | None = None, operand: int | None = None) -> _Refused:
    return _Refused(Refusal(code, op, operand))


def _three_state(value: bool | str) -> str:
    if isinstance(value, bool):
        return "enabled" if value else "disabled"
    if value not in _THREE_STATE:
        raise _refuse("kcfg.policy_option_invalid")
    return _THREE_STATE[value]


class _Reader:
    """Section 3 over the request: operand elements, DFB resolution, the needs of each op."""

    def __init__(self, request: KernelcfgResolveRequest) -> None:
        self.dfbs = {spec.index: TT_DTYPES.get(spec.dtype) for spec in request.dfbs}
        self.ops = {op.id: op for op in request.ops}
        if len(self.dfbs) != len(request.dfbs) or len(self.ops) != len(request.ops):
            raise _BeyondOracle

    def result_elem(self, op: KernelOp, seen: frozenset[str] = frozenset()) -> TtDtype:
        """`result_dtype`, else the element of the first operand that is a tile."""
        if op.result_dtype is not None:
            return _known(TT_DTYPES.get(op.result_dtype))
        if op.id in seen:
            raise _BeyondOracle
        for operand in op.operands:
            if isinstance(operand, DfbOperand):
                return _known(self.dfbs.get(operand.dfb))
            if isinstance(operand, UnattachedOperand):
                return _known(TT_DTYPES.get(operand.unattached))
            if isinstance(operand, ValueOperand):
                return self.result_elem(self.producer(op, operand), seen | {op.id})
        raise _BeyondOracle

    def producer(self, op: KernelOp, operand: ValueOperand) -> KernelOp:
        producer = self.ops.get(operand.value)
        if producer is None or producer.id == op.id:
            raise _BeyondOracle
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
                raise _refuse("kcfg.operand_not_tile", op.id, number)
            if isinstance(operand, UnfinalizedDfbOperand):
                raise _refuse("kcfg.dfb_index_unfinalized", op.id, number)
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
        raise _BeyondOracle
    return dtype


def _choice_options(op: KernelOp, reader: _Reader) -> dict[str, tuple[Need, ...]]:
    """Section 2's explicit-attribute rules and section 3 step 3 for a strategy-dependent op."""
    if len(op.operands) != 2:
        raise _BeyondOracle
    explicit = op.explicit_strategy
    if explicit is not None and explicit not in _CHOICE_ROUTES:
        raise _refuse("kcfg.strategy_attr_malformed", op.id)
    fpu_legal = reader.result_elem(op).is_float and op.same_tile_coords
    legal = ["fpu", "sfpu"] if fpu_legal else ["sfpu"]
    if explicit is not None and explicit not in legal:
        raise _refuse("kcfg.strategy_explicit_illegal", op.id)
    options: dict[str, tuple[Need, ...]] = {}
    for strategy in legal:
        if explicit not in (None, strategy):
            continue
        try:
            operand_needs = reader.needs(op, _P.ELEMENTWISE_BINARY, _CHOICE_ROUTES[strategy])
        except _Unresolved as unresolved:
            if explicit is not None:
                raise _refuse("kcfg.strategy_explicit_dfb_unresolved", op.id, unresolved.operand) from None
            continue
        options[strategy] = operand_needs + reader.result_need(op, _P.ELEMENTWISE_BINARY, True)
    if not options:
        raise _refuse("kcfg.strategy_none_legal", op.id)
    return options


def _fixed_needs(op: KernelOp, row: _OpRow, reader: _Reader) -> tuple[Need, ...]:
    if op.explicit_strategy is not None:
        code = (
            "kcfg.strategy_attr_on_fixed_op"
            if op.explicit_strategy in _CHOICE_ROUTES
            else "kcfg.strategy_attr_malformed"
        )
        raise _refuse(code, op.id)
    try:
        needs = reader.needs(op, row.primitive, row.routes)
    except _Unresolved as unresolved:
        raise _refuse("kcfg.operand_dfb_unresolved", op.id, unresolved.operand) from None
    if op.op == "tile_row_normalization_block" and op.attrs.get("tiles", 1) == 0:
        raise _refuse("kcfg.dst_slots_invalid", op.id)
    return needs + reader.result_need(op, row.primitive, row.result_in_dst)


def _read(request: KernelcfgResolveRequest) -> EnumOracle:
    """Steps 1-2 (target, policy, requirements, DFB indices) in the spec's order of refusal."""
    desc = request.system_desc
    try:
        target = build_target(
            request.arch, *(() if desc is None else (desc.chip_archs, desc.device_chip_ids))
        )
    except TargetError as error:
        raise _refuse(error.code) from None
    policy = request.policy
    fp32 = _three_state(policy.fp32_dest_acc)
    sync = _three_state(policy.dst_full_sync)
    explicit = policy.unpack_to_dest_fp32
    if explicit is not None and any(not -(2**31) <= i < 2**31 for i in explicit):
        raise _refuse("kcfg.policy_unpack_attr_malformed")
    if explicit is not None and any(not 0 <= i < target.dfb_capacity for i in explicit):
        raise _refuse("kcfg.policy_unpack_index_out_of_range")
    reader = _Reader(request)
    fixed: list[Need] = []
    choices: dict[str, dict[str, tuple[Need, ...]]] = {}
    preferences: list[FullFp32Kind] = []
    for op in request.ops:
        if op.op in _STRATEGY_BINARY:
            choices[op.id] = _choice_options(op, reader)
            continue
        row = _row(op)
        if row is None:
            raise _BeyondOracle
        fixed.extend(_fixed_needs(op, row, reader))
        if row.full_fp32 is not None:
            preferences.append(row.full_fp32)
    everything = fixed + [n for options in choices.values() for needs in options.values() for n in needs]
    by_walk = {op.id: walk for walk, op in enumerate(request.ops)}
    for need in sorted(everything, key=lambda n: by_walk[n.op]):
        if need.dfb is not None and need.dfb >= target.dfb_capacity:
            raise _refuse("kcfg.dfb_index_out_of_range", need.op, need.operand)
    if not policy.fpu_binary:
        choices = {op: {s: n for s, n in options.items() if s != "fpu"} for op, options in choices.items()}
    knobs = {FullFp32Kind.MATMUL: policy.matmul_full_fp32}
    prefer32 = any(
        knobs.get(kind, policy.reduce_full_fp32) and target.full_fp32_support(kind).supported
        for kind in preferences
    )
    f32 = sorted({n.dfb for n in everything if n.dfb is not None and n.elem.is_f32})
    return EnumOracle(
        target,
        fp32,
        sync == "enabled",
        None if explicit is None else frozenset(explicit),
        tuple(fixed),
        choices,
        tuple(f32),
        prefer32,
    )


def enum_oracle(request: KernelcfgResolveRequest) -> EnumOracle | None:
    """The oracle for `request`, or None when it is refused before the search or beyond the oracle."""
    try:
        return _read(request)
    except (_Refused, _BeyondOracle):
        return None


def refusal(request: KernelcfgResolveRequest) -> Refusal | None:
    """Why `request` is refused before the search (first refusal in spec order), if it is."""
    try:
        _read(request)
    except _Refused as refused:
        return refused.refusal
    except _BeyondOracle:
        return None
    return None
