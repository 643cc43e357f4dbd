"""The `proofs.check` method of the planning protocol (service-protocol.md)."""

from __future__ import annotations

from planner.proofs.protocol import ProofResult, ProofsCheckRequest, ProofsCheckResponse
from planner.proofs.prover import Prover


def check(request: ProofsCheckRequest) -> ProofsCheckResponse:
    """Answer every requested goal, in order, for the request's expression and bindings.

    `request.bits` is the index width (of bindings without their own `bits`); the expression
    is checked at its declared width. Raises `ProofError` for a factor that is not a power of two.
    """
    prover = Prover(request.bindings, index_bits=request.bits, target=request.target)
    verdicts = [prover.check(request.expr, goal, request.factor) for goal in request.goals]
    return ProofsCheckResponse(
        results=[
            ProofResult(goal=v.goal, status=v.status, counterexample=v.counterexample, reason=v.reason)
            for v in verdicts
        ]
    )
