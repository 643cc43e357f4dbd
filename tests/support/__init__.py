"""Helpers the test rooms share, and benchmarks reuse: none of them is a test."""
