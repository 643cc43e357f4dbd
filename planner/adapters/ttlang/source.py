"""Reading TT-Lang MLIR with xDSL while remembering where every op and attribute dictionary is.

Planned output in the text-preserving mode is the input text with attribute dictionaries
rewritten in place, so the parser records, per op, the offset of its first token (MLIR's op
location), its result names, and the extent of its attribute dictionary with each entry's
text (or, when absent, where one would go). Files split with `// -----` are read chunk by
chunk (docs/design/kernel-config.md section 10), each chunk keeping its offset in the whole file. Only
xDSL's public parser API is used: the recording hooks are the public `parse_operation` and
attribute-dictionary methods, and positions come from `Parser.pos`.

Constructs of other dialects pass through: their attributes and their generic-form ops are
xDSL's unregistered constructs. An undefined `ttl.*` op is read (generic form, or custom form
following the `into dst[...]` convention) so the resolver can refuse it at its location.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects import builtin, get_all_dialects
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, UnitAttr, UnregisteredAttr, UnregisteredOp
from xdsl.ir import Attribute, Dialect, Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.balanced import peek_tokens
from planner.adapters.ttlang.codes import INVALID_IR, PARSE_ERROR
from planner.adapters.ttlang.dominance import first_dominance_violation
from planner.adapters.ttlang.fast_reader import read_common_forms
from planner.adapters.ttlang.foreign import unregistered_op
from planner.adapters.ttlang.nesting import NESTING_LIMIT, too_deep_at
from planner.adapters.ttlang.numbers import DIGIT_LIMIT, overlong_number_at
from planner.adapters.ttlang.raw_body import raw_attr
from planner.adapters.ttlang.ttcore_dialect import TTCore
from planner.adapters.ttlang.ttl_registry import TTL_ATTRIBUTES, ttl_dialect, ttl_op
from planner.adapters.ttlang.ttl_unknown import unknown_ttl_op

SPLIT_MARKER = re.compile(r"^// -----.*$", re.MULTILINE)
_RESULTS = re.compile(r"(%[\w$.\-]+)(?::\d+)?\s*(,|=)")
_BYTE_ORDER_MARK = "\ufeff"
_T = TypeVar("_T")


@dataclass(frozen=True)
class AttrEntry:
    """One `name = value` entry of an attribute dictionary, as written."""

    name: str
    text: str


@dataclass(frozen=True)
class AttrDictSite:
    """An op's attribute dictionary: `[start, end)` in the chunk, or (absent) the offset of the
    token it would precede.

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


@dataclass
class TTLangContext(Context):
    """xDSL's context with unregistered constructs allowed, except that an undefined `ttl.*` op
    is an `UnknownTtlOp`, so the resolver can refuse it (section 2) instead of ignoring it, other
    unregistered ops read the custom syntax `foreign` knows, and an attribute or type without a
    definition keeps its body on one line (`raw_body`).

    TTL's ops are loaded one by one, each when the text first names it (`ttl_registry`); TTL
    itself is not a registered dialect here, so xDSL never loads it whole.
    """

    ttl_ops_loaded: set[str] = field(default_factory=set)

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()) -> type[Operation] | None:
        self._load_ttl_op(name)
        if "ttl" in dialect_stack:  # inside a TTL op, `yield` may stand for `ttl.yield`
            self._load_ttl_op(f"ttl.{name}")
        op_type = super().get_optional_op(name, dialect_stack=dialect_stack)
        if op_type is None or not issubclass(op_type, UnregisteredOp):
            return op_type
        return unknown_ttl_op(name) if name.startswith("ttl.") else unregistered_op(name, op_type)

    def _load_ttl_op(self, name: str) -> None:
        """Load TTL's op `name` before xDSL looks it up, unless it is loaded or TTL has none."""
        if name in self.ttl_ops_loaded or not name.startswith("ttl."):
            return
        if (op := ttl_op(name)) is not None:
            self.load_op(op)
            self.ttl_ops_loaded.add(name)

    def get_optional_dialect(self, name: str) -> Dialect | None:
        return ttl_dialect() if name == "ttl" else super().get_optional_dialect(name)

    def get_optional_attr(self, name: str) -> type[Attribute] | None:
        attr_type = super().get_optional_attr(name)
        if attr_type is not None and issubclass(attr_type, UnregisteredAttr):
            return raw_attr(name, is_type=False)
        return attr_type

    def get_optional_type(self, name: str) -> type[TypeAttribute] | None:
        type_type = super().get_optional_type(name)
        if type_type is not None and issubclass(type_type, UnregisteredAttr):
            raw_type = raw_attr(name, is_type=True)
            assert issubclass(raw_type, TypeAttribute)
            return raw_type
        return type_type


