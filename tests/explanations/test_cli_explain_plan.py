"""`planner explain`: every decision of a resolved kernel as a remark at its deciding op, exactly.

`tests/explain/<example>.remarks` holds the exact output of `planner explain <example>` run
from `examples/`.
"""

from __future__ import annotations

import os

import pytest

from planner.cli import main
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
EXPECTED = ROOT / "tests" / "explain"


@pytest.mark.parametrize(
    "example",
    [
        "ttlang/fpu_sfpu_mix.mlir",  # FPU preferred, SFPU forced (not an option), 16 bits by default
        "ttlang/f32_unpack.mlir",  # unpack modes forced by their readers, full sync by policy
        "ttlang/reduce_preference.mlir",  # 32 bits preferred by the full-fp32 knobs
        "ttlang/direct_blackhole.mlir",  # 16 bits forced by a bf16 broadcast on Blackhole
        "ttlang/split_modules.mlir",  # several functions; policy and explicit strategies
        "json/kernelcfg-resolve.json",  # a protocol request: remarks name the op ids
    ],
)
def test_each_decision_is_a_remark_at_its_op(
    example: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLES)
    assert main(["explain", example]) == 0
    expected = (EXPECTED / f"{os.path.basename(example)}.remarks").read_text()
    assert capsys.readouterr().out == expected


def test_a_refused_file_is_explained_as_explain_conflict_does(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "ttlang/unpack_conflict.mlir")
    assert main(["explain-conflict", path]) == 1
    conflict = capsys.readouterr().out
    assert main(["explain", path]) == 1
    assert capsys.readouterr().out == conflict


def test_full_sync_chosen_for_dst_capacity_is_a_remark_at_the_op_that_needs_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five bf16 tiles in 32-bit DST: double buffering gives 4 slots, so the sync is full."""
    monkeypatch.chdir(EXPECTED)
    assert main(["explain", "five_rows.mlir"]) == 0
    assert capsys.readouterr().out == (EXPECTED / "five_rows.mlir.remarks").read_text()
