"""Hypothesis profiles: `ci` (default, bounded for make test) and `soak` (make soak)."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True)
settings.register_profile(
    "soak",
    max_examples=100_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """`planner ARGV...` in this process: its exit code, stdout and stderr."""
    from planner.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run
