"""The precision account of a resolved plan (docs/design/kernel-config.md 4.7): where f32 bits are lost.

For every op in walk order: each f32 operand and the format it reaches the math in (a DFB
read in the default mode through SrcA/SrcB: TF32 at 32 bits, bfloat16 at 16; unpacked to
DST or already in DST: the DST width's), then its f32 result and the format DST keeps it at.
Each loss names the settings that cause it and whether another legal plan avoids it: never
for a fixed op's SrcA/SrcB read; for a choice op on the FPU, when some legal plan runs it on
a lossless strategy (found by resolving again with such ops held lossless, halving a group
that fails, so a kernel whose losses are all avoidable costs one extra resolution). Reduces
and matmuls also report whether they accumulate in full fp32; the accuracy knobs are echoed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from planner.kernelcfg.lossless import lossless_strategies
from planner.kernelcfg.policy import ThreeState
from planner.kernelcfg.protocol import (
    KernelConfigPlan,
    PrecisionAccount,
    PrecisionAccumulation,
    PrecisionValue,
)
from planner.kernelcfg.requirements import Choice, DFBInputUse, KernelRequirements, UseBatch
from planner.kernelcfg.resolver import Resolution, resolve_collected
from planner.targets.tenstorrent import FullFp32Kind, KernelTargetEnvironment, MathFormat, UnpackMode


def _chosen_uses(requirements: KernelRequirements, plan: KernelConfigPlan) -> dict[str, UseBatch]:
    """Every op's uses under the plan (a choice: its chosen option's), by op id in walk order."""
    by_op = {op: UseBatch() for op in requirements.walk_order}
    fixed = requirements.fixed
    for use in fixed.destination:
        by_op[use.op] = by_op[use.op] + UseBatch(destination=(use,))
    for read in fixed.dfb:
        by_op[read.op] = by_op[read.op] + UseBatch(dfb=(read,))
    for choice in requirements.choices:
        strategy = plan.strategies.get(choice.op)
        by_op[choice.op] = next(o.uses for o in choice.options if o.strategy.value == strategy)
    return by_op


class _Account:
    def __init__(self, resolution: Resolution) -> None:
        assert resolution.plan is not None and resolution.target is not None
        assert resolution.requirements is not None and resolution.policy is not None
        self.resolution = resolution
        self.plan: KernelConfigPlan = resolution.plan
        self.target: KernelTargetEnvironment = resolution.target
        self.requirements: KernelRequirements = resolution.requirements
        self.choices = {choice.op: choice for choice in self.requirements.choices}
        self.width = self.plan.dst_width

    def values(self) -> list[PrecisionValue]:
        found: list[PrecisionValue] = []
        for op, uses in _chosen_uses(self.requirements, self.plan).items():
            reads = {(read.operand): read for read in uses.dfb if read.elem.is_f32}
            held = {use.operand: use for use in uses.destination if use.elem.is_f32}
            for operand in sorted({*reads, *(n for n in held if n is not None)}):
                read = reads.get(operand)
                found.append(self.read(read) if read is not None else self.held(op, operand))
            if None in held:
                found.append(self.held(op, None))
        return found

    def read(self, read: DFBInputUse) -> PrecisionValue:
        unpacked = read.dfb in self.plan.unpack_to_dest_fp32
        mode = UnpackMode.UNPACK_TO_DEST if unpacked else UnpackMode.DEFAULT
        fmt = self.target.f32_format(True, mode, self.width)
        where = f"DFB {read.dfb}"
        if fmt is MathFormat.FP32:
            reason = f"reads {where} unpacked to DST: fp32 on DST"
            return PrecisionValue(
                op=read.op, operand=read.operand, dfb=read.dfb, format=fmt, lossless=True, reason=reason
            )
        choice = read.op in self.choices
        causes = ["strategy", "unpack_mode"] if choice else ["unpack_mode"]
        causes += ["dst_width"] if fmt is MathFormat.BF16 else []
        engine = "the FPU strategy reads" if choice else f"ttl.{read.mnemonic} reads"
        reason = (
            f"{engine} {where} through SrcA/SrcB in the default unpack mode: {fmt.value} at "
            f"{self.width}-bit DST"
        )
        return PrecisionValue(
            op=read.op,
            operand=read.operand,
            dfb=read.dfb,
            format=fmt,
            lossless=False,
            causes=causes,
            reason=reason,
        )

    def held(self, op: str, operand: int | None) -> PrecisionValue:
        """An f32 value already in DST (an operand another op produced) or the op's result."""
        fmt = self.target.f32_format(False, UnpackMode.DEFAULT, self.width)
        what = "result kept" if operand is None else "value read"
        lossless = fmt is MathFormat.FP32
        return PrecisionValue(
            op=op,
            operand=operand,
            format=fmt,
            lossless=lossless,
            causes=[] if lossless else ["dst_width"],
            reason=f"{what} in {self.width}-bit DST: {fmt.value}",
        )

    def accumulation(self) -> list[PrecisionAccumulation]:
        found = []
        policy = self.resolution.policy
        assert policy is not None
        for use in self.requirements.fp32_uses:
            matmul = use.kind is FullFp32Kind.MATMUL
            knob = "matmul-full-fp32" if matmul else "reduce-full-fp32"
            wanted = policy.matmul_full_fp32 if matmul else policy.reduce_full_fp32
            supported = self.target.full_fp32_support(use.kind).supported
            full = wanted and supported and self.width == 32
            if full:
                reason = f"full-fp32 {use.kind.value} accumulation in 32-bit DST"
            elif not wanted:
                reason = f"{knob} is off"
            elif not supported:
                reason = f"the {self.target.name} target has no full-fp32 {use.kind.value} accumulation"
            else:
                reason = f"accumulates in {self.width}-bit DST"
            found.append(PrecisionAccumulation(op=use.op, kind=use.kind.value, full_fp32=full, reason=reason))
        return found


