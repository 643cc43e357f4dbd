"""PyPTO source (`@pl.jit`, bare `@pl.program`): reported, not rewritten (docs/design/nz-layout.md 18)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from planner.adapters.outcome import AdapterInputError, AdapterOutcome
from planner.adapters.pypto import plan_text
from planner.cli import main
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "pypto"
PLANNER = str(Path(sys.executable).with_name("planner"))

HEAD = "import pypto.language as pl\n\n\n"


def plan(text: str, **options: str) -> AdapterOutcome:
    outcome = plan_text(text, filename="k.py", options=options)
    assert outcome.text == text  # source is reported, never rewritten
    return outcome


def jit(
    body: str, params: str = "w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ]", decorator: str = "@pl.jit"
) -> str:
    return HEAD + f"{decorator}\ndef kernel({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def notes(outcome: AdapterOutcome) -> list[str]:
    assert outcome.ok, outcome.diagnostics
    assert outcome.notes is not None
    return [note.removeprefix("k.py:") for note in outcome.notes]


def accesses(outcome: AdapterOutcome) -> list[dict[str, Any]]:
    return [
        note for entry in outcome.report["functions"] for note in entry["notes"] if note["kind"] == "access"
    ]


def codes(outcome: AdapterOutcome) -> list[str]:
    assert not outcome.ok and outcome.notes is None
    return [
        diagnostic["code"]
        for entry in outcome.report["functions"]
        for diagnostic in entry["response"]["diagnostics"]
    ]


# ---- the split-K kernel: before (source) and after (the planned loads) ----------------------------

SPLIT_K = (EXAMPLES / "jit_split_k.py").read_text()


def test_split_k_subscripts_are_planned_as_blocked_mat_loads() -> None:
    outcome = plan(SPLIT_K)
    assert [(note["line"], note["op"], note["offsets"], note["shapes"]) for note in accesses(outcome)] == [
        (19, "tile.load", [0, 0, "n0 // 16", 0, 0], [1, 16, 16, 16, 32]),
        (21, "tile.load", [0, "k0 // 32", "n0 // 16", 0, 0], [1, 16, 16, 16, 32]),
    ]


def test_split_k_report_notes() -> None:
    assert notes(plan(SPLIT_K)) == [
        "14:5: note: NZ tensor 'w': blocked shape [1, 64, 32, 16, 32], strides [1048576, 16384, 512, 32, 1]",
        "19:41: note: w[n0 : n0 + N_TILE, 0:K_TILE]: tile.load into Mat offsets [0, 0, n0 // 16, 0, 0], "
        "shapes [1, 16, 16, 16, 32]",
        "19:41: note: obligation n0 % 16 == 0 (axis -2): proven",
        "19:41: note: obligation n0 >= 0 (axis -2): proven",
        "19:41: note: obligation n0 + 256 <= 512 (axis -2): proven",
        "19:41: note: obligation 512 <= 2048 (axis -1): proven",
        "21:18: note: w[n0 : n0 + N_TILE, k0 : k0 + K_TILE]: tile.load into Mat offsets "
        "[0, k0 // 32, n0 // 16, 0, 0], shapes [1, 16, 16, 16, 32]",
        "21:18: note: obligation n0 % 16 == 0 (axis -2): proven",
        "21:18: note: obligation n0 >= 0 (axis -2): proven",
        "21:18: note: obligation k0 % 32 == 0 (axis -1): proven",
        "21:18: note: obligation k0 >= 0 (axis -1): proven",
        "21:18: note: obligation n0 + 256 <= 512 (axis -2): proven",
        "21:18: note: obligation k0 + 512 <= 2048 (axis -1): proven",
    ]


def test_the_cli_prints_the_notes_writes_the_json_report_and_leaves_the_source_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = tmp_path / "split_k.py"
    kernel.write_text(SPLIT_K)
    report = tmp_path / "report.json"
    code = main(["plan", str(kernel), "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0 and kernel.read_text() == SPLIT_K
    assert out.splitlines()[
        0
    ] == f"{kernel}:14:5: note: NZ tensor 'w': blocked shape [1, 64, 32, 16, 32], " + (
        "strides [1048576, 16384, 512, 32, 1]"
    )
    written = json.loads(report.read_text())
    assert written["form"] == "source"
    (function,) = written["functions"]
    statuses = [
        (note["expr"], note["goal"], note["status"])
        for note in function["notes"]
        if note["kind"] == "obligation"
    ]
    assert statuses[-4:] == [
        ("k0", "multiple_of", "proven"),
        ("k0", "non_negative", "proven"),
        ("n0 + 256", "at_most", "proven"),
        ("k0 + 512", "at_most", "proven"),
    ]
    assert len(out.splitlines()) == len(function["notes"])


def test_stdin_is_detected_by_its_import_and_decorators() -> None:
    result = subprocess.run([PLANNER, "plan", "-"], input=SPLIT_K, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("<stdin>:14:5: note: NZ tensor 'w'")


# ---- the lowering rule (section 18) ----------------------------------------------------------------


def test_a_leading_axis_subscript_is_a_slice_and_a_window_of_it_a_load() -> None:
    outcome = plan(
        jit(
            """\
            we = w[e]
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.matmul(x, we[0:256, 512:1024], b_trans=True)
            return acc
            """,
            "x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[4, 512, 1024], pl.INT8, pl.NZ], "
            "e: pl.Scalar[pl.INDEX]",
        )
    )
    assert [(note["op"], note["offsets"], note["shapes"]) for note in accesses(outcome)] == [
        ("tensor.slice", ["e", 0, 0, 0, 0], [1, 32, 32, 16, 32]),
        ("tile.load", [0, 16, 0, 0, 0], [1, 16, 16, 16, 32]),
    ]


def test_pl_slice_with_a_ragged_valid_shape_is_a_load_with_blocked_valid_rows() -> None:
    outcome = plan((EXAMPLES / "jit_ragged_tail.py").read_text())
    (access,) = accesses(outcome)
    assert (access["offsets"], access["shapes"], access["valid_shape"]) == (
        [0, 0, "n0 // 16", 0, 0],
        [1, 32, 16, 16, 16],
        [1, 32, "rows // 16", 16, 16],
    )
    statuses = [(note["expr"], note["status"]) for note in outcome.report["functions"][0]["notes"][2:]]
    assert ("rows", "proven") in statuses


def test_a_window_that_feeds_no_matmul_is_a_vec_load_and_refused() -> None:
    outcome = plan(
        jit("with pl.at(level=pl.Level.CORE_GROUP):\n    t = pl.add(w[0:256, 0:512], 1)\nreturn t\n")
    )
    assert codes(outcome) == ["nz.load_target_not_mat"]


def test_a_trailing_window_outside_a_kernel_is_a_slice_and_refused() -> None:
    outcome = plan(jit("t = w[0:256, 0:512]\nreturn t\n"))
    assert codes(outcome) == ["nz.slice_trailing_window"]


def test_a_jit_incore_body_is_a_kernel_and_pl_scope_only_groups() -> None:
    body = "with pl.scope():\n    acc = pl.matmul(x, w[0:256, 0:512], b_trans=True)\nreturn acc\n"
    params = "x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ]"
    (access,) = accesses(plan(jit(body, params, "@pl.jit.incore")))
    assert access["op"] == "tile.load" and access["offsets"] == [0, 0, 0, 0, 0]
    assert codes(plan(jit(body, params))) == ["nz.slice_trailing_window"]  # an orchestration body: no kernel


def test_a_window_bound_to_a_name_feeds_the_matmul_through_the_name_and_around_the_loop() -> None:
    body = """\
    for nb in pl.spmd(2):
        wt = w[0:256, 0:512]
        for k in pl.range(1, 4):
            acc = pl.matmul(x, wt, b_trans=True)
            wt = w[0:256, k * 512 : k * 512 + 512]
    return acc
    """
    params = "x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ]"
    assert [note["offsets"] for note in accesses(plan(jit(body, params)))] == [
        [0, 0, 0, 0, 0],
        [0, "k * 512 // 32", 0, 0, 0],
    ]


def test_pl_min_pl_max_and_pl_const_are_the_scalar_functions() -> None:
    body = """\
    for nb in pl.spmd(4):
        n0 = pl.max(nb * 128, pl.const(0, pl.INT64))
        rows = pl.min(512 - n0, 128)
        wt = pl.slice(w, [128, 512], [n0, 0], valid_shape=[rows, 512])
        acc = pl.matmul(x, wt, b_trans=True)
    return acc
    """
    params = "x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ]"
    outcome = plan(jit(body, params))
    bindings = outcome.report["functions"][0]["request"]["bindings"]
    assert {binding["name"]: binding.get("expr") for binding in bindings if binding["kind"] == "assign"} == {
        "n0": "max(nb * 128, 0)",
        "rows": "min(512 - n0, 128)",
    }
    assert accesses(outcome)[0]["valid_shape"] == [1, 16, "rows // 16", 16, 32]


def test_a_scalar_reassigned_in_the_loop_is_never_read_as_its_initial_value() -> None:
    body = """\
    with pl.at(level=pl.Level.CORE_GROUP):
        n0 = 0
        for k in pl.range(4):
            acc = pl.matmul(x, w[n0 : n0 + 16, 0:512], b_trans=True)
            n0 = n0 + 8
    return acc
    """
    params = "x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ]"
    outcome = plan(jit(body, params))
    assert codes(outcome) == ["nz.offset_unprovable_multiple"]


# ---- writes into NZ: accumulator stores (section 11) ----------------------------------------------

STORE_PARAMS = (
    "x: pl.Tensor[[64, 256], pl.FP16], w: pl.Tensor[[256, 256], pl.FP16, pl.NZ], "
    "out: pl.Out[pl.Tensor[[64, 512], pl.FP32, pl.NZ]]"
)
STORE_BODY = """\
with pl.at(level=pl.Level.CORE_GROUP):
    acc = pl.matmul(x, w[:, :], out_dtype=pl.FP32, b_trans=True)
    {write}
