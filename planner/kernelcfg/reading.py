"""A kernel's problem as the search reads it (docs/design/kernel-config.md 6.3-6.6).

`KernelStatement` is what the resolver states (steps 2-5 and 7's width order); the
python-constraint problem (`planner.kernelcfg.problem`) is built from it, and its solver
reads it back into a `KernelReading`. A statement that needs no search (every strategy
variable has one value: nothing to branch on) is read directly (`direct_reading`): the
same reading the solver would make of its problem, so the same plan or conflict, without
importing python-constraint. Nothing here imports it; everything here is shared by both routes.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from planner.kernelcfg.lossless import first_lossy, lossless_strategies, lossy_read
from planner.kernelcfg.requirements import Choice, DFBInputUse, UseBatch
from planner.kernelcfg.search import SearchModel, search
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.state import FUNCTION, Applier, ConflictRecord, KernelState, PrecisionLossUnavoidable
from planner.targets.tenstorrent import UnpackMode

WIDTH_VAR = "dst_width"
SYNC_VAR = "dst_sync"
UNPACK_MODES = (UnpackMode.DEFAULT, UnpackMode.UNPACK_TO_DEST)  # value order: default first (6.9)
_ALL_MODES = frozenset(UnpackMode)

Assignments = dict[Hashable, Any]


def strategy_var(op: str) -> tuple[str, str]:
    """The variable holding the strategy of choice op `op`."""
    return ("strategy", op)


def unpack_var(dfb: int) -> tuple[str, int]:
    """The variable holding the unpack mode of DFB `dfb`."""
    return ("unpack", dfb)


def choice_dfbs(choice: Choice) -> list[int]:
    """The DFBs any option of `choice` reads, ascending."""
    return sorted({use.dfb for option in choice.options for use in option.uses.dfb})


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


@dataclass(frozen=True, slots=True)
class LosslessNeed:
    """precision=exact (6.10): a choice keeps its lossless `strategies`, or (None) a fixed op's lossy
    read never holds. `use` is the evidence, `walk` orders the ops for the conflict."""

    walk: int
    use: DFBInputUse
    strategies: frozenset[Strategy] | None


@dataclass(frozen=True, slots=True)
class KernelStatement:
    """One kernel's problem before any solver sees it; `width_order` and `sync_modes` list their
    candidates most preferred first."""

    applier: Applier
    width_order: tuple[int, ...]
    policy_width: int | None
    fixed: UseBatch
    choices: tuple[Choice, ...]
    sync_modes: tuple[str, ...]
    exact: bool = False
    walk_order: tuple[str, ...] = ()

    def needs_no_search(self) -> bool:
        """Every choice has one strategy left: the search only applies them, it never branches."""
        return all(len(choice.options) == 1 for choice in self.choices)

    def lossless_needs(self) -> list[LosslessNeed]:
        """6.10's needs: one per fixed lossy read, one per choice with a lossy option (none unless exact)."""
        if not self.exact:
            return []
        target = self.applier.target
        walk = {op: number for number, op in enumerate(self.walk_order)}
        needs = [LosslessNeed(walk[use.op], use, None) for use in self.fixed.dfb if lossy_read(use, target)]
        for choice in self.choices:
            lossy = [found for o in choice.options if (found := first_lossy(o.uses, target))]
            if lossy:
                needs.append(LosslessNeed(choice.walk, lossy[0], lossless_strategies(choice, target)))
        return needs

    def read_dfbs(self) -> list[int]:
        """The DFBs a fixed use or an option reads: each has an unpack-mode variable, ascending."""
        return sorted({use.dfb for use in self.fixed.dfb}.union(*map(choice_dfbs, self.choices)))


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

    def first_conflict(self) -> ConflictRecord | None:
        """Steps 6.3-6.5 before any search: an op without a lossless route, or the fixed uses'
        conflict (the fixed uses are applied to `start`)."""
        return self.unavoidable or self.applier.apply(self.start, self.fixed)

    def solve(self) -> tuple[Assignments | None, ConflictRecord | None]:
        """The 6.6 search from `start` once `first_conflict` found none: a solution, or the conflict."""
        outcome = search(SearchModel(self.applier, self.start, self.choices, self.dfbs_of))
        if not outcome.ok:
            return None, outcome.conflict
        return self.solution(outcome.strategies, self.start), None

    def resolve(self) -> tuple[Assignments | None, ConflictRecord | None]:
        """Steps 6.3-6.6: the first conflict before any search, else the search's answer."""
        conflict = self.first_conflict()
        return (None, conflict) if conflict is not None else self.solve()


def start_state(domains: dict[Hashable, Any], policy_width: int | None) -> KernelState:
    """6.3: the width domain, less what the policy rules out (the function is its evidence); the
    sync domain is the sync modes slot demands may use; a narrowed unpack domain is recorded."""
    state = KernelState(domains[WIDTH_VAR], domains[SYNC_VAR])
    if policy_width is not None:
        state.widths &= {policy_width}
        if policy_width == 32:
            state.ev32 = FUNCTION
        else:
            state.ev16 = FUNCTION
    for variable, domain in domains.items():
        if isinstance(variable, tuple) and variable[0] == "unpack" and len(domain) < len(_ALL_MODES):
            for width in state.widths:
                state.modes[(width, variable[1])] = frozenset(domain)
    return state


def keep_lossless(
    choices: list[Choice], dfbs_of: list[list[int]], needs: Sequence[LosslessNeed]
) -> PrecisionLossUnavoidable | None:
    """6.10: each choice keeps its lossless options (in place); the first op in walk order left
    with no lossless route, if any."""
    kept = {need.use.op: need.strategies for need in needs if need.strategies is not None}
    for position, choice in enumerate(choices):
        strategies = kept.get(choice.op)
        if strategies is not None:
            allowed = [option.strategy for option in choice.options if option.strategy in strategies]
            choices[position] = narrowed(choice, allowed)
            dfbs_of[position] = choice_dfbs(choices[position])
    lossy = sorted((n for n in needs if n.strategies is None or not n.strategies), key=lambda n: n.walk)
    if not lossy:
        return None
    return PrecisionLossUnavoidable(lossy[0].use, lossy[0].strategies is not None)


def narrowed(choice: Choice, domain: Sequence[Strategy]) -> Choice:
    """The choice with the options its variable's domain still holds, in domain order."""
    if len(domain) == len(choice.options):
        return choice
    by_strategy = {option.strategy: option for option in choice.options}
    options = tuple(by_strategy[strategy] for strategy in domain)
    return Choice(choice.op, choice.mnemonic, choice.walk, options, choice.explicit)


def direct_reading(statement: KernelStatement) -> KernelReading:
    """The reading `KernelSolver` makes of the problem built from `statement` (no extra constraints):
    the domains as stated, every choice whole, then 6.10's narrowing."""
    domains: dict[Hashable, Any] = {
        WIDTH_VAR: list(statement.width_order),
        SYNC_VAR: list(statement.sync_modes),
    }
    for dfb in statement.read_dfbs():
        domains[unpack_var(dfb)] = list(UNPACK_MODES)
    choices = list(statement.choices)
    dfbs_of = [choice_dfbs(choice) for choice in choices]
    unavoidable = keep_lossless(choices, dfbs_of, statement.lossless_needs())
    start = start_state(domains, statement.policy_width)
    return KernelReading(
        statement.applier, start, statement.fixed, tuple(choices), tuple(dfbs_of), domains, unavoidable
    )
