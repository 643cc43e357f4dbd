"""Conflicts a person can act on: requirement records, a minimal conflicting set, corrections.

Every hard requirement of a refused kernel becomes a record with a stable id (r1, r2, ...,
in a fixed order: policy, explicit unpack entries, explicit strategies, then ops in walk
order). QuickXplain (Junker 2004) over that order finds a minimal unsatisfiable subset: the
subset is unsatisfiable and each proper subset is satisfiable.

Corrections, in this order: one relaxation per relaxable record of the minimal set (policy,
explicit unpack entry, explicit strategy), then those of `planner.kernelcfg.structural` for
the DFBs two of its ops read and for its bf16/f16 broadcasts. Each is checked by resolving
the corrected request again; one that removes this conflict but not another one of the
kernel is still listed, with `resolves: false`, so the person sees that a second cause
remains.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

from planner.kernelcfg.codes import (
    DFB_CONFIG_UNSUPPORTED,
    DFB_UNPACK_CONFLICT,
    DST_WIDTH_CONFLICT,
    DST_WIDTH_DISABLED_CONFLICT,
    DST_WIDTH_EXPLICIT_UNSUPPORTED,
    DST_WIDTH_UNSUPPORTED,
    EXPLICIT_UNPACK_CONFLICT,
    FPU_POLICY_CONFLICT,
    KcfgError,
)
from planner.kernelcfg.policy import ThreeState
from planner.kernelcfg.protocol import (
    Conflict,
    ConflictNote,
    Correction,
    KernelcfgResolveRequest,
    KernelOp,
    KernelPolicy,
    RequirementRecord,
)
from planner.kernelcfg.requirements import (
    Choice,
    DestinationUse,
    DFBInputUse,
    KernelRequirements,
    UseBatch,
    collect_requirements,
)
from planner.kernelcfg.resolver import Resolution, resolve_collected, resolve_with
from planner.kernelcfg.search import solve_choices
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.state import Applier, KernelState
from planner.kernelcfg.structural import RequestEdit, Suggestion, structural_suggestions
from planner.targets.tenstorrent import WIDTHS, KernelTargetEnvironment

# Conflicts of the joint search (and the FPU policy clash); other refusals have no records.
_SEARCH_CODES = frozenset(
    {
        DST_WIDTH_DISABLED_CONFLICT,
        DST_WIDTH_CONFLICT,
        DST_WIDTH_EXPLICIT_UNSUPPORTED,
        DST_WIDTH_UNSUPPORTED,
        EXPLICIT_UNPACK_CONFLICT,
        DFB_UNPACK_CONFLICT,
        DFB_CONFIG_UNSUPPORTED,
        FPU_POLICY_CONFLICT,
    }
)


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


Payload = (
    PolicyWidth | FpuDisabled | ExplicitUnpack | ExplicitStrategy | DestinationUse | DFBInputUse | Choice
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


def build_records(resolution: Resolution, relaxed: KernelRequirements) -> list[Requirement]:
    """Policy, explicit unpack entries, explicit strategies, then each op's uses in walk order."""
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
    """Whether some strategies, width and unpack modes meet every requirement in `subset`."""
    widths: set[int] = set(WIDTHS)
    scope: set[int] = set()
    fpu_off = False
    narrowed: dict[str, Strategy] = {}
    destination: list[DestinationUse] = []
    dfb: list[DFBInputUse] = []
    choices: list[Choice] = []
    for item in subset:
        payload = item.payload
        if isinstance(payload, DestinationUse):
            destination.append(payload)
        elif isinstance(payload, DFBInputUse):
            dfb.append(payload)
        elif isinstance(payload, Choice):
            choices.append(payload)
        elif isinstance(payload, PolicyWidth):
            widths &= {payload.width}
        elif isinstance(payload, FpuDisabled):
            fpu_off = True
        elif isinstance(payload, ExplicitUnpack):
            scope.add(payload.dfb)
        else:
            narrowed[payload.op] = payload.strategy
    applier = Applier(target, explicit, frozenset(scope))
    state = KernelState(widths)
    if applier.apply(state, UseBatch(tuple(destination), tuple(dfb))) is not None:
        return False
    kept: list[Choice] = []
    for choice in choices:
        options = tuple(
            o
            for o in choice.options
            if not (fpu_off and o.strategy is Strategy.FPU)
            and narrowed.get(choice.op, o.strategy) is o.strategy
        )
        if not options:
            return False
        kept.append(Choice(choice.op, choice.mnemonic, choice.walk, options, None))
    return solve_choices(applier, state, kept) is not None


