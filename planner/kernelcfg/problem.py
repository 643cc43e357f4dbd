"""One kernel's joint choice stated as a python-constraint problem (docs/design/kernel-config.md 6).

Variables: one strategy per choice op (its allowed strategies, FPU first), the kernel-wide
DST width (its candidates in preference order, 6.7), one unpack mode per DFB a use reads,
and the sync mode (the policy's modes, double-buffered first, 6.8). Constraints: the fp32
policy pins the width (6.3), every fixed use holds (6.4; a slot demand constrains width and
sync together, 4.6), the option a choice selects has all its uses hold, and under
`precision=exact` every op keeps its f32 values lossless (6.10). Each constraint
judges values with the kernel's `Applier`, so generic solvers solve the same problem the
resolver's `KernelSolver` does.

Kernel constraints do not prune domains while the problem is prepared: an emptied domain
would end the search before any solver sees why. Their evidence (which use, which policy)
reaches the solver through the constraints themselves.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import constraint

from planner.kernelcfg.reading import (
    SYNC_VAR,
    UNPACK_MODES,
    WIDTH_VAR,
    Assignments,
    KernelStatement,
    LosslessNeed,
    choice_dfbs,
    strategy_var,
    unpack_var,
)
from planner.kernelcfg.requirements import (
    Choice,
    ChoiceOption,
    DestinationUse,
    DFBInputUse,
    SlotUse,
)
from planner.kernelcfg.state import Applier
from planner.targets.tenstorrent import SYNC_MODES, WIDTHS, UnpackMode


class KernelConstraint(constraint.Constraint):  # type: ignore[misc]
    """A constraint of one kernel, judged with that kernel's applier (target and explicit set)."""

    def __init__(self, applier: Applier) -> None:
        self.applier = applier

    def preProcess(
        self,
        variables: Sequence[Hashable],
        domains: dict[Hashable, Any],
        constraints: list[tuple[Any, Any]],
        vconstraints: dict[Hashable, Any],
    ) -> None:
        """Keep every domain and stay in the problem (see the module docstring)."""

    def __call__(
        self,
        variables: Sequence[Hashable],
        domains: dict[Hashable, Any],
        assignments: Assignments,
        forwardcheck: Any = False,
    ) -> bool:
        """Whether the assigned values can still meet the constraint; with forward checking, the
        values of a last unassigned variable that cannot are hidden (python-constraint's helper)."""
        if not self.holds(variables, assignments):
            return False
        return not forwardcheck or bool(self.forwardCheck(variables, domains, assignments))

    def holds(self, variables: Sequence[Hashable], assignments: Assignments) -> bool:
        raise NotImplementedError

    def _destination_holds(self, use: DestinationUse, width: int | None) -> bool:
        return width is None or self.applier.destination_allows(use, width)

    def _slots_hold(self, uses: Sequence[SlotUse], width: int | None, sync: str | None) -> bool:
        """Some (width, sync) pair left by the assigned values has every demand's slots (4.6)."""
        slots = max((use.slots for use in uses), default=0)
        widths = WIDTHS if width is None else (width,)
        syncs = SYNC_MODES if sync is None else (sync,)
        return any(self.applier.has_room(syncs, candidate, slots) for candidate in widths)

    def _dfb_holds(self, use: DFBInputUse, width: int | None, mode: UnpackMode | None) -> bool:
        """Some (width, mode) pair left by the assigned values is one the use allows."""
        for candidate in WIDTHS if width is None else (width,):
            allowed = self.applier.allowed_modes(use, candidate)
            if allowed and (mode is None or mode in allowed):
                return True
        return False


class WidthPolicyConstraint(KernelConstraint):
    """`fp32_dest_acc` enabled (32) or disabled (16) pins the width; the function is the evidence (6.3).

    Every kernel problem has one (width None: `auto`, no restriction), so even a kernel
    without uses names its applier.
    """

    def __init__(self, applier: Applier, width: int | None) -> None:
        super().__init__(applier)
        self.width = width

    def holds(self, variables: Sequence[Hashable], assignments: Assignments) -> bool:
        return self.width is None or assignments.get(WIDTH_VAR, self.width) == self.width


class DestinationConstraint(KernelConstraint):
    """Every fixed op's DST element allows the width (6.4). Variables: the width.

    One constraint holds all of them (in collection order): they constrain the same variable.
    """

    def __init__(self, applier: Applier, uses: Sequence[DestinationUse]) -> None:
        super().__init__(applier)
        self.uses = tuple(uses)

    def holds(self, variables: Sequence[Hashable], assignments: Assignments) -> bool:
        width = assignments.get(WIDTH_VAR)
        return all(self._destination_holds(use, width) for use in self.uses)


