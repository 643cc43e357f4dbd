"""Countdown `for` bindings: the values of Python's own `range`, checked against its enumeration.

The oracle enumerates `range(start, stop, step)` and evaluates the obligation on each value in
plain Python; it never imports the prover's rules.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs import check
from planner.proofs.protocol import ProofsCheckRequest

BOUNDS = st.integers(-40, 40)
STEPS = st.integers(-9, 9).filter(lambda step: step != 0)
FACTORS = st.sampled_from((1, 2, 4, 8, 16))


def holds(goal: str, value: int, factor: int) -> bool:
    return value % factor == 0 if goal == "multiple_of" else value >= 0


def proved(bindings: list[dict[str, Any]], expr: str, factor: int) -> dict[str, Any]:
    request = ProofsCheckRequest.model_validate({"expr": expr, "bindings": bindings, "factor": factor})
    return check(request).model_dump(mode="json")


@given(BOUNDS, BOUNDS, STEPS, st.integers(-4, 4), BOUNDS, FACTORS)
def test_a_loop_is_proven_exactly_when_every_value_of_its_range_meets_the_goal(
    start: int, stop: int, step: int, scale: int, shift: int, factor: int
) -> None:
    """`scale * i + shift` over `range(start, stop, step)`: proven iff every value meets the goal, else
    refuted at a value the loop takes; an empty range is proven with the loop named as never running."""
    values = list(range(start, stop, step))
    answer = proved(
        [{"name": "i", "kind": "for", "start": start, "stop": stop, "step": step}],
        f"{scale} * i + {shift}",
        factor,
    )
    assert answer["empty_loops"] == ([] if values else ["i"])
    for result in answer["results"]:
        broken = [i for i in values if not holds(result["goal"], scale * i + shift, factor)]
        if not broken:
            assert result["status"] == "proven"
        else:
            assert result["status"] == "refuted"
            assert result["counterexample"]["i"] in broken


@given(BOUNDS, BOUNDS, STEPS, st.integers(-4, 4), BOUNDS, FACTORS)
def test_a_countdown_gets_the_answer_of_its_ascending_form(
    start: int, stop: int, step: int, scale: int, shift: int, factor: int
) -> None:
    values = range(start, stop, step)
    ascending = range(min(values), max(values) + 1, abs(step)) if values else range(start, start, 1)
    assert sorted(ascending) == sorted(values)
    expr = f"{scale} * i + {shift}"
    written, normalised = (
        proved([{"name": "i", "kind": "for", "start": r.start, "stop": r.stop, "step": r.step}], expr, factor)
        for r in (range(start, stop, step), ascending)
    )
    assert [r["status"] for r in written["results"]] == [r["status"] for r in normalised["results"]]


@given(BOUNDS, BOUNDS, st.integers(-3, 0), st.integers(0, 3), st.integers(-4, 4), BOUNDS, FACTORS)
def test_a_step_of_either_sign_is_proven_only_when_the_goal_holds_for_both(
    start: int, stop: int, low: int, high: int, scale: int, shift: int, factor: int
) -> None:
    """`step = 2 * p + 1` for `p` in `[low, high]`: odd steps, negative and positive, never 0."""
    steps = [2 * p + 1 for p in range(low, high + 1)]
    bindings = [
        {"name": "p", "kind": "param", "min": low, "max": high},
        {"name": "s", "kind": "assign", "expr": "2 * p + 1"},
        {"name": "i", "kind": "for", "start": start, "stop": stop, "step": "s"},
    ]
    answer = proved(bindings, f"{scale} * i + {shift}", factor)
    for result in answer["results"]:
        broken = {
            (s, i)
            for s in steps
            for i in range(start, stop, s)
            if not holds(result["goal"], scale * i + shift, factor)
        }
        assert result["status"] == ("refuted" if broken else "proven")
        if broken:
            example = result["counterexample"]
            assert (example["s"], example["i"]) in broken


def layout_request(loop: range, offset: str) -> LayoutPlanRequest:
    return LayoutPlanRequest.model_validate(
        {
            "target": "a2a3",
            "tensors": [{"name": "w", "shape": [1024, 1024], "dtype": "FP16", "layout": "NZ"}],
            "bindings": [
                {"name": "k", "kind": "for", "start": loop.start, "stop": loop.stop, "step": loop.step}
            ],
            "ops": [
                {
                    "id": "l0",
                    "op": "tile.load",
                    "source": "w",
                    "offsets": [0, offset],
                    "shapes": [256, 256],
                    "target_memory": "Mat",
                }
            ],
        }
    )


def test_a_layout_plan_over_a_countdown_is_the_plan_over_its_ascending_form() -> None:
    for offset in ("k", "k - 512"):
        down = plan(layout_request(range(768, 0, -256), offset)).model_dump(mode="json")
        up = plan(layout_request(range(256, 769, 256), offset)).model_dump(mode="json")
        assert down == up
    refused = plan(layout_request(range(768, 0, -256), "k - 512"))
    assert not refused.ok and refused.diagnostics[0].counterexample == {"k": 256}
    assert plan(layout_request(range(768, 0, -256), "k")).ok


def test_a_layout_plan_over_an_empty_loop_is_ok_and_says_the_loop_never_runs() -> None:
    for loop in (range(0, 768, -256), range(768, 0, 256)):
        response = plan(layout_request(loop, "k - 512"))
        assert response.ok and response.empty_loops == ["k"]
    assert plan(layout_request(range(768, 0, -256), "k")).empty_loops == []
