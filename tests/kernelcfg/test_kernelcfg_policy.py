"""Policy normalisation, op semantics, requirement collection and every remaining diagnostic."""

from __future__ import annotations

from typing import Any

import pytest

from planner.errors import RequestError
from planner.kernelcfg import resolve, resolve_on
from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.policy import ThreeState, parse_three_state, parse_unpack_set
from planner.kernelcfg.requirements import collect_requirements
from planner.kernelcfg.semantics import SEMANTICS, OpSemantics, Strategy, StrategyOption
from planner.targets.tenstorrent import NO_TARGET, TT_DTYPES, Primitive, Route, UnpackMode
from tests.kernelcfg.kernel_requests import ADD, SAME, assert_plan, kernel, op, planned, refused


@pytest.mark.parametrize(
    "value, state",
    [
        ("auto", ThreeState.AUTO),
        ("enabled", ThreeState.ENABLED),
        ("true", ThreeState.ENABLED),
        ("1", ThreeState.ENABLED),
        (True, ThreeState.ENABLED),
        ("disabled", ThreeState.DISABLED),
        ("false", ThreeState.DISABLED),
        ("0", ThreeState.DISABLED),
        (False, ThreeState.DISABLED),
    ],
)
def test_three_state_spellings(value: object, state: ThreeState) -> None:
    assert parse_three_state(value, "fp32-dest-acc-en", "fp32_dest_acc_en") is state


@pytest.mark.parametrize(
    "field, option", [("fp32_dest_acc", "fp32-dest-acc-en"), ("dst_full_sync", "dst-full-sync-en")]
)
def test_bad_three_state_value_names_the_option(field: str, option: str) -> None:
    conflict = refused(kernel(ADD, **{field: "on"}), "kcfg.policy_option_invalid")
    assert conflict.message == f"invalid {option} value 'on'; expected auto, enabled, or disabled"
    assert conflict.where == "function"


def test_non_bool_attribute_and_malformed_unpack_set() -> None:
    with pytest.raises(KcfgError) as caught:
        parse_three_state(3, "dst-full-sync-en", "dst_full_sync_en")
    assert (caught.value.code, caught.value.message) == (
        "kcfg.policy_attr_not_bool",
        "dst_full_sync_en must be a boolean attribute",
    )
    for bad in ("0, 1", [0, "1"], [True], [2**31]):
        with pytest.raises(KcfgError) as caught:
            parse_unpack_set(bad, NO_TARGET)
        assert caught.value.code == "kcfg.policy_unpack_attr_malformed"
    assert parse_unpack_set([3, 1, 3], NO_TARGET) == (1, 3)
    with pytest.raises(KcfgError) as caught:
        parse_unpack_set([-1], NO_TARGET)
    assert caught.value.code == "kcfg.policy_unpack_index_out_of_range"


def test_every_semantics_entry_is_well_formed() -> None:
    for mnemonic, entry in SEMANTICS.items():
        variants = [entry] if isinstance(entry, OpSemantics) else list(entry.variants.values())
        for semantics in variants:
            assert semantics.is_choice == (mnemonic in {"tile_add", "tile_sub", "tile_mul"})
            if semantics.is_choice:
                assert [c.strategy.value for c in semantics.choices] == ["fpu", "sfpu"]
                assert [c.routes for c in semantics.choices] == [
                    (Route.DFB, Route.DFB),
                    (Route.DST, Route.DST),
                ]


def test_adding_an_op_is_one_registry_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    request = kernel(op("g", "tile_glow", 0))
    refused(request, "kcfg.op_semantics_unknown")
    monkeypatch.setitem(SEMANTICS, "tile_glow", OpSemantics(Primitive.ELEMENTWISE_UNARY, (Route.DST,)))
    assert_plan(planned(request), 32, [0])


def test_requirement_provenance() -> None:
    request = kernel(
        ADD, op("s", "tile_store", "add0", result=None), op("r", "tile_reduce", 0, 1, attrs={"dim": "col"})
    )
    reqs = collect_requirements(request)
    assert [(u.op, u.operand, u.dfb, u.route) for u in reqs.fixed.dfb] == [
        ("r", 0, 0, Route.DFB),
        ("r", 1, 1, Route.DFB),
    ]
    assert [(u.op, u.operand, u.elem.name) for u in reqs.fixed.destination] == [
        ("s", 0, "f32"),
        ("r", None, "f32"),
    ]
    (choice,) = reqs.choices
    fpu, sfpu = choice.options
    assert [(u.operand, u.route) for u in fpu.uses.dfb] == [(0, Route.DFB), (1, Route.DFB)]
    assert [(u.operand, u.route) for u in sfpu.uses.dfb] == [(0, Route.DST), (1, Route.DST)]
    assert [u.operand for u in sfpu.uses.destination] == [0, 1, None]
    assert [f.op for f in reqs.fp32_uses] == ["r"]


