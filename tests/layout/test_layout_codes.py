"""Every `nz.*` code: one request that triggers it, its reference substring, its location, its fix."""

from __future__ import annotations

from typing import Any

import pytest

from planner.layout import check_runtime_batch_rank, plan
from planner.layout import diagnostics as nz
from planner.layout.codegen import check_blocked
from planner.layout.offsets import LOAD_OFFSET_RULES, ProofLedger, map_trailing_offset
from planner.layout.protocol import LayoutPlanRequest, PlannedTensor, TensorSpec
from planner.proofs.expr import Name
from tests.support.layout_json import load, tensor


def store(shape: list[Any], offsets: list[Any] | None = None, **tile: Any) -> dict[str, Any]:
    attrs = tile.pop("attrs", {})
    fields = {"shape": shape, "dtype": "FP32", "memory": "Acc", **tile}
    return {
        "id": "st",
        "op": "tile.store",
        "dest": "out",
        "offsets": offsets or [0, 0],
        "tile": fields,
        "attrs": attrs,
    }


def out(shape: list[Any], dtype: str = "FP32") -> dict[str, Any]:
    return tensor("out", shape, dtype)


def request(
    tensors: list[dict[str, Any]], ops: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    return {"target": "a2a3", "tensors": tensors, "ops": ops or [], **extra}


SPMD_NB = [{"name": "nb", "kind": "spmd", "extent": 2}]
FULL = load([0, 0], [256, 512])

# (code, request, message substrings, op, axis)
CASES: list[tuple[str, dict[str, Any], tuple[str, ...], str | None, int | None]] = [
    (
        "nz.rank_below_2",
        request([tensor(shape=[512])]),
        ("NZ layout requires a tensor of rank >= 2",),
        None,
        None,
    ),
    (
        "nz.dynamic_trailing_extent",
        request([tensor(shape=["R", 512])]),
        ("NZ layout requires a static shape[-2]", "got a dynamic extent"),
        None,
        -2,
    ),
    (
        "nz.rows_not_multiple_of_16",
        request([tensor(shape=[200, 512])]),
        ("requires shape[-2] to be a positive multiple of 16, got 200",),
        None,
        -2,
    ),
    (
        "nz.cols_not_multiple_of_c0",
        request([tensor(shape=[256, 400])]),
        ("requires shape[-1] to be a positive multiple of c0 = 32",),
        None,
        -1,
    ),
    (
        "nz.sub_byte_dtype",
        request([tensor(dtype="INT4")]),
        ("does not support the sub-byte dtype",),
        None,
        None,
    ),
    (
        "nz.dtype_not_dividing_c0",
        request([tensor(dtype="INT24")]),
        ("does not evenly divide the 32-byte C0 line",),
        None,
        None,
    ),
    (
        "nz.dynamic_leading_extent",
        request([tensor(shape=["G", 2, 256, 512])]),
        ("requires every leading extent to be static",),
        None,
        0,
    ),
    (
        "nz.distributed_tensor",
        request([tensor(distributed=True)]),
        ("NZ layout is not supported on a distributed tensor yet",),
        None,
        None,
    ),
    (
        "nz.partial_valid_shape_on_type",
        request([tensor(valid_shape=[128, 512])]),
        ("NZ layout does not support a partial valid_shape yet",),
        None,
        None,
    ),
    (
        "nz.explicit_stride",
        request([tensor(stride=[512, 1])]),
        ("NZ layout does not support an explicit stride yet",),
        None,
        None,
    ),
    (
        "nz.load_target_not_mat",
        request([tensor()], [load([0, 0], [256, 512], target_memory="Vec")]),
        ("NZ layout currently supports only matmul operand loads (target_memory=pl.Mem.Mat), got Vec",),
        "l0",
        None,
    ),
    (
        "nz.offset_unaligned_const",
        request([tensor()], [load([8, 0], [16, 32])]),
        ("NZ slice offset on shape[-2] must be a non-negative multiple of 16, got 8.",),
        "l0",
        -2,
    ),
    (
        "nz.offset_unprovable_multiple",
        request(
            [tensor()],
            [load(["n0", 0], [16, 32])],
            bindings=[*SPMD_NB, {"name": "n0", "kind": "assign", "expr": "nb * 8"}],
        ),
        ("requires the slice offset on shape[-2] to be a multiple of 16, and this one cannot be proven",),
        "l0",
        -2,
    ),
    (
        "nz.offset_unprovable_sign",
        request(
            [tensor()],
            [load(["n0", 0], [16, 32])],
            bindings=[*SPMD_NB, {"name": "n0", "kind": "assign", "expr": "nb * 256 - 256"}],
        ),
        ("requires the slice offset on shape[-2] to be non-negative",),
        "l0",
        -2,
    ),
    (
        "nz.dynamic_valid_rows_not_multiple",
        request(
            [tensor()],
            [load([0, 0], [256, 512], valid_shape=["v", 512])],
            bindings=[{"name": "v", "kind": "param", "min": 0, "max": 256}],
        ),
        ("requires a dynamic valid_shape[-2] to be a provable multiple of 16",),
        "l0",
        -2,
    ),
    (
        "nz.valid_cols_bad",
        request([tensor()], [load([0, 0], [256, 512], valid_shape=["v", 100])]),
        ("requires a static valid_shape[-1] that is a positive multiple of c0",),
        "l0",
        -1,
    ),
    (
        "nz.window_out_of_bounds",
        request([tensor(shape=[64, 512])], [load([48, 0], [32, 512])]),
        ("NZ tile.load window [48, 48 + 32) on axis -2 runs past the tensor's 64 elements", "= 80"),
        "l0",
        -2,
    ),
    (
        "nz.index_overflow",
        request([tensor(shape=[4, 32768, 65536])], [], index_bits=32),
        ("NZ layout computed a blocked stride 2147483648, outside the signed 32-bit index range",),
        None,
        None,
    ),
    (
        "nz.gm_gap_overflow",
        request([tensor(shape=[65552, 64])], [load([0, 0], [16, 64])]),
        (
            "GM row gap is 65536 32-byte blocks (65552 tensor rows - 16 loaded rows), above the 65535",
            "NOT an expected pl.NZ limitation",
            "hw-native-sys/pto-isa#317",
        ),
        "l0",
        -2,
    ),
    (
        "nz.slice_trailing_window",
        request(
            [tensor(shape=[4, 256, 512])],
            [
                {
                    "id": "s0",
                    "op": "tensor.slice",
                    "source": "w",
                    "shapes": [1, 128, 512],
                    "offsets": [0, 0, 0],
                }
            ],
        ),
        (
            "NZ layout supports slicing the leading axes only: "
            "shape[-2] (rows) must take the whole axis at offset 0",
        ),
        "s0",
        -2,
    ),
    (
        "nz.slice_multi_leading_window",
        request(
            [tensor(shape=[2, 4, 256, 512])],
            [
                {
                    "id": "s0",
                    "op": "tensor.slice",
                    "source": "w",
                    "shapes": [2, 1, 256, 512],
                    "offsets": [0, 1, 0, 0],
                }
            ],
        ),
        ("NZ layout supports a window on one leading axis only",),
        "s0",
        1,
    ),
    (
        "nz.slice_valid_shape_rank",
        request(
            [tensor(shape=[4, 256, 512])],
            [
                {
                    "id": "s0",
                    "op": "tensor.slice",
                    "source": "w",
                    "shapes": [1, 256, 512],
                    "offsets": [1, 0, 0],
                    "valid_shape": [256, 512],
                }
            ],
        ),
        ("needs a full-rank valid_shape on a tensor.slice",),
        "s0",
        None,
    ),
    (
        "nz.slice_valid_shape_narrows",
        request(
            [tensor(shape=[4, 256, 512])],
            [
                {
                    "id": "s0",
                    "op": "tensor.slice",
                    "source": "w",
                    "shapes": [2, 256, 512],
                    "offsets": [1, 0, 0],
                    "valid_shape": [1, 256, 512],
                }
            ],
        ),
        ("does not support a tensor.slice whose valid_shape narrows the window",),
        "s0",
        -3,
    ),
    (
        "nz.slice_drop_trailing_axis",
        request(
            [tensor(shape=[4, 256, 512])],
            [
                {
                    "id": "s0",
                    "op": "tensor.slice",
                    "source": "w",
                    "shapes": [1, 256, 512],
                    "offsets": [1, 0, 0],
                    "drop_dims": [1],
                }
            ],
        ),
        ("supports dropping a leading axis only",),
        "s0",
        -2,
    ),
    (
        "nz.unsupported_consumer",
        request([tensor()], [{"id": "a0", "op": "tensor.add", "args": ["x", "w"]}]),
        (
            "NZ layout currently supports only 'tile.load' and 'tensor.slice' reading the tensor as their "
            "source, plus a whole-tensor 'tensor.reshape' flatten, but it is used by 'tensor.add' "
            "at argument 1.",
            "accumulator 'tile.store'",
        ),
        "a0",
        None,
    ),
    (
        "nz.tensor_view_of_nz",
        request([tensor()], [{"id": "v0", "op": "tensor.view", "source": "w"}]),
        ("does not support an NZ source",),
        "v0",
        None,
    ),
    (
        "nz.store_backend",
        request([out([64, 16])], [store([64, 16])], target="a5"),
        ("an NZ tensor cannot be a store destination", "A2/A3 only"),
        "st",
        None,
    ),
    (
        "nz.store_source_memory",
        request([out([64, 16])], [store([64, 16], memory="Vec")]),
        ("an NZ tensor cannot be a store destination", "must be Acc, got Vec"),
        "st",
        None,
    ),
    (
        "nz.store_dtype",
        request([out([64, 16])], [store([64, 16], dtype="FP16")]),
        ("an NZ tensor cannot be a store destination", "FP16 to FP32"),
        "st",
        None,
    ),
    (
        "nz.store_tile_shape",
        request([out([64, 16])], [store(["m", 16])]),
        ("an NZ tensor cannot be a store destination", "static, positive and 2-D"),
        "st",
        None,
    ),
    (
        "nz.store_partial_valid",
        request([out([64, 16])], [store([64, 16], valid_shape=[48, 16])]),
        ("an NZ tensor cannot be a store destination", "fully valid"),
        "st",
        None,
    ),
    (
        "nz.store_tile_unaligned",
        request([out([64, 8])], [store([64, 8])]),
        ("an NZ tensor cannot be a store destination", "multiples of 16"),
        "st",
        None,
    ),
    (
        "nz.store_attribute",
        request([out([64, 16])], [store([64, 16], attrs={"atomic": "add"})]),
        ("an NZ tensor cannot be a store destination", "atomic='add'"),
        "st",
        None,
    ),
    (
        "nz.store_row_window",
        request([out([128, 32])], [store([64, 16])]),
        ("an NZ tensor cannot be a store destination", "whole parent row axis"),
        "st",
        -2,
    ),
    (
        "nz.store_column_window",
        request([out([64, 32])], [store([64, 16], [0, 24])]),
        ("an NZ tensor cannot be a store destination", "outside"),
        "st",
        -1,
    ),
    (
        "nz.store_column_offset_unaligned",
        request([out([64, 32])], [store([64, 16], [0, 4])]),
        ("an NZ tensor cannot be a store destination", "multiple of c0 = 8, got 4"),
        "st",
        -1,
    ),
    (
        "nz.store_column_offset_unprovable_multiple",
        request(
            [out([64, 64])],
            [store([64, 16], [0, "c"])],
            bindings=[{"name": "c", "kind": "for", "start": 0, "stop": 48, "step": 4}],
        ),
        ("an NZ tensor cannot be a store destination", "cannot be proven a multiple of c0 = 8"),
        "st",
        -1,
    ),
    (
        "nz.store_column_offset_unprovable_sign",
        request(
            [out([64, 64])],
            [store([64, 16], [0, "c"])],
            bindings=[{"name": "c", "kind": "for", "start": -16, "stop": 48, "step": 16}],
        ),
        ("an NZ tensor cannot be a store destination", "cannot be proven non-negative"),
        "st",
        -1,
    ),
    ("nz.store_extent_limit", request([out([16, 4096])], [store([16, 4096])]), ("4095 columns",), "st", None),
    (
        "nz.store_l0c_capacity",
        request([out([64, 1024])], [store([64, 1024])]),
        ("131072-byte L0C",),
        "st",
        None,
    ),
    (
        "nz.autotile_no_legal_tile",
        request([out([4096, 64])], [store([4096, 64], producer={"m": 4096, "n": 64, "k": 32})]),
        ("no legal N tile",),
        "st",
        None,
    ),
]

NON_PLAN_CODES = {
    "nz.window_bounds_unproven",  # a warning: tests/layout/test_layout_windows.py
    "nz.runtime_batch_rank",
    "nz.internal_unblocked_view",
    "nz.internal_divisor_not_power_of_two",
}


@pytest.mark.parametrize(("code", "body", "substrings", "op", "axis"), CASES, ids=[case[0] for case in CASES])
def test_each_code_is_reported_with_its_reference_wording(
    code: str, body: dict[str, Any], substrings: tuple[str, ...], op: str | None, axis: int | None
) -> None:
    response = plan(LayoutPlanRequest.model_validate(body))
    assert not response.ok
    assert response.ops == [] and response.tensors == []
    [diagnostic] = response.diagnostics
    assert (diagnostic.code, diagnostic.op, diagnostic.axis, diagnostic.severity) == (code, op, axis, "error")
    assert diagnostic.tensor in {"w", "out"}
    for substring in substrings:
        assert substring in diagnostic.message
    assert f"Fix: {nz.NZ_CODES[code].fix}" in diagnostic.message


def test_every_code_has_a_case() -> None:
    assert {case[0] for case in CASES} | NON_PLAN_CODES == set(nz.NZ_CODES)


def test_codes_are_defined_once_with_a_fix() -> None:
    assert all(
        key == entry.code and entry.code.startswith("nz.") and entry.fix for key, entry in nz.NZ_CODES.items()
    )


def test_runtime_batch_rank_refuses_other_ranks_for_a_dynamic_batch() -> None:
    spec = TensorSpec(name="w", shape=["B", 256, 512], dtype="INT8", layout="NZ")
    assert check_runtime_batch_rank(spec, [4, 256, 512]) is None
    for shape in ([1024, 512], [1, 4, 256, 512], [4, 16, 16, 16, 32]):
        diagnostic = check_runtime_batch_rank(spec, shape)
        assert diagnostic is not None
        assert (diagnostic.code, diagnostic.tensor) == ("nz.runtime_batch_rank", "w")
        assert f"got rank {len(shape)}" in diagnostic.message
    static = TensorSpec(name="w", shape=[4, 256, 512], dtype="INT8", layout="NZ")
    assert check_runtime_batch_rank(static, [1024, 512]) is None


def test_an_unblocked_view_is_an_internal_error() -> None:
    unblocked = PlannedTensor(name="w", layout="NZ", shape=[256, 512], strides=[512, 1])
    with pytest.raises(nz.LayoutRefusal) as caught:
        check_blocked(unblocked, "INT8")
    assert caught.value.diagnostic.code == "nz.internal_unblocked_view"
    assert "not blocked" in caught.value.diagnostic.message


def test_a_divisor_that_is_not_a_power_of_two_is_an_internal_error() -> None:
    ledger = ProofLedger(LayoutPlanRequest())
    with pytest.raises(nz.LayoutRefusal) as caught:
        map_trailing_offset(ledger, nz.Site("w", "l0"), -1, Name("k0"), 24, LOAD_OFFSET_RULES)
    assert caught.value.diagnostic.code == "nz.internal_divisor_not_power_of_two"
    assert ledger.records == []
