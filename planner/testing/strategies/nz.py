"""Hypothesis strategies for `layout.plan` requests, for the planner's tests and users' own.

- `nz_tensor_specs()`: a well-formed logical NZ tensor (rank 2, 3 or 4, static, aligned).
- `aligned_loads(spec)`: a `tile.load` window the planner must accept: fractal-aligned
  trailing offsets and sizes inside the tensor, one contiguous leading window.
- `valid_layout_requests()`: a whole request the planner must accept (loads, a leading-axis
  slice with a load on its result, an FP32 accumulator store on A2/A3).
- `refused_layout_requests()`: `(request, code)` pairs: a request with exactly one known
  violation and the `nz.*` code the plan must refuse it with.

Example::

    @given(valid_layout_requests())
    def test_my_backend_agrees(request):
        response = planner.layout.plan(request)
        assert response.ok
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from planner.layout.protocol import LayoutPlanRequest, LoadOp, SliceOp, StoreOp, StoreTile, TensorSpec
from planner.targets.ascend import ASCEND_DTYPES, C0_LINE_BITS, FRACTAL_ROWS

NZ_DTYPES = ("INT8", "UINT8", "FP16", "BF16", "INT16", "FP32", "INT32", "INT64", "UINT64")
"""Element types NZ blocks (8, 16, 32 and 64 bits)."""


def c0_of(dtype: str) -> int:
    """Elements in one 32-byte C0 line of `dtype`."""
    return C0_LINE_BITS // ASCEND_DTYPES[dtype].bits


@st.composite
def nz_tensor_specs(
    draw: st.DrawFn,
    name: str = "w",
    dtypes: tuple[str, ...] = NZ_DTYPES,
    ranks: tuple[int, ...] = (2, 3, 4),
    max_row_fractals: int = 6,
    max_col_blocks: int = 6,
) -> TensorSpec:
    """A logical NZ tensor `[..lead.., R, C]` with R a multiple of 16 and C a multiple of c0."""
    dtype = draw(st.sampled_from(dtypes))
    rank = draw(st.sampled_from(ranks))
    leading = draw(st.lists(st.integers(1, 3), min_size=rank - 2, max_size=rank - 2))
    rows = FRACTAL_ROWS * draw(st.integers(1, max_row_fractals))
    cols = c0_of(dtype) * draw(st.integers(1, max_col_blocks))
    return TensorSpec(name=name, shape=[*leading, rows, cols], dtype=dtype, layout="NZ")


@st.composite
def leading_windows(draw: st.DrawFn, extents: list[int]) -> tuple[list[int], list[int]]:
    """(sizes, offsets) over leading extents shaped `[1, .., 1, k, full, .., full]`."""
    split = draw(st.integers(0, len(extents)))
    sizes, offsets = [], []
    for axis, extent in enumerate(extents):
        if axis < split:
            sizes.append(1)
            offsets.append(draw(st.integers(0, extent - 1)))
        elif axis == split:
            size = draw(st.integers(1, extent))
            sizes.append(size)
            offsets.append(draw(st.integers(0, extent - size)))
        else:
            sizes.append(extent)
            offsets.append(0)
    return sizes, offsets


@st.composite
def _aligned_span(draw: st.DrawFn, extent: int, unit: int) -> tuple[int, int]:
    """(offset, size) in elements: both multiples of `unit`, size positive, inside `extent`."""
    units = extent // unit
    size = draw(st.integers(1, units))
    start = draw(st.integers(0, units - size))
    return start * unit, size * unit


@st.composite
def aligned_loads(draw: st.DrawFn, spec: TensorSpec, op_id: str = "l0") -> LoadOp:
    """A `tile.load` of `spec` (static shape) that the planner must accept."""
    extents = [int(extent) for extent in spec.shape]
    lead_sizes, lead_offsets = draw(leading_windows(extents[:-2]))
    row0, rows = draw(_aligned_span(extents[-2], FRACTAL_ROWS))
    col0, cols = draw(_aligned_span(extents[-1], c0_of(spec.dtype)))
    return LoadOp(
        id=op_id,
        source=spec.name,
        offsets=[*lead_offsets, row0, col0],
        shapes=[*lead_sizes, rows, cols],
        target_memory="Mat",
    )


@st.composite
def acc_stores(draw: st.DrawFn, dest: TensorSpec, op_id: str = "st") -> StoreOp:
    """A full-row FP32 Acc store into `dest` (a static FP32 NZ tensor) at a column offset multiple of 16."""
    extents = [int(extent) for extent in dest.shape]
    lead_offsets = [draw(st.integers(0, extent - 1)) for extent in extents[:-2]]
    col0, cols = draw(_aligned_span(extents[-1], 16))
    return StoreOp(
        id=op_id,
        dest=dest.name,
        offsets=[*lead_offsets, 0, col0],
        tile=StoreTile(shape=[extents[-2], cols], dtype="FP32", memory="Acc"),
    )


@st.composite
def valid_layout_requests(draw: st.DrawFn) -> LayoutPlanRequest:
    """A request the planner must accept: NZ loads, a leading-axis slice and an accumulator store."""
    weight = draw(nz_tensor_specs("w"))
    out = TensorSpec(
        name="out",
        shape=[FRACTAL_ROWS * draw(st.integers(1, 4)), 16 * draw(st.integers(1, 8))],
        dtype="FP32",
        layout="NZ",
    )
    ops: list[Any] = [draw(aligned_loads(weight, f"l{index}")) for index in range(draw(st.integers(1, 3)))]
    if len(weight.shape) >= 3:
        extents = [int(extent) for extent in weight.shape]
        sizes, offsets = draw(leading_windows(extents[:-2]))
        window = [*sizes, *extents[-2:]]
        ops.append(SliceOp(id="s0", source="w", shapes=window, offsets=[*offsets, 0, 0], result="ws"))
        sliced = TensorSpec(name="ws", shape=window, dtype=weight.dtype, layout="NZ")
        ops.append(draw(aligned_loads(sliced, "ls")))
    ops.append(draw(acc_stores(out)))
    return LayoutPlanRequest(target="a2a3", tensors=[weight, out], ops=ops)


Json = dict[str, Any]


def _bad_rows(request: Json) -> None:
    request["tensors"][0]["shape"][-2] += 8


def _bad_cols(request: Json) -> None:
    request["tensors"][0]["shape"][-1] += 1


def _sub_byte(request: Json) -> None:
    request["tensors"][0]["dtype"] = "INT4"


def _load_to_vec(request: Json) -> None:
    request["ops"][0]["target_memory"] = "Vec"


def _unaligned_row_offset(request: Json) -> None:
    request["ops"][0]["offsets"][-2] += 8


def _view(request: Json) -> None:
    request["ops"].append({"id": "v", "op": "tensor.view", "source": "w"})


def _other_consumer(request: Json) -> None:
    request["ops"].insert(0, {"id": "x", "op": "tensor.add", "args": ["w"]})


def _store_on_a5(request: Json) -> None:
    request["target"] = "a5"


def _store_from_vec(request: Json) -> None:
    request["ops"][-1]["tile"]["memory"] = "Vec"


# Each edit of a valid request (in its JSON form) introduces exactly one violation, named by its code.
REFUSALS: dict[str, Callable[[Json], None]] = {
    "nz.rows_not_multiple_of_16": _bad_rows,
    "nz.cols_not_multiple_of_c0": _bad_cols,
    "nz.sub_byte_dtype": _sub_byte,
    "nz.load_target_not_mat": _load_to_vec,
    "nz.offset_unaligned_const": _unaligned_row_offset,
    "nz.tensor_view_of_nz": _view,
    "nz.unsupported_consumer": _other_consumer,
    "nz.store_backend": _store_on_a5,
    "nz.store_source_memory": _store_from_vec,
}


@st.composite
def refused_layout_requests(draw: st.DrawFn) -> tuple[LayoutPlanRequest, str]:
    """A valid request with one violation from `REFUSALS`, and the code the plan must report."""
    request = draw(valid_layout_requests()).model_dump(mode="json")
    code = draw(st.sampled_from(sorted(REFUSALS)))
    REFUSALS[code](request)
    return LayoutPlanRequest.model_validate(request), code
