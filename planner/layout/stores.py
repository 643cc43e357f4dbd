"""`tile.store` of an FP32 Acc tile to an FP32 NZ tensor on A2/A3 (section 11).

Check order (section 14): backend, source memory, dtypes, tile shape, valid region,
16-alignment, attributes, row window, column window, column offset (multiple, then sign),
window bounds.
Extent and L0C checks run per emitted store, after the N-split (section 12) had its chance.
"""

from __future__ import annotations

from pydantic import JsonValue

from planner.errors import INVALID, RequestError
from planner.layout import diagnostics as nz
from planner.layout.autotile import ACC_C0, ACC_DTYPE, acc_partition, emitted_store_refusal, split_columns
from planner.layout.blocking import COL_AXIS, ROW_AXIS, NzTensor, fold_leading_offsets
from planner.layout.context import PlanContext, exprs, require_rank
from planner.layout.offsets import OffsetRules, map_trailing_offset
from planner.layout.protocol import PlannedOp, StoreOp, StoreTile
from planner.layout.windows import check_window_bounds
from planner.proofs.expr import Const, Expr, format_expr, to_json_value
from planner.targets.ascend import ASCEND_TARGETS, STORE_TILE_ALIGN, AscendTarget

ACC = "Acc"
MAT = "Mat"
REFUSED_ATTRIBUTES = ("atomic", "pre_quant", "pre_relu")
_WHY = "NZ accumulator store refused, an NZ tensor cannot be a store destination here: "

STORE_COLUMN_RULES = OffsetRules(
    nz.STORE_COLUMN_OFFSET_UNALIGNED,
    nz.STORE_COLUMN_OFFSET_UNPROVABLE_MULTIPLE,
    nz.STORE_COLUMN_OFFSET_UNPROVABLE_SIGN,
    _WHY + "the column offset must be a non-negative multiple of {factor}, got {value}.",
    _WHY + "the column offset {expr} cannot be proven a multiple of {factor} ({outcome}).",
    _WHY + "the column offset {expr} cannot be proven non-negative ({outcome}).",
)


def plan_store(ctx: PlanContext, op: StoreOp, dest: NzTensor) -> PlannedOp:
    """Check one NZ accumulator store, rewrite its offsets and partition, and split it when it must be."""
    site = nz.Site(tensor=dest.name, op=op.id)
    require_rank(op.offsets, dest, op.id, "offsets")
    target = check_backend(site, ctx.request.target)
    rows, cols = check_tile(site, op.tile, dest)
    check_producer(op.tile, rows, cols)
    check_attributes(site, op.attrs)
    offsets = exprs(op.offsets)
    check_row_window(site, dest, rows, offsets[ROW_AXIS])
    check_column_window(site, dest, cols, offsets[COL_AXIS])
    column = map_trailing_offset(ctx.ledger, site, COL_AXIS, offsets[COL_AXIS], ACC_C0, STORE_COLUMN_RULES)
    window = (*(Const(1),) * (dest.rank - 2), Const(rows), Const(cols))
    check_window_bounds(ctx, site, "tile.store", dest, offsets, window)
    blocked = (fold_leading_offsets(offsets[:-2], dest.logical[:-2]), column, Const(0), Const(0), Const(0))
    chunks = None
    refusal = emitted_store_refusal(site, rows, cols, target)
    if refusal is not None:
        if not _retileable(op.tile, rows, cols):
            raise refusal
        chunks = split_columns(site, rows, cols, offsets[COL_AXIS], blocked, target)
    return PlannedOp(
        id=op.id,
        op=op.op,
        offsets=[to_json_value(value) for value in blocked],
        partition=acc_partition(rows, cols),
        chunks=chunks,
    )


def check_backend(site: nz.Site, target_name: str | None) -> AscendTarget:
    """Only A2/A3 pto-isa writes NZ from an Acc tile."""
    target = ASCEND_TARGETS.get(target_name or "")
    if target is None or not target.supports_nz_acc_store:
        found = target.description if target else "no target (give target=a2a3)"
        raise nz.refusal(
            nz.STORE_BACKEND, _WHY + f"the NZ accumulator store exists on A2/A3 only, got {found}.", site
        )
    return target