def quickxplain(
    items: Sequence[Requirement], consistent: Callable[[Sequence[Requirement]], bool]
) -> list[int]:
    """Positions of a minimal inconsistent subset of `items` (which must be inconsistent)."""
    indices = list(range(len(items)))

    def check(positions: Sequence[int]) -> bool:
        return consistent([items[i] for i in sorted(positions)])

    def explain(background: list[int], delta_nonempty: bool, candidates: list[int]) -> list[int]:
        if delta_nonempty and not check(background):
            return []
        if len(candidates) == 1:
            return candidates
        half = len(candidates) // 2
        first, second = candidates[:half], candidates[half:]
        delta2 = explain(background + first, bool(first), second)
        delta1 = explain(background + delta2, bool(delta2), first)
        return delta1 + delta2

    return sorted(explain([], False, indices))


def _dfb_uses(payload: Payload) -> tuple[DFBInputUse, ...]:
    """The DFB uses of a use record: its own, or every option's for a strategy choice."""
    if isinstance(payload, DFBInputUse):
        return (payload,)
    if isinstance(payload, Choice):
        return tuple(use for option in payload.options for use in option.uses.dfb)
    return ()


def _nodes(payload: Payload) -> list[Hashable]:
    """The op and DFBs a record constrains: its places in the op-DFB graph (policy: none)."""
    if isinstance(payload, (DestinationUse, DFBInputUse, Choice, ExplicitStrategy)):
        return [("op", payload.op), *(("dfb", use.dfb) for use in _dfb_uses(payload))]
    if isinstance(payload, ExplicitUnpack):
        return [("dfb", payload.dfb)]
    return []


def _widths(payload: Payload, applier: Applier) -> frozenset[int]:
    """The destination widths a record leaves on its own (a choice: any of its options)."""
    if isinstance(payload, PolicyWidth):
        return frozenset({payload.width})
    if isinstance(payload, DestinationUse):
        batches = [UseBatch(destination=(payload,))]
    elif isinstance(payload, DFBInputUse):
        batches = [UseBatch(dfb=(payload,))]
    elif isinstance(payload, Choice):
        batches = [option.uses for option in payload.options]
    else:
        return frozenset(WIDTHS)
    return frozenset(width for batch in batches for width in applier.summarize(batch).by_width)


def _component(places: Sequence[list[Hashable]], start: Sequence[Hashable]) -> set[int]:
    """Positions connected to `start` through shared places (a breadth-first walk)."""
    at: dict[Hashable, list[int]] = {}
    for position, nodes in enumerate(places):
        for node in nodes:
            at.setdefault(node, []).append(position)
    seen, frontier, inside = set(start), list(start), set()
    while frontier:
        for position in at.get(frontier.pop(), ()):
            if position not in inside:
                inside.add(position)
                fresh = [node for node in places[position] if node not in seen]
                seen.update(fresh)
                frontier.extend(fresh)
    return inside


def focus(items: Sequence[Requirement], error: KcfgError, target: KernelTargetEnvironment) -> list[int]:
    """Positions of a likely-inconsistent part of `items` around the conflict's ops.

    Kernel-wide records (policy), the records of the op-DFB graph component holding the
    conflict's op and note op, and, since components share only the kernel-wide width, the
    first outside record that alone allows exactly each single width. Given a fixed width,
    other components cannot matter; the caller still checks the part before trusting it.
    """
    places = [_nodes(item.payload) for item in items]
    ops = [("op", op) for op in (error.op, error.note.op if error.note else None) if op is not None]
    inside = _component(places, ops)
    if not inside:
        return list(range(len(items)))
    chosen = {p for p, nodes in enumerate(places) if p in inside or not nodes}
    applier, wanted = Applier(target, None), {frozenset({width}) for width in WIDTHS}
    for position, item in enumerate(items):
        if not wanted:
            break
        widths = _widths(item.payload, applier) if position not in inside else None
        if widths in wanted:
            wanted.discard(widths)
            chosen.add(position)
    return sorted(chosen)


