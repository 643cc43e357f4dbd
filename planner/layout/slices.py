"""`tensor.slice` of an NZ tensor: leading axes only, blocked like the load that follows (section 6.2).

Check order (section 14): trailing window (rows, cols), leading window, valid_shape rank,
valid_shape narrowing, drop_dims, then blocking, then window bounds. The result is a new NZ tensor in its
logical shape, so later loads address it logically; drop_dims is discarded because the fold
already collapsed every leading axis.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.errors import INVALID, RequestError
from planner.layout import diagnostics as nz
from planner.layout.blocking import COL_AXIS, ROW_AXIS, NzTensor, block_shape, fold_leading_offsets
from planner.layout.context import PlanContext, exprs, require_rank
from planner.layout.protocol import PlannedOp, SliceOp
from planner.layout.windows import check_window_bounds
from planner.proofs.expr import Const, Expr, format_expr, to_json_value

_AXIS_NAMES = {ROW_AXIS: "shape[-2] (rows)", COL_AXIS: "shape[-1] (cols)"}


def plan_slice(ctx: PlanContext, op: SliceOp, tensor: NzTensor) -> PlannedOp:
    """Check and block one NZ `tensor.slice`; define its result as an NZ tensor when it is named."""
    site = nz.Site(tensor=tensor.name, op=op.id)
    require_rank(op.shapes, tensor, op.id, "shapes")
    require_rank(op.offsets, tensor, op.id, "offsets")
    sizes, offsets = exprs(op.shapes), exprs(op.offsets)
    check_trailing_whole(site, tensor, sizes, offsets)
    check_single_leading_window(site, tensor, sizes, offsets)
    valid = exprs(op.valid_shape) if op.valid_shape else None
    if valid is not None:
        check_valid_shape(site, sizes, valid)
    dropped = leading_drop_dims(site, sizes, op.drop_dims or [])
    shapes = block_shape(sizes, tensor.c0, site, "the tensor.slice shapes")
    blocked_offsets = (fold_leading_offsets(offsets[:-2], tensor.logical[:-2]), *(Const(0),) * 4)
    check_window_bounds(ctx, site, "tensor.slice", tensor, offsets, sizes)
    if op.result is not None:
        logical = tuple(size for axis, size in enumerate(sizes) if axis not in dropped)
        result_site = nz.Site(tensor=op.result, op=op.id)
        ctx.define(
            NzTensor(
                op.result, tensor.dtype, tensor.c0, logical, block_shape(logical, tensor.c0, result_site)
            )
        )
    return PlannedOp(
        id=op.id,
        op=op.op,
        offsets=[to_json_value(value) for value in blocked_offsets],
        shapes=[to_json_value(value) for value in shapes],
        valid_shape=None if valid is None else [to_json_value(value) for value in shapes],
    )


def _whole(size: Expr, offset: Expr, extent: Expr) -> bool:
    return size == extent and offset == Const(0)


def check_trailing_whole(
    site: nz.Site, tensor: NzTensor, sizes: Sequence[Expr], offsets: Sequence[Expr]
) -> None:
    """Rows, then cols, must be taken whole at offset 0: a trailing window is not contiguous in NZ order."""
    for axis in (ROW_AXIS, COL_AXIS):
        if not _whole(sizes[axis], offsets[axis], tensor.logical[axis]):
            raise nz.refusal(
                nz.SLICE_TRAILING_WINDOW,
                f"NZ layout supports slicing the leading axes only: {_AXIS_NAMES[axis]} must take the whole "
                f"axis at offset 0, got size {format_expr(sizes[axis])} at offset "
                f"{format_expr(offsets[axis])} of extent {format_expr(tensor.logical[axis])}.",
                site,
                axis=axis,
            )


def check_single_leading_window(
    site: nz.Site, tensor: NzTensor, sizes: Sequence[Expr], offsets: Sequence[Expr]
) -> None:
    """Leading sizes look like `[1, .., 1, k, full, .., full]`: after a spanning axis every axis is whole."""
    spanning = False
    for axis in range(tensor.rank - 2):
        if spanning and not _whole(sizes[axis], offsets[axis], tensor.logical[axis]):
            raise nz.refusal(
                nz.SLICE_MULTI_LEADING_WINDOW,
                f"NZ layout supports a window on one leading axis only: axis {axis} is narrowed after an "
                "earlier axis already spans more than one index.",
                site,
                axis=axis,
            )
        spanning = spanning or sizes[axis] != Const(1)


def check_valid_shape(site: nz.Site, sizes: Sequence[Expr], valid: Sequence[Expr]) -> None:
    """A slice's valid_shape must have the window's rank and equal its sizes axis by axis."""
    if len(valid) != len(sizes):
        raise nz.refusal(
            nz.SLICE_VALID_SHAPE_RANK,
            f"NZ layout needs a full-rank valid_shape on a tensor.slice: got {len(valid)} entries for a rank "
            f"{len(sizes)} window.",
            site,
        )
    for axis, (bound, size) in enumerate(zip(valid, sizes, strict=True)):
        if bound != size:
            raise nz.refusal(
                nz.SLICE_VALID_SHAPE_NARROWS,
                "NZ layout does not support a tensor.slice whose valid_shape narrows the window: axis "
                f"{axis} has valid {format_expr(bound)} but size {format_expr(size)}.",
                site,
                axis=axis - len(sizes),
            )


def leading_drop_dims(site: nz.Site, sizes: Sequence[Expr], drop_dims: Sequence[int]) -> frozenset[int]:
    """The dropped axes, normalised; only leading axes (`dim + 2 < rank`) of window size 1 may be dropped.

    Dropping a wider axis would give the result a type that covers fewer panels than the
    blocked window it views, so later loads would address the wrong batch.
    """
    rank = len(sizes)
    dropped: set[int] = set()
    for dim in drop_dims:
        if not -rank <= dim < rank:
            raise RequestError(INVALID, f"op {site.op!r}: drop_dims entry {dim} is outside rank {rank}")
        axis = dim % rank
        if axis + 2 >= rank:
            raise nz.refusal(
                nz.SLICE_DROP_TRAILING_AXIS,
                f"NZ layout supports dropping a leading axis only, got drop_dims entry {dim} of a rank "
                f"{rank} tensor.slice.",
                site,
                axis=axis - rank,
            )
        if sizes[axis] != Const(1):
            raise RequestError(
                INVALID,
                f"op {site.op!r}: drop_dims entry {dim} names an axis of window size "
                f"{format_expr(sizes[axis])}; only a size-1 axis can be dropped",
            )
        dropped.add(axis)
    return frozenset(dropped)
