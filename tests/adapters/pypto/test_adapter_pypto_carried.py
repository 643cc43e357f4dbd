"""Loop-carried scalars in the PyPTO adapter (docs/design/nz-layout.md 7.3): inductions, unconstrained values.

A scalar reassigned in a loop body is carried for the whole body. `x = x + c` (c constant) is
an induction: a read before the update sees `init + c*i`, a read after it `init + c*(i + 1)`.
Anything else (an update in an `if`, in an inner loop, a non-constant step) is unconstrained.
"""

from __future__ import annotations

import ast
from typing import Any

from planner.adapters.pypto import build_requests, plan_text
from planner.adapters.pypto.requests.carried import Induction, inductions


def program(body: str, rows: int = 256) -> str:
    lines = ["# pypto.program: P", "import pypto.language as pl", "", "", "@pl.program", "class P:"]
    lines += ["    @pl.function(type=pl.FunctionType.InCore)"]
    lines += [f"    def main(self, w: pl.Tensor[[{rows}, 512], pl.INT8, pl.NZ], s: pl.Scalar[pl.INDEX]):"]
    lines += [f"        {line}" if line else "" for line in body.strip("\n").splitlines()]
    return "\n".join(lines) + "\n"


LOAD = "wt = pl.tile.load(w, [n0, 0], [16, 512], target_memory=pl.Mem.Mat)"


def carried(update: str, *, before: bool = True, rows: int = 256) -> str:
    body = [LOAD, *update.splitlines()] if before else [*update.splitlines(), LOAD]
    loop = "\n".join(f"    {line}" for line in body)
    return program(f"n0: pl.Scalar[pl.INDEX] = 0\nfor k in pl.range(4):\n{loop}", rows)


def diagnostics(text: str) -> list[dict[str, Any]]:
    (function,) = plan_text(text, filename="p.py").report["functions"]
    found: list[dict[str, Any]] = function["response"]["diagnostics"]
    return found


def codes(text: str) -> list[str]:
    return [diagnostic["code"] for diagnostic in diagnostics(text)]


def test_a_misaligning_update_at_the_end_of_the_body_is_refused_at_the_second_iteration() -> None:
    (diagnostic,) = diagnostics(carried("n0 = n0 + 8"))
    assert diagnostic["code"] == "nz.offset_unprovable_multiple"
    assert "k = 1 gives n0__v1 = 8" in diagnostic["message"]


def test_an_update_that_keeps_every_read_aligned_plans() -> None:
    assert plan_text(carried("n0 = n0 + 16"), filename="p.py").ok
    assert plan_text(carried("n0 += 32", before=False), filename="p.py").ok


def test_the_induction_bindings_distinguish_reads_before_and_after_the_update() -> None:
    (function,) = build_requests(carried("n0 = 16 + n0", before=False))
    bindings = [b.model_dump(exclude_none=True) for b in function.request.bindings]
    assert bindings[-2:] == [
        {"name": "n0__v1", "kind": "induction", "init": "n0", "step": 16, "loop": "k"},
        {"name": "n0__v2", "kind": "induction", "init": "n0 + 16", "step": 16, "loop": "k"},
    ]
    assert function.request.ops[0].offsets == ["n0__v2", 0]


def test_a_read_after_the_update_sees_the_next_value() -> None:
    assert plan_text(carried("n0 = n0 + 16", rows=64), filename="p.py").ok  # reads 0, 16, 32, 48
    after = codes(carried("n0 = n0 + 16", before=False, rows=64))  # reads 16, 32, 48, 64
    assert after == ["nz.window_out_of_bounds"]


def test_updates_that_are_not_inductions_are_unconstrained() -> None:
    in_branch = "if s > 0:\n    n0 = n0 + 16"
    for update in (in_branch, "n0 = n0 + s", "n0 = n0 * 2"):
        text = carried(update)
        (function,) = build_requests(text)
        kinds = {b.name: b.kind for b in function.request.bindings}
        assert kinds["n0__v1"] == "iter_arg"
        assert codes(text) == ["nz.offset_unprovable_multiple"]


def test_the_classifier_alone() -> None:
    body = ast.parse(
        "a = a + 4\nb -= 2\nif c:\n    d = d + 1\ne = e + 1\ne = e + 1\nf = 3 + f\ng = g + h"
    ).body
    found = inductions(body, lambda node: node.value if isinstance(node, ast.Constant) else None)
    assert found == {"a": Induction(4, 0), "b": Induction(-2, 1), "f": Induction(3, 5)}
