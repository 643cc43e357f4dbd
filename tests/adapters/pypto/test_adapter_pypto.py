"""PyPTO printed-program adapter: requests per example, plan application, refusals, idempotence."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto import build_requests, plan_text
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "pypto"


def example(name: str) -> str:
    return (EXAMPLES / f"{name}.py").read_text(encoding="utf-8")


def only_request(text: str, **options: str) -> dict[str, Any]:
    (function,) = build_requests(text, options=options)
    return function.request.model_dump(mode="json")


def expected(payload: dict[str, Any]) -> dict[str, Any]:
    return LayoutPlanRequest.model_validate(payload).model_dump(mode="json")


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """Pairs of (old, new) lines that differ, for same-length texts."""
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


# ---- request building, one per example ----------------------------------------------------


def test_request_nz_matmul_spmd() -> None:
    assert only_request(example("nz_matmul_spmd")) == expected(
        {
            "target": "a2a3",
            "function": "main",
            "tensors": [{"name": "w", "shape": [512, 2048], "dtype": "INT8", "layout": "NZ"}],
            "bindings": [
                {"name": "nb", "kind": "spmd", "extent": 2},
                {"name": "N_TILE", "kind": "assign", "expr": 256},
                {"name": "n0", "kind": "assign", "expr": "nb * N_TILE"},
                {"name": "k0", "kind": "for", "start": 512, "stop": 2048, "step": 512},
            ],
            "ops": [
                {
                    "id": "load0",
                    "op": "tile.load",
                    "source": "w",
                    "offsets": ["n0", "k0"],
                    "shapes": [256, 512],
                    "target_memory": "Mat",
                }
            ],
        }
    )


def test_request_grouped_weight_slice() -> None:
    load = {"op": "tile.load", "target_memory": "Mat"}
    assert only_request(example("grouped_weight_slice"), target="a5") == expected(
        {
            "target": "a5",
            "function": "expert",
            "tensors": [{"name": "w", "shape": [4, 512, 1024], "dtype": "INT8", "layout": "NZ"}],
            "bindings": [{"name": "e", "kind": "param"}],
            "ops": [
                {**load, "id": "load0", "source": "w", "offsets": [1, 256, 512], "shapes": [1, 256, 512]},
                {
                    "id": "slice1",
                    "op": "tensor.slice",
                    "source": "w",
                    "shapes": [1, 512, 1024],
                    "offsets": ["e", 0, 0],
                    "drop_dims": [0],
                    "result": "we",
                },
                {
                    "id": "slice2",
                    "op": "tensor.slice",
                    "source": "w",
                    "shapes": [2, 512, 1024],
                    "offsets": [2, 0, 0],
                    "result": "pair",
                },
                {**load, "id": "load3", "source": "we", "offsets": [256, 512], "shapes": [256, 512]},
                {**load, "id": "load4", "source": "pair", "offsets": [1, 0, 0], "shapes": [1, 256, 512]},
            ],
        }
    )


def test_request_acc_store_nsplit() -> None:
    tensor = {"shape": [64, 1024], "dtype": "FP32", "layout": "NZ"}
    assert only_request(example("acc_store_nsplit")) == expected(
        {
            "target": "a2a3",
            "function": "main",
            "tensors": [{"name": "out", **tensor}, {"name": "return__v1", **tensor}],
            "ops": [
                {
                    "id": "store0",
                    "op": "tile.store",
                    "dest": "out",
                    "offsets": [0, 0],
                    "tile": {
                        "shape": [64, 1024],
                        "dtype": "FP32",
                        "memory": "Acc",
                        "producer": {"op": "matmul", "m": 64, "n": 1024, "k": 128, "memory": "Mat"},
                    },
                }
            ],
        }
    )


def test_request_refused_example() -> None:
    assert only_request(example("refused_wrapping_offset")) == expected(
        {
            "target": "a2a3",
            "function": "main",
            "tensors": [{"name": "w", "shape": [1024, 512], "dtype": "INT8", "layout": "NZ"}],
            "bindings": [
                {"name": "nb", "kind": "spmd", "extent": 4},
                {"name": "n0", "kind": "assign", "expr": "nb * 256 - 256"},
            ],
            "ops": [
                {
                    "id": "load0",
                    "op": "tile.load",
                    "source": "w",
                    "offsets": ["n0", 0],
                    "shapes": [256, 512],
                    "target_memory": "Mat",
                }
            ],
        }
    )


def test_op_and_tensor_positions_are_recorded() -> None:
    (function,) = build_requests(example("nz_matmul_spmd"))
    assert (function.op_positions["load0"].line, function.op_positions["load0"].column) == (28, 64)
    assert (function.tensor_positions["w"].line, function.tensor_positions["w"].column) == (16, 9)
    assert (function.position.line, function.position.column) == (13, 5)


# ---- plan application ---------------------------------------------------------------------


STAMPED = '    @pl.function(type=pl.FunctionType.InCore, attrs={"nz_tensor_views_blocked": True})'


def test_plan_motivating_path() -> None:
    text = example("nz_matmul_spmd")
    outcome = plan_text(text)
    assert outcome.ok and outcome.diagnostics == []
    assert changed_lines(text, outcome.text) == [
        ("    @pl.function(type=pl.FunctionType.InCore)", STAMPED),
        (
            "        w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ],",
            "        w: pl.Tensor[[1, 64, 32, 16, 32], pl.INT8, pl.NZ],",
        ),
        (
            "                    w, [n0, k0], [256, 512], target_memory=pl.Mem.Mat",
            "                    w, [0, k0 // 32, n0 // 16, 0, 0], [1, 16, 16, 16, 32], "
            "target_memory=pl.Mem.Mat",
        ),
    ]


def test_plan_grouped_weight_slices() -> None:
    text = example("grouped_weight_slice")
    outcome = plan_text(text)
    assert outcome.ok
    changes = dict(changed_lines(text, outcome.text))
    assert changes["            w, [1, 256, 512], [1, 256, 512], target_memory=pl.Mem.Mat"] == (
        "            w, [1, 16, 16, 0, 0], [1, 16, 16, 16, 32], target_memory=pl.Mem.Mat"
    )
    slice_line = (
        "        we: pl.Tensor[[512, 1024], pl.INT8, pl.NZ] = "
        "pl.slice(w, [1, 512, 1024], [e, 0, 0], drop_dims=[0])"
    )
    assert changes[slice_line] == (
        "        we: pl.Tensor[[1, 32, 32, 16, 32], pl.INT8, pl.NZ] = "
        "pl.slice(w, [1, 32, 32, 16, 32], [e, 0, 0, 0, 0])"
    )
    assert changes["            we, [256, 512], [256, 512], target_memory=pl.Mem.Mat"] == (
        "            we, [0, 16, 16, 0, 0], [1, 16, 16, 16, 32], target_memory=pl.Mem.Mat"
    )
    assert len(changes) == 7


def test_plan_splits_an_oversized_accumulator_store() -> None:
    text = example("acc_store_nsplit")
    outcome = plan_text(text)
    assert outcome.ok
    store = "        out = pl.store(acc, [0, 0], out)\n"
    split = (
        "        out = pl.store(acc, [0, 0, 0, 0, 0], out, [1, 64, 4, 16, 8])\n"
        "        out = pl.store(acc, [0, 64, 0, 0, 0], out, [1, 64, 4, 16, 8])\n"
    )
    assert store in text and split in outcome.text
    rest = text.replace(store, split).replace(
        "[64, 1024], pl.FP32, pl.NZ]", "[1, 128, 4, 16, 8], pl.FP32, pl.NZ]"
    )
    assert outcome.text == rest.replace("    @pl.function(type=pl.FunctionType.InCore)", STAMPED)


@pytest.mark.parametrize("name", ["nz_matmul_spmd", "grouped_weight_slice", "acc_store_nsplit"])
def test_second_run_changes_nothing(name: str) -> None:
    first = plan_text(example(name))
    second = plan_text(first.text)
    assert second.ok and second.text == first.text
    assert all(f["request"]["attrs"] == {"nz_tensor_views_blocked": True} for f in second.report["functions"])


@pytest.mark.parametrize("name", ["nz_matmul_spmd", "grouped_weight_slice", "acc_store_nsplit"])
def test_planned_output_is_deterministic(name: str) -> None:
    assert plan_text(example(name)).text == plan_text(example(name)).text


def test_a_byte_order_mark_is_kept_and_does_not_shift_positions() -> None:
    plain = example("nz_matmul_spmd")
    marked = plan_text("\ufeff" + plain)
    assert marked.ok and marked.text == "\ufeff" + plan_text(plain).text
    refused = "\ufeff" + example("refused_wrapping_offset")
    outcome = plan_text(refused, filename="refused.py")
    assert outcome.text is refused
    assert outcome.diagnostics[0].startswith("refused.py:17:60: error: [nz.offset_unprovable_sign]")


# ---- refusals -------------------------------------------------------------------------------


def test_refusal_leaves_the_text_byte_identical_and_names_the_counterexample() -> None:
    text = example("refused_wrapping_offset")
    outcome = plan_text(text, filename="refused.py")
    assert not outcome.ok
    assert outcome.text is text
    error, note = outcome.diagnostics
    assert error.startswith(
        "refused.py:17:60: error: [nz.offset_unprovable_sign] NZ layout requires the slice "
    )
    assert note == "refused.py:17:60: note: counterexample: n0=-256, nb=0"


PARAMETER_REFUSAL = """\
# pypto.program: Bad
import pypto.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[64, 512], pl.INT8], w: pl.Tensor[[256, 400], pl.INT8, pl.NZ]):
        wt = pl.tile.load(w, [0, 8], [256, 400], target_memory=pl.Mem.Mat)
        return x
