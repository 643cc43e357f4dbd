"""The adapters' protocol methods: `pypto.plan` and `ttlang.plan` plan one IR file given as text."""

from __future__ import annotations

from typing import Any

from planner.adapters import AdapterName, plan_with
from planner.adapters.protocol import (
    AdapterPlanRequest,
    AdapterPlanResponse,
    KernelStatus,
    PyptoPlanRequest,
    PyptoPlanResponse,
)


def _plan(adapter: AdapterName, request: AdapterPlanRequest, context: Any = None) -> AdapterPlanResponse:
    options = dict(request.options)
    outcome = plan_with(adapter, request.text, filename=request.filename, options=options, context=context)
    return AdapterPlanResponse(
        ok=outcome.ok, text=outcome.text, diagnostics=outcome.diagnostics, report=outcome.report
    )


def plan_pypto(request: PyptoPlanRequest) -> PyptoPlanResponse:
    """`pypto.plan`: plan a PyPTO program or source file, its imports given as text."""
    planned = _plan("pypto", request, given_modules(request))
    listed = planned.report.get("kernels")
    kernels = [KernelStatus.model_validate(entry) for entry in listed] if isinstance(listed, list) else []
    return PyptoPlanResponse(**dict(planned), kernels=kernels)


def given_modules(request: AdapterPlanRequest) -> Any:
    """The resolve context of a request: only the modules it carries, never a file."""
    from planner.adapters.pypto.constants.kernel_constants import ResolveContext
    from planner.adapters.pypto.constants.module_finder import GivenModules

    modules = request.modules if isinstance(request, PyptoPlanRequest) else {}
    return ResolveContext(GivenModules(modules))


def plan_ttlang(request: AdapterPlanRequest) -> AdapterPlanResponse:
    """`ttlang.plan`: plan a TT-Lang MLIR module."""
    return _plan("ttlang", request)
