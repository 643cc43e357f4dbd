"""The resolver pipeline (kernel-config.md section 6, steps 1-9) for one kernel function."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.kernelcfg.codes import (
    DFB_INDEX_OUT_OF_RANGE,
    FPU_POLICY_CONFLICT,
    FULL_FP32_ROW_REDUCE_UNAVAILABLE,
    PREFERRED_FP32_MESSAGE,
    PREFERRED_FP32_UNAVAILABLE,
    STRATEGY_NONE_ALLOWED,
    KcfgError,
    op_message,
)
from planner.kernelcfg.csp import KernelSolver, SearchModel
from planner.kernelcfg.plan import KernelConfigPlan, _issue_plan
from planner.kernelcfg.policy import KernelConfigPolicy, ThreeState, normalize_policy
from planner.kernelcfg.protocol import KernelcfgResolveRequest, KernelWarning
from planner.kernelcfg.requirements import Choice, KernelRequirements, collect_requirements
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.state import Applier, KernelState, describe, initial_state
from planner.targets.tenstorrent import FullFp32Kind, KernelTargetEnvironment, TargetError, build_target


@dataclass(slots=True)
class Resolution:
    """Everything one resolution learned: the plan or the refusal, and the inputs it used."""

    plan: KernelConfigPlan | None = None
    warnings: list[KernelWarning] = field(default_factory=list)
    error: KcfgError | None = None
    target: KernelTargetEnvironment | None = None
    policy: KernelConfigPolicy | None = None
    requirements: KernelRequirements | None = None

    @property
    def ok(self) -> bool:
        return self.plan is not None


def request_target(request: KernelcfgResolveRequest) -> KernelTargetEnvironment:
    """Step 1 (module): the request's architecture and system description, agreed (4.1)."""
    desc = request.system_desc
    try:
        if desc is None:
            return build_target(request.arch)
        return build_target(request.arch, desc.chip_archs, desc.device_chip_ids)
    except TargetError as error:
        raise KcfgError(error.code, error.message, "module") from None


def check_dfb_indices(requirements: KernelRequirements, target: KernelTargetEnvironment) -> None:
    """Step 2: every use's index, fixed and optional, lies in `[0, capacity - 1]`."""
    last = target.dfb_capacity - 1
    for use in requirements.all_dfb_uses():
        if use.dfb > last:
            text = (
                f"uses dataflow buffer index {use.dfb} outside the supported range [0, {last}] "
                f"for {target.capacity_description}"
            )
            raise KcfgError(DFB_INDEX_OUT_OF_RANGE, op_message(use.mnemonic, text), "op", use.op, use.operand)


def allowed_choices(choices: tuple[Choice, ...], policy: KernelConfigPolicy) -> tuple[Choice, ...]:
    """Step 5: drop FPU options under a disabled FPU policy; order every choice FPU first."""
    order = list(Strategy)
    kept: list[Choice] = []
    for choice in choices:
        options = [o for o in choice.options if policy.fpu_binary or o.strategy is not Strategy.FPU]
        if not options and choice.explicit is Strategy.FPU:
            text = "explicit FPU strategy conflicts with disabled FPU binary policy"
            raise KcfgError(FPU_POLICY_CONFLICT, op_message(choice.mnemonic, text), "op", choice.op)
        if not options:
            text = "has no tile execution strategy allowed by kernel policy"
            raise KcfgError(STRATEGY_NONE_ALLOWED, op_message(choice.mnemonic, text), "op", choice.op)
        options.sort(key=lambda option: order.index(option.strategy))
        kept.append(Choice(choice.op, choice.mnemonic, choice.walk, tuple(options), choice.explicit))
    return tuple(kept)


def _preference_knob(kind: FullFp32Kind, policy: KernelConfigPolicy) -> bool:
    return policy.matmul_full_fp32 if kind is FullFp32Kind.MATMUL else policy.reduce_full_fp32


