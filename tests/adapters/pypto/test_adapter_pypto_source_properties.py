"""`@pl.jit` subscript windows read the right bytes: reported plans checked with the NZ byte oracle.

Programs put windows at random aligned and unaligned constant offsets, spelled as subscripts
(`w[r : r + R, c : c + C]`, an integer batch index, offsets bound to names first) or as
`pl.slice`, each feeding a matmul inside a core scope. The planned offsets and shapes come
from the JSON report only; the oracle packs a logical array into NZ bytes and reads each
planned window through the reported blocked shape and strides alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from planner.adapters.pypto import plan_text
from planner.proofs.expr import BinOp, Const, Expr, Name, parse_expr
from planner.testing.oracles.nz_bytes import pack_nz, read_window

DTYPES = {"INT8": (np.int8, 32), "FP16": (np.float16, 16), "FP32": (np.float32, 8)}


@dataclass(frozen=True)
class Window:
    batch: int
    row: int
    col: int
    rows: int
    cols: int


@dataclass(frozen=True)
class Case:
    text: str
    dtype: str
    shape: tuple[int, ...]
    windows: tuple[Window, ...]


def _window_text(index: int, window: Window, batched: bool, spelling: str) -> list[str]:
    """The window as source, plus any statement that binds its offsets first."""
    lead = f"{window.batch}, " if batched else ""
    rows = f"{window.row} : {window.row + window.rows}"
    cols = f"{window.col} : {window.col + window.cols}"
    if spelling == "named":
        names = f"r{index}", f"c{index}"
        bind = [f"{names[0]} = {window.row}", f"{names[1]} = {window.col}"]
        expr = f"w[{lead}{names[0]} : {names[0]} + {window.rows}, {names[1]} : {names[1]} + {window.cols}]"
        return [*bind, f"a{index} = pl.matmul(x, {expr}, b_trans=True)"]
    if spelling == "slice" and not batched:
        call = f"pl.slice(w, [{window.rows}, {window.cols}], [{window.row}, {window.col}])"
        return [f"a{index} = pl.matmul(x, {call}, b_trans=True)"]
    return [f"a{index} = pl.matmul(x, w[{lead}{rows}, {cols}], b_trans=True)"]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    c0 = DTYPES[dtype][1]
    rows, cols = 16 * draw(st.integers(1, 6)), c0 * draw(st.integers(1, 6))
    batch = draw(st.sampled_from([None, 2]))
    shape = (rows, cols) if batch is None else (batch, rows, cols)
    windows = []
    for _ in range(draw(st.integers(1, 3))):
        tile_rows, tile_cols = 16 * draw(st.integers(1, rows // 16)), c0 * draw(st.integers(1, cols // c0))
        row = draw(st.integers(0, rows - tile_rows))
        col = draw(st.integers(0, cols - tile_cols))
        if draw(st.booleans()):  # aligned half the time
            row, col = row - row % 16, col - col % c0
        windows.append(Window(draw(st.integers(0, (batch or 1) - 1)), row, col, tile_rows, tile_cols))
    scope = draw(
        st.sampled_from(
            ["with pl.at(level=pl.Level.CORE_GROUP):", "with pl.incore():", "for nb in pl.spmd(2):"]
        )
    )
    body = [scope]
    for index, window in enumerate(windows):
        spelling = draw(st.sampled_from(["subscript", "named", "slice"]))
        body += [f"    {line}" for line in _window_text(index, window, batch is not None, spelling)]
    lines = [
        "import pypto.language as pl",
        "",
        "",
        "@pl.jit",
        f"def generated(x: pl.Tensor[[16, {cols}], pl.{dtype}],",
        f"              w: pl.Tensor[{list(shape)}, pl.{dtype}, pl.NZ]):",
        *(f"    {line}" for line in body),
        "    return x",
    ]
    return Case("\n".join(lines) + "\n", dtype, shape, tuple(windows))


@given(cases())
def test_planned_windows_read_the_bytes_of_the_logical_window(case: Case) -> None:
    element, c0 = DTYPES[case.dtype]
    outcome = plan_text(case.text, filename="gen.py")
    assert outcome.text == case.text
    aligned = all(window.row % 16 == 0 and window.col % c0 == 0 for window in case.windows)
    (function,) = outcome.report["functions"]
    if not aligned:  # a constant, or a name bound to one: refused (the names' facts refute the multiple)
        assert not outcome.ok
        refusal = function["response"]["diagnostics"][0]["code"]
        assert refusal in ("nz.offset_unaligned_const", "nz.offset_unprovable_multiple")
        return
    assert outcome.ok, outcome.diagnostics
    tensor = next(note for note in function["notes"] if note["kind"] == "tensor")
    loads = [note for note in function["notes"] if note["kind"] == "access"]
    assert [note["op"] for note in loads] == ["tile.load"] * len(case.windows)
    values = {b["name"]: b["expr"] for b in function["request"]["bindings"] if isinstance(b.get("expr"), int)}
    index = np.arange(np.prod(case.shape)).reshape(case.shape)
    for digit in range(2):  # every element's flat index, one byte at a time: exact in every dtype
        logical = ((index >> (8 * digit)) & 0xFF).astype(element)
        packed = pack_nz(logical)
        as_3d = logical.reshape((-1, *case.shape[-2:]))
        for window, load in zip(case.windows, loads, strict=True):
            offsets = [value_of(offset, values) for offset in load["offsets"]]
            read = read_window(packed, element, tensor["shape"], tensor["strides"], offsets, load["shapes"])
            rows = slice(window.row, window.row + window.rows)
            cols = slice(window.col, window.col + window.cols)
            assert np.array_equal(read, as_3d[window.batch, rows, cols])


def value_of(planned: int | str, values: dict[str, int]) -> int:
    """A planned coordinate over constant-bound names (`r0 // 16`), evaluated with floor division."""
    return _evaluate(parse_expr(planned), values)


def _evaluate(expr: Expr, values: dict[str, int]) -> int:
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Name):
        return values[expr.id]
    assert isinstance(expr, BinOp) and expr.op == "//", expr
    return _evaluate(expr.left, values) // _evaluate(expr.right, values)
