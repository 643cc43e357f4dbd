"""Sections 2, 3, 5, 9 and 15: c0 per dtype, blocked shapes and strides, phase 1, idempotence."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.errors import RequestError
from planner.layout import BLOCKED_STAMP, plan
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse
from planner.targets.ascend import ASCEND_DTYPES


def plan_tensors(*tensors: dict[str, Any], **extra: Any) -> LayoutPlanResponse:
    return plan(LayoutPlanRequest.model_validate({"tensors": list(tensors), **extra}))


def nz(shape: list[Any], dtype: str = "INT8", name: str = "w", **extra: Any) -> dict[str, Any]:
    return {"name": name, "shape": shape, "dtype": dtype, "layout": "NZ", **extra}


C0_TABLE = {
    **dict.fromkeys(["INT8", "UINT8", "FP8", "FP8E4M3", "FP8E4M3FN", "FP8E5M2", "HF8"], 32),
    **dict.fromkeys(["FP16", "BF16", "INT16", "UINT16"], 16),
    **dict.fromkeys(["FP32", "INT32", "UINT32"], 8),
    **dict.fromkeys(["INT64", "UINT64", "INDEX"], 4),
}
REFUSED_DTYPES = {
    **dict.fromkeys(
        ["INT4", "UINT4", "FP4", "HF4", "BOOL", "FP4X2_E2M1", "FP4X2_E1M2", "FP8E8M0"], "nz.sub_byte_dtype"
    ),
    "INT24": "nz.dtype_not_dividing_c0",
}


def test_the_dtype_table_is_fully_classified() -> None:
    assert set(C0_TABLE) | set(REFUSED_DTYPES) == set(ASCEND_DTYPES)


@pytest.mark.parametrize(("dtype", "c0"), sorted(C0_TABLE.items()))
def test_c0_is_the_elements_of_one_32_byte_line(dtype: str, c0: int) -> None:
    response = plan_tensors(nz([16, c0], dtype))
    assert response.ok
    assert response.tensors[0].shape == [1, 1, 1, 16, c0]
    assert c0 * ASCEND_DTYPES[dtype].bits == 256


@pytest.mark.parametrize(("dtype", "code"), sorted(REFUSED_DTYPES.items()))
def test_sub_byte_and_non_dividing_dtypes_are_refused(dtype: str, code: str) -> None:
    assert plan_tensors(nz([16, 64], dtype)).diagnostics[0].code == code


WORKED_EXAMPLES = [
    ([256, 512], "INT8", [1, 16, 16, 16, 32], [131072, 8192, 512, 32, 1]),
    ([32, 2048, 4096], "INT8", [32, 128, 128, 16, 32], [8388608, 65536, 512, 32, 1]),
    ([4, 256, 512], "INT8", [4, 16, 16, 16, 32], [131072, 8192, 512, 32, 1]),
    ([2, 4, 256, 512], "INT8", [8, 16, 16, 16, 32], [131072, 8192, 512, 32, 1]),
    ([256, 512], "FP16", [1, 32, 16, 16, 16], [131072, 4096, 256, 16, 1]),
    ([64, 16], "FP32", [1, 2, 4, 16, 8], [1024, 512, 128, 8, 1]),
    ([64, 1024], "FP32", [1, 128, 4, 16, 8], [65536, 512, 128, 8, 1]),
]


@pytest.mark.parametrize(("logical", "dtype", "blocked", "strides"), WORKED_EXAMPLES)
def test_section_3_worked_examples(
    logical: list[int], dtype: str, blocked: list[int], strides: list[int]
) -> None:
    response = plan_tensors(nz(logical, dtype))
    assert response.ok
    [planned] = response.tensors
    assert (planned.name, planned.layout, planned.shape, planned.strides) == ("w", "NZ", blocked, strides)


@given(
    lead=st.lists(st.integers(1, 5), max_size=3),
    fractals=st.integers(1, 64),
    blocks=st.integers(1, 64),
    dtype=st.sampled_from(sorted(C0_TABLE)),
)
def test_blocking_matches_the_closed_form(lead: list[int], fractals: int, blocks: int, dtype: str) -> None:
    c0 = C0_TABLE[dtype]
    rows, cols = 16 * fractals, c0 * blocks
    [planned] = plan_tensors(nz([*lead, rows, cols], dtype)).tensors
    batch = 1
    for extent in lead:
        batch *= extent
    assert planned.shape == [batch, cols // c0, rows // 16, 16, c0]
    assert planned.strides == [cols * rows, rows * c0, 16 * c0, c0, 1]


def test_a_rank_3_batch_may_be_dynamic() -> None:
    [planned] = plan_tensors(nz(["B", 256, 512])).tensors
    assert planned.shape == ["B", 16, 16, 16, 32]
    assert planned.strides == [131072, 8192, 512, 32, 1]


def test_phase_1_checks_every_tensor_before_any_consumer() -> None:
    body = {
        "tensors": [nz([256, 512]), nz([256, 400], name="v")],
        "ops": [
            {
                "id": "l0",
                "op": "tile.load",
                "source": "w",
                "offsets": [8, 0],
                "shapes": [16, 32],
                "target_memory": "Mat",
            }
        ],
    }
    [diagnostic] = plan(LayoutPlanRequest.model_validate(body)).diagnostics
    assert (diagnostic.code, diagnostic.tensor, diagnostic.op) == ("nz.cols_not_multiple_of_c0", "v", None)


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        (nz([200, 400], "INT4", distributed=True, stride=[1], valid_shape=[1]), "nz.distributed_tensor"),
        (nz([200, 400], "INT4", stride=[1], valid_shape=[1]), "nz.explicit_stride"),
        (nz([200, 400], "INT4", valid_shape=[1]), "nz.partial_valid_shape_on_type"),
        (nz([200], "INT4"), "nz.sub_byte_dtype"),
        (nz([200], "INT8"), "nz.rank_below_2"),
        (nz(["R", "C"], "INT8"), "nz.dynamic_trailing_extent"),
        (nz([200, 400], "INT8"), "nz.rows_not_multiple_of_16"),
        (nz(["G", 2, 256, 400], "INT8"), "nz.cols_not_multiple_of_c0"),
        (nz(["G", 2, 256, 512], "INT8"), "nz.dynamic_leading_extent"),
    ],
)
def test_per_type_check_order(spec: dict[str, Any], code: str) -> None:
    assert plan_tensors(spec).diagnostics[0].code == code


def test_rows_are_checked_static_before_cols() -> None:
    [diagnostic] = plan_tensors(nz(["R", "C"])).diagnostics
    assert diagnostic.axis == -2 and "shape[-2]" in diagnostic.message


def test_a_plan_is_stamped_and_a_stamped_request_is_returned_unchanged() -> None:
    first = plan_tensors(nz([256, 512]), attrs={"kernel": "mm"})
    assert first.ok and first.attrs == {"kernel": "mm", BLOCKED_STAMP: True}
    again = plan_tensors(nz([256, 512]), attrs=first.attrs)
    assert again == LayoutPlanResponse(ok=True, attrs=first.attrs)


def test_a_stamped_request_does_no_work_even_when_it_would_be_refused() -> None:
    response = plan_tensors(nz([200, 400]), attrs={BLOCKED_STAMP: True})
    assert response.ok and response.tensors == [] and response.diagnostics == []


def test_a_request_without_nz_content_is_returned_unchanged_and_unstamped() -> None:
    body = {
        "tensors": [{"name": "x", "shape": [64, 512], "dtype": "INT8"}],
        "ops": [{"id": "l0", "op": "tile.load", "source": "x", "offsets": [0, 0], "shapes": [64, 512]}],
    }
    response = plan(LayoutPlanRequest.model_validate(body))
    assert response == LayoutPlanResponse(ok=True)


def test_the_same_request_gives_byte_identical_responses() -> None:
    body = {
        "tensors": [nz([4, 256, 512]), nz(["B", 64, 64], "FP16", name="v")],
        "attrs": {"z": 1, "a": 2},
        "bindings": [
            {"name": "nb", "kind": "spmd", "extent": 2},
            {"name": "n0", "kind": "assign", "expr": "nb * 64"},
        ],
        "ops": [
            {
                "id": "l0",
                "op": "tile.load",
                "source": "w",
                "offsets": [1, "n0", 0],
                "shapes": [1, 64, 512],
                "target_memory": "Mat",
            }
        ],
    }
    dumps = {plan(LayoutPlanRequest.model_validate(body)).model_dump_json() for _ in range(3)}
    assert len(dumps) == 1
    assert '"attrs":{"a":2,"nz_tensor_views_blocked":true,"z":1}' in dumps.pop()


def test_duplicate_tensor_names_and_op_ids_are_request_errors() -> None:
    with pytest.raises(RequestError, match="tensor names must be unique, repeated: w"):
        plan_tensors(nz([256, 512]), nz([256, 512]))
    view = {"id": "v", "op": "tensor.view", "source": "x"}
    with pytest.raises(RequestError, match="op ids must be unique, repeated: v"):
        plan_tensors(nz([256, 512]), ops=[view, view])
