"""Exhaustive-enumeration oracle for `kernelcfg.resolve` on small kernels.

It shares no logic with the resolver: it reads the request itself, with its own literal
transcription of docs/design/kernel-config.md sections 2 (op semantics) and 3 (requirements)
in `kernel_enum_needs`, and of sections 4.6 (DST capacity), 5 (policy) and 6 (steps 2, 7,
8, 9) here; both modules import only the protocol models and the target tables. It then
enumerates every assignment of strategies x DST width x DST sync x unpack mode (per f32
DFB; the setting is inert for other element types) and checks each requirement against the
target relations directly, and the kernel's largest slot demand against its own copy of
the capacity table. Under `precision=exact` it also requires, by its own reading of 4.7,
that no f32 value loses bits: an f32 DFB read in the default unpack mode goes through
SrcA/SrcB (TF32 or bfloat16), and an f32 value in 16-bit DST is bfloat16. Use it to check
that a kernel resolves exactly when some assignment exists, that a returned plan meets
every requirement (no plan holds more DST slots than its width and sync give, an exact plan
loses no bits), and that its width, unpack list and sync are the ones steps 7-9 give for
its strategies.

Op mnemonics outside section 2's table (the spec's "..." of unary ops) are beyond the
oracle: `enum_oracle` returns None and `refusal` says nothing for them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from planner.kernelcfg.protocol import KernelcfgResolveRequest, KernelConfigPlan
from planner.targets.tenstorrent import (
    WIDTHS,
    FullFp32Kind,
    KernelTargetEnvironment,
    TargetError,
    UnpackMode,
    build_target,
)
from planner.testing.oracles.kernel_enum_needs import (
    BeyondOracle,
    Need,
    Refusal,
    Refused,
    kernel_needs,
    refuse,
    three_state,
)

__all__ = ["Assignment", "EnumOracle", "Need", "Refusal", "enum_oracle", "refusal"]

SYNCS = ("double_buffered", "full")
# Section 4.6, transcribed: DST tiles at 16 bits are 16 with full sync and 8 double-buffered;
# 32-bit elements halve both.
DST_TILES = {(16, "full"): 16, (16, "double_buffered"): 8, (32, "full"): 8, (32, "double_buffered"): 4}


@dataclass(frozen=True)
class Assignment:
    """One complete configuration: a strategy per choice op, a width, a sync, a mode per f32 DFB."""

    strategies: Mapping[str, str]
    width: int
    modes: Mapping[int, UnpackMode]
    sync: str


@dataclass(frozen=True)
class EnumOracle:
    """The requirements of one kernel, checkable against any assignment."""

    target: KernelTargetEnvironment
    fp32_dest_acc: str  # auto | enabled | disabled
    dst_full_sync: str  # auto | enabled | disabled
    slots: int  # the most DST slots one op holds at once (0: none stated)
    explicit_unpack: frozenset[int] | None
    exact: bool  # precision=exact: no f32 value may lose bits
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

    def loses_bits(self, need: Need, width: int, modes: Mapping[int, UnpackMode]) -> bool:
        """4.7, transcribed: an f32 DFB read in the default mode, or an f32 value in 16-bit DST."""
        if not need.elem.is_f32:
            return False
        if need.dfb is None:
            return width == 16
        return modes.get(need.dfb, UnpackMode.DEFAULT) is UnpackMode.DEFAULT

    def losses(self, assignment: Assignment) -> list[Need]:
        """The needs of `assignment` (fixed and of its chosen options) that lose f32 bits."""
        return [
            n for n in self.chosen_needs(assignment) if self.loses_bits(n, assignment.width, assignment.modes)
        ]

    def chosen_needs(self, assignment: Assignment) -> list[Need]:
        needs = list(self.fixed)
        for op, options in self.choices.items():
            needs.extend(options.get(assignment.strategies.get(op, ""), ()))
        return needs

    def width_ok(self, width: int) -> bool:
        return {"enabled": width == 32, "disabled": width == 16}.get(self.fp32_dest_acc, True)

    def sync_ok(self, width: int, sync: str) -> bool:
        """The sync policy allows `sync`, and the width and sync give the kernel's slot demand."""
        allowed = {"enabled": sync == "full", "disabled": sync == "double_buffered"}
        return allowed.get(self.dst_full_sync, True) and self.slots <= DST_TILES[(width, sync)]

    def satisfies(self, assignment: Assignment) -> bool:
        """Every requirement, fixed and of the chosen options, holds under `assignment`."""
        if not self.width_ok(assignment.width) or set(assignment.strategies) != set(self.choices):
            return False
        if not self.sync_ok(assignment.width, assignment.sync):
            return False
        if any(assignment.strategies[op] not in options for op, options in self.choices.items()):
            return False
        needs = self.chosen_needs(assignment)
        if self.exact and any(self.loses_bits(n, assignment.width, assignment.modes) for n in needs):
            return False
        return all(self.need_ok(need, assignment.width, assignment.modes) for need in needs)

    def assignments(self, strategies: Mapping[str, str] | None = None) -> Iterator[Assignment]:
        """Every assignment (or every one with the given strategies)."""
        ops = sorted(self.choices)
        strategy_sets = (
            [list(self.choices[op]) for op in ops] if strategies is None else [[strategies[op]] for op in ops]
        )
        for chosen in itertools.product(*strategy_sets):
            for width, sync in itertools.product(WIDTHS, SYNCS):
                for modes in itertools.product(list(UnpackMode), repeat=len(self.f32_dfbs)):
                    yield Assignment(
                        dict(zip(ops, chosen, strict=True)),
                        width,
                        dict(zip(self.f32_dfbs, modes, strict=True)),
                        sync,
                    )

    def satisfiable(self) -> bool:
        return any(self.satisfies(a) for a in self.assignments())

    def plan_assignment(self, plan: KernelConfigPlan) -> Assignment:
        """The plan read as an assignment: listed f32 DFBs unpack to DST, the others default."""
        listed = set(plan.unpack_to_dest_fp32)
        modes = {d: UnpackMode.UNPACK_TO_DEST if d in listed else UnpackMode.DEFAULT for d in self.f32_dfbs}
        return Assignment(dict(plan.strategies), plan.dst_width, modes, plan.dst_sync)

    def plan_satisfies(self, plan: KernelConfigPlan) -> bool:
        return self.satisfies(self.plan_assignment(plan))

    def settled(self, strategies: Mapping[str, str]) -> tuple[int, list[int], str] | None:
        """Steps 7-9 for fixed strategies: the width, the unpack list and the sync, or None if none fits.

        Width: 32 if (a supported full-fp32 preference or no 16-bit assignment) and a 32-bit
        assignment exists, else 16. Unpack: the explicit set verbatim, else the f32 DFBs whose
        mode is unpack-to-DST in the chosen width's assignment. Sync: double-buffered if an
        assignment of the chosen width has it, else full.
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
        syncs = {a.sync for a in fitting if a.width == width}
        return width, unpack, "double_buffered" if "double_buffered" in syncs else "full"


def _read(request: KernelcfgResolveRequest) -> EnumOracle:
    """Steps 1-2 (target, policy, requirements, DFB indices) in the spec's order of refusal."""
    desc = request.system_desc
    try:
        target = build_target(
            request.arch, *(() if desc is None else (desc.chip_archs, desc.device_chip_ids))
        )
    except TargetError as error:
        raise refuse(error.code) from None
    policy = request.policy
    fp32 = three_state(policy.fp32_dest_acc)
    sync = three_state(policy.dst_full_sync)
    explicit = policy.unpack_to_dest_fp32
    if explicit is not None and any(not -(2**31) <= i < 2**31 for i in explicit):
        raise refuse("kcfg.policy_unpack_attr_malformed")
    if explicit is not None and any(not 0 <= i < target.dfb_capacity for i in explicit):
        raise refuse("kcfg.policy_unpack_index_out_of_range")
    if policy.math_fidelity not in (None, "LoFi", "HiFi2", "HiFi3", "HiFi4"):
        raise refuse("kcfg.policy_option_invalid")
    if policy.precision not in ("default", "exact"):
        raise refuse("kcfg.policy_option_invalid")
    needs = kernel_needs(request)
    fixed, choices, preferences = needs.fixed, needs.choices, needs.preferences
    everything = fixed + [n for options in choices.values() for needs in options.values() for n in needs]
    by_walk = {op.id: walk for walk, op in enumerate(request.ops)}
    for need in sorted(everything, key=lambda n: by_walk[n.op]):
        if need.dfb is not None and need.dfb >= target.dfb_capacity:
            raise refuse("kcfg.dfb_index_out_of_range", need.op, need.operand)
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
        sync,
        needs.slots,
        None if explicit is None else frozenset(explicit),
        policy.precision == "exact",
        tuple(fixed),
        choices,
        tuple(f32),
        prefer32,
    )


def enum_oracle(request: KernelcfgResolveRequest) -> EnumOracle | None:
    """The oracle for `request`, or None when it is refused before the search or beyond the oracle."""
    try:
        return _read(request)
    except (Refused, BeyondOracle):
        return None


def refusal(request: KernelcfgResolveRequest) -> Refusal | None:
    """Why `request` is refused before the search (first refusal in spec order), if it is."""
    try:
        _read(request)
    except Refused as refused:
        return refused.refusal
    except BeyondOracle:
        return None
    return None
