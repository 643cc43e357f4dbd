"""What the hardware runs (docs/design/nz-layout.md 7.3): IR typing, division lowering, unsigned widening.

Each program below planned before typed obligations existed, while the code that runs reads
the wrong fractal. Each is refused with the reading and the counterexample, and its control
version (the fix a user would make) still plans: as `proofs.check` and as `layout.plan`.
"""

from __future__ import annotations

from typing import Any

import pytest

from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs import ProofError, check
from planner.proofs.protocol import ProofsCheckRequest
from tests.support.layout_json import load, tensor

WIDE_PRODUCT = [
    {"name": "m", "kind": "param", "bits": 32, "min": 0, "max": 1},
    {"name": "s", "kind": "assign", "bits": 32, "expr": 65536},
    {"name": "t", "kind": "assign", "bits": 32, "expr": 32768},
    {"name": "k", "kind": "assign", "bits": 32, "expr": 134217728},
    {"name": "n0", "kind": "assign", "bits": 32, "expr": "(m * s * t) // k * 16"},
]
WIDE_PRODUCT_64 = [{**binding, "bits": 64} for binding in WIDE_PRODUCT]
LANE_REMAINDER = [
    {"name": "nb", "kind": "spmd", "extent": 2},
    {"name": "n0", "kind": "assign", "expr": "((nb - 1) % 2) * 256"},
]
LANE_REMAINDER_CONTROL = [
    {"name": "nb", "kind": "spmd", "extent": 2},
    {"name": "n0", "kind": "assign", "expr": "((nb + 1) % 2) * 256"},
]
LANE_QUOTIENT = [
    {"name": "nb", "kind": "spmd", "extent": 2},
    {"name": "n0", "kind": "assign", "expr": "-256 * ((nb - 2) // 2) - 256"},
]
UNSIGNED = [
    {"name": "u", "kind": "assign", "bits": 8, "signed": False, "expr": 240},
    {"name": "n0", "kind": "assign", "expr": "0 - u"},
]
UNSIGNED_CONTROL = [
    {"name": "u", "kind": "assign", "bits": 8, "signed": False, "expr": 16},
    {"name": "n0", "kind": "assign", "expr": "u * 16"},
]

# (bindings, division, reading, counterexample, executed value, words)
REFUSED = [
    pytest.param(
        WIDE_PRODUCT,
        "either",
        {"division": "floor", "extension": "zero"},
        {"k": 134217728, "m": 1, "n0": -256, "s": 65536, "t": 32768},
        -256,
        "m = 1 gives n0 = -256",
        id="int32-product-wraps",
    ),
    pytest.param(
        LANE_REMAINDER,
        "either",
        {"division": "trunc", "extension": "zero"},
        {"n0": -256, "nb": 0},
        -256,
        "with truncating `%`, nb = 0 gives n0 = -256",
        id="truncating-remainder",
    ),
    pytest.param(
        LANE_QUOTIENT,
        "either",
        {"division": "trunc", "extension": "zero"},
        {"n0": -256, "nb": 1},
        -256,
        "with truncating `//`, nb = 1 gives n0 = -256",
        id="truncating-quotient",
    ),
    pytest.param(
        UNSIGNED,
        "either",
        {"division": "floor", "extension": "zero"},
        {"n0": -240, "u": 240},
        -240,
        "with unsigned values zero-extended, n0 = -240",
        id="unsigned-zero-extended",
    ),
]
PLANNED = [
    pytest.param(WIDE_PRODUCT_64, "either", id="64-bit-product"),
    pytest.param(LANE_REMAINDER_CONTROL, "either", id="non-negative-dividend"),
    pytest.param(LANE_REMAINDER, "floor", id="floor-division"),
    pytest.param(LANE_QUOTIENT, "floor", id="floor-quotient"),
    pytest.param(UNSIGNED_CONTROL, "either", id="unsigned-small"),
]


def layout_request(bindings: list[dict[str, Any]], division: str) -> LayoutPlanRequest:
    return LayoutPlanRequest.model_validate(
        {
            "target": "a2a3",
            "division": division,
            "tensors": [tensor(shape=[1024, 512])],
            "bindings": bindings,
            "ops": [load(["n0", 0], [256, 512])],
        }
    )


@pytest.mark.parametrize(("bindings", "division", "reading", "counterexample", "value", "words"), REFUSED)
def test_each_program_is_refused_with_its_reading(
    bindings: list[dict[str, Any]],
    division: str,
    reading: dict[str, str],
    counterexample: dict[str, int],
    value: int,
    words: str,
) -> None:
    request = ProofsCheckRequest.model_validate(
        {"expr": "n0", "bindings": bindings, "goals": ["non_negative"], "division": division}
    )
    (result,) = check(request).results
    assert result.status == "refuted" and result.reading is not None
    assert result.reading.model_dump() == reading
    assert result.counterexample == counterexample and result.value == value
    response = plan(layout_request(bindings, division))
    assert not response.ok
    (diagnostic,) = response.diagnostics
    assert diagnostic.code == "nz.offset_unprovable_sign" and diagnostic.reading == result.reading
    assert words in diagnostic.message
    refuted = [record for record in response.obligations if record.status == "refuted"]
    assert refuted[0].reading == result.reading and refuted[0].value == result.value


@pytest.mark.parametrize(("bindings", "division"), PLANNED)
def test_each_control_still_plans(bindings: list[dict[str, Any]], division: str) -> None:
    request = ProofsCheckRequest.model_validate({"expr": "n0", "bindings": bindings, "division": division})
    assert [result.status for result in check(request).results] == ["proven", "proven"]
    response = plan(layout_request(bindings, division))
    assert response.ok, response.diagnostics
    assert response.ops[0].offsets == [0, 0, "n0 // 16", 0, 0]


def test_layout_plans_default_to_either_division_and_proofs_to_floor() -> None:
    assert LayoutPlanRequest().division == "either"
    assert ProofsCheckRequest(expr=0).division == "floor"


def test_an_assignment_casts_but_a_declared_number_must_fit() -> None:
    held = [{"name": "x", "kind": "assign", "bits": 8, "expr": 300}]
    request = ProofsCheckRequest.model_validate({"expr": "x - 44", "bindings": held, "factor": 1 << 20})
    assert [result.status for result in check(request).results] == ["proven", "proven"]
    loop = [{"name": "i", "kind": "for", "bits": 8, "start": 0, "stop": 300, "step": 1}]
    with pytest.raises(ProofError) as caught:
        plan(layout_request([*loop, {"name": "n0", "kind": "assign", "expr": "i * 16"}], "either"))
    assert caught.value.code == "proof.declared_value_out_of_width" and "300" in caught.value.message
