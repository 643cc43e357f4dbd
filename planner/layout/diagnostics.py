"""Every `nz.*` diagnostic code, defined once, with the fix each refusal names (docs/design/nz-layout.md 13).

A refusal is raised as `LayoutRefusal` inside the planner and becomes the response's single
error diagnostic: the first error aborts the plan, and nothing that was not proven is planned.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.layout.protocol import Diagnostic
from planner.proofs.protocol import ReadingRecord


@dataclass(frozen=True, slots=True)
class NzCode:
    """One stable diagnostic code and the remedy every message carrying it names."""

    code: str
    fix: str


NZ_CODES: dict[str, NzCode] = {}


def _code(name: str, fix: str) -> NzCode:
    entry = NzCode(f"nz.{name}", fix)
    NZ_CODES[entry.code] = entry
    return entry


# Tensor types (sections 2, 3, 5).
RANK_BELOW_2 = _code("rank_below_2", "annotate pl.NZ only on tensors with a trailing [rows, cols] pair.")
DYNAMIC_TRAILING_EXTENT = _code(
    "dynamic_trailing_extent", "make the rows and cols extents compile-time constants, or drop pl.NZ."
)
ROWS_NOT_MULTIPLE_OF_16 = _code(
    "rows_not_multiple_of_16", "pad the row extent to a positive multiple of 16 (one fractal is 16 rows)."
)
COLS_NOT_MULTIPLE_OF_C0 = _code(
    "cols_not_multiple_of_c0", "pad the column extent to a positive multiple of c0 (one 32-byte C0 line)."
)
SUB_BYTE_DTYPE = _code("sub_byte_dtype", "keep sub-byte and packed FP4 tensors in ND layout.")
DTYPE_NOT_DIVIDING_C0 = _code(
    "dtype_not_dividing_c0", "use an element type of 8, 16, 32 or 64 bits for an NZ tensor."
)
DYNAMIC_LEADING_EXTENT = _code(
    "dynamic_leading_extent",
    "make every leading extent static, or declare the tensor rank 3 ([B, R, C]) so B may stay dynamic.",
)
DISTRIBUTED_TENSOR = _code(
    "distributed_tensor", "keep distributed tensors in ND layout (remote_load has no NZ blocking)."
)
PARTIAL_VALID_SHAPE_ON_TYPE = _code(
    "partial_valid_shape_on_type",
    "drop the tensor type's valid_shape; narrow the tile.load valid_shape instead.",
)
EXPLICIT_STRIDE = _code(
    "explicit_stride", "drop the explicit stride: NZ strides are derived from the blocked shape."
)

# Consumers (section 6).
LOAD_TARGET_NOT_MAT = _code("load_target_not_mat", "load the NZ tensor with target_memory=pl.Mem.Mat.")
UNSUPPORTED_CONSUMER = _code(
    "unsupported_consumer",
    "read the NZ tensor through tile.load(target_memory=Mat), tensor.slice on leading axes, or a "
    "whole-tensor tensor.reshape to rank 1; otherwise keep it in ND layout.",
)
TENSOR_VIEW_OF_NZ = _code(
    "tensor_view_of_nz", "use tensor.slice on the leading axes, or keep the viewed tensor in ND layout."
)

# Trailing offsets (section 7).
OFFSET_UNALIGNED_CONST = _code(
    "offset_unaligned_const", "use a non-negative offset that is a multiple of the axis factor."
)
OFFSET_UNPROVABLE_MULTIPLE = _code(
    "offset_unprovable_multiple",
    "bind the offset to a provable form: a product with a multiple of the factor (n0 = nb * 256), a loop "
    "whose start and step are multiples, min/max of multiples, or a sum of those.",
)
OFFSET_UNPROVABLE_SIGN = _code(
    "offset_unprovable_sign",
    "bind the offset so it is provably non-negative: products and sums of non-negative values, loops with "
    "non-negative start and step, lane indices; bound the loop or lane range so nothing wraps.",
)

# valid_shape (section 8).
DYNAMIC_VALID_ROWS_NOT_MULTIPLE = _code(
    "dynamic_valid_rows_not_multiple",
    "make the dynamic row count a provable multiple of 16, e.g. min(R - o0, TILE) with 16-aligned o0 "
    "and TILE.",
)
VALID_COLS_BAD = _code("valid_cols_bad", "give valid_shape[-1] a static positive multiple of c0.")

# Window bounds (7.3: a window past the end would read other fractals) and computed constants.
WINDOW_OUT_OF_BOUNDS = _code(
    "window_out_of_bounds",
    "keep offset + window extent within the tensor on every axis for every lane and loop iteration "
    "(bound the loop, or narrow the last window with valid_shape).",
)
WINDOW_BOUNDS_UNPROVEN = _code(
    "window_bounds_unproven",
    "bound the value the window depends on (a param min/max, a loop stop), or check the launch grid: "
    "more blocks than the tensor has windows read other fractals.",
)
INDEX_OVERFLOW = _code(
    "index_overflow",
    "use a wider index_bits, or split the tensor so its blocked strides and offsets fit the index width.",
)

# GM row gap (section 10).
GM_GAP_OVERFLOW = _code(
    "gm_gap_overflow",
    "load a taller row tile so that tensor rows - loaded rows <= 65535, or stack the layers on a leading "
    "batch axis ([LAYERS, K, N]).",
)

# Slices (section 6.2).
SLICE_TRAILING_WINDOW = _code(
    "slice_trailing_window",
    "take the whole [R, C] pair in tensor.slice and window it in the tile.load, or stack on a leading "
    "axis ([LAYERS, R, C]) instead of on rows.",
)
SLICE_MULTI_LEADING_WINDOW = _code(
    "slice_multi_leading_window", "narrow one leading axis per tensor.slice; chain slices for more."
)
SLICE_VALID_SHAPE_RANK = _code(
    "slice_valid_shape_rank", "give the tensor.slice a valid_shape of the window's full rank, or none."
)
SLICE_VALID_SHAPE_NARROWS = _code(
    "slice_valid_shape_narrows", "make the tensor.slice valid_shape equal its sizes; narrow in the tile.load."
)
SLICE_DROP_TRAILING_AXIS = _code("slice_drop_trailing_axis", "drop leading axes only.")

# Accumulator stores (section 11) and the N-split (section 12).
STORE_BACKEND = _code(
    "store_backend", "target A2/A3 (a2a3) for NZ accumulator stores, or store to an ND tensor."
)
STORE_SOURCE_MEMORY = _code("store_source_memory", "store the matmul accumulator (pl.Mem.Acc) tile directly.")
STORE_DTYPE = _code("store_dtype", "store an FP32 Acc tile to an FP32 NZ tensor, with no dtype conversion.")
STORE_TILE_SHAPE = _code("store_tile_shape", "store a static, positive, 2-D tile.")
STORE_PARTIAL_VALID = _code(
    "store_partial_valid", "store a fully valid tile (valid_shape equal to its shape)."
)
STORE_TILE_UNALIGNED = _code("store_tile_unaligned", "pad the tile's rows and columns to multiples of 16.")
STORE_ATTRIBUTE = _code("store_attribute", "drop atomic, pre_quant and pre_relu from the NZ store.")
STORE_ROW_WINDOW = _code(
    "store_row_window",
    "store the whole parent row axis at row offset 0; stack panels on a leading batch axis ([PANELS, R, C]).",
)
STORE_COLUMN_WINDOW = _code(
    "store_column_window", "keep col_offset + tile columns within the destination's columns."
)
STORE_COLUMN_OFFSET_UNALIGNED = _code(
    "store_column_offset_unaligned", "use a non-negative column offset that is a multiple of 8."
)
STORE_COLUMN_OFFSET_UNPROVABLE_MULTIPLE = _code(
    "store_column_offset_unprovable_multiple",
    "bind the column offset to a provable multiple of 8 (a product with a multiple of 8, an aligned loop).",
)
STORE_COLUMN_OFFSET_UNPROVABLE_SIGN = _code(
    "store_column_offset_unprovable_sign",
    "bind the column offset so it is provably non-negative (non-negative loop start and step, lane index).",
)
STORE_EXTENT_LIMIT = _code(
    "store_extent_limit", "tile the store so each emitted store has at most 65520 rows and 4080 columns."
)
STORE_L0C_CAPACITY = _code(
    "store_l0c_capacity",
    "tile the output so each Acc tile fits L0C, e.g. produce it by a Mat matmul the N-split can tile.",
)
AUTOTILE_NO_LEGAL_TILE = _code(
    "autotile_no_legal_tile",
    "reduce M (at most 2048 rows fit L0C at 16 columns) or make N a multiple of a legal chunk width.",
)

# Run time (section 9) and internal invariants (section 15).
RUNTIME_BATCH_RANK = _code("runtime_batch_rank", "pass the argument with its logical rank-3 shape [B, R, C].")
INTERNAL_UNBLOCKED_VIEW = _code(
    "internal_unblocked_view", "plan the tensor with layout.plan before emitting code."
)
INTERNAL_DIVISOR_NOT_POWER_OF_TWO = _code(
    "internal_divisor_not_power_of_two", "report this planner defect; NZ factors are powers of two."
)


@dataclass(frozen=True, slots=True)
class Site:
    """Where a rule is checked: the NZ tensor and the op reading or writing it (None for its type)."""

    tensor: str
    op: str | None = None


def warning(code: NzCode, detail: str, site: Site, *, axis: int | None = None) -> Diagnostic:
    """A diagnostic that leaves the plan `ok` (severity `warning`): what is not proven, then the fix."""
    return Diagnostic(
        code=code.code,
        severity="warning",
        message=f"{detail} Fix: {code.fix}",
        op=site.op,
        tensor=site.tensor,
        axis=axis,
    )


class LayoutRefusal(Exception):
    """The first refusal of a plan: carries the diagnostic the response reports."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def refusal(
    code: NzCode,
    detail: str,
    site: Site,
    *,
    axis: int | None = None,
    counterexample: dict[str, int] | None = None,
    reading: ReadingRecord | None = None,
) -> LayoutRefusal:
    """Build the refusal for `code`: what was violated (`detail`), then the fix."""
    message = f"{detail} Fix: {code.fix}"
    return LayoutRefusal(
        Diagnostic(
            code=code.code,
            message=message,
            op=site.op,
            tensor=site.tensor,
            axis=axis,
            counterexample=counterexample,
            reading=reading,
        )
    )
