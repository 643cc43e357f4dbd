"""Every response model reads its own JSON back: dumped, sent elsewhere and validated, the same value."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from planner.service.methods import METHODS, invoke, load
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "json"


def _examples() -> list[tuple[str, str, dict[str, Any]]]:
    """(example, method, params) for every bundled request; `layout.suggest` reads the PyPTO one."""
    cases = []
    for path in sorted(EXAMPLES.glob("*.json")):
        message = json.loads(path.read_text(encoding="utf-8"))
        cases.append((path.stem, message["method"], message["params"]))
    pypto = next(params for _, method, params in cases if method == "pypto.plan")
    return [*cases, ("layout-suggest", "layout.suggest", pypto)]


CASES = _examples()


def test_every_method_has_a_round_trip_case() -> None:
    assert {method for _, method, _ in CASES} == set(METHODS)


@pytest.mark.parametrize(("method", "params"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_response_read_back_from_its_json_is_the_same_response(method: str, params: dict[str, Any]) -> None:
    model = load(METHODS[method].response)
    dumped = invoke(method, params, None)
    response = model.model_validate(dumped)
    again = model.model_validate_json(response.model_dump_json())
    assert again == response
    assert again.model_dump(mode="json") == dumped


def test_a_kernelcfg_response_rebuilds_in_another_process() -> None:
    """A client in another process validates the typed response and dumps the same JSON."""
    message = json.loads((EXAMPLES / "kernelcfg-resolve-conflict.json").read_text(encoding="utf-8"))
    sent = json.dumps(invoke("kernelcfg.resolve", message["params"], None))
    rebuild = (
        "import sys; from planner.kernelcfg import KernelcfgResolveResponse as R; "
        "print(R.model_validate_json(sys.stdin.read()).model_dump_json())"
    )
    done = subprocess.run(
        [sys.executable, "-c", rebuild], input=sent, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == json.loads(sent)
