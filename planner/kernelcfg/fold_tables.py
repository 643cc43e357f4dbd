"""Folded batch shapes kept across requests, one table per target (a bounded cache).

`Applier.summarize` folds each batch shape (its uses' primitives, routes and element types, its
DFBs numbered by first read, the modes an explicit unpack set leaves each read, its slot
demand) into per-width demands. The fold reads only the shape and the target, never the
request, so a table of them is shared by every kernel resolved against that target: a
service resolving many small kernels folds each shape once instead of once per request.

Bounds: at most `MAX_TARGETS` tables (a target environment is an immutable value, named here
by identity; one past the bound gets a table of its own that is not kept) and at most
`planner.kernelcfg.state.MAX_SHAPES` shapes per table (`Applier.summarize` stops adding past
it), so the cache's memory is fixed whatever the requests hold.
"""

from __future__ import annotations

from planner.kernelcfg.state import Demands
from planner.targets.tenstorrent import KernelTargetEnvironment

MAX_TARGETS = 16

FoldTable = dict[object, Demands]
_TABLES: dict[int, tuple[KernelTargetEnvironment, FoldTable]] = {}


def fold_table(target: KernelTargetEnvironment) -> FoldTable:
    """The shared table of `target`'s folded shapes."""
    kept = _TABLES.get(id(target))
    if kept is not None and kept[0] is target:
        return kept[1]
    table: FoldTable = {}
    if len(_TABLES) < MAX_TARGETS:
        _TABLES[id(target)] = (target, table)  # the reference keeps the id from being reused
    return table


def clear_fold_tables() -> None:
    """Forget every folded shape (tests compare answers from a cold and a warm cache)."""
    _TABLES.clear()
