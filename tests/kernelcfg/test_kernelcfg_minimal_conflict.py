"""Minimal conflicts, checked by exhaustive enumeration over the records' own variables.

`records_hold` is independent of the resolver's search: it tries every strategy of the
choices among the records, both widths, both syncs and both unpack modes of every DFB they
read, and checks each record against the target tables directly (and, with `precision
exact` among them, that no f32 read loses bits).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from planner.kernelcfg import resolve
from planner.kernelcfg.codes import INTERNAL_CONSISTENT_CONFLICT, KcfgError
from planner.kernelcfg.minimal_conflict import minimal_conflict, quickxplain
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.records import (
    ExplicitStrategy,
    ExplicitUnpack,
    FpuDisabled,
    PolicyWidth,
    PrecisionExact,
    Requirement,
    SyncPolicy,
    build_records,
    satisfiable,
    strip_explicit,
)
from planner.kernelcfg.requirements import Choice, DestinationUse, DFBInputUse, SlotUse, collect_requirements
from planner.kernelcfg.resolver import resolve_with
from planner.targets.tenstorrent import SYNC_MODES, WIDTHS, KernelTargetEnvironment, UnpackMode
from planner.testing.strategies.kernels import conflicting_kernel_requests, kernel_requests


def _destination_ok(target: KernelTargetEnvironment, use: DestinationUse, width: int) -> bool:
    if width == 16 and use.elem.is_32bit:
        return False
    return target.supports_destination_width(use.primitive, use.elem, width)


def _dfb_ok(target: KernelTargetEnvironment, use: DFBInputUse, width: int, mode: UnpackMode) -> bool:
    return (width, mode) in target.supported_dfb_configurations(use.primitive, use.route, use.elem)


def _loses_bits(use: DFBInputUse, width: int, mode: UnpackMode) -> bool:
    """An f32 read in the default mode goes through SrcA/SrcB (4.7); f32 in DST needs 32 bits anyway."""
    return use.elem.is_f32 and mode is UnpackMode.DEFAULT


def records_hold(
    subset: Sequence[Requirement], target: KernelTargetEnvironment, explicit: frozenset[int]
) -> bool:
    """Whether some strategies, width, sync and unpack modes meet every record of `subset` (by
    enumeration)."""
    payloads = [item.payload for item in subset]
    syncs = [s for s in SYNC_MODES if all(p.mode == s for p in payloads if isinstance(p, SyncPolicy))]
    exact = any(isinstance(p, PrecisionExact) for p in payloads)
    choices = [p for p in payloads if isinstance(p, Choice)]
    fpu_off = any(isinstance(p, FpuDisabled) for p in payloads)
    stated = {p.op: p.strategy for p in payloads if isinstance(p, ExplicitStrategy)}
    widths = [w for w in WIDTHS if all(p.width == w for p in payloads if isinstance(p, PolicyWidth))]
    dfbs = sorted(
        {p.dfb for p in payloads if isinstance(p, (DFBInputUse, ExplicitUnpack))}
        | {u.dfb for c in choices for o in c.options for u in o.uses.dfb}
    )
    pinned = {
        p.dfb: UnpackMode.UNPACK_TO_DEST if p.dfb in explicit else UnpackMode.DEFAULT
        for p in payloads
        if isinstance(p, ExplicitUnpack)
    }
    allowed = [
        [
            o
            for o in c.options
            if not (fpu_off and o.strategy.value == "fpu") and stated.get(c.op, o.strategy) == o.strategy
        ]
        for c in choices
    ]
    for width, sync in itertools.product(widths, syncs):
        for modes in itertools.product(list(UnpackMode), repeat=len(dfbs)):
            mode = dict(zip(dfbs, modes, strict=True))
            if any(mode[dfb] != required for dfb, required in pinned.items()):
                continue
            for options in itertools.product(*allowed):
                destination = [p for p in payloads if isinstance(p, DestinationUse)]
                reads = [p for p in payloads if isinstance(p, DFBInputUse)]
                slots = [p for p in payloads if isinstance(p, SlotUse)]
                for option in options:
                    destination += option.uses.destination
                    reads += option.uses.dfb
                    slots += option.uses.slots
                if (
                    all(_destination_ok(target, u, width) for u in destination)
                    and all(_dfb_ok(target, u, width, mode[u.dfb]) for u in reads)
                    and all(u.slots <= target.dst_slots(width, sync) for u in slots)
                    and not (exact and any(_loses_bits(u, width, mode[u.dfb]) for u in reads))
                ):
                    return True
    return False


def _records(
    request: KernelcfgResolveRequest,
) -> tuple[list[Requirement], KernelTargetEnvironment, frozenset[int]]:
    resolution = resolve_with(request)
    assert resolution.policy is not None and resolution.target is not None
    items = build_records(resolution, collect_requirements(strip_explicit(request)))
    return items, resolution.target, frozenset(resolution.policy.unpack_to_dest_fp32 or ())


def _check_minimal(request: KernelcfgResolveRequest) -> None:
    response = resolve(request)
    assume(not response.ok and response.conflict is not None and response.conflict.minimal_conflict)
    assert response.conflict is not None
    items, target, explicit = _records(request)
    by_id = {item.record.id: item for item in items}
    minimal = [by_id[i] for i in response.conflict.minimal_conflict]
    assert not records_hold(minimal, target, explicit)
    for dropped in range(len(minimal)):
        assert records_hold(minimal[:dropped] + minimal[dropped + 1 :], target, explicit)


@given(kernel_requests(max_ops=5))
def test_a_minimal_conflict_is_unsatisfiable_and_each_record_is_needed(
    request: KernelcfgResolveRequest,
) -> None:
    _check_minimal(request)


@given(conflicting_kernel_requests())
def test_planted_conflicts_have_minimal_conflicts_too(request: KernelcfgResolveRequest) -> None:
    _check_minimal(request)


@given(kernel_requests(max_ops=4), st.data())
def test_the_resolvers_satisfiability_check_agrees_with_enumeration(
    request: KernelcfgResolveRequest, data: st.DataObject
) -> None:
    assume(resolve_with(request).requirements is not None)
    items, target, explicit = _records(request)
    subset = data.draw(
        st.lists(st.sampled_from(items), unique_by=lambda i: i.record.id) if items else st.just([])
    )
    subset.sort(key=lambda item: items.index(item))
    assert satisfiable(subset, target, explicit) == records_hold(subset, target, explicit)


@given(kernel_requests(max_ops=5))
def test_a_conflict_search_refuses_requirements_that_all_hold(request: KernelcfgResolveRequest) -> None:
    response = resolve(request)
    assume(response.ok)
    items, target, explicit = _records(request)
    assert records_hold(items, target, explicit)

    def consistent(subset: Sequence[Requirement]) -> bool:
        return satisfiable(subset, target, explicit)

    with pytest.raises(KcfgError) as refused:
        quickxplain(items, consistent)
    assert refused.value.code == INTERNAL_CONSISTENT_CONFLICT
    error = KcfgError("kcfg.dfb_unpack_conflict", "x", "op", items[-1].record.op if items else None)
    with pytest.raises(KcfgError) as again:
        minimal_conflict(items, error, consistent, target)
    assert again.value.code == INTERNAL_CONSISTENT_CONFLICT


def test_an_empty_list_has_no_conflict_to_explain() -> None:
    with pytest.raises(KcfgError) as refused:
        quickxplain([], lambda subset: True)
    assert refused.value.code == INTERNAL_CONSISTENT_CONFLICT


@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            st.just(n), st.lists(st.frozensets(st.integers(0, n - 1), min_size=1, max_size=4), max_size=4)
        )
    )
)
def test_quickxplain_finds_a_minimal_forbidden_set_or_refuses(case: tuple[int, list[frozenset[int]]]) -> None:
    """Items 0..n-1 conflict exactly when they contain a forbidden set."""
    count, forbidden = case
    items = list(range(count))

    def consistent(subset: Sequence[int]) -> bool:
        return not any(group <= set(subset) for group in forbidden)

    if consistent(items):
        with pytest.raises(KcfgError):
            quickxplain(items, consistent)
        return
    found = quickxplain(items, consistent)
    assert found == sorted(found) and not consistent(found)
    assert all(consistent(found[:i] + found[i + 1 :]) for i in range(len(found)))
