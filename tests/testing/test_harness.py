"""The harness finds the two deliberate bugs in examples/harness/ and agrees with the planner itself.

Both searches are derandomized, so these tests find the same shrunk request on every run.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs import check
from planner.proofs.concrete import wrap
from planner.proofs.protocol import AssignBinding, ProofsCheckRequest
from planner.testing import PassDisagreement, check_kernelcfg_pass, check_layout_pass, check_proofs_pass
from planner.testing.oracles import enum_oracle
from planner.testing.plugin import _bound_helper
from planner.testing.strategies import shared_dfb_kernel_requests, wraparound_layout_requests
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "harness"


def _example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _through_json(
    core: Callable[[Any], BaseModel], model: type[BaseModel]
) -> Callable[[dict[str, Any]], Any]:
    """The planner itself as an implementation under test: JSON in, JSON out."""
    return lambda request: core(model.model_validate(request)).model_dump(mode="json")


def test_finds_the_reassociated_offset_with_a_wrapping_counterexample() -> None:
    with pytest.raises(PassDisagreement) as caught:
        check_layout_pass(_example("reassociating_layout").plan)
    finding = caught.value.finding
    request = finding.request
    assert isinstance(request, LayoutPlanRequest)
    assert finding.planner_response["ok"] is True
    [disagreement] = finding.disagreements
    assert disagreement.where.startswith("ops[l0].offsets[")
    assert "but the implementation's" in disagreement.message
    # The shrunk request is the bug's own region: a bound product that wraps at the index width.
    products = [b for b in request.bindings if isinstance(b, AssignBinding)]
    assert any(_wraps(request, binding) for binding in products)


def _wraps(request: LayoutPlanRequest, product: AssignBinding) -> bool:
    """Whether `index * scale` exceeds the signed index width for the loop or parameter's start."""
    index, scale = str(product.expr).split(" * ")
    for binding in request.bindings:
        if binding.name == index:
            start = getattr(binding, "start", None) or getattr(binding, "min", None) or 0
            return wrap(int(start) * int(scale), request.index_bits) != int(start) * int(scale)
    return False


def test_finds_greedy_fpu_through_the_command_line() -> None:
    with pytest.raises(PassDisagreement) as caught:
        check_kernelcfg_pass([sys.executable, str(EXAMPLES / "greedy_fpu.py")], timeout=120)
    finding = caught.value.finding
    assert [d.where for d in finding.disagreements] == ["ok", "oracle"], str(caught.value)
    assert finding.planner_response["ok"] is True
    assert finding.implementation_response is not None
    assert finding.implementation_response["conflict"]["code"] == "kcfg.dfb_unpack_conflict"
    assert "some configuration meets every requirement" in finding.disagreements[1].message
    # Shrunk to the design's own example: one SFPU consumer and one binary op on one f32 DFB.
    request = finding.request
    assert isinstance(request, KernelcfgResolveRequest)
    assert len(request.ops) == 2
    assert finding.planner_response["plan"]["strategies"] == {"binary": "sfpu"}


def test_the_report_is_the_same_on_every_run() -> None:
    greedy = _example("greedy_fpu").resolve
    reports = []
    for _ in range(2):
        with pytest.raises(PassDisagreement) as caught:
            check_kernelcfg_pass(greedy)
        reports.append(str(caught.value))
    assert reports[0] == reports[1]
    assert reports[0].startswith("kernelcfg.resolve: the implementation disagrees with the planner")
    request = json.loads(reports[0].split("\nminimal request:\n", 1)[1])
    assert KernelcfgResolveRequest.model_validate(request).ops[1].id == "binary"


def test_the_planner_agrees_with_itself_on_layouts() -> None:
    assert check_layout_pass(_through_json(plan, LayoutPlanRequest)) >= 1


def test_the_planner_agrees_with_itself_on_kernels() -> None:
    assert check_kernelcfg_pass(_through_json(resolve, KernelcfgResolveRequest)) >= 1


def test_the_planner_agrees_with_itself_on_proofs() -> None:
    # Every width up to 64 bits goes through Z3 twice per request: a smaller budget keeps it quick.
    assert check_proofs_pass(_through_json(check, ProofsCheckRequest), max_examples=15) >= 1


def test_an_implementation_that_raises_is_reported_with_its_error() -> None:
    def broken(request: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("ops")

    request = KernelcfgResolveRequest.model_validate({"ops": []})
    with pytest.raises(PassDisagreement, match="the implementation raised KeyError") as caught:
        check_kernelcfg_pass(broken, requests=st.just(request))
    assert caught.value.finding.implementation_response is None


@given(wraparound_layout_requests())
def test_wraparound_requests_are_accepted(request: LayoutPlanRequest) -> None:
    response = plan(request)
    assert response.ok, response.diagnostics
    [load] = response.ops
    assert load.offsets is not None and load.offsets[-2:] == [0, 0]


@given(shared_dfb_kernel_requests())
def test_a_shared_dfb_forces_sfpu_whenever_the_kernel_resolves(request: KernelcfgResolveRequest) -> None:
    response = resolve(request)
    oracle = enum_oracle(request)
    if oracle is not None:
        assert response.ok == oracle.satisfiable()
    if response.ok:
        assert response.plan is not None
        assert response.plan.strategies["binary"] == "sfpu"


PLUGIN_TEST = """
from planner.kernelcfg import resolve
from planner.kernelcfg.protocol import KernelcfgResolveRequest

def same(request):
    return resolve(KernelcfgResolveRequest.model_validate(request))

def test_budget(check_kernelcfg_pass):
    compared = check_kernelcfg_pass(same)
    print("compared", compared)
    assert compared == 3
"""


def test_the_plugin_offers_fixtures_and_the_examples_option(tmp_path: Path) -> None:
    (tmp_path / "test_user_pass.py").write_text(PLUGIN_TEST)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-s",
        "-p",
        "no:cacheprovider",
        "--planner-examples",
        "3",
    ]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "compared 3" in done.stdout


def test_the_examples_option_must_be_positive() -> None:
    session = SimpleNamespace(config=SimpleNamespace(getoption=lambda option: 0))
    with pytest.raises(pytest.UsageError, match="--planner-examples expects a positive count, got 0"):
        _bound_helper(session, "check_layout_pass")  # type: ignore[arg-type]
