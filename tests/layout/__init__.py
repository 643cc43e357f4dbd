"""Tests of planner/layout: NZ blocking, loads, slices, stores, windows, codes, host packing and PTO text."""
