"""`kernelcfg.resolve` request and response models (docs/design/protocol.md).

`KernelConfigPlan` is plain data (docs/design/kernel-config.md section 7): it round-trips
through JSON, so a client in another process rebuilds the same value. Deciding one is the
resolver's job (`planner.kernelcfg.resolve`); nothing else in the package makes one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, JsonValue, ModelWrapValidatorHandler, model_validator

from planner.budget import gc_paused
from planner.contract import ContractModel

TtDtype: TypeAlias = Annotated[str, Field(min_length=1, max_length=32)]
ThreeState: TypeAlias = bool | str  # auto | enabled/true/1 | disabled/false/0; checked by the policy


class KernelPolicy(ContractModel):
    fp32_dest_acc: ThreeState = "auto"
    dst_full_sync: ThreeState = "auto"
    reduce_full_fp32: bool = True
    matmul_full_fp32: bool = True
    fpu_binary: bool = True
    unpack_to_dest_fp32: list[int] | None = None
    math_fidelity: str | None = None  # LoFi | HiFi2 | HiFi3 | HiFi4; checked by the policy
    math_approx_mode: bool | None = None
    precision: str = "default"  # default | exact (no f32 operand or result loses bits); checked by the policy


class SystemDesc(ContractModel):
    """TTCore system and device descriptions: chip architectures and the device's chip ids."""

    chip_archs: list[str] = Field(default_factory=list)
    device_chip_ids: list[int] | None = None


class DfbSpec(ContractModel):
    index: Annotated[int, Field(ge=0, le=2**31 - 1)]
    dtype: TtDtype


class DfbOperand(ContractModel):
    """A tile read from a dataflow buffer with a finalized index."""

    dfb: Annotated[int, Field(ge=0, le=2**31 - 1)]


class ValueOperand(ContractModel):
    """The DST-resident result of another op (by id)."""

    value: str


class UnattachedOperand(ContractModel):
    """A tile that resolves to no dataflow buffer."""

    unattached: TtDtype


class ScalarOperand(ContractModel):
    """A non-tile operand."""

    scalar: TtDtype


class UnfinalizedDfbOperand(ContractModel):
    """A dataflow buffer without a finalized index."""

    dfb_unfinalized: str


# Each member has one required field and forbids the others, so at most one accepts an operand:
# taking the first that does gives pydantic's default ("smart") choice, without trying all five.
Operand: TypeAlias = Annotated[
    DfbOperand | ValueOperand | UnattachedOperand | ScalarOperand | UnfinalizedDfbOperand,
    Field(union_mode="left_to_right"),
]


class KernelOp(ContractModel):
    id: str
    op: Annotated[str, Field(min_length=1, max_length=128)]
    operands: list[Operand] = Field(default_factory=list, max_length=64)
    result_dtype: TtDtype | None = None
    same_tile_coords: bool = False
    explicit_strategy: str | None = None
    attrs: dict[str, JsonValue] = Field(default_factory=dict)


class KernelcfgResolveRequest(ContractModel):
    arch: str | None = None
    system_desc: SystemDesc | None = None
    function: str | None = None  # name used in diagnostics
    policy: KernelPolicy = Field(default_factory=KernelPolicy)
    dfbs: list[DfbSpec] = Field(default_factory=list, max_length=4096)
    ops: list[KernelOp] = Field(default_factory=list, max_length=100_000)
    explain: bool = False  # a resolved plan carries `explanation`: every decision and its causes
    report_precision: bool = False  # a resolved plan carries `precision`: where f32 values lose bits

    @model_validator(mode="wrap")
    @classmethod
    def _validated_without_gc(
        cls, data: Any, handler: ModelWrapValidatorHandler[KernelcfgResolveRequest]
    ) -> KernelcfgResolveRequest:
        """A kernel of thousands of ops is validated without cyclic collection passes (`gc_paused`)."""
        with gc_paused():
            return handler(data)


