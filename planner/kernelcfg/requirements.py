"""`KernelRequirements`: per-op uses collected from the request (docs/design/kernel-config.md section 3).

Fixed ops contribute uses at once; each strategy-dependent op keeps every legal option with
its complete uses. Every use names its op and operand. No architecture checks happen here
(the DFB-index range check is the resolver's step 2).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from planner.errors import RequestError
from planner.kernelcfg.codes import (
    DFB_INDEX_UNFINALIZED,
    DST_SLOTS_INVALID,
    OPERAND_DFB_UNRESOLVED,
    STRATEGY_ATTR_MALFORMED,
    STRATEGY_ATTR_ON_FIXED_OP,
    STRATEGY_EXPLICIT_DFB_UNRESOLVED,
    STRATEGY_EXPLICIT_ILLEGAL,
    STRATEGY_NONE_LEGAL,
    STRATEGY_SEMANTICS_MISSING,
    KcfgError,
    op_message,
)
from planner.kernelcfg.operands import OperandResolver, Tile
from planner.kernelcfg.protocol import (
    KernelcfgResolveRequest,
    KernelOp,
)
from planner.kernelcfg.semantics import (
    DST_IF_PRODUCED,
    OpSemantics,
    RouteSpec,
    Strategy,
    StrategyOption,
    semantics_for,
)
from planner.targets.tenstorrent import FullFp32Kind, Primitive, Route, TtDtype


# Uses, batches and choices are values: nothing changes one after it is built. They are not
# frozen dataclasses only because those take about three times as long to build, and a kernel's
# requirements are tens of thousands of them.
@dataclass(slots=True, unsafe_hash=True)
class DestinationUse:
    """A DST element of `elem` produced or consumed by `primitive` (operand None: the result)."""

    op: str
    mnemonic: str
    operand: int | None
    primitive: Primitive
    elem: TtDtype


@dataclass(slots=True, unsafe_hash=True)
class DFBInputUse:
    """Operand `operand` of the op reads DFB `dfb` through `route`."""

    op: str
    mnemonic: str
    operand: int
    dfb: int
    primitive: Primitive
    route: Route
    elem: TtDtype


@dataclass(slots=True, unsafe_hash=True)
class SlotUse:
    """The op holds `slots` DST slots (tiles) at once (section 2, `slots_attr`)."""

    op: str
    mnemonic: str
    slots: int


@dataclass(slots=True, unsafe_hash=True)
class UseBatch:
    """Uses applied together (6.4): destination uses, then DFB uses, then slot demands, each in
    collection order."""

    destination: tuple[DestinationUse, ...] = ()
    dfb: tuple[DFBInputUse, ...] = ()
    slots: tuple[SlotUse, ...] = ()

    def __add__(self, other: UseBatch) -> UseBatch:
        return UseBatch(self.destination + other.destination, self.dfb + other.dfb, self.slots + other.slots)


_NO_USES = UseBatch()


@dataclass(slots=True, unsafe_hash=True)
class ChoiceOption:
    strategy: Strategy
    uses: UseBatch


@dataclass(slots=True, unsafe_hash=True)
class Choice:
    """A strategy-dependent op: its legal options (FPU first once the resolver sorts them)."""

    op: str
    mnemonic: str
    walk: int
    options: tuple[ChoiceOption, ...]
    explicit: Strategy | None


@dataclass(frozen=True, slots=True)
class Fp32Use:
    """A fixed reduce/matmul op whose full-fp32 accumulation is configurable."""

    op: str
    kind: FullFp32Kind


@dataclass(frozen=True, slots=True)
class KernelRequirements:
    fixed: UseBatch
    choices: tuple[Choice, ...]
    fp32_uses: tuple[Fp32Use, ...]
    walk_order: tuple[str, ...] = ()  # every op id, in walk order

    def highest_dfb(self) -> int:
        """The highest DFB index any use, fixed or optional, reads (-1: none)."""
        fixed = max((use.dfb for use in self.fixed.dfb), default=-1)
        options = (option for choice in self.choices for option in choice.options)
        return max(fixed, max((use.dfb for option in options for use in option.uses.dfb), default=-1))

    def all_dfb_uses(self) -> Iterator[DFBInputUse]:
        """Every DFB use, fixed and optional, op by op in walk order (for the range check)."""
        by_op: dict[str, list[DFBInputUse]] = {op: [] for op in self.walk_order}
        for use in self.fixed.dfb:
            by_op.setdefault(use.op, []).append(use)
        for choice in self.choices:
            for option in choice.options:
                by_op.setdefault(choice.op, []).extend(option.uses.dfb)
        for uses in by_op.values():
            yield from uses


def _route(spec: RouteSpec, tile: Tile) -> Route:
    if spec == DST_IF_PRODUCED:
        return Route.DST if tile.produced else Route.DFB
    assert isinstance(spec, Route)
    return spec


class _Unresolved(Exception):
    """A DFB-routed operand that does not resolve (fatal for fixed ops, drops a choice option)."""

    def __init__(self, operand: int) -> None:
        super().__init__(operand)
        self.operand = operand


def _operand_uses(
    op: KernelOp,
    primitive: Primitive,
    routes: tuple[RouteSpec, ...],
    collector: OperandResolver,
    tiles: dict[int, Tile],
    result: UseBatch,
) -> UseBatch:
    """Section 3 steps 1-4 for each routed operand, then the `result` uses (and slot demands);
    `tiles` keeps the op's operands resolved so far (operands past `routes` route nowhere)."""
    destination: list[DestinationUse] = []
    dfb: list[DFBInputUse] = []
    for number, (spec, operand) in enumerate(zip(routes, op.operands, strict=False)):
        if spec is Route.NONE:
            continue
        tile = tiles.get(number)
        if tile is None:
            tile = tiles[number] = collector.tile(op, number, operand)
        if tile.unfinalized:
            raise KcfgError(
                DFB_INDEX_UNFINALIZED,
                op_message(op.op, "uses a dataflow buffer without a finalized index"),
                "op",
                op.id,
                number,
            )
        route = _route(spec, tile)
        if tile.dfb is not None:
            dfb.append(DFBInputUse(op.id, op.op, number, tile.dfb, primitive, route, tile.elem))
        elif route is Route.DFB:
            raise _Unresolved(number)
        if route is Route.DST:
            destination.append(DestinationUse(op.id, op.op, number, primitive, tile.elem))
    destination.extend(result.destination)
    dfb.extend(result.dfb)
    return UseBatch(tuple(destination), tuple(dfb), result.slots)


