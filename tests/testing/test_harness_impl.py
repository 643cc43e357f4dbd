"""An implementation under test: both forms answer JSON; every way of not answering is typed."""

from __future__ import annotations

import importlib
import subprocess
import sys
from typing import Any

import pytest

from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.testing import ImplementationError, check_kernelcfg_pass
from planner.testing.impl import as_json_function

ECHO_OK = "import json, sys; request = json.load(sys.stdin); print(json.dumps({'ok': True, 'seen': request}))"


def _command(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_command_line_gets_the_request_on_stdin_and_answers_on_stdout() -> None:
    call = as_json_function(_command(ECHO_OK))
    assert call({"ops": [], "n": 1}) == {"ok": True, "seen": {"ops": [], "n": 1}}


def test_exit_status_one_is_still_an_answer() -> None:
    call = as_json_function(_command("print('{\"ok\": false}'); raise SystemExit(1)"))
    assert call({}) == {"ok": False}


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("raise SystemExit(3)", "exited with status 3"),
        ("print('not json')", "printed no JSON object"),
        ("print('[1, 2]')", "expected a JSON object"),
        ("import time; time.sleep(30)", "gave no answer within 0.5 s"),
    ],
)
def test_a_command_line_that_gives_no_answer_is_an_implementation_error(code: str, expected: str) -> None:
    call = as_json_function(_command(code), timeout=0.5 if "sleep" in code else 30)
    with pytest.raises(ImplementationError, match=expected):
        call({})


def test_a_missing_program_is_an_implementation_error() -> None:
    with pytest.raises(ImplementationError, match="cannot run"):
        as_json_function(["/nonexistent/pass-under-test"])({})


@pytest.mark.parametrize("impl", ["planner call", [], [sys.executable, 3]])
def test_neither_callable_nor_command_line_is_refused(impl: Any) -> None:
    with pytest.raises(TypeError, match="expected a callable or a command line"):
        as_json_function(impl)


def test_a_callable_may_answer_with_the_response_model() -> None:
    def same(request: dict[str, Any]) -> Any:
        return resolve(KernelcfgResolveRequest.model_validate(request))

    assert check_kernelcfg_pass(same, max_examples=5) >= 1


def test_a_non_positive_budget_is_refused() -> None:
    with pytest.raises(ValueError, match="max_examples must be positive"):
        check_kernelcfg_pass(lambda request: request, max_examples=0)


@pytest.mark.parametrize(
    "package", ["planner.testing", "planner.testing.oracles", "planner.testing.strategies"]
)
def test_every_re_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__) and module.__all__
    for name in module.__all__:
        assert getattr(module, name) is not None
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018 - the lookup itself is under test


def test_importing_the_package_does_not_load_the_planner_cores() -> None:
    heavy = "('z3', 'hypothesis', 'numpy')"
    code = f"import sys, planner.testing; print(sorted(m for m in {heavy} if m in sys.modules))"
    done = subprocess.run(_command(code), capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
