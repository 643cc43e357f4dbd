"""Verdicts that provers of equal scope share within one run (docs/design/proofs.md section 10):
`planner suggest` plans a kernel once per candidate weight, and a file often repeats a kernel's loops.

What a prover's solver answers is a function of its scope, its resource limit and the
obligations it sent to Z3 before, in order: each prover owns a fresh Z3 context, so nothing
else in the process reaches it. The shared verdicts are therefore a tree over those
histories. A prover of an equal scope that sends the same obligations in the same order
reads their verdicts off the tree and builds no solver; at its first obligation the tree
does not hold after its history, it builds its solver, sends that history again in order,
and decides the obligation on it exactly as a prover alone would, adding the verdict to the
tree. Only decided verdicts are shared: a check that raises (out of time or memory) adds
nothing, and its prover stops sharing. The tree lives as long as the `shared_verdicts()`
block that made it, in that thread or task only.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.proofs.prover import Verdict


@dataclass(eq=False, slots=True)
class History:
    """The obligations sent to Z3 so far, as a node: each next obligation's verdict and the node after it."""

    next: dict[Hashable, tuple[Verdict, History]] = field(default_factory=dict)

    def after(self, obligation: Hashable, verdict: Verdict) -> History:
        """The node after `obligation` decided as `verdict`; an obligation decided already keeps its
        first verdict, which every equal history reproduces."""
        return self.next.setdefault(obligation, (verdict, History()))[1]


class SharedVerdicts:
    """The histories of one run, one tree per scope key."""

    def __init__(self) -> None:
        self._roots: dict[Hashable, History] = {}

    def root(self, scope: Hashable) -> History:
        """The empty history of a scope: where a new prover of it starts."""
        return self._roots.setdefault(scope, History())


_ACTIVE: ContextVar[SharedVerdicts | None] = ContextVar("planner_shared_verdicts", default=None)


@contextmanager
def shared_verdicts() -> Iterator[None]:
    """Share verdicts between the provers made inside the block (nested blocks share the outer tree)."""
    if _ACTIVE.get() is not None:
        yield
        return
    token = _ACTIVE.set(SharedVerdicts())
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active() -> SharedVerdicts | None:
    """The tree of the enclosing `shared_verdicts()` block, if any."""
    return _ACTIVE.get()