class KernelWarning(ContractModel):
    code: str
    op: str | None = None
    message: str


class ConflictNote(ContractModel):
    op: str | None = None
    operand: int | None = None
    message: str


class RequirementRecord(ContractModel):
    """One requirement as a person reads it: which op/operand asks what of which setting."""

    id: str
    op: str | None = None
    operand: int | None = None
    kind: str  # dfb_input | destination | dst_slots | policy | strategy_choice | ...
    dfb: int | None = None
    dtype: str | None = None
    allows: list[str] = Field(default_factory=list)
    summary: str = ""  # the requirement in words, e.g. "fp32_dest_acc disabled"


class Correction(ContractModel):
    change: str
    resolves: bool


class Conflict(ContractModel):
    code: str
    message: str
    where: Literal["module", "function", "op"] = "op"
    op: str | None = None
    operand: int | None = None
    note: ConflictNote | None = None
    requirements: list[RequirementRecord] = Field(default_factory=list)
    minimal_conflict: list[str] = Field(default_factory=list)
    corrections: list[Correction] = Field(default_factory=list)


class Preference(ContractModel):
    """A soft rule the resolver follows when the hard requirements leave a choice."""

    name: str
    summary: str


class Decision(ContractModel):
    """One setting of a resolved plan and why: `causes` are requirement ids and preference names.

    Removing the listed requirements and flipping the listed preferences changes the decision.
    """

    setting: Literal["strategy", "dst_width", "unpack", "dst_sync"]
    subject: str | None = None  # the op (strategy) or DFB index (unpack) decided
    value: str
    how: Literal["forced", "preferred"]
    causes: list[str]
    op: str | None = None  # where the remark goes: the deciding op; None: the function
    reason: str


class PlanExplanation(ContractModel):
    requirements: list[RequirementRecord] = Field(default_factory=list)
    preferences: list[Preference] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)


class KernelConfigPlan(ContractModel):
    """One strategy per choice op, the kernel-wide width and sync, the unpack-to-DST DFBs (sorted)."""

    strategies: dict[str, Literal["fpu", "sfpu"]]
    dst_width: Literal[16, 32]
    dst_sync: Literal["double_buffered", "full"]
    unpack_to_dest_fp32: list[int]
    math_fidelity: str | None = None
    math_approx_mode: bool | None = None


MathFormatName: TypeAlias = Literal["fp32", "tf32", "bf16"]


class PrecisionValue(ContractModel):
    """One f32 operand (the format it reaches the math in) or f32 result (the format DST keeps)."""

    op: str
    operand: int | None = None  # None: the op's result
    dfb: int | None = None  # the DFB an operand reads, if any
    format: MathFormatName
    lossless: bool
    causes: list[Literal["strategy", "unpack_mode", "dst_width"]] = Field(default_factory=list)
    avoidable: bool | None = None  # a loss: whether another legal plan keeps this value lossless
    reason: str = ""


class PrecisionAccumulation(ContractModel):
    """A reduce or matmul: whether it accumulates in full fp32 (reported, never constrained)."""

    op: str
    kind: str
    full_fp32: bool
    reason: str


class PrecisionAccount(ContractModel):
    """Where a plan loses f32 bits, beside the plan (docs/design/kernel-config.md 4.7)."""

    precision: Literal["default", "exact"]
    math_fidelity: str | None = None
    math_approx_mode: bool | None = None
    values: list[PrecisionValue] = Field(default_factory=list)
    accumulation: list[PrecisionAccumulation] = Field(default_factory=list)


class KernelcfgResolveResponse(ContractModel):
    ok: bool
    plan: KernelConfigPlan | None = None
    warnings: list[KernelWarning] = Field(default_factory=list)
    conflict: Conflict | None = None
    explanation: PlanExplanation | None = None  # with `explain: true`, for a resolved plan
    precision: PrecisionAccount | None = None  # with `report_precision: true`, for a resolved plan
