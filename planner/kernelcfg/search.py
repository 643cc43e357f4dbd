"""The joint search over strategy choices (docs/design/kernel-config.md 6.6), iteratively.

It branches only on strategies (width and unpack modes are narrowed by applying options to
the state), orders by fewest compatible options with walk-order ties, tries FPU before
SFPU, re-counts only the neighbours of an assignment (choices sharing a changed DFB, or all
when the width candidates shrank), never recurses, and once the width is fixed solves the
independent components of the op-DFB graph one by one (networkx).

Agreement with the literal 6.6 recursion: a first success is the same because components
cannot influence each other once the width is fixed; a failure's conflict is the literal
"first recursive branch" conflict, which is the end of the path that always takes the first
compatible option, so it is found by one linear pass without components.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from planner.kernelcfg.requirements import Choice, ChoiceOption
from planner.kernelcfg.semantics import Strategy
from planner.kernelcfg.state import Applier, BatchSummary, ConflictRecord, KernelState


@dataclass(frozen=True, slots=True)
class SearchModel:
    """What the search needs: the applier, the state after fixed uses, the choices in walk order."""

    applier: Applier
    base: KernelState
    choices: tuple[Choice, ...]
    dfbs_of: Sequence[Sequence[int]] | None = None  # per choice, the DFBs it reads (None: derived)


@dataclass(slots=True)
class SearchOutcome:
    """A first success (strategies; the model's state left at the solution) or the first conflict."""

    strategies: dict[str, Strategy] = field(default_factory=dict)
    conflict: ConflictRecord | None = None

    @property
    def ok(self) -> bool:
        return self.conflict is None


def search(model: SearchModel) -> SearchOutcome:
    """Solve `model`, leaving `model.base` at the solution found (or unchanged on failure)."""
    full = _Search(model.applier, model.base, model.choices, split=True, dfbs_of=model.dfbs_of)
    if full.run():
        return SearchOutcome(strategies=full.assignment)
    greedy = _Search(
        model.applier,
        model.base,
        model.choices,
        split=False,
        stop_at_dead_end=True,
        dfbs_of=full.dfbs_of,
        summaries=full.summaries,
    )
    greedy.run()
    assert greedy.dead_end is not None
    return SearchOutcome(conflict=greedy.dead_end)


def solve_choices(
    applier: Applier, state: KernelState, choices: Sequence[Choice]
) -> dict[str, Strategy] | None:
    """Strategies meeting every requirement from `state` (left at the solution), or None."""
    search = _Search(applier, state, choices, split=True)
    return search.assignment if search.run() else None


@dataclass(slots=True)
class _Frame:
    choice: int
    position: int = 0
    applied: bool = False
    mark: int = 0
    count_undo: list[tuple[int, int]] = field(default_factory=list)


class _Search:
    """One iterative depth-first search over a walk-ordered list of choices."""

    def __init__(
        self,
        applier: Applier,
        state: KernelState,
        choices: Sequence[Choice],
        split: bool,
        stop_at_dead_end: bool = False,
        dfbs_of: Sequence[Sequence[int]] | None = None,
        summaries: Sequence[tuple[BatchSummary, ...]] = (),
        counts: Sequence[int] = (),
    ) -> None:
        self.applier = applier
        self.state = state
        self.choices = choices
        self.summaries = summaries  # per choice, compiled when counting starts (or handed down)
        self.split = split
        self.stop_at_dead_end = stop_at_dead_end
        self.assignment: dict[str, Strategy] = {}
        self.dead_end: ConflictRecord | None = None
        self.resolved = [False] * len(choices)
        self.unresolved = len(choices)
        self.dfbs_of = dfbs_of or [sorted({u.dfb for o in c.options for u in o.uses.dfb}) for c in choices]
        self.by_dfb: dict[int, list[int]] = {}  # the choices reading each DFB, once counting starts
        self.heaps: dict[int, list[int]] = {}
        self.counts: list[int] = list(counts)  # handed down: the parent's counts at this state
        self.widest = max((len(c.options) for c in choices), default=0)

    def _count_all(self) -> None:
        for index, dfbs in enumerate(self.dfbs_of):
            for dfb in dfbs:
                self.by_dfb.setdefault(dfb, []).append(index)
        if not self.summaries:
            summarize = self.applier.summarize
            self.summaries = [tuple([summarize(option.uses) for option in c.options]) for c in self.choices]
        if not self.counts:
            self.counts = [self._count(i) for i in range(len(self.choices))]
        self.heaps = {}
        for index, count in enumerate(self.counts):
            self.heaps.setdefault(count, []).append(index)

    def _count(self, index: int) -> int:
        """Options of the choice that apply to the current state (6.6's compatibility count)."""
        state, count = self.state, 0
        for summary in self.summaries[index]:
            count += summary.fits(state)
        return count

    def _first(self, count: int) -> int | None:
        """First unresolved choice in walk order with exactly `count` compatible options."""
        heap = self.heaps.get(count)
        while heap:
            index = heap[0]
            if not self.resolved[index] and self.counts[index] == count:
                return index
            heapq.heappop(heap)
        return None

    def _set_count(self, index: int, count: int) -> None:
        self.counts[index] = count
        heapq.heappush(self.heaps.setdefault(count, []), index)

    def _pick(self) -> int | None:
        for count in range(1, self.widest + 1):
            index = self._first(count)
            if index is not None:
                return index
        return None

    def _dead(self) -> bool:
        """A zero-count choice ends this branch with the conflict of its first option."""
        index = self._first(0)
        if index is None:
            return False
        if self.dead_end is None:
            mark = self.state.mark()
            self.dead_end = self.applier.apply(self.state, self.choices[index].options[0].uses)
            self.state.undo(mark)
        return True

    def _commit(self, frame: _Frame, option: ChoiceOption, mark: int) -> None:
        """Record the assignment and re-count only the neighbours the application touched."""
        frame.applied, frame.mark = True, mark
        self.resolved[frame.choice] = True
        self.unresolved -= 1
        self.assignment[self.choices[frame.choice].op] = option.strategy
        changed = self.state.trail[mark:]
        if not changed:
            return
        if any(kind == "width" for kind, _, _ in changed):
            affected: Iterable[int] = range(len(self.choices))
        else:
            dfbs = {key[1] for kind, key, _ in changed if kind == "modes"}  # type: ignore[index]
            affected = {i for dfb in dfbs for i in self.by_dfb.get(dfb, ())}  # any order: counts only
        for index in affected:
            if self.resolved[index]:
                continue
            count = self._count(index)
            if count != self.counts[index]:
                frame.count_undo.append((index, self.counts[index]))
                self._set_count(index, count)

    def _retract(self, frame: _Frame) -> None:
        self.state.undo(frame.mark)
        for index, count in reversed(frame.count_undo):
            self._set_count(index, count)
        frame.count_undo.clear()
        frame.applied = False
        self.resolved[frame.choice] = False
        self.unresolved += 1
        del self.assignment[self.choices[frame.choice].op]
        self._set_count(frame.choice, self.counts[frame.choice])

    def _advance(self, frame: _Frame) -> bool:
        """Apply the frame's next option that fits (FPU first); False when none is left."""
        options = self.choices[frame.choice].options
        while frame.position < len(options):
            position = frame.position
            frame.position += 1
            mark = self.state.mark()
            if self._apply(frame.choice, position):
                self._commit(frame, options[position], mark)
                return True
            self.state.undo(mark)
        return False

    def _apply(self, index: int, position: int) -> bool:
        """Apply one option: literally (keeping conflict evidence) on the conflict pass, else compiled."""
        if self.stop_at_dead_end:
            return self.applier.apply(self.state, self.choices[index].options[position].uses) is None
        return self.summaries[index][position].commit(self.state)

    def _solve_components(self) -> bool:
        """Width fixed: each op-DFB component of the unresolved choices is solved on its own."""
        pending = [i for i in range(len(self.choices)) if not self.resolved[i]]
        mark = self.state.mark()
        solved: dict[str, Strategy] = {}
        for members in self._components(pending):
            strategy = self._solve_alone(members[0]) if len(members) == 1 else self._solve_together(members)
            if strategy is None:
                self.state.undo(mark)
                return False
            solved.update(strategy)
        self.assignment.update(solved)
        return True

    def _components(self, pending: list[int]) -> list[list[int]]:
        """The choices of `pending` grouped by the connected components of the DFBs they read
        together (a choice reading no DFB is alone), each group ascending, groups by first member."""
        component = self._dfb_components(pending)
        groups: dict[tuple[str, int], list[int]] = {}
        for index in pending:
            dfbs = self.dfbs_of[index]
            key = ("dfbs", component.get(dfbs[0], dfbs[0])) if dfbs else ("alone", index)
            groups.setdefault(key, []).append(index)
        return sorted(groups.values())

    def _dfb_components(self, pending: list[int]) -> dict[int, int]:
        """Each DFB's component number, where some choice of `pending` reads two DFBs together.

        Where none does, every DFB is its own component (named by itself); where one DFB is read
        by every choice that reads any, all of them are one component (named by that DFB). In
        both cases networkx is not needed at all: the common small kernel never imports it.
        """
        read = [self.dfbs_of[index] for index in pending]
        edges = {(dfbs[0], other) for dfbs in read for other in dfbs[1:]}
        if not edges:
            return {}
        hub = shared_dfb([dfbs for dfbs in read if dfbs])
        if hub is not None:
            return {dfb: hub for dfbs in read for dfb in dfbs}
        import networkx as nx

        graph = nx.Graph()
        graph.add_nodes_from(dfb for dfbs in read for dfb in dfbs[:1])
        graph.add_edges_from(edges)
        return {dfb: number for number, dfbs in enumerate(nx.connected_components(graph)) for dfb in dfbs}

    def _solve_alone(self, index: int) -> dict[str, Strategy] | None:
        """A choice sharing no DFB with another: its first option that applies."""
        for option in self.choices[index].options:
            mark = self.state.mark()
            if self.applier.apply(self.state, option.uses) is None:
                return {self.choices[index].op: option.strategy}
            self.state.undo(mark)
        return None

    def _solve_together(self, members: list[int]) -> dict[str, Strategy] | None:
        choices, dfbs_of = [self.choices[i] for i in members], [self.dfbs_of[i] for i in members]
        # The summaries are state-free; the counts are this search's, current for the state it hands on.
        summaries = [self.summaries[i] for i in members] if self.summaries else ()
        counts = [self.counts[i] for i in members] if self.counts else ()
        sub = _Search(
            self.applier,
            self.state,
            choices,
            split=False,
            dfbs_of=dfbs_of,
            summaries=summaries,
            counts=counts,
        )
        return sub.assignment if sub.run() else None

    def _node(self) -> bool | None:
        """At a search node: True = complete, False = dead, None = branch on `self._pick()`."""
        if self._dead():
            return False
        if not self.unresolved:
            return True
        if self.split and len(self.state.widths) == 1:
            return self._solve_components()
        return None

    def run(self) -> bool:
        """Iterative DFS; on failure the state is restored to where it started."""
        if self.split and len(self.state.widths) == 1:
            return self._solve_components()  # nothing to count at a root that is split at once
        self._count_all()
        stack: list[_Frame] = []
        while True:
            verdict = self._node()
            if verdict is True:
                return True
            if verdict is None:
                choice = self._pick()
                assert choice is not None
                stack.append(_Frame(choice))
            elif self.stop_at_dead_end:
                while stack:
                    self._retract(stack.pop())
                return False
            while stack:
                frame = stack[-1]
                if frame.applied:
                    self._retract(frame)
                if self._advance(frame):
                    break
                stack.pop()
            else:
                return False


def shared_dfb(read: list[Sequence[int]]) -> int | None:
    """The lowest DFB every list in `read` holds (they are then one connected component), if any."""
    shared = set(read[0]).intersection(*read[1:])
    return min(shared) if shared else None
