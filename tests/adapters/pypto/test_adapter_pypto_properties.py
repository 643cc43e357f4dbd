"""Property tests of the PyPTO adapter against an independent blocking oracle (docs/design/nz-layout.md 3-7).

Programs are generated with arbitrary comments (non-ASCII included), spacing and line breaks,
so splicing is exercised on UTF-8 byte columns, CRLF files and multi-line calls.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.adapters.outcome import AdapterInputError
from planner.adapters.pypto import plan_text
from planner.layout.protocol import LayoutPlanRequest, LayoutPlanResponse
from tests.support.hypothesis_budget import lowered
from tests.support.paths import ROOT

C0_BY_DTYPE = {"INT8": 32, "FP16": 16, "FP32": 8}


@dataclass(frozen=True)
class Load:
    row: int
    col: int
    rows: int
    cols: int
    batch: int


@dataclass(frozen=True)
class Case:
    text: str
    dtype: str
    shape: tuple[int, ...]
    loads: tuple[Load, ...]


comments = st.text(alphabet=st.characters(blacklist_categories=["Cc", "Cs", "Zl", "Zp"]), max_size=12).map(
    lambda text: f"  # {text}"
)
gaps = st.sampled_from(["", " ", "  "])


@st.composite
def cases(draw: st.DrawFn, aligned: bool = True) -> Case:
    dtype = draw(st.sampled_from(sorted(C0_BY_DTYPE)))
    c0 = C0_BY_DTYPE[dtype]
    rows = 16 * draw(st.integers(1, 8))
    cols = c0 * draw(st.integers(1, 8))
    batch = draw(st.sampled_from([None, 1, 3]))
    shape = (rows, cols) if batch is None else (batch, rows, cols)
    loads = []
    for _ in range(draw(st.integers(1, 4))):
        tile_rows = 16 * draw(st.integers(1, rows // 16))
        tile_cols = c0 * draw(st.integers(1, cols // c0))
        row = 16 * draw(st.integers(0, (rows - tile_rows) // 16))
        col = c0 * draw(st.integers(0, (cols - tile_cols) // c0))
        if not aligned:
            row += draw(st.sampled_from([0, 8]))
            col += draw(st.sampled_from([0, 1]))
        loads.append(Load(row, col, tile_rows, tile_cols, draw(st.integers(0, (batch or 1) - 1))))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [
        "# pypto.program: Generated" + draw(st.sampled_from(["", " "])),
        "import pypto.language as pl" + draw(comments),
        "",
        "",
        "@pl.program",
        "class Generated:" + draw(comments),
        "    @pl.function(type=pl.FunctionType.InCore)",
        f"    def main(self, w: pl.Tensor[{_list(shape, draw(gaps))}, pl.{dtype}, pl.NZ]):" + draw(comments),
    ]
    for index, load in enumerate(loads):
        lead = [] if batch is None else [load.batch]
        offsets = _list((*lead, load.row, load.col), draw(gaps))
        shapes = _list((*([1] if batch else []), load.rows, load.cols), draw(gaps))
        split = draw(st.booleans())
        head = f"        t{index}: pl.Tile[[{load.rows}, {load.cols}], pl.{dtype}, pl.Mem.Mat] = "
        if split:
            lines += [head + "pl.tile.load(" + draw(comments), f"            w, {offsets},{draw(comments)}"]
            lines += [f"            {shapes}, target_memory=pl.Mem.Mat", "        )" + draw(comments)]
        else:
            lines.append(
                head + f"pl.tile.load(w, {offsets}, {shapes}, target_memory=pl.Mem.Mat)" + draw(comments)
            )
    lines.append("        return w")
    return Case(newline.join(lines) + newline, dtype, shape, tuple(loads))


def _list(values: tuple[int, ...], gap: str) -> str:
    return "[" + gap + f",{gap} ".join(str(value) for value in values) + gap + "]"


def blocked(shape: tuple[int, ...], c0: int) -> list[int]:
    """Section 3, written out independently: [B, C/c0, R/16, 16, c0]."""
    batch = shape[0] if len(shape) == 3 else 1
    return [batch, shape[-1] // c0, shape[-2] // 16, 16, c0]


def planned_loads(text: str) -> list[tuple[list[int], list[int]]]:
    calls = [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)]
    loads = [call for call in calls if ast.unparse(call.func) == "pl.tile.load"]
    ordered = sorted(loads, key=lambda call: (call.lineno, call.col_offset))
    return [(ast.literal_eval(call.args[1]), ast.literal_eval(call.args[2])) for call in ordered]


@given(cases())
def test_aligned_loads_are_blocked_as_the_oracle_says(case: Case) -> None:
    outcome = plan_text(case.text)
    assert outcome.ok, outcome.diagnostics
    c0 = C0_BY_DTYPE[case.dtype]
    expected = [
        ([load.batch, load.col // c0, load.row // 16, 0, 0], [1, load.cols // c0, load.rows // 16, 16, c0])
        for load in case.loads
    ]
    assert planned_loads(outcome.text) == expected
    assert f"pl.Tensor[{blocked(case.shape, c0)}, pl.{case.dtype}, pl.NZ]" in outcome.text
    assert plan_text(outcome.text).text == outcome.text


@given(cases())
def test_only_the_planned_spans_change(case: Case) -> None:
    """Putting the input's lists back into the planned text (stamp removed) gives the input byte for byte."""
    planned = plan_text(case.text).text.replace(', attrs={"nz_tensor_views_blocked": True}', "")
    original_spans, planned_spans = rewritten_spans(case.text), rewritten_spans(planned)
    pieces, cursor = [], 0
    for (start, end), (old_start, old_end) in zip(planned_spans, original_spans, strict=True):
        pieces += [planned[cursor:start], case.text[old_start:old_end]]
        cursor = end
    assert "".join([*pieces, planned[cursor:]]) == case.text