"""


def test_a_bad_parameter_type_is_reported_on_the_parameter() -> None:
    outcome = plan_text(PARAMETER_REFUSAL, filename="bad.py")
    assert not outcome.ok and outcome.text == PARAMETER_REFUSAL
    (line,) = outcome.diagnostics
    assert line.startswith("bad.py:8:54: error: [nz.cols_not_multiple_of_c0] ")


def program(body: str, params: str = "w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]", decorator: str = "") -> str:
    decorator = decorator or "@pl.function(type=pl.FunctionType.InCore)"
    lines = ["# pypto.program: P", "import pypto.language as pl", "", "", "@pl.program", "class P:"]
    lines += [f"    {decorator}", f"    def main(self, {params}):"]
    lines += [f"        {line}" if line else "" for line in body.strip("\n").splitlines()]
    return "\n".join(lines) + "\n"


def test_an_unsupported_consumer_is_refused_at_its_call() -> None:
    text = program(
        "y = pl.add(x, w)\nreturn y",
        params="x: pl.Tile[[16, 32], pl.INT8], w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]",
    )
    outcome = plan_text(text, filename="p.py")
    assert not outcome.ok
    assert outcome.diagnostics[0].startswith("p.py:9:13: error: [nz.unsupported_consumer] ")
    assert "'add' at argument 1" in outcome.diagnostics[0]


def test_a_scalar_set_in_a_branch_is_unknown_after_the_if() -> None:
    body = """
