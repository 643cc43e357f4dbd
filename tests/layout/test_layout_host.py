"""Host packing (`planner.layout.host`) against the NZ byte oracle and the planner's own descriptors."""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.errors import RequestError
from planner.layout import plan
from planner.layout.host import pack, unpack
from planner.layout.protocol import LayoutPlanRequest, LoadOp, TensorSpec
from planner.targets.ascend import ASCEND_DTYPES
from planner.testing.oracles.nz_bytes import pack_nz, read_window
from planner.testing.strategies.nz import aligned_loads, nz_tensor_specs

# Every NZ-capable dtype, as the numpy words it travels in (BF16 and FP8 have no numpy type).
WORDS = {
    "INT8": np.int8, "UINT8": np.uint8, "FP8": np.uint8, "FP8E4M3": np.uint8, "FP8E5M2": np.uint8,
    "HF8": np.uint8, "INT16": np.int16, "UINT16": np.uint16, "FP16": np.float16, "BF16": np.uint16,
    "INT32": np.int32, "UINT32": np.uint32, "FP32": np.float32, "INT64": np.int64, "UINT64": np.uint64,
    "INDEX": np.int64,
}  # fmt: skip


def random_words(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray[Any, Any]:
    """Random bit patterns of the dtype's width (NaN payloads included: packing moves bits, not values)."""
    width = np.dtype(WORDS[dtype]).itemsize
    raw = np.random.default_rng(seed).integers(0, 256, size=prod(shape) * width, dtype=np.uint8)
    return raw.view(WORDS[dtype]).reshape(shape)


@st.composite
def logical_shapes(draw: st.DrawFn) -> tuple[str, tuple[int, ...]]:
    dtype = draw(st.sampled_from(sorted(WORDS)))
    c0 = 256 // ASCEND_DTYPES[dtype].bits
    leading = draw(st.lists(st.integers(0, 3), max_size=3))
    return dtype, (*leading, 16 * draw(st.integers(1, 5)), c0 * draw(st.integers(1, 5)))


@given(logical_shapes(), st.integers(0, 2**32 - 1))
def test_unpack_inverts_pack_for_every_dtype_rank_and_batch(
    case: tuple[str, tuple[int, ...]], seed: int
) -> None:
    dtype, shape = case
    logical = random_words(shape, dtype, seed)
    packed = pack(logical, dtype)
    rows, cols = shape[-2:]
    c0 = 256 // ASCEND_DTYPES[dtype].bits
    assert packed.shape == (prod(shape[:-2]), cols // c0, rows // 16, 16, c0)
    assert packed.flags.c_contiguous
    assert packed.dtype == logical.dtype
    assert packed.tobytes() == pack_nz(logical)
    round_trip = unpack(packed, shape, dtype)
    assert round_trip.tobytes() == logical.tobytes() and round_trip.shape == shape
    assert unpack(packed.reshape(-1), shape, dtype).tobytes() == logical.tobytes()


def _logical_window(logical: np.ndarray[Any, Any], load: LoadOp) -> np.ndarray[Any, Any]:
    index = tuple(slice(int(o), int(o) + int(s)) for o, s in zip(load.offsets, load.shapes, strict=True))
    stacked = logical[index].reshape(-1, *logical[index].shape[-2:])
    return stacked[0] if len(stacked) == 1 else stacked


@st.composite
def planned_loads(draw: st.DrawFn) -> tuple[TensorSpec, list[LoadOp]]:
    spec = draw(nz_tensor_specs(dtypes=tuple(sorted(set(WORDS) - {"INDEX"})), ranks=(2, 3, 4, 5)))
    return spec, [draw(aligned_loads(spec, f"l{index}")) for index in range(draw(st.integers(1, 4)))]


@given(planned_loads(), st.integers(0, 2**32 - 1))
def test_every_planned_load_window_reads_the_logical_window_from_packed_bytes(
    case: tuple[TensorSpec, list[LoadOp]], seed: int
) -> None:
    spec, loads = case
    response = plan(LayoutPlanRequest(tensors=[spec], ops=loads))
    assert response.ok, response.diagnostics
    [tensor] = response.tensors
    logical = random_words(tuple(int(extent) for extent in spec.shape), spec.dtype, seed)
    packed = pack(logical, spec.dtype)
    assert list(packed.shape) == tensor.shape
    for load, planned in zip(loads, response.ops, strict=True):
        window = read_window(
            packed.tobytes(),
            logical.dtype,
            [int(extent) for extent in tensor.shape],
            [int(stride) for stride in tensor.strides],
            [int(offset) for offset in planned.offsets or []],
            [int(extent) for extent in planned.shapes or []],
        )
        assert window.tobytes() == np.ascontiguousarray(_logical_window(logical, load)).tobytes()


@pytest.mark.parametrize(
    ("dtype", "shape", "element", "flat_index"),
    [
        ("INT8", (256, 512), (0, 17, 40), 8744),
        ("INT8", (256, 512), (0, 0, 32), 8192),
        ("INT8", (256, 512), (0, 16, 0), 512),
        ("INT8", (256, 512), (0, 1, 0), 32),
        ("FP32", (64, 16), (0, 0, 8), 512),
        ("FP32", (64, 16), (0, 63, 15), 1023),
        ("INT8", (2, 4, 32, 64), (1, 3, 17, 40), 7 * 32 * 64 + 1 * 32 * 32 + 1 * 16 * 32 + 1 * 32 + 8),
    ],
)
def test_section_4_byte_order(
    dtype: str, shape: tuple[int, ...], element: tuple[int, ...], flat_index: int
) -> None:
    logical = np.zeros(shape, dtype=WORDS[dtype])
    logical[element[-len(shape) :]] = 1
    assert np.flatnonzero(pack(logical, dtype)).tolist() == [flat_index]


@pytest.mark.parametrize(
    ("shape", "words", "dtype", "code"),
    [
        ((200, 64), np.int8, "INT8", "nz.rows_not_multiple_of_16"),
        ((256, 400), np.int8, "INT8", "nz.cols_not_multiple_of_c0"),
        ((256, 8), np.uint16, "BF16", "nz.cols_not_multiple_of_c0"),
        ((512,), np.int8, "INT8", "nz.rank_below_2"),
        ((16, 64), np.int8, "INT4", "nz.sub_byte_dtype"),
        ((16, 64), np.uint8, "FP4X2_E2M1", "nz.sub_byte_dtype"),
        ((16, 64), np.int8, "INT24", "nz.dtype_not_dividing_c0"),
        ((16, 64), np.int8, "INT9", "request.unknown_dtype"),
        ((16, 32), np.int8, "BF16", "request.invalid"),
        ((16, 32), np.complex64, "INT64", "request.invalid"),
    ],
)
def test_shapes_the_planner_refuses_are_typed_errors_not_padded(
    shape: tuple[int, ...], words: type[np.generic], dtype: str, code: str
) -> None:
    with pytest.raises(RequestError) as raised:
        pack(np.zeros(shape, dtype=words), dtype)
    assert raised.value.code == code


def test_unpack_refuses_bytes_of_another_shape() -> None:
    packed = pack(np.zeros((32, 64), dtype=np.int8), "INT8")
    with pytest.raises(RequestError) as raised:
        unpack(packed, (64, 32), "INT8")
    assert raised.value.code == "request.invalid"
    assert "[1, 1, 4, 16, 32]" in raised.value.message


def test_dtype_names_accept_the_pl_spelling_and_any_case() -> None:
    logical = random_words((16, 16), "BF16", 7)
    assert pack(logical, "pl.BF16").tobytes() == pack(logical, "bf16").tobytes() == pack_nz(logical)
