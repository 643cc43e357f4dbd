"""Sections 6.1, 7, 8, 9 and 10: NZ `tile.load` offsets, shapes, valid_shape, proofs and the GM gap."""

from __future__ import annotations

from typing import Any

import pytest

from planner.errors import RequestError
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse, ObligationRecord
from tests.support.layout_json import load, tensor


def plan_loads(
    shape: list[Any],
    *loads: dict[str, Any],
    dtype: str = "INT8",
    bindings: list[dict[str, Any]] | None = None,
) -> LayoutPlanResponse:
    body = {
        "target": "a2a3",
        "tensors": [tensor(shape=shape, dtype=dtype)],
        "bindings": bindings or [],
        "ops": list(loads),
    }
    return plan(LayoutPlanRequest.model_validate(body))


def offset_records(response: LayoutPlanResponse) -> list[ObligationRecord]:
    """The offset obligations, without the window bounds posed after them."""
    return [record for record in response.obligations if record.goal != "at_most"]


def planned(response: LayoutPlanResponse) -> tuple[list[Any] | None, list[Any] | None, list[Any] | None]:
    assert response.ok, response.diagnostics
    [op] = response.ops
    return op.offsets, op.shapes, op.valid_shape


def code_of(response: LayoutPlanResponse) -> str:
    assert not response.ok
    return response.diagnostics[0].code


def test_design_example_slice_of_an_e_n_k_weight() -> None:
    response = plan_loads([4, 512, 1024], load([1, 256, 512], [1, 256, 512]))
    assert planned(response) == ([1, 16, 16, 0, 0], [1, 16, 16, 16, 32], None)
    assert response.ops[0].op == "tile.load" and not response.ops[0].kept


def test_whole_rank_2_load_keeps_every_coordinate_zero() -> None:
    assert planned(plan_loads([256, 512], load([0, 0], [256, 512]))) == (
        [0, 0, 0, 0, 0],
        [1, 16, 16, 16, 32],
        None,
    )


def test_leading_offsets_fold_against_the_parent_extents() -> None:
    offsets, shapes, _ = planned(plan_loads([2, 4, 256, 512], load([1, 3, 0, 0], [1, 1, 256, 512])))
    assert offsets == [7, 0, 0, 0, 0] and shapes == [1, 16, 16, 16, 32]


def test_symbolic_leading_offsets_fold_without_proof() -> None:
    response = plan_loads([2, 4, 256, 512], load(["g", "e", 0, 0], [1, 1, 256, 512]))
    assert planned(response)[0] == ["g * 4 + e", 0, 0, 0, 0]
    assert offset_records(response) == []
    assert [(d.code, d.axis, d.severity) for d in response.diagnostics] == [
        ("nz.window_bounds_unproven", -4, "warning"),
        ("nz.window_bounds_unproven", -3, "warning"),
    ]
    assert "depends on the unbounded g" in response.diagnostics[0].message


def test_a_rank_3_batch_offset_and_window_pass_through() -> None:
    response = plan_loads(["B", 256, 512], load(["b", 0, 0], [2, 256, 512]))
    assert planned(response)[:2] == (["b", 0, 0, 0, 0], [2, 16, 16, 16, 32])


def test_a_leading_window_that_is_not_contiguous_in_fold_order_is_refused() -> None:
    response = plan_loads([2, 4, 256, 512], load([0, 1, 0, 0], [2, 2, 256, 512]))
    assert code_of(response) == "nz.slice_multi_leading_window"


SPMD_N0 = [{"name": "nb", "kind": "spmd", "extent": 2}, {"name": "n0", "kind": "assign", "expr": "nb * 256"}]
BLK = [{"name": "blk", "kind": "block_idx"}]


