"""Tests of planner/adapters: format detection here, each adapter in a folder of its own."""
