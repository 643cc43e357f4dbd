"""`planner-opt`'s printer (`mlir_printer`): MLIR's conventions, and print, read, print a fixed point.

The oracle for "the same IR" is xDSL's own generic printer (dictionaries sorted, as MLIR holds
them), which shares nothing with ours: a module read from our print must print generically
exactly as the module it was printed from.
Upstream's parser reading our print back is `make upstream` (tests/upstream/check.py).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.reading.source import Chunk, is_blank, parse_chunk, split_chunks
from planner.adapters.ttlang.tool.opt_main import main
from planner.adapters.ttlang.writing.mlir_printer import canonical_text
from tests.support.paths import ROOT

INPUTS = sorted(
    path
    for folder in (ROOT / "examples", ROOT / "tests")
    for path in folder.rglob("*.mlir")
    if "Output" not in path.parts
)
TILE = "!ttcore.tile<32x32, bf16>"
CB = f"!ttl.cb<[1, 1], {TILE}, 2>"


def read(text: str) -> Operation:
    return parse_chunk(Chunk(text, 0, 1), "k.mlir").module


class SortedGenericPrinter(Printer):
    """xDSL's generic printer with dictionaries sorted, as MLIR holds them (the order read is not IR)."""

    def print_attr_dict(self, attr_dict: Mapping[str, Attribute]) -> None:
        super().print_attr_dict(dict(sorted(attr_dict.items())))


def generic(op: Operation, *, debuginfo: bool = False) -> str:
    stream = io.StringIO()
    SortedGenericPrinter(stream=stream, print_generic_format=True, print_debuginfo=debuginfo).print_op(op)
    return stream.getvalue()


def printed(text: str, *, debuginfo: bool = False) -> str:
    return canonical_text(read(text), debuginfo=debuginfo)


def in_function(body: str) -> str:
    return (
        "func.func @f(%t: tensor<1x1x" + TILE + ">) {\n"
        "  %c0 = arith.constant 0 : index\n"
        f"  %cb = ttl.bind_cb {{cb_index = 0, block_count = 2}} : {CB}\n"
        f"{body}"
        "  return\n}\n"
    )


# ---------------------------------------------------------------------------------------------
# Print, read, print: the same IR and a fixed point


def _chunks() -> list[tuple[str, str]]:
    found = []
    for path in INPUTS:
        for index, chunk in enumerate(split_chunks(path.read_text(encoding="utf-8"))[0]):
            if not is_blank(chunk.text):
                found.append((f"{path.relative_to(ROOT)}#{index}", chunk.text))
    return found


@pytest.mark.parametrize(("name", "text"), _chunks(), ids=[name for name, _ in _chunks()])
def test_every_kept_input_prints_to_text_that_reads_back_to_the_same_ir(name: str, text: str) -> None:
    try:
        module = read(text)
    except AdapterInputError:
        assert "expected-error" in text  # only a negative test may fail to read
        return
    once = canonical_text(module)
    again = read(once)
    assert generic(again) == generic(module)
    assert canonical_text(again) == once


_OPS = (
    "  %{n} = ttl.tile_exp %x into dst[%c0] : {tile} -> {tile}{loc}\n",
    '  %{n}:2 = "test.pair"() : () -> (index, i32){loc}\n'
    '  "test.use"(%{n}#1, %{n}#0) : (i32, index) -> (){loc}\n',
    '  %{n}, %{n}_b = "test.pair"() : () -> (index, index){loc}\n',
    '  %{u}:3 = "test.three"() : () -> (index, index, index){loc}\n',
    '  "test.arrays"() {{a = [0, 1], b = [2 : i32], c = [1.5, [3]]}} : () -> (){loc}\n',
    "  scf.execute_region {{\n    %{n} = arith.addi %c0, %c0 : index{loc}\n    scf.yield{loc}\n  }}{loc}\n",
    '  "test.maps"() {{m = #id, n = affine_map<(d0) -> (0)>}} : () -> (){loc}\n',
)
_LOCATIONS = (
    "",
    ' loc("kernel.py":{line}:7)',
    " loc(unknown)",
    ' loc(callsite("a.py":1:2 at "kernel.py":{line}:3))',
)


