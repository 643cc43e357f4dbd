"""Sections 6, 6.2, 6.3 and 6.4: slices, flattening reshapes, views, calls and other consumers."""

from __future__ import annotations

from typing import Any

import pytest

from planner.errors import RequestError
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse, PlannedOp, PlannedTensor


def run(shape: list[Any], *ops: dict[str, Any], dtype: str = "INT8") -> LayoutPlanResponse:
    body = {"tensors": [{"name": "w", "shape": shape, "dtype": dtype, "layout": "NZ"}], "ops": list(ops)}
    return plan(LayoutPlanRequest.model_validate(body))


def slice_op(shapes: list[Any], offsets: list[Any], **extra: Any) -> dict[str, Any]:
    return {"id": "s0", "op": "tensor.slice", "source": "w", "shapes": shapes, "offsets": offsets, **extra}


def code_of(response: LayoutPlanResponse) -> str:
    assert not response.ok
    return response.diagnostics[0].code


def test_slice_of_leading_axes_blocks_like_a_load() -> None:
    response = run([4, 256, 512], slice_op([2, 256, 512], [2, 0, 0]))
    assert response.ops == [
        PlannedOp(id="s0", op="tensor.slice", offsets=[2, 0, 0, 0, 0], shapes=[2, 16, 16, 16, 32])
    ]


def test_a_rank_reducing_slice_result_is_addressed_logically_by_later_loads() -> None:
    response = run(
        [2, 4, 256, 512],
        slice_op([1, 1, 256, 512], [1, 2, 0, 0], drop_dims=[0, 1], result="layer"),
        {
            "id": "l0",
            "op": "tile.load",
            "source": "layer",
            "offsets": [16, 64],
            "shapes": [16, 64],
            "target_memory": "Mat",
        },
    )
    assert response.ok
    assert response.ops[0].offsets == [6, 0, 0, 0, 0] and response.ops[0].shapes == [1, 16, 16, 16, 32]
    assert response.ops[1].offsets == [0, 2, 1, 0, 0] and response.ops[1].shapes == [1, 2, 1, 16, 32]
    assert response.tensors[1] == PlannedTensor(
        name="layer", layout="NZ", shape=[1, 16, 16, 16, 32], strides=[131072, 8192, 512, 32, 1]
    )


def test_a_slice_with_a_symbolic_leading_offset_and_full_valid_shape() -> None:
    response = run(["B", 256, 512], slice_op(["n", 256, 512], ["b", 0, 0], valid_shape=["n", 256, 512]))
    assert response.ops[0].offsets == ["b", 0, 0, 0, 0]
    assert response.ops[0].shapes == ["n", 16, 16, 16, 32] == response.ops[0].valid_shape
    assert [(r.goal, r.axis, r.status) for r in response.obligations] == [
        ("at_most", -2, "proven"),
        ("at_most", -1, "proven"),
    ]
    (warning,) = response.diagnostics  # the batch extent B is dynamic: the window is not proven inside
    assert (warning.code, warning.axis, warning.severity) == ("nz.window_bounds_unproven", -3, "warning")
    assert "the dynamic extent B" in warning.message


def test_an_empty_valid_shape_means_none() -> None:
    assert run([4, 256, 512], slice_op([1, 256, 512], [0, 0, 0], valid_shape=[])).ops[0].valid_shape is None


@pytest.mark.parametrize(
    ("shapes", "offsets", "axis"),
    [
        ([1, 128, 512], [0, 0, 0], -2),
        ([1, 256, 512], [0, 16, 0], -2),
        ([1, 256, 256], [0, 0, 0], -1),
        ([1, 256, 512], [0, 0, "k"], -1),
    ],
)
def test_trailing_windows_are_refused_rows_first(shapes: list[Any], offsets: list[Any], axis: int) -> None:
    response = run([4, 256, 512], slice_op(shapes, offsets))
    assert (code_of(response), response.diagnostics[0].axis) == ("nz.slice_trailing_window", axis)


def test_rows_window_is_reported_before_cols() -> None:
    response = run([4, 256, 512], slice_op([1, 128, 256], [0, 0, 0]))
    assert "shape[-2] (rows)" in response.diagnostics[0].message


