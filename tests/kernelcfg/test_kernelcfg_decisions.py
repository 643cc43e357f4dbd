"""Decision explanations: every cause exists, and removing or flipping a decision's causes changes it."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import assume, given

from planner.kernelcfg import resolve
from planner.kernelcfg.counterfactual import explained_kernel, undecided
from planner.kernelcfg.decisions import explain_plan
from planner.kernelcfg.protocol import Decision, KernelcfgResolveRequest
from planner.kernelcfg.requirements import KernelRequirements
from planner.kernelcfg.resolver import Resolution, resolve_with
from planner.testing.oracles.kernel_enum import EnumOracle, enum_oracle
from planner.testing.strategies.kernels import kernel_requests


def _reads(requirements: KernelRequirements, strategies: dict[str, str], dfb: int) -> bool:
    """Whether DFB `dfb` is read by a fixed op or by a choice op's chosen strategy."""
    uses = list(requirements.fixed.dfb)
    for choice in requirements.choices:
        uses += [
            u for o in choice.options if o.strategy.value == strategies.get(choice.op) for u in o.uses.dfb
        ]
    return any(use.dfb == dfb for use in uses)


def _value(resolution: Resolution, decision: Decision) -> str | None:
    """The counterfactual resolution's value for the decided setting (None: nothing left to decide)."""
    plan = resolution.plan
    assert plan is not None, resolution.error
    if decision.setting == "strategy":
        assert decision.subject is not None
        return plan.strategies.get(decision.subject)
    if decision.setting == "dst_width":
        return str(plan.dst_width)
    if decision.setting == "dst_sync":
        return plan.dst_sync
    assert decision.subject is not None and resolution.requirements is not None
    dfb = int(decision.subject)
    if not _reads(resolution.requirements, dict(plan.strategies), dfb):
        return None
    return "unpack_to_dest" if dfb in plan.unpack_to_dest_fp32 else "default"


def _alternative_exists(oracle: EnumOracle, strategies: Mapping[str, str], decision: Decision) -> bool:
    """Whether some assignment meets every requirement with this decision's other value (others held)."""
    if decision.setting == "strategy":
        assert decision.subject is not None
        other = "sfpu" if decision.value == "fpu" else "fpu"
        return any(oracle.satisfies(a) for a in oracle.assignments({**strategies, decision.subject: other}))
    if decision.setting == "dst_width":
        other_width = 16 if decision.value == "32" else 32
        return any(oracle.satisfies(a) for a in oracle.assignments(strategies) if a.width == other_width)
    return True


@given(kernel_requests())
def test_every_decision_s_causes_exist_and_decide_it(request: KernelcfgResolveRequest) -> None:
    resolution = resolve_with(request)
    assume(resolution.plan is not None)
    explanation = explain_plan(request, resolution)
    ids = {record.id for record in explanation.requirements}
    names = {preference.name for preference in explanation.preferences}
    assert len(ids) == len(explanation.requirements)
    cited = {cause for decision in explanation.decisions for cause in decision.causes}
    assert cited <= ids | names and names <= cited
    kernel = explained_kernel(request, resolution)
    for decision in explanation.decisions:
        assert decision.causes, decision
        assert _value(undecided(kernel, decision), decision) != decision.value, decision


@given(kernel_requests())
def test_forced_means_the_other_value_meets_no_assignment(request: KernelcfgResolveRequest) -> None:
    """The independent enumeration: forced strategies and widths have no alternative, preferred ones do."""
    resolution = resolve_with(request)
    assume(resolution.plan is not None)
    assert resolution.plan is not None
    oracle = enum_oracle(request)
    assert oracle is not None
    strategies = dict(resolution.plan.strategies)
    for decision in explain_plan(request, resolution).decisions:
        if decision.setting in ("strategy", "dst_width"):
            assert _alternative_exists(oracle, strategies, decision) == (decision.how == "preferred"), (
                decision
            )


def test_the_flag_adds_the_explanation_to_a_resolved_plan_only() -> None:
    add = {"id": "add0", "op": "tile_add", "operands": [{"dfb": 0}, {"dfb": 1}], "same_tile_coords": True}
    params = {"dfbs": [{"index": 0, "dtype": "f32"}, {"index": 1, "dtype": "f32"}], "ops": [add]}
    assert resolve(KernelcfgResolveRequest.model_validate(params)).explanation is None
    response = resolve(KernelcfgResolveRequest.model_validate({**params, "explain": True}))
    assert response.explanation is not None
    decided = [(d.setting, d.subject, d.value, d.how, d.causes) for d in response.explanation.decisions]
    assert decided == [
        ("strategy", "add0", "fpu", "preferred", ["fpu_before_sfpu"]),
        ("dst_width", None, "32", "forced", ["r1"]),
        ("unpack", "0", "default", "forced", ["r1"]),
        ("unpack", "1", "default", "forced", ["r1"]),
        ("dst_sync", None, "double_buffered", "preferred", ["double_buffered_sync"]),
    ]