UPSTREAM_DIALECTS = ("func", "arith", "memref", "scf", "tensor")


def add_ttlang_dialects(ctx: Context) -> None:
    """The dialects a TT-Lang compute kernel is written in: builtin and TTCore loaded, TTL and the
    upstream ones registered by name, so each is imported only when first used."""
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(TTCore)
    ctx.register_dialect("ttl", ttl_dialect)
    _register_upstream(ctx)


def _register_upstream(ctx: Context) -> None:
    upstream = get_all_dialects()
    for name in UPSTREAM_DIALECTS:
        ctx.register_dialect(name, upstream[name])


def ttlang_context() -> Context:
    """The dialects a TT-Lang compute kernel is written in, other dialects passing through.

    A fresh context for every input: xDSL's context remembers each unregistered op name it
    meets, so one shared context would make a file's reading depend on the files read before.
    """
    ctx = TTLangContext(allow_unregistered=True)
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(TTCore)
    for attr in TTL_ATTRIBUTES:
        ctx.load_attr_or_type(attr)
    _register_upstream(ctx)
    return ctx


def result_names(text: str, start: int) -> tuple[str, ...]:
    """The result names an op written at `start` binds (`%a, %b:2 = ...` gives `%a`, `%b`)."""
    names: list[str] = []
    position = start
    while (match := _RESULTS.match(text, position)) is not None:
        names.append(match.group(1))
        position = match.end()
        while position < len(text) and text[position].isspace():
            position += 1
        if match.group(2) == "=":
            return tuple(names)
    return ()


def _without_line_comments(text: str) -> str:
    """`text` with `//` comments removed (outside string literals) and trailing space dropped."""
    kept: list[str] = []
    for line in text.split("\n"):
        in_string = False
        for offset, char in enumerate(line):
            if char == '"' and (offset == 0 or line[offset - 1] != "\\"):
                in_string = not in_string
            elif not in_string and line.startswith("//", offset):
                line = line[:offset]
                break
        kept.append(line)
    return "\n".join(kept).rstrip()


def is_blank(text: str) -> bool:
    """Nothing but whitespace and comments (a line whose first character is not `//` has content)."""
    for line in text.split("\n"):
        kept = line.lstrip()
        if kept and not kept.startswith("//"):
            return False
    return True


class SiteRecordingParser(Parser):
    """xDSL's MLIR parser, recording an `OpSite` for every op it builds."""

    def __init__(self, text: str, name: str, ctx: Context | None = None) -> None:
        super().__init__(ttlang_context() if ctx is None else ctx, text, name)
        self.sites: dict[Operation, OpSite] = {}
        self._text = text
        self._frames: list[_Frame] = []

    def parse_operation(self) -> Operation:
        start = self.pos
        self._frames.append(_Frame(start=start, result_names=result_names(self._text, start)))
        try:
            op = super().parse_operation()
        except VerifyException as error:  # a literal its type cannot hold: a malformed op
            self.raise_error(str(error).splitlines()[0], start)
        finally:
            frame = self._frames.pop()
        self.sites[op] = OpSite(frame.start, frame.result_names, frame.attr_dict)
        return op

    def parse_comma_separated_list(
        self, delimiter: Parser.Delimiter, parse: Callable[[], _T], context_msg: str = ""
    ) -> list[_T]:
        """As xDSL's, except that a parenthesized list of types after `->` may be one type written
        bare, as MLIR allows (`scf.for ... iter_args(%a = %x) -> tensor<...> {`)."""
        bare = delimiter is Parser.Delimiter.PAREN and parse == self.parse_attribute
        if bare and peek_tokens(self, 1)[0].text != "(":
            return [parse()]
        return super().parse_comma_separated_list(delimiter, parse, context_msg)

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
        start = self.pos
        if keyword and self.parse_optional_keyword("attributes") is None:
            self._note_site(AttrDictSite(start, start, present=False, keyword=True))
            return {}, False
        opening = self.pos
        if self.parse_optional_punctuation("{") is None:
            if keyword:
                self.raise_error("expected '{' after 'attributes'")
            self._note_site(AttrDictSite(start, start, present=False, keyword=False))
            return {}, False
        written: list[AttrEntry] = []
        values: dict[str, Attribute] = {}

        def parse_entry() -> None:
            entry_start = self.pos
            name = self.parse_optional_identifier_or_str_literal()
            if name is None:
                self.raise_error("expected an attribute name")
            value = self.parse_attribute() if self.parse_optional_punctuation("=") else UnitAttr()
            if name in values:
                self.raise_error(f"Duplicate key '{name}' in dictionary attribute", entry_start)
            if name in reserved:
                self.raise_error(f"attribute '{name}' is already given by the op's syntax", entry_start)
            values[name] = value
            written.append(AttrEntry(name, _without_line_comments(self._text[entry_start : self.pos])))

        closing = self.pos
        if self.parse_optional_punctuation("}") is None:
            self.parse_comma_separated_list(self.Delimiter.NONE, parse_entry)
            closing = self.pos
            self.parse_punctuation("}")
        self._note_site(AttrDictSite(opening, closing + 1, True, keyword, tuple(written)))
        return values, True

    def _note_site(self, site: AttrDictSite) -> None:
        if self._frames:
            self._frames[-1].attr_dict = site


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
    """A chunk's module and where its ops were written (none for IR built elsewhere)."""

    chunk: Chunk
    module: ModuleOp
    sites: dict[Operation, OpSite] = field(default_factory=dict)

    def line_col(self, offset: int) -> tuple[int, int]:
        return self.chunk.line_col(offset)

    def site(self, op: Operation) -> OpSite:
        """The op's site; an op not read from text is placed at the chunk's start, with no names."""
        return self.sites.get(op, _NOWHERE)

    def op_line_col(self, op: Operation) -> tuple[int, int]:
        return self.line_col(self.site(op).start)


