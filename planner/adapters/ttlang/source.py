"""Reading TT-Lang MLIR with xDSL while remembering where every op and attribute dictionary is.

Planned output is the input text with attribute dictionaries rewritten in place, so the
parser records, per op, the offset of its first token (MLIR's op location), its result
names, and the extent of its attribute dictionary with each entry's text (or, when absent,
where one would go). Files split with `// -----` are read chunk by chunk (kernel-config.md
section 10), each chunk keeping its offset in the whole file.

Ops the loaded dialects do not define: an undefined `ttl.*` op is read (generic form, or
custom form following the `into dst[...]` convention) so the resolver can refuse it at its
location; another dialect's op is read in generic form only, as xDSL's `UnregisteredOp`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf, tensor
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, UnregisteredOp
from xdsl.ir import Attribute, Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRTokenKind

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.codes import INVALID_IR, PARSE_ERROR
from planner.adapters.ttlang.ttcore_dialect import TTCore
from planner.adapters.ttlang.ttl_dialect import TTL, unknown_ttl_op

SPLIT_MARKER = re.compile(r"^// -----.*$", re.MULTILINE)
_MEMO_TYPE = re.compile(r"(?:!ttcore\.tile|!ttl\.cb|tensor)<[\w!.,?<>\[\] ]*")
"""Type spellings made only of names, numbers and brackets: the same text is the same type."""


@dataclass(frozen=True)
class AttrEntry:
    """One `name = value` entry of an attribute dictionary, as written."""

    name: str
    text: str


@dataclass(frozen=True)
class AttrDictSite:
    """An op's attribute dictionary: `[start, end)` in the chunk, or an insertion point.

    `keyword` marks the `attributes {...}` spelling (custom `func.func` / `module` syntax).
    """

    start: int
    end: int
    present: bool
    keyword: bool
    entries: tuple[AttrEntry, ...] = ()


@dataclass(frozen=True)
class OpSite:
    start: int
    result_names: tuple[str, ...]
    attr_dict: AttrDictSite | None


@dataclass
class _Frame:
    start: int
    result_names: tuple[str, ...] = ()
    attr_dict: AttrDictSite | None = None


@cache
def ttlang_context() -> Context:
    """The dialects a TT-Lang compute kernel is written in (ops of others: see `_get_op_by_name`)."""
    ctx = Context()
    dialects = (builtin.Builtin, func.Func, arith.Arith, memref.MemRef, scf.Scf, tensor.Tensor, TTCore, TTL)
    for dialect in dialects:
        ctx.load_dialect(dialect)
    return ctx


class SiteRecordingParser(Parser):
    """xDSL's MLIR parser, recording an `OpSite` for every op it builds."""

    def __init__(self, text: str, name: str) -> None:
        super().__init__(ttlang_context(), text, name)
        self.sites: dict[Operation, OpSite] = {}
        self._frames: list[_Frame] = []
        self._previous_end = 0
        self._types: dict[str, TypeAttribute] = {}

    def _consume_token(self, expected_kind: MLIRTokenKind | None = None) -> Token[MLIRTokenKind, str]:
        token = super()._consume_token(expected_kind)
        self._previous_end = token.span.end
        return token

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """A known op; an undefined `ttl.*` op as `UnknownTtlOp` (the resolver refuses it, section 2);
        another dialect's op only in generic form, whose syntax needs no definition."""
        known = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        if known is not None:
            return known
        if name.startswith("ttl."):
            return unknown_ttl_op(name)
        if self.lexer.input.content[self._previous_end - 1] == '"':
            return _unregistered_op(name)
        return super()._get_op_by_name(name)

    def at_end(self) -> bool:
        """Nothing but whitespace and comments is left."""
        return self._current_token.kind == MLIRTokenKind.EOF

    def parse_optional_type(self) -> TypeAttribute | None:
        """Kernels repeat a few long tile and tensor types thousands of times: parse each spelling once."""
        spelling = _memo_type_spelling(self.lexer.input.content, self.pos)
        if spelling is None:
            return super().parse_optional_type()
        end = self.pos + len(spelling)
        if (cached := self._types.get(spelling)) is not None:
            self._resume_from(end)
            self._previous_end = end
            return cached
        parsed = super().parse_optional_type()
        if parsed is not None and self._previous_end == end and self.pos >= end:
            self._types[spelling] = parsed
        return parsed

    def parse_operation(self) -> Operation:
        self._frames.append(_Frame(start=self.pos))
        try:
            op = super().parse_operation()
        finally:
            frame = self._frames.pop()
        self.sites[op] = OpSite(frame.start, frame.result_names, frame.attr_dict)
        return op

    def _parse_op_result_list(self) -> list[tuple[Span[str], int]]:
        results = super()._parse_op_result_list()
        if self._frames:
            self._frames[-1].result_names = tuple(span.text for span, _ in results)
        return results

    def parse_optional_attr_dict(self) -> dict[str, Attribute]:
        return self._parse_recorded_attr_dict(keyword=False, reserved=())[0]

    def parse_optional_attr_dict_with_keyword(
        self, reserved_attr_names: Iterable[str] = ()
    ) -> DictionaryAttr | None:
        entries, present = self._parse_recorded_attr_dict(keyword=True, reserved=tuple(reserved_attr_names))
        return DictionaryAttr(entries) if present else None

    def _parse_recorded_attr_dict(
        self, *, keyword: bool, reserved: tuple[str, ...]
    ) -> tuple[dict[str, Attribute], bool]:
        """Parse an op's attribute dictionary, if present, and note its site in the current frame."""
        insertion_point = self._previous_end
        absent = keyword and self.parse_optional_keyword("attributes") is None
        if absent or (not keyword and self._current_token.text != "{"):
            self._note_site(AttrDictSite(insertion_point, insertion_point, present=False, keyword=keyword))
            return {}, False
        start = self.pos
        written: list[AttrEntry] = []
        values: dict[str, Attribute] = {}

        def parse_entry() -> None:
            entry_start = self.pos
            name, value = self._parse_attribute_entry()
            if name in values:
                self.raise_error(f"Duplicate key '{name}' in dictionary attribute", entry_start)
            if name in reserved:
                self.raise_error(f"attribute '{name}' is already given by the op's syntax", entry_start)
            values[name] = value
            written.append(AttrEntry(name, self.lexer.input.content[entry_start : self._previous_end]))

        self.parse_comma_separated_list(self.Delimiter.BRACES, parse_entry)
        self._note_site(AttrDictSite(start, self._previous_end, True, keyword, tuple(written)))
        return values, True

    def _note_site(self, site: AttrDictSite) -> None:
        if self._frames:
            self._frames[-1].attr_dict = site


