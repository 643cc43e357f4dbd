"""docs/design/kernel-config.md section 9 "Representative outcomes", one JSON request per row."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from planner.errors import RequestError
from planner.kernelcfg import resolve, resolve_on
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.targets.tenstorrent import BLACKHOLE_FACTS, WORMHOLE_B0_FACTS, DescriptorTarget
from tests.kernelcfg.kernel_requests import ADD, EXP1, SAME, assert_plan, kernel, op, planned, refused

LIFTED_WH = DescriptorTarget(replace(WORMHOLE_B0_FACTS, bcast_non32_forbids_dst32=False))
LIFTED_BH = DescriptorTarget(replace(BLACKHOLE_FACTS, bcast_non32_forbids_dst32=False))


def test_f32_add_with_store_runs_on_fpu() -> None:
    response = planned(kernel(ADD, op("st", "tile_store", "add0", result=None)))
    assert_plan(response, 32, [], add0="fpu")
    assert response.plan is not None and response.plan.dst_sync == "double_buffered"


def test_fpu_policy_off_moves_add_to_sfpu_and_unpacks_both_inputs() -> None:
    assert_plan(planned(kernel(ADD, fpu_binary=False)), 32, [0, 1], add0="sfpu")


@pytest.mark.parametrize("ops", [(EXP1, ADD), (ADD, EXP1)], ids=["exp-first", "add-first"])
def test_joint_resolution_picks_sfpu_for_the_add_sharing_an_unpacked_dfb(
    ops: tuple[dict[str, Any], ...],
) -> None:
    assert_plan(planned(kernel(*ops)), 32, [0, 1], add0="sfpu")


def test_sub_and_mul_sharing_an_unpacked_dfb_both_go_sfpu() -> None:
    request = kernel(op("sub0", "tile_sub", 0, 1, **SAME), op("mul0", "tile_mul", 0, 1, **SAME), EXP1)
    assert_plan(planned(request), 32, [0, 1], sub0="sfpu", mul0="sfpu")


def test_mul_of_an_add_result_forces_both_to_sfpu() -> None:
    request = kernel(ADD, op("mul0", "tile_mul", "add0", 1, **SAME))
    assert_plan(planned(request), 32, [0, 1], add0="sfpu", mul0="sfpu")


def test_exp_and_row_broadcast_of_one_f32_dfb_conflict_with_a_note() -> None:
    conflict = refused(
        kernel(EXP1, op("bc0", "tile_bcast", 1, attrs={"kind": "row"})), "kcfg.dfb_unpack_conflict"
    )
    assert (conflict.op, conflict.operand, conflict.where) == ("bc0", 0, "op")
    assert "dataflow buffer 1 requires incompatible unpack modes in one kernel" in conflict.message
    assert conflict.note is not None and conflict.note.op == "exp0"
    assert conflict.note.message == "operand 0 establishes the conflicting unpack mode"


@pytest.mark.parametrize(
    "only_op",
    [op("r", "tile_reduce", 0, 1, attrs={"dim": "row"}), op("b", "tile_bcast", 0, attrs={"kind": "col"})],
    ids=["reduce", "bcast"],
)
def test_f32_reduce_or_broadcast_alone_needs_no_unpack(only_op: dict[str, Any]) -> None:
    assert_plan(planned(kernel(only_op)), 32, [])


def test_fpu_add_feeding_exp_stays_on_fpu() -> None:
    assert_plan(planned(kernel(ADD, op("e", "tile_exp", "add0"))), 32, [], add0="fpu")


@pytest.mark.parametrize("dfbs,expected", [((0,), [0]), ((2,), [2]), ((0, 2), [0, 2])])
def test_f32_exp_unpacks_its_dfbs(dfbs: tuple[int, ...], expected: list[int]) -> None:
    ops = [op(f"e{d}", "tile_exp", d) for d in dfbs]
    assert_plan(planned(kernel(*ops, dfbs={0: "f32", 2: "f32"})), 32, expected)


@pytest.mark.parametrize(
    "mnemonic,dfb", [("tile_store", 3), ("tile_abs", 5), ("copy_tile", 4)], ids=["store", "abs", "copy"]
)
def test_dst_routed_f32_reads_unpack(mnemonic: str, dfb: int) -> None:
    result = None if mnemonic == "tile_store" else "f32"
    assert_plan(planned(kernel(op("x", mnemonic, dfb, result=result), dfbs={dfb: "f32"})), 32, [dfb])


def test_typecasts() -> None:
    assert_plan(planned(kernel(op("c", "tile_typecast", 0), dfbs={0: "bf16"})), 32, [])
    assert_plan(planned(kernel(op("c", "tile_typecast", 0, result="bf16"), dfbs={0: "f32"})), 32, [0])


@pytest.mark.parametrize("dtype,width", [("si32", 32), ("u32", 32), ("u16", 16), ("bf16", 16)])
def test_store_width_follows_the_element_type(dtype: str, width: int) -> None:
    assert_plan(planned(kernel(op("s", "tile_store", 0, result=None), dfbs={0: dtype})), width, [])


def test_integer_add_is_sfpu_only() -> None:
    request = kernel(op("a", "tile_add", 0, 1, result="si32", **SAME), dfbs={0: "si32", 1: "si32"})
    assert_plan(planned(request), 32, [], a="sfpu")


@pytest.mark.parametrize("dim", ["row", "col"])
def test_bf16_reduce_prefers_32_bits_unless_turned_off(dim: str) -> None:
    red = op("r", "tile_reduce", 0, 0, result="bf16", attrs={"dim": dim})
    assert_plan(planned(kernel(red, dfbs={0: "bf16"})), 32, [])
    assert_plan(planned(kernel(red, dfbs={0: "bf16"}, reduce_full_fp32=False)), 16, [])


def test_bf16_matmul_prefers_32_bits_unless_turned_off() -> None:
    mm = op("m", "tile_matmul_block", 0, 1, result="bf16")
    assert_plan(planned(kernel(mm, dfbs={0: "bf16", 1: "bf16"})), 32, [])
    assert_plan(planned(kernel(mm, dfbs={0: "bf16", 1: "bf16"}, matmul_full_fp32=False)), 16, [])


MATMUL_BCAST_ADD = (
    op("m", "tile_matmul_block", 0, 1, result="bf16"),
    op("b", "tile_bcast", 0, result="bf16", attrs={"kind": "col"}),
    op("a", "tile_add", "m", "b", result="bf16"),
)


def test_matmul_broadcast_add_without_target() -> None:
    assert_plan(planned(kernel(*MATMUL_BCAST_ADD, dfbs={0: "bf16", 1: "bf16"})), 32, [], a="sfpu")
    off = kernel(*MATMUL_BCAST_ADD, dfbs={0: "bf16", 1: "bf16"}, matmul_full_fp32=False)
    assert_plan(planned(off), 16, [], a="sfpu")


ROW_WARNING = "kcfg.full_fp32_row_reduce_unavailable"


def test_blackhole_row_reduce_falls_back_with_a_warning() -> None:
    red = op("r", "tile_reduce", 0, 0, result="bf16", attrs={"dim": "row"})
    response = planned(kernel(red, dfbs={0: "bf16"}, arch="blackhole"))
    assert_plan(response, 16, [])
    assert [(w.code, w.op) for w in response.warnings] == [(ROW_WARNING, "r")]
    assert "tt-metal #47311" in response.warnings[0].message
    both = kernel(
        red,
        op("c", "tile_reduce", 0, 0, result="bf16", attrs={"dim": "col"}),
        dfbs={0: "bf16"},
        arch="blackhole",
    )
    response = planned(both)
    assert_plan(response, 32, [])
    assert [(w.code, w.op) for w in response.warnings] == [(ROW_WARNING, "r")]


@pytest.mark.parametrize("dim", ["row", "col"])
def test_wormhole_reduce_is_16_bits_without_warning(dim: str) -> None:
    red = op("r", "tile_reduce", 0, 0, result="bf16", attrs={"dim": dim})
    response = planned(kernel(red, dfbs={0: "bf16"}, arch="wormhole_b0"))
    assert_plan(response, 16, [])
    assert response.warnings == []


def test_wormhole_matmul_is_32_bits() -> None:
    mm = op("m", "tile_matmul_block", 0, 1, result="bf16")
    assert_plan(planned(kernel(mm, dfbs={0: "bf16", 1: "bf16"}, arch="wormhole_b0")), 32, [])


def test_blackhole_matmul_broadcast_add_warns_and_lifting_the_restriction_restores_32_bits() -> None:
    request = kernel(*MATMUL_BCAST_ADD, dfbs={0: "bf16", 1: "bf16"}, arch="blackhole")
    response = planned(request)
    assert_plan(response, 16, [], a="sfpu")
    assert [(w.code, w.op) for w in response.warnings] == [("kcfg.preferred_fp32_unavailable", "m")]
    lifted = planned(request, LIFTED_BH)
    assert_plan(lifted, 32, [], a="sfpu")
    assert lifted.warnings == []


@pytest.mark.parametrize("arch", ["wormhole_b0", "blackhole"])
@pytest.mark.parametrize("kind", ["col", "row", "scalar"])
def test_explicit_32_bits_with_a_bf16_broadcast_is_refused(arch: str, kind: str) -> None:
    request = kernel(
        op("b", "tile_bcast", 0, result="bf16", attrs={"kind": kind}),
        dfbs={0: "bf16"},
        arch=arch,
        fp32_dest_acc=True,
    )
    conflict = refused(request, "kcfg.dst_width_explicit_unsupported")
    assert conflict.where == "function" and conflict.op is None
    assert conflict.note is not None and conflict.note.op == "b"
    assert conflict.note.message == (
        "the target does not support 32-bit destination elements for ttl.tile_bcast with 'bf16' elements"
    )
    lifted = LIFTED_WH if arch == "wormhole_b0" else LIFTED_BH
    assert_plan(planned(request, lifted), 32, [])


def test_wormhole_f32_exp_with_bf16_broadcast_is_a_width_conflict() -> None:
    ops = (op("e", "tile_exp", 0), op("b", "tile_bcast", 1, result="bf16", attrs={"kind": "col"}))
    request = kernel(*ops, dfbs={0: "f32", 1: "bf16"}, arch="wormhole_b0")
    conflict = refused(request, "kcfg.dst_width_conflict")
    assert (
        conflict.op == "e" and "requires 32-bit destination elements, but no kernel-wide" in conflict.message
    )
    assert (
        conflict.note is not None
        and conflict.note.op == "b"
        and "ttl.tile_bcast with 'bf16'" in conflict.note.message
    )
    assert_plan(planned(request, LIFTED_WH), 32, [0])
    assert_plan(planned(kernel(*ops, dfbs={0: "f32", 1: "bf16"})), 32, [0])


def test_disabled_fp32_with_an_f32_fill_is_refused_on_the_fill() -> None:
    conflict = refused(kernel(op("f", "tile_fill"), fp32_dest_acc=False), "kcfg.dst_width_disabled_conflict")
    assert conflict.op == "f"
    assert "fp32 destination accumulation is explicitly disabled" in conflict.message


def test_disabled_fp32_with_bf16_reduce_is_16_bits_without_warning() -> None:
    red = op("r", "tile_reduce", 0, 0, result="bf16", attrs={"dim": "row"})
    response = planned(kernel(red, dfbs={0: "bf16"}, fp32_dest_acc=False))
    assert_plan(response, 16, [])
    assert response.warnings == []


def test_sync_policy() -> None:
    store = op("s", "tile_store", 2, result=None)
    response = planned(kernel(store, dfbs={2: "f32"}, fp32_dest_acc=True, dst_full_sync=False))
    assert_plan(response, 32, [2])
    assert response.plan is not None and response.plan.dst_sync == "double_buffered"
    response = planned(kernel(store, dfbs={2: "bf16"}, dst_full_sync=True))
    assert_plan(response, 16, [])
    assert response.plan is not None and response.plan.dst_sync == "full"


INERT_OPS = [
    op("x", "tile_abs", 0, result="bf16"),
    op("x", "tile_bcast", 0, result="bf16", attrs={"kind": "col"}),
    op("x", "tile_add", 0, 0, result="bf16", **SAME),
    op("x", "copy_tile", 0, result="bf16"),
]


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("fp32", ["auto", "disabled"])
@pytest.mark.parametrize("the_op", INERT_OPS, ids=["abs", "bcast", "add", "copy"])
def test_explicit_unpack_entries_for_16_bit_dfbs_are_inert(
    dtype: str, fp32: str, the_op: dict[str, Any]
) -> None:
    the_op = {**the_op, "result_dtype": dtype}
    response = planned(kernel(the_op, dfbs={0: dtype}, unpack_to_dest_fp32=[0], fp32_dest_acc=fp32))
    strategies = {"x": "fpu"} if the_op["op"] == "tile_add" else {}
    assert_plan(response, 16, [0], **strategies)


def test_explicit_unpack_excluding_a_required_index() -> None:
    conflict = refused(
        kernel(op("a", "tile_abs", 0), unpack_to_dest_fp32=[]), "kcfg.explicit_unpack_conflict"
    )
    assert conflict.op == "a"
    assert (
        "dataflow buffer 0 requires unpack-to-DST-f32 mode, but ttl.unpack_to_dest_fp32 excludes this index"
        in (conflict.message)
    )


def test_explicit_unpack_including_an_index_needing_default() -> None:
    red = op("r", "tile_reduce", 0, 0, attrs={"dim": "row"})
    conflict = refused(kernel(red, unpack_to_dest_fp32=[0]), "kcfg.explicit_unpack_conflict")
    assert conflict.op == "r"
    assert (
        "dataflow buffer 0 requires default unpack mode, but ttl.unpack_to_dest_fp32 includes this index"
        in (conflict.message)
    )


def test_explicit_unpack_of_both_inputs_moves_add_to_sfpu() -> None:
    assert_plan(planned(kernel(ADD, unpack_to_dest_fp32=[1, 0, 1])), 32, [0, 1], add0="sfpu")


def test_explicit_strategy_diagnostics() -> None:
    bf16_add = op("a", "tile_add", 0, 1, result="bf16", explicit_strategy="fpu", **SAME)
    refused(kernel(bf16_add, dfbs={0: "bf16", 1: "bf16"}, fpu_binary=False), "kcfg.fpu_policy_conflict")
    apart = op("a", "tile_add", 0, 1, explicit_strategy="fpu")  # extract [0,0] and extract [0,1]
    refused(kernel(apart), "kcfg.strategy_explicit_illegal")
    refused(kernel(op("f", "tile_fill", explicit_strategy="sfpu")), "kcfg.strategy_attr_on_fixed_op")


def test_dfb_index_range_depends_on_the_target() -> None:
    exp32 = op("e", "tile_exp", 32)
    conflict = refused(kernel(exp32, dfbs={32: "f32"}), "kcfg.dfb_index_out_of_range")
    assert conflict.message.endswith(
        "uses dataflow buffer index 32 outside the supported range [0, 31] for the conservative 32-DFB-index "
        "capacity used when target metadata is absent"
    )
    conflict = refused(
        kernel(exp32, dfbs={32: "f32"}, unpack_to_dest_fp32=[32]), "kcfg.policy_unpack_index_out_of_range"
    )
    assert conflict.where == "function"
    conflict = refused(kernel(exp32, dfbs={32: "f32"}, arch="wormhole_b0"), "kcfg.dfb_index_out_of_range")
    assert conflict.message.endswith("[0, 31] for the 32-DFB-index Wormhole B0 target capacity")
    assert_plan(
        planned(kernel(exp32, dfbs={32: "f32"}, arch="blackhole", unpack_to_dest_fp32=[32])), 32, [32]
    )
    assert_plan(planned(kernel(op("e", "tile_exp", 63), dfbs={63: "f32"}, arch="blackhole")), 32, [63])


def test_quasar_is_refused_on_the_module() -> None:
    conflict = refused(kernel(ADD, arch="quasar"), "kcfg.target_quasar_unsupported")
    assert conflict.where == "module" and conflict.requirements == []
    assert conflict.message == (
        "Quasar compute kernels require the Gen2 configuration and launch APIs, "
        "which are not supported by the current TT-Lang runtime"
    )


def test_broadcast_of_scalars_is_not_a_tile() -> None:
    conflict = refused(
        kernel(op("b", "tile_bcast", {"scalar": "f32"}, {"scalar": "f32"}, attrs={"kind": "col"})),
        "kcfg.operand_not_tile",
    )
    assert "expected a tile or tensor-of-tiles operand, got 'f32'" in conflict.message


@pytest.mark.parametrize(
    ("operands", "position", "got"),
    [
        ([{"scalar": "index"}], 0, "index"),
        ([{"unattached": "index"}], 0, "index"),
        ([{"unattached": "f64"}], 0, "f64"),
        ([0, {"scalar": "i32"}], 1, "i32"),
    ],
)
def test_a_routed_operand_that_is_not_a_tile_is_named(operands: list[Any], position: int, got: str) -> None:
    mnemonic = "tile_exp" if len(operands) == 1 else "tile_max"
    conflict = refused(kernel(op("x", mnemonic, *operands)), "kcfg.operand_not_tile")
    assert (conflict.op, conflict.operand) == ("x", position)
    assert conflict.message == f"'ttl.{mnemonic}' op expected a tile or tensor-of-tiles operand, got '{got}'"


def test_a_scalar_in_an_unrouted_position_is_not_looked_at() -> None:
    bcast = op("b", "tile_bcast", 0, {"scalar": "index"}, attrs={"kind": "col"})
    assert_plan(planned(kernel(bcast)), 32, [])


def test_math_fidelity_is_forwarded_untouched() -> None:
    response = planned(kernel(ADD, math_fidelity="HiFi4"))
    assert response.plan is not None and response.plan.math_fidelity == "HiFi4"


def test_resolve_is_the_public_entry() -> None:
    assert resolve(kernel(ADD)).model_dump() == resolve_on(kernel(ADD), None).model_dump()


def test_the_protocol_example_round_trips_as_json() -> None:
    body = """{"arch": "blackhole",
      "policy": {"fp32_dest_acc": "auto", "dst_full_sync": "auto", "reduce_full_fp32": true,
                 "matmul_full_fp32": true, "fpu_binary": true, "unpack_to_dest_fp32": null,
                 "math_fidelity": null, "math_approx_mode": null, "precision": "default"},
      "dfbs": [{"index": 0, "dtype": "f32"}, {"index": 1, "dtype": "f32"}],
      "ops": [{"id": "add0", "op": "tile_add", "operands": [{"dfb": 0}, {"dfb": 1}],
               "result_dtype": "f32", "same_tile_coords": true, "explicit_strategy": null, "attrs": {}}]}"""
    response = resolve(KernelcfgResolveRequest.model_validate_json(body))
    assert response.model_dump(mode="json") == {
        "ok": True,
        "plan": {
            "strategies": {"add0": "fpu"},
            "dst_width": 32,
            "dst_sync": "double_buffered",
            "unpack_to_dest_fp32": [],
            "math_fidelity": None,
            "math_approx_mode": None,
        },
        "warnings": [],
        "conflict": None,
        "explanation": None,
        "precision": None,
    }


@pytest.mark.parametrize(
    ("ops", "chain"),
    [
        ((op("a", "tile_add", "b", 0), op("b", "tile_mul", "a", 1)), "'a' -> 'b' -> 'a'"),
        (
            (op("a", "tile_add", "c", 0), op("b", "tile_exp", "a"), op("c", "tile_mul", "b", 1)),
            "'a' -> 'c' -> 'b' -> 'a'",
        ),
    ],
)
def test_value_operands_that_form_a_cycle_are_an_invalid_request(
    ops: tuple[dict[str, Any], ...], chain: str
) -> None:
    """Every op declares its result type, so nothing else in the request notices the cycle."""
    with pytest.raises(RequestError) as raised:
        resolve(kernel(*ops))
    assert (raised.value.code, raised.value.message) == (
        "request.invalid",
        f"value operands form a cycle: {chain}",
    )


def test_a_value_read_by_several_later_ops_is_no_cycle() -> None:
    response = planned(
        kernel(op("a", "tile_add", 0, 1, **SAME), op("b", "tile_mul", "a", "a"), op("c", "tile_exp", "b"))
    )
    assert response.plan is not None
