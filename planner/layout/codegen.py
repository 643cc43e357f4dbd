"""PTO text for a plan, to compare with a backend's output (docs/design/nz-layout.md sections 16 and 11.2).

Each NZ tensor becomes a rank-5 `pto.make_tensor_view {layout = #pto.layout<nz>}`; each planned
load a `pto.partition_view` over the blocked window plus a `pto.tload` into the logical 2-D tile;
each accumulator store (or each of its N-split chunks) a `pto::GlobalTensor<..., Layout::NZ>`
descriptor and a `TSTORE`. Constants print as `%c<value>`; a symbolic entry prints as an SSA name
declared by a comment line giving the expression it stands for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from planner.layout import diagnostics as nz
from planner.layout.autotile import ACC_DTYPE
from planner.layout.blocking import BLOCKED_RANK
from planner.layout.protocol import (
    JsonExpression,
    LayoutPlanRequest,
    LayoutPlanResponse,
    LoadOp,
    PlannedOp,
    PlannedTensor,
    SliceOp,
    StoreOp,
)
from planner.targets.ascend import ASCEND_DTYPES, C0_LINE_BITS, FRACTAL_ROWS

# Element spellings: MLIR element type and pto-isa C++ type.
MLIR_TYPES = {
    "INT8": "i8",
    "UINT8": "ui8",
    "FP8E4M3": "f8E4M3FN",
    "FP8E5M2": "f8E5M2",
    "INT16": "i16",
    "UINT16": "ui16",
    "FP16": "f16",
    "BF16": "bf16",
    "INT32": "i32",
    "UINT32": "ui32",
    "FP32": "f32",
    "INT64": "i64",
    "UINT64": "ui64",
}
CPP_TYPES = {
    "INT8": "int8_t",
    "UINT8": "uint8_t",
    "INT16": "int16_t",
    "UINT16": "uint16_t",
    "FP16": "half",
    "BF16": "bfloat16_t",
    "INT32": "int32_t",
    "UINT32": "uint32_t",
    "FP32": "float",
    "INT64": "int64_t",
    "UINT64": "uint64_t",
}


class CodegenError(ValueError):
    """The plan cannot be printed: it was refused, or a dtype has no PTO spelling here."""


def _spelling(table: dict[str, str], dtype: str, language: str) -> str:
    if dtype not in table:
        raise CodegenError(
            f"dtype {dtype} has no {language} spelling in this printer; known: {sorted(table)}"
        )
    return table[dtype]


def _ssa_name(text: str) -> str:
    return re.sub(r"\W", "_", text)


@dataclass
class _Values:
    """SSA spellings of index values: `%c<v>` for constants, declared names for expressions."""

    prefix: str
    declarations: list[str] = field(default_factory=list)

    def ssa(self, value: JsonExpression, slot: str) -> str:
        if isinstance(value, int):
            return f"%c{value}"
        name = f"%{value}" if value.isidentifier() else f"%{self.prefix}_{slot}"
        line = f"// {name} = {value} : index"
        if name != f"%{value}" and line not in self.declarations:
            self.declarations.append(line)
        return name

    def ssa_list(self, values: Sequence[JsonExpression], slot: str) -> str:
        return ", ".join(self.ssa(value, f"{slot}{axis}") for axis, value in enumerate(values))


def _dims(values: Sequence[JsonExpression]) -> str:
    return "x".join(str(value) if isinstance(value, int) else "?" for value in values)


def check_blocked(tensor: PlannedTensor, dtype: str) -> None:
    """`CheckNzViewIsBlocked`: a view printed with layout=nz must be rank 5 ending in [16, c0]."""
    c0 = C0_LINE_BITS // ASCEND_DTYPES[dtype].bits
    if len(tensor.shape) != BLOCKED_RANK or tensor.shape[-2:] != [FRACTAL_ROWS, c0]:
        raise nz.refusal(
            nz.INTERNAL_UNBLOCKED_VIEW,
            f"Internal error: NZ view {tensor.name} with shape {tensor.shape} is not blocked.",
            nz.Site(tensor=tensor.name),
        )


def tensor_view_text(tensor: PlannedTensor, dtype: str) -> str:
    """`pto.make_tensor_view` of one blocked NZ tensor (section 16)."""
    check_blocked(tensor, dtype)
    values = _Values(_ssa_name(tensor.name))
    element = _spelling(MLIR_TYPES, dtype, "MLIR")
    body = (
        f"%{_ssa_name(tensor.name)}_view = pto.make_tensor_view %{_ssa_name(tensor.name)},\n"
        f"    shape = [{values.ssa_list(tensor.shape, 'shape')}],\n"
        f"    strides = [{values.ssa_list(tensor.strides, 'stride')}]\n"
        f"    {{layout = #pto.layout<nz>}} : !pto.tensor_view<?x?x?x?x?x{element}>"
    )
    return "\n".join([*values.declarations, body])


def load_text(op: PlannedOp, load: LoadOp, tensor: PlannedTensor, dtype: str) -> str:
    """`pto.partition_view` over the blocked window (valid_shape if present) and the `pto.tload`."""
    values = _Values(_ssa_name(op.id))
    element = _spelling(MLIR_TYPES, dtype, "MLIR")
    window = op.valid_shape or op.shapes or []
    part = f"!pto.partition_tensor_view<{_dims(window)}x{element}>"
    rows, cols = load.shapes[-2], load.shapes[-1]
    view, pview, tile = (
        f"%{_ssa_name(tensor.name)}_view",
        f"%{_ssa_name(op.id)}_pview",
        f"%{_ssa_name(op.id)}",
    )
    body = (
        f"{pview} = pto.partition_view {view},\n"
        f"    offsets = [{values.ssa_list(op.offsets or [], 'offset')}], "
        f"sizes = [{values.ssa_list(window, 'size')}]\n"
        f"    : !pto.tensor_view<?x?x?x?x?x{element}> -> {part}\n"
        f"pto.tload ins({pview} : {part})\n"
        f"          outs({tile} : !pto.tile_buf<loc=mat, dtype={element}, rows={rows}, cols={cols},\n"
        "                                   blayout=col_major, slayout=row_major, fractal=512, ...>)"
    )
    return "\n".join([*values.declarations, body])


def global_tensor_text(
    dtype: str,
    shape: Sequence[JsonExpression],
    strides: Sequence[JsonExpression],
    address: str,
    suffix: str = "",
) -> str:
    """A pto-isa NZ `GlobalTensor` descriptor `dst<suffix>` (11.2) over a static shape and stride."""
    element = _spelling(CPP_TYPES, dtype, "C++")
    shape_type, stride_type, name = f"NzShape{suffix}", f"NzStride{suffix}", f"dst{suffix}"
    return (
        f"using {shape_type} = pto::Shape<{', '.join(map(str, shape))}>;\n"
        f"using {stride_type} = pto::Stride<{', '.join(map(str, strides))}>;\n"
        f"pto::GlobalTensor<{element}, {shape_type}, {stride_type}, pto::Layout::NZ> {name}(\n"
        f"    {address}, {shape_type}(), {stride_type}());"
    )


def _element_offset(offsets: Sequence[JsonExpression], strides: Sequence[int]) -> str:
    """`sum(offset * stride)`: constants folded, symbolic coordinates kept as written."""
    constant = sum(
        value * stride for value, stride in zip(offsets, strides, strict=True) if isinstance(value, int)
    )
    terms = [
        f"({value}) * {stride}"
        for value, stride in zip(offsets, strides, strict=True)
        if not isinstance(value, int)
    ]
    return " + ".join([*terms, str(constant)] if constant or not terms else terms)


def store_text(op: PlannedOp, tensor: PlannedTensor) -> str:
    """The accumulator store: one descriptor and `TSTORE` per emitted Acc tile (whole store or N-chunk)."""
    strides = [int(value) for value in tensor.strides]
    pieces = [(op.offsets or [], op.partition or [])]
    if op.chunks:
        pieces = [(chunk.offsets, list(chunk.partition)) for chunk in op.chunks]
    blocks = []
    for index, (offsets, partition) in enumerate(pieces):
        start = _element_offset(offsets, strides)
        address = "output_address" if start == "0" else f"output_address + {start}"
        suffix = "" if len(pieces) == 1 else str(index)
        descriptor = global_tensor_text(ACC_DTYPE, partition, strides, address, suffix)
        blocks.append(f"{descriptor}\npto::TSTORE(dst{suffix}, accumulator);")
    return "\n".join(blocks)


def render_plan(request: LayoutPlanRequest, response: LayoutPlanResponse) -> str:
    """All PTO text of a successful plan, in request order: tensor views, then each planned op."""
    if not response.ok:
        codes = ", ".join(diagnostic.code for diagnostic in response.diagnostics)
        raise CodegenError(f"cannot print a refused plan ({codes})")
    dtypes = {spec.name: spec.dtype for spec in request.tensors}
    planned_tensors = {tensor.name: tensor for tensor in response.tensors}
    sources = {op.id: op for op in request.ops}
    for op in request.ops:
        if isinstance(op, SliceOp) and op.result is not None and op.source in dtypes:
            dtypes[op.result] = dtypes[op.source]
    sections = [tensor_view_text(tensor, dtypes[tensor.name]) for tensor in response.tensors]
    for planned in response.ops:
        original = sources[planned.id]
        if isinstance(original, LoadOp):
            tensor = planned_tensors[original.source]
            sections.append(load_text(planned, original, tensor, dtypes[tensor.name]))
        elif isinstance(original, StoreOp):
            sections.append(store_text(planned, planned_tensors[original.dest]))
    return "\n\n".join(sections) + "\n"
