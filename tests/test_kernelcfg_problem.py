"""The resolver's python-constraint problem: the solver honours constraints added to it."""

from __future__ import annotations

import constraint
import pytest

from planner.kernelcfg.codes import PREFERRED_FP32_UNAVAILABLE, KcfgError
from planner.kernelcfg.problem import WIDTH_VAR, strategy_var, unpack_var
from planner.kernelcfg.resolver import kernel_problem, solve_problem
from planner.kernelcfg.semantics import Strategy
from planner.targets.tenstorrent import UnpackMode
from tests.test_kernelcfg_outcomes import SAME, kernel, op

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
