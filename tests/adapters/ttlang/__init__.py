"""Tests of planner/adapters/ttlang: reading TT-Lang MLIR, requests, printing, and the planner-opt tool."""
