"""Tests of planner/testing: the strategies, the independent oracles, the harness and its pytest plugin."""
