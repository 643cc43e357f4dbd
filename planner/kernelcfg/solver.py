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

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import constraint

from planner.budget import gc_paused
from planner.kernelcfg.problem import (
    SYNC_VAR,
    WIDTH_VAR,
    Assignments,
    ChoiceConstraint,
    DestinationConstraint,
    DFBConstraint,
    KernelConstraint,
    LosslessConstraint,
    SlotConstraint,
    WidthPolicyConstraint,
    choice_dfbs,
    strategy_var,
)
from planner.kernelcfg.requirements import Choice, DestinationUse, DFBInputUse, SlotUse, UseBatch
from planner.kernelcfg.search import SearchModel, search
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.state import (
    FUNCTION,
    Applier,
    ConflictRecord,
    KernelState,
    PrecisionLossUnavoidable,
)
from planner.targets.tenstorrent import UnpackMode

_ALL_MODES = frozenset(UnpackMode)


@dataclass(frozen=True, slots=True)
class KernelReading:
    """A kernel problem as the 6.3-6.6 steps see it."""

    applier: Applier
    start: KernelState  # the candidates after the policy (and narrowed domains), before fixed uses
    fixed: UseBatch
    choices: tuple[Choice, ...]
    dfbs_of: tuple[list[int], ...]  # per choice, the DFBs its options read (ascending)
    domains: dict[Hashable, Any]
    unavoidable: PrecisionLossUnavoidable | None = None  # 6.10: the first op without a lossless route

    def solution(self, strategies: dict[str, Strategy], state: KernelState) -> Assignments:
        """The values a successful search leaves: its strategies and the first allowed value of the rest."""
        width = next(w for w in self.domains[WIDTH_VAR] if w in state.widths)
        solution: Assignments = {strategy_var(op): s for op, s in strategies.items()}
        solution[WIDTH_VAR] = width
        solution[SYNC_VAR] = next(
            sync for sync in self.domains[SYNC_VAR] if self.applier.has_room((sync,), width, state.slots)
        )
        for variable, domain in self.domains.items():
            if isinstance(variable, tuple) and variable[0] == "unpack":
                allowed = state.modes.get((width, variable[1]), _ALL_MODES)
                solution[variable] = next(mode for mode in domain if mode in allowed)
        return solution


def read_problem(domains: dict[Hashable, Any], constraints: list[tuple[Any, Any]]) -> KernelReading:
    """The kernel a prepared problem states (see the module docstring)."""
    applier: Applier | None = None
    policy: WidthPolicyConstraint | None = None
    destination: list[DestinationUse] = []
    reads: list[tuple[int, DFBInputUse]] = []
    slots: list[SlotUse] = []
    choices: list[Choice] = []
    dfbs_of: list[list[int]] = []
    lossless: list[LosslessConstraint] = []
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
            choice = _narrowed(item.choice, domains[variables[0]])
            choices.append(choice)
            dfbs_of.append(item.dfbs if choice is item.choice else choice_dfbs(choice))
        elif isinstance(item, DestinationConstraint):
            destination.extend(item.uses)
        elif isinstance(item, DFBConstraint):
            reads.extend(zip(item.positions, item.uses, strict=True))
        elif isinstance(item, SlotConstraint):
            slots.extend(item.uses)
        elif isinstance(item, LosslessConstraint):
            lossless.append(item)
        elif isinstance(item, WidthPolicyConstraint):
            policy = item
    if applier is None or policy is None:
        raise ValueError("KernelSolver needs a kernel problem (see planner.kernelcfg.problem)")
    start = _start(domains, policy)
    reads.sort(key=itemgetter(0))  # collection order (6.4)
    fixed = UseBatch(tuple(destination), tuple(use for _, use in reads), tuple(slots))
    unavoidable = _exact(choices, dfbs_of, lossless)
    return KernelReading(applier, start, fixed, tuple(choices), tuple(dfbs_of), domains, unavoidable)


def _exact(
    choices: list[Choice], dfbs_of: list[list[int]], lossless: list[LosslessConstraint]
) -> PrecisionLossUnavoidable | None:
    """6.10: each choice keeps its lossless options (in place); the first op in walk order left
    with no lossless route, if any."""
    kept = {item.use.op: item.strategies for item in lossless if item.strategies is not None}
    for position, choice in enumerate(choices):
        strategies = kept.get(choice.op)
        if strategies is not None:
            allowed = [option.strategy for option in choice.options if option.strategy in strategies]
            choices[position] = _narrowed(choice, allowed)
            dfbs_of[position] = choice_dfbs(choices[position])
    empty = [item for item in lossless if item.strategies is not None and not item.strategies]
    fixed = [item for item in lossless if item.strategies is None]
    lossy = sorted(fixed + empty, key=lambda item: item.walk)
    if not lossy:
        return None
    return PrecisionLossUnavoidable(lossy[0].use, lossy[0].strategies is not None)


def _narrowed(choice: Choice, domain: Sequence[Strategy]) -> Choice:
    """The choice with the options its variable's domain still holds, in domain order."""
    if len(domain) == len(choice.options):
        return choice
    by_strategy = {option.strategy: option for option in choice.options}
    options = tuple(by_strategy[strategy] for strategy in domain)
    return Choice(choice.op, choice.mnemonic, choice.walk, options, choice.explicit)


def _start(domains: dict[Hashable, Any], policy: WidthPolicyConstraint) -> KernelState:
    """6.3: the width domain, less what the policy rules out (the function is its evidence); the
    sync domain is the sync modes slot demands may use."""
    state = KernelState(domains[WIDTH_VAR], domains[SYNC_VAR])
    if policy.width is not None:
        state.widths &= {policy.width}
        if policy.width == 32:
            state.ev32 = FUNCTION
        else:
            state.ev16 = FUNCTION
    for variable, domain in domains.items():
        if isinstance(variable, tuple) and variable[0] == "unpack" and len(domain) < len(_ALL_MODES):
            for width in state.widths:
                state.modes[(width, variable[1])] = frozenset(domain)
    return state


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
        self.conflict = reading.unavoidable or reading.applier.apply(reading.start, reading.fixed)
        return None if self.conflict is not None else reading

    def _solve(self, domains: dict[Hashable, Any], constraints: list[tuple[Any, Any]]) -> Assignments | None:
        reading = self.start(domains, constraints)
        if reading is None:
            return None
        state = reading.start
        outcome = search(SearchModel(reading.applier, state, reading.choices, reading.dfbs_of))
        self.conflict = outcome.conflict
        return reading.solution(outcome.strategies, state) if outcome.ok else None
