"""Oracle-backed properties of the resolver on small random kernels."""

from __future__ import annotations

import constraint
import pytest
from hypothesis import assume, given, settings
from hypothesis_budget import lowered

from planner.kernelcfg import resolve
from planner.kernelcfg.api import resolve_on
from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.csp import KernelSolver, build_problem
from planner.kernelcfg.explain import Requirement, build_records, satisfiable, strip_explicit, suggestions
from planner.kernelcfg.policy import normalize_policy
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.requirements import collect_requirements
from planner.kernelcfg.resolver import request_target, resolve_with, search_model
from planner.testing.oracles.kernel_enum import enum_oracle
from planner.testing.oracles.kernel_literal import literal_resolve
from planner.testing.strategies.kernels import conflicting_kernel_requests, kernel_requests


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
def test_a_generic_solver_on_the_csp_model_agrees_with_the_kernel_solver(
    request: KernelcfgResolveRequest,
) -> None:
    """The relational `OptionConstraint` model states the same problem `KernelSolver` solves."""
    try:
        target = request_target(request)
        model = search_model(target, normalize_policy(request.policy, target), collect_requirements(request))
    except KcfgError:
        assume(False)
        return
    generic = build_problem(model, constraint.BacktrackingSolver()).getSolution()
    ours = KernelSolver().search(model)
    assert (generic is not None) == ours.ok
