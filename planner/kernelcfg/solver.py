"""`KernelSolver`: the python-constraint solver of a kernel's problem (docs/design/kernel-config.md 6.6).

It reads the problem it is handed (`Problem(KernelSolver())`, then `getSolution()`): the
width domain and the fp32 policy give the initial candidates (6.3), the fixed-use
constraints are applied as one batch (6.4), and every choice constraint becomes a choice
whose options are the strategies left in its variable's domain, in domain order (FPU first,
6.5). `planner.kernelcfg.search` then runs the 6.6 search. The width is the first value of
the width domain still a candidate (the one width rule: the domain lists the preferred
width first, 6.7), the sync the first value of its domain that gives the chosen width the
largest slot demand (double-buffered unless capacity needs full, 6.8), and each unpack mode
the first of its domain the chosen width's candidate still allows (default before
unpack-to-DST, 6.9).

Extra constraints on one variable narrow that variable's domain while the problem is
prepared (python-constraint's own pre-processing), so the solver honours them; a problem
with any other constraint is refused. Under `precision=exact` (6.10) each choice keeps its
lossless options only, and the first op in walk order left without a lossless route is the
conflict, before any use is applied. A failed search leaves its typed conflict in
`KernelSolver.conflict`.
"""

from __future__ import annotations

from collections.abc import Hashable
from operator import itemgetter
from typing import Any

import constraint

from planner.budget import gc_paused
from planner.kernelcfg.problem import (
    ChoiceConstraint,
    DestinationConstraint,
    DFBConstraint,
    KernelConstraint,
    LosslessConstraint,
    SlotConstraint,
    WidthPolicyConstraint,
)
from planner.kernelcfg.reading import (
    Assignments,
    KernelReading,
    LosslessNeed,
    choice_dfbs,
    keep_lossless,
    narrowed,
    start_state,
)
from planner.kernelcfg.requirements import Choice, DestinationUse, DFBInputUse, SlotUse, UseBatch
from planner.kernelcfg.state import Applier, ConflictRecord


def read_problem(domains: dict[Hashable, Any], constraints: list[tuple[Any, Any]]) -> KernelReading:
    """The kernel a prepared problem states (see the module docstring)."""
    applier: Applier | None = None
    policy: WidthPolicyConstraint | None = None
    destination: list[DestinationUse] = []
    reads: list[tuple[int, DFBInputUse]] = []
    slots: list[SlotUse] = []
    choices: list[Choice] = []
    dfbs_of: list[list[int]] = []
    lossless: list[LosslessNeed] = []
    for item, variables in constraints:
        if not isinstance(item, KernelConstraint):
            raise ValueError(
                f"KernelSolver honours extra constraints on one variable only; {item!r} "
                f"constrains {list(variables)}"
            )
        if applier is None:
            applier = item.applier
        elif item.applier is not applier:
            raise ValueError("KernelSolver solves one kernel per problem")
        if isinstance(item, ChoiceConstraint):
            choice = narrowed(item.choice, domains[variables[0]])
            choices.append(choice)
            dfbs_of.append(item.dfbs if choice is item.choice else choice_dfbs(choice))
        elif isinstance(item, DestinationConstraint):
            destination.extend(item.uses)
        elif isinstance(item, DFBConstraint):
            reads.extend(zip(item.positions, item.uses, strict=True))
        elif isinstance(item, SlotConstraint):
            slots.extend(item.uses)
        elif isinstance(item, LosslessConstraint):
            lossless.append(item.need)
        elif isinstance(item, WidthPolicyConstraint):
            policy = item
    if applier is None or policy is None:
        raise ValueError("KernelSolver needs a kernel problem (see planner.kernelcfg.problem)")
    start = start_state(domains, policy.width)
    reads.sort(key=itemgetter(0))  # collection order (6.4)
    fixed = UseBatch(tuple(destination), tuple(use for _, use in reads), tuple(slots))
    unavoidable = keep_lossless(choices, dfbs_of, lossless)
    return KernelReading(applier, start, fixed, tuple(choices), tuple(dfbs_of), domains, unavoidable)


class KernelSolver(constraint.Solver):  # type: ignore[misc]
    """Fewest-compatible-options-first search of one kernel problem (see the module docstring)."""

    def __init__(self) -> None:
        self.conflict: ConflictRecord | None = None

    def getSolution(
        self,
        domains: dict[Hashable, Any],
        constraints: list[tuple[Any, Any]],
        vconstraints: dict[Hashable, Any],
    ) -> Assignments | None:
        with gc_paused():
            return self._solve(domains, constraints)

    def start(self, domains: dict[Hashable, Any], constraints: list[tuple[Any, Any]]) -> KernelReading | None:
        """Steps 6.3-6.5 before any search: the reading with its fixed uses applied to `start`, or
        None with `conflict` set when an op has no lossless route or the fixed uses conflict."""
        reading = read_problem(domains, constraints)
        self.conflict = reading.first_conflict()
        return None if self.conflict is not None else reading

    def _solve(self, domains: dict[Hashable, Any], constraints: list[tuple[Any, Any]]) -> Assignments | None:
        solution, self.conflict = read_problem(domains, constraints).resolve()
        return solution