def choose_width(
    state: KernelState,
    requirements: KernelRequirements,
    policy: KernelConfigPolicy,
    target: KernelTargetEnvironment,
) -> tuple[int, list[KernelWarning]]:
    """Step 7: full-fp32 preferences pick Bits32 when it survived; they never fail."""
    warnings: list[KernelWarning] = []
    preferring: list[str] = []
    for use in requirements.fp32_uses:
        if not _preference_knob(use.kind, policy):
            continue
        support = target.full_fp32_support(use.kind)
        if support.supported:
            preferring.append(use.op)
        elif support.fallback_warning is not None:
            warnings.append(
                KernelWarning(
                    code=FULL_FP32_ROW_REDUCE_UNAVAILABLE, op=use.op, message=support.fallback_warning
                )
            )
    prefer32 = bool(preferring)
    width = 32 if (prefer32 or 16 not in state.widths) and 32 in state.widths else 16
    if prefer32 and policy.fp32_dest_acc is not ThreeState.DISABLED and width == 16:
        warnings.extend(
            KernelWarning(code=PREFERRED_FP32_UNAVAILABLE, op=op, message=PREFERRED_FP32_MESSAGE)
            for op in preferring
        )
    return width, warnings


def settle(
    state: KernelState,
    requirements: KernelRequirements,
    policy: KernelConfigPolicy,
    target: KernelTargetEnvironment,
) -> tuple[int, list[int], list[KernelWarning]]:
    """Steps 7 and 9 after a successful search: the width, the unpack list, the warnings."""
    width, warnings = choose_width(state, requirements, policy, target)
    explicit = policy.unpack_to_dest_fp32
    unpack = list(explicit) if explicit is not None else state.unpack_dfbs(width)
    return width, unpack, warnings


def sync_modes(policy: KernelConfigPolicy) -> tuple[str, ...]:
    """Step 8: full iff the sync policy is enabled; auto and disabled give double-buffered."""
    return ("full",) if policy.dst_full_sync is ThreeState.ENABLED else ("double_buffered",)


def resolve_with(
    request: KernelcfgResolveRequest, target: KernelTargetEnvironment | None = None
) -> Resolution:
    """Steps 1-9; `target` overrides the request's architecture (capability experiments)."""
    resolution = Resolution()
    try:
        resolution.target = target if target is not None else request_target(request)
        resolution.policy = normalize_policy(request.policy, resolution.target)
        requirements = collect_requirements(request)
    except KcfgError as error:
        resolution.error = error
        return resolution
    return resolve_collected(resolution.target, resolution.policy, requirements)


def resolve_collected(
    target: KernelTargetEnvironment, policy: KernelConfigPolicy, requirements: KernelRequirements
) -> Resolution:
    """Steps 2-9 on requirements already collected (a correction's check reuses a refused kernel's)."""
    resolution = Resolution(target=target, policy=policy, requirements=requirements)
    try:
        _plan(resolution, target, policy, requirements)
    except KcfgError as error:
        resolution.error = error
    return resolution


def search_model(
    target: KernelTargetEnvironment, policy: KernelConfigPolicy, requirements: KernelRequirements
) -> SearchModel:
    """Steps 2-5: index check, initial candidates, fixed uses, then the allowed options."""
    check_dfb_indices(requirements, target)
    explicit = None if policy.unpack_to_dest_fp32 is None else frozenset(policy.unpack_to_dest_fp32)
    applier = Applier(target, explicit)
    state = initial_state(policy.fp32_dest_acc)
    conflict = applier.apply(state, requirements.fixed)
    if conflict is not None:
        raise describe(conflict)
    return SearchModel(applier, state, allowed_choices(requirements.choices, policy), sync_modes(policy))


def _plan(
    resolution: Resolution,
    target: KernelTargetEnvironment,
    policy: KernelConfigPolicy,
    requirements: KernelRequirements,
) -> None:
    model = search_model(target, policy, requirements)
    state = model.base
    outcome = KernelSolver().search(model)
    if outcome.conflict is not None:
        raise describe(outcome.conflict)
    width, unpack, resolution.warnings = settle(state, requirements, policy, target)
    strategies = {op: strategy.value for op, strategy in outcome.strategies.items()}
    resolution.plan = _issue_plan(strategies, width, model.sync_modes[0], unpack, policy.math_fidelity)