@pytest.mark.parametrize(
    ("bindings", "offset", "coordinate"),
    [
        (SPMD_N0, "n0", "n0 // 16"),
        (BLK, "(blk % 2) * 512", "blk % 2 * 512 // 16"),
        (BLK, "(blk // 2) * 128", "blk // 2 * 128 // 16"),
        (
            [
                {"name": "core", "kind": "block_idx"},
                {"name": "ob", "kind": "for", "start": "core", "stop": 4, "step": 2},
                {"name": "o0", "kind": "assign", "expr": "ob * 256"},
            ],
            "o0",
            "o0 // 16",
        ),
        (
            [
                {"name": "nb", "kind": "for", "start": 1, "stop": 4, "step": 1},
                {"name": "n0", "kind": "assign", "expr": "nb * 256 - 256"},
            ],
            "n0",
            "n0 // 16",
        ),
    ],
)
def test_symbolic_row_offsets_the_baseline_accepts(
    bindings: list[dict[str, Any]], offset: str, coordinate: str
) -> None:
    response = plan_loads([65536, 512], load([offset, 0], [256, 512]), bindings=bindings)
    assert planned(response)[0] == [0, 0, coordinate, 0, 0]
    assert [(r.goal, r.status, r.axis, r.factor) for r in offset_records(response)] == [
        ("multiple_of", "proven", -2, 16),
        ("non_negative", "proven", -2, 16),
    ]


@pytest.mark.parametrize(
    ("bindings", "offset", "code", "goal"),
    [
        (
            [{"name": "nb", "kind": "spmd", "extent": 2}, {"name": "n0", "kind": "assign", "expr": "nb * 8"}],
            "n0",
            "nz.offset_unprovable_multiple",
            "multiple_of",
        ),
        (
            [
                {"name": "nb", "kind": "spmd", "extent": 2},
                {"name": "n0", "kind": "assign", "expr": "nb * 256 - 256"},
            ],
            "n0",
            "nz.offset_unprovable_sign",
            "non_negative",
        ),
        ([{"name": "acc", "kind": "iter_arg"}], "acc * 16", "nz.offset_unprovable_sign", "non_negative"),
        ([{"name": "acc", "kind": "iter_arg"}], "acc", "nz.offset_unprovable_multiple", "multiple_of"),
        (
            [{"name": "nb", "kind": "param"}, {"name": "n0", "kind": "assign", "expr": "nb * 256"}],
            "n0",
            "nz.offset_unprovable_sign",
            "non_negative",
        ),
    ],
)
def test_symbolic_row_offsets_that_are_refused_carry_the_counterexample(
    bindings: list[dict[str, Any]], offset: str, code: str, goal: str
) -> None:
    response = plan_loads([65536, 512], load([offset, 0], [256, 512]), bindings=bindings)
    [diagnostic] = response.diagnostics
    assert (diagnostic.code, diagnostic.axis, diagnostic.op) == (code, -2, "l0")
    last = response.obligations[-1]
    assert (last.goal, last.status) == (goal, "refuted")
    assert diagnostic.counterexample == last.counterexample and last.counterexample


def test_the_unsound_sign_case_names_its_witness() -> None:
    bindings: list[dict[str, Any]] = [
        {"name": "nb", "kind": "spmd", "extent": 2},
        {"name": "n0", "kind": "assign", "expr": "nb * 256 - 256"},
    ]
    response = plan_loads([512, 512], load(["n0", 0], [256, 512]), bindings=bindings)
    assert response.diagnostics[0].counterexample == {"n0": -256, "nb": 0}
    assert "refuted: nb = 0 gives n0 = -256" in response.diagnostics[0].message


def test_pipelined_column_offsets() -> None:
    accepted = plan_loads(
        [256, 1024],
        load([0, "k0"], [256, 512]),
        bindings=[{"name": "k0", "kind": "for", "start": 512, "stop": 1024, "step": 512}],
    )
    assert planned(accepted)[0] == [0, "k0 // 32", 0, 0, 0]
    refused = plan_loads(
        [256, 1024],
        load([0, "k0"], [256, 32]),
        bindings=[{"name": "k0", "kind": "for", "start": 0, "stop": 32, "step": 16}],
    )
    [diagnostic] = refused.diagnostics
    assert (diagnostic.code, diagnostic.axis, diagnostic.counterexample) == (
        "nz.offset_unprovable_multiple",
        -1,
        {"k0": 16},
    )
    assert "multiple of c0 = 32" in diagnostic.message


