"""Offset expressions, bindings and the Z3 proof engine (docs/design/nz-layout.md section 7.3)."""

from planner.proofs.check import check
from planner.proofs.errors import ProofError
from planner.proofs.prover import Prover, Verdict

__all__ = ["ProofError", "Prover", "Verdict", "check"]
