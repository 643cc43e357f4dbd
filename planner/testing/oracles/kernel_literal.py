"""The literal section 6 resolution algorithm, as a reference for conflict identity.

Steps 1-5 and 7-9 are the resolver's own functions; step 6 is written out exactly as the
facts file states it: recount every unresolved choice on a copy of the state at every node,
stop at the first zero-count choice with its first option's conflict, pick the first
choice with the strictly smallest count, try options FPU first on copies, and on failure
return the first conflict from a recursive branch, else the first immediate one. It copies
states and recurses, so it suits small kernels only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.policy import normalize_policy
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.requirements import Choice, collect_requirements
from planner.kernelcfg.resolver import request_target, search_model, settle, sync_modes
from planner.kernelcfg.state import Applier, ConflictRecord, KernelState, describe
from planner.targets.tenstorrent import KernelTargetEnvironment


@dataclass
class LiteralOutcome:
    """The plan as a plain dict (same fields as `KernelConfigPlan`) or the error."""

    plan: dict[str, object] | None = None
    warnings: list[dict[str, object]] = field(default_factory=list)
    error: KcfgError | None = None


def _copy(state: KernelState) -> KernelState:
    clone = KernelState(state.widths)
    clone.modes = dict(state.modes)
    clone.first_use = dict(state.first_use)
    clone.ev32, clone.ev16 = state.ev32, state.ev16
    return clone


_Result = tuple[dict[str, str] | None, KernelState | None, ConflictRecord | None]


def _search(applier: Applier, state: KernelState, unresolved: list[Choice]) -> _Result:
    if not unresolved:
        return {}, state, None
    counts: list[int] = []
    for choice in unresolved:
        count = sum(applier.apply(_copy(state), o.uses) is None for o in choice.options)
        if count == 0:
            return None, None, applier.apply(_copy(state), choice.options[0].uses)
        counts.append(count)
    best = counts.index(min(counts))
    choice = unresolved[best]
    rest = unresolved[:best] + unresolved[best + 1 :]
    recursive: ConflictRecord | None = None
    immediate: ConflictRecord | None = None
    for option in choice.options:
        branch = _copy(state)
        conflict = applier.apply(branch, option.uses)
        if conflict is not None:
            immediate = immediate or conflict
            continue
        strategies, final, failure = _search(applier, branch, rest)
        if strategies is not None:
            return {choice.op: option.strategy.value, **strategies}, final, None
        recursive = recursive or failure
    return None, None, recursive or immediate


def literal_resolve(
    request: KernelcfgResolveRequest, target: KernelTargetEnvironment | None = None
) -> LiteralOutcome:
    """Section 6 steps 1-9 with the literal recursive search of step 6."""
    try:
        env = target if target is not None else request_target(request)
        policy = normalize_policy(request.policy, env)
        requirements = collect_requirements(request)
        model = search_model(env, policy, requirements)
        strategies, final, failure = _search(model.applier, model.base, list(model.choices))
        if strategies is None or final is None:
            assert failure is not None
            raise describe(failure)
    except KcfgError as error:
        return LiteralOutcome(error=error)
    width, unpack, warnings = settle(final, requirements, policy, env)
    plan: dict[str, object] = {
        "strategies": dict(sorted(strategies.items())),
        "dst_width": width,
        "dst_sync": sync_modes(policy)[0],
        "unpack_to_dest_fp32": unpack,
        "math_fidelity": policy.math_fidelity,
    }
    return LiteralOutcome(plan, [w.model_dump() for w in warnings])