def test_the_motivating_grouped_matmul_path_compiles() -> None:
    bindings: list[dict[str, Any]] = [
        {"name": "nb", "kind": "spmd", "extent": "4096 // 256"},
        {"name": "n0", "kind": "assign", "expr": "nb * 256"},
        {"name": "k0", "kind": "for", "start": 512, "stop": 4096, "step": 512},
    ]
    response = plan_loads([4096, 4096], load(["n0", "k0"], [256, 512]), bindings=bindings)
    assert planned(response) == ([0, "k0 // 32", "n0 // 16", 0, 0], [1, 16, 16, 16, 32], None)
    assert offset_records(response) == [
        ObligationRecord(op="l0", axis=axis, expr=expr, goal=goal, factor=factor, status="proven")
        for axis, expr, factor in ((-2, "n0", 16), (-1, "k0", 32))
        for goal in ("multiple_of", "non_negative")
    ]


def test_the_offset_is_divided_as_written_never_reassociated() -> None:
    bindings = [{"name": "x", "kind": "param", "min": 0, "max": 15, "bits": 32}]
    response = plan_loads([4096, 512], load(["x * 256", 0], [256, 512]), bindings=bindings)
    assert planned(response)[0] == [0, 0, "x * 256 // 16", 0, 0]


def test_row_is_checked_before_column() -> None:
    both_bad = plan_loads([256, 512], load([8, 16], [16, 32]))
    assert (code_of(both_bad), both_bad.diagnostics[0].axis) == ("nz.offset_unaligned_const", -2)
    bindings = [{"name": "a", "kind": "iter_arg"}]
    symbolic = plan_loads([256, 512], load(["a", "a"], [16, 32]), bindings=bindings)
    assert symbolic.diagnostics[0].axis == -2
    assert [r.axis for r in symbolic.obligations] == [-2]


def test_a_negative_constant_offset_is_refused() -> None:
    response = plan_loads([256, 512], load([-16, 0], [16, 32]))
    assert "got -16." in response.diagnostics[0].message


@pytest.mark.parametrize(
    ("op", "code"),
    [
        (load([8, 0], [8, 32], target_memory=None), "nz.load_target_not_mat"),
        (load([8, 0], [8, 32]), "nz.offset_unaligned_const"),
        (load([0, 0], [8, 32], valid_shape=[8, 33]), "nz.rows_not_multiple_of_16"),
        (load([0, 0], [16, 33]), "nz.cols_not_multiple_of_c0"),
        (load([0, 0], [16, 32], valid_shape=[8, 32]), "nz.rows_not_multiple_of_16"),
        (load([0, 0], [16, 32], valid_shape=["v", 33]), "nz.valid_cols_bad"),
    ],
)
def test_load_check_order(op: dict[str, Any], code: str) -> None:
    assert code_of(plan_loads([256, 512], op)) == code


def test_load_without_target_memory_says_so() -> None:
    response = plan_loads([256, 512], load([0, 0], [256, 512], target_memory=None))
    assert "no target_memory" in response.diagnostics[0].message


def test_constant_valid_shape_blocks_like_a_shape() -> None:
    response = plan_loads([256, 512], load([0, 0], [256, 512], valid_shape=[128, 256]))
    assert planned(response)[2] == [1, 8, 8, 16, 32]


def test_dynamic_valid_rows_proven_a_multiple_of_16_become_a_floor_div() -> None:
    bindings: list[dict[str, Any]] = [
        {"name": "o0", "kind": "for", "start": 0, "stop": 800, "step": 256},
        {"name": "v", "kind": "assign", "expr": "min(800 - o0, 256)"},
    ]
    response = plan_loads([800, 512], load(["o0", 0], [256, 512], valid_shape=["v", 512]), bindings=bindings)
    assert planned(response)[2] == [1, 16, "v // 16", 16, 32]
    assert offset_records(response)[-1] == ObligationRecord(
        op="l0", axis=-2, expr="v", goal="multiple_of", factor=16, status="proven"
    )


