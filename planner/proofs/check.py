"""The `proofs.check` method of the planning protocol (docs/design/protocol.md)."""

from __future__ import annotations

from planner.proofs.protocol import ProofResult, ProofsCheckRequest, ProofsCheckResponse, ReadingRecord
from planner.proofs.prover import Prover, Verdict


def check(request: ProofsCheckRequest, deadline: float | None = None) -> ProofsCheckResponse:
    """Answer every requested goal, in order, for the request's expression and bindings.

    `request.bits` is the index width (of bindings without their own `bits`); the expression
    is checked as the IR types it, under the request's `division`. Raises `ProofError` for a
    factor that is not a power of two, `BudgetExceeded` past the `time.monotonic()` deadline.
    """
    prover = Prover(request.bindings, index_bits=request.bits, target=request.target, deadline=deadline)
    verdicts = [prover.check(request.expr, goal, request.factor, request.division) for goal in request.goals]
    return ProofsCheckResponse(
        results=[result_of(verdict) for verdict in verdicts], empty_loops=prover.empty_loops(request.division)
    )


def result_of(verdict: Verdict) -> ProofResult:
    """The protocol record of one verdict (a refutation names its reading and executed value)."""
    reading = None if verdict.reading is None else ReadingRecord.model_validate(verdict.reading.as_json())
    return ProofResult(
        goal=verdict.goal,
        status=verdict.status,
        counterexample=verdict.counterexample,
        reason=verdict.reason,
        reading=reading,
        value=verdict.value,
    )