@cache
def _unregistered_op(name: str) -> type[Operation]:
    return UnregisteredOp.with_name(name)


def _memo_type_spelling(text: str, start: int) -> str | None:
    """The full spelling of a bracketed type at `start` when it is safe to reuse by text."""
    match = _MEMO_TYPE.match(text, start)
    if match is None:
        return None
    depth = 0
    for offset, char in enumerate(match.group(0)):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if depth == 0 and char == ">":
            return text[start : start + offset + 1]
    return None


@dataclass(frozen=True)
class Chunk:
    """One `// -----`-separated piece of a file, with its place in the whole file."""

    text: str
    offset: int
    first_line: int

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column, in the whole file, of an offset in this chunk."""
        line = self.text.count("\n", 0, offset)
        column = offset - (self.text.rfind("\n", 0, offset) + 1)
        return self.first_line + line, column + 1


@dataclass
class ParsedChunk:
    chunk: Chunk
    module: ModuleOp
    sites: dict[Operation, OpSite] = field(default_factory=dict)

    def line_col(self, offset: int) -> tuple[int, int]:
        return self.chunk.line_col(offset)


def split_chunks(text: str) -> tuple[list[Chunk], list[str]]:
    """The chunks of a file and the separator lines between them (kept verbatim for re-joining)."""
    chunks: list[Chunk] = []
    separators: list[str] = []
    start = 0
    for marker in SPLIT_MARKER.finditer(text):
        chunks.append(Chunk(text[start : marker.start()], start, text.count("\n", 0, start) + 1))
        separators.append(marker.group(0))
        start = marker.end()
    chunks.append(Chunk(text[start:], start, text.count("\n", 0, start) + 1))
    return chunks, separators


def parse_chunk(chunk: Chunk, filename: str) -> ParsedChunk:
    """Parse and verify one chunk; malformed text is an `AdapterInputError`, never a traceback.

    An empty chunk (only whitespace and comments) is an empty module: nothing to plan.
    """
    parser = SiteRecordingParser(chunk.text, filename)
    if parser.at_end():
        return ParsedChunk(chunk, ModuleOp([]))
    try:
        module = parser.parse_module()
        module.verify()
    except ParseError as error:
        line, column = chunk.line_col(error.span.start)
        raise AdapterInputError(
            PARSE_ERROR, f"{filename}:{line}:{column}: {error.msg}", line, column
        ) from None
    except VerifyException as error:
        first_line = str(error).splitlines()[0] if str(error) else "verification failed"
        raise AdapterInputError(INVALID_IR, f"{filename}: invalid IR: {first_line}") from None
    return ParsedChunk(chunk, module, parser.sites)