def _result_uses(
    op: KernelOp, semantics: OpSemantics, collector: OperandResolver, slots: tuple[SlotUse, ...] = ()
) -> UseBatch:
    """The result's DST use (if the result lives in DST) and the op's slot demands."""
    if not semantics.result_in_dst:
        return UseBatch(slots=slots) if slots else _NO_USES
    use = DestinationUse(op.id, op.op, None, semantics.primitive, collector.result_elem(op))
    return UseBatch((use,), (), slots)


def _explicit_strategy(op: KernelOp, semantics: OpSemantics) -> Strategy | None:
    """Section 2's explicit-attribute rules that do not depend on the operands."""
    if op.explicit_strategy is None:
        return None
    try:
        explicit = Strategy(op.explicit_strategy)
    except ValueError:
        raise KcfgError(
            STRATEGY_ATTR_MALFORMED,
            op_message(op.op, "ttl.tile_execution_strategy must be a #ttl.tile_execution_strategy attribute"),
            "op",
            op.id,
        ) from None
    if not semantics.is_choice:
        raise KcfgError(
            STRATEGY_ATTR_ON_FIXED_OP,
            op_message(
                op.op,
                "ttl.tile_execution_strategy is only valid on tile operations "
                "with execution-strategy alternatives",
            ),
            "op",
            op.id,
        )
    return explicit


_STRATEGY_ORDER = tuple(Strategy)  # FPU first
_ANY_STRATEGY = frozenset(Strategy)
_SFPU_ONLY = frozenset({Strategy.SFPU})


def _legal_strategies(op: KernelOp, collector: OperandResolver) -> frozenset[Strategy]:
    """FPU is legal only for a float result over operands addressing the same tile."""
    if collector.result_elem(op).is_float and op.same_tile_coords:
        return _ANY_STRATEGY
    return _SFPU_ONLY


def _legal_options(op: KernelOp, semantics: OpSemantics, legal: frozenset[Strategy]) -> list[StrategyOption]:
    """The semantics of every legal strategy, FPU first; a legal strategy must have semantics."""
    by_strategy = semantics.by_strategy
    options = []
    for strategy in (s for s in _STRATEGY_ORDER if s in legal):
        if strategy not in by_strategy:
            text = "has no semantics for a legal tile strategy"
            raise KcfgError(STRATEGY_SEMANTICS_MISSING, op_message(op.op, text), "op", op.id)
        options.append(by_strategy[strategy])
    return options