k0: pl.Scalar[pl.INDEX] = 32
if c:
    k0 = 16
wt = pl.tile.load(w, [0, k0], [256, 32], target_memory=pl.Mem.Mat)
"""
    text = program(body, params="c: pl.Scalar[pl.BOOL], w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]")
    (function,) = build_requests(text)
    bindings = [b.model_dump(exclude_none=True) for b in function.request.bindings]
    assert bindings == [
        {"name": "c", "kind": "param"},
        {"name": "k0", "kind": "assign", "expr": 32},
        {"name": "k0__v1", "kind": "assign", "expr": 16},
        {"name": "k0__v2", "kind": "param"},
    ]
    outcome = plan_text(text, filename="p.py")
    assert not outcome.ok and outcome.diagnostics[0].startswith(
        "p.py:12:14: error: [nz.offset_unprovable_multiple]"
    )


def test_an_opaque_subterm_is_a_fresh_unconstrained_name_spelled_as_written() -> None:
    text = program(
        "wt = pl.tile.load(w, [abs(r) * 16, 0], [16, 512], target_memory=pl.Mem.Mat)",
        params="r: pl.Scalar[pl.INDEX], w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]",
    )
    (function,) = build_requests(text)
    assert function.request.ops[0].offsets == ["opaque__v1 * 16", 0]  # type: ignore[union-attr]
    assert function.spelling == {"opaque__v1": "abs(r)"}
    outcome = plan_text(text, filename="p.py")
    assert not outcome.ok
    assert outcome.diagnostics[0].startswith("p.py:9:14: error: [nz.offset_unprovable_sign]")
    assert outcome.diagnostics[1].startswith("p.py:9:14: note: counterexample: abs(r)=")


# ---- rebinding and spelling ----------------------------------------------------------------


def test_a_rebound_loop_variable_gets_a_fresh_request_name_and_its_source_spelling_back() -> None:
    body = """
