"""The op-semantics registry entries for tile ops beyond docs/design/kernel-config.md section 2.

Each entry follows upstream's `getDefaultTileExecutionInfo`: the primitive, one route per
operand, the DST slots held; an op without an entry is refused.
"""

from __future__ import annotations

import pytest

from planner.kernelcfg.codes import OP_SEMANTICS_UNKNOWN, KcfgError
from planner.kernelcfg.semantics import semantics_for
from planner.targets.tenstorrent import Primitive, Route


def test_tile_floor_is_an_elementwise_unary_op_reading_dst() -> None:
    floor = semantics_for("f", "tile_floor", {})
    assert (floor.primitive, floor.routes, floor.is_choice, floor.result_in_dst) == (
        Primitive.ELEMENTWISE_UNARY,
        (Route.DST,),
        False,
        True,
    )


@pytest.mark.parametrize(
    ("attrs", "gamma_route"),
    [({"gamma": "true"}, Route.DFB), ({"gamma": "false"}, Route.NONE), ({}, Route.DFB)],
)
def test_row_normalization_reads_gamma_from_a_buffer_only_with_gamma(
    attrs: dict[str, str], gamma_route: Route
) -> None:
    block = semantics_for("n", "tile_row_normalization_block", attrs)
    assert (block.primitive, block.routes, block.slots_attr) == (
        Primitive.REDUCE,
        (Route.DFB, gamma_route, Route.NONE),
        "tiles",
    )


def test_an_op_without_an_entry_is_refused() -> None:
    with pytest.raises(KcfgError) as caught:
        semantics_for("w", "tile_where", {})
    assert caught.value.code == OP_SEMANTICS_UNKNOWN
    assert "does not implement TileExecutionOpInterface" in caught.value.message
