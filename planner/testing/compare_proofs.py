"""Compare a `proofs.check` answer with the planner's, goal by goal.

`proven` and `refuted` are facts about every admissible assignment, so they must match
exactly; the planner's `unknown` (a resource limit) decides nothing and is not compared.
An implementation's `unknown` where the planner decided is a disagreement too: it refuses
what the planner accepts. A refutation is checked on its own evidence: the
implementation's counterexample must be admissible and must break the goal.
"""

from __future__ import annotations

from pydantic import ValidationError

from planner.proofs.concrete import admitted, goal_holds, offset_value
from planner.proofs.dtype import goal_dtype, readings
from planner.proofs.expr import parse_expr
from planner.proofs.protocol import ProofResult, ProofsCheckRequest, ProofsCheckResponse
from planner.proofs.scope import make_scope
from planner.testing.disagreement import Disagreement
from planner.testing.impl import JsonObject


def compare_proofs(
    request: ProofsCheckRequest, planned: JsonObject, answered: JsonObject
) -> list[Disagreement]:
    """Every goal on which `answered` differs from the planner's `planned` verdicts."""
    ours = ProofsCheckResponse.model_validate(planned)
    try:
        theirs = ProofsCheckResponse.model_validate(answered)
    except ValidationError as exc:
        return [Disagreement("response", f"not a proofs.check response: {exc}")]
    by_goal = {result.goal: result for result in theirs.results}
    found: list[Disagreement] = []
    for result in ours.results:
        other = by_goal.get(result.goal)
        where = f"results[{result.goal}]"
        if other is None:
            found.append(Disagreement(where, "the implementation gives no verdict for this goal"))
        elif result.status != "unknown" and other.status != result.status:
            found.append(Disagreement(where, _status_message(request, result, other)))
        elif other.status == "refuted" and not refutes(request, result.goal, other.counterexample):
            found.append(
                Disagreement(
                    where,
                    f"the implementation's counterexample {other.counterexample} does not break the goal",
                )
            )
    return found


def _status_message(request: ProofsCheckRequest, ours: ProofResult, theirs: ProofResult) -> str:
    text = f"the planner answers {ours.status} but the implementation {theirs.status}"
    if ours.status == "refuted" and ours.counterexample is not None:
        text += f"; the planner's counterexample: {describe_assignment(request, ours.counterexample)}"
    return text


def describe_assignment(request: ProofsCheckRequest, assignment: dict[str, int]) -> str:
    """`name=value, ...` and what the offset executes to there (floor division, zero-extension)."""
    scope = make_scope(request.bindings, request.bits, request.target)
    value = offset_value(parse_expr(request.expr), assignment, scope, readings(request.division)[0])
    shown = ", ".join(f"{name}={assignment[name]}" for name in sorted(assignment))
    return f"{shown} gives {request.expr!r} = {'undefined (division by zero)' if value is None else value}"


def refutes(request: ProofsCheckRequest, goal: str, assignment: dict[str, int] | None) -> bool:
    """Whether `assignment` gives every name read a value and, under some reading the request's
    division admits, is admissible and breaks `goal`."""
    if assignment is None:
        return False
    scope = make_scope(request.bindings, request.bits, request.target)
    expr = parse_expr(request.expr)
    if any(name not in assignment for name in scope.free_names(expr)):
        return False
    bits = goal_dtype(scope.type_of(expr), scope.index).bits
    return any(
        admitted(assignment, scope, reading)
        and not goal_holds(goal, offset_value(expr, assignment, scope, reading), request.factor, bits)
        for reading in readings(request.division)
    )
