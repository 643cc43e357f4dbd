"""Sections 11 and 12: FP32 accumulator stores to NZ on A2/A3 and the AutoTileMatmulL0 N-split."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.errors import RequestError
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse, ObligationRecord, StoreChunk

L0C_BYTES = 128 * 1024


def run(
    dest: list[Any],
    tile: list[Any],
    offsets: list[Any] | None = None,
    *,
    target: str | None = "a2a3",
    bindings: list[dict[str, Any]] | None = None,
    attrs: dict[str, Any] | None = None,
    **tile_fields: Any,
) -> LayoutPlanResponse:
    body = {
        "target": target,
        "tensors": [{"name": "out", "shape": dest, "dtype": "FP32", "layout": "NZ"}],
        "bindings": bindings or [],
        "ops": [
            {
                "id": "st",
                "op": "tile.store",
                "dest": "out",
                "offsets": offsets or [0] * len(dest),
                "tile": {"shape": tile, "dtype": "FP32", "memory": "Acc", **tile_fields},
                "attrs": attrs or {},
            }
        ],
    }
    return plan(LayoutPlanRequest.model_validate(body))


def code_of(response: LayoutPlanResponse) -> str:
    assert not response.ok
    return response.diagnostics[0].code


def matmul(m: int, n: int, memory: str = "Mat") -> dict[str, Any]:
    return {"m": m, "n": n, "k": 256, "memory": memory}


def test_the_64_by_16_example() -> None:
    response = run([64, 16], [64, 16])
    [op] = response.ops
    assert (op.op, op.offsets, op.partition, op.chunks) == (
        "tile.store",
        [0, 0, 0, 0, 0],
        [1, 2, 4, 16, 8],
        None,
    )
    assert response.tensors[0].strides == [1024, 512, 128, 8, 1]


def test_one_panel_of_a_batch_at_a_nonzero_batch_offset() -> None:
    response = run([3, 64, 32], [64, 16], [2, 0, 16])
    assert response.ops[0].offsets == [2, 2, 0, 0, 0] and response.ops[0].partition == [1, 2, 4, 16, 8]


def test_a_symbolic_column_offset_is_proven_then_divided() -> None:
    bindings = [{"name": "c", "kind": "for", "start": 0, "stop": 64, "step": 16}]
    response = run([64, 64], [64, 16], [0, "c"], bindings=bindings)
    assert response.ops[0].offsets == [0, "c // 8", 0, 0, 0]
    assert [record for record in response.obligations if record.goal != "at_most"] == [
        ObligationRecord(op="st", axis=-1, expr="c", goal=goal, factor=8, status="proven")
        for goal in ("multiple_of", "non_negative")
    ]


@pytest.mark.parametrize("target", ["a5", None])
def test_only_a2a3_writes_nz(target: str | None) -> None:
    assert code_of(run([64, 16], [64, 16], target=target)) == "nz.store_backend"


@pytest.mark.parametrize("memory", ["Vec", "Mat", "Left"])
def test_only_acc_sources(memory: str) -> None:
    assert code_of(run([64, 16], [64, 16], memory=memory)) == "nz.store_source_memory"


@pytest.mark.parametrize(
    ("dest_dtype", "tile_dtype"), [("FP16", "FP32"), ("FP32", "FP16"), ("INT32", "INT32")]
)
def test_only_fp32_to_fp32(dest_dtype: str, tile_dtype: str) -> None:
    body = {
        "target": "a2a3",
        "tensors": [{"name": "out", "shape": [64, 16], "dtype": dest_dtype, "layout": "NZ"}],
        "ops": [
            {
                "id": "st",
                "op": "tile.store",
                "dest": "out",
                "offsets": [0, 0],
                "tile": {"shape": [64, 16], "dtype": tile_dtype, "memory": "Acc"},
            }
        ],
    }
    assert code_of(plan(LayoutPlanRequest.model_validate(body))) == "nz.store_dtype"


@pytest.mark.parametrize("tile", [["m", 16], [64, 16, 1], [0, 16], [-16, 16], [64]])
def test_tile_must_be_static_positive_2d(tile: list[Any]) -> None:
    assert code_of(run([64, 16], tile)) == "nz.store_tile_shape"


@pytest.mark.parametrize("valid", [[48, 16], ["v", 16], [64, 8]])
def test_tile_must_be_fully_valid(valid: list[Any]) -> None:
    assert code_of(run([64, 16], [64, 16], valid_shape=valid)) == "nz.store_partial_valid"
    assert run([64, 16], [64, 16], valid_shape=[64, 16]).ok


@pytest.mark.parametrize(("dest", "tile"), [([64, 8], [64, 8]), ([80, 16], [72, 16]), ([64, 24], [64, 24])])
def test_no_single_column_block_exception(dest: list[int], tile: list[int]) -> None:
    assert code_of(run(dest, tile)) == "nz.store_tile_unaligned"


@pytest.mark.parametrize("name", ["atomic", "pre_quant", "pre_relu"])
def test_refused_attributes(name: str) -> None:
    assert code_of(run([64, 16], [64, 16], attrs={name: True})) == "nz.store_attribute"
    assert run([64, 16], [64, 16], attrs={name: "none", "st_phase": "Final"}).ok


@pytest.mark.parametrize(
    ("dest", "tile", "offsets"),
    [
        ([128, 32], [64, 16], [0, 0]),
        ([64, 16], [64, 16], [16, 0]),
        ([64, 16], [64, 16], ["r", 0]),
        ([128, 16], [64, 16], [64, 0]),
    ],
)
def test_the_store_covers_the_whole_parent_row_axis(
    dest: list[int], tile: list[int], offsets: list[Any]
) -> None:
    response = run(dest, tile, offsets)
    assert (code_of(response), response.diagnostics[0].axis) == ("nz.store_row_window", -2)


@pytest.mark.parametrize(
    ("offsets", "bindings"),
    [
        ([0, 24], []),
        ([0, "c"], [{"name": "c", "kind": "for", "start": 0, "stop": 64, "step": 16}]),
    ],
)
def test_statically_outside_column_windows(offsets: list[Any], bindings: list[dict[str, Any]]) -> None:
    dest = [64, 32] if offsets[1] == 24 else [64, 16]
    tile = [64, 16] if offsets[1] == 24 else [64, 32]
    assert code_of(run(dest, tile, offsets, bindings=bindings)) == "nz.store_column_window"


def test_store_check_order() -> None:
    """Each violation is reported while every later one is also present (section 14)."""
    ordered: list[tuple[dict[str, Any], str]] = [
        ({"target": "a5"}, "nz.store_backend"),
        ({"memory": "Vec"}, "nz.store_source_memory"),
        ({"dtype": "FP16"}, "nz.store_dtype"),
        ({"shape": [64, "n"]}, "nz.store_tile_shape"),
        ({"valid_shape": [32, 8]}, "nz.store_partial_valid"),
        ({"shape": [64, 8]}, "nz.store_tile_unaligned"),
        ({"attrs": {"pre_relu": True}}, "nz.store_attribute"),
        ({"offsets": [16, 4]}, "nz.store_row_window"),
        ({"offsets": [0, 36]}, "nz.store_column_window"),
        ({"offsets": [0, 4]}, "nz.store_column_offset_unaligned"),
    ]
    for count in range(len(ordered)):
        body: dict[str, Any] = {
            "target": "a2a3",
            "tensors": [{"name": "out", "shape": [64, 48], "dtype": "FP32", "layout": "NZ"}],
            "ops": [
                {
                    "id": "st",
                    "op": "tile.store",
                    "dest": "out",
                    "offsets": [0, 0],
                    "tile": {"shape": [64, 16], "dtype": "FP32", "memory": "Acc"},
                    "attrs": {},
                }
            ],
        }
        for change, _ in reversed(ordered[count:]):
            for key, value in change.items():
                if key == "target":
                    body["target"] = value
                elif key in ("offsets", "attrs"):
                    body["ops"][0][key] = value
                else:
                    body["ops"][0]["tile"][key] = value
        assert code_of(plan(LayoutPlanRequest.model_validate(body))) == ordered[count][1]


def test_the_64_by_1024_store_is_split_along_n() -> None:
    response = run([64, 1024], [64, 1024], producer=matmul(64, 1024))
    [op] = response.ops
    assert op.partition == [1, 128, 4, 16, 8] and op.offsets == [0, 0, 0, 0, 0]
    assert op.chunks == [
        StoreChunk(col_offset=0, n=512, offsets=[0, 0, 0, 0, 0], partition=[1, 64, 4, 16, 8]),
        StoreChunk(col_offset=512, n=512, offsets=[0, 64, 0, 0, 0], partition=[1, 64, 4, 16, 8]),
    ]


def test_a_chunk_adds_its_start_to_a_symbolic_column_offset() -> None:
    bindings = [{"name": "c", "kind": "for", "start": 0, "stop": 2048, "step": 1024}]
    response = run([64, 2048], [64, 1024], [0, "c"], bindings=bindings, producer=matmul(64, 1024))
    chunks = response.ops[0].chunks or []
    assert [(c.col_offset, c.offsets[1]) for c in chunks] == [("c", "c // 8"), ("c + 512", "c // 8 + 64")]


def test_columns_beyond_the_instruction_field_are_split_too() -> None:
    response = run([16, 8192], [16, 8192], producer=matmul(16, 8192))
    chunks = response.ops[0].chunks or []
    assert [c.n for c in chunks] == [2048] * 4
    assert [c.offsets[1] for c in chunks] == [0, 256, 512, 768]


def test_without_a_retileable_producer_the_final_guard_applies() -> None:
    assert code_of(run([64, 1024], [64, 1024])) == "nz.store_l0c_capacity"
    assert code_of(run([64, 1024], [64, 1024], producer=matmul(64, 1024, "Vec"))) == "nz.store_l0c_capacity"
    assert code_of(run([16, 4096], [16, 4096])) == "nz.store_extent_limit"
    assert run([2048, 16], [2048, 16]).ok


def test_full_m_beyond_l0c_at_the_narrowest_chunk_has_no_legal_tile() -> None:
    assert run([2048, 32], [2048, 32], producer=matmul(2048, 32)).ops[0].chunks is not None
    assert code_of(run([2064, 32], [2064, 32], producer=matmul(2064, 32))) == "nz.autotile_no_legal_tile"


def test_a_producer_that_disagrees_with_the_tile_is_a_request_error() -> None:
    with pytest.raises(RequestError):
        run([64, 1024], [64, 1024], producer=matmul(64, 512))


def _legal(m: int, n: int, whole: int) -> bool:
    return n % 16 == 0 and whole % n == 0 and n <= 4080 and m <= 65520 and m * n * 4 <= L0C_BYTES


@given(m=st.integers(1, 160).map(lambda k: 16 * k), n=st.integers(1, 600).map(lambda k: 16 * k))
def test_split_chooses_the_largest_legal_width_or_refuses(m: int, n: int) -> None:
    response = run([m, n], [m, n], producer=matmul(m, n))
    fits = m * n * 4 <= L0C_BYTES and n <= 4095
    legal = [width for width in range(16, n + 1, 16) if _legal(m, width, n)]
    if fits:
        assert response.ok and response.ops[0].chunks is None
    elif not legal:
        assert code_of(response) == "nz.autotile_no_legal_tile"
    else:
        chunks = response.ops[0].chunks or []
        assert {c.n for c in chunks} == {max(legal)}
        assert [c.col_offset for c in chunks] == list(range(0, n, max(legal)))
        assert all(
            c.offsets == [0, c.col_offset // 8, 0, 0, 0] for c in chunks if isinstance(c.col_offset, int)
        )
        assert all(c.partition == [1, max(legal) // 8, m // 16, 16, 8] for c in chunks)
