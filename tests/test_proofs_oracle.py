"""The Z3 prover against the brute-force oracle (planner.testing.oracles.arith).

At 8 and 16 bits every admissible assignment is enumerated: no proven claim may be false,
every refutation's counterexample must be admissible and break the goal, and where the
oracle says a claim holds the prover says proven or unknown. Each outcome is a hypothesis
event; `--hypothesis-show-statistics` shows how often the prover answers unknown.
"""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings
from hypothesis_budget import lowered

from planner.proofs import Prover
from planner.proofs.concrete import admits
from planner.proofs.protocol import ProofsCheckRequest
from planner.testing.oracles.arith import (
    OracleLimitExceeded,
    assignments,
    declared_width,
    evaluate,
    holds_at,
    oracle_check,
    wrap,
)
from planner.testing.strategies.expressions import ALL_WIDTHS, proof_requests


def _prover(request: ProofsCheckRequest) -> Prover:
    return Prover(request.bindings, index_bits=request.bits, target=request.target)


def _is_admissible(request: ProofsCheckRequest, env: dict[str, int]) -> bool:
    names = sorted(env)
    every = assignments(request.bindings, index_bits=request.bits, target=request.target, extra_names=names)
    return any(candidate == env for candidate in every)


def _agrees_with_the_oracle(request: ProofsCheckRequest) -> None:
    prover = _prover(request)
    for goal in request.goals:
        verdict = prover.check(request.expr, goal, request.factor)
        truth = oracle_check(request, goal)
        event(f"{goal}: prover {verdict.status}, oracle {'holds' if truth.holds else 'fails'}")
        if verdict.status == "proven":
            assert truth.holds, f"proved a false claim; the oracle's counterexample: {truth.counterexample}"
        elif verdict.status == "refuted":
            assert not truth.holds
            assert verdict.counterexample is not None
            assert _is_admissible(request, verdict.counterexample)
            assert not holds_at(request, goal, verdict.counterexample)


@given(proof_requests(widths=(8,)))
def test_prover_agrees_with_exhaustion_at_8_bits(request: ProofsCheckRequest) -> None:
    _agrees_with_the_oracle(request)


@settings(max_examples=lowered(60))  # 16-bit enumerations cost more; 8 bits carries the bulk
@given(proof_requests(widths=(16,)))
def test_prover_agrees_with_exhaustion_at_16_bits(request: ProofsCheckRequest) -> None:
    _agrees_with_the_oracle(request)


@settings(max_examples=lowered(60))
@given(proof_requests(widths=ALL_WIDTHS, exhaustive=False))
def test_refutations_replay_at_every_width(request: ProofsCheckRequest) -> None:
    prover = _prover(request)
    for goal in request.goals:
        verdict = prover.check(request.expr, goal, request.factor)
        event(f"{request.bits} bits: {verdict.status}")
        if verdict.status == "refuted":
            env = verdict.counterexample
            assert env is not None
            assert all(admits(decl, env, prover.scope) for decl in prover.scope.declarations)
            assert not holds_at(request, goal, env)


# --- the oracle itself ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "env", "bits", "expected"),
    [
        ("a // 4", {"a": -7}, 8, -2),
        ("a % 4", {"a": -7}, 8, 1),
        ("a % -4", {"a": 7}, 8, -1),
        ("a * 2", {"a": 100}, 8, -56),
        ("-a", {"a": -128}, 8, -128),
        ("a // -1", {"a": -128}, 8, -128),
        ("a // 0", {"a": 3}, 8, None),
        ("min(a, 0) + max(a, 0) - a", {"a": -5}, 8, 0),
        ("a", {"a": 300}, 16, 300),
    ],
)
def test_oracle_evaluates_with_wraparound(
    expr: str, env: dict[str, int], bits: int, expected: int | None
) -> None:
    assert evaluate(expr, env, bits) == expected


def test_oracle_reads_names_at_their_own_width() -> None:
    assert evaluate("h", {"h": 255}, 16, {"h": 8}) == -1
    assert evaluate("w", {"w": 65536 + 48}, 8, {"w": 32}) == 48
    assert wrap(128, 8) == -128 and wrap(-129, 8) == 127


def test_oracle_enumerates_each_binding_kind() -> None:
    request = ProofsCheckRequest.model_validate(
        {
            "expr": "i + j",
            "bits": 8,
            "target": "a5",
            "bindings": [
                {"kind": "spmd", "name": "i", "extent": 3},
                {"kind": "for", "name": "j", "start": "i", "stop": 6, "step": 2},
                {"kind": "param", "name": "p", "min": 126, "max": 999},
                {"kind": "block_num", "name": "n", "bits": 2},
            ],
        }
    )
    every = list(assignments(request.bindings, index_bits=8, target="a5"))
    pairs = sorted({(env["i"], env["j"]) for env in every})
    assert pairs == [(0, 0), (0, 2), (0, 4), (1, 1), (1, 3), (1, 5), (2, 2), (2, 4)]
    assert {env["p"] for env in every} == {126, 127} and {env["n"] for env in every} == {0, 1}
    assert len(every) == 8 * 2 * 2
    assert oracle_check(request, "non_negative").holds
    failing = oracle_check(request, "multiple_of").counterexample  # factor 16: i + j is 0 only once
    assert failing is not None and (failing["i"], failing["j"]) == (0, 2)
    assert declared_width(request) == 8


def test_oracle_reports_a_failing_assignment_and_refuses_large_enumerations() -> None:
    request = ProofsCheckRequest(
        expr="x - 3", bits=8, factor=4, bindings=[{"kind": "spmd", "name": "x", "extent": 8}]
    )
    outcome = oracle_check(request, "non_negative")
    assert not outcome.holds and outcome.counterexample == {"x": 0} and outcome.assignments == 1
    assert oracle_check(request, "multiple_of").counterexample == {"x": 0}
    with pytest.raises(OracleLimitExceeded):
        oracle_check(ProofsCheckRequest(expr="u + v", bits=16), "non_negative", limit=1000)
    with pytest.raises(OracleLimitExceeded):
        oracle_check(ProofsCheckRequest(expr="u", bits=32), "non_negative")