class DFBConstraint(KernelConstraint):
    """The fixed reads of one DFB allow the (width, unpack mode) pair (6.4). Variables: width, mode.

    `positions` are the reads' places among all fixed DFB reads, so the solver restores
    collection order.
    """

    def __init__(self, applier: Applier, uses: Sequence[DFBInputUse], positions: Sequence[int]) -> None:
        super().__init__(applier)
        self.uses = tuple(uses)
        self.positions = tuple(positions)

    def holds(self, variables: Sequence[Hashable], assignments: Assignments) -> bool:
        width, mode = assignments.get(WIDTH_VAR), assignments.get(variables[1])
        return all(self._dfb_holds(use, width, mode) for use in self.uses)


class SlotConstraint(KernelConstraint):
    """Every fixed slot demand fits the (width, sync) pair (4.6). Variables: width, sync."""

    def __init__(self, applier: Applier, uses: Sequence[SlotUse]) -> None:
        super().__init__(applier)
        self.uses = tuple(uses)

    def holds(self, variables: Sequence[Hashable], assignments: Assignments) -> bool:
        return self._slots_hold(self.uses, assignments.get(WIDTH_VAR), assignments.get(SYNC_VAR))


class ChoiceConstraint(KernelConstraint):
    """The option a choice op selects has every use hold. Variables: strategy, width, the sync when
    an option demands slots, its DFBs' modes."""

    def __init__(self, applier: Applier, choice: Choice) -> None:
        super().__init__(applier)
        self.choice = choice
        self.options = {option.strategy: option for option in choice.options}
        self.dfbs = choice_dfbs(choice)  # the DFBs whose modes it constrains

    def holds(self, variables: Sequence[Hashable], assignments: Assignments) -> bool:
        strategy = assignments.get(variables[0])
        if strategy is None:
            return True
        option = self.options.get(strategy)
        return option is not None and self._option_holds(option, assignments)

    def _option_holds(self, option: ChoiceOption, assignments: Assignments) -> bool:
        width = assignments.get(WIDTH_VAR)
        if not all(self._destination_holds(use, width) for use in option.uses.destination):
            return False
        if option.uses.slots and not self._slots_hold(option.uses.slots, width, assignments.get(SYNC_VAR)):
            return False
        return all(
            self._dfb_holds(use, width, assignments.get(unpack_var(use.dfb))) for use in option.uses.dfb
        )


class LosslessConstraint(KernelConstraint):
    """precision=exact (6.10): the op reads no f32 value lossily. Variables: the strategy of a
    choice (its lossless strategies hold), or the width for a fixed op's lossy read (never holds).

    `need` is the evidence (the fixed read, or a choice's first lossy read) and its walk position.
    """

    def __init__(self, applier: Applier, need: LosslessNeed) -> None:
        super().__init__(applier)
        self.need = need

    def holds(self, variables: Sequence[Hashable], assignments: Assignments) -> bool:
        if self.need.strategies is None:
            return False
        strategy = assignments.get(variables[0])
        return strategy is None or strategy in self.need.strategies


def build_problem(statement: KernelStatement, solver: constraint.Solver) -> constraint.Problem:
    """The python-constraint problem `statement` states, solved by `solver`."""
    applier, fixed = statement.applier, statement.fixed
    problem = constraint.Problem(solver)
    problem.addVariable(WIDTH_VAR, list(statement.width_order))
    problem.addVariable(SYNC_VAR, list(statement.sync_modes))
    for dfb in statement.read_dfbs():
        problem.addVariable(unpack_var(dfb), list(UNPACK_MODES))
    problem.addConstraint(WidthPolicyConstraint(applier, statement.policy_width), [WIDTH_VAR])
    if fixed.destination:
        problem.addConstraint(DestinationConstraint(applier, fixed.destination), [WIDTH_VAR])
    reads: dict[int, list[int]] = {}
    for position, use in enumerate(fixed.dfb):
        reads.setdefault(use.dfb, []).append(position)
    for dfb, positions in reads.items():
        uses = [fixed.dfb[position] for position in positions]
        problem.addConstraint(DFBConstraint(applier, uses, positions), [WIDTH_VAR, unpack_var(dfb)])
    if fixed.slots:
        problem.addConstraint(SlotConstraint(applier, fixed.slots), [WIDTH_VAR, SYNC_VAR])
    for choice in statement.choices:
        item = ChoiceConstraint(applier, choice)
        variable = strategy_var(choice.op)
        problem.addVariable(variable, [option.strategy for option in choice.options])
        sync = [SYNC_VAR] if any(option.uses.slots for option in choice.options) else []
        problem.addConstraint(item, [variable, WIDTH_VAR, *sync, *map(unpack_var, item.dfbs)])
    for need in statement.lossless_needs():
        on = [WIDTH_VAR] if need.strategies is None else [strategy_var(need.use.op)]
        problem.addConstraint(LosslessConstraint(applier, need), on)
    return problem