for k in pl.range(0, 512, 32):
    a = pl.tile.load(w, [0, k], [256, 32], target_memory=pl.Mem.Mat)
for k in pl.range(64, 512, 64):
    b = pl.tile.load(w, [16, k], [256, 32], target_memory=pl.Mem.Mat)
"""
    text = program(body, params="w: pl.Tensor[[512, 512], pl.INT8, pl.NZ]")
    (function,) = build_requests(text)
    assert [op.offsets for op in function.request.ops] == [[0, "k"], [16, "k__v1"]]  # type: ignore[union-attr]
    outcome = plan_text(text)
    assert outcome.ok
    assert "pl.tile.load(w, [0, k // 32, 0, 0, 0], [1, 1, 16, 16, 32]" in outcome.text
    assert "pl.tile.load(w, [0, k // 32, 1, 0, 0], [1, 1, 16, 16, 32]" in outcome.text


def test_non_ascii_text_before_an_edit_is_spliced_by_characters() -> None:
    body = 'wt = pl.tile.load(w, [0, 64], [256, 32], target_memory=pl.Mem.Mat); s = "ünïcødé €"  # ✓'
    text = program(body).replace("import pypto.language as pl", "import pypto.language as pl  # NZ → blocked")
    outcome = plan_text(text)
    assert outcome.ok
    assert (
        'pl.tile.load(w, [0, 2, 0, 0, 0], [1, 1, 16, 16, 32], target_memory=pl.Mem.Mat); s = "ünïcødé €"  # ✓'
        in (outcome.text)
    )
    assert "# NZ → blocked" in outcome.text


def test_crlf_line_breaks_survive_a_store_split() -> None:
    text = example("acc_store_nsplit").replace("\n", "\r\n")
    outcome = plan_text(text)
    assert outcome.ok
    assert "\n" not in outcome.text.replace("\r\n", "")
    assert "out, [1, 64, 4, 16, 8])\r\n        out = pl.store(acc, [0, 64, 0, 0, 0]" in outcome.text


# ---- the idempotence stamp -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decorator", "stamped"),
    [
        ("@pl.function", '@pl.function(attrs={"nz_tensor_views_blocked": True})'),
        ("@pl.function()", '@pl.function(attrs={"nz_tensor_views_blocked": True})'),
        (
            '@pl.function(type=pl.FunctionType.InCore, attrs={"note": "x"})',
            '@pl.function(type=pl.FunctionType.InCore, attrs={"note": "x", "nz_tensor_views_blocked": True})',
        ),
        ("@pl.function(attrs={})", '@pl.function(attrs={"nz_tensor_views_blocked": True})'),
    ],
)
def test_the_stamp_is_printed_into_the_decorator(decorator: str, stamped: str) -> None:
    text = program("return w", decorator=decorator)
    outcome = plan_text(text)
    assert outcome.ok and f"    {stamped}\n" in outcome.text
    assert plan_text(outcome.text).text == outcome.text


def test_a_function_without_nz_content_is_left_unstamped() -> None:
    text = program("return x", params="x: pl.Tensor[[64, 64], pl.FP32]")
    outcome = plan_text(text)
    assert outcome.ok and outcome.text == text


# ---- parse -> print is the identity -----------------------------------------------------------


def accept_everything(request: LayoutPlanRequest) -> LayoutPlanResponse:
    return LayoutPlanResponse(ok=True, attrs=request.attrs)


@pytest.mark.parametrize(
    "name", ["nz_matmul_spmd", "grouped_weight_slice", "acc_store_nsplit", "refused_wrapping_offset"]
)
def test_an_unchanged_plan_prints_the_input_byte_for_byte(name: str) -> None:
    text = example(name)
    outcome = plan_text(text, planner=accept_everything)
    assert outcome.ok and outcome.text == text


# ---- the input is never executed -----------------------------------------------------------------


HOSTILE = """\
# pypto.program: Hostile
import pypto.language as pl

