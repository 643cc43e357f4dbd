"""Tests of planner/adapters/pypto: printed programs, @pl.jit source, codebases, constants and loops."""