_NOWHERE = OpSite(0, (), None)


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


def _parse_error(chunk: Chunk, offset: int, message: str) -> AdapterInputError:
    line, column = chunk.line_col(offset)
    return AdapterInputError(PARSE_ERROR, message, line, column)


def parse_chunk(chunk: Chunk, filename: str) -> ParsedChunk:
    """Parse and verify one chunk; malformed text is an `AdapterInputError` with a location.

    An empty chunk (only whitespace and comments) is an empty module: nothing to plan. A
    leading byte-order mark is read as a space, so every offset stays that of the input. A
    large chunk of repeated op shapes is read by `fast_reader`, which builds exactly the IR and
    sites xDSL's parser would, or leaves the chunk to it.
    """
    text = chunk.text
    if text.startswith(_BYTE_ORDER_MARK):
        text = " " + text[1:]
    if is_blank(text):
        return ParsedChunk(chunk, ModuleOp([]))
    deep = too_deep_at(text, NESTING_LIMIT)
    if deep is not None:
        raise _parse_error(chunk, deep, f"brackets nest deeper than {NESTING_LIMIT} levels")
    overlong = overlong_number_at(text)
    if overlong is not None:
        raise _parse_error(chunk, overlong, f"integer literal longer than {DIGIT_LIMIT} digits")
    read = read_common_forms(text, filename, ttlang_context, SiteRecordingParser)
    module, sites = _parse_with_xdsl(chunk, text, filename) if read is None else read

    try:
        module.verify()
    except VerifyException as error:
        first_line = str(error).splitlines()[0] if str(error) else "verification failed"
        raise AdapterInputError(INVALID_IR, f"{filename}: invalid IR: {first_line}") from None
    parsed = ParsedChunk(chunk, module, sites)
    _check_dominance(parsed, filename)
    return parsed


def _parse_with_xdsl(chunk: Chunk, text: str, filename: str) -> tuple[ModuleOp, dict[Operation, OpSite]]:
    try:
        parser = SiteRecordingParser(text, filename)
    except ParseError as error:  # the first token does not lex
        raise _parse_error(chunk, error.span.start, error.msg) from None
    try:
        return parser.parse_module(), parser.sites
    except ParseError as error:
        raise _parse_error(chunk, error.span.start, error.msg) from None


def _check_dominance(parsed: ParsedChunk, filename: str) -> None:
    """MLIR's dominance error at the use, with its note at the definition (or the block's op)."""
    violation = first_dominance_violation(parsed.module)
    if violation is None:
        return
    line, column = parsed.op_line_col(violation.user)
    defined_at = violation.definition or violation.user
    note_line, note_column = parsed.op_line_col(defined_at)
    message = (
        f"operand #{violation.operand_index} does not dominate this use\n"
        f"{filename}:{note_line}:{note_column}: note: {violation.note}"
    )
    raise AdapterInputError(INVALID_IR, message, line, column)
