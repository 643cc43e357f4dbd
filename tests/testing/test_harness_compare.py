"""Semantic comparison: coordinates by value with wraparound, verdicts by evidence, refusals by code."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs import check
from planner.proofs.concrete import admitted, wrap
from planner.proofs.dtype import IR_READING
from planner.proofs.expr import format_expr, parse_expr
from planner.proofs.protocol import AssignBinding, ForBinding, ProofsCheckRequest, SpmdBinding
from planner.proofs.scope import make_scope
from planner.testing.boundary import boundary_assignments, edges
from planner.testing.compare_kernelcfg import compare_kernelcfg
from planner.testing.compare_layout import compare_layout
from planner.testing.compare_proofs import compare_proofs
from planner.testing.equivalence import Context, admissible_assignments, first_difference
from planner.testing.oracles import OracleLimitExceeded, assignments, evaluate
from planner.testing.strategies import binding_lists, proof_requests
from planner.testing.strategies.expressions import expressions
from tests.support.layout_json import load, tensor

WRAPPING = Context(
    [ForBinding(name="nb", start=1 << 24, stop=(1 << 24) + 4), AssignBinding(name="n0", expr="nb * 256")], 32
)
BOUNDED = Context([SpmdBinding(name="nb", extent=4), AssignBinding(name="n0", expr="nb * 256")], 32)


def test_a_reassociated_coordinate_differs_where_the_product_wraps() -> None:
    difference = first_difference("n0 // 16", "nb * 16", WRAPPING)
    assert difference is not None
    assert difference.assignment == {"n0": 0, "nb": 1 << 24}
    assert (difference.left, difference.right) == (0, 1 << 28)


def test_a_reassociated_coordinate_agrees_where_nothing_wraps() -> None:
    assert first_difference("n0 // 16", "nb * 16", BOUNDED) is None


def test_spelling_does_not_matter_and_a_wrong_constant_does() -> None:
    assert first_difference("n0 // 16", "(n0) // 16", WRAPPING) is None
    assert first_difference(4, "2 * 2", BOUNDED) is None
    difference = first_difference("n0 // 16", "n0 // 32", BOUNDED)
    assert difference is not None and difference.assignment["n0"] != 0


def test_a_coordinate_outside_the_grammar_differs_everywhere() -> None:
    difference = first_difference("n0 // 16", "n0 >> 4", BOUNDED)
    assert difference is not None and difference.unreadable
    assert "not both expressions" in difference.describe("'n0 // 16'", "'n0 >> 4'")


@given(binding_lists(8, max_size=3), st.data())
def test_boundary_assignments_are_admissible(bindings: list[Any], data: st.DataObject) -> None:
    scope = make_scope(bindings, 8, None)
    sampled = list(boundary_assignments(bindings, index_bits=8))
    for env in sampled:
        assert admitted(env, scope, IR_READING)
    try:
        every = list(assignments(bindings, index_bits=8, limit=50_000))
    except OracleLimitExceeded:
        return
    assert all(env in every for env in sampled)


@given(st.integers(-(1 << 31), 1 << 31), st.integers(0, 40), st.integers(1, 5))
def test_edges_keep_short_ranges_whole_and_the_ends_of_long_ones(start: int, length: int, step: int) -> None:
    values = range(start, start + length * step, step)
    picked = edges(values)
    if length <= 8:
        assert picked == tuple(values)
    else:
        assert (picked[0], picked[1], picked[-2], picked[-1]) == (
            values[0],
            values[1],
            values[-2],
            values[-1],
        )


@given(binding_lists(8, max_size=2), st.data())
def test_an_expression_equals_its_printed_form_and_differs_from_its_successor(
    bindings: list[Any], data: st.DataObject
) -> None:
    names = [b.name for b in bindings]
    text = data.draw(expressions(names, bits=8, max_leaves=4))
    context = Context(bindings, 8)
    assert first_difference(text, format_expr(parse_expr(text)), context) is None
    defined = [
        evaluate(parse_expr(text), env, 8, context.widths, unsigned=context.unsigned)
        for env in admissible_assignments(context, names)
    ]
    difference = first_difference(text, f"({text}) + 1", context)
    assert (difference is not None) == any(value is not None for value in defined)


def _proofs(request: ProofsCheckRequest) -> dict[str, Any]:
    return check(request).model_dump(mode="json")


@given(proof_requests())
def test_flipping_a_decided_verdict_is_a_disagreement(request: ProofsCheckRequest) -> None:
    planned = _proofs(request)
    flipped = {"proven": "refuted", "refuted": "proven", "unknown": "unknown"}
    answered = {"results": [{**r, "status": flipped[r["status"]]} for r in planned["results"]]}
    decided = [r["goal"] for r in planned["results"] if r["status"] != "unknown"]
    assert compare_proofs(request, planned, planned) == []
    assert [d.where for d in compare_proofs(request, planned, answered)] == [f"results[{g}]" for g in decided]


def test_a_refutation_must_carry_a_counterexample_that_breaks_the_goal() -> None:
    request = ProofsCheckRequest(
        expr="nb * 8", bindings=[SpmdBinding(name="nb", extent=4)], goals=["multiple_of"]
    )
    planned = _proofs(request)
    assert planned["results"][0]["status"] == "refuted"
    bogus = {"results": [{"goal": "multiple_of", "status": "refuted", "counterexample": {"nb": 2}}]}
    inadmissible = {"results": [{"goal": "multiple_of", "status": "refuted", "counterexample": {"nb": 5}}]}
    genuine = {"results": [{"goal": "multiple_of", "status": "refuted", "counterexample": {"nb": 3}}]}
    assert "does not break the goal" in compare_proofs(request, planned, bogus)[0].message
    assert len(compare_proofs(request, planned, inadmissible)) == 1
    assert compare_proofs(request, planned, genuine) == []


def test_an_unknown_answer_where_the_planner_decides_is_a_disagreement() -> None:
    request = ProofsCheckRequest(expr="nb * 256", bindings=[SpmdBinding(name="nb", extent=4)])
    planned = _proofs(request)
    unknown = {"results": [{"goal": r["goal"], "status": "unknown"} for r in planned["results"]]}
    assert len(compare_proofs(request, planned, unknown)) == 2


LOAD = {
    "target": "a2a3",
    "tensors": [tensor(shape=[512, 512])],
    "bindings": [
        {"name": "nb", "kind": "spmd", "extent": 2},
        {"name": "n0", "kind": "assign", "expr": "nb * 256"},
    ],
    "ops": [load(["n0", 0], [256, 512])],
}


def _layout(payload: dict[str, Any]) -> tuple[LayoutPlanRequest, dict[str, Any]]:
    request = LayoutPlanRequest.model_validate(payload)
    return request, plan(request).model_dump(mode="json")


def test_layout_acceptance_refusal_codes_and_shapes_are_compared() -> None:
    request, planned = _layout(LOAD)
    assert planned["ok"] is True
    assert compare_layout(request, planned, planned) == []
    refused = {"ok": False, "diagnostics": [{"code": "nz.offset_unprovable_sign", "message": "no"}]}
    assert [d.where for d in compare_layout(request, planned, refused)] == ["ok"]
    wrong_shape = {**planned, "tensors": [{**planned["tensors"][0], "shape": [1, 16, 32, 16, 16]}]}
    assert [d.where for d in compare_layout(request, planned, wrong_shape)] == ["tensors[w].shape[4]"]
    assert [d.where for d in compare_layout(request, planned, {"ok": "maybe"})] == ["response"]


def test_layout_refusals_agree_only_on_the_same_code() -> None:
    request, planned = _layout({**LOAD, "ops": [load(["n0", 0], [256, 512], target_memory="Vec")]})
    code = planned["diagnostics"][0]["code"]
    assert code == "nz.load_target_not_mat"
    same = {"ok": False, "diagnostics": [{"code": code, "message": "any wording"}]}
    other = {"ok": False, "diagnostics": [{"code": "nz.unsupported_consumer", "message": "x"}]}
    assert compare_layout(request, planned, same) == []
    assert [d.where for d in compare_layout(request, planned, other)] == ["diagnostics[0].code"]


SHARED_DFB = {
    "dfbs": [{"index": 0, "dtype": "f32"}],
    "ops": [
        {"id": "e", "op": "tile_exp", "operands": [{"dfb": 0}], "result_dtype": "f32"},
        {
            "id": "a",
            "op": "tile_add",
            "operands": [{"dfb": 0}, {"dfb": 0}],
            "result_dtype": "f32",
            "same_tile_coords": True,
        },
    ],
}


def test_a_different_plan_is_refereed_by_the_enumeration_oracle() -> None:
    request = KernelcfgResolveRequest.model_validate(SHARED_DFB)
    planned = resolve(request).model_dump(mode="json")
    assert planned["plan"]["strategies"] == {"a": "sfpu"}
    fpu = {**planned, "plan": {**planned["plan"], "strategies": {"a": "fpu"}}}
    found = compare_kernelcfg(request, planned, fpu)
    assert [d.where for d in found] == ["plan.strategies", "oracle"]
    assert found[1].message.endswith("the implementation's plan violates one")
    assert compare_kernelcfg(request, planned, planned) == []


def test_names_read_but_never_bound_take_the_edges_of_the_index_width() -> None:
    bindings = [AssignBinding(name="n0", expr="u * 16")]
    sampled = list(boundary_assignments(bindings, index_bits=32))
    assert [env["u"] for env in sampled] == [-(1 << 31), -(1 << 31) + 1, 0, (1 << 31) - 2, (1 << 31) - 1]
    assert all(env["n0"] == wrap(env["u"] * 16, 32) for env in sampled)
