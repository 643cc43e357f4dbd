"""`KernelConfigPolicy`: normalized options and function attributes (docs/design/kernel-config.md section 5).

The policy holds no inferred op facts; it only restricts widths, sync, FPU availability, the
explicit unpack set and, with `precision` exact, the routes that lose f32 bits; the accuracy
knobs (math fidelity, approximation mode) are checked and forwarded. Errors point at the
function.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from planner.kernelcfg.codes import (
    POLICY_ATTR_NOT_BOOL,
    POLICY_OPTION_INVALID,
    POLICY_UNPACK_ATTR_MALFORMED,
    POLICY_UNPACK_INDEX_OUT_OF_RANGE,
    KcfgError,
)
from planner.kernelcfg.protocol import KernelPolicy
from planner.targets.tenstorrent import MATH_FIDELITIES, KernelTargetEnvironment


class ThreeState(StrEnum):
    AUTO = "auto"
    ENABLED = "enabled"
    DISABLED = "disabled"


class Precision(StrEnum):
    DEFAULT = "default"  # today's resolution; losses are reported, not constrained
    EXACT = "exact"  # hard constraints: no f32 operand or result loses bits (6.10)


_THREE_STATE_SPELLINGS: dict[str, ThreeState] = {
    "auto": ThreeState.AUTO,
    "enabled": ThreeState.ENABLED,
    "true": ThreeState.ENABLED,
    "1": ThreeState.ENABLED,
    "disabled": ThreeState.DISABLED,
    "false": ThreeState.DISABLED,
    "0": ThreeState.DISABLED,
}


@dataclass(frozen=True, slots=True)
class KernelConfigPolicy:
    fp32_dest_acc: ThreeState
    dst_full_sync: ThreeState
    reduce_full_fp32: bool
    matmul_full_fp32: bool
    fpu_binary: bool
    unpack_to_dest_fp32: tuple[int, ...] | None  # sorted, deduplicated
    math_fidelity: str | None
    math_approx_mode: bool | None = None
    precision: Precision = Precision.DEFAULT


def parse_three_state(value: object, option: str, attribute: str) -> ThreeState:
    """A bool is a function attribute (true/false); a string is the pass option's spelling."""
    if isinstance(value, bool):
        return ThreeState.ENABLED if value else ThreeState.DISABLED
    if isinstance(value, str):
        state = _THREE_STATE_SPELLINGS.get(value)
        if state is not None:
            return state
        raise KcfgError(
            POLICY_OPTION_INVALID,
            f"invalid {option} value '{value}'; expected auto, enabled, or disabled",
            "function",
        )
    raise KcfgError(POLICY_ATTR_NOT_BOOL, f"{attribute} must be a boolean attribute", "function")


def parse_unpack_set(value: object, target: KernelTargetEnvironment) -> tuple[int, ...] | None:
    """`ttl.unpack_to_dest_fp32`: a dense i32 array of in-range indices, kept sorted and deduplicated."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(i, int) and not isinstance(i, bool) and -(2**31) <= i < 2**31 for i in value
    ):
        raise KcfgError(
            POLICY_UNPACK_ATTR_MALFORMED,
            "ttl.unpack_to_dest_fp32 must be a dense i32 array attribute",
            "function",
        )
    last = target.dfb_capacity - 1
    if any(not 0 <= index <= last for index in value):
        raise KcfgError(
            POLICY_UNPACK_INDEX_OUT_OF_RANGE,
            "ttl.unpack_to_dest_fp32 must contain dataflow buffer indices in range "
            f"[0, {last}] for {target.capacity_description}",
            "function",
        )
    return tuple(sorted(set(value)))


def parse_choice(value: str | None, option: str, allowed: tuple[str, ...]) -> str | None:
    """A text option that must be one of `allowed` (None: not given)."""
    if value is None or value in allowed:
        return value
    expected = ", ".join(allowed[:-1]) + f", or {allowed[-1]}" if len(allowed) > 2 else " or ".join(allowed)
    raise KcfgError(
        POLICY_OPTION_INVALID, f"invalid {option} value '{value}'; expected {expected}", "function"
    )


def normalize_policy(policy: KernelPolicy, target: KernelTargetEnvironment) -> KernelConfigPolicy:
    """Section 5, checked in table order so the first bad setting is the one reported."""
    return KernelConfigPolicy(
        fp32_dest_acc=parse_three_state(policy.fp32_dest_acc, "fp32-dest-acc-en", "fp32_dest_acc_en"),
        dst_full_sync=parse_three_state(policy.dst_full_sync, "dst-full-sync-en", "dst_full_sync_en"),
        reduce_full_fp32=policy.reduce_full_fp32,
        matmul_full_fp32=policy.matmul_full_fp32,
        fpu_binary=policy.fpu_binary,
        unpack_to_dest_fp32=parse_unpack_set(policy.unpack_to_dest_fp32, target),
        math_fidelity=parse_choice(policy.math_fidelity, "math-fidelity", MATH_FIDELITIES),
        math_approx_mode=policy.math_approx_mode,
        precision=Precision(
            parse_choice(policy.precision, "precision", tuple(Precision)) or Precision.DEFAULT
        ),
    )
