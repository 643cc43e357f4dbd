"""pytest plugin: planner fixtures and the `--planner-examples` option.

Installed through the `pytest11` entry point, so any project with tile-planner installed
gets `check_layout_pass`, `check_kernelcfg_pass` and `check_proofs_pass` as fixtures.
Each fixture is the helper of the same name from `planner.testing.harness` with the
example budget taken from `--planner-examples` (default: the active hypothesis profile).
The harness is imported only when a fixture is used, so loading the plugin costs nothing
and needs nothing beyond pytest: without hypothesis (`tile-planner[testing]`) the plugin
still loads, and only a test that uses a fixture fails, with a message naming the extra.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

EXAMPLES_OPTION = "--planner-examples"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("planner", "tile-planner property harness")
    group.addoption(
        EXAMPLES_OPTION,
        action="store",
        type=int,
        default=None,
        metavar="N",
        help="requests generated per check_*_pass call (default: the hypothesis profile's max_examples)",
    )


def _hypothesis_installed() -> bool:
    try:
        import hypothesis  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


def _bound_helper(request: pytest.FixtureRequest, name: str) -> Callable[..., Any]:
    """The harness helper `name` with the session's example budget as its default."""
    if not _hypothesis_installed():
        pytest.fail(f"{name} needs hypothesis: pip install 'tile-planner[testing]'", pytrace=False)
    from planner.testing import harness

    examples = request.config.getoption(EXAMPLES_OPTION)
    if examples is not None and examples < 1:
        raise pytest.UsageError(f"{EXAMPLES_OPTION} expects a positive count, got {examples}")
    helper: Callable[..., Any] = getattr(harness, name)
    return functools.partial(helper, max_examples=examples) if examples is not None else helper


@pytest.fixture
def check_layout_pass(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """`check_layout_pass(impl, ...)`: compare an NZ layout pass with `layout.plan`."""
    return _bound_helper(request, "check_layout_pass")


@pytest.fixture
def check_kernelcfg_pass(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """`check_kernelcfg_pass(impl, ...)`: compare a kernel-config pass with `kernelcfg.resolve`."""
    return _bound_helper(request, "check_kernelcfg_pass")


@pytest.fixture
def check_proofs_pass(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """`check_proofs_pass(impl, ...)`: compare an offset prover with `proofs.check`."""
    return _bound_helper(request, "check_proofs_pass")
