"""Corrections a person can apply, each verified by resolving the corrected request again.

In this order: one relaxation per relaxable record of the minimal conflicting set (policy,
explicit unpack entry, explicit strategy), then those of `planner.kernelcfg.structural` for
the DFBs two of its ops read and for its bf16/f16 broadcasts. A correction that removes this
conflict but not another one of the kernel is still listed, with `resolves: false`, so the
person sees that a second cause remains.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.kernelcfg.protocol import Correction, KernelcfgResolveRequest
from planner.kernelcfg.records import Requirement, dfb_uses
from planner.kernelcfg.requirements import DestinationUse
from planner.kernelcfg.resolver import Resolution, resolve_collected, resolve_with
from planner.kernelcfg.structural import Suggestion, structural_suggestions
from planner.targets.tenstorrent import KernelTargetEnvironment


def suggestions(
    request: KernelcfgResolveRequest, target: KernelTargetEnvironment, minimal: Sequence[Requirement]
) -> list[Suggestion]:
    """The minimal set's relaxations in record order, then its structural corrections."""
    relaxations = [item.relax for item in minimal if item.relax is not None]
    reads = [use for item in minimal for use in dfb_uses(item.payload)]
    results = [item.payload for item in minimal if isinstance(item.payload, DestinationUse)]
    return relaxations + structural_suggestions(request, target, reads, results)


def checked_correction(
    suggestion: Suggestion,
    request: KernelcfgResolveRequest,
    resolution: Resolution,
    target: KernelTargetEnvironment | None,
) -> Correction:
    """A suggestion, checked by resolving the corrected request (`resolves` only if it does)."""
    env, policy, requirements = resolution.target, resolution.policy, resolution.requirements
    if suggestion.collected is None or env is None or policy is None or requirements is None:
        checked = resolve_with(suggestion.edit(request), target)
    else:
        checked = resolve_collected(env, policy, suggestion.collected(requirements))
    return Correction(change=suggestion.change, resolves=checked.ok)