open({marker!r}, "w").write("executed at import")


@pl.program
class Hostile:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]):
        k = __import__("os").system("touch " + {marker!r})
        wt = pl.tile.load(w, [0, 0], [256, 512], target_memory=pl.Mem.Mat)
        return w


raise SystemExit("executed at import")
"""


def test_the_adapter_never_executes_its_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "side-effect"
    text = HOSTILE.format(marker=str(marker))

    def forbidden(*_: object, **__: object) -> None:
        raise AssertionError("the adapter evaluated program text")

    monkeypatch.setattr(builtins, "exec", forbidden)
    monkeypatch.setattr(builtins, "eval", forbidden)
    outcome = plan_text(text)
    assert outcome.ok
    assert "pl.tile.load(w, [0, 0, 0, 0, 0], [1, 16, 16, 16, 32]" in outcome.text
    assert not marker.exists()


# ---- malformed input -------------------------------------------------------------------------------


def input_error(text: str, **options: str) -> AdapterInputError:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(text, options=options)
    return caught.value


def test_a_syntax_error_is_typed_with_its_position() -> None:
    error = input_error(program("wt = pl.tile.load(w, [0, 0]"))
    assert (error.code, error.line) == ("adapter.pypto.syntax_error", 9)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("import pypto.language as pl\n", "no @pl.jit function, no @pl.program class"),
        ("# pypto.program: P\nimport numpy as pl\n", "missing 'import pypto.language as pl'"),
        ("@pl.jit\ndef f(w):\n    return w\n", "missing 'import pypto.language as pl'"),
        (
            "# pypto.program: P\nimport pypto.language as pl\n",
            "expected exactly one @pl.program class, found none",
        ),
    ],
)
def test_text_that_is_not_a_program_is_refused(text: str, message: str) -> None:
    error = input_error(text)
    assert error.code == "adapter.pypto.not_a_program" and message in error.message


def test_a_header_that_names_another_program_is_refused() -> None:
    error = input_error(program("return w").replace("# pypto.program: P", "# pypto.program: Q"))
    assert (error.code, error.line, error.column) == ("adapter.pypto.not_a_program", 6, 1)


@pytest.mark.parametrize(
    ("body", "params", "code", "position"),
    [
        ("while True:\n    pass", None, "adapter.pypto.unsupported_construct", (9, 9)),
        ("for i in items:\n    pass", None, "adapter.pypto.unsupported_construct", (9, 18)),
        ("return w", "w: pl.Tensor[[16, 32], pl.INT7, pl.NZ]", "adapter.pypto.unknown_dtype", (8, 43)),
        ("return w", "w: list[int]", "adapter.pypto.unsupported_type", (8, 23)),
        (
            "out = pl.store(t, [0, 0], o)",
            "t, o: pl.Tensor[[16, 16], pl.FP32, pl.NZ]",
            "adapter.pypto.unknown_tile_type",
            (9, 15),
        ),
        (
            "wt = pl.tile.load(w, offs, [16, 32], target_memory=pl.Mem.Mat)",
            None,
            "adapter.pypto.unsupported_construct",
            (9, 30),
        ),
    ],
)
def test_unsupported_constructs_are_typed_errors_at_their_position(
    body: str, params: str | None, code: str, position: tuple[int, int]
) -> None:
    error = input_error(program(body, params) if params else program(body))
    assert (error.code, (error.line, error.column)) == (code, position)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [({"target": "a9"}, "unknown target 'a9'"), ({"arch": "x"}, "unknown option 'arch'")],
)
def test_bad_options_are_typed_errors(options: dict[str, str], fragment: str) -> None:
    error = input_error(program("return w"), **options)
    assert error.code == "adapter.pypto.bad_option" and fragment in error.message


# ---- concise mode, calls and carried tensors ----------------------------------------------------


CONCISE_STORE = """\
# pypto.program: Concise
import pypto.language as pl


