"""Exhaustive-enumeration oracle for `kernelcfg.resolve` on small kernels.

Independent of the resolver's search: it enumerates every assignment of strategies x DST
width x unpack mode (per f32 DFB; the setting is inert for other element types) and checks
each against every collected requirement with the target relations directly. Use it to
check that a kernel resolves exactly when some assignment exists, and that a returned plan
meets every requirement.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.policy import KernelConfigPolicy, ThreeState, normalize_policy
from planner.kernelcfg.protocol import KernelcfgResolveRequest, KernelConfigPlan
from planner.kernelcfg.requirements import ChoiceOption, DestinationUse, DFBInputUse, collect_requirements
from planner.kernelcfg.resolver import check_dfb_indices, request_target
from planner.targets.tenstorrent import WIDTHS, KernelTargetEnvironment, UnpackMode


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
    policy: KernelConfigPolicy
    fixed_destination: tuple[DestinationUse, ...]
    fixed_dfb: tuple[DFBInputUse, ...]
    choices: Mapping[str, tuple[ChoiceOption, ...]]
    f32_dfbs: tuple[int, ...]

    def destination_ok(self, use: DestinationUse, width: int) -> bool:
        if width == 16 and use.elem.is_32bit:
            return False
        return self.target.supports_destination_width(use.primitive, use.elem, width)

    def dfb_ok(self, use: DFBInputUse, width: int, modes: Mapping[int, UnpackMode]) -> bool:
        pairs = self.target.supported_dfb_configurations(use.primitive, use.route, use.elem)
        if not use.elem.is_f32:
            return any(w == width for w, _ in pairs)
        mode = modes[use.dfb]
        explicit = self.policy.unpack_to_dest_fp32
        if explicit is not None and mode is not (
            UnpackMode.UNPACK_TO_DEST if use.dfb in explicit else UnpackMode.DEFAULT
        ):
            return False
        return (width, mode) in pairs

    def width_ok(self, width: int) -> bool:
        if self.policy.fp32_dest_acc is ThreeState.ENABLED:
            return width == 32
        if self.policy.fp32_dest_acc is ThreeState.DISABLED:
            return width == 16
        return True

    def satisfies(self, assignment: Assignment) -> bool:
        """Every requirement, fixed and of the chosen options, holds under `assignment`."""
        width, modes = assignment.width, assignment.modes
        if not self.width_ok(width):
            return False
        destination = list(self.fixed_destination)
        dfb = list(self.fixed_dfb)
        for op, options in self.choices.items():
            chosen = [o for o in options if o.strategy.value == assignment.strategies.get(op)]
            if not chosen:
                return False
            destination.extend(chosen[0].uses.destination)
            dfb.extend(chosen[0].uses.dfb)
        return all(self.destination_ok(u, width) for u in destination) and all(
            self.dfb_ok(u, width, modes) for u in dfb
        )

    def assignments(self) -> Iterator[Assignment]:
        ops = sorted(self.choices)
        strategy_sets = [[o.strategy.value for o in self.choices[op]] for op in ops]
        for strategies in itertools.product(*strategy_sets):
            for width in WIDTHS:
                for modes in itertools.product(list(UnpackMode), repeat=len(self.f32_dfbs)):
                    yield Assignment(
                        dict(zip(ops, strategies, strict=True)),
                        width,
                        dict(zip(self.f32_dfbs, modes, strict=True)),
                    )

    def satisfiable(self) -> bool:
        return any(self.satisfies(a) for a in self.assignments())

    def plan_satisfies(self, plan: KernelConfigPlan) -> bool:
        """The plan read as an assignment: listed f32 DFBs unpack to DST, the others default."""
        modes = {
            d: UnpackMode.UNPACK_TO_DEST if d in plan.unpack_to_dest_fp32 else UnpackMode.DEFAULT
            for d in self.f32_dfbs
        }
        return self.satisfies(Assignment(dict(plan.strategies), plan.dst_width, modes))


def enum_oracle(request: KernelcfgResolveRequest) -> EnumOracle | None:
    """The oracle for `request`, or None when it is refused before the search (target, policy, ops)."""
    try:
        target = request_target(request)
        policy = normalize_policy(request.policy, target)
        requirements = collect_requirements(request)
        check_dfb_indices(requirements, target)
    except KcfgError:
        return None
    choices = {
        choice.op: tuple(o for o in choice.options if policy.fpu_binary or o.strategy.value != "fpu")
        for choice in requirements.choices
    }
    f32 = sorted({u.dfb for u in requirements.all_dfb_uses() if u.elem.is_f32})
    return EnumOracle(
        target, policy, requirements.fixed.destination, requirements.fixed.dfb, choices, tuple(f32)
    )
