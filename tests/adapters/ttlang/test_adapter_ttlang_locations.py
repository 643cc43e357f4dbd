"""MLIR locations in TT-Lang MLIR: every form, inline or as aliases defined anywhere, and
diagnostics at the source position they name.

The property test writes locations into every module of the examples, in random forms and
placements (inline, aliases defined at the end, at the top, in any order), and checks the
planning against the same module without locations: the same answers and diagnostics, each
reported at the file position written for its op, and, in the IR file, at the op's name, where
MLIR's parser locates an op. The oracle is the writer's own record of which position it put on
which line and where each op's name starts; it does not read locations with the adapter's code.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    NameLoc,
    StringAttr,
    UnknownLoc,
)
from xdsl.printer import Printer

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang import plan_text
from planner.adapters.ttlang.reading import source
from planner.adapters.ttlang.reading.fast_reader import read_common_forms
from planner.adapters.ttlang.reading.locations import CALL_STACK_LIMIT, source_place
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk, split_chunks
from planner.adapters.ttlang.tool.opt_main import main as opt_main
from planner.adapters.ttlang.writing.mlir_printer import canonical_text
from planner.cli import main
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples" / "ttlang"


def _at(filename: str, line: int, column: int) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(filename), IntAttr(line), IntAttr(column))


def _module(text: str) -> Any:
    return parse_chunk(Chunk(text, 0, 1), "input.mlir").module


def _op(text: str, name: str) -> Any:
    return next(op for op in _module(text).walk() if op.name == name)


def _const_at(location: str, aliases: str = "") -> Any:
    return _op(
        f"{aliases}func.func @f() {{\n  %c = arith.constant 0 : index loc({location})\n  return\n}}\n",
        "arith.constant",
    )


# -- reading every form -------------------------------------------------------------------------


def test_a_file_position_reads_as_written() -> None:
    assert _const_at('"kernel.py":42:14').location == _at("kernel.py", 42, 14)


@pytest.mark.parametrize("written", ['"kernel.py":42:14 to 43:2', '"kernel.py":42:14 to :20'])
def test_a_range_reads_as_its_start(written: str) -> None:
    location = _const_at(written).location
    assert (location.filename.data, location.line.data, location.column.data) == ("kernel.py", 42, 14)


def test_a_line_alone_reads_with_column_zero() -> None:
    location = _const_at('"kernel.py":42').location
    assert (location.line.data, location.column.data) == (42, 0)


def test_names_call_sites_and_fused_locations_keep_their_parts() -> None:
    named = _const_at('"x"("kernel.py":1:2)').location
    assert (
        isinstance(named, NameLoc) and named.desc.data == "x" and isinstance(named.location, FileLineColLoc)
    )
    bare = _const_at('"x"').location
    assert isinstance(bare, NameLoc) and bare.desc.data == "x"
    call = _const_at('callsite("a.py":1:2 at "b.py":3:4)').location
    assert isinstance(call, CallSiteLoc) and call.caller == _at("b.py", 3, 4)
    fused = _const_at('fused<"meta">[unknown, "a.py":1:2]').location
    assert isinstance(fused, FusedLoc) and fused.metadata == StringAttr("meta")
    assert fused.locations.data[0] == UnknownLoc()  # type: ignore[attr-defined]


def test_aliases_defined_after_their_use_and_out_of_order_read() -> None:
    text = (
        "func.func @f(%a: index loc(#arg)) {\n"
        "  %c = arith.constant 0 : index loc(#call)\n"
        "  return\n"
        "} loc(#f)\n"
        "#call = loc(callsite(#callee at #f))\n"
        '#callee = loc("a.py":1:2)\n'
        '#f = loc("k.py":9:1)\n'
        '#arg = loc("k.py":9:7)\n'
    )
    function = _op(text, "func.func")
    assert function.location == _at("k.py", 9, 1)
    assert function.body.block.args[0].location == _at("k.py", 9, 7)
    constant = _op(text, "arith.constant")
    assert constant.location.callee == _at("a.py", 1, 2)


def test_a_module_location_alias_reads() -> None:
    text = 'module {\n  func.func @f() {\n    return\n  }\n} loc(#m)\n#m = loc("k.py":1:1)\n'
    assert _module(text).location == _at("k.py", 1, 1)


def _error(text: str) -> tuple[str, int | None, int | None]:
    with pytest.raises(AdapterInputError) as raised:
        parse_chunk(Chunk(text, 0, 1), "input.mlir")
    return raised.value.message, raised.value.line, raised.value.column


def test_an_undefined_alias_is_a_parse_error_naming_it() -> None:
    message, line, column = _error('func.func @f() {\n  return loc(#nowhere)\n}\n#loc = loc("k.py":1:1)\n')
    assert "undefined symbol alias '#nowhere'" in message and (line, column) == (2, 14)


def test_an_alias_cycle_is_an_error() -> None:
    message, line, _ = _error(
        'func.func @f() {\n  return loc(#a)\n}\n#a = loc("n"(#b))\n#b = loc(fused[#a])\n'
    )
    assert "is defined through itself" in message and line == 5


def test_an_alias_defined_twice_is_an_error() -> None:
    message, line, _ = _error("func.func @f() {\n  return loc(#a)\n}\n#a = loc(unknown)\n#a = loc(unknown)\n")
    assert "re-declaration of alias '#a'" in message and line == 5


def test_a_chain_of_aliases_deeper_than_the_nesting_bound_is_refused() -> None:
    chain = "".join(f'#l{index + 1} = loc("n"(#l{index}))\n' for index in range(200))
    message, _, _ = _error(f'func.func @f() {{\n  return loc(#l200)\n}}\n#l0 = loc("k.py":1:1)\n{chain}')
    assert "nest deeper than" in message


def test_a_location_that_is_not_one_is_refused() -> None:
    message, line, _ = _error("func.func @f() {\n  return loc(#a)\n}\n#a = loc(42)\n")
    assert "expected location instance" in message and line == 4


# -- the fast reader reads locations as xDSL does ---------------------------------------------------


def _debug_printed(text: str) -> str:
    module = parse_chunk(Chunk(text, 0, 1), "input.mlir").module
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True, print_debuginfo=True).print_op(module)
    return stream.getvalue()


def test_the_fast_reader_reads_aliased_locations_as_xdsl_does() -> None:
    tile = "!ttcore.tile<32x32, bf16>"
    ops = "".join(
        f"  %x{i} = ttl.tile_exp %x{i - 1} into dst[%c0] : {tile} -> {tile} loc(#loc{i % 7})\n"
        for i in range(1, 80)
    )
    text = (
        f"func.func @k(%x0: {tile} loc(#loc0)) {{\n  %c0 = arith.constant 0 : index\n{ops}  return\n}}\n"
        + "".join(f'#loc{i} = loc(callsite("k.py":{i}:1 at "c.py":{i}:2))\n' for i in range(7))
    )
    with mock.patch.object(source, "read_common_forms", lambda *arguments: None):
        by_xdsl = _debug_printed(text)
    readings: list[bool] = []

    def fast(*arguments: Any) -> Any:
        read = read_common_forms(*arguments, min_lines=0)
        readings.append(read is not None)
        return read

    with mock.patch.object(source, "read_common_forms", fast):
        assert _debug_printed(text) == by_xdsl
    assert readings == [True]  # the fast reader read the chunk, so the comparison says something
    assert 'callsite("k.py":3:1 at "c.py":3:2)' in by_xdsl


# -- the property: locations change where diagnostics point, nothing else -------------------------


@dataclass(frozen=True)
class Written:
    """A location as written, the file position MLIR shows for it (None: none), and, when it is
    or wraps a call site, the positions of that call site's chain of callers."""

    text: str
    shown: str | None
    callers: tuple[str, ...] | None
    """None: no call site; else the `called from` positions, nearest caller first."""

    @property
    def reported(self) -> tuple[str, ...]:
        """What a diagnostic at this location reports: the shown position, then its callers."""
        return () if self.shown is None else (self.shown, *(self.callers or ()))