return out
"""


@pytest.mark.parametrize(
    "write",
    [
        "out[:, 256:512] = acc",
        "out = pl.assemble(out, acc, [0, 256])",
        "out = pl.tensor.assemble(out, acc, [0, 256])",
    ],
)
def test_a_write_of_a_matmul_result_into_nz_is_an_accumulator_store(write: str) -> None:
    body = STORE_BODY.format(write=write)
    store = accesses(plan(jit(body, STORE_PARAMS)))[-1]
    assert (store["op"], store["offsets"], store["partition"]) == (
        "tile.store",
        [0, 32, 0, 0, 0],
        [1, 32, 4, 16, 8],
    )


@pytest.mark.parametrize(
    ("write", "code"),
    [
        ("out[0:64, 0:256] = x[:, 0:256]", "nz.store_source_memory"),
        ("out = pl.assemble(out, acc, [0, 4])", "nz.store_column_offset_unaligned"),
        ("out = pl.assemble(out, acc, [0, 0], atomic=pl.AtomicType.Add)", "nz.store_attribute"),
    ],
)
def test_other_writes_into_nz_are_refused_with_the_store_codes(write: str, code: str) -> None:
    body = STORE_BODY.format(write=write)
    assert codes(plan(jit(body, STORE_PARAMS))) == [code]


# ---- entry points ----------------------------------------------------------------------------------


def test_several_kernels_and_a_headerless_program_class_are_all_planned() -> None:
    text = HEAD + textwrap.dedent(
        """\
        @pl.program
        class Classic:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]):
                wt: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    w, [0, 0], [256, 512], target_memory=pl.Mem.Mat
                )
                return wt


        @pl.jit.incore
        def first(x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]):
            return pl.matmul(x, w[0:128, :], b_trans=True)


        @pl.jit
        def second(x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]):
            return first(x, w)
        """
    )
    outcome = plan(text)
    assert [entry["name"] for entry in outcome.report["functions"]] == ["main", "first", "second"]
    assert [(note["line"], note["op"]) for note in accesses(outcome)] == [
        (8, "tile.load"),
        (16, "tile.load"),
        (21, "call"),
    ]


@pytest.mark.parametrize(
    ("body", "construct", "position"),
    [
        ("t = w[..., 0:32]\n", "a starred or ellipsis subscript", (6, 11)),
        ("t = w[*w]\n", "a starred or ellipsis subscript", (6, 11)),
    ],
)
def test_what_is_not_understood_is_refused_at_its_position(
    body: str, construct: str, position: tuple[int, int]
) -> None:
    with pytest.raises(AdapterInputError) as raised:
        plan_text(jit(body))
    error = raised.value
    assert (error.code, (error.line, error.column)) == ("adapter.pypto.unsupported_construct", position)
    assert construct in error.message


def test_a_refused_file_is_left_byte_identical_and_nothing_is_printed(tmp_path: Path) -> None:
    kernel = tmp_path / "k.py"
    text = jit("t = w[..., 0:32]\n")
    kernel.write_text(text)
    result = subprocess.run([PLANNER, "plan", str(kernel)], capture_output=True, text=True)
    assert (result.returncode, result.stdout) == (2, "")
    assert "adapter.pypto.unsupported_construct" in result.stderr and kernel.read_text() == text


def test_the_source_kernel_and_its_lowered_printed_program_get_the_same_load() -> None:
    """`jit_split_k.py` is what users write; `nz_matmul_spmd.py` is the printed IR after lowering."""
    printed = plan_text((EXAMPLES / "nz_matmul_spmd.py").read_text()).text
    assert (
        "pl.tile.load(\n                    w, [0, k0 // 32, n0 // 16, 0, 0], [1, 16, 16, 16, 32]" in printed
    )
    pipelined = accesses(plan(SPLIT_K))[-1]
    assert (pipelined["offsets"], pipelined["shapes"]) == (
        [0, "k0 // 32", "n0 // 16", 0, 0],
        [1, 16, 16, 16, 32],
    )


def test_unshaped_parameters_and_dynamic_extents() -> None:
    text = HEAD + textwrap.dedent(
        """\
        B = pl.dynamic("B")


        @pl.jit.incore
        def kernel(x: pl.Tensor, out: pl.Out[pl.Tensor], w: pl.Tensor[[B, 256, 512], pl.INT8, pl.NZ]):
            return pl.matmul(x, w[0, 0:256, 0:512], b_trans=True)
        """
    )
    outcome = plan(text)
    (tensor,) = [note for note in outcome.report["functions"][0]["notes"] if note["kind"] == "tensor"]
    assert tensor["shape"] == ["B", 16, 16, 16, 32]
    assert codes(
        plan(text.replace("[B, 256, 512]", "[256, B]").replace("w[0, 0:256, 0:512]", "w[0:256, 0:512]"))
    ) == ["nz.dynamic_trailing_extent"]


def test_the_language_may_be_imported_from_the_package() -> None:
    text = SPLIT_K.replace("import pypto.language as pl", "from pypto import language as pl")
    assert accesses(plan(text))[-1]["offsets"] == [0, "k0 // 32", "n0 // 16", 0, 0]
    result = subprocess.run([PLANNER, "plan", "-"], input=text, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("<stdin>:14:5: note:")


def test_pl_slice_takes_the_dsl_keyword_names() -> None:
    window = "pl.slice(input=w, shape=[256, 512], offset=[256, 1024])"
    body = f"with pl.incore():\n    acc = pl.matmul(x, {window})\nreturn acc\n"
    params = "x: pl.Tensor[[64, 256], pl.INT8], w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ]"
    (load,) = accesses(plan(jit(body, params)))
    assert (load["offsets"], load["shapes"]) == ([0, 32, 16, 0, 0], [1, 16, 16, 16, 32])


def test_a_refusal_points_at_the_source_and_reports_the_refuted_obligation() -> None:
    body = "for nb in pl.spmd(4):\n    n0 = nb * 8\n    acc = pl.matmul(x, w[n0 : n0 + 16, :])\nreturn acc\n"
    outcome = plan(jit(body, "x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ]"))
    assert codes(outcome) == ["nz.offset_unprovable_multiple"]
    assert outcome.diagnostics[0].startswith("k.py:8:28: error: [nz.offset_unprovable_multiple]")
    (note,) = outcome.report["functions"][0]["notes"]
    assert (note["line"], note["column"], note["status"], note["counterexample"]) == (
        8,
        28,
        "refuted",
        {"n0": 8, "nb": 1},
    )


TYPED = """\
for k in pl.range(4):
    n0: pl.Scalar[pl.{n0}] = {value}
    acc = pl.matmul(x, w[n0 : n0 + 16, :])
