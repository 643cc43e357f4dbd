"""DST capacity (docs/design/kernel-config.md 4.6, 6.4, 6.8): slot demands choose the width and the sync."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given

from planner.kernelcfg import resolve
from planner.targets.tenstorrent import NO_TARGET, TARGETS
from planner.testing.oracles.kernel_enum import DST_TILES, enum_oracle
from planner.testing.strategies.kernels import kernel_requests
from tests.kernelcfg.kernel_requests import kernel, op, planned, refused

UPSTREAM_POLICY = {
    "fp32_dest_acc": "enabled",
    "reduce_full_fp32": False,
    "matmul_full_fp32": False,
    "fpu_binary": False,
}
BF16 = {0: "bf16", 1: "bf16"}


def rows(tiles: int) -> list[dict[str, Any]]:
    """A bf16 row normalization of `tiles` tiles (no gamma) and the store of its result."""
    norm = op(
        "n", "tile_row_normalization_block", 0, 0, 1, result="bf16", attrs={"tiles": tiles, "gamma": "false"}
    )
    return [norm, op("st", "tile_store", "n", result=None)]


@pytest.mark.parametrize("target", [NO_TARGET, *TARGETS.values()], ids=lambda t: t.name)
def test_every_target_holds_16_tiles_at_16_bits_with_full_sync_and_half_of_each_otherwise(
    target: Any,
) -> None:
    slots = {(w, s): target.dst_slots(w, s) for w in (16, 32) for s in ("full", "double_buffered")}
    assert slots == {
        (16, "full"): 16,
        (16, "double_buffered"): 8,
        (32, "full"): 8,
        (32, "double_buffered"): 4,
    }
    assert slots == DST_TILES  # the oracle's own transcription agrees


def test_five_tiles_at_32_bits_double_buffered_is_upstream_s_refusal() -> None:
    request = kernel(*rows(5), dfbs=BF16, arch="blackhole", dst_full_sync="disabled", **UPSTREAM_POLICY)
    conflict = refused(request, "kcfg.dst_slots_exceeded")
    assert conflict.message == (
        "'ttl.tile_row_normalization_block' op requires 5 simultaneous DST slots, "
        "but at most 4 are available under the kernel configuration"
    )
    assert (conflict.op, conflict.where) == ("n", "op")
    by_id = {record.id: record for record in conflict.requirements}
    assert [by_id[i].summary for i in conflict.minimal_conflict] == [
        "fp32_dest_acc enabled",
        "dst_full_sync disabled",
        "tile_row_normalization_block n holds 5 tiles in DST at once",
    ]
    assert [(c.change, c.resolves) for c in conflict.corrections] == [
        ("set fp32_dest_acc to auto", True),
        ("set dst_full_sync to auto", True),
    ]


def test_five_tiles_at_32_bits_under_auto_sync_select_full_sync_forced_by_the_op() -> None:
    request = kernel(*rows(5), dfbs=BF16, arch="blackhole", dst_full_sync="auto", **UPSTREAM_POLICY)
    response = resolve(request.model_copy(update={"explain": True}))
    assert response.plan is not None and response.explanation is not None
    assert (response.plan.dst_width, response.plan.dst_sync) == (32, "full")
    (sync,) = [d for d in response.explanation.decisions if d.setting == "dst_sync"]
    records = {record.id: record.summary for record in response.explanation.requirements}
    assert (sync.value, sync.how, sync.op) == ("full", "forced", "n")
    assert [records[cause] for cause in sync.causes] == [
        "tile_row_normalization_block n holds 5 tiles in DST at once"
    ]


@pytest.mark.parametrize(
    "tiles,width,sync",
    [(4, 16, "double_buffered"), (8, 16, "double_buffered"), (9, 16, "full"), (16, 16, "full")],
)
def test_the_demand_picks_the_narrowest_width_and_double_buffering_while_they_have_room(
    tiles: int, width: int, sync: str
) -> None:
    plan = planned(kernel(*rows(tiles), dfbs=BF16)).plan
    assert plan is not None and (plan.dst_width, plan.dst_sync) == (width, sync)


def test_a_disabled_sync_with_five_tiles_leaves_only_16_bits() -> None:
    plan = planned(kernel(*rows(5), dfbs=BF16, dst_full_sync="disabled")).plan
    assert plan is not None and (plan.dst_width, plan.dst_sync) == (16, "double_buffered")


def test_seventeen_tiles_exceed_every_configuration() -> None:
    conflict = refused(kernel(*rows(17), dfbs=BF16), "kcfg.dst_slots_exceeded")
    assert "requires 17 simultaneous DST slots, but at most 16 are available" in conflict.message
    assert conflict.corrections == []


def test_an_f32_value_in_dst_with_nine_tiles_has_no_width() -> None:
    """f32 needs 32-bit DST, which holds at most 8 tiles: the demand after the width is the conflict."""
    norm = op("n", "tile_row_normalization_block", 0, 0, 1, attrs={"tiles": 9, "gamma": "false"})
    conflict = refused(kernel(norm, dfbs={0: "f32", 1: "f32"}), "kcfg.dst_slots_exceeded")
    assert "requires 9 simultaneous DST slots, but at most 8 are available" in conflict.message


@given(kernel_requests(max_ops=4, ops=("tile_row_normalization_block", "tile_exp", "tile_add", "tile_store")))
def test_no_plan_holds_more_dst_slots_than_its_width_and_sync_give(request: Any) -> None:
    """Against the enumeration oracle's own capacity rule: resolved exactly when some assignment
    fits, and every plan's width and sync give its largest slot demand."""
    oracle = enum_oracle(request)
    assume(oracle is not None)
    assert oracle is not None
    response = resolve(request)
    assert response.ok == oracle.satisfiable()
    if response.plan is not None:
        plan = response.plan
        assert oracle.slots <= DST_TILES[(plan.dst_width, plan.dst_sync)]
        assert oracle.plan_satisfies(plan)
