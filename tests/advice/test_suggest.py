"""`planner suggest` / `layout.suggest`: which ND weights may be `pl.NZ`; `--apply` writes exactly that."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from planner.adapters.protocol import AdapterPlanRequest
from planner.advice import suggest as suggest_module
from planner.advice.suggest import suggest, suggest_text
from planner.advice.weight_feeds import b_operand_parameters
from planner.cli import main
from planner.errors import RequestError
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse
from planner.service.methods import invoke
from tests.support.paths import ROOT

EXAMPLE = ROOT / "examples" / "pypto" / "suggest_weights.py"
JIT_EXAMPLE = ROOT / "examples" / "pypto" / "jit_suggest_weights.py"
JIT_SOURCE = JIT_EXAMPLE.read_text(encoding="utf-8")
SOURCE = EXAMPLE.read_text(encoding="utf-8")
# The same program annotated by hand: the two weights that plan as NZ, nothing else.
HAND_ANNOTATED = SOURCE.replace(
    "w_up: pl.Tensor[[512, 2048], pl.INT8],", "w_up: pl.Tensor[[512, 2048], pl.INT8, pl.NZ],"
).replace(
    "w_experts: pl.Tensor[[4, 256, 512], pl.INT8],", "w_experts: pl.Tensor[[4, 256, 512], pl.INT8, pl.NZ],"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def verdicts() -> list[dict[str, Any]]:
    return [
        tensor.model_dump(mode="json") for tensor in suggest_text(SOURCE, filename="w.py").response.tensors
    ]


def test_every_b_operand_weight_gets_its_exact_verdict() -> None:
    summary = [
        (
            t["name"],
            t["eligible"],
            (t["line"], t["column"]),
            [(load["op"], load["line"], load["bytes_not_converted"]) for load in t["loads"]],
            t["bytes_not_converted_total"],
            t["blocking"] and (t["blocking"]["code"], t["blocking"]["op"], t["blocking"]["counterexample"]),
        )
        for t in verdicts()
    ]
    assert summary == [
        ("w_up", True, (18, 9), [("load0", 38, 131072)], 131072, None),
        (
            "w_gate",
            False,
            (41, 64),
            [],
            0,
            ("nz.offset_unprovable_multiple", "load0", {"g0": 8, "nb": 1}),
        ),
        ("w_view", False, (52, 16), [], 0, ("nz.tensor_view_of_nz", "view1", None)),
        ("w_experts", True, (21, 9), [("load1", 58, 131072)], 131072, None),
        ("w_col", False, (22, 9), [], 0, ("nz.cols_not_multiple_of_c0", None, None)),
    ]


def test_activations_and_vec_reads_are_not_candidates() -> None:
    names = [t["name"] for t in verdicts()]
    assert "x" not in names  # only ever the A operand
    text = SOURCE.replace(
        "w_col, [0, 0], [16, 1], target_memory=pl.Mem.Mat", "w_col, [0, 0], [16, 1], target_memory=pl.Mem.Vec"
    )
    assert text != SOURCE
    assert "w_col" not in [t.name for t in suggest_text(text).response.tensors]


def test_human_text_is_one_line_per_tensor_with_the_verdict_and_blocking_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "suggest", str(EXAMPLE))
    assert code == 0
    lines = out.splitlines()
    assert [line.split(": ")[1:3] for line in lines] == [
        ["w_up in main", "eligible"],
        ["w_gate in main", "ineligible"],
        ["w_view in main", "ineligible"],
        ["w_experts in main", "eligible"],
        ["w_col in main", "ineligible"],
    ]
    assert lines[0] == (
        f"{EXAMPLE}:18:9: w_up in main: eligible: 1 load becomes NZ->NZ; "
        "bytes no longer converted per execution: 38:64 131072 (total 131072)"
    )
    assert f"{EXAMPLE}:41:64: w_gate in main: ineligible: [nz.offset_unprovable_multiple] " in lines[1]
    assert "[nz.tensor_view_of_nz]" in lines[2] and "[nz.cols_not_multiple_of_c0]" in lines[4]


def test_json_cli_and_protocol_method_answer_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "suggest", str(EXAMPLE), "--json")
    assert code == 0
    request = {"text": SOURCE, "filename": str(EXAMPLE)}
    assert json.loads(out) == invoke("layout.suggest", request, None)
    assert json.loads(out)["tensors"] == [
        t.model_dump(mode="json") for t in suggest(AdapterPlanRequest(**request)).tensors
    ]


def test_apply_writes_the_hand_annotation_then_changes_nothing_and_plan_plans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "weights.py"
    program.write_text(SOURCE, encoding="utf-8")
    code, _, err = run(capsys, "suggest", str(program), "--apply", "-o", str(tmp_path / "nz.py"))
    assert code == 0 and "annotated w_up in main, w_experts in main with pl.NZ" in err
    assert program.read_text(encoding="utf-8") == SOURCE
    assert (tmp_path / "nz.py").read_text(encoding="utf-8") == HAND_ANNOTATED
    code, _, _ = run(capsys, "suggest", str(program), "--apply")
    assert code == 0 and program.read_text(encoding="utf-8") == HAND_ANNOTATED
    code, out, _ = run(capsys, "suggest", str(program), "--apply", "--json")
    assert code == 0 and program.read_text(encoding="utf-8") == HAND_ANNOTATED
    assert [t["name"] for t in json.loads(out)["tensors"]] == ["w_gate", "w_view", "w_col"]
    code, planned, _ = run(capsys, "plan", str(program))
    assert code == 0
    assert "w_up: pl.Tensor[[1, 64, 32, 16, 32], pl.INT8, pl.NZ]" in planned


def test_an_nd_layout_slot_is_replaced_not_duplicated() -> None:
    text = SOURCE.replace(
        "w_up: pl.Tensor[[512, 2048], pl.INT8],", "w_up: pl.Tensor[[512, 2048], pl.INT8, pl.ND],"
    )
    annotated = suggest_text(text).annotated
    assert annotated == HAND_ANNOTATED


@pytest.mark.parametrize(
    ("name", "text", "code_text"),
    [
        ("k.mlir", "func.func @f() { return }\n", "[request.invalid_params]"),
        ("bad.py", "import pypto.language as pl\ndef (:\n", "[adapter.pypto.syntax_error]"),
        ("none.py", "x = 1\n", "[adapter.pypto.not_a_program]"),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, code_text: str
) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "suggest", str(tmp_path / name), "--apply")
    assert code == 2 and code_text in err and out == ""
    assert (tmp_path / name).read_text(encoding="utf-8") == text


def _fed(source: str) -> frozenset[str]:
    function = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return b_operand_parameters(function, frozenset(arg.arg for arg in function.args.args))


def test_b_operand_feeds_follow_windows_extracts_carried_values_and_rhs() -> None:
    assert _fed(
        """
        def f(x, w, v, u, s):
            acc = pl.matmul(x[:, 0:512], w[0:256, 0:512], b_trans=True)
            for k0, (a,) in pl.range(0, 4, 1, init_values=(acc,)):
                vt = pl.tile.load(v, [0, k0], [256, 512], target_memory=pl.Mem.Mat)
                vr = pl.tile.extract(vt, 0, 0, shape=[256, 512], target_memory=pl.Mem.Right)
                a = pl.matmul_acc(a, x, vr)
            ut = pl.tile.load(u, [0, 0], [256, 512], target_memory=pl.Mem.Vec)
            b = pl.matmul(x, ut)
            st = pl.load(s, [0, 0], [256, 512], target_memory=pl.Mem.Mat)
            c = pl.matmul(lhs=x, rhs=st)
        """
    ) == {"w", "v", "s"}


def _summary(text: str) -> list[tuple[Any, ...]]:
    return [
        (
            t.name,
            t.function,
            t.eligible,
            t.also_annotated,
            [(load.line, load.bytes_not_converted) for load in t.loads],
            t.blocking and t.blocking.code,
            (t.line, t.column),
        )
        for t in suggest_text(text).response.tensors
    ]


def test_jit_source_weights_get_exact_verdicts_and_callers_follow_their_kernel() -> None:
    assert _summary(JIT_SOURCE) == [
        ("w", "expert_matmul", True, ["w in grouped"], [(19, 131072), (21, 131072)], None, (14, 5)),
        ("w_gate", "projections", False, [], [], "nz.offset_unprovable_multiple", (48, 41)),
        ("w_view", "projections", False, [], [], "nz.tensor_view_of_nz", (51, 12)),
        ("w_col", "projections", False, [], [], "nz.cols_not_multiple_of_c0", (42, 5)),
    ]


def test_jit_apply_annotates_the_kernel_and_its_caller_and_the_result_plans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hand_annotated = JIT_SOURCE.replace(
        "w: pl.Tensor[[4, 256, 1024], pl.FP16],", "w: pl.Tensor[[4, 256, 1024], pl.FP16, pl.NZ],"
    )
    assert hand_annotated.count("pl.FP16, pl.NZ]") == 2
    program = tmp_path / "jit.py"
    program.write_text(JIT_SOURCE, encoding="utf-8")
    code, _, err = run(capsys, "suggest", str(program), "--apply")
    assert code == 0 and "annotated w in expert_matmul, w in grouped with pl.NZ" in err
    assert program.read_text(encoding="utf-8") == hand_annotated
    code, _, _ = run(capsys, "suggest", str(program), "--apply")
    assert code == 0 and program.read_text(encoding="utf-8") == hand_annotated
    code, notes, _ = run(capsys, "plan", str(program))
    assert code == 0
    assert f"{program}:14:5: note: NZ tensor 'w': blocked shape [4, 64, 16, 16, 16]" in notes


def test_a_caller_passing_a_value_no_annotation_makes_nz_blocks_the_weight() -> None:
    text = JIT_SOURCE.replace(
        "out = expert_matmul(x, w, e, out)",
        "out = expert_matmul(x, pl.slice(w, [4, 256, 1024], [0, 0, 0]), e, out)",
    )
    [weight, *_] = suggest_text(text).response.tensors
    assert (weight.name, weight.eligible, weight.also_annotated) == ("w", False, [])
    assert weight.blocking is not None and weight.blocking.code == "adapter.pypto.nd_argument_for_nz"
    assert (weight.line, weight.column) == (33, 32)
    assert "grouped passes it 'pl.slice(w, [4, 256, 1024], [0, 0, 0])'" in weight.blocking.message


LAUNCH_DEPENDENT = """# pypto.program: Warn
import pypto.language as pl


