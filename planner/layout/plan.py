"""`layout.plan`: block every NZ tensor, then retarget its consumers in statement order (section 14).

Decisions are pure: a refusal returns `ok=false` with the first error and plans nothing. A
request already stamped `nz_tensor_views_blocked` is returned unchanged (blocking is not
idempotent), and one without NZ tensors is returned unchanged and unstamped (section 15).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeAlias

from pydantic import JsonValue

from planner.errors import INVALID, RequestError
from planner.layout import diagnostics as nz
from planner.layout.blocking import NzTensor
from planner.layout.consumers import plan_reshape, refuse_view, unsupported_consumer
from planner.layout.context import PlanContext, require_index_constants
from planner.layout.index_range import check_op_fits
from planner.layout.loads import plan_load
from planner.layout.offsets import ProofLedger
from planner.layout.protocol import (
    CallOp,
    LayoutOp,
    LayoutPlanRequest,
    LayoutPlanResponse,
    LoadOp,
    OtherOp,
    PlannedOp,
    PlannedTensor,
    ReshapeOp,
    SliceOp,
    StoreOp,
    ViewOp,
)
from planner.layout.slices import plan_slice
from planner.layout.stores import plan_store
from planner.layout.tensor_types import block_tensor_type
from planner.proofs.expr import to_json_value

BLOCKED_STAMP = "nz_tensor_views_blocked"


def plan(request: LayoutPlanRequest, deadline: float | None = None) -> LayoutPlanResponse:
    """Plan every NZ tensor and consumer of one function; see the module docstring for the outcomes.

    Past the `time.monotonic()` deadline a proof raises `BudgetExceeded`.
    """
    if request.attrs.get(BLOCKED_STAMP) or not any(spec.layout == "NZ" for spec in request.tensors):
        return LayoutPlanResponse(ok=True, attrs=_sorted(request.attrs))
    _require_unique("tensor names", [spec.name for spec in request.tensors])
    _require_unique("op ids", [op.id for op in request.ops])
    require_index_constants(request)
    _require_scoped_names(request)
    ctx = PlanContext(request, ProofLedger(request, deadline))
    try:
        for spec in request.tensors:
            if spec.layout == "NZ":
                ctx.define(block_tensor_type(spec))
        planned = [entry for op in request.ops if (entry := plan_consumer(ctx, op)) is not None]
    except nz.LayoutRefusal as refusal:
        return LayoutPlanResponse(
            ok=False,
            obligations=ctx.ledger.records,
            diagnostics=[refusal.diagnostic, *ctx.warnings],
            attrs=_sorted(request.attrs),
            empty_loops=ctx.ledger.empty_loops(),
        )
    return LayoutPlanResponse(
        ok=True,
        tensors=[_planned_tensor(tensor) for tensor in ctx.tensors.values()],
        ops=planned,
        obligations=ctx.ledger.records,
        diagnostics=ctx.warnings,
        attrs=_sorted({**request.attrs, BLOCKED_STAMP: True}),
        empty_loops=ctx.ledger.empty_loops(),
    )


def _sorted(attrs: dict[str, JsonValue]) -> dict[str, JsonValue]:
    return dict(sorted(attrs.items()))


def _require_unique(kind: str, names: list[str]) -> None:
    """Tensor names and op ids identify what the response plans, so each must be unique."""
    duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
    if duplicates:
        raise RequestError(INVALID, f"{kind} must be unique, repeated: {', '.join(duplicates)}")


def _require_scoped_names(request: LayoutPlanRequest) -> None:
    """SSA scoping: a tensor name is no scalar name, and a slice result is read only after its slice.

    A read before the slice would be taken for an undeclared (ND) tensor and left unplanned.
    """
    tensors = {spec.name for spec in request.tensors}
    results = {op.result for op in request.ops if isinstance(op, SliceOp) and op.result is not None}
    clashes = sorted((tensors | results) & {binding.name for binding in request.bindings})
    if clashes:
        raise RequestError(INVALID, f"names bound both as tensors and as scalars: {', '.join(clashes)}")
    pending = results - tensors  # redefining a declared tensor is refused where the slice defines it
    for op in request.ops:
        early = sorted(pending.intersection(_tensor_operands(op)))
        if early:
            raise RequestError(
                INVALID, f"op {op.id!r} reads {early[0]!r} before the tensor.slice defining it"
            )
        if isinstance(op, SliceOp) and op.result is not None:
            pending.discard(op.result)


def _tensor_operands(op: LayoutOp) -> list[str]:
    if isinstance(op, CallOp | OtherOp):
        return list(op.args)
    return [op.dest if isinstance(op, StoreOp) else op.source]


def _planned_tensor(tensor: NzTensor) -> PlannedTensor:
    return PlannedTensor(
        name=tensor.name,
        layout="NZ",
        shape=[to_json_value(extent) for extent in tensor.blocked],
        strides=list(tensor.strides),
    )


Rewrite: TypeAlias = Callable[[PlanContext, Any, NzTensor], PlannedOp]

# Consumers with one NZ operand: the field naming it and the rule that plans it (section 6).
_CONSUMERS: dict[type, tuple[str, Rewrite]] = {
    LoadOp: ("source", plan_load),
    SliceOp: ("source", plan_slice),
    ReshapeOp: ("source", plan_reshape),
    ViewOp: ("source", refuse_view),
    StoreOp: ("dest", plan_store),
}


def plan_consumer(ctx: PlanContext, op: LayoutOp) -> PlannedOp | None:
    """Phase 2 for one op: the planned rewrite, None when it touches no NZ tensor, or a refusal."""
    if isinstance(op, CallOp | OtherOp):
        return _plan_multi_operand(ctx, op)
    field, rewrite = _CONSUMERS[type(op)]
    tensor = ctx.tensors.get(getattr(op, field))
    if tensor is None:
        return None
    planned = rewrite(ctx, op, tensor)
    check_op_fits(planned, tensor.name, ctx.request.index_bits)
    return planned


def _plan_multi_operand(ctx: PlanContext, op: CallOp | OtherOp) -> PlannedOp | None:
    """A call forwards NZ tensors to a callee blocked on its own; any other op may not read one."""
    nz_arguments = [
        (argument, ctx.tensors[name]) for argument, name in enumerate(op.args) if name in ctx.tensors
    ]
    if not nz_arguments:
        return None
    if isinstance(op, CallOp):
        return PlannedOp(id=op.id, op=op.op, kept=True)
    argument, tensor = nz_arguments[0]
    raise unsupported_consumer(tensor, op.id, op.op, argument)