_RESULTS = r"(?:%[\w.$-]+(?::\d+)?(?:, %[\w.$-]+(?::\d+)?)* = )?"
_OP_LINE = re.compile(rf'^(\s*)(({_RESULTS})(?:"?[a-z_]\w*\.[\w.]+"?|return)\b(?! =).*)$')
FILES = ("kernel.py", "helpers/tile ops.py")


@st.composite
def _locations(draw: st.DrawFn, depth: int = 0) -> Written:
    """A random location and what MLIR reports for it: the first file position (a name's inner
    one, a call site's callee's, a fused location's first part's), and a call site's callers,
    walked caller by caller (each caller's shown position, then on through its own call site)."""
    forms = ["file", "range", "unknown"] + (["name", "callsite", "fused"] if depth < 3 else [])
    form = draw(st.sampled_from(forms))
    if form in ("file", "range"):
        name = draw(st.sampled_from(FILES))
        line, column = draw(st.integers(1, 500)), draw(st.integers(1, 120))
        end = f" to {line + draw(st.integers(0, 3))}:{column + 4}" if form == "range" else ""
        return Written(f'"{name}":{line}:{column}{end}', f"{name}:{line}:{column}", None)
    if form == "unknown":
        return Written("unknown", None, None)
    if form == "name":
        inner = draw(_locations(depth + 1))
        return Written(f'"v"({inner.text})', inner.shown, inner.callers)
    if form == "callsite":
        callee, caller = draw(_locations(depth + 1)), draw(_locations(depth + 1))
        chain = (*((caller.shown,) if caller.shown else ()), *(caller.callers or ()))
        return Written(f"callsite({callee.text} at {caller.text})", callee.shown, chain)
    parts = draw(st.lists(_locations(depth + 1), min_size=1, max_size=3))
    metadata = draw(st.sampled_from(["", '<"tag">', "<#foreign.meta>"]))
    shown = next((part.shown for part in parts if part.shown is not None), None)
    callers = next((part.callers for part in parts if part.callers is not None), None)
    return Written(f"fused{metadata}[{', '.join(part.text for part in parts)}]", shown, callers)


