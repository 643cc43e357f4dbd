"""`layout.plan` request/response models (docs/design/protocol.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import AfterValidator, Discriminator, Field, JsonValue, Tag
from pydantic_core import PydanticCustomError

from planner.contract import ContractModel
from planner.errors import excerpt
from planner.proofs.protocol import (
    AscendTargetField,
    Binding,
    BitWidth,
    Division,
    Expression,
    Goal,
    Identifier,
    ProofStatus,
    ReadingRecord,
)
from planner.targets.ascend import ASCEND_DTYPES


def _check_dtype(name: str) -> str:
    if name not in ASCEND_DTYPES:
        raise PydanticCustomError(
            "unknown_dtype",
            "unknown dtype {dtype}; expected one of {known}",  # pydantic fills {name}, never {name!r}
            {"dtype": repr(excerpt(name)), "known": ", ".join(sorted(ASCEND_DTYPES))},
        )
    return name


AscendDtypeName: TypeAlias = Annotated[str, AfterValidator(_check_dtype)]
Layout: TypeAlias = Literal["ND", "DN", "NZ"]
Memory: TypeAlias = Literal["DDR", "Vec", "Mat", "Left", "Right", "Acc"]
ShapeList: TypeAlias = Annotated[list[Expression], Field(max_length=16)]


class TensorSpec(ContractModel):
    name: Identifier
    shape: ShapeList
    dtype: AscendDtypeName
    layout: Layout = "ND"
    valid_shape: ShapeList | None = None
    stride: ShapeList | None = None
    distributed: bool = False


class LoadOp(ContractModel):
    id: str
    op: Literal["tile.load"] = "tile.load"
    source: Identifier
    offsets: ShapeList
    shapes: ShapeList
    valid_shape: ShapeList | None = None
    target_memory: Memory | None = None


class SliceOp(ContractModel):
    id: str
    op: Literal["tensor.slice"] = "tensor.slice"
    source: Identifier
    shapes: ShapeList
    offsets: ShapeList
    valid_shape: ShapeList | None = None
    drop_dims: list[int] | None = None
    result: Identifier | None = None  # name of the sliced tensor, for loads that read it


class ReshapeOp(ContractModel):
    id: str
    op: Literal["tensor.reshape"] = "tensor.reshape"
    source: Identifier
    shape: ShapeList


class ViewOp(ContractModel):
    id: str
    op: Literal["tensor.view", "tensor.reinterpret_view"]
    source: Identifier


class MatmulProducer(ContractModel):
    op: Literal["matmul"] = "matmul"
    m: int
    n: int
    k: int
    memory: Memory = "Mat"


class StoreTile(ContractModel):
    shape: ShapeList
    dtype: AscendDtypeName
    memory: Memory
    valid_shape: ShapeList | None = None
    producer: MatmulProducer | None = None


class StoreOp(ContractModel):
    id: str
    op: Literal["tile.store"] = "tile.store"
    dest: Identifier
    offsets: ShapeList
    tile: StoreTile
    attrs: dict[str, JsonValue] = Field(default_factory=dict)


class CallOp(ContractModel):
    """A call to another program function: forwards its tensor arguments unchanged."""

    id: str
    op: Literal["call"] = "call"
    callee: Identifier
    args: list[Identifier] = Field(default_factory=list)


class OtherOp(ContractModel):
    """Any other op: only the names it consumes matter (an NZ one is refused)."""

    id: str
    op: str
    args: list[Identifier] = Field(default_factory=list)


OP_KINDS = {  # op name -> the kind of layout op that models it (everything else is "other")
    "tile.load": "load",
    "tensor.slice": "slice",
    "tensor.reshape": "reshape",
    "tensor.view": "view",
    "tensor.reinterpret_view": "view",
    "tile.store": "store",
    "call": "call",
}


def _op_tag(value: Any) -> str:
    name = value.get("op") if isinstance(value, dict) else getattr(value, "op", None)
    return OP_KINDS.get(name, "other") if isinstance(name, str) else "other"


LayoutOp: TypeAlias = Annotated[
    Annotated[LoadOp, Tag("load")]
    | Annotated[SliceOp, Tag("slice")]
    | Annotated[ReshapeOp, Tag("reshape")]
    | Annotated[ViewOp, Tag("view")]
    | Annotated[StoreOp, Tag("store")]
    | Annotated[CallOp, Tag("call")]
    | Annotated[OtherOp, Tag("other")],
    Discriminator(_op_tag),
]


class LayoutPlanRequest(ContractModel):
    target: AscendTargetField = None
    index_bits: BitWidth = 64
    division: Division = "either"  # how generated code may round `//` and `%`: both unless told
    function: str | None = None  # name used in diagnostics
    attrs: dict[str, JsonValue] = Field(default_factory=dict)  # e.g. nz_tensor_views_blocked
    tensors: list[TensorSpec] = Field(default_factory=list, max_length=4096)
    bindings: list[Binding] = Field(default_factory=list, max_length=16384)
    ops: list[LayoutOp] = Field(default_factory=list, max_length=65536)


JsonExpression: TypeAlias = int | str


class PlannedTensor(ContractModel):
    name: str
    layout: Layout
    shape: list[JsonExpression]
    strides: list[JsonExpression]


class StoreChunk(ContractModel):
    col_offset: JsonExpression
    n: int
    offsets: list[JsonExpression]
    partition: list[int]


class PlannedOp(ContractModel):
    id: str
    op: str
    offsets: list[JsonExpression] | None = None
    shapes: list[JsonExpression] | None = None
    valid_shape: list[JsonExpression] | None = None
    partition: list[JsonExpression] | None = None
    chunks: list[StoreChunk] | None = None
    kept: bool = False


class ObligationRecord(ContractModel):
    """One discharged obligation: an offset's `multiple_of` `factor` / `non_negative`, or a window's
    `at_most` `bound` (`expr` is then `offset + extent`)."""

    op: str
    axis: int
    expr: JsonExpression
    goal: Goal | Literal["at_most"]
    factor: int | None = None
    bound: int | None = None
    status: ProofStatus
    counterexample: dict[str, int] | None = None
    reading: ReadingRecord | None = None  # refuted: the semantics that breaks it
    value: int | None = None  # refuted: the executed value of `expr` under the counterexample


class Diagnostic(ContractModel):
    code: str
    severity: Literal["error", "warning", "note"] = "error"
    message: str
    op: str | None = None
    tensor: str | None = None
    axis: int | None = None
    counterexample: dict[str, int] | None = None
    reading: ReadingRecord | None = None  # the semantics under which the counterexample breaks the rule


class LayoutPlanResponse(ContractModel):
    ok: bool
    tensors: list[PlannedTensor] = Field(default_factory=list)
    ops: list[PlannedOp] = Field(default_factory=list)
    obligations: list[ObligationRecord] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    attrs: dict[str, JsonValue] = Field(default_factory=dict)
    empty_loops: list[str] = Field(default_factory=list)  # loops an obligation read that never run
