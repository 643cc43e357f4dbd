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

from planner.kernelcfg.lossless import first_lossy, lossless_strategies, lossy_read
from planner.kernelcfg.requirements import (
    Choice,
    ChoiceOption,
    DestinationUse,
    DFBInputUse,
    SlotUse,
    UseBatch,
)
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.state import Applier
from planner.targets.tenstorrent import SYNC_MODES, WIDTHS, UnpackMode

WIDTH_VAR = "dst_width"
SYNC_VAR = "dst_sync"
UNPACK_MODES = (UnpackMode.DEFAULT, UnpackMode.UNPACK_TO_DEST)  # value order: default first (6.9)

Assignments = dict[Hashable, Any]


def strategy_var(op: str) -> tuple[str, str]:
    """The variable holding the strategy of choice op `op`."""
    return ("strategy", op)


def unpack_var(dfb: int) -> tuple[str, int]:
    """The variable holding the unpack mode of DFB `dfb`."""
    return ("unpack", dfb)


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

    `use` is the evidence: the fixed read, or a choice's first lossy read; `walk` orders the
    ops so the first one with no lossless route is the conflict.
    """

    def __init__(
        self, applier: Applier, walk: int, use: DFBInputUse, strategies: frozenset[Strategy] | None
    ) -> None:
        super().__init__(applier)
        self.walk = walk
        self.use = use
        self.strategies = strategies

    def holds(self, variables: Sequence[Hashable], assignments: Assignments) -> bool:
        if self.strategies is None:
            return False
        strategy = assignments.get(variables[0])
        return strategy is None or strategy in self.strategies


def _state_exact(
    problem: constraint.Problem,
    applier: Applier,
    fixed: UseBatch,
    choices: Sequence[Choice],
    walk_order: Sequence[str],
) -> None:
    """6.10's constraints: one per fixed lossy read, one per choice with a lossy option."""
    walk = {op: number for number, op in enumerate(walk_order)}
    for use in fixed.dfb:
        if lossy_read(use, applier.target):
            problem.addConstraint(LosslessConstraint(applier, walk[use.op], use, None), [WIDTH_VAR])
    for choice in choices:
        lossy = [found for o in choice.options if (found := first_lossy(o.uses, applier.target))]
        if lossy:
            kept = lossless_strategies(choice, applier.target)
            item = LosslessConstraint(applier, choice.walk, lossy[0], kept)
            problem.addConstraint(item, [strategy_var(choice.op)])


def choice_dfbs(choice: Choice) -> list[int]:
    """The DFBs any option of `choice` reads, ascending."""
    return sorted({use.dfb for option in choice.options for use in option.uses.dfb})


def build_problem(
    applier: Applier,
    *,
    width_order: Sequence[int],
    policy_width: int | None,
    fixed: UseBatch,
    choices: Sequence[Choice],
    sync_modes: Sequence[str],
    solver: constraint.Solver,
    exact: bool = False,
    walk_order: Sequence[str] = (),
) -> constraint.Problem:
    """The problem for one kernel; `width_order` and `sync_modes` list their candidates most preferred
    first."""
    problem = constraint.Problem(solver)
    problem.addVariable(WIDTH_VAR, list(width_order))
    problem.addVariable(SYNC_VAR, list(sync_modes))
    constraints = [ChoiceConstraint(applier, choice) for choice in choices]
    read = {use.dfb for use in fixed.dfb}.union(*(item.dfbs for item in constraints))
    for dfb in sorted(read):
        problem.addVariable(unpack_var(dfb), list(UNPACK_MODES))
    problem.addConstraint(WidthPolicyConstraint(applier, policy_width), [WIDTH_VAR])
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
    for item in constraints:
        variable = strategy_var(item.choice.op)
        problem.addVariable(variable, [option.strategy for option in item.choice.options])
        sync = [SYNC_VAR] if any(option.uses.slots for option in item.choice.options) else []
        problem.addConstraint(item, [variable, WIDTH_VAR, *sync, *map(unpack_var, item.dfbs)])
    if exact:
        _state_exact(problem, applier, fixed, choices, walk_order)
    return problem


def strategies_of(solution: Assignments) -> dict[str, Strategy]:
    """The strategy of every choice op in a solution."""
    return {
        key[1]: Strategy(value)
        for key, value in solution.items()
        if isinstance(key, tuple) and key[0] == "strategy"
    }


def unpacked_dfbs(solution: Assignments) -> list[int]:
    """The DFBs a solution sets to unpack-to-DST, ascending."""
    return sorted(
        key[1]
        for key, value in solution.items()
        if isinstance(key, tuple) and key[0] == "unpack" and value == UnpackMode.UNPACK_TO_DEST
    )