@st.composite
def kernels(draw: st.DrawFn) -> str:
    """A function of varied ops: named, grouped and unnamed results, arrays, maps, regions, locations."""
    lines = []
    for index in range(draw(st.integers(1, 6))):
        shape = draw(st.sampled_from(_OPS))
        location = draw(st.sampled_from(_LOCATIONS)).format(line=index + 10)
        lines.append(shape.format(n=f"v{index}", u=str(index), tile=TILE, loc=location))
    tile_source = f"  %x = tensor.extract %t[%c0, %c0] : tensor<1x1x{TILE}>\n"
    return "#id = affine_map<(d0, d1) -> (d0, d1)>\n" + in_function(tile_source + "".join(lines))


@given(kernels())
def test_generated_kernels_print_to_the_same_ir_and_a_fixed_point(text: str) -> None:
    module = read(text)
    once = canonical_text(module)
    again = read(once)
    assert generic(again) == generic(module)
    assert canonical_text(again) == once


@given(kernels())
def test_generated_kernels_with_debug_info_print_to_the_same_ir_and_a_fixed_point(text: str) -> None:
    module = read(text)
    once = canonical_text(module, debuginfo=True)
    again = read(once)
    assert generic(again, debuginfo=True) == generic(module, debuginfo=True)
    assert canonical_text(again, debuginfo=True) == once


# ---------------------------------------------------------------------------------------------
# MLIR's conventions


def test_scf_execute_region_keeps_its_yield() -> None:
    text = in_function("  scf.execute_region {\n    %s = arith.addi %c0, %c0 : index\n    scf.yield\n  }\n")
    once = printed(text)
    assert (
        "    scf.execute_region {\n      %s = arith.addi %c0, %c0 : index\n      scf.yield\n    }\n" in once
    )


def test_an_implicit_terminator_stays_implicit() -> None:
    text = in_function(
        "  %b = arith.constant true\n  scf.if %b {\n    %s = arith.addi %c0, %c0 : index\n  }\n"
    )
    assert "scf.yield" not in printed(text)


def test_default_dialect_prefixes_are_dropped_only_inside_their_op() -> None:
    text = (
        "builtin.module {\n  builtin.module {\n  }\n"
        "  func.func private @g()\n"
        "  func.func @f() {\n    func.call @g() : () -> ()\n"
        "    scf.execute_region {\n      func.call @g() : () -> ()\n      scf.yield\n    }\n"
        "    func.return\n  }\n}\n"
    )
    lines = [line.strip() for line in printed(text).splitlines()]
    assert lines[:2] == ["module {", "module {"]
    assert lines.count("call @g() : () -> ()") == 1  # in the function's own region
    assert lines.count("func.call @g() : () -> ()") == 1  # inside another op's region
    assert "return" in lines


def test_affine_maps_and_sets_print_as_aliases_in_order_of_first_use() -> None:
    text = "#s = affine_set<(d0) : (d0 == 0)>\n" + in_function(
        '  "test.m"() {a = affine_map<(d0) -> (d0 + 1)>, b = affine_map<(d0) -> (d0)>} : () -> ()\n'
        '  "test.m"() {a = affine_map<(d0) -> (d0)>} : () -> ()\n'
        "  affine.if #s(%c0) {\n  }\n"
    )
    once = printed(text)
    assert once.startswith(
        "#map = affine_map<(d0) -> ((d0 + 1))>\n#map1 = affine_map<(d0) -> (d0)>\n"
        "#set = affine_set<(d0) : (d0 == 0)>\nmodule {\n"
    )
    assert '"test.m"() {a = #map, b = #map1}' in once and '"test.m"() {a = #map1}' in once
    assert "affine.if #set(%c0) {\n" in once


def test_i64_and_f64_array_elements_drop_their_type_and_others_keep_it() -> None:
    once = printed(
        in_function('  "test.a"() {a = [0, -3], b = [1 : i32], c = [2.5, 1.0 : f32], d = [[1]]} : () -> ()\n')
    )
    assert "{a = [0, -3], b = [1 : i32], c = [2.500000e+00, 1.000000e+00 : f32], d = [[1]]}" in once