@pl.program
class Concise:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 1024], pl.FP16],
             out: pl.Out[pl.Tensor[[64, 1024], pl.FP32, pl.NZ]]):
        at = pl.tile.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        bt = pl.tile.load(b, [0, 0], [128, 1024], target_memory=pl.Mem.Mat)
        out = pl.store(pl.tile.matmul(at, bt), [0, 0], out)
        return out
"""


def test_unannotated_tiles_get_their_types_from_the_ops_that_make_them() -> None:
    (function,) = build_requests(CONCISE_STORE)
    (store,) = function.request.ops
    assert store.model_dump(mode="json", exclude_none=True)["tile"] == {
        "shape": [64, 1024],
        "dtype": "FP32",
        "memory": "Acc",
        "producer": {"op": "matmul", "m": 64, "n": 1024, "k": 128, "memory": "Mat"},
    }
    outcome = plan_text(CONCISE_STORE)
    assert outcome.ok
    assert (
        "        out = pl.store(pl.tile.matmul(at, bt), [0, 0, 0, 0, 0], out, [1, 64, 4, 16, 8])\n"
        "        out = pl.store(pl.tile.matmul(at, bt), [0, 64, 0, 0, 0], out, [1, 64, 4, 16, 8])\n"
    ) in outcome.text


def test_an_unannotated_slice_result_is_defined_by_the_slice() -> None:
    body = """
we = pl.slice(w, [1, 256, 512], [e, 0, 0])
t = pl.tile.load(we, [0, 0, 0], [1, 256, 512], target_memory=pl.Mem.Mat)
"""
    text = program(body, params="e: pl.Scalar[pl.INDEX], w: pl.Tensor[[4, 256, 512], pl.INT8, pl.NZ]")
    (function,) = build_requests(text)
    assert [tensor.name for tensor in function.request.tensors] == ["w"]
    assert [(op.id, getattr(op, "result", None)) for op in function.request.ops] == [
        ("slice0", "we"),
        ("load1", None),
    ]
    outcome = plan_text(text)
    assert outcome.ok
    assert "we = pl.slice(w, [1, 16, 16, 16, 32], [e, 0, 0, 0, 0])" in outcome.text
    # the load's result keeps its logical 2-D tile type, now written out (section 6.1.6)
    annotated = "t: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(we, [0, 0, 0, 0, 0], [1, 16,"
    assert annotated in outcome.text


CALLER_AND_CALLEE = """\
# pypto.program: Calls
import pypto.language as pl