def _modules() -> list[str]:
    found = []
    for path in sorted(EXAMPLES.glob("*.mlir")):
        text = path.read_text(encoding="utf-8")
        if "loc(" not in text:
            found += [chunk.text for chunk in split_chunks(text)[0] if "func.func" in chunk.text]
    return found


MODULES = _modules()


def _balanced(line: str) -> bool:
    code = line.replace("->", "")
    return all(code.count(opening) == code.count(closing) for opening, closing in ("()", "[]", "{}", "<>"))


@st.composite
def _located_modules(draw: st.DrawFn) -> tuple[str, str, dict[int, tuple[str, ...]]]:
    """A module, the same module with locations written on its one-line ops, and per line of the
    located text the positions a diagnostic there reports."""
    plain = draw(st.sampled_from(MODULES))
    placement = draw(st.sampled_from(["inline", "end", "top", "mixed"]))
    lines = plain.split("\n")
    definitions: list[str] = []
    reported: dict[int, tuple[str, ...]] = {}
    for index, line in enumerate(lines):
        match = _OP_LINE.match(line)
        following = lines[index + 1] if index + 1 < len(lines) else ""
        goes_on = len(following) - len(following.lstrip()) > len(line) - len(line.lstrip())
        if match is None or "//" in line or line.rstrip().endswith("{") or not _balanced(line) or goes_on:
            continue
        written = draw(_locations())
        here = draw(st.sampled_from(["inline", "end", "top"])) if placement == "mixed" else placement
        if here == "inline":
            lines[index] = f"{line} loc({written.text})"
        else:
            alias = f"#loc{len(definitions)}"
            definitions.append(f"{alias} = loc({written.text})")
            lines[index] = f"{line} loc({alias})"
        reported[index] = written.reported
    order = draw(st.permutations(definitions))
    at_top = [
        definition
        for definition in order
        if placement == "top" or (placement == "mixed" and draw(st.booleans()))
    ]
    at_end = [definition for definition in order if definition not in at_top]
    shift = len(at_top)
    text = "\n".join([*at_top, *lines]) + ("\n" if at_end else "") + "\n".join(at_end)
    return plain, text, {index + shift + 1: positions for index, positions in reported.items()}


