"""The `proof.*` diagnostic codes (each defined once) and the typed error that carries them.

`ProofError` is a `RequestError`, so every face of the protocol reports it the same way as a
malformed request: a stable code, a message naming what was expected and what was found.
"""

from __future__ import annotations

from planner.errors import RequestError

BAD_DIVISION = "proof.unknown_division"
BAD_EXPRESSION = "proof.bad_expression"
BAD_FACTOR = "proof.factor_not_power_of_two"
BAD_GOAL = "proof.unknown_goal"
BAD_TARGET = "proof.unknown_target"
BAD_LOOP = "proof.induction_without_loop"
BAD_WIDTH = "proof.bad_width"
DUPLICATE_BINDING = "proof.duplicate_binding"
FORWARD_REFERENCE = "proof.forward_reference"
OUT_OF_WIDTH = "proof.declared_value_out_of_width"


class ProofError(RequestError):
    """An obligation that cannot be posed: its code is one of the `proof.*` constants above."""
