"""A minimal conflicting set of requirement records: QuickXplain (Junker 2004) over a verified part.

QuickXplain is handed an unsatisfiable list and returns a subset that is unsatisfiable while
each proper subset is satisfiable. It checks its precondition first: a satisfiable list
(the empty one included) has no conflict to explain, and asking for one is the internal
error `kcfg.internal_consistent_conflict`, never a made-up answer.

To stay fast on large kernels it first runs on the records around the conflict (`focus`):
the op-DFB graph component of the conflicting ops (networkx) plus the records that pin the
kernel-wide width. That part is used only when it is itself unsatisfiable; otherwise the
whole list is searched.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from planner.kernelcfg.codes import INTERNAL_CONSISTENT_CONFLICT, KcfgError
from planner.kernelcfg.records import (
    ExplicitStrategy,
    ExplicitUnpack,
    Payload,
    PolicyWidth,
    Requirement,
    dfb_uses,
)
from planner.kernelcfg.requirements import Choice, DestinationUse, DFBInputUse, SlotUse, UseBatch
from planner.kernelcfg.state import Applier
from planner.targets.tenstorrent import WIDTHS, KernelTargetEnvironment

_T = TypeVar("_T")


def consistent_conflict() -> KcfgError:
    """The internal error for a conflict search handed a satisfiable set (a resolver defect)."""
    return KcfgError(
        INTERNAL_CONSISTENT_CONFLICT,
        "internal error: a minimal-conflict search was handed requirements that can all hold; "
        "please report this kernel",
        "function",
    )


def quickxplain(items: Sequence[_T], consistent: Callable[[Sequence[_T]], bool]) -> list[int]:
    """Positions of a minimal inconsistent subset of `items`, ascending.

    Raises `kcfg.internal_consistent_conflict` when `items` is consistent (the empty list
    always is): there is then nothing to explain, and the recursion below would not end.
    """
    if not items or consistent(items):
        raise consistent_conflict()

    def check(positions: Sequence[int]) -> bool:
        return consistent([items[i] for i in sorted(positions)])

    def explain(background: list[int], delta_nonempty: bool, candidates: list[int]) -> list[int]:
        if delta_nonempty and not check(background):
            return []
        if len(candidates) == 1:
            return candidates
        half = len(candidates) // 2
        first, second = candidates[:half], candidates[half:]
        delta2 = explain(background + first, bool(first), second)
        delta1 = explain(background + delta2, bool(delta2), first)
        return delta1 + delta2

    return sorted(explain([], False, list(range(len(items)))))


def _nodes(payload: Payload) -> list[Hashable]:
    """The op and DFBs a record constrains: its places in the op-DFB graph (policy: none)."""
    if isinstance(payload, (DestinationUse, DFBInputUse, SlotUse, Choice, ExplicitStrategy)):
        return [("op", payload.op), *(("dfb", use.dfb) for use in dfb_uses(payload))]
    if isinstance(payload, ExplicitUnpack):
        return [("dfb", payload.dfb)]
    return []


def _widths(payload: Payload, applier: Applier) -> frozenset[int]:
    """The destination widths a record leaves on its own (a choice: any of its options)."""
    if isinstance(payload, PolicyWidth):
        return frozenset({payload.width})
    if isinstance(payload, DestinationUse):
        batches = [UseBatch(destination=(payload,))]
    elif isinstance(payload, DFBInputUse):
        batches = [UseBatch(dfb=(payload,))]
    elif isinstance(payload, SlotUse):
        batches = [UseBatch(slots=(payload,))]
    elif isinstance(payload, Choice):
        batches = [option.uses for option in payload.options]
    else:
        return frozenset(WIDTHS)
    return frozenset(width for batch in batches for width in applier.summarize(batch).by_width)


def _component(places: Sequence[list[Hashable]], start: Sequence[Hashable]) -> set[int]:
    """Positions of the records connected to `start` through shared places (op-DFB graph)."""
    import networkx as nx  # only a refusal gets here: a plan that succeeds never imports it

    graph = nx.Graph()
    for position, nodes in enumerate(places):
        graph.add_node(position)
        graph.add_edges_from((position, node) for node in nodes)
    reached: set[Hashable] = set()
    for node in start:
        if graph.has_node(node) and node not in reached:
            reached |= nx.node_connected_component(graph, node)
    return {node for node in reached if isinstance(node, int)}


def focus(items: Sequence[Requirement], error: KcfgError, target: KernelTargetEnvironment) -> list[int]:
    """Positions of a likely-inconsistent part of `items` around the conflict's ops.

    Kernel-wide records (policy), the records of the op-DFB graph component holding the
    conflict's op and note op, and, since components share only the kernel-wide width, the
    first outside record that alone allows exactly each single width. Given a fixed width,
    other components cannot matter; the caller still checks the part before trusting it.
    """
    places = [_nodes(item.payload) for item in items]
    ops = [("op", op) for op in (error.op, error.note.op if error.note else None) if op is not None]
    inside = _component(places, ops)
    if not inside:
        return list(range(len(items)))
    chosen = {p for p, nodes in enumerate(places) if p in inside or not nodes}
    applier, wanted = Applier(target, None), {frozenset({width}) for width in WIDTHS}
    for position, item in enumerate(items):
        if not wanted:
            break
        widths = _widths(item.payload, applier) if position not in inside else None
        if widths in wanted:
            wanted.discard(widths)
            chosen.add(position)
    return sorted(chosen)


def minimal_conflict(
    items: Sequence[Requirement],
    error: KcfgError,
    consistent: Callable[[Sequence[Requirement]], bool],
    target: KernelTargetEnvironment,
) -> list[int]:
    """QuickXplain over the conflict's `focus` when that part is inconsistent, else over everything.

    A minimal inconsistent subset of an inconsistent part is one of the whole kernel too
    (minimality speaks only of the subset's own subsets), so the shortcut is sound. Either way
    QuickXplain verifies its input first: an answer is never an unchecked fallback.
    """
    part = focus(items, error, target)
    if len(part) < len(items):
        chosen = [items[p] for p in part]
        if not consistent(chosen):
            return [part[i] for i in quickxplain(chosen, consistent)]
    return quickxplain(items, consistent)
