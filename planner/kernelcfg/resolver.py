"""The resolver pipeline (docs/design/kernel-config.md section 6, steps 1-9) for one kernel function.

Only this module decides a plan: it states the kernel (`state_kernel`), as a
python-constraint problem (`state_problem`) solved by `KernelSolver`, and reads the plan
off the solution (`solve_problem`). A kernel that needs no search (every choice has one
strategy left) is read directly (`planner.kernelcfg.reading`): the same reading the
solver makes of its problem, so the same plan or conflict, and python-constraint is
imported only when a kernel needs a search. `kernel_problem` exposes the problem so that
a caller can add a constraint of its own before solving.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
from planner.kernelcfg.fidelity import FidelityWarnings, fidelity_warnings
from planner.kernelcfg.fold_tables import fold_table
from planner.kernelcfg.messages import describe
from planner.kernelcfg.policy import KernelConfigPolicy, Precision, ThreeState, normalize_policy
from planner.kernelcfg.protocol import KernelcfgResolveRequest, KernelConfigPlan, KernelWarning
from planner.kernelcfg.reading import (
    SYNC_VAR,
    WIDTH_VAR,
    Assignments,
    KernelStatement,
    direct_reading,
    strategies_of,
    unpacked_dfbs,
)
from planner.kernelcfg.requirements import Choice, KernelRequirements, collect_requirements
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.state import Applier
from planner.targets.tenstorrent import (
    DOUBLE_BUFFERED,
    FULL,
    SYNC_MODES,
    FullFp32Kind,
    KernelTargetEnvironment,
    TargetError,
    build_target,
)

if TYPE_CHECKING:
    import constraint


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
    if requirements.highest_dfb() <= last:
        return
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
        if policy.fpu_binary and _fpu_first(choice):
            kept.append(choice)
            continue
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


def _fpu_first(choice: Choice) -> bool:
    """The options are already in step 5's order: FPU, if any, first."""
    return all(option.strategy is Strategy.SFPU for option in choice.options[1:])


def _preference_knob(kind: FullFp32Kind, policy: KernelConfigPolicy) -> bool:
    return policy.matmul_full_fp32 if kind is FullFp32Kind.MATMUL else policy.reduce_full_fp32


@dataclass(frozen=True, slots=True)
class WidthPreference:
    """Step 7's inputs: the ops preferring 32 bits and the target's fallback warnings."""

    preferring: tuple[str, ...]
    fallback: tuple[KernelWarning, ...]

    @property
    def order(self) -> tuple[int, ...]:
        """The width candidates, preferred first: the solver takes the first one that survives.

        This is step 7's one width rule: 32 if (32 is preferred or 16 did not survive) and 32
        survived, else 16.
        """
        return (32, 16) if self.preferring else (16, 32)

    def warnings(self, width: int, policy: KernelConfigPolicy) -> list[KernelWarning]:
        """The fallback warnings, then one per preferring op when a non-disabled policy got 16 bits."""
        warnings = list(self.fallback)
        if self.preferring and policy.fp32_dest_acc is not ThreeState.DISABLED and width == 16:
            warnings.extend(
                KernelWarning(code=PREFERRED_FP32_UNAVAILABLE, op=op, message=PREFERRED_FP32_MESSAGE)
                for op in self.preferring
            )
        return warnings


def width_preference(
    requirements: KernelRequirements, policy: KernelConfigPolicy, target: KernelTargetEnvironment
) -> WidthPreference:
    """Step 7: full-fp32 uses whose knob is on prefer 32 bits where the target supports them."""
    preferring: list[str] = []
    fallback: list[KernelWarning] = []
    for use in requirements.fp32_uses:
        if not _preference_knob(use.kind, policy):
            continue
        support = target.full_fp32_support(use.kind)
        if support.supported:
            preferring.append(use.op)
        elif support.fallback_warning is not None:
            fallback.append(
                KernelWarning(
                    code=FULL_FP32_ROW_REDUCE_UNAVAILABLE, op=use.op, message=support.fallback_warning
                )
            )
    return WidthPreference(tuple(preferring), tuple(fallback))


def sync_modes(policy: KernelConfigPolicy) -> tuple[str, ...]:
    """Step 8's domain: enabled pins full, disabled double-buffered; auto allows both, preferring
    double-buffered (full only when a slot demand needs it)."""
    if policy.dst_full_sync is ThreeState.AUTO:
        return SYNC_MODES
    return (FULL,) if policy.dst_full_sync is ThreeState.ENABLED else (DOUBLE_BUFFERED,)


