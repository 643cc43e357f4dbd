"""Per-emitted-store limits and the AutoTileMatmulL0 N-split of an oversized NZ store (11.1, 12).

Limits apply to each emitted Acc tile, never to the GM tensor: rows <= 65535, columns <= 4095
(16-aligned: 65520 and 4080) and `M * n * 4` bytes within L0C. A Mat matmul producer lets an
oversized store be split along N only (`m == M`); the chunk width is the largest legal `n` that
divides N evenly, so the split is deterministic and every chunk has the same partition.
"""

from __future__ import annotations

from planner.layout import diagnostics as nz
from planner.layout.blocking import add_exact
from planner.layout.protocol import StoreChunk
from planner.proofs.expr import Const, Expr, to_json_value
from planner.targets.ascend import (
    ASCEND_DTYPES,
    FRACTAL_ROWS,
    STORE_MAX_COLS,
    STORE_MAX_ROWS,
    STORE_TILE_ALIGN,
    AscendTarget,
)

ACC_DTYPE = "FP32"
ACC_C0 = 8
ACC_ELEMENT_BYTES = ASCEND_DTYPES[ACC_DTYPE].bits // 8
MAX_ALIGNED_ROWS = STORE_MAX_ROWS - STORE_MAX_ROWS % STORE_TILE_ALIGN
MAX_ALIGNED_COLS = STORE_MAX_COLS - STORE_MAX_COLS % STORE_TILE_ALIGN


def acc_partition(rows: int, cols: int) -> list[int]:
    """The explicit rank-5 store partition `[1, n/8, M/16, 16, 8]` of an M x n Acc tile (11.2)."""
    return [1, cols // ACC_C0, rows // FRACTAL_ROWS, FRACTAL_ROWS, ACC_C0]


def emitted_store_refusal(
    site: nz.Site, rows: int, cols: int, target: AscendTarget
) -> nz.LayoutRefusal | None:
    """The final NZ-store guard for one emitted Acc tile: ISA extent fields, then L0C capacity."""
    if rows > STORE_MAX_ROWS or cols > STORE_MAX_COLS:
        return nz.refusal(
            nz.STORE_EXTENT_LIMIT,
            f"NZ accumulator store emits a {rows} x {cols} tile, beyond the store instruction's limits of "
            f"{STORE_MAX_ROWS} rows and {STORE_MAX_COLS} columns, and nothing can retile it.",
            site,
        )
    size = rows * cols * ACC_ELEMENT_BYTES
    if size > target.l0c_bytes:
        return nz.refusal(
            nz.STORE_L0C_CAPACITY,
            f"NZ accumulator store emits a {rows} x {cols} FP32 Acc tile of {size} bytes, above the "
            f"{target.l0c_bytes}-byte L0C of {target.description}, and nothing can retile it.",
            site,
        )
    return None


def chunk_width(rows: int, cols: int, target: AscendTarget) -> int | None:
    """The largest legal chunk width: a multiple of 16 dividing N, within 4080 columns and L0C at full M."""
    if rows > MAX_ALIGNED_ROWS:
        return None
    widest = min(cols, MAX_ALIGNED_COLS, target.l0c_bytes // (rows * ACC_ELEMENT_BYTES))
    legal = (n for n in range(widest - widest % STORE_TILE_ALIGN, 0, -STORE_TILE_ALIGN) if cols % n == 0)
    return next(legal, None)


def split_columns(
    site: nz.Site,
    rows: int,
    cols: int,
    col_offset: Expr,
    blocked_offsets: tuple[Expr, ...],
    target: AscendTarget,
) -> list[StoreChunk]:
    """Split an M x N store into N-chunks; the chunk at `ni` adds `ni / 8` to the blocked column offset."""
    width = chunk_width(rows, cols, target)
    if width is None:
        raise nz.refusal(
            nz.AUTOTILE_NO_LEGAL_TILE,
            f"AutoTileMatmulL0 finds no legal N tile for the {rows} x {cols} NZ store at full M = {rows}: "
            f"each chunk needs a width that is a multiple of 16 dividing {cols}, at most {MAX_ALIGNED_COLS} "
            f"columns, with M <= {MAX_ALIGNED_ROWS} and M * n * {ACC_ELEMENT_BYTES} <= {target.l0c_bytes} "
            "bytes.",
            site,
        )
    batch, column = blocked_offsets[0], blocked_offsets[1]
    return [
        StoreChunk(
            col_offset=to_json_value(add_exact(col_offset, Const(start))),
            n=width,
            offsets=[
                to_json_value(value)
                for value in (batch, add_exact(column, Const(start // ACC_C0)), Const(0), Const(0), Const(0))
            ],
            partition=acc_partition(rows, width),
        )
        for start in range(0, cols, width)
    ]