@pl.program
class Calls:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]) -> pl.Tensor[[256, 512], pl.INT8, pl.NZ]:
        t = pl.tile.load(w, [16, 32], [16, 32], target_memory=pl.Mem.Mat)
        return w

    @pl.function(type=pl.FunctionType.Orchestration)
    def entry(self, w: pl.Tensor[[256, 512], pl.INT8, pl.NZ]):
        r = self.kernel(w)
        return r
"""


def test_a_call_forwards_the_tensor_and_both_functions_are_blocked() -> None:
    _, entry = build_requests(CALLER_AND_CALLEE)
    assert [op.model_dump(exclude_none=True) for op in entry.request.ops] == [
        {"id": "call0", "op": "call", "callee": "kernel", "args": ["w"]}
    ]
    assert [tensor.name for tensor in entry.request.tensors] == ["w", "r"]
    outcome = plan_text(CALLER_AND_CALLEE)
    assert outcome.ok
    assert outcome.text.count('attrs={"nz_tensor_views_blocked": True}') == 2
    assert outcome.text.count("pl.Tensor[[1, 16, 16, 16, 32], pl.INT8, pl.NZ]") == 3
    assert "pl.tile.load(w, [0, 1, 1, 0, 0], [1, 1, 1, 16, 32]" in outcome.text
    assert "        r = self.kernel(w)\n" in outcome.text


def test_a_tensor_carried_through_a_loop_keeps_its_nz_type() -> None:
    body = """
for i, (o,) in pl.range(0, 2, init_values=(out,)):
    bad = pl.add(o, o)
    o2 = pl.yield_(o)
"""
    text = program(body, params="out: pl.Tensor[[64, 64], pl.FP32, pl.NZ]")
    (function,) = build_requests(text)
    assert [op.model_dump(exclude_none=True) for op in function.request.ops] == [
        {"id": "add0", "op": "add", "args": ["out", "out"]}
    ]
    outcome = plan_text(text, filename="p.py")
    assert not outcome.ok and outcome.diagnostics[0].startswith(
        "p.py:10:19: error: [nz.unsupported_consumer]"
    )


# ---- facts from statements (section 7.2) and type forms ------------------------------------------


FACTS = """
with pl.spmd(4):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="g"):
        blk = pl.tile.get_block_idx()
        cnt: pl.Scalar[pl.INT32] = pl.tile.get_block_num()
        o0__ssa_v0: pl.Scalar[pl.INT32] = (blk % 2) * 512
        for r in pl.parallel(blk, 8, 2):
            for u in pl.unroll(4):
                t = pl.tile.load(w, [r * 16, o0__ssa_v0 + u * 32], [16, 32], target_memory=pl.Mem.Mat)
        for i, (acc,) in pl.range(0, 4, init_values=(0,)):
            nxt = acc + i
            acc2 = pl.yield_(nxt)
        if blk > 1:
            v = pl.yield_(blk)
        else:
            v = pl.yield_(cnt)
        q = pl.tile.load(w, [v * 16, pl.const(0, pl.INT64)], [16, 32], target_memory=pl.Mem.Mat)
