"""The NZ consumers that are kept, forwarded or refused as written (sections 6, 6.3, 6.4)."""

from __future__ import annotations

from typing import NoReturn

from planner.layout import diagnostics as nz
from planner.layout.blocking import NzTensor
from planner.layout.context import PlanContext, exprs
from planner.layout.protocol import PlannedOp, ReshapeOp, ViewOp
from planner.proofs.expr import Const, format_expr


def unsupported_consumer(
    tensor: NzTensor, op_id: str, op_name: str, argument: int, detail: str = ""
) -> nz.LayoutRefusal:
    """The refusal for every consumer NZ coordinates must not pass through unchanged."""
    return nz.refusal(
        nz.UNSUPPORTED_CONSUMER,
        "NZ layout currently supports only 'tile.load' and 'tensor.slice' reading the tensor as their "
        f"source, plus a whole-tensor 'tensor.reshape' flatten, but it is used by '{op_name}' at argument "
        f"{argument}."
        f"{detail} The only supported writer is an A2/A3 FP32 accumulator 'tile.store'.",
        nz.Site(tensor=tensor.name, op=op_id),
    )


def plan_reshape(ctx: PlanContext, op: ReshapeOp, tensor: NzTensor) -> PlannedOp:
    """Keep a whole-tensor flatten to rank 1 as written: it walks the same contiguous GM range (6.3)."""
    target = exprs(op.shape)
    if len(target) == 1 and isinstance(target[0], Const) and target[0].value == _elements(tensor):
        return PlannedOp(id=op.id, op=op.op, kept=True)
    shape = ", ".join(map(format_expr, target))
    raise unsupported_consumer(
        tensor,
        op.id,
        op.op,
        0,
        f" A reshape to [{shape}] reinterprets coordinates the blocked form does not carry; only a "
        "whole-tensor flatten to rank 1 is kept.",
    )


def _elements(tensor: NzTensor) -> int | None:
    """The element count of a fully static logical shape; None when any extent is dynamic."""
    count = 1
    for extent in tensor.logical:
        if not isinstance(extent, Const):
            return None
        count *= extent.value
    return count


def refuse_view(ctx: PlanContext, op: ViewOp, tensor: NzTensor) -> NoReturn:
    """`tensor.view` / `tensor.reinterpret_view` of NZ is refused at op construction (6.4)."""
    raise nz.refusal(
        nz.TENSOR_VIEW_OF_NZ,
        f"'{op.op}' does not support an NZ source ({tensor.name}: {tensor.dtype}, logical "
        f"shape [{', '.join(map(format_expr, tensor.logical))}]).",
        nz.Site(tensor=tensor.name, op=op.id),
    )
