"""Tests of planner/service: JSON-RPC framing, the stdio and HTTP faces, workers, limits, the client."""
