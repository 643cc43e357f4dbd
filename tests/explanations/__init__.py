"""Tests of planner/explain (golden remarks in tests/explain): conflicts, graphs, remarks, fractal maps."""
