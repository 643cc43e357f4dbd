"""Why a resolved kernel-config plan is what it is: every decision with the causes that decided it.

Causes are requirement ids and preference names (`planner.kernelcfg.counterfactual`), chosen
so that removing the requirements and flipping the preferences changes the decision, or
leaves nothing to decide (the op or the DFB's readers are gone):

- Width: forced by the records that alone exclude the other width under the plan's
  strategies; preferred by the full-fp32 knobs of the ops that prefer 32 bits, or by
  `narrow_destination` when none does.
- Strategy: the other strategy is not an option (not legal, FPU policy off, explicit
  attribute, or lossy under `precision=exact`), or, every other op's strategy held,
  conflicts with a minimal set of records found by resolving again; FPU also by
  `fpu_before_sfpu`.
- Unpack (f32 DFBs; the setting is inert for other element types): the records of the
  DFB's readers, which all require its mode at the chosen width, and its explicit entry.
- Sync: the `dst_full_sync` policy record; under auto, full sync by the slot demands that
  double buffering cannot hold (4.6), else `double_buffered_sync`.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.kernelcfg.counterfactual import (
    DOUBLE_BUFFERED_SYNC,
    FPU_BEFORE_SFPU,
    MATMUL_FULL_FP32,
    NARROW_DESTINATION,
    PREFERENCES,
    REDUCE_FULL_FP32,
    Kernel,
    Record,
    counterfactual,
    explained_kernel,
)
from planner.kernelcfg.lossless import lossless_strategies
from planner.kernelcfg.protocol import (
    Decision,
    KernelcfgResolveRequest,
    KernelConfigPlan,
    PlanExplanation,
    Preference,
)
from planner.kernelcfg.records import (
    ExplicitStrategy,
    ExplicitUnpack,
    FpuDisabled,
    PolicyWidth,
    PrecisionExact,
    SyncPolicy,
)
from planner.kernelcfg.requirements import Choice, DestinationUse, DFBInputUse, SlotUse, UseBatch
from planner.kernelcfg.resolver import Resolution, sync_modes
from planner.kernelcfg.semantics import Strategy
from planner.targets.tenstorrent import (
    DOUBLE_BUFFERED,
    FULL,
    SYNC_MODES,
    WIDTHS,
    FullFp32Kind,
    KernelTargetEnvironment,
    UnpackMode,
)


def _allows_width(
    target: KernelTargetEnvironment, uses: UseBatch, width: int, syncs: Sequence[str] = SYNC_MODES
) -> bool:
    """Whether these uses, on their own, leave destination width `width` under one of `syncs`
    (4.3, 4.4, 4.6)."""
    slots = max((use.slots for use in uses.slots), default=0)
    if slots and all(target.dst_slots(width, sync) < slots for sync in syncs):
        return False
    for use in uses.destination:
        if (width == 16 and use.elem.is_32bit) or not target.supports_destination_width(
            use.primitive, use.elem, width
        ):
            return False
    modes: dict[int, set[UnpackMode]] = {}
    for dfb in uses.dfb:
        pairs = target.supported_dfb_configurations(dfb.primitive, dfb.route, dfb.elem)
        modes.setdefault(dfb.dfb, set(UnpackMode)).intersection_update(m for w, m in pairs if w == width)
    return all(modes.values())


_NOT_AN_OPTION = "FPU needs a float result and DFB operands on the same tile"


def _cited(items: Sequence[Record]) -> str:
    """Requirement records in words: `r1 (what it asks); r2 (...)`."""
    return "; ".join(f"{item.record.id} ({item.record.summary})" for item in items)


def _preferred(names: Sequence[str]) -> str:
    return "preferred: " + "; ".join(f"{name} ({PREFERENCES[name]})" for name in names)


class _Explainer:
    def __init__(self, kernel: Kernel, plan: KernelConfigPlan) -> None:
        self.kernel = kernel
        self.plan = plan
        self.strategies = {op: Strategy(value) for op, value in plan.strategies.items()}

    def uses(self, item: Record) -> UseBatch | None:
        """The uses a record stands for under the plan (a choice: its chosen option's); None: not a use."""
        payload = item.payload
        if isinstance(payload, DestinationUse):
            return UseBatch(destination=(payload,))
        if isinstance(payload, DFBInputUse):
            return UseBatch(dfb=(payload,))
        if isinstance(payload, SlotUse):
            return UseBatch(slots=(payload,))
        if isinstance(payload, Choice):
            chosen = self.strategies.get(payload.op)
            return next((o.uses for o in payload.options if o.strategy is chosen), UseBatch())
        return None

    def width(self) -> Decision:
        width = self.plan.dst_width
        other = 16 if width == 32 else 32
        target, syncs = self.kernel.target, sync_modes(self.kernel.policy)
        excluding, by_sync = [], False
        for item in self.kernel.records:
            payload = item.payload
            if isinstance(payload, PolicyWidth):
                if payload.width != other:
                    excluding.append(item)
                continue
            uses = self.uses(item)
            if uses is not None and not _allows_width(target, uses, other, syncs):
                excluding.append(item)
                by_sync = by_sync or _allows_width(target, uses, other)  # the sync policy took part
        if by_sync:
            excluding += [item for item in self.kernel.records if isinstance(item.payload, SyncPolicy)]
        preferring = self.preferring()
        names = sorted({name for name, _ in preferring}) if width == 32 else []
        if width == 16 and not preferring:
            names = [NARROW_DESTINATION]
        words = [f"{other}-bit is excluded by {_cited(excluding)}"] if excluding else []
        words += [_preferred(names)] if names else []
        op = excluding[0].record.op if excluding else (preferring[0][1] if names and preferring else None)
        return Decision(
            setting="dst_width",
            value=str(width),
            how="forced" if excluding else "preferred",
            causes=[item.record.id for item in excluding] + names,
            op=op,
            reason="; ".join(words),
        )

    def preferring(self) -> list[tuple[str, str]]:
        """(knob, op) of each full-fp32 op whose knob is on and whose kind the target supports (step 7)."""
        policy, found = self.kernel.policy, []
        for use in self.kernel.relaxed.fp32_uses:
            matmul = use.kind is FullFp32Kind.MATMUL
            knob = policy.matmul_full_fp32 if matmul else policy.reduce_full_fp32
            if knob and self.kernel.target.full_fp32_support(use.kind).supported:
                found.append((MATMUL_FULL_FP32 if matmul else REDUCE_FULL_FP32, use.op))
        return found

    def strategy(self, choice: Choice) -> Decision:
        value = self.strategies[choice.op]
        other = Strategy.SFPU if value is Strategy.FPU else Strategy.FPU
        own = next(item for item in self.kernel.records if item.payload == choice)
        unlocking: list[Record] = []
        if other not in {o.strategy for o in choice.options}:
            unlocking.append(own)
            words = [
                f"{other.value.upper()} is not an option for its operands ({_NOT_AN_OPTION}): "
                + _cited([own])
            ]
        else:
            lossy = other not in lossless_strategies(choice, self.kernel.target)
            unlocking = [
                item
                for item in self.kernel.records
                if (isinstance(item.payload, FpuDisabled) and other is Strategy.FPU)
                or (isinstance(item.payload, PrecisionExact) and lossy)
                or (isinstance(item.payload, ExplicitStrategy) and item.payload.op == choice.op)
            ]
            words = [f"{_cited(unlocking)} rules out {other.value.upper()}"] if unlocking else []
            blocking = self.blocking(choice, other, own, [item.record.id for item in unlocking])
            if blocking:
                words.append(f"{other.value.upper()} conflicts with {_cited(blocking)}")
            unlocking += blocking
        causes = [item.record.id for item in unlocking]
        if value is Strategy.FPU:
            causes.append(FPU_BEFORE_SFPU)
            words.append(_preferred([FPU_BEFORE_SFPU]))
        return Decision(
            setting="strategy",
            subject=choice.op,
            value=value.value,
            how="forced" if unlocking else "preferred",
            causes=causes,
            op=choice.op,
            reason="; ".join(words),
        )

    def blocking(self, choice: Choice, other: Strategy, own: Record, unlocked: list[str]) -> list[Record]:
        """A minimal set of records whose removal lets `choice` run on `other`, every other op held."""
        held = {op: s for op, s in self.strategies.items() if op != choice.op} | {choice.op: other}

        def feasible(dropped: Sequence[str]) -> bool:
            present = {c.op for c in self.kernel.relaxed.choices} - {
                p.op for i in dropped for p in [self.kernel.record(i).payload] if isinstance(p, Choice)
            }
            return counterfactual(
                self.kernel, [*unlocked, *dropped], {op: s for op, s in held.items() if op in present}
            ).ok

        if feasible([]):
            return []
        candidates = [
            item.record.id
            for item in self.kernel.records
            if item is not own
            and item.record.id not in unlocked
            and not isinstance(item.payload, (ExplicitStrategy, SyncPolicy))
        ]
        needed = list(candidates)
        for record_id in candidates:
            trial = [i for i in needed if i != record_id]
            if feasible(trial):
                needed = trial
        return [self.kernel.record(record_id) for record_id in needed]

    def unpack(self) -> list[Decision]:
        by_dfb: dict[int, list[Record]] = {}
        for item in self.kernel.records:
            uses = self.uses(item)
            for use in uses.dfb if uses is not None else ():
                if use.elem.is_f32 and item not in by_dfb.setdefault(use.dfb, []):
                    by_dfb[use.dfb].append(item)
        explicit = {
            item.payload.dfb: item for item in self.kernel.records if isinstance(item.payload, ExplicitUnpack)
        }
        decisions = []
        for dfb, readers in sorted(by_dfb.items()):
            unpacked = dfb in self.plan.unpack_to_dest_fp32
            mode = UnpackMode.UNPACK_TO_DEST if unpacked else UnpackMode.DEFAULT
            cited = ([explicit[dfb]] if dfb in explicit else []) + readers
            need = "f32 through DST or a copy needs" if unpacked else "f32 read by the unpacker keeps"
            mode_text = "unpack-to-DST" if unpacked else "the default mode"
            decisions.append(
                Decision(
                    setting="unpack",
                    subject=str(dfb),
                    value=mode.value,
                    how="forced",
                    causes=[item.record.id for item in cited],
                    op=readers[0].record.op,
                    reason=f"{need} {mode_text} at {self.plan.dst_width} bits: {_cited(cited)}",
                )
            )
        return decisions

    def sync(self) -> Decision:
        value = self.plan.dst_sync
        policy = [item for item in self.kernel.records if isinstance(item.payload, SyncPolicy)]
        if value == FULL:
            return self.full_sync(policy)
        names = [DOUBLE_BUFFERED_SYNC]
        words = [f"required by {_cited(policy)}"] if policy else []
        return Decision(
            setting="dst_sync",
            value=value,
            how="forced" if policy else "preferred",
            causes=[item.record.id for item in policy] + names,
            reason="; ".join([*words, _preferred(names)]),
        )

    def demanding(self, slots: int) -> list[Record]:
        """The records whose slot demand (a choice: its chosen option's) exceeds `slots`."""
        found = []
        for item in self.kernel.records:
            uses = self.uses(item)
            if uses is not None and any(use.slots > slots for use in uses.slots):
                found.append(item)
        return found

    def full_sync(self, policy: list[Record]) -> Decision:
        """Full sync: the enabled policy, and the ops needing more slots than double buffering gives.

        First the demands above the double-buffered slots at the chosen width; if removing them
        (and the policy) still leaves full sync (the width moves to one that needs full sync
        too), the demands above the double-buffered slots of every width, whose removal leaves
        only demands any width meets.
        """
        target, width = self.kernel.target, self.plan.dst_width
        double = target.dst_slots(width, DOUBLE_BUFFERED)
        needing = self.demanding(double)
        if needing:
            dropped = [item.record.id for item in policy + needing]
            unchanged = counterfactual(self.kernel, dropped).plan
            if unchanged is not None and unchanged.dst_sync == FULL:
                needing = self.demanding(min(target.dst_slots(w, DOUBLE_BUFFERED) for w in WIDTHS))
        words = [f"required by {_cited(policy)}"] if policy else []
        if needing:
            words.append(
                f"double-buffered DST gives {double} slots at {width} bits, full sync "
                f"{target.dst_slots(width, FULL)}: needed by {_cited(needing)}"
            )
        return Decision(
            setting="dst_sync",
            value=FULL,
            how="forced",
            causes=[item.record.id for item in policy + needing],
            op=needing[0].record.op if needing else None,
            reason="; ".join(words),
        )


def explain_plan(request: KernelcfgResolveRequest, resolution: Resolution) -> PlanExplanation:
    """Every decision of a resolved plan with its causes (strategies in walk order, width, unpack, sync)."""
    assert resolution.plan is not None
    kernel = explained_kernel(request, resolution)
    explainer = _Explainer(kernel, resolution.plan)
    decisions = [explainer.strategy(c) for c in kernel.relaxed.choices]
    decisions += [explainer.width(), *explainer.unpack(), explainer.sync()]
    named = sorted({cause for d in decisions for cause in d.causes if cause in PREFERENCES})
    return PlanExplanation(
        requirements=[item.record for item in kernel.records],
        preferences=[Preference(name=name, summary=PREFERENCES[name]) for name in named],
        decisions=decisions,
    )