def _policy_width(policy: KernelConfigPolicy) -> int | None:
    """Step 3: the width an enabled (32) or disabled (16) fp32 policy pins."""
    if policy.fp32_dest_acc is ThreeState.AUTO:
        return None
    return 32 if policy.fp32_dest_acc is ThreeState.ENABLED else 16


@dataclass(frozen=True, slots=True)
class StatedKernel:
    """A kernel's statement and what turns a solution of it into a plan."""

    statement: KernelStatement
    policy: KernelConfigPolicy
    preference: WidthPreference
    fidelity: FidelityWarnings

    def plan(self, solution: Assignments) -> tuple[KernelConfigPlan, list[KernelWarning]]:
        """Steps 7-9 read off a solution: the plan and its warnings."""
        policy = self.policy
        width = solution[WIDTH_VAR]
        explicit = policy.unpack_to_dest_fp32
        unpack = list(explicit) if explicit is not None else unpacked_dfbs(solution)
        strategies = {op: strategy.value for op, strategy in strategies_of(solution).items()}
        plan = KernelConfigPlan(
            strategies=dict(sorted(strategies.items())),
            dst_width=width,
            dst_sync=solution[SYNC_VAR],
            unpack_to_dest_fp32=sorted(unpack),
            math_fidelity=policy.math_fidelity,
            math_approx_mode=policy.math_approx_mode,
        )
        return plan, self.preference.warnings(width, policy) + self.fidelity.warnings(plan)


@dataclass(frozen=True, slots=True)
class KernelProblem:
    """A kernel's python-constraint problem and the statement it was built from."""

    csp: constraint.Problem
    kernel: StatedKernel


def state_kernel(
    target: KernelTargetEnvironment, policy: KernelConfigPolicy, requirements: KernelRequirements
) -> StatedKernel:
    """Steps 2-5 and 7's width order, before any solver sees them."""
    check_dfb_indices(requirements, target)
    explicit = None if policy.unpack_to_dest_fp32 is None else frozenset(policy.unpack_to_dest_fp32)
    preference = width_preference(requirements, policy, target)
    statement = KernelStatement(
        Applier(target, explicit, shapes=fold_table(target)),
        width_order=preference.order,
        policy_width=_policy_width(policy),
        fixed=requirements.fixed,
        choices=allowed_choices(requirements.choices, policy),
        sync_modes=sync_modes(policy),
        exact=policy.precision is Precision.EXACT,
        walk_order=requirements.walk_order,
    )
    return StatedKernel(statement, policy, preference, fidelity_warnings(requirements, policy, target))


def _problem_of(kernel: StatedKernel) -> KernelProblem:
    """The statement as one python-constraint problem, solved by `KernelSolver`."""
    from planner.kernelcfg.problem import build_problem  # python-constraint: only where a search is stated
    from planner.kernelcfg.solver import KernelSolver

    return KernelProblem(build_problem(kernel.statement, KernelSolver()), kernel)


def state_problem(
    target: KernelTargetEnvironment, policy: KernelConfigPolicy, requirements: KernelRequirements
) -> KernelProblem:
    """Steps 2-5 and 7's width order stated as one problem, solved by `KernelSolver`."""
    return _problem_of(state_kernel(target, policy, requirements))


def kernel_problem(
    request: KernelcfgResolveRequest, target: KernelTargetEnvironment | None = None
) -> KernelProblem:
    """Steps 1-5 for `request`: its problem, open to extra constraints before `solve_problem`."""
    env = target if target is not None else request_target(request)
    return state_problem(env, normalize_policy(request.policy, env), collect_requirements(request))


def solve_problem(kernel: KernelProblem) -> tuple[KernelConfigPlan, list[KernelWarning]]:
    """Steps 6-9: solve the problem with its solver; a failed search raises its typed conflict."""
    solution = kernel.csp.getSolution()
    if solution is None:
        conflict = getattr(kernel.csp.getSolver(), "conflict", None)  # a KernelSolver's (or a subclass's)
        if conflict is None:
            raise ValueError("the problem has no solution and its solver reports no conflict")
        raise describe(conflict)
    return kernel.kernel.plan(solution)


def solve_kernel(kernel: StatedKernel) -> tuple[KernelConfigPlan, list[KernelWarning]]:
    """Steps 6-9: through the python-constraint problem, or directly when the kernel needs no search."""
    if not kernel.statement.needs_no_search():
        return solve_problem(_problem_of(kernel))
    solution, conflict = direct_reading(kernel.statement).resolve()
    if solution is None:
        assert conflict is not None  # a failed search always names its conflict
        raise describe(conflict)
    return kernel.plan(solution)


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
        resolution.plan, resolution.warnings = solve_kernel(state_kernel(target, policy, requirements))
    except KcfgError as error:
        resolution.error = error
    return resolution
