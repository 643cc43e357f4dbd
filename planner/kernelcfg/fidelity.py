"""The accuracy knobs' warnings (docs/design/kernel-config.md 5): combinations a source warns about.

Math fidelity applies to the FPU's multiplies only (tt-metal's "Achieving FP32 Accuracy for
Computation"), so both warnings name an op that multiplies on the FPU: a matmul, or a
`tile_mul` the plan runs on the FPU. The knobs themselves are forwarded unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.kernelcfg.codes import MATH_FIDELITY_HIFI2_MATMUL, MATH_FIDELITY_HIFI4_FP32_WORMHOLE
from planner.kernelcfg.policy import KernelConfigPolicy
from planner.kernelcfg.protocol import KernelConfigPlan, KernelWarning
from planner.kernelcfg.requirements import KernelRequirements
from planner.targets.tenstorrent import FullFp32Kind, KernelTargetEnvironment

HIFI2_MATMUL_WARNING = (
    "HiFi2 math fidelity on a matmul: bf16 matmuls configured HiFi2 have been seen to run as LoFi "
    "(tt-metal#55889); check the fidelity the matmul runs at"
)


@dataclass(frozen=True, slots=True)
class FidelityWarnings:
    """What the warnings depend on besides the plan: the knob, the target's fault, the multiplies."""

    fidelity: str | None
    hifi4_fp32_fault: str | None
    matmuls: tuple[str, ...]
    multiplies: tuple[str, ...]  # tile_mul ops, in walk order (FPU only if the plan says so)

    def warnings(self, plan: KernelConfigPlan) -> list[KernelWarning]:
        """tt-metal#52327 on the first FPU multiply at 32 bits with HiFi4 (where the target has
        the fault); tt-metal#55889 on every matmul with HiFi2."""
        found: list[KernelWarning] = []
        fpu = [*self.matmuls, *(op for op in self.multiplies if plan.strategies.get(op) == "fpu")]
        if self.fidelity == "HiFi4" and self.hifi4_fp32_fault and plan.dst_width == 32 and fpu:
            found.append(
                KernelWarning(
                    code=MATH_FIDELITY_HIFI4_FP32_WORMHOLE, op=fpu[0], message=self.hifi4_fp32_fault
                )
            )
        if self.fidelity == "HiFi2":
            found += [
                KernelWarning(code=MATH_FIDELITY_HIFI2_MATMUL, op=op, message=HIFI2_MATMUL_WARNING)
                for op in self.matmuls
            ]
        return found


def fidelity_warnings(
    requirements: KernelRequirements, policy: KernelConfigPolicy, target: KernelTargetEnvironment
) -> FidelityWarnings:
    """What the warnings need from the kernel, read once when the problem is stated."""
    matmuls = tuple(use.op for use in requirements.fp32_uses if use.kind is FullFp32Kind.MATMUL)
    multiplies = tuple(choice.op for choice in requirements.choices if choice.mnemonic == "tile_mul")
    return FidelityWarnings(policy.math_fidelity, target.hifi4_fp32_fault, matmuls, multiplies)
