"""Reading TT-Lang MLIR: a file split into chunks, each parsed, bounded and verified with its sites.

Files split with `// -----` are read chunk by chunk (docs/design/kernel-config.md section 10),
each chunk keeping its offset in the whole file. A chunk is parsed by the site-recording parser
(`sites`), or by `fast_reader` when it is long and of the common forms, and then verified,
dominance included, with every error located in the whole file.

Constructs of other dialects pass through: their attributes and their generic-form ops are
xDSL's unregistered constructs. An undefined `ttl.*` op is read (generic form, or custom form
following the `into dst[...]` convention) so the resolver can refuse it at its location.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import LocationAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError, VerifyException

from planner.adapters.outcome import AdapterInputError
from planner.adapters.ttlang.base.codes import INVALID_IR, PARSE_ERROR
from planner.adapters.ttlang.reading.context import ttlang_context
from planner.adapters.ttlang.reading.dominance import first_dominance_violation
from planner.adapters.ttlang.reading.fast_reader import read_common_forms
from planner.adapters.ttlang.reading.locations import (
    AliasError,
    LocationAliases,
    read_location_aliases,
    source_place,
)
from planner.adapters.ttlang.reading.nesting import NESTING_LIMIT, too_deep_at
from planner.adapters.ttlang.reading.numbers import DIGIT_LIMIT, overlong_number_at
from planner.adapters.ttlang.reading.sites import OpSite, SiteRecordingParser

SPLIT_MARKER = re.compile(r"^// -----.*$", re.MULTILINE)
_BYTE_ORDER_MARK = "\ufeff"


def is_blank(text: str) -> bool:
    """Nothing but whitespace and comments (a line whose first character is not `//` has content)."""
    for line in text.split("\n"):
        kept = line.lstrip()
        if kept and not kept.startswith("//"):
            return False
    return True


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
    """A chunk's module and where its ops were written (none for IR built elsewhere).

    `module_known` is False for a log's dump of functions alone whose module the log never
    shows: its attributes, the target among them, are unknown, not absent."""

    chunk: Chunk
    module: ModuleOp
    sites: dict[Operation, OpSite] = field(default_factory=dict)
    module_known: bool = True

    def line_col(self, offset: int) -> tuple[int, int]:
        return self.chunk.line_col(offset)

    def site(self, op: Operation) -> OpSite:
        """The op's site; an op not read from text is placed at the chunk's start, with no names."""
        return self.sites.get(op, _NOWHERE)

    def op_line_col(self, op: Operation) -> tuple[int, int]:
        """Where MLIR locates the op: its name (`ttl.foo` of `%0 = ttl.foo`)."""
        return self.line_col(self.site(op).name_start)

    def error_at(self, op: Operation, code: str, message: str) -> AdapterInputError:
        """An input error at the op: its position in this file and, where its location names a
        file position, that position too, where it is reported (as diagnostics are)."""
        line, column = self.op_line_col(op)
        error = AdapterInputError(code, message, line, column)
        error.source = source_place(op.location)
        return error


_NOWHERE = OpSite(0, (), None, 0)


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
    aliases = _location_aliases(chunk, text, filename)
    text = aliases.text
    if is_blank(text):
        return ParsedChunk(chunk, ModuleOp([]))

    def new_parser(piece: str, name: str, ctx: Context) -> SiteRecordingParser:
        return SiteRecordingParser(piece, name, ctx, aliases.aliases)

    read = read_common_forms(text, filename, ttlang_context, new_parser)
    module, sites = _parse_with_xdsl(chunk, text, filename, aliases) if read is None else read

    try:
        module.verify()
    except VerifyException as error:
        first_line = str(error).splitlines()[0] if str(error) else "verification failed"
        raise AdapterInputError(INVALID_IR, f"{filename}: invalid IR: {first_line}") from None
    parsed = ParsedChunk(chunk, module, sites)
    _check_dominance(parsed, filename)
    return parsed


def _location_aliases(chunk: Chunk, text: str, filename: str) -> LocationAliases:
    """The chunk's location aliases, read before the ops that name them (`locations`)."""
    contexts: list[Context] = []

    def new_parser(body: str, known: Mapping[str, LocationAttr]) -> SiteRecordingParser:
        if not contexts:
            contexts.append(ttlang_context())
        return SiteRecordingParser(body, filename, contexts[0], known)

    try:
        return read_location_aliases(text, new_parser)
    except AliasError as error:
        raise _parse_error(chunk, error.offset, error.message) from None


def _parse_with_xdsl(
    chunk: Chunk, text: str, filename: str, aliases: LocationAliases
) -> tuple[ModuleOp, dict[Operation, OpSite]]:
    try:
        parser = SiteRecordingParser(text, filename, locations=aliases.aliases)
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
    defined_at = violation.definition or violation.user
    note_line, note_column = parsed.op_line_col(defined_at)
    message = (
        f"operand #{violation.operand_index} does not dominate this use\n"
        f"{filename}:{note_line}:{note_column}: note: {violation.note}"
    )
    raise parsed.error_at(violation.user, INVALID_IR, message)