def test_results_print_as_groups_where_written_as_one_or_unnamed_and_keep_their_names() -> None:
    body = (
        '  %g:2 = "test.pair"() : () -> (index, index)\n'
        '  %a, %b = "test.pair"() : () -> (index, index)\n'
        '  %0:2 = "test.pair"() : () -> (index, index)\n'
        '  "test.use"(%g#1, %b, %0#0) : (index, index, index) -> ()\n'
    )
    once = printed(in_function(body))
    assert '%g:2 = "test.pair"()' in once
    assert '%a, %b = "test.pair"()' in once
    assert '%0:2 = "test.pair"()' in once
    assert '"test.use"(%g#1, %b, %0#0)' in once


def test_bind_cb_prints_in_upstreams_assembly_format_with_its_own_dictionary() -> None:
    body = f"  %k = ttl.bind_cb {{cb_index = 3, block_count = 2}} {{ttl.compiler_allocated}} : {CB}\n"
    once = printed(in_function(body))
    assert (
        f"%k = ttl.bind_cb{{cb_index = 3, block_count = 2}} {{ttl.compiler_allocated}} : <[1, 1], {TILE}, 2>"
        in once
    )


def test_without_debug_info_locations_are_dropped() -> None:
    text = in_function('  %s = arith.addi %c0, %c0 : index loc("kernel.py":4:2)\n')
    assert "loc(" not in printed(text)


def test_with_debug_info_locations_print_as_aliases_after_the_module_as_mlir_numbers_them() -> None:
    text = (
        'func.func @f(%a: index loc("k.py":3:4)) {\n'
        '  %s = arith.addi %a, %a : index loc(callsite("a.py":1:1 at "k.py":9:9))\n'
        '  %t = arith.addi %s, %s : index loc("k.py":5:6)\n'
        "  return\n}\n"
    )
    lines = printed(text, debuginfo=True).splitlines()
    assert lines[0] == '#loc1 = loc("k.py":3:4)'  # used on a block argument: defined at the top
    assert 'func.func @f(%a: index loc("k.py":3:4)) {' in lines[2]
    assert lines[3].endswith("arith.addi %a, %a : index loc(#loc5)")  # the callsite, after its parts
    assert lines[4].endswith("arith.addi %s, %s : index loc(#loc4)")
    assert lines[5:] == [
        "    return loc(#loc)",
        "  } loc(#loc)",
        "} loc(#loc)",
        "#loc = loc(unknown)",
        '#loc2 = loc("a.py":1:1)',
        '#loc3 = loc("k.py":9:9)',
        '#loc4 = loc("k.py":5:6)',
        "#loc5 = loc(callsite(#loc2 at #loc3))",
    ]


def test_with_debug_info_a_fused_location_lists_its_parts_by_alias_as_mlir_reads_them() -> None:
    """Inside `fused[...]` MLIR reads location instances, never `loc(...)`: each part is its alias."""
    text = (
        "func.func @f(%a: index) {\n"
        '  %s = arith.addi %a, %a : index loc(fused[unknown, "k.py":1:2])\n'
        "  %t = arith.addi %s, %s : index"
        ' loc(fused<"pass">["k.py":3:4, callsite("a.py":5:6 at "k.py":7:8)])\n'
        "  return\n}\n"
    )
    definitions = [line for line in printed(text, debuginfo=True).splitlines() if line.startswith("#loc")]
    assert [line for line in definitions if "fused" in line] == [
        "#loc5 = loc(fused[#loc, #loc1])",
        '#loc7 = loc(fused<"pass">[#loc2, #loc6])',
    ]
    assert all(line.count("loc(") == 1 for line in definitions)


# ---------------------------------------------------------------------------------------------
# planner-opt's option


@pytest.mark.parametrize("flag", ["-mlir-print-debuginfo", "--mlir-print-debuginfo", "--print-debuginfo"])
def test_planner_opt_prints_locations_under_each_spelling_of_the_option(
    flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "k.mlir"
    source.write_text(
        in_function('  %s = arith.addi %c0, %c0 : index loc("kernel.py":4:2)\n'), encoding="utf-8"
    )
    assert main([str(source), flag]) == 0
    assert '#loc1 = loc("kernel.py":4:2)' in capsys.readouterr().out
