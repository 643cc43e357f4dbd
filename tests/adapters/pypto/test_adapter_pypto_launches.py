"""The block index of a `with pl.spmd(n)` body is a lane of that launch, as the loop form's variable is
(docs/design/nz-layout.md section 7.3)."""

from __future__ import annotations

import pytest

from planner.adapters.pypto import plan_text

HEAD = """\
import pypto.language as pl

N = 512
N_TILE = 128


@pl.jit.incore
def k(
    x: pl.Tensor[[16, 256], pl.BF16],
    w: pl.Tensor[[N, 256], pl.BF16, pl.NZ],
    out: pl.Out[pl.Tensor[[16, N], pl.FP32]],
):
"""

LOAD = (
    "n0 = lane * N_TILE\n"
    "        out[:, n0 : n0 + N_TILE] = pl.matmul(x, w[n0 : n0 + N_TILE, :], b_trans=True)\n"
)


def captured(lanes: str, query: str = "pl.tile.get_block_idx()") -> str:
    """The capture form: the body asks for its block index."""
    scope = f"    with pl.spmd({lanes}) as done:\n        lane = {query}\n"
    return HEAD + scope + f"        {LOAD}    return out\n"


def looped(lanes: str) -> str:
    """The loop form of the same launch: the loop variable is the block index."""
    return HEAD + f"    for lane in pl.spmd({lanes}):\n        {LOAD}    return out\n"


def codes(text: str) -> list[str]:
    outcome = plan_text(text, filename="k.py")
    return [d["code"] for entry in outcome.report["functions"] for d in entry["response"]["diagnostics"]]


@pytest.mark.parametrize("lanes", ["N // N_TILE", "N // N_TILE + 1", "2", "pl.system.available_aiv_count()"])
def test_the_capture_form_decides_as_the_loop_form(lanes: str) -> None:
    assert codes(captured(lanes)) == codes(looped(lanes))


def test_a_launch_with_one_lane_too_many_is_refused_with_that_lane() -> None:
    outcome = plan_text(captured("N // N_TILE + 1"), filename="k.py")
    (refusal,) = [
        d for d in outcome.report["functions"][0]["response"]["diagnostics"] if d["severity"] == "error"
    ]
    assert not outcome.ok and refusal["code"] == "nz.window_out_of_bounds"
    assert refusal["counterexample"]["lane"] == 4


def test_the_lane_is_bound_by_the_launch_it_is_read_in() -> None:
    outcome = plan_text(captured("N // N_TILE"), filename="k.py")
    (lane,) = [b for b in outcome.report["functions"][0]["request"]["bindings"] if b["name"] == "lane"]
    assert outcome.ok and lane["kind"] == "spmd" and lane["extent"] == 4


@pytest.mark.parametrize(
    "text",
    [
        captured("N // N_TILE", "pl.tile.get_block_num()"),
        HEAD.replace("incore", "inline")
        + "    with pl.at(level=pl.Level.CORE_GROUP):\n        lane = pl.tile.get_block_idx()\n"
        f"        {LOAD}    return out\n",
    ],
    ids=["block_num", "outside_a_launch"],
)
def test_a_block_query_outside_a_launch_or_of_its_count_stays_the_targets_lane(text: str) -> None:
    assert codes(text) == ["nz.window_bounds_unproven"]
