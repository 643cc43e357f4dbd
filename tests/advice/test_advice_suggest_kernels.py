"""`planner suggest` answers kernel by kernel, as `plan` does: a kernel that does not read is listed,
the weights of the others get their verdicts, and `--apply` annotates only eligible weights."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner.advice.suggest import suggest_text
from planner.cli import main
from planner.service.methods import invoke
from tests.support.paths import ROOT

READABLE = (ROOT / "examples" / "pypto" / "acc_store_nsplit.py").read_text(encoding="utf-8")
# The same kernel again with an NZ tensor of a dtype no table knows: it cannot be read, and its
# weight `b`, which would be a candidate, must get no verdict and no annotation.
UNREADABLE_KERNEL = """
    @pl.function(type=pl.FunctionType.InCore)
    def bad(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 1024], pl.FP16],
        s: pl.Tensor[[16, 16], pl.INT7, pl.NZ],
        out: pl.Out[pl.Tensor[[64, 1024], pl.FP32, pl.NZ]],
    ) -> pl.Tensor[[64, 1024], pl.FP32, pl.NZ]:
        at: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(
            a, [0, 0], [64, 128], target_memory=pl.Mem.Mat
        )
        bt: pl.Tile[[128, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(
            b, [0, 0], [128, 1024], target_memory=pl.Mem.Mat
        )
        acc: pl.Tile[[64, 1024], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(at, bt)
        out = pl.store(acc, [0, 0], out)
        return out
"""
MIXED = READABLE + UNREADABLE_KERNEL  # the readable kernel keeps every position it has alone
BAD_LINE = READABLE.count("\n") + 3  # `def bad(`
UNKNOWN_DTYPE = "adapter.pypto.unknown_dtype"
WEIGHT = "b: pl.Tensor[[128, 1024], pl.FP16],"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def verdicts(text: str) -> list[dict[str, Any]]:
    return [tensor.model_dump(mode="json") for tensor in suggest_text(text, filename="k.py").response.tensors]


def test_the_readable_kernels_weights_get_the_verdicts_they_get_alone() -> None:
    alone = verdicts(READABLE)
    assert [(t["name"], t["function"], t["eligible"]) for t in alone] == [("b", "main", True)]
    assert verdicts(MIXED) == alone


def test_json_lists_the_unreadable_kernel_at_its_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.py"
    path.write_text(MIXED, encoding="utf-8")
    code, out, _ = run(capsys, "suggest", str(path), "--json")
    assert code == 1
    answer = json.loads(out)
    assert [(t["name"], t["function"]) for t in answer["tensors"]] == [("b", "main")]
    [kernel] = answer["unread_kernels"]
    assert (kernel["name"], kernel["status"], kernel["code"]) == ("bad", "unreadable", UNKNOWN_DTYPE)
    assert kernel["line"] == BAD_LINE + 4 and "INT7" in kernel["reason"]  # the `s: ...` line
    assert answer == invoke("layout.suggest", {"text": MIXED, "filename": str(path)}, None)


def test_text_puts_the_kernels_error_line_in_file_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.py"
    path.write_text(MIXED, encoding="utf-8")
    code, out, _ = run(capsys, "suggest", str(path))
    verdict, error = out.splitlines()
    assert code == 1
    assert verdict.startswith(f"{path}:11:9: b in main: eligible: 1 load becomes NZ->NZ")
    assert error.startswith(f"{path}:{BAD_LINE + 4}:") and f"error: [{UNKNOWN_DTYPE}]" in error
    assert error.endswith("kernel 'bad' is unreadable: it cannot be read, so its weights get no verdict")
    first = READABLE.replace("class NzAccStore:\n", "class NzAccStore:" + UNREADABLE_KERNEL, 1)
    path.write_text(first, encoding="utf-8")
    code, out, _ = run(capsys, "suggest", str(path))
    assert code == 1
    assert [line.split(": ")[1] for line in out.splitlines()] == ["error", "b in main"]


def test_apply_annotates_only_the_eligible_weight_and_never_the_unreadable_kernel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.py"
    path.write_text(MIXED, encoding="utf-8")
    code, _, err = run(capsys, "suggest", str(path), "--apply", "-o", str(tmp_path / "nz.py"))
    assert code == 1 and "annotated b in main with pl.NZ" in err
    annotated = (tmp_path / "nz.py").read_text(encoding="utf-8")
    nz_weight = WEIGHT.replace("pl.FP16]", "pl.FP16, pl.NZ]")
    assert annotated == READABLE.replace(WEIGHT, nz_weight) + UNREADABLE_KERNEL
    assert path.read_text(encoding="utf-8") == MIXED


def test_a_file_none_of_whose_kernels_reads_is_still_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.py"
    only_bad = READABLE[: READABLE.index("    @pl.function")] + UNREADABLE_KERNEL.lstrip("\n")
    path.write_text(only_bad, encoding="utf-8")
    code, out, err = run(capsys, "suggest", str(path), "--apply")
    assert code == 2 and f"[{UNKNOWN_DTYPE}]" in err and out == ""
    assert path.read_text(encoding="utf-8") == only_bad
