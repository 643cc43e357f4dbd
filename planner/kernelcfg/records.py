"""Requirement records: every hard requirement of a refused kernel, numbered for a person to act on.

Each record has a stable id (r1, r2, ..., in a fixed order: policy, explicit unpack entries,
explicit strategies, then ops in walk order), says in words which op or setting asks what,
carries what it constrains (its payload) and, when a setting can be relaxed, the request
edit that lifts it. `satisfiable` answers whether some strategies, width, sync and unpack
modes meet a subset of records (docs/design/kernel-config.md 8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from planner.kernelcfg.lossless import first_lossy, lossy_read
from planner.kernelcfg.policy import Precision, ThreeState
from planner.kernelcfg.protocol import KernelcfgResolveRequest, KernelOp, KernelPolicy, RequirementRecord
from planner.kernelcfg.requirements import (
    Choice,
    DestinationUse,
    DFBInputUse,
    KernelRequirements,
    SlotUse,
    UseBatch,
)
from planner.kernelcfg.resolver import Resolution
from planner.kernelcfg.search import solve_choices
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.state import Applier, KernelState
from planner.kernelcfg.structural import RequestEdit, Suggestion
from planner.targets.tenstorrent import DOUBLE_BUFFERED, FULL, SYNC_MODES, WIDTHS, KernelTargetEnvironment


@dataclass(frozen=True, slots=True)
class PolicyWidth:
    """`fp32_dest_acc` enabled (32) or disabled (16)."""

    width: int


@dataclass(frozen=True, slots=True)
class FpuDisabled:
    """`enable-fpu-binary-ops` off: no FPU option anywhere."""


@dataclass(frozen=True, slots=True)
class ExplicitUnpack:
    """`ttl.unpack_to_dest_fp32` speaks for this f32 DFB (lists it or omits it)."""

    dfb: int


@dataclass(frozen=True, slots=True)
class ExplicitStrategy:
    op: str
    strategy: Strategy


@dataclass(frozen=True, slots=True)
class PrecisionExact:
    """`precision=exact`: no option or fixed op may read an f32 value lossily (6.10)."""


@dataclass(frozen=True, slots=True)
class SyncPolicy:
    """`dst_full_sync` enabled (full) or disabled (double-buffered)."""

    state: ThreeState

    @property
    def mode(self) -> str:
        return FULL if self.state is ThreeState.ENABLED else DOUBLE_BUFFERED


Payload = (
    PolicyWidth
    | FpuDisabled
    | PrecisionExact
    | SyncPolicy
    | ExplicitUnpack
    | ExplicitStrategy
    | DestinationUse
    | DFBInputUse
    | SlotUse
    | Choice
)


@dataclass(frozen=True, slots=True)
class Requirement:
    """One record and what it constrains; `relax` lifts it (None: the kernel itself)."""

    record: RequirementRecord
    payload: Payload
    relax: Suggestion | None = None


def _policy_edit(**fields: object) -> RequestEdit:
    def edit(request: KernelcfgResolveRequest) -> KernelcfgResolveRequest:
        policy = KernelPolicy.model_validate({**request.policy.model_dump(), **fields})
        return request.model_copy(update={"policy": policy})

    return edit


def _unpack_edit(dfb: int, listed: bool) -> RequestEdit:
    def edit(request: KernelcfgResolveRequest) -> KernelcfgResolveRequest:
        current = set(request.policy.unpack_to_dest_fp32 or ())
        updated = current - {dfb} if listed else current | {dfb}
        return _policy_edit(unpack_to_dest_fp32=sorted(updated))(request)

    return edit


def _strategy_edit(op_id: str) -> RequestEdit:
    return lambda request: strip_explicit(request, frozenset({op_id}))


def strip_explicit(
    request: KernelcfgResolveRequest, ops: frozenset[str] | None = None
) -> KernelcfgResolveRequest:
    """The request without explicit strategies (on `ops`, or all): those choices keep every legal option."""
    kept: list[KernelOp] = [
        op.model_copy(update={"explicit_strategy": None}) if ops is None or op.id in ops else op
        for op in request.ops
    ]
    return request.model_copy(update={"ops": kept})


def _pair_names(target: KernelTargetEnvironment, use: DFBInputUse) -> list[str]:
    pairs = target.supported_dfb_configurations(use.primitive, use.route, use.elem)
    return sorted(f"{w}:{mode.value}" for w, mode in pairs)


def _destination_names(applier: Applier, use: DestinationUse) -> list[str]:
    return [f"dst_width={w}" for w in WIDTHS if applier.destination_allows(use, w)]


class _Records:
    """Builds the ordered requirement list of one refused kernel."""

    def __init__(self) -> None:
        self.items: list[Requirement] = []

    def add(self, payload: Payload, relax: Suggestion | None = None, **fields: object) -> None:
        self.put(payload, fields, relax)

    def put(self, payload: Payload, fields: Mapping[str, object], relax: Suggestion | None = None) -> None:
        record = RequirementRecord.model_validate({"id": f"r{len(self.items) + 1}", **fields})
        self.items.append(Requirement(record, payload, relax))


def _f32_dfbs(requirements: KernelRequirements) -> list[int]:
    return sorted({use.dfb for use in requirements.all_dfb_uses() if use.elem.is_f32})


def slot_uses(requirements: KernelRequirements) -> list[SlotUse]:
    """Every slot demand, fixed ones first, then each choice's options' (collection order)."""
    optional = [use for c in requirements.choices for o in c.options for use in o.uses.slots]
    return [*requirements.fixed.slots, *optional]


def _reads_lossily(requirements: KernelRequirements, target: KernelTargetEnvironment) -> bool:
    """Whether a fixed use or some option reads an f32 value lossily: only then can exact matter."""
    options = (o for c in requirements.choices for o in c.options)
    return first_lossy(requirements.fixed, target) is not None or any(
        first_lossy(o.uses, target) is not None for o in options
    )


def sync_matters(requirements: KernelRequirements, target: KernelTargetEnvironment) -> bool:
    """Whether some slot demand exceeds what every width and sync gives: only then can the sync
    policy take part in a conflict (4.6)."""
    fewest = min(target.dst_slots(width, sync) for width in WIDTHS for sync in SYNC_MODES)
    return any(use.slots > fewest for use in slot_uses(requirements))


def sync_record(records: _Records, state: ThreeState) -> None:
    """The `dst_full_sync` policy as a record (its relaxation: auto)."""
    payload = SyncPolicy(state)
    records.add(
        payload,
        Suggestion("set dst_full_sync to auto", _policy_edit(dst_full_sync="auto")),
        kind="policy",
        allows=[f"dst_sync={payload.mode}"],
        summary=f"dst_full_sync {state.value}",
    )


def build_records(resolution: Resolution, relaxed: KernelRequirements) -> list[Requirement]:
    """Policy, explicit unpack entries, explicit strategies, then each op's uses in walk order.

    The sync policy is a record only when a slot demand lets it matter (`sync_matters`)."""
    assert resolution.policy is not None and resolution.target is not None
    policy, target = resolution.policy, resolution.target
    records = _Records()
    if policy.fp32_dest_acc is not ThreeState.AUTO:
        width = 32 if policy.fp32_dest_acc is ThreeState.ENABLED else 16
        records.add(
            PolicyWidth(width),
            Suggestion("set fp32_dest_acc to auto", _policy_edit(fp32_dest_acc="auto")),
            kind="policy",
            allows=[f"dst_width={width}"],
            summary=f"fp32_dest_acc {policy.fp32_dest_acc.value}",
        )
    if not policy.fpu_binary and any(o.strategy is Strategy.FPU for c in relaxed.choices for o in c.options):
        records.add(
            FpuDisabled(),
            Suggestion("enable FPU binary ops", _policy_edit(fpu_binary=True)),
            kind="policy",
            allows=["sfpu"],
            summary="FPU binary ops disabled",
        )
    if policy.dst_full_sync is not ThreeState.AUTO and sync_matters(relaxed, target):
        sync_record(records, policy.dst_full_sync)
    if policy.precision is Precision.EXACT and _reads_lossily(relaxed, target):
        records.add(
            PrecisionExact(),
            Suggestion("set precision to default", _policy_edit(precision="default")),
            kind="policy",
            allows=["lossless f32"],
            summary="precision exact",
        )
    if policy.unpack_to_dest_fp32 is not None:
        for dfb in _f32_dfbs(relaxed):
            listed = dfb in policy.unpack_to_dest_fp32
            verb = ("remove", "from") if listed else ("add", "to")
            change = f"{verb[0]} DFB {dfb} {verb[1]} ttl.unpack_to_dest_fp32"
            records.add(
                ExplicitUnpack(dfb),
                Suggestion(change, _unpack_edit(dfb, listed)),
                kind="explicit_unpack",
                dfb=dfb,
                allows=["unpack_to_dest" if listed else "default"],
                summary=f"ttl.unpack_to_dest_fp32 {'lists' if listed else 'omits'} DFB {dfb}",
            )
    explicit = {
        choice.op: choice for choice in (resolution.requirements or relaxed).choices if choice.explicit
    }
    for choice in relaxed.choices:
        stated = explicit.get(choice.op)
        if stated is None or stated.explicit is None:
            continue
        other = "SFPU" if stated.explicit is Strategy.FPU else "FPU"
        records.add(
            ExplicitStrategy(choice.op, stated.explicit),
            Suggestion(f"allow {other} for {choice.mnemonic} {choice.op}", _strategy_edit(choice.op)),
            kind="explicit_strategy",
            op=choice.op,
            allows=[stated.explicit.value],
            summary=f"explicit ttl.tile_execution_strategy<{stated.explicit.value}> on {choice.op}",
        )
    _use_records(records, relaxed, target)
    return records.items


def _use_fields(
    use: DestinationUse | DFBInputUse, kind: str, allows: list[str], does: str
) -> dict[str, object]:
    """The record fields every use shares: where it is, its element type, and the sentence."""
    slot = "result" if use.operand is None else f"operand {use.operand}"
    return {
        "kind": kind,
        "op": use.op,
        "operand": use.operand,
        "dtype": use.elem.name,
        "allows": allows,
        "summary": f"{use.mnemonic} {use.op} {slot} {does}",
    }


def _use_records(records: _Records, relaxed: KernelRequirements, target: KernelTargetEnvironment) -> None:
    applier = Applier(target, None)
    for dest in relaxed.fixed.destination:
        allowed = _destination_names(applier, dest)
        records.put(dest, _use_fields(dest, "destination", allowed, f"holds '{dest.elem.name}' in DST"))
    for use in relaxed.fixed.dfb:
        does = f"reads DFB {use.dfb} via {use.route.value}"
        records.put(use, {**_use_fields(use, "dfb_input", _pair_names(target, use), does), "dfb": use.dfb})
    for slots in relaxed.fixed.slots:
        pairs = [(w, s) for w in WIDTHS for s in SYNC_MODES if target.dst_slots(w, s) >= slots.slots]
        roomy = [f"dst_width={w}:dst_sync={s}" for w, s in pairs]
        records.add(
            slots,
            kind="dst_slots",
            op=slots.op,
            allows=roomy,
            summary=f"{slots.mnemonic} {slots.op} holds {slots.slots} tiles in DST at once",
        )
    for choice in relaxed.choices:
        records.add(
            choice,
            kind="strategy_choice",
            op=choice.op,
            allows=[o.strategy.value for o in choice.options],
            summary=f"{choice.mnemonic} {choice.op} runs on one of its legal strategies",
        )


def satisfiable(
    subset: Sequence[Requirement], target: KernelTargetEnvironment, explicit: frozenset[int]
) -> bool:
    """Whether some strategies, width, sync and unpack modes meet every requirement in `subset`."""
    widths: set[int] = set(WIDTHS)
    syncs = SYNC_MODES
    scope: set[int] = set()
    fpu_off = exact = False
    narrowed: dict[str, Strategy] = {}
    destination: list[DestinationUse] = []
    dfb: list[DFBInputUse] = []
    slots: list[SlotUse] = []
    choices: list[Choice] = []
    for item in subset:
        payload = item.payload
        if isinstance(payload, DestinationUse):
            destination.append(payload)
        elif isinstance(payload, DFBInputUse):
            dfb.append(payload)
        elif isinstance(payload, SlotUse):
            slots.append(payload)
        elif isinstance(payload, SyncPolicy):
            syncs = (payload.mode,)
        elif isinstance(payload, Choice):
            choices.append(payload)
        elif isinstance(payload, PolicyWidth):
            widths &= {payload.width}
        elif isinstance(payload, FpuDisabled):
            fpu_off = True
        elif isinstance(payload, PrecisionExact):
            exact = True
        elif isinstance(payload, ExplicitUnpack):
            scope.add(payload.dfb)
        else:
            narrowed[payload.op] = payload.strategy
    if exact and any(lossy_read(use, target) for use in dfb):
        return False
    applier = Applier(target, explicit, frozenset(scope))
    state = KernelState(widths, syncs)
    if applier.apply(state, UseBatch(tuple(destination), tuple(dfb), tuple(slots))) is not None:
        return False
    kept: list[Choice] = []
    for choice in choices:
        options = tuple(
            o
            for o in choice.options
            if not (fpu_off and o.strategy is Strategy.FPU)
            and not (exact and first_lossy(o.uses, target) is not None)
            and narrowed.get(choice.op, o.strategy) is o.strategy
        )
        if not options:
            return False
        kept.append(Choice(choice.op, choice.mnemonic, choice.walk, options, None))
    return solve_choices(applier, state, kept) is not None


def dfb_uses(payload: Payload) -> tuple[DFBInputUse, ...]:
    """The DFB uses of a use record: its own, or every option's for a strategy choice."""
    if isinstance(payload, DFBInputUse):
        return (payload,)
    if isinstance(payload, Choice):
        return tuple(use for option in payload.options for use in option.uses.dfb)
    return ()