def test_dynamic_valid_rows_that_may_end_inside_a_fractal_are_refused() -> None:
    bindings: list[dict[str, Any]] = [
        {"name": "o0", "kind": "for", "start": 0, "stop": 800, "step": 256},
        {"name": "v", "kind": "assign", "expr": "min(800 - o0, 250)"},
    ]
    response = plan_loads([800, 512], load(["o0", 0], [256, 512], valid_shape=["v", 512]), bindings=bindings)
    assert code_of(response) == "nz.dynamic_valid_rows_not_multiple"
    assert response.diagnostics[0].counterexample is not None


MULTI_ROWS: list[dict[str, Any]] = [
    {"name": "t", "kind": "param", "min": 0, "max": 4},
    {"name": "v", "kind": "assign", "expr": "t * 16"},
]


@pytest.mark.parametrize(
    ("rows", "cols", "shape_rows", "valid_rows", "accepted"),
    [
        (65536, 64, 16, None, True),
        (65552, 64, 16, None, False),
        (65552, 64, 32, None, True),
        (65552, 32, 16, None, True),
        (65552, 64, 32, 16, False),
        (65536, 64, 32, 16, True),
        (65536, 64, 64, "v", False),
        (65520, 64, 64, "v", True),
    ],
)
def test_gm_gap_test_points(rows: int, cols: int, shape_rows: int, valid_rows: Any, accepted: bool) -> None:
    valid = None if valid_rows is None else [valid_rows, cols]
    response = plan_loads(
        [rows, cols], load([0, 0], [shape_rows, cols], valid_shape=valid), bindings=MULTI_ROWS
    )
    assert response.ok is accepted
    if not accepted:
        assert code_of(response) == "nz.gm_gap_overflow"


def test_gm_gap_follows_the_valid_window() -> None:
    response = plan_loads([65552, 64], load([0, 0], [32, 64], valid_shape=[16, 64]))
    assert (
        "GM row gap is 65536 32-byte blocks (65552 tensor rows - 16 loaded rows)"
        in response.diagnostics[0].message
    )
    ok = plan_loads([65536, 64], load([0, 0], [32, 64], valid_shape=[16, 64]))
    assert planned(ok)[2] == [1, 2, 1, 16, 32]


def test_the_gm_gap_is_dtype_independent() -> None:
    for dtype, cols in (("INT8", 64), ("FP16", 32), ("FP32", 16), ("INT64", 8)):
        assert not plan_loads([65552, cols], load([0, 0], [16, cols]), dtype=dtype).ok
        assert plan_loads([65552, cols], load([0, 0], [32, cols]), dtype=dtype).ok


@pytest.mark.parametrize("field", ["offsets", "shapes", "valid_shape"])
def test_a_per_axis_list_of_the_wrong_rank_is_a_request_error(field: str) -> None:
    op = load([0, 0], [256, 512], valid_shape=[256, 512])
    op[field] = [0, *op[field]]
    with pytest.raises(RequestError) as caught:
        plan_loads([256, 512], op)
    assert caught.value.code == "request.invalid" and field in caught.value.message


def test_loads_of_nd_tensors_are_not_planned() -> None:
    body = {
        "tensors": [
            {"name": "w", "shape": [256, 512], "dtype": "INT8", "layout": "NZ"},
            {"name": "x", "shape": [64, 500], "dtype": "INT8"},
        ],
        "ops": [{"id": "lx", "op": "tile.load", "source": "x", "offsets": [3, 5], "shapes": [64, 500]}],
    }
    response = plan(LayoutPlanRequest.model_validate(body))
    assert response.ok and response.ops == [] and [t.name for t in response.tensors] == ["w"]
