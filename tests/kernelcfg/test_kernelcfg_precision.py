"""The precision account and `precision=exact` (docs/design/kernel-config.md 4.7, 6.10)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given

from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest, KernelcfgResolveResponse, PrecisionValue
from planner.testing.oracles.kernel_enum import enum_oracle
from planner.testing.strategies.kernels import kernel_requests
from tests.kernelcfg.kernel_requests import SAME, kernel, op, refused

F32 = {0: "f32", 1: "f32", 2: "f32", 3: "f32"}


def accounted(request: KernelcfgResolveRequest) -> KernelcfgResolveResponse:
    response = resolve(request.model_copy(update={"report_precision": True}))
    assert response.ok and response.precision is not None, response.conflict
    return response


def losses(request: KernelcfgResolveRequest) -> list[tuple[str, int | None, str, list[str], bool | None]]:
    """(op, operand, format, causes, avoidable) of every lost f32 value."""
    account = accounted(request).precision
    assert account is not None
    return [
        (v.op, v.operand, v.format, list(v.causes), v.avoidable) for v in account.values if not v.lossless
    ]


def values(request: KernelcfgResolveRequest) -> list[PrecisionValue]:
    account = accounted(request).precision
    assert account is not None
    return account.values


# One kernel per route of 4.7: the loss it names (op, operand, format, causes, avoidable), or none.
ROUTES: list[tuple[str, list[dict[str, Any]], dict[str, Any], list[tuple[Any, ...]]]] = [
    (
        "fpu binary: SrcA/SrcB by its strategy, avoidable on the SFPU",
        [op("a", "tile_add", 0, 1, **SAME)],
        {},
        [
            ("a", 0, "tf32", ["strategy", "unpack_mode"], True),
            ("a", 1, "tf32", ["strategy", "unpack_mode"], True),
        ],
    ),
    (
        "sfpu binary: both buffers unpacked to DST",
        [op("a", "tile_add", 0, 1, **SAME)],
        {"fpu_binary": False},
        [],
    ),
    ("sfpu unary from a buffer: unpacked to DST", [op("e", "tile_exp", 0)], {}, []),
    ("copy from a buffer: unpacked to DST", [op("c", "copy_tile", 0)], {}, []),
    ("a value already in DST", [op("c", "copy_tile", 0), op("e", "tile_exp", "c")], {}, []),
    ("transpose: SrcA only", [op("t", "tile_transpose", 3)], {}, [("t", 0, "tf32", ["unpack_mode"], False)]),
    (
        "row broadcast: SrcA only",
        [op("b", "tile_bcast", 2, attrs={"kind": "row"})],
        {},
        [("b", 0, "tf32", ["unpack_mode"], False)],
    ),
    (
        "reduce: input and scaler through SrcA/SrcB",
        [op("r", "tile_reduce", 0, 1, attrs={"dim": "col"})],
        {},
        [("r", 0, "tf32", ["unpack_mode"], False), ("r", 1, "tf32", ["unpack_mode"], False)],
    ),
    (
        "matmul: both inputs through SrcA/SrcB",
        [op("m", "tile_matmul_block", 0, 1)],
        {},
        [("m", 0, "tf32", ["unpack_mode"], False), ("m", 1, "tf32", ["unpack_mode"], False)],
    ),
    (
        "16-bit DST: an f32 buffer reaches SrcA as bfloat16",
        [op("t", "tile_transpose", 3, result="bf16")],
        {"fp32_dest_acc": "disabled"},
        [("t", 0, "bf16", ["unpack_mode", "dst_width"], False)],
    ),
    (
        "an FPU add forced by a broadcast sharing its buffer: no legal plan avoids it",
        [op("b", "tile_bcast", 1, attrs={"kind": "col"}), op("a", "tile_add", 0, 1, **SAME)],
        {},
        [
            ("b", 0, "tf32", ["unpack_mode"], False),
            ("a", 0, "tf32", ["strategy", "unpack_mode"], False),
            ("a", 1, "tf32", ["strategy", "unpack_mode"], False),
        ],
    ),
]


@pytest.mark.parametrize(
    ("ops", "policy", "expected"), [row[1:] for row in ROUTES], ids=[row[0] for row in ROUTES]
)
def test_each_route_names_exactly_its_loss_and_cause(
    ops: list[dict[str, Any]], policy: dict[str, Any], expected: list[tuple[Any, ...]]
) -> None:
    assert losses(kernel(*ops, dfbs=F32, **policy)) == expected


def test_every_f32_operand_and_result_is_accounted_in_walk_order() -> None:
    found = values(kernel(op("e", "tile_exp", 0), op("a", "tile_add", "e", 1), dfbs=F32))
    assert [(v.op, v.operand, v.dfb, v.format, v.lossless) for v in found] == [
        ("e", 0, 0, "fp32", True),
        ("e", None, None, "fp32", True),
        ("a", 0, None, "fp32", True),  # the exp's result, already in DST
        ("a", 1, 1, "fp32", True),
        ("a", None, None, "fp32", True),
    ]


def test_bf16_values_are_out_of_the_account() -> None:
    assert values(kernel(op("a", "tile_add", 0, 1, result="bf16", **SAME), dfbs={0: "bf16", 1: "bf16"})) == []


def test_the_account_never_changes_the_plan() -> None:
    request = kernel(op("a", "tile_add", 0, 1, **SAME), op("t", "tile_transpose", 3), dfbs=F32)
    assert accounted(request).plan == resolve(request).plan


def test_accumulation_reports_full_fp32_and_each_fallback_with_its_reason() -> None:
    ops = [op("m", "tile_matmul_block", 0, 1), op("r", "tile_reduce", 2, 3, attrs={"dim": "row"})]
    account = accounted(kernel(*ops, dfbs=F32, arch="blackhole")).precision
    assert account is not None
    assert [(a.op, a.kind, a.full_fp32, a.reason) for a in account.accumulation] == [
        ("m", "Matmul", True, "full-fp32 Matmul accumulation in 32-bit DST"),
        ("r", "ReduceRow", False, "the blackhole target has no full-fp32 ReduceRow accumulation"),
    ]
    off = accounted(kernel(*ops, dfbs=F32, matmul_full_fp32=False)).precision
    assert off is not None and off.accumulation[0].reason == "matmul-full-fp32 is off"


def test_exact_turns_lossy_fpu_adds_sharing_a_buffer_into_sfpu_with_unpack_to_dst() -> None:
    ops = [op("a", "tile_add", 0, 1, **SAME), op("b", "tile_mul", 1, 2, **SAME)]
    assert [loss[0] for loss in losses(kernel(*ops, dfbs=F32))] == ["a", "a", "b", "b"]
    exact = kernel(*ops, dfbs=F32, precision="exact")
    plan = accounted(exact).plan
    assert plan is not None
    assert (plan.strategies, plan.unpack_to_dest_fp32) == ({"a": "sfpu", "b": "sfpu"}, [0, 1, 2])
    assert losses(exact) == []


def test_exact_with_an_fpu_only_op_is_a_conflict_naming_the_op_with_its_fix() -> None:
    request = kernel(
        op("a", "tile_add", 0, 1, **SAME), op("t", "tile_transpose", 3), dfbs=F32, precision="exact"
    )
    conflict = refused(request, "kcfg.precision_loss_unavoidable")
    assert (conflict.op, conflict.operand, conflict.where) == ("t", 0, "op")
    assert conflict.message == (
        "'ttl.tile_transpose' op operand 0 reads f32 dataflow buffer 3 only through SrcA/SrcB "
        "(TF32 at most), but precision=exact requires every f32 operand without loss; an SFPU "
        "alternative, bf16 input or another dataflow buffer would make it lossless"
    )
    by_id = {record.id: record.summary for record in conflict.requirements}
    assert [by_id[i] for i in conflict.minimal_conflict] == [
        "precision exact",
        "tile_transpose t operand 0 reads DFB 3 via DataflowBuffer",
    ]
    assert [(c.change, c.resolves) for c in conflict.corrections] == [("set precision to default", True)]


def test_exact_with_an_explicit_fpu_strategy_names_the_add_and_offers_the_sfpu() -> None:
    add = op("a", "tile_add", 0, 1, explicit_strategy="fpu", **SAME)
    conflict = refused(kernel(add, dfbs=F32, precision="exact"), "kcfg.precision_loss_unavoidable")
    assert conflict.op == "a" and "on every strategy left to it" in conflict.message
    assert [(c.change, c.resolves) for c in conflict.corrections] == [
        ("set precision to default", True),
        ("allow SFPU for tile_add a", True),
    ]


def test_exact_overrides_the_fpu_preference_and_explain_says_so() -> None:
    request = kernel(op("a", "tile_add", 0, 1, **SAME), dfbs=F32, precision="exact")
    response = resolve(request.model_copy(update={"explain": True}))
    assert response.explanation is not None
    (strategy,) = [d for d in response.explanation.decisions if d.setting == "strategy"]
    records = {record.id: record.summary for record in response.explanation.requirements}
    assert (strategy.value, strategy.how) == ("sfpu", "forced")
    assert [records[cause] for cause in strategy.causes] == ["precision exact"]


@pytest.mark.parametrize(("field", "value"), [("math_fidelity", "HiFi5"), ("precision", "strict")])
def test_bad_knob_values_are_policy_errors(field: str, value: str) -> None:
    conflict = refused(kernel(op("e", "tile_exp", 0), **{field: value}), "kcfg.policy_option_invalid")
    assert conflict.where == "function" and f"'{value}'" in conflict.message


def test_the_accuracy_knobs_are_forwarded_unchanged_and_echoed_by_the_account() -> None:
    response = accounted(kernel(op("e", "tile_exp", 0), math_fidelity="HiFi3", math_approx_mode=False))
    assert response.plan is not None and response.precision is not None
    assert (response.plan.math_fidelity, response.plan.math_approx_mode) == ("HiFi3", False)
    assert (response.precision.math_fidelity, response.precision.math_approx_mode) == ("HiFi3", False)


MATMUL = op("m", "tile_matmul_block", 0, 1, result="bf16")


@pytest.mark.parametrize(
    ("arch", "fidelity", "dtypes", "expected"),
    [
        ("wormhole_b0", "HiFi4", F32, [("kcfg.math_fidelity_hifi4_fp32_wormhole", "m", "tt-metal#52327")]),
        ("blackhole", "HiFi4", F32, []),  # the fault is Wormhole's
        ("wormhole_b0", "HiFi4", {0: "bf16", 1: "bf16"}, []),  # matmul-full-fp32 off: 16-bit DST
        ("wormhole_b0", "HiFi3", F32, []),
        ("blackhole", "HiFi2", F32, [("kcfg.math_fidelity_hifi2_matmul", "m", "tt-metal#55889")]),
    ],
)
def test_fidelity_combinations_a_source_warns_about(
    arch: str, fidelity: str, dtypes: dict[int, str], expected: list[tuple[str, str, str]]
) -> None:
    policy = {"matmul_full_fp32": False} if dtypes != F32 else {}
    response = resolve(kernel(MATMUL, dfbs=dtypes, arch=arch, math_fidelity=fidelity, **policy))
    found = [(w.code, w.op) for w in response.warnings if w.code.startswith("kcfg.math_fidelity")]
    assert found == [(code, op_id) for code, op_id, _ in expected]
    cited = [w.message for w in response.warnings if w.code.startswith("kcfg.math_fidelity")]
    assert all(source in text for (_, _, source), text in zip(expected, cited, strict=True))


ROUTE_OPS = ("tile_add", "tile_mul", "tile_exp", "copy_tile", "tile_bcast", "tile_transpose", "tile_store")


@given(kernel_requests(max_ops=4, ops=ROUTE_OPS))
def test_exact_resolves_iff_a_lossless_plan_exists_and_its_plan_loses_nothing(
    request: KernelcfgResolveRequest,
) -> None:
    """Against exhaustive enumeration with the oracle's own reading of 4.7."""
    exact = request.model_copy(update={"policy": request.policy.model_copy(update={"precision": "exact"})})
    oracle = enum_oracle(exact)
    assume(oracle is not None)
    assert oracle is not None
    response = resolve(exact.model_copy(update={"report_precision": True}))
    assert response.ok == oracle.satisfiable()
    if response.plan is not None and response.precision is not None:
        assert oracle.losses(oracle.plan_assignment(response.plan)) == []
        assert all(value.lossless for value in response.precision.values)


@given(kernel_requests(max_ops=4, ops=ROUTE_OPS))
def test_every_loss_the_account_names_is_one_by_enumeration_and_avoidable_means_avoidable(
    request: KernelcfgResolveRequest,
) -> None:
    """A reported loss is a lost need of the plan's assignment; `avoidable` holds exactly when some
    satisfying assignment keeps that value lossless."""
    response = resolve(request.model_copy(update={"report_precision": True}))
    assume(response.plan is not None and request.policy.precision == "default")
    oracle = enum_oracle(request)
    assert oracle is not None and response.plan is not None and response.precision is not None
    lost = oracle.losses(oracle.plan_assignment(response.plan))
    reported = [v for v in response.precision.values if not v.lossless]
    assert sorted((n.op, n.operand) for n in lost) == sorted((v.op, v.operand) for v in reported)
    for value in reported:
        keeps = any(
            oracle.satisfies(a)
            and all((n.op, n.operand) != (value.op, value.operand) for n in oracle.losses(a))
            for a in oracle.assignments()
        )
        assert value.avoidable == keeps, value
