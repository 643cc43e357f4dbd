"""PyPTO as model libraries keep it: kernels in builders and tests, constants from config modules,
constructs that never touch NZ (docs/design/nz-layout.md sections 18, 19)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from planner.adapters.pypto import plan_text
from planner.adapters.pypto.constants.kernel_constants import ResolveContext
from planner.adapters.pypto.constants.module_finder import GivenModules
from planner.service.methods import invoke
from tests.support.paths import ROOT

PLANNER = str(Path(sys.executable).with_name("planner"))

EXAMPLE = ROOT / "examples" / "pypto" / "model_lib"
CONFIG = (EXAMPLE / "config.py").read_text()  # a frozen dataclass with a derived property

# One kernel body, spelled the same wherever it is defined: its NZ decisions must not depend on where.
LAYER = textwrap.dedent(
    """\
    @pl.function(type=pl.FunctionType.InCore)
    def layer(
        self,
        x: pl.Tensor[[batch, D], pl.BF16],
        w: pl.Tensor[[N, D], pl.BF16, pl.NZ],
        out: pl.Out[pl.Tensor[[batch, N], pl.FP32]],
    ):
        for k0 in pl.range(0, D, K_TILE):
            acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[:, k0 : k0 + K_TILE], b_trans=True)
            out[:, :] = acc
        return out
    """
)

TOP_LEVEL = (
    "import pypto.language as pl\n\nD = 4096\nN = 448\nK_TILE = 128\nbatch = 16\n\n\n"
    "@pl.program\nclass Decode:\n" + textwrap.indent(LAYER, "    ")
)

BUILDER = (
    "import pypto.language as pl\n\nfrom config import FLASH as M\n\n"
    "D = M.hidden_size\nN = M.nope_head_dim\n\n\n"
    "def build_decode_program(batch=16):\n    K_TILE = M.k_tile\n\n    @pl.program\n    class Decode:\n"
    + textwrap.indent(LAYER, "        ")
    + "\n    return Decode\n"
)


def decisions(outcome: Any) -> list[list[str]]:
    """Per kernel, the messages of its notes (what was decided), without the kernel's own note."""
    assert outcome.ok, outcome.diagnostics
    return [
        [note["message"] for note in entry["notes"] if note["kind"] != "kernel"]
        for entry in outcome.report["functions"]
    ]


def run(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PLANNER, *arguments], capture_output=True, text=True, cwd=cwd, timeout=60)


def model_library(tmp_path: Path, builder: str = BUILDER, config: str = CONFIG) -> Path:
    (tmp_path / "config.py").write_text(config)
    kernel = tmp_path / "decode.py"
    kernel.write_text(builder)
    return kernel


