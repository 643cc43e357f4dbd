"""The range/residue fast path: never proves a false claim, and covers the bounded baseline."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.proofs.abstract import AbstractProver
from planner.proofs.dtype import DivisionSemantics, readings
from planner.proofs.expr import parse_expr
from planner.proofs.protocol import (
    AssignBinding,
    Binding,
    BlockIdxBinding,
    ForBinding,
    IterArgBinding,
    ParamBinding,
    ProofsCheckRequest,
    SpmdBinding,
)
from planner.proofs.scope import make_scope
from planner.testing.oracles.arith import oracle_check, oracle_window
from planner.testing.strategies.expressions import proof_requests


def proves(
    bindings: Sequence[Binding],
    expr: str,
    goal: str,
    factor: int = 16,
    *,
    target: str | None = None,
    bits: int = 64,
    division: DivisionSemantics = "floor",
) -> bool:
    scope = make_scope(bindings, bits, target)
    return AbstractProver(scope, readings(division)).proves(parse_expr(expr), goal, factor)


SPMD = [SpmdBinding(name="nb", extent=2), AssignBinding(name="n0", expr="nb * 256")]
PIPELINE = [ForBinding(name="k0", start=512, stop=1024, step=512)]
BLOCK = [BlockIdxBinding(name="blk")]


@pytest.mark.parametrize(
    ("bindings", "expr", "goal", "factor", "target"),
    [
        (SPMD, "n0", "multiple_of", 16, None),
        (SPMD, "n0", "non_negative", 16, None),
        (PIPELINE, "k0", "multiple_of", 32, None),
        (PIPELINE, "k0", "non_negative", 32, None),
        (BLOCK, "(blk % 2) * 512", "multiple_of", 16, "a2a3"),
        (BLOCK, "(blk % 2) * 512", "non_negative", 16, "a2a3"),
        (BLOCK, "(blk // 2) * 128", "non_negative", 16, "a2a3"),
        (BLOCK, "((blk - 1) % 2) * 512", "non_negative", 16, "a2a3"),
        (
            [ForBinding(name="o0", start=0, stop=800, step=256)],
            "min(800 - o0, 256)",
            "non_negative",
            16,
            None,
        ),
        (
            [*SPMD, ForBinding(name="o0", start=0, stop=800, step=256)],
            "min(800 - o0, 256)",
            "multiple_of",
            16,
            None,
        ),
        ([SpmdBinding(name="nb", extent=4)], "nb * 256 - 256 + 256", "non_negative", 16, None),
    ],
)
def test_proves_the_bounded_baseline_without_a_solver(
    bindings: list[Binding], expr: str, goal: str, factor: int, target: str | None
) -> None:
    assert proves(bindings, expr, goal, factor, target=target)


@pytest.mark.parametrize(
    ("bindings", "expr", "goal", "factor", "target"),
    [
        (
            [SpmdBinding(name="nb", extent=2), AssignBinding(name="n0", expr="nb * 8")],
            "n0",
            "multiple_of",
            16,
            None,
        ),
        ([SpmdBinding(name="nb", extent=2)], "nb * 256 - 256", "non_negative", 16, None),
        ([ForBinding(name="k0", start=0, stop=32, step=16)], "k0", "multiple_of", 32, None),
        (BLOCK, "blk * 256", "non_negative", 16, None),  # no target: the lane index is unbounded
        ([IterArgBinding(name="acc")], "acc * 16", "non_negative", 16, None),
        ([ParamBinding(name="d", min=-1, max=1)], "64 // d", "multiple_of", 16, None),  # may divide by zero
        ([ForBinding(name="o0", start=0, stop=800, step=256)], "min(800 - o0, 250)", "multiple_of", 16, None),
    ],
)
def test_leaves_everything_else_to_the_solver(
    bindings: list[Binding], expr: str, goal: str, factor: int, target: str | None
) -> None:
    assert not proves(bindings, expr, goal, factor, target=target)


def test_a_wrapping_product_is_not_proven_non_negative_but_stays_aligned() -> None:
    lanes = [ParamBinding(name="x", min=0, max=1 << 24, bits=32)]
    assert not proves(lanes, "x * 256", "non_negative", bits=32)
    assert proves(lanes, "x * 256", "multiple_of", 16, bits=32)


def test_typed_nodes_wrap_at_their_own_width() -> None:
    int32: list[Binding] = [
        ParamBinding(name="m", bits=32, min=0, max=1),
        AssignBinding(name="s", bits=32, expr=65536),
    ]
    assert not proves(int32, "m * s * s", "non_negative")  # INT32 * INT32 may wrap
    assert proves(int32, "m * 65536 * 65536", "non_negative")  # the literal makes it INDEX
    unsigned = [AssignBinding(name="u", bits=8, signed=False, expr=240)]
    assert not proves(unsigned, "u", "non_negative")  # sign-extended by an index_cast it is -16
    assert not proves(unsigned, "0 - u", "non_negative")  # zero-extended: -240
    assert proves([AssignBinding(name="x", bits=8, expr=300)], "x - 44", "non_negative")  # the cast keeps 44


def test_either_division_proves_only_what_both_roundings_give() -> None:
    lanes = [SpmdBinding(name="nb", extent=2)]
    assert proves(lanes, "((nb - 1) % 2) * 256", "non_negative", division="floor")
    assert not proves(lanes, "((nb - 1) % 2) * 256", "non_negative", division="either")
    assert not proves(lanes, "((nb - 1) % 2) * 256", "non_negative", division="trunc")
    assert proves(lanes, "(nb % 2) * 256", "non_negative", division="either")  # a non-negative dividend
    assert proves(lanes, "((nb - 1) % 2) * 256", "multiple_of", 16, division="either")


@given(proof_requests())
def test_never_proves_what_exhaustion_refutes(request: ProofsCheckRequest) -> None:
    scope = make_scope(request.bindings, request.bits, request.target)
    prover = AbstractProver(scope, readings(request.division))
    tree = parse_expr(request.expr)
    for goal in request.goals:
        if prover.proves(tree, goal, request.factor):
            outcome = oracle_check(request, goal)
            assert outcome.holds, (goal, outcome.counterexample)


def proves_window(bindings: Sequence[Binding], offset: str, extent: int, bound: int, bits: int = 64) -> bool:
    prover = AbstractProver(make_scope(bindings, bits, None), readings("floor"))
    return prover.proves_window(parse_expr(offset), parse_expr(str(extent)), bound)


def test_a_loop_variable_ends_at_its_last_step_not_before_stop() -> None:
    loop = [ForBinding(name="k0", start=512, stop=2048, step=512)]  # k0 is 512, 1024 or 1536
    assert proves_window(loop, "k0", 512, 2048)
    assert not proves_window(loop, "k0", 513, 2048)


@given(
    st.integers(-64, 64), st.integers(-64, 64), st.sampled_from([1, 2, 4, 8, 16, 32]), st.integers(-64, 80)
)
def test_loop_windows_it_proves_hold_under_exhaustion(start: int, stop: int, step: int, end: int) -> None:
    loop = [ForBinding(name="i", start=start, stop=stop, step=step)]
    if proves_window(loop, "i", 8, end, bits=16):
        outcome = oracle_window(loop, "i", 8, end, index_bits=16)
        assert outcome.holds, outcome.counterexample