def _conflict_fields(error: KcfgError) -> dict[str, object]:
    note = None
    if error.note is not None:
        note = ConflictNote(op=error.note.op, operand=error.note.operand, message=error.note.message)
    return {
        "code": error.code,
        "message": error.message,
        "where": error.where,
        "op": error.op,
        "operand": error.operand,
        "note": note,
    }


def suggestions(
    request: KernelcfgResolveRequest, target: KernelTargetEnvironment, minimal: Sequence[Requirement]
) -> list[Suggestion]:
    """The minimal set's relaxations in record order, then its structural corrections."""
    relaxations = [item.relax for item in minimal if item.relax is not None]
    reads = [use for item in minimal for use in _dfb_uses(item.payload)]
    results = [item.payload for item in minimal if isinstance(item.payload, DestinationUse)]
    return relaxations + structural_suggestions(request, target, reads, results)


def _relaxed(request: KernelcfgResolveRequest, resolution: Resolution) -> KernelRequirements:
    """The requirements without explicit strategies (collected again only if the kernel has any)."""
    if resolution.requirements is not None and all(op.explicit_strategy is None for op in request.ops):
        return resolution.requirements
    return collect_requirements(strip_explicit(request))


def minimal_conflict(
    items: Sequence[Requirement],
    error: KcfgError,
    consistent: Callable[[Sequence[Requirement]], bool],
    target: KernelTargetEnvironment,
) -> list[int]:
    """QuickXplain over the conflict's `focus` when that part is inconsistent, else over everything.

    A minimal inconsistent subset of an inconsistent part is one of the whole kernel too
    (minimality speaks only of the subset's own subsets), so the shortcut is sound.
    """
    part = focus(items, error, target)
    chosen = [items[p] for p in part]
    if len(part) < len(items) and not consistent(chosen):
        return [part[i] for i in quickxplain(chosen, consistent)]
    return quickxplain(items, consistent)


def _correction(
    suggestion: Suggestion,
    request: KernelcfgResolveRequest,
    resolution: Resolution,
    target: KernelTargetEnvironment | None,
) -> Correction:
    """A suggestion, checked by resolving the corrected request (`resolves` only if it does)."""
    env, policy, requirements = resolution.target, resolution.policy, resolution.requirements
    if suggestion.collected is None or env is None or policy is None or requirements is None:
        checked = resolve_with(suggestion.edit(request), target)
    else:
        checked = resolve_collected(env, policy, suggestion.collected(requirements))
    return Correction(change=suggestion.change, resolves=checked.ok)


def explain_conflict(
    request: KernelcfgResolveRequest,
    resolution: Resolution,
    target: KernelTargetEnvironment | None = None,
) -> Conflict:
    """The typed first conflict, plus records, a minimal conflict and checked corrections."""
    error = resolution.error
    assert error is not None
    fields = _conflict_fields(error)
    if error.code not in _SEARCH_CODES or resolution.policy is None or resolution.target is None:
        return Conflict.model_validate(fields)
    items = build_records(resolution, _relaxed(request, resolution))
    explicit = frozenset(resolution.policy.unpack_to_dest_fp32 or ())
    env = resolution.target
    minimal = minimal_conflict(items, error, lambda subset: satisfiable(subset, env, explicit), env)
    offered = suggestions(request, env, [items[i] for i in minimal])
    corrections = [_correction(suggestion, request, resolution, target) for suggestion in offered]
    return Conflict.model_validate(
        {
            **fields,
            "requirements": [item.record for item in items],
            "minimal_conflict": [items[i].record.id for i in minimal],
            "corrections": corrections,
        }
    )
