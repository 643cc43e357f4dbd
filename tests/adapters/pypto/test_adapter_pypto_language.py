"""The language as pypto-lib and pypto write it (docs/design/nz-layout.md 18): what the reader
cannot evaluate on a tensor that is not NZ is opaque and changes no NZ plan; where it reaches
an NZ decision the kernel is refused (exit 1); kernels are reported one by one."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto import plan_text
from tests.support.commands import PLANNER as PLANNER_COMMAND

PLANNER = str(Path(sys.executable).with_name("planner"))

HEAD = "import pypto.language as pl\nimport pypto.language.distributed as pld\n\nSIZE = 8\n\n\n"
NZ_PARAM = "w: pl.Tensor[[64, 128], pl.FP16, pl.NZ]"
NZ_BODY = "with pl.incore():\n    t = pl.load(w, [0, 32], [64, 32], target_memory=pl.Mem.Mat)\n"

# (extra parameters, extra body statements, return annotation), in upstream's syntax, on
# tensors that are not NZ.
CONSTRUCTS: dict[str, tuple[str, str, str]] = {
    "dtype parameter": ("x: pl.Tensor[[64, 64], dt]", "", ""),
    "dtype local": ("x: pl.Tensor[[64, 64], _DT[self_dtype]]", "", ""),
    "shape in a name": ("x: pl.Tensor[out_shape, pl.FP32]", "", ""),
    "mx scales": (
        "a_s: pl.Tensor[[16, 4], pl.FP8E8M0, pl.MX_A_ZZ], b_s: pl.Tensor[[4, 32], pl.FP8E8M0, pl.MX_B_NN]",
        "",
        "",
    ),
    "tensor layout member": ("a_s: pl.Tensor[[16, 4], pl.FP8E8M0, pl.TensorLayout.MX_A_ND]", "", ""),
    "task id": ("", "", " -> tuple[pl.Tensor, pl.Scalar[pl.TASK_ID]]"),
    "task id alias": ("tid: pl.TaskId", "", ""),
    "distributed": ("x: pld.DistributedTensor[[1, SIZE], pl.FP32]", "", ""),
    "memref": ("x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef('mem_ddr_0', 0, 16384)]", "", ""),
    "layout and memref": ("x: pl.Tensor[[64, 64], pl.FP32, pl.ND, pl.MemRef(0, 16384, 2)]", "", ""),
    "manual dep": ("x: pl.Tensor[[64, 64], pl.FP32, pl.ManualDep]", "", ""),
    "layout and manual dep": ("x: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.ND, pl.ManualDep]]", "", ""),
    "tensor view pad": (
        "x: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.ND, "
        "pad=pl.TilePad.zero)]",
        "",
        "",
    ),
    "none": ("x: None", "", " -> None"),
    "walrus": (
        "x: pl.Tensor[[64, 64], pl.FP32]",
        "if (n := 3) > 2:\n    u = pl.load(x, [0, 0], [64, 64])\n",
        "",
    ),
    "strided": ("x: pl.Tensor[[64, 64], pl.FP32]", "s = x[0:64:2, 0:64]\n", ""),
    "init_values": (
        "x: pl.Tensor[[64, 64], pl.FP32]",
        "inits = (0, 1)\nfor i, (p, q) in pl.range(4, init_values=inits):\n    p, q = pl.yield_(p, q)\n",
        "",
    ),
}


def kernel(params: str = "", body: str = "", returns: str = "", decorator: str = "@pl.jit") -> str:
    """A builder defining one kernel with the NZ tensor `w` and the construct's parts."""
    signature = ", ".join(part for part in (NZ_PARAM, params) if part)
    inner = textwrap.indent(NZ_BODY + body + "return w\n", "        ")
    return (
        HEAD
        + "_DT = {'fp16': pl.FP16}\n\n\n"
        + "def build(dt, out_shape, self_dtype):\n"
        + f"    {decorator}\n    def k({signature}){returns}:\n{inner}"
        + "    return k\n"
    )


def nz_plan(text: str) -> list[Any]:
    """What the plan says about the NZ tensors: each planned kernel's tensors, NZ ops and response."""
    outcome = plan_text(text, filename="k.py")
    return [
        (
            entry["request"]["tensors"],
            [op for op in entry["request"]["ops"] if op["op"] in ("tile.load", "tensor.slice")],
            entry["response"],
        )
        for entry in outcome.report["functions"]
    ]


def cli(path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PLANNER, "plan", str(path), *arguments], capture_output=True, text=True)