"""


def test_statement_facts_become_bindings() -> None:
    (function,) = build_requests(program(FACTS, params="w: pl.Tensor[[256, 1024], pl.INT8, pl.NZ]"))
    assert [b.model_dump(exclude_none=True) for b in function.request.bindings] == [
        {"name": "blk", "kind": "block_idx"},
        {"name": "cnt", "kind": "block_num", "bits": 32},
        {"name": "o0__ssa_v0", "kind": "assign", "expr": "blk % 2 * 512", "bits": 32},
        {"name": "r", "kind": "for", "start": "blk", "stop": 8, "step": 2},
        {"name": "u", "kind": "for", "start": 0, "stop": 4, "step": 1},
        {"name": "i", "kind": "for", "start": 0, "stop": 4, "step": 1},
        {"name": "acc", "kind": "iter_arg"},
        {"name": "nxt", "kind": "assign", "expr": "acc + i"},
        {"name": "v", "kind": "param"},
    ]
    offsets = [op.offsets for op in function.request.ops]  # type: ignore[union-attr]
    assert offsets == [["r * 16", "o0__ssa_v0 + u * 32"], ["v * 16", 0]]


def test_planned_symbolic_offsets_keep_the_expression_as_written() -> None:
    outcome = plan_text(program(FACTS, params="w: pl.Tensor[[256, 1024], pl.INT8, pl.NZ]"), filename="p.py")
    assert not outcome.ok  # v merges two branches: nothing is known about it
    assert outcome.diagnostics[0].startswith("p.py:24:21: error: [nz.offset_unprovable_sign]")
    fixed = FACTS.replace("[v * 16, pl.const(0, pl.INT64)]", "[0, 0]")
    planned = plan_text(program(fixed, params="w: pl.Tensor[[256, 1024], pl.INT8, pl.NZ]"))
    assert planned.ok
    assert "[0, (o0__ssa_v0 + u * 32) // 32, r * 16 // 16, 0, 0], [1, 1, 1, 16, 32]" in planned.text


@pytest.mark.parametrize(
    ("params", "code"),
    [
        (
            "w: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.NZ)]",
            "explicit_stride",
        ),
        (
            "w: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(valid_shape=[32, 64], layout=pl.TensorLayout.NZ)]",
            "partial_valid_shape_on_type",
        ),
        ("w: pl.InOut[pl.Tensor[[64, 64], pl.INT4, pl.NZ]]", "sub_byte_dtype"),
    ],
)
def test_type_level_refusals_point_at_the_parameter(params: str, code: str) -> None:
    outcome = plan_text(program("return w", params=params), filename="p.py")
    assert not outcome.ok
    assert outcome.diagnostics[0].startswith(f"p.py:8:20: error: [nz.{code}]")


def test_a_tensor_view_annotation_is_blocked_in_place() -> None:
    params = "w: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.NZ)]"
    outcome = plan_text(program("return w", params=params))
    assert outcome.ok
    assert "w: pl.Tensor[[1, 8, 4, 16, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.NZ)]" in (
        outcome.text
    )


def test_a_whole_tensor_flatten_is_kept_and_a_view_is_refused() -> None:
    kept = plan_text(program("flat = pl.reshape(w, [131072])\nreturn flat"))
    assert kept.ok and "flat = pl.reshape(w, [131072])" in kept.text
    refused = plan_text(program("v = pl.tensor.view(w, [16, 512], [0, 0])\nreturn v"), filename="p.py")
    assert refused.diagnostics[0].startswith("p.py:9:13: error: [nz.tensor_view_of_nz]")


def test_a_split_annotated_store_blocks_the_annotation_in_every_copy() -> None:
    store = "        out = pl.store(acc, [0, 0], out)\n        return out"
    annotated = "        o2: pl.Tensor[[64, 1024], pl.FP32, pl.NZ] = pl.store(acc, [0, 0], out); x = 1\n"
    annotated += "        return o2"
    outcome = plan_text(example("acc_store_nsplit").replace(store, annotated))
    assert outcome.ok
    blocked = "        o2: pl.Tensor[[1, 128, 4, 16, 8], pl.FP32, pl.NZ] = pl.store(acc, "
    assert (
        f"{blocked}[0, 0, 0, 0, 0], out, [1, 64, 4, 16, 8])\n"
        f"{blocked}[0, 64, 0, 0, 0], out, [1, 64, 4, 16, 8]); x = 1\n"
    ) in outcome.text
