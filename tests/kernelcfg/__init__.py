"""Tests of planner/kernelcfg: op semantics, policy, the resolver and its outcomes, conflicts, decisions."""
