"""`kernelcfg.resolve` (docs/design/protocol.md): one kernel function in, a plan or a conflict out.

A plan asked for nothing more imports only the resolver: the conflict account, the decision
explanation and the precision account are imported when an answer needs them (the service's
method registry names them, so a service imports them at start, not inside a deadline).
"""

from __future__ import annotations

from planner.budget import gc_paused
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
        explanation = precision = None
        if request.explain:
            from planner.kernelcfg.decisions import explain_plan

            explanation = explain_plan(request, resolution)
        if request.report_precision:
            from planner.kernelcfg.precision import precision_account

            precision = precision_account(resolution)
        return KernelcfgResolveResponse(
            ok=True,
            plan=resolution.plan,
            warnings=resolution.warnings,
            explanation=explanation,
            precision=precision,
        )
    from planner.kernelcfg.conflicts import explain_conflict

    return KernelcfgResolveResponse(ok=False, conflict=explain_conflict(request, resolution, target))