return acc
"""
TYPED_PARAMS = (
    "x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[8192, 512], pl.INT8, pl.NZ], u: pl.Scalar[pl.{u}]"
)


@pytest.mark.parametrize(
    ("u", "n0", "value", "bindings", "refusal"),
    [
        # the loop bounds k: k * 256 fits INT16, proven
        ("UINT8", "INT16", "k * 256", {"u": (8, False), "n0": (16, None)}, None),
        # 64-bit u * 16 truncated into INT32 wraps negative
        (
            "INT64",
            "INT32",
            "u * 16",
            {"u": (64, None), "n0": (32, None)},
            "u = 134217728 gives n0 = -2147483648",
        ),
        # an unsigned u may be sign-extended by the generated code: u = 128 reads as -128
        (
            "UINT8",
            "INT32",
            "u * 16",
            {"u": (8, False), "n0": (32, None)},
            "with unsigned values sign-extended",
        ),
    ],
)
def test_scalar_annotations_give_bindings_their_width_and_signedness(
    u: str, n0: str, value: str, bindings: dict[str, tuple[int, bool | None]], refusal: str | None
) -> None:
    text = jit(TYPED.format(n0=n0, value=value), TYPED_PARAMS.format(u=u), "@pl.jit.incore")
    outcome = plan(text)
    request = outcome.report["functions"][0]["request"]
    assert {
        b["name"]: (b["bits"], b["signed"]) for b in request["bindings"] if b["name"] in bindings
    } == bindings
    if refusal is None:
        assert outcome.ok, outcome.diagnostics
    else:
        assert codes(outcome) == ["nz.offset_unprovable_sign"] and refusal in outcome.diagnostics[0]


def test_an_induction_in_a_source_loop_is_read_as_init_plus_step_times_the_iteration() -> None:
    body = """\
    with pl.at(level=pl.Level.CORE_GROUP):
        k0 = 0
        for k in pl.range(4):
            acc = pl.matmul(x, w[0:256, k0 : k0 + 512])
            k0 = k0 + 512
    return acc
    """
    outcome = plan(jit(body, "x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ]"))
    kinds = {b["name"]: b["kind"] for b in outcome.report["functions"][0]["request"]["bindings"]}
    assert kinds["k0__v1"] == "induction"
    (load,) = accesses(outcome)
    assert load["offsets"] == [0, "k0 // 32", 0, 0, 0]


# ---- a whole NZ tensor as a matmul operand (the lowering rule) ---------------------------------

WHOLE_PARAMS = (
    "x: pl.Tensor[[16, 64], pl.BF16], w: pl.Tensor[[32, 64], pl.BF16, pl.NZ], "
    "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]"
)


@pytest.mark.parametrize("scope", ["pl.at(level=pl.Level.CORE_GROUP)", "pl.incore()"])
def test_a_whole_nz_operand_of_a_matmul_in_a_kernel_is_read_as_its_whole_window(scope: str) -> None:
    body = "with {scope}:\n    out[:, :] = pl.matmul(x, {operand}, b_trans=True)\nreturn out\n"
    whole = plan(jit(body.format(scope=scope, operand="w"), WHOLE_PARAMS))
    window = plan(jit(body.format(scope=scope, operand="w[:, :]"), WHOLE_PARAMS))
    assert whole.ok, whole.diagnostics
    (load,) = accesses(whole)
    assert load["message"] == "w: tile.load into Mat offsets [0, 0, 0, 0, 0], shapes [1, 4, 2, 16, 16]"
    same = ("op", "offsets", "shapes", "chunks")
    assert [[a[key] for key in same] for a in accesses(window)] == [[load[key] for key in same]]


def test_a_whole_nz_operand_of_a_matmul_outside_a_kernel_is_still_an_op_the_planner_refuses() -> None:
    body = "out = pl.matmul(x, w, b_trans=True)\nreturn out\n"
    assert codes(plan(jit(body, WHOLE_PARAMS))) == ["nz.unsupported_consumer"]