def _held_lossless(
    requirements: KernelRequirements, ops: Sequence[str], target: KernelTargetEnvironment
) -> KernelRequirements:
    """The requirements with the choices `ops` kept to their lossless strategies."""
    held = set(ops)

    def kept(choice: Choice) -> Choice:
        if choice.op not in held:
            return choice
        strategies = lossless_strategies(choice, target)
        return replace(choice, options=tuple(o for o in choice.options if o.strategy in strategies))

    return replace(requirements, choices=tuple(kept(choice) for choice in requirements.choices))


def _avoidable(resolution: Resolution, ops: list[str]) -> set[str]:
    """The choice ops among `ops` that some legal plan runs on a lossless strategy: a group that
    resolves with all of them held lossless proves each; a failing group is halved."""
    assert resolution.target is not None and resolution.policy is not None
    assert resolution.requirements is not None
    target, policy, requirements = resolution.target, resolution.policy, resolution.requirements
    pending, proven = [ops], set()
    while pending:
        group = pending.pop()
        if resolve_collected(target, policy, _held_lossless(requirements, group, target)).ok:
            proven.update(group)
        elif len(group) > 1:
            half = len(group) // 2
            pending += [group[half:], group[:half]]
    return proven


def _fix(value: PrecisionValue, choice: bool, avoidable: bool) -> str:
    """What keeps a lost value fp32: another legal plan, or a change to the kernel."""
    if value.dfb is None:
        return (
            "32-bit DST keeps it fp32 in another legal plan" if avoidable else "no legal plan has 32-bit DST"
        )
    if avoidable:
        return f"another legal plan keeps it fp32: the SFPU with DFB {value.dfb} unpacked to DST"
    if choice:
        return (
            f"no legal plan runs it on the SFPU; its own copy of DFB {value.dfb} (unpacked to DST) "
            "or bf16 input would make it lossless"
        )
    return "an SFPU alternative, bf16 input or another DFB would make it lossless"


def precision_account(resolution: Resolution) -> PrecisionAccount:
    """The account of a resolved plan (see the module docstring)."""
    account = _Account(resolution)
    policy = resolution.policy
    assert policy is not None
    values = account.values()
    lossy_choices = list(dict.fromkeys(v.op for v in values if not v.lossless and v.op in account.choices))
    avoidable = _avoidable(resolution, lossy_choices) if lossy_choices else set()
    if any(not v.lossless and v.dfb is None for v in values):  # an f32 value in 16-bit DST
        widened = replace(policy, fp32_dest_acc=ThreeState.ENABLED)
        if resolve_collected(account.target, widened, account.requirements).ok:
            avoidable.update(v.op for v in values if v.dfb is None)
    marked = []
    for value in values:
        if not value.lossless:
            ok = value.op in avoidable and (value.dfb is None or value.op in account.choices)
            reason = f"{value.reason}; {_fix(value, value.op in account.choices, ok)}"
            value = value.model_copy(update={"avoidable": ok, "reason": reason})
        marked.append(value)
    return PrecisionAccount(
        precision=policy.precision.value,
        math_fidelity=policy.math_fidelity,
        math_approx_mode=policy.math_approx_mode,
        values=marked,
        accumulation=account.accumulation(),
    )
