"""Sections 16 and 11.2: PTO text of a plan, to compare with a backend's output."""

from __future__ import annotations

from typing import Any

import pytest

from planner.layout import plan
from planner.layout.codegen import CodegenError, render_plan
from planner.layout.protocol import LayoutPlanRequest

SECTION_16 = """\
%w_view = pto.make_tensor_view %w,
    shape = [%c1, %c16, %c16, %c16, %c32],
    strides = [%c131072, %c8192, %c512, %c32, %c1]
    {layout = #pto.layout<nz>} : !pto.tensor_view<?x?x?x?x?xi8>

%wt_pview = pto.partition_view %w_view,
    offsets = [%c0, %c0, %c0, %c0, %c0], sizes = [%c1, %c16, %c16, %c16, %c32]
    : !pto.tensor_view<?x?x?x?x?xi8> -> !pto.partition_tensor_view<1x16x16x16x32xi8>
pto.tload ins(%wt_pview : !pto.partition_tensor_view<1x16x16x16x32xi8>)
          outs(%wt : !pto.tile_buf<loc=mat, dtype=i8, rows=256, cols=512,
                                   blayout=col_major, slayout=row_major, fractal=512, ...>)
"""

SECTION_11_2 = """\
%out_view = pto.make_tensor_view %out,
    shape = [%c1, %c2, %c4, %c16, %c8],
    strides = [%c1024, %c512, %c128, %c8, %c1]
    {layout = #pto.layout<nz>} : !pto.tensor_view<?x?x?x?x?xf32>

using NzShape = pto::Shape<1, 2, 4, 16, 8>;
using NzStride = pto::Stride<1024, 512, 128, 8, 1>;
pto::GlobalTensor<float, NzShape, NzStride, pto::Layout::NZ> dst(
    output_address, NzShape(), NzStride());
pto::TSTORE(dst, accumulator);
"""


def render(body: dict[str, Any]) -> str:
    request = LayoutPlanRequest.model_validate(body)
    return render_plan(request, plan(request))


def nz(name: str, shape: list[Any], dtype: str) -> dict[str, Any]:
    return {"name": name, "shape": shape, "dtype": dtype, "layout": "NZ"}


def test_the_section_16_load() -> None:
    body = {
        "tensors": [nz("w", [256, 512], "INT8")],
        "ops": [
            {
                "id": "wt",
                "op": "tile.load",
                "source": "w",
                "offsets": [0, 0],
                "shapes": [256, 512],
                "target_memory": "Mat",
            }
        ],
    }
    assert render(body) == SECTION_16


def test_the_section_11_2_store_descriptor() -> None:
    body = {
        "target": "a2a3",
        "tensors": [nz("out", [64, 16], "FP32")],
        "ops": [
            {
                "id": "st",
                "op": "tile.store",
                "dest": "out",
                "offsets": [0, 0],
                "tile": {"shape": [64, 16], "dtype": "FP32", "memory": "Acc"},
            }
        ],
    }
    assert render(body) == SECTION_11_2


def test_symbolic_coordinates_are_declared_and_chunks_get_their_own_descriptor() -> None:
    body = {
        "target": "a2a3",
        "tensors": [nz("w", ["B", 256, 512], "INT8"), nz("out", [64, 1024], "FP32")],
        "bindings": [{"name": "k0", "kind": "for", "start": 0, "stop": 512, "step": 256}],
        "ops": [
            {
                "id": "l0",
                "op": "tile.load",
                "source": "w",
                "offsets": ["b", 0, "k0"],
                "shapes": [1, 256, 256],
                "target_memory": "Mat",
            },
            {
                "id": "st",
                "op": "tile.store",
                "dest": "out",
                "offsets": [0, 0],
                "tile": {
                    "shape": [64, 1024],
                    "dtype": "FP32",
                    "memory": "Acc",
                    "producer": {"m": 64, "n": 1024, "k": 64},
                },
            },
        ],
    }
    text = render(body)
    assert "shape = [%B, %c16, %c16, %c16, %c32]" in text
    assert "// %l0_offset1 = k0 // 32 : index" in text
    assert "offsets = [%b, %l0_offset1, %c0, %c0, %c0], sizes = [%c1, %c8, %c16, %c16, %c32]" in text
    assert "outs(%l0 : !pto.tile_buf<loc=mat, dtype=i8, rows=256, cols=256," in text
    assert (
        "pto::GlobalTensor<float, NzShape1, NzStride1, pto::Layout::NZ> dst1(\n    output_address + 32768,"
        in text
    )
    assert text.count("pto::TSTORE(") == 2


def test_a_refused_plan_cannot_be_printed() -> None:
    body = {"tensors": [nz("w", [200, 512], "INT8")]}
    with pytest.raises(CodegenError, match=r"nz\.rows_not_multiple_of_16"):
        render(body)


def test_a_dtype_without_a_pto_spelling_is_a_clear_error() -> None:
    body = {"tensors": [nz("w", [16, 32], "HF8")]}
    with pytest.raises(CodegenError, match="HF8"):
        render(body)