@pytest.mark.parametrize("construct", sorted(CONSTRUCTS))
def test_a_construct_on_a_tensor_that_is_not_nz_leaves_the_nz_plan_as_it_was(construct: str) -> None:
    params, body, returns = CONSTRUCTS[construct]
    outcome = plan_text(kernel(params, body, returns), filename="k.py")
    assert outcome.ok, outcome.diagnostics
    assert nz_plan(kernel(params, body, returns)) == nz_plan(kernel())


@given(st.lists(st.sampled_from(sorted(CONSTRUCTS)), min_size=1, max_size=4, unique=True))
def test_inserting_constructs_never_changes_the_plan_of_the_nz_tensors(chosen: list[str]) -> None:
    params = ", ".join(p for p, _, _ in (CONSTRUCTS[name] for name in chosen) if p)
    body = "".join(b for _, b, _ in (CONSTRUCTS[name] for name in chosen))
    returns = next((r for _, _, r in (CONSTRUCTS[name] for name in chosen) if r), "")
    assert nz_plan(kernel(params, body, returns)) == nz_plan(kernel())


@pytest.mark.parametrize(
    ("params", "construct"),
    [
        ("v: pl.Tensor[[64, 64], dt, pl.NZ]", "its dtype 'dt'"),
        ("v: pl.Tensor[out_shape, pl.FP16, pl.NZ]", "its shape 'out_shape'"),
        ("v: pl.Tensor[[64, 64], pl.FP16, SOME_LAYOUT]", "not a layout the reader knows"),
        ("v: pld.DistributedTensor[[64, 64], pl.FP16, pl.NZ]", "a distributed tensor"),
    ],
)
def test_a_construct_that_decides_an_nz_layout_refuses_its_kernel(
    tmp_path: Path, params: str, construct: str
) -> None:
    path = tmp_path / "k.py"
    path.write_text(kernel(params))
    done = cli(path, "--json")
    assert done.returncode == 1, done.stderr
    (status,) = json.loads(done.stdout)["kernels"]
    assert (status["status"], status["code"]) == ("refused", "adapter.pypto.unevaluated_nz")
    assert construct in status["reason"] and "Fix:" in status["reason"]
    assert "[adapter.pypto.unevaluated_nz]" in done.stderr and construct in done.stderr


