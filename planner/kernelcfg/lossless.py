"""Which uses keep f32 bits (docs/design/kernel-config.md 4.7): the facts `precision=exact` constrains.

An f32 DFB read is lossy when every (width, unpack mode) pair the target allows for it
(4.4) reaches the math below fp32: a read through SrcA/SrcB (the FPU route and the FPU-only
ops). Under 4.3 and 4.4 each f32 read's pairs give one format, so a read is either always
lossless or never; f32 values in DST need 32-bit DST (4.3), where they are fp32. A choice
option is lossless when none of its reads is lossy.
"""

from __future__ import annotations

from planner.kernelcfg.requirements import Choice, DFBInputUse, UseBatch
from planner.kernelcfg.semantics import Strategy
from planner.targets.tenstorrent import KernelTargetEnvironment, MathFormat


def lossy_read(use: DFBInputUse, target: KernelTargetEnvironment) -> bool:
    """Whether no allowed pair gives this f32 read fp32 (non-f32 reads are out of scope)."""
    if not use.elem.is_f32:
        return False
    pairs = target.supported_dfb_configurations(use.primitive, use.route, use.elem)
    return all(target.f32_format(True, mode, width) is not MathFormat.FP32 for width, mode in pairs)


def first_lossy(uses: UseBatch, target: KernelTargetEnvironment) -> DFBInputUse | None:
    """The first lossy read of a batch, in collection order."""
    return next((use for use in uses.dfb if lossy_read(use, target)), None)


def lossless_strategies(choice: Choice, target: KernelTargetEnvironment) -> frozenset[Strategy]:
    """The strategies of `choice` whose options read no f32 value lossily."""
    return frozenset(o.strategy for o in choice.options if first_lossy(o.uses, target) is None)