def test_accumulate_routes_its_second_operand_by_producer() -> None:
    acc_value = collect_requirements(kernel(op("e", "tile_exp", 0), op("a", "tile_accumulate", "e", "e")))
    assert [u.op for u in acc_value.fixed.dfb] == ["e"]
    acc_dfb = collect_requirements(kernel(op("e", "tile_exp", 0), op("a", "tile_accumulate", "e", 1)))
    assert [(u.op, u.route) for u in acc_dfb.fixed.dfb] == [("e", Route.DST), ("a", Route.DFB)]


def test_tile_size_and_op_order_do_not_change_requirements() -> None:
    forward = resolve(kernel(op("e", "tile_exp", 1), ADD))
    backward = resolve(kernel(ADD, op("e", "tile_exp", 1)))
    assert forward.plan == backward.plan


@pytest.mark.parametrize(
    "the_op, code, message",
    [
        (
            op("c", "copy_tile", {"dfb_unfinalized": "cb"}),
            "kcfg.dfb_index_unfinalized",
            "without a finalized index",
        ),
        (
            op("c", "copy_tile", {"unattached": "f32"}),
            "kcfg.operand_dfb_unresolved",
            "operand 0 must resolve",
        ),
        (op("t", "tile_transpose", "x"), "kcfg.operand_dfb_unresolved", "for the selected strategy"),
        (
            op("a", "tile_add", 0, {"unattached": "f32"}, explicit_strategy="fpu", **SAME),
            "kcfg.strategy_explicit_dfb_unresolved",
            "operand 1 does not resolve to a dataflow buffer required by",
        ),
        (
            op("a", "tile_add", 0, 1, explicit_strategy="gpu"),
            "kcfg.strategy_attr_malformed",
            "must be a #ttl.tile_execution_strategy attribute",
        ),
        (
            op("n", "tile_row_normalization_block", 0, attrs={"tiles": 0}),
            "kcfg.dst_slots_invalid",
            "DST slots",
        ),
    ],
)
def test_op_diagnostics(the_op: dict[str, Any], code: str, message: str) -> None:
    x = op("x", "tile_exp", 0)
    conflict = refused(kernel(x, the_op), code)
    assert message in conflict.message and conflict.op == the_op["id"] and conflict.where == "op"
    assert conflict.message.startswith(f"'ttl.{the_op['op']}' op ")


def test_unresolved_fpu_option_is_dropped_silently() -> None:
    request = kernel(op("a", "tile_add", 0, {"unattached": "f32"}, **SAME))
    assert_plan(planned(request), 32, [0], a="sfpu")


def test_first_op_error_in_walk_order_wins() -> None:
    request = kernel(op("a", "tile_frob", 0), op("b", "tile_bcast", {"scalar": "f32"}, attrs={"kind": "col"}))
    assert refused(request, "kcfg.op_semantics_unknown").op == "a"


def test_unsupported_destination_width_via_a_custom_target() -> None:
    class NoF32Fill:
        """A target implementing the query interface that has no width for an f32 fill."""

        name, dfb_capacity, capacity_description = "test", 32, "a test capacity"

        def supports_destination_width(self, primitive: Primitive, elem: Any, width: int) -> bool:
            return primitive is not Primitive.FILL and NO_TARGET.supports_destination_width(
                primitive, elem, width
            )

        def supported_dfb_configurations(self, primitive: Primitive, route: Route, elem: Any) -> Any:
            return NO_TARGET.supported_dfb_configurations(primitive, route, elem)

        def full_fp32_support(self, kind: Any) -> Any:
            return NO_TARGET.full_fp32_support(kind)

        hifi4_fp32_fault = None

        def dst_slots(self, width: int, sync: str) -> int:
            return NO_TARGET.dst_slots(width, sync)

        def f32_format(self, reads_dfb: bool, mode: Any, width: int) -> Any:
            return NO_TARGET.f32_format(reads_dfb, mode, width)

    conflict = refused(kernel(op("f", "tile_fill")), "kcfg.dst_width_unsupported", NoF32Fill())  # type: ignore[arg-type]
    assert "has no target-supported destination element width for 'f32' elements" in conflict.message


def test_dfb_config_unsupported_when_only_16_bits_remain() -> None:
    conflict = refused(
        kernel(op("c", "copy_tile", 0, result="bf16"), fp32_dest_acc=False), "kcfg.dfb_config_unsupported"
    )
    assert "dataflow buffer 0 has no target-supported destination-width and unpack-route configuration" in (
        conflict.message
    )