def rewritten_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the tensor annotation's shape list and of every load's offsets and shapes."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def char(line: int, column: int) -> int:
        return starts[line - 1] + len(lines[line - 1].encode()[:column].decode())

    def span(node: ast.expr) -> tuple[int, int]:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return char(node.lineno, node.col_offset), char(node.end_lineno, node.end_col_offset)

    tree = ast.parse(text)
    annotation = next(node for node in ast.walk(tree) if isinstance(node, ast.arg) and node.arg == "w")
    assert isinstance(annotation.annotation, ast.Subscript) and isinstance(
        annotation.annotation.slice, ast.Tuple
    )
    nodes = [annotation.annotation.slice.elts[0]]
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "pl.tile.load"
    ]
    for call in sorted(calls, key=lambda node: (node.lineno, node.col_offset)):
        nodes += [call.args[1], call.args[2]]
    return sorted(span(node) for node in nodes)


@given(cases(aligned=False))
def test_a_refused_program_is_returned_byte_identical(case: Case) -> None:
    outcome = plan_text(case.text, filename="gen.py")
    c0 = C0_BY_DTYPE[case.dtype]
    aligned = all(load.row % 16 == 0 and load.col % c0 == 0 for load in case.loads)
    assert outcome.ok is aligned
    if not aligned:
        assert outcome.text == case.text
        assert outcome.diagnostics[0].startswith("gen.py:")
        assert "[nz.offset_unaligned_const]" in outcome.diagnostics[0]


def accept_everything(request: LayoutPlanRequest) -> LayoutPlanResponse:
    return LayoutPlanResponse(ok=True, attrs=request.attrs)


@given(cases(aligned=False))
def test_parse_then_print_is_the_identity(case: Case) -> None:
    assert plan_text(case.text, planner=accept_everything).text == case.text


EXAMPLE_TEXTS = [
    path.read_text(encoding="utf-8") for path in sorted((ROOT / "examples" / "pypto").glob("*.py"))
]


@st.composite
def mutated_programs(draw: st.DrawFn) -> str:
    """An example with a few spans deleted, duplicated or replaced by arbitrary text."""
    text = draw(st.sampled_from(EXAMPLE_TEXTS))
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 40)))
        replacement = draw(st.sampled_from(["", text[start:end] * 2, draw(st.text(max_size=8))]))
        text = text[:start] + replacement + text[end:]
    return text


@settings(max_examples=lowered(60))
@given(mutated_programs())
def test_any_input_gives_an_outcome_or_a_typed_error(text: str) -> None:
    try:
        outcome = plan_text(text, filename="m.py")
    except AdapterInputError as error:
        assert error.code.startswith("adapter.pypto.") and error.message
        return
    assert outcome.ok or outcome.text == text
    assert all(line.startswith("m.py:") for line in outcome.diagnostics)