@pl.program
class Warn:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        x: pl.Tensor[[64, 512], pl.INT8],
        w: pl.Tensor[[256, 512], pl.INT8],
        out: pl.Out[pl.Tensor[[64, 256], pl.INT32]],
    ) -> pl.Tensor[[64, 256], pl.INT32]:
        blk = pl.tile.get_block_idx()
        n0: pl.Scalar[pl.INDEX] = (blk % 2) * 256
        xt = pl.tile.load(x, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
        wt = pl.tile.load(w, [n0, 0], [256, 512], target_memory=pl.Mem.Mat)
        c: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(xt, wt, b_trans=True)
        out = pl.store(c, [0, 0], out)
        return out
"""


def test_a_launch_dependent_window_bound_is_a_warning_that_leaves_the_weight_eligible(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    [weight] = suggest_text(LAUNCH_DEPENDENT).response.tensors
    assert (weight.name, weight.eligible, weight.blocking) == ("w", True, None)
    assert [(w.code, w.op) for w in weight.warnings] == [("nz.window_bounds_unproven", "load0")]
    (tmp_path / "warn.py").write_text(LAUNCH_DEPENDENT, encoding="utf-8")
    code, out, _ = run(capsys, "suggest", str(tmp_path / "warn.py"))
    assert code == 0 and out.endswith("(total 131072); warning: [nz.window_bounds_unproven]\n")


PROJECT = """
@pl.program
class {name}:
    @pl.function(type=pl.FunctionType.InCore)
    def project(
        self,
        x: pl.Tensor[[64, 512], pl.FP16],
        w: pl.Tensor[[256, 512], pl.FP16],
        out: pl.Out[pl.Tensor[[64, 256], pl.FP32]],
    ) -> pl.Tensor[[64, 256], pl.FP32]:
        xt: pl.Tile[[64, 512], pl.FP16, pl.Mem.Mat] = pl.tile.load(
            x, [0, 0], [64, 512], target_memory=pl.Mem.Mat
        )
        wt: pl.Tile[[256, 512], pl.FP16, pl.Mem.Mat] = pl.tile.load(
            w, [0, 0], [256, 512], target_memory=pl.Mem.Mat
        )
        acc: pl.Tile[[64, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(xt, wt, b_trans=True)
        out = pl.store(acc, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[64, 512], pl.FP16],
        w: pl.Tensor[[{rows}, 512], pl.FP16],
        out: pl.Out[pl.Tensor[[64, 256], pl.FP32]],
    ) -> pl.Tensor[[64, 256], pl.FP32]:
        out = self.project(x, {passed}, out)
        return out
"""


def test_a_weight_follows_only_the_callers_of_its_own_program_class(tmp_path: Path) -> None:
    """Two program classes each with a `project` and a `main`: `Left`'s weight is annotated with
    `Left.main`'s alone, and `Right.main` passing a slice blocks `Right`'s weight, not `Left`'s."""
    left = PROJECT.format(name="Left", rows=256, passed="w")
    right = PROJECT.format(name="Right", rows=512, passed="pl.slice(w, [256, 512], [0, 0])")
    text = "import pypto.language as pl\n\n" + left + "\n" + right
    left_weight, right_weight = suggest_text(text, filename="two.py").response.tensors
    assert (left_weight.eligible, left_weight.also_annotated, left_weight.line) == (True, ["w in main"], 10)
    slice_line = text[: text.index("pl.slice(w")].count("\n") + 1
    assert (right_weight.eligible, right_weight.line) == (False, slice_line)
    assert (
        right_weight.blocking is not None and right_weight.blocking.code == "adapter.pypto.nd_argument_for_nz"
    )
    program = tmp_path / "two.py"
    program.write_text(text, encoding="utf-8")
    assert main(["suggest", str(program), "--apply"]) == 0
    annotated = program.read_text(encoding="utf-8")
    assert annotated.count("pl.FP16, pl.NZ]") == 2
    assert annotated.index("class Right") > annotated.rindex("pl.FP16, pl.NZ]")


def test_a_request_the_planner_rejects_blocks_its_weight_instead_of_stopping_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dry run whose request the planner rejects (`request.invalid`) is that weight's blocker; the
    other weights keep their verdicts and the file still answers."""

    def rejecting_w_up(request: LayoutPlanRequest) -> LayoutPlanResponse:
        if any(tensor.name == "w_up" for tensor in request.tensors):
            raise RequestError("request.invalid", "a rejected request")
        return plan(request)

    monkeypatch.setattr(suggest_module, "plan", rejecting_w_up)
    tensors = {t.name: t for t in suggest_text(SOURCE, filename="w.py").response.tensors}
    rejected = tensors["w_up"]
    assert (rejected.eligible, rejected.line, rejected.column) == (False, 18, 9)
    assert rejected.blocking is not None and rejected.blocking.code == "adapter.pypto.invalid_request"
    assert rejected.blocking.message == "with w_up NZ, the planner rejected the request: a rejected request"
    assert tensors["w_experts"].eligible
