"""Handlers the service owns: the two adapter methods and `planner.version`."""

from __future__ import annotations

from planner import PROTOCOL_VERSION, __version__
from planner.adapters import AdapterName, plan_with
from planner.service.methods import METHODS
from planner.service.protocol import AdapterPlanRequest, AdapterPlanResponse, VersionRequest, VersionResponse


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


def version(request: VersionRequest) -> VersionResponse:
    """`planner.version`: the package and protocol versions and every method served."""
    return VersionResponse(version=__version__, protocol=PROTOCOL_VERSION, methods=sorted(METHODS))
