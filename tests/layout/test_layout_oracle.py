"""Oracle-backed properties: planned loads read exactly the logical window out of packed NZ bytes."""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest, LoadOp, TensorSpec
from planner.testing.oracles.nz_bytes import nz_c0, pack_nz, read_window, unpack_nz
from planner.testing.strategies.nz import (
    aligned_loads,
    nz_tensor_specs,
    refused_layout_requests,
    valid_layout_requests,
)
from tests.support.hypothesis_budget import lowered

ORACLE_DTYPES = {"INT8": np.int8, "FP16": np.float16, "FP32": np.float32, "INT64": np.int64}


def logical_matrix(spec: TensorSpec, seed: int) -> np.ndarray[Any, Any]:
    """Distinct values per element, so a misplaced element cannot go unnoticed."""
    shape = [int(extent) for extent in spec.shape]
    values = np.random.default_rng(seed).permutation(prod(shape)) % 2039
    return values.reshape(shape).astype(ORACLE_DTYPES[spec.dtype])


def logical_window(matrix: np.ndarray[Any, Any], load: LoadOp) -> np.ndarray[Any, Any]:
    index = tuple(slice(int(o), int(o) + int(s)) for o, s in zip(load.offsets, load.shapes, strict=True))
    window = matrix[index]
    stacked = window.reshape(-1, *window.shape[-2:])
    return stacked[0] if len(stacked) == 1 else stacked


@st.composite
def specs_with_loads(draw: st.DrawFn) -> tuple[TensorSpec, list[LoadOp]]:
    spec = draw(nz_tensor_specs(dtypes=tuple(ORACLE_DTYPES), ranks=(2, 3, 4)))
    loads = [draw(aligned_loads(spec, f"l{index}")) for index in range(draw(st.integers(1, 3)))]
    return spec, loads


@given(specs_with_loads(), st.integers(0, 2**32 - 1))
def test_every_planned_load_reads_the_logical_window(
    case: tuple[TensorSpec, list[LoadOp]], seed: int
) -> None:
    spec, loads = case
    response = plan(LayoutPlanRequest(tensors=[spec], ops=loads))
    assert response.ok, response.diagnostics
    [planned_tensor] = response.tensors
    matrix = logical_matrix(spec, seed)
    data = pack_nz(matrix)
    assert len(data) == matrix.nbytes
    shape = [int(v) for v in planned_tensor.shape]
    strides = [int(v) for v in planned_tensor.strides]
    for load, op in zip(loads, response.ops, strict=True):
        offsets = [int(v) for v in op.offsets or []]
        window = read_window(data, matrix.dtype, shape, strides, offsets, [int(v) for v in op.shapes or []])
        np.testing.assert_array_equal(window, logical_window(matrix, load))


@given(nz_tensor_specs(dtypes=tuple(ORACLE_DTYPES)), st.integers(0, 2**32 - 1))
def test_pack_and_unpack_are_inverse(spec: TensorSpec, seed: int) -> None:
    matrix = logical_matrix(spec, seed)
    np.testing.assert_array_equal(unpack_nz(pack_nz(matrix), matrix.dtype, matrix.shape), matrix)


@pytest.mark.parametrize(
    ("dtype", "shape", "element", "flat_index"),
    [
        (np.int8, (256, 512), (17, 40), 8744),
        (np.int8, (256, 512), (0, 32), 8192),
        (np.int8, (256, 512), (16, 0), 512),
        (np.int8, (256, 512), (1, 0), 32),
        (np.float32, (64, 16), (0, 8), 512),
        (np.float32, (64, 16), (63, 15), 1023),
    ],
)
def test_section_4_byte_order_examples(
    dtype: type[np.generic], shape: tuple[int, int], element: tuple[int, int], flat_index: int
) -> None:
    matrix = np.zeros(shape, dtype=dtype)
    matrix[element] = 1
    packed = np.frombuffer(pack_nz(matrix), dtype=dtype)
    assert np.flatnonzero(packed).tolist() == [flat_index]
    assert nz_c0(dtype) * np.dtype(dtype).itemsize == 32


def test_the_oracle_refuses_unaligned_matrices_and_windows() -> None:
    with pytest.raises(ValueError):
        pack_nz(np.zeros((8, 32), dtype=np.int8))
    data = pack_nz(np.zeros((16, 32), dtype=np.int8))
    with pytest.raises(ValueError):
        read_window(
            data, np.int8, [1, 1, 1, 16, 32], [512, 512, 512, 32, 1], [0, 0, 1, 0, 0], [1, 1, 1, 16, 32]
        )


@settings(max_examples=lowered(50))
@given(valid_layout_requests())
def test_valid_requests_are_planned(request: LayoutPlanRequest) -> None:
    response = plan(request)
    assert response.ok, response.diagnostics
    planned_ids = [op.id for op in response.ops]
    assert planned_ids == [op.id for op in request.ops]
    assert response.attrs == {"nz_tensor_views_blocked": True}


@settings(max_examples=lowered(50))
@given(refused_layout_requests())
def test_refused_requests_report_their_code(case: tuple[LayoutPlanRequest, str]) -> None:
    request, code = case
    response = plan(request)
    assert not response.ok
    assert [diagnostic.code for diagnostic in response.diagnostics] == [code]
