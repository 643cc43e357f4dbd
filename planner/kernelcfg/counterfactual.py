"""A resolved kernel with some of its requirements removed and some preferences flipped.

The requirements are the records of the conflict explanation (same ids: r1, r2, ...) plus,
when `dst_full_sync` is not auto and those records leave it out, one record for it. The
preferences are the soft rules the resolver follows where the hard requirements leave a
choice. Removing a use record drops that use (a strategy choice record drops the op's
uses); removing a policy record sets the policy to auto; removing an explicit-unpack record
toggles its entry; flipping a preference asks for the other value (`narrow_destination`:
enabled fp32 destination accumulation; `double_buffered_sync`: enabled full sync; a
full-fp32 knob: off).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from planner.kernelcfg.policy import KernelConfigPolicy, Precision, ThreeState
from planner.kernelcfg.protocol import Decision, KernelcfgResolveRequest, RequirementRecord
from planner.kernelcfg.records import ExplicitStrategy as ExplicitStrategyRecord
from planner.kernelcfg.records import ExplicitUnpack as ExplicitUnpackRecord
from planner.kernelcfg.records import FpuDisabled as FpuDisabledRecord
from planner.kernelcfg.records import PolicyWidth as PolicyWidthRecord
from planner.kernelcfg.records import PrecisionExact as PrecisionExactRecord
from planner.kernelcfg.records import Requirement, SyncPolicy, build_records, strip_explicit
from planner.kernelcfg.requirements import KernelRequirements, UseBatch, collect_requirements
from planner.kernelcfg.resolver import Resolution, resolve_collected
from planner.kernelcfg.semantics import Strategy
from planner.targets.tenstorrent import KernelTargetEnvironment

MATMUL_FULL_FP32 = "matmul_full_fp32"
REDUCE_FULL_FP32 = "reduce_full_fp32"
NARROW_DESTINATION = "narrow_destination"
FPU_BEFORE_SFPU = "fpu_before_sfpu"
DOUBLE_BUFFERED_SYNC = "double_buffered_sync"
PREFERENCES: dict[str, str] = {
    MATMUL_FULL_FP32: "a matmul prefers 32-bit DST elements for full-fp32 accumulation",
    REDUCE_FULL_FP32: "a reduce prefers 32-bit DST elements for full-fp32 accumulation",
    NARROW_DESTINATION: "16-bit DST elements unless a requirement or a full-fp32 preference asks for 32",
    FPU_BEFORE_SFPU: "a strategy-dependent binary op runs on the FPU when it can",
    DOUBLE_BUFFERED_SYNC: "double-buffered DST sync unless dst_full_sync is enabled",
}


Record = Requirement


@dataclass(frozen=True, slots=True)
class Kernel:
    """What a counterfactual edits: the policy, the requirements without explicit strategies, the records."""

    target: KernelTargetEnvironment
    policy: KernelConfigPolicy
    relaxed: KernelRequirements
    records: tuple[Record, ...]

    def record(self, record_id: str) -> Record:
        return next(item for item in self.records if item.record.id == record_id)


def counterfactual(kernel: Kernel, causes: Iterable[str], held: Mapping[str, Strategy] = {}) -> Resolution:
    """Resolve `kernel` without the listed requirements and with the listed preferences flipped.

    `held` keeps strategy-dependent ops to one strategy (an explicit strategy record that is
    not dropped holds its op too). Flipping `fpu_before_sfpu` is the caller's: it holds the
    decided op to SFPU.
    """
    dropped = set(causes)
    policy = kernel.policy
    holds = dict(held)
    removed: list[object] = []
    for item in kernel.records:
        payload = item.payload
        if item.record.id not in dropped:
            if isinstance(payload, ExplicitStrategyRecord):
                holds.setdefault(payload.op, payload.strategy)
        elif isinstance(payload, PolicyWidthRecord):
            policy = replace(policy, fp32_dest_acc=ThreeState.AUTO)
        elif isinstance(payload, FpuDisabledRecord):
            policy = replace(policy, fpu_binary=True)
        elif isinstance(payload, PrecisionExactRecord):
            policy = replace(policy, precision=Precision.DEFAULT)
        elif isinstance(payload, ExplicitUnpackRecord):
            listed = set(policy.unpack_to_dest_fp32 or ())
            policy = replace(policy, unpack_to_dest_fp32=tuple(sorted(listed ^ {payload.dfb})))
        elif isinstance(payload, SyncPolicy):
            policy = replace(policy, dst_full_sync=ThreeState.AUTO)
        elif not isinstance(payload, ExplicitStrategyRecord):
            removed.append(payload)
    flips = {
        MATMUL_FULL_FP32: {"matmul_full_fp32": False},
        REDUCE_FULL_FP32: {"reduce_full_fp32": False},
        NARROW_DESTINATION: {"fp32_dest_acc": ThreeState.ENABLED},
        DOUBLE_BUFFERED_SYNC: {"dst_full_sync": ThreeState.ENABLED},
    }
    for name in sorted(dropped & set(flips)):
        policy = replace(policy, **flips[name])  # type: ignore[arg-type]
    return resolve_collected(kernel.target, policy, _without(kernel.relaxed, removed, holds))


def _without(
    requirements: KernelRequirements, removed: Sequence[object], holds: Mapping[str, Strategy]
) -> KernelRequirements:
    fixed = UseBatch(
        tuple(u for u in requirements.fixed.destination if u not in removed),
        tuple(u for u in requirements.fixed.dfb if u not in removed),
        tuple(u for u in requirements.fixed.slots if u not in removed),
    )
    choices = []
    for choice in requirements.choices:
        if choice in removed:
            continue
        held = holds.get(choice.op)
        if held is not None:
            choice = replace(
                choice, options=tuple(o for o in choice.options if o.strategy is held), explicit=held
            )
        choices.append(choice)
    return replace(requirements, fixed=fixed, choices=tuple(choices))


def undecided(kernel: Kernel, decision: Decision) -> Resolution:
    """`decision`'s causes removed or flipped (flipping `fpu_before_sfpu` holds the op to SFPU)."""
    held = (
        {decision.subject: Strategy.SFPU} if FPU_BEFORE_SFPU in decision.causes and decision.subject else {}
    )
    return counterfactual(kernel, decision.causes, held)


def explained_kernel(request: KernelcfgResolveRequest, resolution: Resolution) -> Kernel:
    """The records and explicit-free requirements of a resolved (or refused) kernel."""
    assert resolution.policy is not None and resolution.target is not None
    relaxed = resolution.requirements
    if relaxed is None or any(op.explicit_strategy is not None for op in request.ops):
        relaxed = collect_requirements(strip_explicit(request))
    items: list[Record] = list(build_records(resolution, relaxed))
    sync = resolution.policy.dst_full_sync
    if sync is not ThreeState.AUTO and not any(isinstance(item.payload, SyncPolicy) for item in items):
        payload = SyncPolicy(sync)
        record = RequirementRecord(
            id=f"r{len(items) + 1}",
            kind="policy",
            allows=[f"dst_sync={payload.mode}"],
            summary=f"dst_full_sync {sync.value}",
        )
        items.append(Requirement(record, payload))
    return Kernel(resolution.target, resolution.policy, relaxed, tuple(items))
