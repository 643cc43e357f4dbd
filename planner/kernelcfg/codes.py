"""Every `kcfg.*` diagnostic code (docs/design/kernel-config.md section 8), defined once.

Target-construction codes live with the target tables (`planner.targets.tenstorrent`) and are
re-exported here so that this module lists the whole `kcfg.*` family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from planner.targets.tenstorrent import (
    TARGET_ARCH_INVALID,
    TARGET_DEVICE_CHIP_INVALID,
    TARGET_DEVICE_MISMATCH,
    TARGET_MIXED_ARCH,
    TARGET_NOT_IMPLEMENTED,
    TARGET_QUASAR_UNSUPPORTED,
)

__all__ = [
    "TARGET_ARCH_INVALID",
    "TARGET_DEVICE_CHIP_INVALID",
    "TARGET_DEVICE_MISMATCH",
    "TARGET_MIXED_ARCH",
    "TARGET_NOT_IMPLEMENTED",
    "TARGET_QUASAR_UNSUPPORTED",
]

POLICY_OPTION_INVALID = "kcfg.policy_option_invalid"
POLICY_ATTR_NOT_BOOL = "kcfg.policy_attr_not_bool"
POLICY_UNPACK_ATTR_MALFORMED = "kcfg.policy_unpack_attr_malformed"
POLICY_UNPACK_INDEX_OUT_OF_RANGE = "kcfg.policy_unpack_index_out_of_range"
OP_SEMANTICS_UNKNOWN = "kcfg.op_semantics_unknown"
OPERAND_NOT_TILE = "kcfg.operand_not_tile"
DFB_INDEX_UNFINALIZED = "kcfg.dfb_index_unfinalized"
DFB_INDEX_OUT_OF_RANGE = "kcfg.dfb_index_out_of_range"
OPERAND_DFB_UNRESOLVED = "kcfg.operand_dfb_unresolved"
DST_SLOTS_INVALID = "kcfg.dst_slots_invalid"
DST_SLOTS_EXCEEDED = "kcfg.dst_slots_exceeded"
STRATEGY_ATTR_MALFORMED = "kcfg.strategy_attr_malformed"
STRATEGY_ATTR_ON_FIXED_OP = "kcfg.strategy_attr_on_fixed_op"
STRATEGY_EXPLICIT_ILLEGAL = "kcfg.strategy_explicit_illegal"
STRATEGY_EXPLICIT_DFB_UNRESOLVED = "kcfg.strategy_explicit_dfb_unresolved"
STRATEGY_NONE_LEGAL = "kcfg.strategy_none_legal"
STRATEGY_SEMANTICS_MISSING = "kcfg.strategy_semantics_missing"
FPU_POLICY_CONFLICT = "kcfg.fpu_policy_conflict"
STRATEGY_NONE_ALLOWED = "kcfg.strategy_none_allowed"
DST_WIDTH_DISABLED_CONFLICT = "kcfg.dst_width_disabled_conflict"
DST_WIDTH_CONFLICT = "kcfg.dst_width_conflict"
DST_WIDTH_EXPLICIT_UNSUPPORTED = "kcfg.dst_width_explicit_unsupported"
DST_WIDTH_UNSUPPORTED = "kcfg.dst_width_unsupported"
EXPLICIT_UNPACK_CONFLICT = "kcfg.explicit_unpack_conflict"
DFB_UNPACK_CONFLICT = "kcfg.dfb_unpack_conflict"
DFB_CONFIG_UNSUPPORTED = "kcfg.dfb_config_unsupported"
FULL_FP32_ROW_REDUCE_UNAVAILABLE = "kcfg.full_fp32_row_reduce_unavailable"
PREFERRED_FP32_UNAVAILABLE = "kcfg.preferred_fp32_unavailable"
PRECISION_LOSS_UNAVOIDABLE = "kcfg.precision_loss_unavoidable"
POLICY_ATTR_NOT_STRING = "kcfg.policy_attr_not_string"
MATH_FIDELITY_HIFI4_FP32_WORMHOLE = "kcfg.math_fidelity_hifi4_fp32_wormhole"  # warning (tt-metal#52327)
MATH_FIDELITY_HIFI2_MATMUL = "kcfg.math_fidelity_hifi2_matmul"  # warning (tt-metal#55889)
STRATEGY_MISSING = "kcfg.strategy_missing"
INTERNAL_CONSISTENT_CONFLICT = "kcfg.internal_consistent_conflict"  # a defect, never a verdict on input

PREFERRED_FP32_MESSAGE = (
    "preferred full-fp32 accumulation is unavailable in the resolved kernel configuration; "
    "using non-full-fp32 lowering"
)
# Raised by the passes after resolution (plan application and lowering), not by the resolver.
STRATEGY_MISSING_MESSAGE = (
    "requires a selected ttl.tile_execution_strategy attribute; "
    "run ttl-set-compute-kernel-config before DST assignment, scheduling, or lowering"
)

Where = Literal["module", "function", "op"]


@dataclass(frozen=True, slots=True)
class Note:
    op: str | None
    operand: int | None
    message: str


class KcfgError(Exception):
    """A refusal before or during resolution: code, message and where it points (section 8)."""

    def __init__(
        self,
        code: str,
        message: str,
        where: Where,
        op: str | None = None,
        operand: int | None = None,
        note: Note | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.where: Where = where
        self.op = op
        self.operand = operand
        self.note = note


def op_message(mnemonic: str, text: str) -> str:
    """An op-attached message with MLIR's `'<op name>' op ` prefix."""
    return f"'ttl.{mnemonic}' op {text}"
