"""Tests of planner/proofs: expressions, readings of what the hardware runs, the fast path and Z3."""