def _choice(op: KernelOp, walk: int, semantics: OpSemantics, collector: OperandResolver) -> Choice:
    arity = semantics.arity
    if len(op.operands) != arity:
        raise RequestError(
            "request.invalid", f"op '{op.id}' ({op.op}) takes {arity} operands, got {len(op.operands)}"
        )
    explicit = _explicit_strategy(op, semantics)
    legal = _legal_strategies(op, collector)
    if explicit is not None and explicit not in legal:
        raise KcfgError(
            STRATEGY_EXPLICIT_ILLEGAL,
            op_message(op.op, "explicit ttl.tile_execution_strategy is not legal for its operands"),
            "op",
            op.id,
        )
    result = _result_uses(op, semantics, collector, _slot_uses(op, semantics))
    options: list[ChoiceOption] = []
    tiles: dict[int, Tile] = {}
    for candidate in _legal_options(op, semantics, legal):
        if explicit not in (None, candidate.strategy):
            continue
        try:
            uses = _operand_uses(op, semantics.primitive, candidate.routes, collector, tiles, result)
        except _Unresolved as unresolved:
            if explicit is None:
                continue
            raise KcfgError(
                STRATEGY_EXPLICIT_DFB_UNRESOLVED,
                op_message(
                    op.op,
                    f"operand {unresolved.operand} does not resolve to a dataflow buffer required by "
                    "explicit ttl.tile_execution_strategy",
                ),
                "op",
                op.id,
                unresolved.operand,
            ) from None
        options.append(ChoiceOption(candidate.strategy, uses))
    if not options:
        raise KcfgError(
            STRATEGY_NONE_LEGAL, op_message(op.op, "has no legal tile execution strategy"), "op", op.id
        )
    return Choice(op.id, op.op, walk, tuple(options), explicit)


def _slot_uses(op: KernelOp, semantics: OpSemantics) -> tuple[SlotUse, ...]:
    """The op's declared DST slot demand (section 3): a requirement on the width and the sync."""
    if semantics.slots_attr is None:
        return ()
    slots = op.attrs.get(semantics.slots_attr, 1)
    if not isinstance(slots, int) or isinstance(slots, bool) or slots < 0:
        raise RequestError("request.invalid", f"op '{op.id}': attrs.{semantics.slots_attr} must be a count")
    if slots == 0:
        raise KcfgError(
            DST_SLOTS_INVALID, op_message(op.op, "requires 0 DST slots; at least 1 is needed"), "op", op.id
        )
    return (SlotUse(op.id, op.op, slots),)


def _fixed_uses(op: KernelOp, semantics: OpSemantics, collector: OperandResolver) -> UseBatch:
    _explicit_strategy(op, semantics)
    try:
        uses = _operand_uses(op, semantics.primitive, semantics.routes, collector, {}, _NO_USES)
    except _Unresolved as unresolved:
        raise KcfgError(
            OPERAND_DFB_UNRESOLVED,
            op_message(
                op.op,
                f"operand {unresolved.operand} must resolve to a dataflow buffer for the selected strategy",
            ),
            "op",
            op.id,
            unresolved.operand,
        ) from None
    return uses + _result_uses(op, semantics, collector, _slot_uses(op, semantics))


def collect_requirements(request: KernelcfgResolveRequest) -> KernelRequirements:
    """Section 3: walk the ops in order; the first op error wins."""
    collector = OperandResolver(request)
    destination: list[DestinationUse] = []
    dfb: list[DFBInputUse] = []
    slots: list[SlotUse] = []
    choices: list[Choice] = []
    fp32_uses: list[Fp32Use] = []
    for walk, op in enumerate(request.ops):
        semantics = semantics_for(op.id, op.op, op.attrs)
        if semantics.is_choice:
            choices.append(_choice(op, walk, semantics, collector))
            continue
        uses = _fixed_uses(op, semantics, collector)
        destination.extend(uses.destination)
        dfb.extend(uses.dfb)
        slots.extend(uses.slots)
        if semantics.full_fp32 is not None:
            fp32_uses.append(Fp32Use(op.id, semantics.full_fp32))
    return KernelRequirements(
        UseBatch(tuple(destination), tuple(dfb), tuple(slots)),
        tuple(choices),
        tuple(fp32_uses),
        tuple(op.id for op in request.ops),
    )
