"""`kernelcfg.resolve` (docs/design/protocol.md): one kernel function in, a plan or a conflict out."""

from __future__ import annotations

from planner.budget import gc_paused
from planner.kernelcfg.conflicts import explain_conflict
from planner.kernelcfg.decisions import explain_plan
from planner.kernelcfg.precision import precision_account
from planner.kernelcfg.protocol import KernelcfgResolveRequest, KernelcfgResolveResponse
from planner.kernelcfg.resolver import resolve_with
from planner.targets.tenstorrent import KernelTargetEnvironment


def resolve(request: KernelcfgResolveRequest) -> KernelcfgResolveResponse:
    """Resolve strategies, DST width, sync and unpack modes for the request's kernel (and, asked,
    explain the decisions and account for precision)."""
    return resolve_on(request, None)


def resolve_on(
    request: KernelcfgResolveRequest, target: KernelTargetEnvironment | None
) -> KernelcfgResolveResponse:
    """`resolve` against an explicit target environment (None: the request's architecture)."""
    with gc_paused():
        return _answer(request, target)


def _answer(
    request: KernelcfgResolveRequest, target: KernelTargetEnvironment | None
) -> KernelcfgResolveResponse:
    resolution = resolve_with(request, target)
    if resolution.plan is not None:
        explanation = explain_plan(request, resolution) if request.explain else None
        precision = precision_account(resolution) if request.report_precision else None
        return KernelcfgResolveResponse(
            ok=True,
            plan=resolution.plan,
            warnings=resolution.warnings,
            explanation=explanation,
            precision=precision,
        )
    return KernelcfgResolveResponse(ok=False, conflict=explain_conflict(request, resolution, target))
