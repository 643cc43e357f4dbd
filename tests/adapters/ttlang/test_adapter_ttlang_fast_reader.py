"""The fast TT-Lang reader against xDSL's parser: the same IR, the same sites, the same errors.

The oracle is `parse_chunk` with the fast reader switched off, so xDSL's site-recording
parser reads the whole chunk; the other side is `parse_chunk` with the fast reader taking
chunks of any size. Every `.mlir` file of the examples and the lit suite, generated
kernels of varied ops, types, names, attributes, comments and layout, and those kernels
broken by a deleted or inserted character must read the same both ways: the same printed IR
(custom and generic), the same op classes and sites, or the same error. The fast reader must
also actually read the common forms (otherwise the comparison would prove nothing) and
decline what it does not read.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.ir import Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.reading import source
from planner.adapters.ttlang.reading.context import ttlang_context
from planner.adapters.ttlang.reading.fast_reader import MIN_LINES, read_common_forms
from planner.adapters.ttlang.reading.sites import SiteRecordingParser
from planner.adapters.ttlang.reading.source import Chunk, parse_chunk, split_chunks
from tests.support.paths import ROOT

FILES = sorted([*(ROOT / "examples").rglob("*.mlir"), *(ROOT / "tests" / "lit").rglob("*.mlir")])
DTYPES = ("f32", "bf16", "f16")
UNARY = ("exp", "log", "relu", "neg")
BINARY = ("add", "sub", "mul", "max")
ATTR_DICTS = ("", "", " {note = 1 : i32}", " {note = #note}", ' {tag = "%x // not a comment"}')
Reading = tuple[object, ...]


def _printed(op: Operation, generic: bool) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(op)
    return stream.getvalue()


def _read(text: str) -> Reading:
    """What `parse_chunk` gives for `text`: the error, or the IR printed both ways, op classes, sites."""
    with mock.patch.object(source, "read_common_forms", partial(read_common_forms, min_lines=0)):
        return _read_as_configured(text)


def _read_as_configured(text: str) -> Reading:
    try:
        parsed = parse_chunk(Chunk(text, 0, 1), "input.mlir")
    except AdapterInputError as error:
        return ("error", error.code, error.message, error.line, error.column)
    ops = list(parsed.module.walk())
    classes = [(type(op).__module__, type(op).__qualname__, op.name) for op in ops]
    sites = [parsed.sites.get(op) for op in ops]
    return ("read", _printed(parsed.module, False), _printed(parsed.module, True), classes, sites)


def _read_by_xdsl(text: str) -> Reading:
    with mock.patch.object(source, "read_common_forms", lambda *arguments: None):
        return _read_as_configured(text)


def _fast(text: str) -> bool:
    return read_common_forms(text, "input.mlir", ttlang_context, SiteRecordingParser, min_lines=0) is not None


def _chunks() -> Iterator[str]:
    for path in FILES:
        yield from (chunk.text for chunk in split_chunks(path.read_text(encoding="utf-8"))[0])


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_every_file_reads_as_xdsl_reads_it(path: Path) -> None:
    for chunk in split_chunks(path.read_text(encoding="utf-8"))[0]:
        assert _read(chunk.text) == _read_by_xdsl(chunk.text)


def test_the_fast_reader_reads_most_lit_chunks() -> None:
    """The comparison above is about the fast reader: most chunks of the suite take it."""
    chunks = list(_chunks())
    assert len(chunks) > 100
    assert sum(_fast(chunk) for chunk in chunks) > len(chunks) // 2


# ---------------------------------------------------------------------------------------------
# Generated kernels


def _tile(dtype: str) -> str:
    return f"!ttcore.tile<32x32, {dtype}>"


def _tensor(dtype: str) -> str:
    return f"tensor<1x1x{_tile(dtype)}>"


@st.composite
def kernels(draw: st.DrawFn) -> str:
    """A module with one or two functions of extracts, unary and binary tile ops and stores, in
    both tile-op spellings, with varied names, attribute dictionaries, comments and indentation;
    an operand's dtype need not match the type written for it (xDSL's error then)."""
    style = draw(st.sampled_from(("", "v", "x.", "a_", "$t", "long_name_")))
    indent = draw(st.sampled_from(("  ", "    ", "\t")))
    lines = [draw(st.sampled_from(("", "// a kernel", "#note = 7 : i32", "!t = index")))]
    header = draw(
        st.sampled_from(("module {", "module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {", ""))
    )
    if header:
        lines.append(header)
    counter = iter(range(10_000))

    def fresh() -> str:
        return f"%{style}{next(counter)}" if style else f"%{next(counter)}"

    for function in range(draw(st.integers(1, 2))):
        dtypes = draw(st.lists(st.sampled_from(DTYPES), min_size=1, max_size=3))
        args = [(fresh(), dtype) for dtype in dtypes]
        signature = ", ".join(f"{name}: {_tensor(dtype)}" for name, dtype in args)
        attributes = draw(
            st.sampled_from(("", " attributes {ttl.kernel_thread = #ttkernel.thread<compute>}"))
        )
        lines.append(f"func.func @kernel{function}({signature}){attributes} {{")
        slot, index = fresh(), fresh()
        lines.append(f"{indent}{slot} = arith.constant 0 : index")
        lines.append(f"{indent}{index} = arith.constant {draw(st.integers(0, 3))} : index")
        tiles: list[tuple[str, str]] = []
        for _ in range(draw(st.integers(1, 12))):
            kind = draw(st.sampled_from(("extract", "unary", "binary", "store", "comment", "blank")))
            attr = draw(st.sampled_from(ATTR_DICTS))
            trailing = draw(st.sampled_from(("", "", "  // trailing")))
            if kind == "extract" or not tiles:
                tensor, dtype = draw(st.sampled_from(args))
                written = draw(st.sampled_from((dtype, dtype, "bf16")))
                name = fresh()
                line = f"{name} = tensor.extract {tensor}[{slot}, {index}]{attr} : {_tensor(written)}"
                tiles.append((name, dtype))
            elif kind in ("unary", "binary"):
                operands = draw(
                    st.lists(st.sampled_from(tiles), min_size=1, max_size=2 if kind == "binary" else 1)
                )
                if kind == "binary" and len(operands) == 1:
                    operands *= 2
                dtype = draw(st.sampled_from((operands[0][1], operands[0][1], "f32")))
                tile = _tile(dtype)
                mnemonic = draw(st.sampled_from(UNARY if kind == "unary" else BINARY))
                uses = ", ".join(name for name, _ in operands)
                name = fresh()
                if draw(st.booleans()):
                    types = ", ".join(tile for _ in operands)
                    line = f"{name} = ttl.tile_{mnemonic} {uses} into dst[{slot}]{attr} : {types} -> {tile}"
                else:
                    line = f"{name} = ttl.tile_{mnemonic} {uses}{attr} : {tile}"
                tiles.append((name, dtype))
            elif kind == "store":
                (tile_name, dtype), (tensor, _) = draw(st.sampled_from(tiles)), draw(st.sampled_from(args))
                line = (
                    f"ttl.tile_store {tile_name}, {tensor}[{slot}, {slot}] from dst[{slot}]{attr}"
                    f" : {_tile(dtype)}, {_tensor(dtype)}"
                )
            else:
                line = "// between ops" if kind == "comment" else ""
            lines.append(f"{indent}{line}{trailing}" if line else "")
        lines.append(f"{indent}return")
        lines.append("}")
    if header:
        lines.append("}")
    return "\n".join(lines) + draw(st.sampled_from(("\n", "", "\n// end\n")))


@given(kernels())
def test_generated_kernels_read_as_xdsl_reads_them(text: str) -> None:
    assert _read(text) == _read_by_xdsl(text)


@given(kernels(), st.data())
def test_broken_kernels_fail_as_xdsl_fails(text: str, data: st.DataObject) -> None:
    """A deleted or inserted character: the same error (or the same reading) both ways."""
    at = data.draw(st.integers(0, len(text) - 1))
    inserted = data.draw(
        st.sampled_from(("", "%", "{", "}", "(", ")", "[", "<", ",", ":", "=", "#", "!", '"', "\n"))
    )
    broken = text[:at] + inserted + text[at + (0 if inserted else 1) :]
    assert _read(broken) == _read_by_xdsl(broken)


def _xdsl_parses(text: str) -> bool:
    try:
        SiteRecordingParser(text, "input.mlir").parse_module()
    except ParseError:
        return False
    return True


@given(kernels())
def test_generated_kernels_xdsl_parses_take_the_fast_reader(text: str) -> None:
    """A generated kernel xDSL parses (no type mismatch) is one the fast reader reads."""
    assert _fast(text) == _xdsl_parses(text)


def test_xdsl_knows_no_builtin_or_func_op_whose_name_holds_two_dots() -> None:
    """Why the fast reader reads an op with a dialect prefix outside its enclosing ops."""
    assert all(op.name.count(".") == 1 for op in [*Builtin.operations, *Func.operations])


def test_small_chunks_go_to_xdsl_and_large_ones_to_the_fast_reader() -> None:
    ops = [f"  %c{n} = arith.constant {n % 3} : index" for n in range(MIN_LINES)]
    assert read_common_forms(
        "\n".join(["module {", *ops, "}"]), "k.mlir", ttlang_context, SiteRecordingParser
    )
    small = "\n".join(["module {", *ops[: MIN_LINES // 2], "}"])
    assert read_common_forms(small, "k.mlir", ttlang_context, SiteRecordingParser) is None


def test_the_bench_module_takes_the_fast_reader() -> None:
    lines = [
        "module attributes {ttl.target_arch = #ttcore.arch<blackhole>} {",
        f"  func.func @generated(%a0: {_tensor('bf16')}) {{",
        "    %c0 = arith.constant 0 : index",
    ]
    for n in range(50):
        lines += [
            f"    %x{n} = tensor.extract %a0[%c0, %c0] : {_tensor('bf16')}",
            f"    %e{n} = ttl.tile_exp %x{n} into dst[%c0] : {_tile('bf16')} -> {_tile('bf16')}",
        ]
    text = "\n".join([*lines, "    return", "  }", "}", ""])
    assert _fast(text)
    assert _read(text) == _read_by_xdsl(text)


@pytest.mark.parametrize(
    ("text", "fast"),
    [
        ("#alias = 1 : i32\nmodule {\n}\n#late = 2 : i32\n", False),  # an alias read after every op
        ("module {\n  func.func @f() {\n    ^bb0:\n    return\n  }\n}\n", False),  # a block label
        ("module {\n  %0 = arith.constant\n    0 : index\n}\n", False),  # broken where no bracket is open
        ("module {\n  %0 = arith.constant dense<[1,\n    2]> : tensor<2xi32>\n}\n", True),  # inside brackets
        ('module {\n  "test.op"() ({\n  }) : () -> ()\n}\n', True),  # an empty region
        ('module {\n  "test.op"() ({\n    "test.inner"() : () -> ()\n  }) : () -> ()\n}\n', False),
        ("module {\n  %0 = arith.constant 0 : index\n  %0 = arith.constant 1 : index\n}\n", False),
        ("module {\n  %1 = arith.addi %0, %0 : index\n  %0 = arith.constant 1 : index\n}\n", False),
        ("module {\n  func.func @f() {\n    return\n  }\n", False),  # unclosed
        ("module {\n}\n}\n", False),  # closed twice
        ("module {\n  func.func @f() {\n  }\n}\n", True),  # an empty body: no block
    ],
)
def test_the_forms_the_fast_reader_reads_or_declines(text: str, fast: bool) -> None:
    assert _fast(text) == fast
    assert _read(text) == _read_by_xdsl(text)


def test_a_chunk_xdsl_would_reread_too_often_falls_back() -> None:
    """Every distinct line is read after all the aliases: past a few times the text, xDSL reads it."""
    aliases = [f"#a{n} = {n} : i32" for n in range(200)]
    ops = [f"  %c{n} = arith.constant {n} : index" for n in range(200)]
    text = "\n".join([*aliases, "module {", *ops, "}", ""])
    assert not _fast(text)
    assert _read(text) == _read_by_xdsl(text)
    assert _fast("\n".join([*aliases[:2], "module {", *ops, "}", ""]))
