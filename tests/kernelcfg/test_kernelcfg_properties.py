"""Oracle-backed properties of the resolver on small random kernels."""

from __future__ import annotations

import constraint
import pytest
from hypothesis import HealthCheck, assume, given, settings

from planner.kernelcfg import resolve
from planner.kernelcfg.api import resolve_on
from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.corrections import suggestions
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.reading import SYNC_VAR, WIDTH_VAR, strategies_of, unpack_var
from planner.kernelcfg.records import Requirement, build_records, satisfiable, strip_explicit
from planner.kernelcfg.requirements import collect_requirements
from planner.kernelcfg.resolver import kernel_problem, resolve_with
from planner.targets.tenstorrent import UnpackMode
from planner.testing.literal_search import literal_resolve
from planner.testing.oracles.kernel_enum import Assignment, enum_oracle, refusal
from planner.testing.strategies.kernels import conflicting_kernel_requests, kernel_requests
from tests.support.hypothesis_budget import lowered


@given(kernel_requests())
def test_resolves_exactly_when_an_assignment_exists(request: KernelcfgResolveRequest) -> None:
    oracle = enum_oracle(request)
    assume(oracle is not None)
    assert oracle is not None
    response = resolve(request)
    assert response.ok == oracle.satisfiable()


@given(kernel_requests())
def test_every_plan_meets_every_requirement(request: KernelcfgResolveRequest) -> None:
    response = resolve(request)
    assume(response.ok)
    oracle = enum_oracle(request)
    assert oracle is not None and response.plan is not None
    assert oracle.plan_satisfies(response.plan)


@given(kernel_requests())
def test_width_unpack_and_sync_follow_steps_7_to_9_for_the_chosen_strategies(
    request: KernelcfgResolveRequest,
) -> None:
    response = resolve(request)
    assume(response.ok)
    oracle = enum_oracle(request)
    assert oracle is not None and response.plan is not None
    plan = response.plan
    assert oracle.settled(plan.strategies) == (plan.dst_width, plan.unpack_to_dest_fp32, plan.dst_sync)


@settings(suppress_health_check=[HealthCheck.filter_too_much])  # about one drawn kernel in six is refused
@given(kernel_requests())
def test_refusals_before_the_search_match_the_oracle(request: KernelcfgResolveRequest) -> None:
    expected = refusal(request)
    assume(expected is not None)
    assert expected is not None
    response = resolve(request)
    assert not response.ok and response.conflict is not None
    conflict = response.conflict
    assert (conflict.code, conflict.op, conflict.operand) == (expected.code, expected.op, expected.operand)


@given(kernel_requests(max_ops=6))
def test_csp_path_agrees_with_the_literal_algorithm(request: KernelcfgResolveRequest) -> None:
    response = resolve(request)
    literal = literal_resolve(request)
    if literal.error is None:
        assert response.ok and response.plan is not None
        assert response.plan.model_dump() == literal.plan
        assert [w.model_dump() for w in response.warnings] == literal.warnings
        return
    assert not response.ok and response.conflict is not None
    conflict, error = response.conflict, literal.error
    assert (conflict.code, conflict.message, conflict.where, conflict.op, conflict.operand) == (
        error.code,
        error.message,
        error.where,
        error.op,
        error.operand,
    )
    expected_note = None if error.note is None else (error.note.op, error.note.operand, error.note.message)
    actual_note = (
        None if conflict.note is None else (conflict.note.op, conflict.note.operand, conflict.note.message)
    )
    assert actual_note == expected_note


@settings(max_examples=lowered(60))
@given(kernel_requests(max_ops=5))
def test_minimal_conflicts_are_minimal_and_corrections_resolve(request: KernelcfgResolveRequest) -> None:
    response = resolve(request)
    assume(not response.ok and response.conflict is not None and response.conflict.minimal_conflict)
    assert response.conflict is not None
    resolution = resolve_with(request)
    assert resolution.policy is not None and resolution.target is not None
    items = build_records(resolution, collect_requirements(strip_explicit(request)))
    assert [item.record for item in items] == response.conflict.requirements
    explicit = frozenset(resolution.policy.unpack_to_dest_fp32 or ())

    def consistent(subset: list[Requirement]) -> bool:
        return satisfiable(subset, resolution.target, explicit)  # type: ignore[arg-type]

    whole = enum_oracle(request)
    assert whole is not None and not whole.satisfiable()
    assert not consistent(items)  # the records state the whole kernel
    by_id = {item.record.id: item for item in items}
    minimal = [by_id[i] for i in response.conflict.minimal_conflict]
    assert not consistent(minimal)
    for dropped in range(len(minimal)):
        assert consistent(minimal[:dropped] + minimal[dropped + 1 :])
    offered = suggestions(request, resolution.target, minimal)
    assert [c.change for c in response.conflict.corrections] == [s.change for s in offered]
    for suggestion, correction in zip(offered, response.conflict.corrections, strict=True):
        corrected = suggestion.edit(request)
        if suggestion.collected is not None:  # the shortcut the check takes collects the same
            assert suggestion.collected(collect_requirements(request)) == collect_requirements(corrected)
        oracle = enum_oracle(corrected)
        assert correction.resolves == (oracle is not None and oracle.satisfiable())
        assert correction.resolves == resolve(corrected).ok


@given(conflicting_kernel_requests())
def test_structural_corrections_match_the_oracle(
    request: KernelcfgResolveRequest,
) -> None:
    """Planted unpack and broadcast-width conflicts: the DFB splits and widened broadcasts are checked too."""
    test_minimal_conflicts_are_minimal_and_corrections_resolve.hypothesis.inner_test(request)  # type: ignore[attr-defined]


@given(kernel_requests())
def test_output_is_deterministic(request: KernelcfgResolveRequest) -> None:
    first = resolve(request).model_dump_json()
    again = resolve(KernelcfgResolveRequest.model_validate_json(request.model_dump_json()))
    assert again.model_dump_json() == first
    assert resolve_on(request, None).model_dump_json() == first


@pytest.mark.slow
@given(kernel_requests(max_ops=12, max_dfbs=4))
def test_csp_path_agrees_with_the_literal_algorithm_on_larger_kernels(
    request: KernelcfgResolveRequest,
) -> None:
    test_csp_path_agrees_with_the_literal_algorithm.hypothesis.inner_test(request)  # type: ignore[attr-defined]


@settings(max_examples=lowered(50))
@given(kernel_requests(max_ops=5, ops=("tile_add", "tile_mul", "tile_exp", "tile_bcast", "copy_tile")))
def test_generic_solvers_on_the_kernel_problem_agree_with_the_kernel_solver(
    request: KernelcfgResolveRequest,
) -> None:
    """python-constraint's own solvers, on the resolver's problem, find a solution exactly when it does,
    and each solution they find meets every requirement (the enumeration oracle)."""
    try:
        kernel = kernel_problem(request)
    except KcfgError:
        assume(False)
        return
    oracle = enum_oracle(request)
    assert oracle is not None
    ours = kernel.csp.getSolution()
    for solver in (constraint.BacktrackingSolver(), constraint.OptimizedBacktrackingSolver()):
        kernel.csp.setSolver(solver)
        generic = kernel.csp.getSolution()
        assert (generic is None) == (ours is None)
        if generic is not None:
            modes = {dfb: generic.get(unpack_var(dfb), UnpackMode.DEFAULT) for dfb in oracle.f32_dfbs}
            strategies = {op: s.value for op, s in strategies_of(generic).items()}
            assert oracle.satisfies(Assignment(strategies, generic[WIDTH_VAR], modes, generic[SYNC_VAR]))