def _answers(report: dict[str, Any]) -> list[Any]:
    return [(entry["function"], entry["response"]) for entry in report["functions"]]


def _name_columns(text: str) -> dict[int, int]:
    """Per line holding an op, the column of its name (after its results): where MLIR locates it."""
    columns: dict[int, int] = {}
    for index, line in enumerate(text.split("\n")):
        if (match := _OP_LINE.match(line)) is not None:
            columns[index + 1] = len(match.group(1)) + len(match.group(3)) + 1
    return columns


def _said(diagnostics: list[str]) -> list[str]:
    """Each diagnostic's severity and text, wherever it points."""
    return [
        re.sub(r"^.*?: (error|warning|note|remark): ", r"\1: ", entry.split("\n")[0]) for entry in diagnostics
    ]


@given(_located_modules())
def test_locations_move_diagnostics_to_the_written_positions_and_change_nothing_else(
    located: tuple[str, str, dict[int, tuple[str, ...]]],
) -> None:
    plain, text, reported = located
    expected = plan_text(plain, filename="input.mlir")
    found = plan_text(text, filename="input.mlir")
    columns = _name_columns(plain)
    for entry in expected.diagnostics:  # in the IR file, each at its op's name
        line, column = (int(part) for part in entry.split(":")[1:3])
        assert column == columns.get(line, column)
    assert found.ok == expected.ok
    assert _answers(found.report) == _answers(expected.report)
    assert _said(found.diagnostics) == _said(expected.diagnostics)
    if not found.ok:
        assert found.text == text
    for entry, as_json in zip(found.diagnostics, found.report.get("diagnostics", []), strict=False):
        first, *notes = entry.split("\n")
        in_ir = int(as_json["location"].split(":")[1])
        positions = reported.get(in_ir, ())
        if not positions:
            assert not notes and first.startswith(f"input.mlir:{in_ir}:")
            assert "source_location" not in as_json
            continue
        assert first.startswith(f"{positions[0]}: ")
        assert notes == [
            *(f"{caller}: note: called from" for caller in positions[1:]),
            f"{as_json['location']}: note: the op in the IR",
        ]
        assert (as_json["source_location"], as_json["called_from"]) == (positions[0], list(positions[1:]))
    if "diagnostics" not in found.report:  # no diagnostic at a written position: all in the IR file
        assert all(reported.get(int(entry.split(":")[1]), ()) == () for entry in found.diagnostics)


def test_a_deep_shared_call_site_reports_at_most_mlirs_call_stack_limit_and_in_linear_time() -> None:
    """Each alias names the one before twice, so the location is a DAG of 2**100 paths: reading
    it, finding where it points and walking its callers must each look at each value once."""
    chain = "".join(f"#l{index} = loc(callsite(#l{index - 1} at #l{index - 1}))\n" for index in range(1, 100))
    text = (
        "func.func @f() {\n  %c = arith.constant 0 : index loc(#l99)\n  return\n}\n"
        f'#l0 = loc("k.py":1:1)\n{chain}'
    )
    constant = _op(text, "arith.constant")
    place = source_place(constant.location)
    assert place is not None and str(place.position) == "k.py:1:1"
    assert len(place.called_from) == CALL_STACK_LIMIT == 10


# -- input errors at an op: reported at its source position too --------------------------------

