"""The programs that plan wrongly unless the prover reads what the hardware runs (nz-layout.md 7.3).

Each is written as a user would write it, as PyPTO source (`@pl.jit`) and as printed IR, and
goes through `planner plan`: the bad version is refused with a diagnostic that names the
reading and the counterexample; its control version (the fix a user would make) plans.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.cli import main

SOURCE = """\
import pypto.language as pl


@pl.jit
def kernel(
    x: pl.Tensor[[64, 512], pl.INT8],
    w: pl.Tensor[[{rows}, 512], pl.INT8, pl.NZ],
    out: pl.Out[pl.Tensor[[64, {window}], pl.INT32]],
):
    with pl.incore():
{body}
    return out
"""
SOURCE_READ = "acc = pl.matmul(x[:, 0:512], w[n0 : n0 + {window}, 0:512], out_dtype=pl.INT32, b_trans=True)"

PRINTED = """\
# pypto.program: P
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, w: pl.Tensor[[{rows}, 512], pl.INT8, pl.NZ]):
{body}
"""
PRINTED_READ = "wt = pl.tile.load(w, [n0, 0], [{window}, 512], target_memory=pl.Mem.Mat)"
FORMS = {"source": (SOURCE, SOURCE_READ, 8), "printed": (PRINTED, PRINTED_READ, 8)}


def product(dtype: str) -> str:
    """`m * s * t` over scalars of `dtype`: at INT32 it wraps to -2**31 when m = 1."""
    return f"""\
for m in pl.range(2):
    mm: pl.Scalar[pl.{dtype}] = m
    s: pl.Scalar[pl.{dtype}] = 65536
    t: pl.Scalar[pl.{dtype}] = 32768
    k: pl.Scalar[pl.{dtype}] = 134217728
    n0 = (mm * s * t) // k * 16
    READ
"""


def lanes(offset: str, extent: int = 2) -> str:
    return f"for nb in pl.spmd({extent}):\n    n0 = {offset}\n    READ\n"


def unsigned(value: int, offset: str) -> str:
    return f"u: pl.Scalar[pl.UINT8] = {value}\nn0 = {offset}\nREAD\n"


def carried(step: int) -> str:
    return f"n0: pl.Scalar[pl.INDEX] = 0\nfor k in pl.range(4):\n    READ\n    n0 = n0 + {step}\n"


# (body, tensor rows, window rows, options, expected code, words the diagnostic must hold)
REFUSED = {
    "int32-product-wraps": (
        product("INT32"),
        1024,
        256,
        (),
        "nz.offset_unprovable_sign",
        "m = 1 gives n0 = -256",
    ),
    "truncating-remainder": (
        lanes("((nb - 1) % 2) * 256"),
        1024,
        256,
        (),
        "nz.offset_unprovable_sign",
        "with truncating `%`, nb = 0 gives n0 = -256",
    ),
    "truncating-remainder-trunc-option": (
        lanes("((nb - 1) % 2) * 256"),
        1024,
        256,
        ("division=trunc",),
        "nz.offset_unprovable_sign",
        "with truncating `%`, nb = 0 gives n0 = -256",
    ),
    "truncating-quotient": (
        lanes("-256 * ((nb - 2) // 2) - 256"),
        1024,
        256,
        (),
        "nz.offset_unprovable_sign",
        "with truncating `//`, nb = 1 gives n0 = -256",
    ),
    "unsigned-zero-extended": (
        unsigned(240, "0 - u"),
        1024,
        256,
        (),
        "nz.offset_unprovable_sign",
        "with unsigned values zero-extended",
    ),
    "carried-misaligned": (carried(8), 512, 256, (), "nz.offset_unprovable_multiple", "k = 1 gives"),
    "lanes-past-the-end": (
        lanes("nb * 256", 8),
        1024,
        256,
        (),
        "nz.window_out_of_bounds",
        "runs past the tensor's 1024 elements on the smallest launch: nb = ",
    ),
}
PLANNED = {
    "64-bit-product": (product("INT64"), 1024, 256, ()),
    "non-negative-dividend": (lanes("((nb + 1) % 2) * 256"), 1024, 256, ()),
    "floor-division": (lanes("((nb - 1) % 2) * 256"), 1024, 256, ("division=floor",)),
    "floor-quotient": (lanes("-256 * ((nb - 2) // 2) - 256"), 1024, 256, ("division=floor",)),
    "unsigned-small": (unsigned(16, "u * 16"), 1024, 256, ()),
    "carried-aligned": (carried(16), 512, 256, ()),
    "lanes-that-fit": (lanes("nb * 256", 4), 1024, 256, ()),
}


def write(tmp_path: Path, form: str, body: str, rows: int, window: int) -> Path:
    template, read, indent = FORMS[form]
    text = textwrap.indent(body.replace("READ", read.format(window=window)), " " * indent)
    path = tmp_path / f"{form}.py"
    path.write_text(template.format(rows=rows, window=window, body=text.rstrip("\n")))
    return path


def plan(capsys: pytest.CaptureFixture[str], path: Path, options: tuple[str, ...]) -> tuple[int, str]:
    argv = ["plan", str(path), "-o", str(path.with_suffix(".out"))]
    for option in options:
        argv += ["--option", option]
    code = main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    ("body", "rows", "window", "options", "code", "words"), REFUSED.values(), ids=REFUSED
)
def test_each_program_is_refused_naming_the_reading_and_the_counterexample(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    form: str,
    body: str,
    rows: int,
    window: int,
    options: tuple[str, ...],
    code: str,
    words: str,
) -> None:
    exit_code, err = plan(capsys, write(tmp_path, form, body, rows, window), options)
    assert exit_code == 1
    assert f"error: [{code}]" in err and words in err
    assert "note: counterexample:" in err


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("body", "rows", "window", "options"), PLANNED.values(), ids=PLANNED)
def test_each_control_version_plans(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    form: str,
    body: str,
    rows: int,
    window: int,
    options: tuple[str, ...],
) -> None:
    exit_code, err = plan(capsys, write(tmp_path, form, body, rows, window), options)
    assert (exit_code, err) == (0, "")


@pytest.mark.parametrize("value", ["round", "Floor", ""])
def test_an_unknown_division_is_a_typed_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str
) -> None:
    path = write(tmp_path, "source", *PLANNED["floor-division"][:3])
    exit_code, err = plan(capsys, path, (f"division={value}",))
    assert exit_code == 2
    assert f"error: [adapter.pypto.bad_option] unknown division {value!r}" in err
