"""`tile.load` of an NZ tensor: offsets, shapes and valid_shape to blocked form (sections 6.1, 8, 10).

Check order (section 14): target memory, offsets (leading fold, row before column; per
symbolic axis multiple then sign), shapes, valid_shape, window bounds, GM gap. The tile type is not part of
the plan: the destination stays the logical 2-D operand.

The leading window of a load must be one contiguous run in fold order (`[1, .., 1, k, full,
.., full]`, the rule 6.2 states for slices): the fold gives the partition one batch offset and
one batch extent, so any other window would be read as the wrong panels.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.errors import INVALID, RequestError
from planner.layout import diagnostics as nz
from planner.layout.blocking import (
    COL_AXIS,
    ROW_AXIS,
    NzTensor,
    block_shape,
    fold_leading_extents,
    fold_leading_offsets,
)
from planner.layout.context import PlanContext, exprs, require_rank
from planner.layout.gm_gap import check_gm_gap
from planner.layout.offsets import LOAD_OFFSET_RULES, ProofLedger, map_trailing_offset, reading_record
from planner.layout.protocol import LoadOp, PlannedOp
from planner.layout.slices import check_single_leading_window
from planner.layout.windows import check_window_bounds
from planner.proofs.expr import Const, Expr, floor_div, format_expr, to_json_value
from planner.targets.ascend import FRACTAL_ROWS

MAT = "Mat"


def plan_load(ctx: PlanContext, op: LoadOp, tensor: NzTensor) -> PlannedOp:
    """Rewrite one NZ `tile.load` (6.1)."""
    site = nz.Site(tensor=tensor.name, op=op.id)
    if op.target_memory != MAT:
        found = f"got {op.target_memory}" if op.target_memory else "got no target_memory"
        raise nz.refusal(
            nz.LOAD_TARGET_NOT_MAT,
            "NZ layout currently supports only matmul operand loads (target_memory=pl.Mem.Mat), "
            + found
            + ".",
            site,
        )
    require_rank(op.offsets, tensor, op.id, "offsets")
    require_rank(op.shapes, tensor, op.id, "shapes")
    if op.valid_shape:
        require_rank(op.valid_shape, tensor, op.id, "valid_shape")
    logical_offsets = exprs(op.offsets)
    offsets = block_offsets(ctx.ledger, site, tensor, logical_offsets)
    check_single_leading_window(site, tensor, exprs(op.shapes), logical_offsets)
    shapes = block_shape(exprs(op.shapes), tensor.c0, site, "the tile.load shapes")
    valid = None
    if op.valid_shape:
        check_single_leading_window(site, tensor, exprs(op.valid_shape), logical_offsets)
        valid = block_valid_shape(ctx.ledger, site, tensor, exprs(op.valid_shape))
        check_valid_within_shapes(site, exprs(op.shapes), exprs(op.valid_shape))
    check_window_bounds(ctx, site, "tile.load", tensor, logical_offsets, exprs(op.valid_shape or op.shapes))
    check_gm_gap(site, tensor, valid or shapes)
    return PlannedOp(
        id=op.id,
        op=op.op,
        offsets=[to_json_value(value) for value in offsets],
        shapes=[to_json_value(value) for value in shapes],
        valid_shape=None if valid is None else [to_json_value(value) for value in valid],
    )


def block_offsets(
    ledger: ProofLedger, site: nz.Site, tensor: NzTensor, offsets: Sequence[Expr]
) -> tuple[Expr, ...]:
    """`[..lead.., r0, k0]` -> `[fold(lead), k0 // c0, r0 // 16, 0, 0]`, the row axis checked first."""
    batch = fold_leading_offsets(offsets[:-2], tensor.logical[:-2])
    row = map_trailing_offset(ledger, site, ROW_AXIS, offsets[ROW_AXIS], FRACTAL_ROWS, LOAD_OFFSET_RULES)
    col = map_trailing_offset(ledger, site, COL_AXIS, offsets[COL_AXIS], tensor.c0, LOAD_OFFSET_RULES)
    return (batch, col, row, Const(0), Const(0))


def check_valid_within_shapes(site: nz.Site, shapes: Sequence[Expr], valid: Sequence[Expr]) -> None:
    """The partition is the valid window: a constant valid extent above the tile's reads past the tile."""
    for axis, (bound, size) in enumerate(zip(valid, shapes, strict=True)):
        if isinstance(bound, Const) and isinstance(size, Const) and bound.value > size.value:
            raise RequestError(
                INVALID,
                f"op {site.op!r}: valid_shape[{axis}] = {bound.value} exceeds shapes[{axis}] = {size.value}",
            )


def block_valid_shape(
    ledger: ProofLedger, site: nz.Site, tensor: NzTensor, valid: Sequence[Expr]
) -> tuple[Expr, ...]:
    """Section 8: a constant row count blocks like a shape; a dynamic one must be a proven multiple of 16."""
    rows, cols = valid[ROW_AXIS], valid[COL_AXIS]
    if isinstance(rows, Const):
        return block_shape(valid, tensor.c0, site, "the tile.load valid_shape")
    if not (isinstance(cols, Const) and cols.value > 0 and cols.value % tensor.c0 == 0):
        raise nz.refusal(
            nz.VALID_COLS_BAD,
            f"NZ layout requires a static valid_shape[-1] that is a positive multiple of c0 = {tensor.c0} "
            f"when valid_shape[-2] is dynamic, got {format_expr(cols)}.",
            site,
            axis=COL_AXIS,
        )
    verdict = ledger.discharge(site.op or "", ROW_AXIS, rows, "multiple_of", FRACTAL_ROWS)
    if verdict.status != "proven":
        raise nz.refusal(
            nz.DYNAMIC_VALID_ROWS_NOT_MULTIPLE,
            f"NZ layout requires a dynamic valid_shape[-2] to be a provable multiple of 16, and "
            f"{format_expr(rows)} is not ({ledger.outcome_text(verdict, rows)}); a partial fractal has no "
            "blocked form.",
            site,
            axis=ROW_AXIS,
            counterexample=verdict.counterexample,
            reading=reading_record(verdict),
        )
    batch = fold_leading_extents(valid[:-2], site, "the tile.load valid_shape")
    return (
        batch,
        Const(cols.value // tensor.c0),
        floor_div(rows, FRACTAL_ROWS),
        Const(FRACTAL_ROWS),
        Const(tensor.c0),
    )