def test_bad_requests_raise_typed_request_errors() -> None:
    for bad in (
        kernel(op("e", "tile_exp", 7)),
        kernel(op("e", "tile_exp", "nobody")),
        kernel(op("e", "tile_exp", 0), op("e", "tile_abs", 0)),
        kernel(op("b", "tile_bcast", 0, attrs={"kind": "diagonal"})),
        kernel(op("f", "tile_fill", result=None)),
        kernel(op("a", "tile_add", 0, **SAME)),
        kernel(op("e", "tile_exp", 0), dfbs={0: "f32"}).model_copy(
            update={"dfbs": kernel(dfbs={0: "f32"}).dfbs * 2}
        ),
    ):
        with pytest.raises(RequestError) as caught:
            resolve_on(bad, None)
        assert caught.value.code.startswith("request.")


def test_dtype_table_and_unpack_modes() -> None:
    assert {name for name, d in TT_DTYPES.items() if d.is_32bit} == {"f32", "si32", "u32"}
    assert [m.value for m in UnpackMode] == ["default", "unpack_to_dest"]


def test_remaining_op_kinds() -> None:
    request = kernel(
        op("e", "tile_exp", 0, result="bf16"),
        op("c", "copy_dst", "e", result="bf16"),
        op("i", "dst_index", result=None),
        op("m", "tile_max", "c", "e", result="bf16"),
        dfbs={0: "bf16"},
    )
    reqs = collect_requirements(request)
    assert [(u.op, u.operand) for u in reqs.fixed.destination] == [
        ("e", 0), ("e", None), ("c", 0), ("c", None), ("m", 0), ("m", 1), ("m", None),
    ]  # fmt: skip
    assert reqs.choices == () and [u.op for u in reqs.fixed.dfb] == ["e"]
    assert_plan(planned(request), 16, [])


@pytest.mark.parametrize(
    "system_desc, code",
    [
        ({"chip_archs": ["blackhole"], "device_chip_ids": [0, 1]}, "kcfg.target_device_chip_invalid"),
        ({"chip_archs": ["blackhole", "wormhole_b0"], "device_chip_ids": [0, 1]}, "kcfg.target_mixed_arch"),
        ({"chip_archs": ["wormhole_b0"]}, "kcfg.target_device_mismatch"),
    ],
)
def test_system_description_must_agree(system_desc: dict[str, Any], code: str) -> None:
    plain = kernel(ADD, arch="blackhole")
    request = type(plain).model_validate({**plain.model_dump(), "system_desc": system_desc})
    conflict = refused(request, code)
    assert conflict.where == "module" and conflict.op is None


def test_device_architecture_alone_selects_the_target() -> None:
    exp63 = kernel(op("e", "tile_exp", 63), dfbs={63: "f32"})
    on_blackhole = type(exp63).model_validate(
        {**exp63.model_dump(), "system_desc": {"chip_archs": ["blackhole"]}}
    )
    assert_plan(planned(on_blackhole), 32, [63])


def _choice_op(*choices: StrategyOption) -> OpSemantics:
    return OpSemantics(Primitive.ELEMENTWISE_BINARY, choices=choices)


FPU_DFB = StrategyOption(Strategy.FPU, (Route.DFB, Route.DFB), accumulates=True)
FPU_DST = StrategyOption(Strategy.FPU, (Route.DST, Route.DST), accumulates=True)
SFPU_DFB = StrategyOption(Strategy.SFPU, (Route.DFB, Route.DFB), accumulates=False)


MISSING, NONE_LEGAL = "has no semantics for a legal tile strategy", "has no legal tile execution strategy"
NONE_ALLOWED = "has no tile execution strategy allowed by kernel policy"


@pytest.mark.parametrize(
    "semantics, extra, policy, code, message",
    [
        (_choice_op(FPU_DFB), {}, {}, "kcfg.strategy_semantics_missing", MISSING),
        (_choice_op(FPU_DFB, SFPU_DFB), {}, {}, "kcfg.strategy_none_legal", NONE_LEGAL),
        (
            _choice_op(FPU_DST, SFPU_DFB),
            SAME,
            {"fpu_binary": False},
            "kcfg.strategy_none_allowed",
            NONE_ALLOWED,
        ),
    ],
)
def test_internal_strategy_diagnostics(
    monkeypatch: pytest.MonkeyPatch,
    semantics: OpSemantics,
    extra: dict[str, Any],
    policy: dict[str, Any],
    code: str,
    message: str,
) -> None:
    monkeypatch.setitem(SEMANTICS, "tile_odd", semantics)
    unattached = {"unattached": "f32"}
    conflict = refused(kernel(op("o", "tile_odd", unattached, unattached, **extra), **policy), code)
    assert message in conflict.message and conflict.op == "o"


def test_result_types_follow_values_and_cycles_are_refused() -> None:
    chained = kernel(
        op("e", "tile_exp", 0, result=None), op("a", "tile_abs", "e", result=None), dfbs={0: "bf16"}
    )
    assert_plan(planned(chained), 16, [])
    cycle = kernel(op("a", "tile_abs", "b", result=None), op("b", "tile_abs", "a", result=None))
    with pytest.raises(RequestError, match="cycle"):
        resolve(cycle)
