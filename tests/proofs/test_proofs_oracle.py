"""The Z3 prover against the brute-force oracle (planner.testing.oracles.arith).

At 8 and 16 bits every admissible assignment is enumerated under every reading (floor and
truncating division, zero- and sign-extension of unsigned values), over mixed widths,
unsigned bindings and inductions: no proven claim may be false, every refutation's
counterexample must be admissible and break the goal under the reading it names, and where
the oracle says a claim holds the prover says proven or unknown. Each outcome is a
hypothesis event; `--hypothesis-show-statistics` shows how often the prover answers unknown.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import event, given, settings

from planner.proofs import Prover
from planner.proofs.concrete import admitted
from planner.proofs.expr import free_names, parse_expr
from planner.proofs.protocol import ProofsCheckRequest
from planner.proofs.prover import Verdict
from planner.testing.oracles.arith import (
    OracleLimitExceeded,
    OracleReading,
    admits,
    assignments,
    evaluate,
    holds_at,
    oracle_check,
    readings_of,
    wrap,
)
from planner.testing.strategies.expressions import ALL_WIDTHS, proof_requests
from tests.support.hypothesis_budget import lowered


def _prover(request: ProofsCheckRequest) -> Prover:
    return Prover(request.bindings, index_bits=request.bits, target=request.target)


def _oracle_reading(verdict: Verdict) -> OracleReading:
    assert verdict.reading is not None, "a refutation names its reading"
    return OracleReading(verdict.reading.division, verdict.reading.extension)


def _is_admissible(request: ProofsCheckRequest, env: dict[str, int], reading: OracleReading) -> bool:
    return admits(request.bindings, env, index_bits=request.bits, target=request.target, reading=reading)


def _agrees_with_the_oracle(request: ProofsCheckRequest, limit: int = 1_000_000) -> None:
    prover = _prover(request)
    for goal in request.goals:
        verdict = prover.check(request.expr, goal, request.factor, request.division)
        truth = oracle_check(request, goal, limit=limit)
        event(f"{goal}: prover {verdict.status}, oracle {'holds' if truth.holds else 'fails'}")
        if verdict.status == "proven":
            assert truth.holds, (
                f"proved a false claim; the oracle's counterexample: {truth.counterexample} ({truth.reading})"
            )
        elif verdict.status == "refuted":
            assert not truth.holds
            assert verdict.counterexample is not None
            reading = _oracle_reading(verdict)
            assert request.division in ("either", reading.division)
            assert _is_admissible(request, verdict.counterexample, reading)
            assert not holds_at(request, goal, verdict.counterexample, reading)


@given(proof_requests(widths=(8,)))
def test_prover_agrees_with_exhaustion_at_8_bits(request: ProofsCheckRequest) -> None:
    _agrees_with_the_oracle(request)


@settings(max_examples=lowered(60))  # 16-bit enumerations cost more; 8 bits carries the bulk
@given(proof_requests(widths=(16,)))
def test_prover_agrees_with_exhaustion_at_16_bits(request: ProofsCheckRequest) -> None:
    _agrees_with_the_oracle(request)


@settings(max_examples=lowered(8))  # up to 2**16 assignments per reading: a few suffice in ci
@given(proof_requests(widths=(16,), free_name_bits=16, max_bindings=2, max_leaves=4))
def test_prover_agrees_with_exhaustion_with_one_free_16_bit_name(request: ProofsCheckRequest) -> None:
    try:
        _agrees_with_the_oracle(request, limit=1 << 18)
    except OracleLimitExceeded:
        event("enumeration capped")  # more than the per-example cap: skipped, never judged


@settings(max_examples=lowered(60))
@given(proof_requests(widths=ALL_WIDTHS, exhaustive=False))
def test_refutations_replay_at_every_width(request: ProofsCheckRequest) -> None:
    prover = _prover(request)
    for goal in request.goals:
        verdict = prover.check(request.expr, goal, request.factor, request.division)
        event(f"{request.bits} bits: {verdict.status}")
        if verdict.status == "refuted":
            env = verdict.counterexample
            assert env is not None and verdict.reading is not None
            assert admitted(env, prover.scope, verdict.reading)
            assert not holds_at(request, goal, env, _oracle_reading(verdict))


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
    assert evaluate("w", {"w": 65536 + 48}, 8, {"w": 32}) == 65536 + 48  # never narrowed into the index
    assert evaluate("w + 0", {"w": 65536 + 48}, 8, {"w": 32}) == 65536 + 48  # INDEX + INT32 is INT32
    assert wrap(128, 8) == -128 and wrap(-129, 8) == 127


@pytest.mark.parametrize(
    ("expr", "env", "widths", "unsigned", "reading", "expected"),
    [
        ("m * s", {"m": 1, "s": 65536}, {"m": 16, "s": 16}, (), OracleReading(), 0),  # 16-bit product wraps
        ("m * 256", {"m": 255}, {"m": 8}, (), OracleReading(), -256),  # widened to the 16-bit INDEX first
        ("0 - u", {"u": 240}, {"u": 8}, ("u",), OracleReading(), -240),
        ("0 - u", {"u": 240}, {"u": 8}, ("u",), OracleReading("floor", "sign"), 16),
        ("u", {"u": 240}, {"u": 8}, ("u",), OracleReading("floor", "sign"), -16),
        ("(n - 1) % 2", {"n": 0}, {}, (), OracleReading("floor"), 1),
        ("(n - 1) % 2", {"n": 0}, {}, (), OracleReading("trunc"), -1),
        ("(n - 7) // 2", {"n": 0}, {}, (), OracleReading("trunc"), -3),
        ("(n - 7) // 2", {"n": 0}, {}, (), OracleReading("floor"), -4),
        ("u // w", {"u": 255, "w": 2}, {"u": 8, "w": 8}, ("u", "w"), OracleReading("trunc"), 127),  # unsigned
        ("u // 2", {"u": 255}, {"u": 8}, ("u",), OracleReading("trunc", "sign"), 0),  # INDEX: -1 // 2
        ("-u", {"u": 1}, {"u": 8}, ("u",), OracleReading(), 255),
        ("x + 0", {"x": 300}, {"x": 16}, (), OracleReading(), 300),
    ],
)
def test_oracle_types_like_the_ir(
    expr: str,
    env: dict[str, int],
    widths: dict[str, int],
    unsigned: tuple[str, ...],
    reading: OracleReading,
    expected: int,
) -> None:
    assert evaluate(expr, env, 16, widths, unsigned=frozenset(unsigned), reading=reading) == expected


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


def test_admits_only_assignments_the_bindings_allow() -> None:
    bindings = ProofsCheckRequest.model_validate(
        {
            "expr": "j",
            "bits": 8,
            "bindings": [
                {"kind": "spmd", "name": "i", "extent": 3},
                {"kind": "for", "name": "j", "start": "i", "stop": 6, "step": 2},
            ],
        }
    ).bindings
    assert admits(bindings, {"i": 1, "j": 5}, index_bits=8)
    assert not admits(bindings, {"i": 1, "j": 4}, index_bits=8)  # off the loop's stride
    assert not admits(bindings, {"i": 3, "j": 5}, index_bits=8)  # past the lanes
    assert not admits(bindings, {"i": 1}, index_bits=8)  # j unnamed


@settings(max_examples=lowered(30))
@given(proof_requests(widths=(8,)))
def test_the_column_evaluation_matches_one_assignment_at_a_time(request: ProofsCheckRequest) -> None:
    """The table is evaluated in int64 columns; `holds_at` evaluates one assignment in exact ints."""
    for reading in readings_of(request.division, request.bindings, request.expr):
        names = sorted(free_names(parse_expr(request.expr)))
        every = assignments(
            request.bindings, index_bits=8, target=request.target, extra_names=names, reading=reading
        )
        envs = list(itertools.islice(every, 64))
        for goal in request.goals:
            outcome = oracle_check(request.model_copy(update={"division": reading.division}), goal)
            first_broken = next((env for env in envs if not holds_at(request, goal, env, reading)), None)
            if first_broken is not None and outcome.reading == reading:
                assert outcome.counterexample == first_broken
            if outcome.holds:
                assert first_broken is None