def test_a_dtype_parameter_of_an_nz_tensor_is_planned_once_bound(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(kernel("v: pl.Tensor[[64, 64], dt, pl.NZ]"))
    done = cli(path, "--bind", "dt=pl.BF16")
    assert done.returncode == 0, done.stderr
    assert "planned for build(dt=pl.BF16)" in done.stdout
    assert "NZ tensor 'v': blocked shape [1, 4, 4, 16, 16]" in done.stdout


def test_a_manual_dep_marker_on_an_nz_tensor_leaves_it_planned_as_without_it() -> None:
    marked = kernel().replace(NZ_PARAM, "w: pl.Tensor[[64, 128], pl.FP16, pl.NZ, pl.ManualDep]")
    assert marked != kernel()
    assert nz_plan(marked) == nz_plan(kernel())
    assert nz_plan(marked)[0][0][0]["layout"] == "NZ"


def test_a_dtype_default_or_local_resolves_like_a_constant() -> None:
    text = HEAD + textwrap.dedent(
        """\
        def build(dt=pl.INT8):
            acc = pl.FP32

            @pl.jit
            def k(w: pl.Tensor[[64, 128], dt, pl.NZ], o: pl.Tensor[[64, 64], acc, pl.NZ]):
                return w

            return k
        """
    )
    (entry,) = plan_text(text, filename="k.py").report["functions"]
    assert [(t["name"], t["dtype"]) for t in entry["request"]["tensors"]] == [("w", "INT8"), ("o", "FP32")]
    assert entry["assumptions"] == ["build(dt=pl.INT8)"]


def test_a_strided_window_of_an_nz_tensor_is_an_op_the_planner_refuses() -> None:
    outcome = plan_text(kernel(body="s = w[0:64:2, 0:64]\n"), filename="k.py")
    (entry,) = outcome.report["functions"]
    assert not outcome.ok
    assert [d["code"] for d in entry["response"]["diagnostics"]] == ["nz.unsupported_consumer"]


def test_a_walrus_in_a_loop_body_makes_its_name_loop_carried() -> None:
    body = "n = 0\nfor i in pl.range(4):\n    t = pl.load(w, [0, n], [64, 32], target_memory=pl.Mem.Mat)\n"
    body += "    if (n := n + 32) > 64:\n        pass\n"
    (entry,) = plan_text(kernel(body=body), filename="k.py").report["functions"]
    loads = [op for op in entry["request"]["ops"] if op["op"] == "tile.load"]
    column = loads[-1]["offsets"][1]
    assert isinstance(column, str)  # not the constant 0: `n` changes around the loop
    assert any(b["name"] == column and b["kind"] != "assign" for b in entry["request"]["bindings"])


def test_a_non_literal_attrs_dict_of_a_source_function_is_passed_through() -> None:
    text = HEAD + textwrap.dedent(
        """\
        ATTRS = {"split": 2}


        @pl.function(type=pl.FunctionType.InCore, attrs=ATTRS)
        def k(w: pl.Tensor[[64, 128], pl.FP16, pl.NZ]):
            t = pl.load(w, [0, 32], [64, 32], target_memory=pl.Mem.Mat)
            return w
        """
    )
    outcome = plan_text(text, filename="k.py")
    assert outcome.ok, outcome.diagnostics
    assert outcome.report["functions"][0]["request"]["attrs"] == {}


# ---- kernels one by one -------------------------------------------------------------------------

MIXED = HEAD + textwrap.dedent(
    """\
    @pl.jit
    def good(w: pl.Tensor[[64, 128], pl.FP16, pl.NZ]):
        with pl.incore():
            t = pl.load(w, [0, 32], [64, 32], target_memory=pl.Mem.Mat)
        return w


    @pl.jit
    def unreadable(w: pl.Tensor[[64, 128], pl.INT7, pl.NZ]):
        return w


    @pl.jit
    def refused(w: pl.Tensor[[64, 128], pl.FP16, pl.NZ]):
        with pl.incore():
            t = pl.load(w, [0, 8], [64, 32], target_memory=pl.Mem.Mat)
        return w


    TEXT = pl.parse("@pl.program\\nclass P: ...\\n")
    """
)


def test_a_file_reports_every_kernel_with_its_status(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(MIXED)
    done = cli(path, "--json")
    assert done.returncode == 1
    kernels = json.loads(done.stdout)["kernels"]
    assert [(k["name"], k["status"], k["line"]) for k in kernels] == [
        ("good", "planned", 8),
        ("unreadable", "unreadable", 15),
        ("refused", "refused", 20),
        ("pl.parse(...)", "skipped", 26),
    ]
    assert [k.get("code") for k in kernels] == [
        None,
        "adapter.pypto.unknown_dtype",
        "nz.offset_unaligned_const",
        "adapter.pypto.skipped_kernel",
    ]
    assert all(k["reason"] for k in kernels[1:])
    assert [f["name"] for f in json.loads(done.stdout)["functions"]] == ["good", "refused"]


def test_the_readable_kernels_are_printed_when_only_unreadable_ones_did_not_plan(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(MIXED.replace("[0, 8]", "[0, 32]"))
    done = cli(path)
    assert done.returncode == 1
    assert "NZ tensor 'w': blocked shape" in done.stdout
    assert f"{path}:15:40: error: [adapter.pypto.unknown_dtype]" in done.stderr
    assert "kernel 'unreadable' is refused" in done.stderr


def test_a_file_none_of_whose_kernels_reads_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(HEAD + "@pl.jit\ndef k(w: pl.Tensor[[16, 16], pl.INT7, pl.NZ]):\n    return w\n")
    done = cli(path, "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["code"] == "adapter.pypto.unknown_dtype"


def test_a_file_of_skipped_kernels_only_plans_nothing_and_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(HEAD + "P = pl.loads_program(open('p.txt').read())\nQ = pl.function(helper())\n")
    done = cli(path, "--json")
    assert done.returncode == 0, done.stderr
    kernels = json.loads(done.stdout)["kernels"]
    assert [(k["status"], k["line"], k["column"]) for k in kernels] == [("skipped", 7, 5), ("skipped", 8, 5)]
    assert done.stderr.count("warning: [adapter.pypto.skipped_kernel]") == 2


EXTERN = textwrap.dedent(
    """\
    _ENTRY = "kernels/fused/entry.cpp"


    @pl.jit.extern(core_type="aiv", source=_ENTRY, include_dirs=())
    def fused_norm(
        x: pl.Out[pl.Tensor[[16, 64], pl.BF16]],
        w: pl.Tensor[[64], pl.BF16],
        eps: pl.Scalar[pl.FP32],
    ) -> pl.Tensor[[16, 64], pl.BF16]: ...
    """
)


def test_an_extern_kernel_is_skipped_for_its_cpp_body_and_the_file_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(HEAD + EXTERN)
    done = cli(path, "--json")
    assert done.returncode == 0, done.stderr
    (status,) = json.loads(done.stdout)["kernels"]
    assert (status["name"], status["status"], status["line"]) == ("fused_norm", "skipped", 11)
    assert "extern kernel" in status["reason"] and "@pl.jit.extern" in status["reason"]
    assert done.stderr.count("warning: [adapter.pypto.skipped_kernel]") == 1


def test_an_extern_kernel_beside_a_jit_kernel_leaves_its_plan_as_it_was() -> None:
    alone = kernel()
    beside = alone + "\n\n" + EXTERN
    assert nz_plan(beside) == nz_plan(alone)
    statuses = plan_text(beside, filename="k.py").report["kernels"]
    assert [(k["name"], k["status"]) for k in statuses] == [
        ("build.<locals>.k", "planned"),
        ("fused_norm", "skipped"),
    ]


STACKED = textwrap.dedent(
    """\
    H = 4


    @pl.jit
    def heads(
        q: pl.Tensor[[16, 128], pl.BF16],
        w: pl.Tensor[[H, 128, 512], pl.BF16, pl.NZ],
        out: pl.Out[pl.Tensor[[16, 512], pl.FP32]],
    ):
        for h in pl.range(H):
            with pl.incore():
                o = pl.matmul(q, pl.slice(w, [128, 512], [h, 0, 0]))
                out = pl.assemble(out, o, [0, 0])
        return out
    """
)


def test_a_window_naming_fewer_axes_than_its_nz_tensor_has_refuses_the_kernel(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    path.write_text(HEAD + STACKED)
    done = cli(path, "--json")
    assert done.returncode == 1, done.stderr
    (status,) = json.loads(done.stdout)["kernels"]
    assert (status["status"], status["code"], status["line"]) == (
        "refused",
        "adapter.pypto.unevaluated_nz",
        18,
    )
    assert "rank-3 NZ tensor 'w' with 3 offsets and 2 extents" in status["reason"]
    assert "Fix:" in status["reason"]


def test_suggest_gives_a_weight_windowed_by_fewer_axes_a_verdict_instead_of_stopping_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "k.py"
    path.write_text(HEAD + STACKED.replace(", pl.NZ]", "]"))
    done = subprocess.run([*PLANNER_COMMAND, "suggest", str(path), "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (weight,) = json.loads(done.stdout)["tensors"]
    assert (weight["name"], weight["eligible"]) == ("w", False)
    assert weight["blocking"]["code"] == "adapter.pypto.unevaluated_nz"


LOAD = (
    "t: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 32], [64, 32], target_memory=pl.Mem.Mat)"
)
PRINTED = textwrap.dedent(
    f"""\
    # pypto.program: P
    import pypto.language as pl


    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def good(self, w: pl.Tensor[[64, 128], pl.FP16, pl.NZ]):
            {LOAD}
            return w

        @pl.function(type=pl.FunctionType.InCore)
        def bad(self, w: pl.Tensor[[64, 128], pl.INT7, pl.NZ]):
            return w
    """
)


def test_a_printed_program_is_printed_whole_with_its_readable_kernels_planned(tmp_path: Path) -> None:
    path = tmp_path / "p.py"
    path.write_text(PRINTED)
    done = cli(path)
    assert done.returncode == 1
    planned = PRINTED.replace("[[64, 128], pl.FP16", "[[1, 8, 4, 16, 16], pl.FP16")
    planned = planned.replace("[0, 32], [64, 32]", "[0, 2, 0, 0, 0], [1, 2, 4, 16, 16]")
    stamp = 'InCore, attrs={"nz_tensor_views_blocked": True})\n    def good'
    stamped = planned.replace("InCore)\n    def good", stamp)
    assert done.stdout == stamped


def test_the_service_lists_the_kernels_typed() -> None:
    from planner.adapters.api import plan_pypto
    from planner.adapters.protocol import PyptoPlanRequest

    answer = plan_pypto(PyptoPlanRequest(text=MIXED, filename="k.py"))
    assert not answer.ok
    assert [k.status for k in answer.kernels] == ["planned", "unreadable", "refused", "skipped"]


def test_unreadable_kernels_are_not_input_errors_when_another_reads() -> None:
    outcome = plan_text(MIXED, filename="k.py")
    assert not outcome.ok and outcome.text == MIXED
    with pytest.raises(AdapterInputError):
        plan_text(HEAD + "@pl.jit\ndef k(w: pl.Tensor[[16, 16], pl.INT7, pl.NZ]):\n    return w\n")


def test_a_printed_program_whose_planned_kernel_calls_an_unreadable_one_is_left_unchanged(
    tmp_path: Path,
) -> None:
    path = tmp_path / "p.py"
    calling = PRINTED.replace("        return w\n\n", "        w = self.bad(w)\n        return w\n\n", 1)
    assert calling != PRINTED
    path.write_text(calling)
    done = cli(path, "--json")
    assert done.returncode == 1
    assert [k["status"] for k in json.loads(done.stdout)["kernels"]] == ["planned", "unreadable"]
    assert cli(path).stdout == ""  # not printed: blocking one side of the call would break it