def check_tile(site: nz.Site, tile: StoreTile, dest: NzTensor) -> tuple[int, int]:
    """Source memory, dtypes, a static positive 2-D shape, full validity and 16-alignment, in that order."""
    if tile.memory != ACC:
        raise nz.refusal(
            nz.STORE_SOURCE_MEMORY, _WHY + f"the source tile must be Acc, got {tile.memory}.", site
        )
    if tile.dtype != ACC_DTYPE or dest.dtype != ACC_DTYPE:
        raise nz.refusal(
            nz.STORE_DTYPE,
            _WHY + f"only an FP32 Acc tile to an FP32 tensor is supported, got {tile.dtype} to {dest.dtype}.",
            site,
        )
    shape = exprs(tile.shape)
    extents = [extent.value for extent in shape if isinstance(extent, Const) and extent.value > 0]
    if len(shape) != 2 or len(extents) != 2:
        raise nz.refusal(
            nz.STORE_TILE_SHAPE,
            _WHY + f"the tile must be static, positive and 2-D, got [{', '.join(map(format_expr, shape))}].",
            site,
        )
    if tile.valid_shape and exprs(tile.valid_shape) != shape:
        raise nz.refusal(
            nz.STORE_PARTIAL_VALID,
            _WHY + f"the tile must be fully valid, got valid_shape [{', '.join(map(str, tile.valid_shape))}] "
            f"for shape {extents}.",
            site,
        )
    rows, cols = extents
    if rows % STORE_TILE_ALIGN or cols % STORE_TILE_ALIGN:
        raise nz.refusal(
            nz.STORE_TILE_UNALIGNED,
            _WHY + f"tile rows and columns must be multiples of 16 (no single-column-block exception), got "
            f"{rows} x {cols}.",
            site,
        )
    return rows, cols


def _attribute_set(value: JsonValue) -> bool:
    return value not in (None, False, "") and not (isinstance(value, str) and value.lower() == "none")


def check_attributes(site: nz.Site, attrs: dict[str, JsonValue]) -> None:
    """Atomic accumulation and the fixpipe pre-ops are not part of the supported NZ store."""
    for name in REFUSED_ATTRIBUTES:
        if _attribute_set(attrs.get(name)):
            raise nz.refusal(nz.STORE_ATTRIBUTE, _WHY + f"the store carries {name}={attrs[name]!r}.", site)


def check_row_window(site: nz.Site, dest: NzTensor, rows: int, row_offset: Expr) -> None:
    """The store covers the whole parent row axis at row offset 0 (11.3: the pitch follows the partition)."""
    if rows != dest.rows or row_offset != Const(0):
        raise nz.refusal(
            nz.STORE_ROW_WINDOW,
            _WHY + f"the tile must cover the whole parent row axis ({dest.rows} rows) at row offset 0, got "
            f"{rows} rows at offset {format_expr(row_offset)}; A2/A3 TStoreAccNz2nz derives the column-block "
            "pitch from the partition height, so a row subwindow would be miswritten.",
            site,
            axis=ROW_AXIS,
        )


def check_column_window(site: nz.Site, dest: NzTensor, cols: int, col_offset: Expr) -> None:
    """Refuse a column window statically outside the destination; never ask for a proof of it."""
    start = col_offset.value if isinstance(col_offset, Const) else 0
    if start + cols > dest.cols:
        raise nz.refusal(
            nz.STORE_COLUMN_WINDOW,
            _WHY
            + f"columns [{format_expr(col_offset)}, {format_expr(col_offset)} + {cols}) fall outside the "
            f"destination's {dest.cols} columns.",
            site,
            axis=COL_AXIS,
        )


def check_producer(tile: StoreTile, rows: int, cols: int) -> None:
    """A matmul producer must produce exactly the stored tile, whether or not the store is split."""
    producer = tile.producer
    if producer is not None and (producer.m, producer.n) != (rows, cols):
        raise RequestError(
            INVALID,
            f"matmul producer is {producer.m} x {producer.n} but the stored tile is {rows} x {cols}",
        )


def _retileable(tile: StoreTile, rows: int, cols: int) -> bool:
    """A Mat-resident matmul producing this tile (checked by `check_producer`) can be split along N."""
    return tile.producer is not None and tile.producer.memory == MAT
