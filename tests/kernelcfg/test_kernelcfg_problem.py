"""The resolver's python-constraint problem: the solver honours constraints added to it."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import constraint
import pytest

from planner.kernelcfg.codes import PREFERRED_FP32_UNAVAILABLE, KcfgError
from planner.kernelcfg.problem import DestinationConstraint, DFBConstraint
from planner.kernelcfg.reading import WIDTH_VAR, KernelReading, strategy_var, unpack_var
from planner.kernelcfg.requirements import collect_requirements
from planner.kernelcfg.resolver import kernel_problem, request_target, solve_problem
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.solver import read_problem
from planner.kernelcfg.state import Applier
from planner.targets.tenstorrent import UnpackMode
from tests.kernelcfg.kernel_requests import SAME, kernel, op

ADD_AND_STORE = kernel(op("add", "tile_add", 0, 1, **SAME), op("st", "tile_store", "add", result=None))


def test_the_unconstrained_problem_gives_the_resolvers_plan() -> None:
    plan, warnings = solve_problem(kernel_problem(ADD_AND_STORE))
    assert (plan.strategies, plan.dst_width, plan.unpack_to_dest_fp32, warnings) == (
        {"add": "fpu"},
        32,
        [],
        [],
    )


def test_forbidding_fpu_for_one_op_selects_sfpu_and_unpacks_its_dfbs() -> None:
    kernel_csp = kernel_problem(ADD_AND_STORE)
    kernel_csp.csp.addConstraint(constraint.NotInSetConstraint([Strategy.FPU]), [strategy_var("add")])
    plan, _ = solve_problem(kernel_csp)
    assert (plan.strategies, plan.unpack_to_dest_fp32) == ({"add": "sfpu"}, [0, 1])


def test_pinning_a_dfb_to_unpack_to_dst_rules_out_fpu_reading_it() -> None:
    """FPU reads DFB 0 through the unpacker in default mode, so it cannot serve an unpacked DFB 0."""
    kernel_csp = kernel_problem(ADD_AND_STORE)
    kernel_csp.csp.addConstraint(constraint.InSetConstraint([UnpackMode.UNPACK_TO_DEST]), [unpack_var(0)])
    plan, _ = solve_problem(kernel_csp)
    assert (plan.strategies, plan.unpack_to_dest_fp32) == ({"add": "sfpu"}, [0, 1])


def test_forbidding_32_bits_keeps_16_and_warns_the_preferring_matmul() -> None:
    matmul = kernel(op("m", "tile_matmul_block", 0, 1, result="bf16"), dfbs={0: "bf16", 1: "bf16"})
    assert solve_problem(kernel_problem(matmul))[0].dst_width == 32
    kernel_csp = kernel_problem(matmul)
    kernel_csp.csp.addConstraint(constraint.InSetConstraint([16]), [WIDTH_VAR])
    plan, warnings = solve_problem(kernel_csp)
    assert plan.dst_width == 16
    assert [(w.code, w.op) for w in warnings] == [(PREFERRED_FP32_UNAVAILABLE, "m")]


def test_forbidding_the_only_width_an_op_allows_is_its_conflict() -> None:
    """An f32 store needs 32-bit DST; with 16 bits only, the store is the typed conflict."""
    kernel_csp = kernel_problem(ADD_AND_STORE)
    kernel_csp.csp.addConstraint(constraint.InSetConstraint([16]), [WIDTH_VAR])
    with pytest.raises(KcfgError) as refused:
        solve_problem(kernel_csp)
    assert (refused.value.code, refused.value.op) == ("kcfg.dst_width_conflict", "st")


def test_a_constraint_over_several_variables_is_refused_not_ignored() -> None:
    kernel_csp = kernel_problem(ADD_AND_STORE)
    kernel_csp.csp.addConstraint(lambda width, mode: True, [WIDTH_VAR, unpack_var(0)])
    with pytest.raises(ValueError, match="one variable only"):
        solve_problem(kernel_csp)


class _Reader(constraint.Solver):  # type: ignore[misc]
    """Keeps what `KernelSolver` would read from a prepared problem, and solves nothing."""

    reading: KernelReading

    def getSolution(
        self, domains: dict[Hashable, Any], constraints: list[tuple[Any, Any]], vconstraints: Any
    ) -> None:
        self.reading = read_problem(domains, constraints)


def test_the_problem_states_fixed_uses_in_bulk_and_gives_them_back_in_collection_order() -> None:
    request = kernel(
        op("e1", "tile_exp", 1),
        op("c0", "copy_tile", 0),
        op("e0", "tile_exp", 0),
        op("c1", "copy_tile", 1),
        op("st", "tile_store", "e0", result=None),
    )
    kernel_csp = kernel_problem(request)
    reader = _Reader()
    kernel_csp.csp.setSolver(reader)
    kernel_csp.csp.getSolution()
    constraints = [item for item, _ in kernel_csp.csp._constraints]
    assert sum(isinstance(item, DestinationConstraint) for item in constraints) == 1
    assert sorted(item.uses[0].dfb for item in constraints if isinstance(item, DFBConstraint)) == [0, 1]
    fixed = collect_requirements(request).fixed
    assert [(use.op, use.dfb) for use in fixed.dfb] == [("e1", 1), ("c0", 0), ("e0", 0), ("c1", 1)]
    assert reader.reading.fixed == fixed


def test_batches_of_one_shape_share_a_fold_and_each_names_its_own_dfbs() -> None:
    adds = (op("a", "tile_add", 0, 1, **SAME), op("b", "tile_add", 2, 3, **SAME))
    requirements = collect_requirements(kernel(*adds, dfbs=dict.fromkeys(range(4), "f32")))
    applier = Applier(request_target(kernel()), None)
    first, second = (applier.summarize(choice.options[0].uses) for choice in requirements.choices)
    assert first.demands is second.demands
    assert {dfb for demand in first.by_width.values() for dfb, _ in demand} == {0, 1}
    assert {dfb for demand in second.by_width.values() for dfb, _ in demand} == {2, 3}