FOREIGN_TILE_OP = (
    "func.func @f() {\n"
    '  %m = "d2m.tile_source"() : () -> !ttcore.tile<32x32, f32> loc(LOCATION)\n'
    "  return\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("location", "source", "callers"),
    [
        ('"kernel.py":7:3', "kernel.py:7:3", ()),
        ('callsite("kernel.py":7:3 at "main.py":2:1)', "kernel.py:7:3", ("main.py:2:1",)),
        ("unknown", None, ()),
    ],
)
def test_an_input_error_at_an_op_carries_the_source_position_its_location_names(
    location: str, source: str | None, callers: tuple[str, ...]
) -> None:
    with pytest.raises(AdapterInputError) as caught:
        plan_text(FOREIGN_TILE_OP.replace("LOCATION", location), filename="k.mlir")
    error = caught.value
    assert (error.code, error.line, error.column) == ("adapter.unknown_tile_op", 2, 8)
    if source is None:
        assert error.source is None
    else:
        assert error.source is not None
        assert (error.source.position, error.source.called_from) == (source, callers)


def test_a_dominance_error_is_reported_at_the_use_s_source_position() -> None:
    text = (
        "func.func @f() {\n"
        '  %a = arith.addi %b, %b : index loc("kernel.py":4:9)\n'
        "  %b = arith.constant 0 : index\n"
        "  return\n"
        "}\n"
    )
    with pytest.raises(AdapterInputError) as caught:
        plan_text(text, filename="k.mlir")
    assert caught.value.code == "adapter.invalid_ir"
    assert caught.value.source is not None and caught.value.source.position == "kernel.py:4:9"


def test_every_face_reports_an_input_error_at_its_source_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(FOREIGN_TILE_OP.replace("LOCATION", 'callsite("kernel.py":7:3 at "main.py":2:1)'))
    said = (
        "'d2m.tile_source' op reads or produces tiles but is not a TTL tile op, so its kernel-config "
        "requirements are unknown; express it with ttl tile ops"
    )
    reported = [
        f"kernel.py:7:3: error: [adapter.unknown_tile_op] {said}",
        "main.py:2:1: note: called from",
        f"{path}:2:8: note: the op in the IR",
    ]
    for command in ("plan", "explain", "explain-conflict"):
        assert main([command, str(path)]) == 2
        assert capsys.readouterr().err.splitlines() == reported
    assert main(["plan", str(path), "--json"]) == 2
    (located,) = json.loads(capsys.readouterr().out)["error"]["details"]["errors"]
    assert (located["line"], located["column"], located["source_location"], located["called_from"]) == (
        2,
        8,
        "kernel.py:7:3",
        ["main.py:2:1"],
    )
    assert opt_main([str(path), "-p", "ttl-set-compute-kernel-config"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        line.replace("[adapter.unknown_tile_op] ", "") for line in reported
    ]


AFFINE_FOR = (
    "func.func @f(%n: index) {\n"
    '  affine.for %i loc("kernel.py":3:5) = 0 to 4 {\n'
    '    %c = arith.addi %i, %n : index loc("kernel.py":4:7)\n'
    '  } loc("kernel.py":2:1)\n'
    "  scf.for %j = %n to %n step %n {\n"
    "  }\n"
    "  return\n"
    "}\n"
)


def test_the_induction_variable_of_affine_for_reads_its_inline_location_and_prints_it_back() -> None:
    loop = _op(AFFINE_FOR, "affine.for")
    assert loop.body.block.args[0].location == _at("kernel.py", 3, 5)
    assert loop.location == _at("kernel.py", 2, 1)
    printed = canonical_text(_module(AFFINE_FOR), debuginfo=True)
    assert '    affine.for %i loc("kernel.py":3:5) = 0 to 4 {\n' in printed
    assert "    scf.for %j = %n to %n step %n {\n" in printed  # MLIR prints its variable bare
    assert canonical_text(_module(printed), debuginfo=True) == printed
    assert "loc(" not in canonical_text(_module(AFFINE_FOR))