@pytest.mark.parametrize(
    ("shapes", "offsets", "ok"),
    [
        ([1, 1, 256, 512], [1, 3, 0, 0], True),
        ([1, 2, 256, 512], [1, 1, 0, 0], True),
        ([2, 4, 256, 512], [0, 0, 0, 0], True),
        (["k", 1, 256, 512], ["o", 0, 0, 0], False),
        ([2, 1, 256, 512], [0, 0, 0, 0], False),
        ([2, 4, 256, 512], [0, 1, 0, 0], False),
    ],
)
def test_one_leading_window(shapes: list[Any], offsets: list[Any], ok: bool) -> None:
    response = run([2, 4, 256, 512], slice_op(shapes, offsets))
    assert response.ok is ok
    if not ok:
        assert code_of(response) == "nz.slice_multi_leading_window"


def test_a_symbolic_window_size_at_rank_4_cannot_be_folded() -> None:
    assert (
        code_of(run([2, 4, 256, 512], slice_op(["k", 4, 256, 512], [0, 0, 0, 0])))
        == "nz.dynamic_leading_extent"
    )


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ({"valid_shape": [1, 256], "drop_dims": [2]}, "nz.slice_valid_shape_rank"),
        ({"valid_shape": [1, 256, 256], "drop_dims": [2]}, "nz.slice_valid_shape_narrows"),
        ({"drop_dims": [-1]}, "nz.slice_drop_trailing_axis"),
    ],
)
def test_slice_check_order(extra: dict[str, Any], code: str) -> None:
    assert code_of(run([4, 256, 512], slice_op([1, 256, 512], [0, 0, 0], **extra))) == code


def test_whole_tensor_flatten_is_kept_as_written() -> None:
    response = run([4, 256, 512], {"id": "r0", "op": "tensor.reshape", "source": "w", "shape": [524288]})
    assert response.ops == [PlannedOp(id="r0", op="tensor.reshape", kept=True)]
    assert response.tensors[0].shape == [4, 16, 16, 16, 32]


@pytest.mark.parametrize(
    ("tensor_shape", "target"),
    [([256, 512], [128, 1024]), ([256, 512], [131071]), (["B", 256, 512], ["n"]), ([256, 512], ["n"])],
)
def test_any_other_reshape_is_refused(tensor_shape: list[Any], target: list[Any]) -> None:
    response = run(tensor_shape, {"id": "r0", "op": "tensor.reshape", "source": "w", "shape": target})
    assert code_of(response) == "nz.unsupported_consumer"
    assert "whole-tensor flatten to rank 1" in response.diagnostics[0].message


@pytest.mark.parametrize("op", ["tensor.view", "tensor.reinterpret_view"])
def test_views_of_nz_are_refused(op: str) -> None:
    response = run([256, 512], {"id": "v0", "op": op, "source": "w"})
    assert code_of(response) == "nz.tensor_view_of_nz" and op in response.diagnostics[0].message


def test_a_call_forwards_nz_tensors() -> None:
    response = run(
        [256, 512],
        {"id": "c0", "op": "call", "callee": "kernel", "args": ["x", "w"]},
        {"id": "c1", "op": "call", "callee": "other", "args": ["x"]},
    )
    assert response.ops == [PlannedOp(id="c0", op="call", kept=True)]


def test_other_consumers_are_refused_at_their_first_nz_argument() -> None:
    response = run(
        [256, 512],
        {"id": "a0", "op": "tile.add", "args": ["x", "w", "w"]},
        {"id": "a1", "op": "tile.add", "args": ["x"]},
    )
    assert "'tile.add' at argument 1" in response.diagnostics[0].message
    assert response.diagnostics[0].op == "a0"


def test_other_ops_on_nd_tensors_are_ignored() -> None:
    response = run([256, 512], {"id": "a1", "op": "tile.add", "args": ["x", "y"]})
    assert response.ok and response.ops == []


def test_the_first_error_aborts_in_statement_order() -> None:
    response = run(
        [4, 256, 512], {"id": "v0", "op": "tensor.view", "source": "w"}, slice_op([1, 128, 512], [0, 0, 0])
    )
    assert [d.code for d in response.diagnostics] == ["nz.tensor_view_of_nz"]


def test_a_slice_result_may_not_redefine_a_tensor() -> None:
    with pytest.raises(RequestError, match="'w' is defined more than once"):
        run([4, 256, 512], slice_op([1, 256, 512], [0, 0, 0], result="w"))
