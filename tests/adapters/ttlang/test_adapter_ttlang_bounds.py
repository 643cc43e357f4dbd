"""The TT-Lang reader's guarantees on hostile input: SSA dominance is checked, every nesting depth
up to the documented limit is read, long strings cost memory linear in their length, and integers
past Python's int-string limit are parse errors at their position."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.reading.nesting import NESTING_LIMIT
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk
from planner.adapters.ttlang.tool.opt_main import main as opt_main
from planner.adapters.ttlang.writing.planning import plan_text

TILE = "!ttcore.tile<32x32, f32>"
HEAD = f"""func.func @k(%x: tensor<1x1x{TILE}>, %c: i1) {{
  %c0 = arith.constant 0 : index
  %b0 = ttl.bind_cb {{cb_index = 0, block_count = 2}} : !ttl.cb<[1, 1], {TILE}, 2>
  %xa = ttl.attach_cb %x, %b0 : (tensor<1x1x{TILE}>, !ttl.cb<[1, 1], {TILE}, 2>) -> tensor<1x1x{TILE}>
  %t = tensor.extract %xa[%c0, %c0] : tensor<1x1x{TILE}>
"""
TAIL = "  return\n}\n"
MUL = f"  %prod = ttl.tile_mul %t, %t into dst[%c0] : {TILE}, {TILE} -> {TILE}\n"
ADD = f"  %s = ttl.tile_add %prod, %t into dst[%c0] : {TILE}, {TILE} -> {TILE}\n"
HEAD_LINES = HEAD.count("\n")


def read_error(text: str) -> AdapterInputError:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(text, filename="k.mlir")
    return caught.value


def run_opt(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    source = tmp_path / "k.mlir"
    source.write_text(text)
    status = opt_main([str(source), "-p", "ttl-set-compute-kernel-config"])
    return status, capsys.readouterr().err.replace(str(source), "k.mlir")


def test_a_use_before_its_definition_is_refused_at_the_use_with_a_note_at_the_definition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    error = read_error(HEAD + ADD + MUL + TAIL)
    use, definition = HEAD_LINES + 1, HEAD_LINES + 2
    assert (error.code, error.line, error.column) == ("adapter.invalid_ir", use, 8)
    status, err = run_opt(HEAD + ADD + MUL + TAIL, tmp_path, capsys)
    assert status == 2
    assert err.splitlines() == [
        f"k.mlir:{use}:8: error: [adapter.invalid_ir] operand #0 does not dominate this use",
        f"k.mlir:{definition}:11: note: operand defined here (op in the same block)",
    ]


def test_the_same_ops_in_dominance_order_are_planned() -> None:
    assert plan_text(HEAD + MUL + ADD + TAIL, filename="k.mlir").ok


def test_a_value_used_inside_the_region_of_the_op_it_comes_from_is_refused() -> None:
    nested = (
        f"  %r = scf.if %c -> ({TILE}) {{\n    scf.yield %r : {TILE}\n"
        f"  }} else {{\n    scf.yield %t : {TILE}\n  }}\n"
    )
    error = read_error(HEAD + nested + TAIL)
    assert (error.line, error.column) == (HEAD_LINES + 2, 5)
    assert "operand #0 does not dominate this use" in error.message
    assert "note: operand defined here (op in a parent region)" in error.message


BRANCHES = """func.func @f(%a: index) {
  "test.br"()[^bbFIRST] : () -> ()
^bb1:
  %v = arith.addi %a, %a : index
  "test.br"()[^bb2] : () -> ()
^bb2:
  %w = arith.addi %v, %v : index
  return
}
"""


def test_a_value_of_another_block_is_read_only_where_its_block_dominates_the_use() -> None:
    assert parse_chunk(Chunk(BRANCHES.replace("FIRST", "1"), 0, 1), "f.mlir").module is not None
    with pytest.raises(AdapterInputError) as caught:
        parse_chunk(Chunk(BRANCHES.replace("FIRST", "2"), 0, 1), "f.mlir")  # ^bb1 is not on every path
    assert (caught.value.line, caught.value.column) == (7, 8)
    assert caught.value.message.endswith("note: operand defined here (op in the same region)")


@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), min_size=1, max_size=8), st.randoms())
def test_dominance_is_refused_exactly_where_an_operand_is_not_yet_defined(
    operands: list[tuple[int, int]], random: object
) -> None:
    """Op `i` defines `%v<i>` from two values; the oracle: the first op reading a value not defined
    by an earlier op (or an argument) is the one refused."""
    count = len(operands)
    names = [f"%v{index}" for index in range(count)]
    order = list(range(count))
    random.shuffle(order)  # type: ignore[attr-defined]
    lines, defined, first_bad = [], {"%a"}, None
    for position, index in enumerate(order):
        reads = [names[k] if k < count else "%a" for k in operands[index]]
        if first_bad is None and any(name not in defined for name in reads):
            first_bad = position
        defined.add(names[index])
        lines.append(f"  {names[index]} = arith.addi {reads[0]}, {reads[1]} : index\n")
    text = "func.func @f(%a: index) {\n" + "".join(lines) + "  return\n}\n"
    chunk = Chunk(text, 0, 1)
    if first_bad is None:
        assert parse_chunk(chunk, "f.mlir").module is not None
        return
    with pytest.raises(AdapterInputError) as caught:
        parse_chunk(chunk, "f.mlir")
    assert caught.value.line == first_bad + 2


def nested_ifs(depth: int) -> str:
    exp = f"{'  ' * depth}%e = ttl.tile_exp %t into dst[%c0] : {TILE} -> {TILE}\n"
    return HEAD + "scf.if %c {\n" * depth + exp + "}\n" * depth + TAIL


DEEPEST_IF = NESTING_LIMIT - 2  # the function's `(` and `{` are the other two levels


def test_regions_nested_to_the_documented_limit_are_planned_and_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert plan_text(nested_ifs(DEEPEST_IF), filename="k.mlir").ok
    assert run_opt(nested_ifs(DEEPEST_IF), tmp_path, capsys) == (0, "")


def test_regions_nested_past_the_limit_are_a_parse_error_at_the_bracket() -> None:
    error = read_error(nested_ifs(DEEPEST_IF + 1))
    assert error.code == "adapter.parse_error"
    assert error.message.endswith(f"brackets nest deeper than {NESTING_LIMIT} levels")


def test_the_cli_plans_the_deepest_nesting_in_a_fresh_process(tmp_path: Path) -> None:
    source = tmp_path / "deep.mlir"
    source.write_text(nested_ifs(DEEPEST_IF))
    planner = Path(sys.executable).parent / "planner"
    done = subprocess.run([planner, "plan", source], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")


def test_a_four_megabyte_string_attribute_costs_memory_linear_in_its_length() -> None:
    length = 4_000_000
    text = (HEAD + MUL + TAIL).replace(") {\n", f') attributes {{note = "{"a" * length}"}} {{\n', 1)
    tracemalloc.start()
    try:
        assert plan_text(text, filename="k.mlir").ok
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * length


LONG = "9" * 5000


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("%c0 = arith.constant 0 : index", f"%c0 = arith.constant {LONG} : index"),
        ("cb_index = 0", f"cb_index = {LONG}"),
        ("cb_index = 0", f"cb_index = 0x{'f' * 5000}"),
        ("%x: tensor<1x1x", f"%x: tensor<{LONG}x1x"),
        ("%x: tensor<1x1x!ttcore.tile<32x32", f"%x: tensor<1x1x!ttcore.tile<{LONG}x32"),
    ],
    ids=["constant", "cb_index", "hex", "dimension", "tile_dimension"],
)
def test_an_integer_past_the_int_string_limit_is_a_parse_error_at_its_first_digit(old: str, new: str) -> None:
    text = (HEAD + MUL + TAIL).replace(old, new, 1)
    offset = text.index(new) + (new.index(LONG) if LONG in new else new.index("0x"))
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    error = read_error(text)
    assert (error.code, error.line, error.column) == ("adapter.parse_error", line, column)
    assert error.message.endswith("integer literal longer than 100 digits")


def test_a_long_run_of_digits_inside_a_string_is_read() -> None:
    text = (HEAD + MUL + TAIL).replace(") {\n", f') attributes {{note = "{LONG}"}} {{\n', 1)
    assert plan_text(text, filename="k.mlir").ok
