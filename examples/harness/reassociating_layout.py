"""A deliberately wrong NZ layout pass, to show what `check_layout_pass` finds.

It plans like the planner, then "saves the runtime division": a coordinate `n0 // 16`
whose offset was bound as `n0 = nb * 256` becomes `nb * 16`. That is the re-association
docs/design/nz-layout.md 7.4 forbids: IR arithmetic wraps at its declared width, the rewritten form
does not, so the two differ whenever `nb * 256` wraps.

Use it as a Python callable (JSON object in, JSON object out)::

    from planner.testing import check_layout_pass
    check_layout_pass(plan)
"""

from __future__ import annotations

from typing import Any

from planner.layout import plan as plan_layout
from planner.layout.protocol import LayoutPlanRequest
from planner.proofs.expr import BinOp, Const, Expr, Name, parse_expr, to_json_value


def plan(request: dict[str, Any]) -> dict[str, Any]:
    """`layout.plan`, with every divided product re-associated."""
    response = plan_layout(LayoutPlanRequest.model_validate(request)).model_dump(mode="json")
    products = {
        b["name"]: parse_expr(b["expr"]) for b in request.get("bindings", []) if b["kind"] == "assign"
    }
    for op in response["ops"]:
        if op["offsets"] is not None:
            op["offsets"] = [reassociate(parse_expr(offset), products) for offset in op["offsets"]]
    return response


def reassociate(coordinate: Expr, products: dict[str, Expr]) -> int | str:
    """`n0 // d` with `n0 = a * c` and `d` dividing `c` becomes `a * (c // d)`: the bug."""
    match coordinate:
        case BinOp("//", Name(name), Const(divisor)) if name in products:
            match products[name]:
                case BinOp("*", factor, Const(scale)) if scale % divisor == 0:
                    return to_json_value(BinOp("*", factor, Const(scale // divisor)))
    return to_json_value(coordinate)
