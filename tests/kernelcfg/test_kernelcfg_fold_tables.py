"""The folded-shape tables kept across requests change no answer, and stay within their bounds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.kernelcfg import fold_tables, resolve, state
from planner.kernelcfg.fold_tables import MAX_TARGETS, clear_fold_tables, fold_table
from planner.kernelcfg.protocol import KernelcfgResolveRequest
from planner.kernelcfg.requirements import UseBatch
from planner.kernelcfg.state import Applier
from planner.targets.tenstorrent import BLACKHOLE_FACTS, TARGETS, DescriptorTarget
from planner.testing.strategies.kernels import kernel_requests


def _answer(request: KernelcfgResolveRequest) -> str:
    return resolve(request).model_dump_json()


@given(kernel_requests(max_ops=6, max_dfbs=4), kernel_requests(max_ops=6, max_dfbs=4), st.booleans())
def test_warm_tables_give_the_cold_answer(
    request: KernelcfgResolveRequest, other: KernelcfgResolveRequest, explain: bool
) -> None:
    request = request.model_copy(update={"explain": explain})
    clear_fold_tables()
    cold = _answer(request)
    _answer(other)  # the tables now also hold another kernel's shapes
    assert _answer(request) == cold
    clear_fold_tables()
    assert _answer(request) == cold


def test_one_table_per_target_and_no_more_than_the_bound() -> None:
    clear_fold_tables()
    blackhole = TARGETS["blackhole"]
    assert fold_table(blackhole) is fold_table(blackhole)
    assert fold_table(blackhole) is not fold_table(TARGETS["wormhole_b0"])
    others = [DescriptorTarget(BLACKHOLE_FACTS) for _ in range(MAX_TARGETS)]
    for target in others:
        fold_table(target)
    assert len(fold_tables._TABLES) == MAX_TARGETS
    assert fold_table(others[-1]) is not fold_table(others[-1])  # past the bound: not kept
    clear_fold_tables()


def test_a_table_stops_growing_at_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.kernelcfg.requirements import SlotUse

    monkeypatch.setattr(state, "MAX_SHAPES", 2)
    applier = Applier(TARGETS["blackhole"], None, shapes={})
    batches = [UseBatch(slots=(SlotUse("op", "tile_row_normalization_block", n),)) for n in (1, 2, 3, 4)]
    summaries = [applier.summarize(batch) for batch in batches]
    assert len(applier.shapes) == 2
    fresh = Applier(TARGETS["blackhole"], None)
    assert [s.demands for s in summaries] == [fresh.summarize(batch).demands for batch in batches]
