"""Window bounds (docs/design/nz-layout.md 7.3) and computed constants in the index (`nz.index_overflow`).

A window past the end of an NZ axis reads another column block's fractals instead of
failing. Refuted on the smallest launch it is refused; refuted only through the launch
grid, an unbounded value or a dynamic extent it is a warning and the plan stays ok.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse
from planner.proofs.protocol import ForBinding, InductionBinding, SpmdBinding
from planner.testing.oracles.arith import oracle_window

Json = dict[str, Any]


def row_load(rows: int, bindings: list[Json], offset: str | int, window: int = 256, **extra: Any) -> Json:
    return {
        "target": "a2a3",
        "tensors": [{"name": "w", "shape": [rows, 512], "dtype": "INT8", "layout": "NZ"}],
        "bindings": bindings,
        "ops": [
            {
                "id": "l0",
                "op": "tile.load",
                "source": "w",
                "offsets": [offset, 0],
                "shapes": [window, 512],
                "target_memory": "Mat",
                **extra,
            }
        ],
    }


def run(body: Json) -> LayoutPlanResponse:
    return plan(LayoutPlanRequest.model_validate(body))


LANES = [{"name": "nb", "kind": "spmd", "extent": 8}, {"name": "n0", "kind": "assign", "expr": "nb * 256"}]


def test_lanes_past_the_end_are_refused_with_a_counterexample() -> None:
    response = run(row_load(1024, LANES, "n0"))
    assert not response.ok
    diagnostic = response.diagnostics[0]
    assert (diagnostic.code, diagnostic.axis, diagnostic.op) == ("nz.window_out_of_bounds", -2, "l0")
    assert diagnostic.counterexample is not None and diagnostic.counterexample["nb"] >= 4
    assert f"nb = {diagnostic.counterexample['nb']} gives the window end n0 + 256" in diagnostic.message
    window = [record for record in response.obligations if record.goal == "at_most"]
    assert window[0].status == "refuted" and window[0].bound == 1024 and window[0].expr == "n0 + 256"
    assert window[0].value == diagnostic.counterexample["n0"] + 256


def test_lanes_that_fit_plan_and_record_the_bound() -> None:
    response = run(row_load(2048, LANES, "n0"))
    assert response.ok and response.diagnostics == []
    assert [(r.goal, r.axis, r.bound, r.status) for r in response.obligations if r.goal == "at_most"] == [
        ("at_most", -2, 2048, "proven"),
        ("at_most", -1, 512, "proven"),
    ]


def test_a_ragged_tail_reads_only_its_valid_rows() -> None:
    bindings: list[Json] = [
        {"name": "o0", "kind": "for", "start": 0, "stop": 800, "step": 256},
        {"name": "v", "kind": "assign", "expr": "min(800 - o0, 256)"},
    ]
    ragged = run(row_load(800, bindings, "o0", valid_shape=["v", 512]))
    assert ragged.ok and ragged.diagnostics == []
    assert not run(row_load(800, bindings, "o0")).ok  # the full 256-row tile at o0 = 768 runs past 800


def test_the_launch_grid_and_unbounded_values_only_warn() -> None:
    lanes = [{"name": "b", "kind": "block_idx"}, {"name": "n0", "kind": "assign", "expr": "b * 256"}]
    launched = run(row_load(1024, lanes, "n0"))
    assert launched.ok and launched.ops
    (warning,) = launched.diagnostics
    assert (warning.code, warning.severity, warning.axis) == ("nz.window_bounds_unproven", "warning", -2)
    assert "depends on the launch (b)" in warning.message
    opened = run(row_load(1024, [{"name": "p", "kind": "param", "min": 0}], "min(p, 64) * 16"))
    assert opened.ok and "the unbounded p" in opened.diagnostics[0].message
    first_block = run(row_load(1024, [{"name": "b", "kind": "block_idx"}], "b * 256 + 1024"))
    assert first_block.diagnostics[0].code == "nz.window_out_of_bounds"  # past the end even at b = 0
    assert first_block.diagnostics[0].counterexample == {"b": 0}


def test_an_induction_that_steps_past_the_end_is_refused() -> None:
    bindings: list[Json] = [
        {"name": "i", "kind": "for", "start": 0, "stop": 4},
        {"name": "n0", "kind": "induction", "init": 0, "step": 256, "loop": "i"},
    ]
    assert run(row_load(1024, bindings, "n0")).ok
    refused = run(row_load(768, bindings, "n0"))
    assert refused.diagnostics[0].code == "nz.window_out_of_bounds"
    assert refused.diagnostics[0].counterexample == {"i": 3, "n0": 768}


def test_slice_and_store_windows_are_checked_too() -> None:
    sliced = run(
        {
            "tensors": [{"name": "w", "shape": [4, 256, 512], "dtype": "INT8", "layout": "NZ"}],
            "bindings": [{"name": "e", "kind": "spmd", "extent": 8}],
            "ops": [
                {
                    "id": "s0",
                    "op": "tensor.slice",
                    "source": "w",
                    "shapes": [1, 256, 512],
                    "offsets": ["e", 0, 0],
                }
            ],
        }
    )
    assert sliced.diagnostics[0].code == "nz.window_out_of_bounds" and sliced.diagnostics[0].axis == -3
    stored = run(
        {
            "target": "a2a3",
            "tensors": [{"name": "out", "shape": [64, 64], "dtype": "FP32", "layout": "NZ"}],
            "bindings": [{"name": "c", "kind": "for", "start": 0, "stop": 64, "step": 16}],
            "ops": [
                {
                    "id": "st",
                    "op": "tile.store",
                    "dest": "out",
                    "offsets": [0, "c"],
                    "tile": {"shape": [64, 32], "dtype": "FP32", "memory": "Acc"},
                }
            ],
        }
    )
    assert stored.diagnostics[0].code == "nz.window_out_of_bounds" and stored.diagnostics[0].axis == -1


@pytest.mark.parametrize(
    ("shape", "index_bits", "ok"),
    [([4, 32768, 65536], 32, False), ([4, 32768, 65536], 64, True), ([2, 32768, 32768], 32, True)],
)
def test_computed_strides_fit_the_index(shape: list[int], index_bits: int, ok: bool) -> None:
    response = run(
        {
            "index_bits": index_bits,
            "tensors": [{"name": "w", "shape": shape, "dtype": "INT8", "layout": "NZ"}],
        }
    )
    assert response.ok == ok
    if not ok:
        assert response.diagnostics[0].code == "nz.index_overflow" and response.diagnostics[0].tensor == "w"


def test_a_folded_batch_extent_outside_the_index_is_refused() -> None:
    body = row_load(256, [], 0)
    body["tensors"][0]["shape"] = [65536, 65536, 16, 32]
    body["index_bits"] = 32
    (diagnostic,) = run(body).diagnostics
    assert diagnostic.code == "nz.index_overflow" and "a blocked extent 4294967296" in diagnostic.message


@given(
    start=st.integers(0, 24),
    step=st.sampled_from([1, 2, 4]),
    trips=st.integers(0, 6),
    stride=st.sampled_from([-16, 16, 32]),
    extent=st.sampled_from([16, 32]),
    rows=st.sampled_from([64, 128, 256]),
)
def test_window_refusals_agree_with_exhaustion(
    start: int, step: int, trips: int, stride: int, extent: int, rows: int
) -> None:
    """Oracle: with only loops and inductions (nothing unbounded), the plan is refused exactly when
    some iteration's window ends past the tensor, at 16-bit indices."""
    bindings = [
        ForBinding(name="i", start=start, stop=start + trips * step, step=step),
        InductionBinding(name="r", init=64, step=stride, loop="i"),
        SpmdBinding(name="nb", extent=2),
    ]
    offset = "r + nb * 16"
    truth = oracle_window(bindings, offset, extent, rows, index_bits=16)
    body = row_load(rows, [b.model_dump(exclude_none=True) for b in bindings], offset, window=extent)
    body["index_bits"] = 16
    body["tensors"][0]["shape"][1] = 32  # narrow enough that every blocked stride fits 16 bits
    body["ops"][0]["shapes"][1] = 32
    response = run(body)
    codes = [d.code for d in response.diagnostics]
    if "nz.window_out_of_bounds" in codes:
        assert not truth.holds
    elif response.ok:
        assert truth.holds or "nz.window_bounds_unproven" in codes
    else:  # refused for the offset itself (sign), which the window oracle does not judge
        assert codes[0] == "nz.offset_unprovable_sign"
    if truth.holds:
        assert "nz.window_out_of_bounds" not in codes and "nz.window_bounds_unproven" not in codes
