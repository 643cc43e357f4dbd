"""The adapters' protocol methods: `pypto.plan` and `ttlang.plan` plan one IR file given as text."""

from __future__ import annotations

from planner.adapters import AdapterName, plan_with
from planner.adapters.protocol import AdapterPlanRequest, AdapterPlanResponse


def _plan(adapter: AdapterName, request: AdapterPlanRequest) -> AdapterPlanResponse:
    outcome = plan_with(adapter, request.text, filename=request.filename, options=dict(request.options))
    return AdapterPlanResponse(
        ok=outcome.ok, text=outcome.text, diagnostics=outcome.diagnostics, report=outcome.report
    )


def plan_pypto(request: AdapterPlanRequest) -> AdapterPlanResponse:
    """`pypto.plan`: plan a PyPTO printed program."""
    return _plan("pypto", request)


def plan_ttlang(request: AdapterPlanRequest) -> AdapterPlanResponse:
    """`ttlang.plan`: plan a TT-Lang MLIR module."""
    return _plan("ttlang", request)
