"""A refusal a person can act on: the typed first conflict, its records, a minimal set, corrections.

Only conflicts of the joint search (and the FPU policy clash) get records; other refusals
(target, policy, op errors) are reported as they are.
"""

from __future__ import annotations

from planner.kernelcfg.codes import FPU_POLICY_CONFLICT, KcfgError
from planner.kernelcfg.corrections import checked_correction, suggestions
from planner.kernelcfg.messages import DESCRIBED_CODES
from planner.kernelcfg.minimal_conflict import minimal_conflict
from planner.kernelcfg.protocol import Conflict, ConflictNote, KernelcfgResolveRequest
from planner.kernelcfg.records import build_records, satisfiable, strip_explicit
from planner.kernelcfg.requirements import KernelRequirements, collect_requirements
from planner.kernelcfg.resolver import Resolution
from planner.targets.tenstorrent import KernelTargetEnvironment

_SEARCH_CODES = DESCRIBED_CODES | {FPU_POLICY_CONFLICT}


def _conflict_fields(error: KcfgError) -> dict[str, object]:
    note = None
    if error.note is not None:
        note = ConflictNote(op=error.note.op, operand=error.note.operand, message=error.note.message)
    return {
        "code": error.code,
        "message": error.message,
        "where": error.where,
        "op": error.op,
        "operand": error.operand,
        "note": note,
    }


def _relaxed(request: KernelcfgResolveRequest, resolution: Resolution) -> KernelRequirements:
    """The requirements without explicit strategies (collected again only if the kernel has any)."""
    if resolution.requirements is not None and all(op.explicit_strategy is None for op in request.ops):
        return resolution.requirements
    return collect_requirements(strip_explicit(request))


def explain_conflict(
    request: KernelcfgResolveRequest,
    resolution: Resolution,
    target: KernelTargetEnvironment | None = None,
) -> Conflict:
    """The typed first conflict, plus records, a minimal conflict and checked corrections."""
    error = resolution.error
    assert error is not None
    fields = _conflict_fields(error)
    if error.code not in _SEARCH_CODES or resolution.policy is None or resolution.target is None:
        return Conflict.model_validate(fields)
    items = build_records(resolution, _relaxed(request, resolution))
    explicit = frozenset(resolution.policy.unpack_to_dest_fp32 or ())
    env = resolution.target
    minimal = minimal_conflict(items, error, lambda subset: satisfiable(subset, env, explicit), env)
    offered = suggestions(request, env, [items[i] for i in minimal])
    corrections = [checked_correction(suggestion, request, resolution, target) for suggestion in offered]
    return Conflict.model_validate(
        {
            **fields,
            "requirements": [item.record for item in items],
            "minimal_conflict": [items[i].record.id for i in minimal],
            "corrections": corrections,
        }
    )
