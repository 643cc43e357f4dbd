"""Every unresolved extent says why, with file and line (docs/design/nz-layout.md section 19): a
note beside the dynamic-extent diagnostic, `unresolved` in the plan report and in `suggest --json`."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PLANNER = str(Path(sys.executable).with_name("planner"))

CONFIG = textwrap.dedent(
    """\
    import os
    import sys

    import pypto.language as pl

    ROWS_DYN = pl.dynamic("ROWS_DYN")
    _NAME = os.environ.get("MODEL", "flash")
    ACTIVE = {"flash": 4096, "pro": 8192}[_NAME]
    PICKED = 256 if sys.argv[-1] == "x" else 512
    GROWN = 64
    GROWN = 128
    LISTED = [64]
    LISTED.append(128)


    def _variant():
        picked = os.environ.get("VARIANT", "pro")
        return picked


    VARIANT = _variant()
    TABLE = {name: 2048 for name in ("pro", "flash")}
    CHOSEN = TABLE[VARIANT]
    """
)

# (extent as the kernel spells it, cause, file, line, words of the message)
CASES = [
    ("ROWS_DYN", "dynamic", "config.py", 6, "declared dynamic: pl.dynamic('ROWS_DYN')"),
    ("ACTIVE", "import_time", "config.py", 7, "chosen at import time: _NAME reads os.environ"),
    ("PICKED", "import_time", "config.py", 9, "chosen at import time: PICKED reads sys.argv"),
    ("batch", "builder_parameter", "kernel.py", 7, "--bind batch=VALUE"),
    ("GROWN", "mutated", "config.py", 11, "bound again or changed after it is bound"),
    ("LISTED[0]", "mutated", "config.py", 13, "bound again or changed after it is bound"),
    ("CHOSEN", "import_time", "config.py", 17, "calls _variant, which reads os.environ at"),
    (
        "HIDDEN",
        "unreadable_import",
        "kernel.py",
        None,
        "module missing_config, which is not on the module path",
    ),
]


def library(tmp_path: Path, extent: str, layout: str = "") -> Path:
    (tmp_path / "config.py").write_text(CONFIG)
    kernel = tmp_path / "kernel.py"
    kernel.write_text(
        textwrap.dedent(
            f"""\
            import pypto.language as pl

            from config import ACTIVE, CHOSEN, GROWN, LISTED, PICKED, ROWS_DYN
            from missing_config import HIDDEN


            def build(batch):
                @pl.jit.incore
                def k(
                    x: pl.Tensor[[64, 256], pl.FP16],
                    w: pl.Tensor[[{extent}, 256], pl.FP16{layout}],
                    out: pl.Out[pl.Tensor[[64, 256], pl.FP32]],
                ):
                    acc = pl.matmul(x[:, 0:256], w[0:256, :], out_dtype=pl.FP32, b_trans=True)
                    out = pl.assemble(out, acc, [0, 0])
                    return out

                return k
            """
        )
    )
    return kernel


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PLANNER, *arguments], capture_output=True, text=True)


@pytest.mark.parametrize(("extent", "cause", "file", "line", "words"), CASES)
def test_suggest_json_says_why_an_extent_is_not_static(
    tmp_path: Path, extent: str, cause: str, file: str, line: int | None, words: str
) -> None:
    kernel = library(tmp_path, extent)
    done = run("suggest", "--json", str(kernel))
    assert done.returncode == 0, done.stderr
    (tensor,) = json.loads(done.stdout)["tensors"]
    assert not tensor["eligible"] and tensor["blocking"]["code"] == "nz.dynamic_trailing_extent"
    (unresolved,) = tensor["unresolved"]
    assert (unresolved["name"], unresolved["cause"]) == (extent, cause)
    assert (unresolved["file"], unresolved.get("line")) == (str(tmp_path / file), line)
    assert words in unresolved["message"]
    where = f"{tmp_path / file}:{line}" if line is not None else ""
    assert where in unresolved["message"]


@pytest.mark.parametrize(("extent", "cause", "file", "line", "words"), CASES)
def test_plan_notes_the_cause_beside_the_dynamic_extent_diagnostic(
    tmp_path: Path, extent: str, cause: str, file: str, line: int | None, words: str
) -> None:
    kernel = library(tmp_path, extent, ", pl.NZ")
    done = run("plan", "--report", str(tmp_path / "report.json"), str(kernel))
    assert done.returncode == 1
    error, note = [each for each in done.stderr.splitlines() if f"{kernel}:11:" in each]
    assert "error: [nz.dynamic_trailing_extent]" in error
    assert note.startswith(f"{kernel}:11:") and f"note: {extent} is not static: " in note and words in note
    (entry,) = json.loads((tmp_path / "report.json").read_text())["functions"]
    assert [(u["name"], u["cause"]) for u in entry["unresolved"]] == [(extent, cause)]


def test_a_bound_builder_parameter_has_no_cause_and_plans(tmp_path: Path) -> None:
    kernel = library(tmp_path, "batch")
    done = run("suggest", "--json", "--bind", "batch=256", str(kernel))
    (tensor,) = json.loads(done.stdout)["tensors"]
    assert tensor["unresolved"] == [] and tensor["eligible"]


def test_an_extent_that_resolves_has_no_cause(tmp_path: Path) -> None:
    kernel = library(tmp_path, "256")
    done = run("suggest", "--json", str(kernel))
    (tensor,) = json.loads(done.stdout)["tensors"]
    assert tensor["unresolved"] == [] and tensor["eligible"]
