"""Printed IR in the forms the PyPTO printer writes before lowering (docs/design/nz-layout.md 17, 18)."""

from __future__ import annotations

import pytest

from planner.adapters.pypto import plan_text

RETARGET_BEFORE = """\
# pypto.program: Retarget
import pypto.language as pl


@pl.program
class Retarget:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[800, 512], pl.INT8, pl.NZ]):
        for nb in pl.spmd(4):
            n0: pl.Scalar[pl.INDEX] = pl.max(nb * 256, 0)
            with pl.scope():
                rows: pl.Scalar[pl.INDEX] = pl.min(800 - n0, 256)
                xt = pl.tile.load(x, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
                wt = pl.slice(w, [256, 512], [n0, 0], valid_shape=[rows, 512])
                acc = pl.tile.matmul(xt, wt, b_trans=True)
        return acc
"""

RETARGET_AFTER = (
    RETARGET_BEFORE.replace(
        "    @pl.function(type=pl.FunctionType.InCore)\n",
        '    @pl.function(type=pl.FunctionType.InCore, attrs={"nz_tensor_views_blocked": True})\n',
    )
    .replace("w: pl.Tensor[[800, 512], pl.INT8, pl.NZ]", "w: pl.Tensor[[1, 16, 50, 16, 32], pl.INT8, pl.NZ]")
    .replace(
        "wt = pl.slice(w, [256, 512], [n0, 0], valid_shape=[rows, 512])",
        "wt: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(w, [0, 0, n0 // 16, 0, 0], "
        "[1, 16, 16, 16, 32], [1, 16, rows // 16, 16, 32], target_memory=pl.Mem.Mat)",
    )
)


def test_a_slice_feeding_a_matmul_in_a_kernel_is_printed_as_its_annotated_mat_load() -> None:
    outcome = plan_text(RETARGET_BEFORE)
    assert outcome.ok, outcome.diagnostics
    assert outcome.text == RETARGET_AFTER


def test_planning_the_planned_program_changes_nothing() -> None:
    assert plan_text(RETARGET_AFTER).text == RETARGET_AFTER


def test_pl_min_and_pl_max_are_read_as_min_and_max() -> None:
    (function,) = plan_text(RETARGET_BEFORE).report["functions"]
    bindings = {binding["name"]: binding.get("expr") for binding in function["request"]["bindings"]}
    assert (bindings["n0"], bindings["rows"]) == ("max(nb * 256, 0)", "min(800 - n0, 256)")


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        # annotated as a tensor: the printed program says it is a slice, and a trailing window is refused
        (
            "wt: pl.Tensor[[256, 512], pl.INT8, pl.NZ] = "
            "pl.slice(w, [256, 512], [n0, 0], valid_shape=[rows, 512])",
            "nz.slice_trailing_window",
        ),
        # not read by a matmul: a slice, refused the same way
        (
            "wt = pl.slice(w, [256, 512], [n0, 0], valid_shape=[rows, 512]); acc = xt",
            "nz.slice_trailing_window",
        ),
    ],
)
def test_other_trailing_slices_stay_slices_and_are_refused_with_the_input_unchanged(
    statement: str, code: str
) -> None:
    text = RETARGET_BEFORE.replace(
        "wt = pl.slice(w, [256, 512], [n0, 0], valid_shape=[rows, 512])", statement
    )
    text = text.replace("acc = pl.tile.matmul(xt, wt, b_trans=True)", "pass")
    outcome = plan_text(text)
    assert not outcome.ok and outcome.text == text
    assert [d["code"] for d in outcome.report["functions"][0]["response"]["diagnostics"]] == [code]
