"""The programs that plan wrongly unless the prover reads what the hardware runs (nz-layout.md 7.3).

Each is written as a user would write it, as PyPTO source (`@pl.jit`) and as printed IR, and
goes through `planner plan`: the bad version is refused with a diagnostic that names the
reading and the counterexample; its control version (the fix a user would make) plans.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import NamedTuple

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
WINDOW = 256  # rows each program reads
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


class Program(NamedTuple):
    """A function body reading `n0` (at `READ`), the NZ tensor's rows, and `--option` pairs."""

    body: str
    rows: int = 1024
    options: tuple[str, ...] = ()


# program, expected code, words the diagnostic must hold
REFUSED = {
    "int32-product-wraps": (Program(product("INT32")), "nz.offset_unprovable_sign", "m = 1 gives n0 = -256"),
    "truncating-remainder": (
        Program(lanes("((nb - 1) % 2) * 256")),
        "nz.offset_unprovable_sign",
        "with truncating `%`, nb = 0 gives n0 = -256",
    ),
    "truncating-remainder-trunc-option": (
        Program(lanes("((nb - 1) % 2) * 256"), options=("division=trunc",)),
        "nz.offset_unprovable_sign",
        "with truncating `%`, nb = 0 gives n0 = -256",
    ),
    "truncating-quotient": (
        Program(lanes("-256 * ((nb - 2) // 2) - 256")),
        "nz.offset_unprovable_sign",
        "with truncating `//`, nb = 1 gives n0 = -256",
    ),
    "unsigned-zero-extended": (
        Program(unsigned(240, "0 - u")),
        "nz.offset_unprovable_sign",
        "with unsigned values zero-extended",
    ),
    "carried-misaligned": (Program(carried(8), rows=512), "nz.offset_unprovable_multiple", "k = 1 gives"),
    "lanes-past-the-end": (
        Program(lanes("nb * 256", 8)),
        "nz.window_out_of_bounds",
        "runs past the tensor's 1024 elements on the smallest launch: nb = ",
    ),
}
PLANNED = {
    "64-bit-product": Program(product("INT64")),
    "non-negative-dividend": Program(lanes("((nb + 1) % 2) * 256")),
    "floor-division": Program(lanes("((nb - 1) % 2) * 256"), options=("division=floor",)),
    "floor-quotient": Program(lanes("-256 * ((nb - 2) // 2) - 256"), options=("division=floor",)),
    "unsigned-small": Program(unsigned(16, "u * 16")),
    "carried-aligned": Program(carried(16), rows=512),
    "lanes-that-fit": Program(lanes("nb * 256", 4)),
}


def plan(capsys: pytest.CaptureFixture[str], tmp_path: Path, form: str, program: Program) -> tuple[int, str]:
    """Write `program` in `form` and run `planner plan` on it: the exit code and stderr."""
    template, read, indent = FORMS[form]
    text = textwrap.indent(program.body.replace("READ", read.format(window=WINDOW)), " " * indent)
    path = tmp_path / f"{form}.py"
    path.write_text(template.format(rows=program.rows, window=WINDOW, body=text.rstrip("\n")))
    argv = ["plan", str(path), "-o", str(path.with_suffix(".out"))]
    for option in program.options:
        argv += ["--option", option]
    code = main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("program", "code", "words"), REFUSED.values(), ids=REFUSED)
def test_each_program_is_refused_naming_the_reading_and_the_counterexample(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, form: str, program: Program, code: str, words: str
) -> None:
    exit_code, err = plan(capsys, tmp_path, form, program)
    assert exit_code == 1
    assert f"error: [{code}]" in err and words in err
    assert "note: counterexample:" in err


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("program", PLANNED.values(), ids=PLANNED)
def test_each_control_version_plans(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, form: str, program: Program
) -> None:
    assert plan(capsys, tmp_path, form, program) == (0, "")


@pytest.mark.parametrize("value", ["round", "Floor", ""])
def test_an_unknown_division_is_a_typed_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str
) -> None:
    program = PLANNED["floor-division"]._replace(options=(f"division={value}",))
    exit_code, err = plan(capsys, tmp_path, "source", program)
    assert exit_code == 2
    assert f"error: [adapter.pypto.bad_option] unknown division {value!r}" in err
