"""The literal section 6 resolution algorithm, as a reference for the search and its conflict identity.

Not an oracle (`planner.testing.oracles` shares none of the planner's logic): it checks step 6 only.

Steps 1-5 and 7-9 are the resolver's own: it builds the kernel's python-constraint problem
and reads the plan off a solution. Step 6 is a second solver plugged into that same
problem, written out exactly as docs/design/kernel-config.md 6.6 states it: recount every
unresolved choice on a copy of the state at every node, stop at the first zero-count choice
with its first option's conflict, pick the first choice with the strictly smallest count,
try options FPU first on copies, and on failure return the first conflict from a recursive
branch, else the first immediate one. It copies states and recurses, so it suits small
kernels only.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from planner.kernelcfg.codes import KcfgError
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.requirements import Choice
from planner.kernelcfg.resolver import kernel_problem, solve_problem
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.solver import KernelSolver
from planner.kernelcfg.state import Applier, ConflictRecord, KernelState
from planner.targets.tenstorrent import KernelTargetEnvironment


@dataclass
class LiteralOutcome:
    """The plan as a plain dict (same fields as `KernelConfigPlan`) or the error."""

    plan: dict[str, object] | None = None
    warnings: list[dict[str, object]] = field(default_factory=list)
    error: KcfgError | None = None


def _copy(state: KernelState) -> KernelState:
    clone = KernelState(state.widths, state.syncs)
    clone.slots = state.slots
    clone.modes = dict(state.modes)
    clone.first_use = dict(state.first_use)
    clone.ev32, clone.ev16 = state.ev32, state.ev16
    return clone


_Result = tuple[dict[str, Strategy] | None, KernelState | None, ConflictRecord | None]


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
            return {choice.op: option.strategy, **strategies}, final, None
        recursive = recursive or failure
    return None, None, recursive or immediate


class LiteralSolver(KernelSolver):
    """Solves a kernel problem with the literal recursion instead of the resolver's search."""

    def getSolution(
        self,
        domains: dict[Hashable, Any],
        constraints: list[tuple[Any, Any]],
        vconstraints: dict[Hashable, Any],
    ) -> dict[Hashable, Any] | None:
        reading = self.start(domains, constraints)
        if reading is None:
            return None
        strategies, final, self.conflict = _search(reading.applier, reading.start, list(reading.choices))
        if strategies is None or final is None:
            return None
        return reading.solution(strategies, final)


def literal_resolve(
    request: KernelcfgResolveRequest, target: KernelTargetEnvironment | None = None
) -> LiteralOutcome:
    """Section 6 steps 1-9 with the literal recursive search of step 6."""
    try:
        kernel = kernel_problem(request, target)
        kernel.csp.setSolver(LiteralSolver())
        plan, warnings = solve_problem(kernel)
    except KcfgError as error:
        return LiteralOutcome(error=error)
    return LiteralOutcome(plan.model_dump(), [w.model_dump() for w in warnings])
