"""Provers sharing verdicts (`planner.proofs.shared`) answer exactly as provers alone do.

Several provers over one binding list each decide a drawn sequence of obligations from one
pool, so sequences share prefixes and then part. Inside `shared_verdicts()` a prover reads a
verdict off the tree while its history matches one decided before, and builds its solver and
replays its history where it does not: every verdict, counterexample and reading included,
must be the one a prover alone gives for the same sequence. A solver deciding one obligation
after others (push/pop) keeps none of their assertions: its statuses are a fresh prover's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner import budget
from planner.proofs import Prover
from planner.proofs.dtype import DivisionSemantics
from planner.proofs.protocol import Binding, ProofsCheckRequest
from planner.proofs.prover import GoalName, Verdict
from planner.proofs.shared import shared_verdicts
from planner.testing.strategies.expressions import FACTORS, binding_lists, expressions
from tests.support.hypothesis_budget import lowered

DIVISIONS: tuple[DivisionSemantics, ...] = ("floor", "trunc", "either")
GOALS: tuple[GoalName, ...] = ("multiple_of", "non_negative")


@dataclass(frozen=True)
class Goal:
    expr: int | str
    goal: GoalName
    factor: int
    division: DivisionSemantics

    def decide(self, prover: Prover) -> Verdict:
        return prover.check(self.expr, self.goal, self.factor, self.division)


@dataclass(frozen=True)
class Window:
    offset: int | str
    extent: int | str
    bound: int
    division: DivisionSemantics

    def decide(self, prover: Prover) -> Verdict:
        return prover.check_window(self.offset, self.extent, self.bound, self.division)


Obligation = Goal | Window


@dataclass(frozen=True)
class Run:
    bindings: list[Binding]
    bits: int
    target: str | None
    pool: list[Obligation]
    sequences: list[list[int]]  # per prover, the pool's obligations in the order it poses them

    def prover(self, *, abstract: bool) -> Prover:
        return Prover(self.bindings, index_bits=self.bits, target=self.target, abstract=abstract)


@st.composite
def runs(draw: st.DrawFn) -> Run:
    bits = draw(st.sampled_from((8, 16)))
    target = draw(st.sampled_from((None, "a2a3")))
    bindings = draw(binding_lists(bits, max_size=3, target=target, exhaustive=False))
    names = [binding.name for binding in bindings]
    offsets = expressions(names, bits=bits, max_leaves=4)
    goals = st.builds(
        Goal, offsets, st.sampled_from(GOALS), st.sampled_from(FACTORS), st.sampled_from(DIVISIONS)
    )
    windows = st.builds(
        Window, offsets, offsets, st.integers(0, (1 << (bits - 1)) - 1), st.sampled_from(DIVISIONS)
    )
    pool = draw(st.lists(st.one_of(goals, windows), min_size=1, max_size=4))
    indices = st.integers(0, len(pool) - 1)
    sequences = draw(st.lists(st.lists(indices, min_size=1, max_size=5), min_size=2, max_size=4))
    return Run(bindings, bits, target, pool, sequences)


def _alone(run: Run, *, abstract: bool) -> list[list[Verdict]]:
    """Each sequence decided by a prover of its own, nothing shared."""
    verdicts = []
    for sequence in run.sequences:
        prover = run.prover(abstract=abstract)
        verdicts.append([run.pool[index].decide(prover) for index in sequence])
    return verdicts


@pytest.mark.parametrize("abstract", [False, True], ids=["solver-only", "domains-first"])
@settings(max_examples=lowered(40), deadline=None)
@given(run=runs())
def test_sharing_provers_give_the_verdicts_of_provers_alone(run: Run, abstract: bool) -> None:
    with shared_verdicts():
        shared = _alone(run, abstract=abstract)
    assert shared == _alone(run, abstract=abstract)


@settings(max_examples=lowered(40), deadline=None)
@given(run=runs())
def test_a_solver_keeps_no_assertion_of_an_earlier_obligation(run: Run) -> None:
    """Statuses after any history are a fresh prover's (a resource limit may only make one unknown)."""
    sequence = [index for each in run.sequences for index in each]
    reused = run.prover(abstract=False)
    for index in sequence:
        after_others = run.pool[index].decide(reused).status
        alone = run.pool[index].decide(run.prover(abstract=False)).status
        assert after_others == alone or "unknown" in (after_others, alone)


def _prover() -> Prover:
    bindings = [
        {"kind": "spmd", "name": "nb", "extent": 4},
        {"kind": "assign", "name": "n0", "expr": "nb * 8"},
    ]
    request = ProofsCheckRequest.model_validate(
        {"expr": "n0", "bindings": bindings, "goals": ["multiple_of"]}
    )
    return Prover(request.bindings, index_bits=64, abstract=False)


def test_a_check_that_runs_out_of_time_shares_nothing() -> None:
    """The prover out of time raises; the next prover decides the obligation itself, as one alone does."""
    first, then = Goal("n0 + 16", "multiple_of", 16, "floor"), Goal("n0", "multiple_of", 16, "floor")
    alone = _prover()
    expected = [first.decide(alone), then.decide(alone)]
    with shared_verdicts():
        late = _prover()
        assert first.decide(late) == expected[0]
        late.deadline = time.monotonic() - 1
        for _ in range(2):  # neither cached nor shared: still out of time
            with pytest.raises(budget.BudgetExceeded):
                then.decide(late)
        after = _prover()
        assert [first.decide(after), then.decide(after)] == expected
    assert [verdict.status for verdict in expected] == ["refuted", "refuted"]  # both reached the solver