def test_a_builder_with_a_config_module_plans_like_the_top_level_kernel(tmp_path: Path) -> None:
    kernel = model_library(tmp_path)
    done = run("plan", str(kernel), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (entry,) = report["functions"]
    assert entry["name"] == "build_decode_program.<locals>.Decode.layer"
    assert entry["assumptions"] == ["build_decode_program(batch=16)"]
    assert entry["notes"][0]["message"] == (
        "kernel 'build_decode_program.<locals>.Decode.layer' planned for build_decode_program(batch=16)"
    )
    top = plan_text(TOP_LEVEL, filename="top.py")
    assert [[n["message"] for n in entry["notes"][1:]]] == decisions(top)


def test_bind_plans_the_builder_for_another_call(tmp_path: Path) -> None:
    kernel = model_library(tmp_path)
    done = run("plan", str(kernel), "--bind", "batch=32", "--report", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    assert "planned for build_decode_program(batch=32)" in done.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    shapes = [t["shape"] for t in report["functions"][0]["request"]["tensors"]]
    assert shapes == [[448, 4096]]


def test_the_service_reads_imports_only_from_the_request() -> None:
    request = {"text": BUILDER, "filename": "decode.py"}
    unresolved = invoke("pypto.plan", request, None)
    given = invoke("pypto.plan", {**request, "modules": {"config": CONFIG}}, None)
    assert given["ok"] and given["report"]["functions"][0]["request"]["tensors"][0]["shape"] == [448, 4096]
    assert unresolved["report"]["functions"][0]["request"]["tensors"][0]["shape"] != [448, 4096]


def test_suggest_names_where_each_imported_extent_came_from(tmp_path: Path) -> None:
    kernel = model_library(tmp_path, BUILDER.replace(", pl.NZ]", "]"))
    done = run("suggest", str(kernel))
    assert done.returncode == 0, done.stderr
    assert (
        "w in build_decode_program.<locals>.Decode.layer (planned for build_decode_program(batch=16); "
        "N = config.FLASH.nope_head_dim = 448, "
        "D = config.FLASH.hidden_size = 4096): eligible" in done.stdout
    )


TESTS_FILE = "import pypto.language as pl\n\n" + "".join(
    f"\n\ndef test_{name}():\n    K_TILE = {tile}\n\n    @pl.jit.incore\n    def kernel(\n"
    "        x: pl.Tensor[[64, 1024], pl.FP16],\n        w: pl.Tensor[[256, 1024], pl.FP16, pl.NZ],\n"
    "        out: pl.Out[pl.Tensor[[64, 256], pl.FP32]],\n    ):\n"
    "        out[:, :] = pl.matmul(x[:, 0:K_TILE], w[:, 0:K_TILE], b_trans=True)\n        return out\n"
    "\n    assert kernel is not None\n"
    for name, tile in (("small", 128), ("large", 512), ("odd", 40))
)


def test_three_kernels_in_test_functions_are_each_planned() -> None:
    outcome = plan_text(TESTS_FILE, filename="test_k.py")
    names = [entry["name"] for entry in outcome.report["functions"]]
    assert names == ["test_small.<locals>.kernel", "test_large.<locals>.kernel", "test_odd.<locals>.kernel"]
    verdicts = [entry["response"]["ok"] for entry in outcome.report["functions"]]
    codes = [d["code"] for e in outcome.report["functions"] for d in e["response"]["diagnostics"]]
    assert verdicts == [True, True, False] and not outcome.ok  # 40 columns are not a multiple of c0 = 16
    assert codes[0].startswith("nz.") and outcome.notes is None  # nothing is printed unless all planned
    top = TESTS_FILE.split("def test_small():\n")[1].split("\n\n\ndef")[0]
    alone = plan_text(
        "import pypto.language as pl\n\n" + textwrap.dedent(top.split("assert")[0]), filename="t.py"
    )
    assert decisions(alone)[0] == [
        n["message"] for n in outcome.report["functions"][0]["notes"] if n["kind"] != "kernel"
    ]


# The program class and the first parameters both construct tests share (spliced in before dedent).
LAYER_HEAD = """\
@pl.program
    class Decode:
        @pl.function(type=pl.FunctionType.Opaque)
        def layer(
            self,
            x: pl.Tensor[[64, 1024], pl.BF16],
            w: pl.Tensor[[256, 1024], pl.BF16, pl.NZ],"""

CONSTRUCTS = textwrap.dedent(
    """\
    import pypto.language as pl
    import pypto.language.distributed as pld
    from pypto.jit.decorator import jit

    K_TILE = 256


    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def host_prepare(x: pld.DistributedTensor[[64, 1024], pl.BF16], scale: pl.FP32) -> pl.Tensor:
        return x


    @pl.function
    def norm(x: pl.Tensor[[64, 1024], pl.BF16]) -> tuple[pl.Tensor, pl.Tensor]:
        return x, x


    @pl.inline
    def gate(t: pl.Tensor[[64, 1024], pl.BF16]):
        return t


    @jit
    def entry(x: pl.Tensor[[64, 1024], pl.BF16]):
        return x


    @LAYER_HEAD
            task: pl.Scalar[pl.TASK_ID],
            tasks: pl.Array[1, pl.TASK_ID],
            out: pl.Out[pl.Tensor[[64, 256], pl.FP32]],
        ) -> pl.Tensor:
            with pl.manual_scope():
                pass
            with pl.cluster():
                with pl.spmd(4) as tid:
                    with pl.at(level=pl.Level.CORE_GROUP) as group:
                        acc: pl.Tile[[64, 256], pl.FP32, pl.MemRef("l0c", slots=2)[tid % 2], pl.Mem.Acc] = (
                            pl.matmul(x[:, 0:K_TILE], w[:, 0:K_TILE], b_trans=True)
                        )
                        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UpDown):
                            pass
                        out[:, :] = acc
            return out
    """.replace("@LAYER_HEAD", LAYER_HEAD)
)

PLAIN = textwrap.dedent(
    """\
    import pypto.language as pl

    K_TILE = 256


    @LAYER_HEAD
            out: pl.Out[pl.Tensor[[64, 256], pl.FP32]],
        ):
            with pl.at(level=pl.Level.CORE_GROUP):
                acc: pl.Tile[[64, 256], pl.FP32, pl.Mem.Acc] = (
                    pl.matmul(x[:, 0:K_TILE], w[:, 0:K_TILE], b_trans=True)
                )
                out[:, :] = acc
            return out
    """.replace("@LAYER_HEAD", LAYER_HEAD)
)


def test_every_construct_that_never_touches_nz_reads() -> None:
    outcome = plan_text(CONSTRUCTS, filename="c.py")
    names = [entry["name"] for entry in outcome.report["functions"]]
    assert names == ["host_prepare", "norm", "gate", "entry", "layer"]
    assert decisions(outcome)[-1] == decisions(plan_text(PLAIN, filename="p.py"))[0]


@pytest.mark.parametrize(
    ("statement", "construct"),
    [
        ("for part in pl.split_aiv(w):\n        pass", "split_aiv"),
        ("with pl.cluster(w):\n        pass", "cluster"),
        ("for row in w:\n        pass", "'for'"),
        ("t = w\n    t += 1", "'arithmetic'"),
    ],
)
def test_an_unmodelled_construct_reaching_nz_is_an_unsupported_consumer(
    statement: str, construct: str
) -> None:
    text = (
        "import pypto.language as pl\n\n\n@pl.jit.incore\ndef k(w: pl.Tensor[[256, 1024], pl.BF16, pl.NZ]):\n"
        f"    {statement}\n    return w\n"
    )
    outcome = plan_text(text, filename="k.py")
    (diagnostic,) = outcome.report["functions"][0]["response"]["diagnostics"]
    assert not outcome.ok and diagnostic["code"] == "nz.unsupported_consumer"
    assert construct in diagnostic["message"]


def test_every_unreadable_kernel_of_a_file_is_reported_at_once(tmp_path: Path) -> None:
    kernel = tmp_path / "k.py"
    body = "import pypto.language as pl\n\n" + "".join(
        f"\n\n@pl.jit\ndef k{index}(w: pl.Tensor[[16, 16], pl.INT7, pl.NZ]):\n    return w\n"
        for index in range(3)
    )
    kernel.write_text(body)
    done = run("plan", str(kernel), "--json")
    assert done.returncode == 2 and done.stderr.count("[adapter.pypto.unknown_dtype]") == 3
    error = json.loads(done.stdout)["error"]
    assert [each["line"] for each in error["details"]["errors"]] == [6, 11, 16]


def test_a_module_that_cannot_be_read_is_a_warning_and_its_names_stay_symbolic(tmp_path: Path) -> None:
    kernel = model_library(tmp_path, config=CONFIG + "\ndef broken(:\n")
    done = run("plan", str(kernel), "--json")
    report = json.loads(done.stdout)
    (warning,) = report["warnings"]
    broken_line = len(CONFIG.splitlines()) + 2
    assert warning["code"] == "adapter.pypto.unreadable_import" and warning["line"] == broken_line
    expected = f"{tmp_path / 'config.py'}:{broken_line}: warning: [adapter.pypto.unreadable_import]"
    assert expected in done.stderr
    shapes = report["functions"][0]["request"]["tensors"][0]["shape"]
    assert all(isinstance(extent, str) for extent in shapes)  # N and D: symbolic, never assumed


def test_a_module_that_writes_a_file_when_imported_is_read_without_writing_it(tmp_path: Path) -> None:
    marker = tmp_path / "written"
    config = f"open({str(marker)!r}, 'w').write('imported')\n" + CONFIG
    kernel = model_library(tmp_path, config=config)
    done = run("plan", str(kernel))
    assert done.returncode == 0, done.stderr
    assert "blocked shape [1, 256, 28, 16, 16]" in done.stdout and not marker.exists()


def test_a_package_relative_import_and_a_module_alias_resolve(tmp_path: Path) -> None:
    package = tmp_path / "models" / "decode"
    package.mkdir(parents=True)
    (tmp_path / "models" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "shapes.py").write_text("HIDDEN, K_TILE = 1024, 256\n")
    (tmp_path / "model_cfg.py").write_text("ROWS = 256\n")
    (package / "kernel.py").write_text(
        "import pypto.language as pl\nimport model_cfg as C\nfrom .shapes import HIDDEN, K_TILE\n\n\n"
        "@pl.jit.incore\ndef k(x: pl.Tensor[[64, HIDDEN], pl.FP16],"
        " w: pl.Tensor[[C.ROWS, HIDDEN], pl.FP16, pl.NZ],"
        " out: pl.Out[pl.Tensor[[64, 256], pl.FP32]]):\n"
        "    out[:, :] = pl.matmul(x[:, 0:K_TILE], w[:, 0:K_TILE], b_trans=True)\n    return out\n"
    )
    done = run("plan", str(package / "kernel.py"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["functions"][0]["request"]["tensors"][0]["shape"] == [256, 1024]


def test_batch_skips_python_files_that_import_no_pypto(tmp_path: Path) -> None:
    model_library(tmp_path)
    done = run("batch", str(tmp_path), "--quiet")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    assert [(Path(line["input"]).name, line["kind"], line["exit"]) for line in lines] == [
        ("config.py", "skipped", 0),
        ("decode.py", "pypto", 0),
    ]


def test_given_modules_resolve_a_relative_import_of_the_kernel() -> None:
    text = BUILDER.replace("from config import", "from .config import")
    outcome = plan_text(text, filename="d.py", context=ResolveContext(GivenModules({"config": CONFIG})))
    assert outcome.report["functions"][0]["request"]["tensors"][0]["shape"] == [448, 4096]


def test_path_and_planner_path_find_a_config_kept_elsewhere(tmp_path: Path) -> None:
    shared, models = tmp_path / "shared", tmp_path / "models"
    shared.mkdir()
    models.mkdir()
    (shared / "config.py").write_text(CONFIG)
    (models / "decode.py").write_text(BUILDER)
    for arguments, environment in (
        (["plan", str(models / "decode.py"), "--path", str(shared), "--json"], {}),
        (["batch", str(models), "--path", str(shared), "--quiet"], {}),
        (["plan", str(models / "decode.py"), "--json"], {"PLANNER_PATH": str(shared)}),
    ):
        done = subprocess.run(
            [PLANNER, *arguments],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **environment},
        )
        assert done.returncode == 0, done.stderr
        if arguments[0] == "plan":
            assert json.loads(done.stdout)["functions"][0]["request"]["tensors"][0]["shape"] == [448, 4096]
    alone = run("plan", str(models / "decode.py"), "--json")
    assert json.loads(alone.stdout)["functions"][0]["request"]["tensors"][0]["shape"] != [448, 4096]


@pytest.mark.parametrize(
    ("patch", "shape"),
    [
        ("shapes.ROWS = 512", ["ROWS", 1024]),
        ("setattr(shapes, 'ROWS', 512)", ["ROWS", 1024]),
        ("shapes.ROWS += 256", ["ROWS", 1024]),
        ("setattr(shapes, name, 512)", ["ROWS", "HIDDEN"]),  # any attribute may be the one stored
    ],
)
def test_a_module_attribute_the_file_stores_into_is_not_read_from_the_module_text(
    patch: str, shape: list[int | str]
) -> None:
    text = (
        "import shapes\n\nname = 'ROWS'\n" + patch + "\n\nimport pypto.language as pl\n"
        "from shapes import ROWS, HIDDEN\n\n\n@pl.jit.incore\n"
        "def k(w: pl.Tensor[[ROWS, HIDDEN], pl.FP16, pl.NZ], v: pl.Tensor[[shapes.ROWS, 64], pl.FP16]):\n"
        "    return w\n"
    )
    modules = GivenModules({"shapes": "ROWS = 256\nHIDDEN = 1024\n"})
    outcome = plan_text(text, filename="k.py", context=ResolveContext(modules))
    (entry,) = outcome.report["functions"]
    assert entry["request"]["tensors"][0]["shape"] == shape  # what the file stored is not known
    untouched = plan_text(text.replace(patch, ""), filename="k.py", context=ResolveContext(modules))
    assert untouched.report["functions"][0]["request"]["tensors"][0]["shape"] == [256, 1024]


def test_a_store_through_a_package_path_reaches_the_submodule_it_names() -> None:
    text = (
        "import cfg.shapes\n\ncfg.shapes.ROWS = 512\n\nimport pypto.language as pl\n"
        "from cfg.shapes import ROWS, HIDDEN\n\n\n@pl.jit.incore\n"
        "def k(w: pl.Tensor[[ROWS, HIDDEN], pl.FP16, pl.NZ]):\n    return w\n"
    )
    modules = GivenModules({"cfg": "", "cfg.shapes": "ROWS = 256\nHIDDEN = 1024\n"})
    outcome = plan_text(text, filename="k.py", context=ResolveContext(modules))
    assert outcome.report["functions"][0]["request"]["tensors"][0]["shape"] == ["ROWS", 1024]
