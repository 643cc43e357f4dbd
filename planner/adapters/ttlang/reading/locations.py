"""MLIR locations as MLIR writes them: every form, inline or as `#loc` aliases defined anywhere.

MLIR's printer writes `... loc(#loc4)` on an op and `#loc4 = loc("kernel.py":42:14)` at the
*end* of the module, where xDSL's parser, which knows only aliases defined before their use,
stops with `undefined symbol alias`. So the location aliases of a chunk are read first, each
once (an alias naming another is read after it; a cycle is an error, never a hang), and the
parser is handed the text with their definitions blanked to spaces (every offset kept) and the
aliases already known. Seeding xDSL's `attribute_aliases` without blanking would make the
parser refuse the definition itself when it reaches it ("re-declaration of alias").

The location grammar is MLIR's (`mlir/lib/AsmParser/LocationParser.cpp`): `unknown`,
`"file":line[:col]`, the range `"file":l1:c1 to [l2]:c2` (read as its start: xDSL's
`FileLineColLoc` has no end, and a diagnostic points at the start), `"name"` and
`"name"(inner)`, `callsite(callee at caller)`, `fused[...]` and `fused<#meta>[...]`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    LocationAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute
from xdsl.parser import AttrParser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from planner.adapters.outcome import SourcePlace
from planner.adapters.ttlang.base.balanced import peek_tokens
from planner.adapters.ttlang.reading.nesting import NESTING_LIMIT

_DEFINITION = re.compile(r"^[ \t]*(#[a-zA-Z_][\w$.\-]*)[ \t]*=[ \t]*loc[ \t]*\(", re.MULTILINE)
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\\n]|\\.)*"|[()]|\n')
_ALIAS_USE = re.compile(r'"(?:[^"\\\n]|\\.)*"|(#[a-zA-Z_][\w$.\-]*)')


def parse_location_body(parser: AttrParser) -> LocationAttr:
    """One location instance at the parser's position (inside `loc(...)`), aliases included."""
    if parser.parse_optional_keyword("unknown") is not None:
        return UnknownLoc()
    if (text := parser.parse_optional_str_literal()) is not None:
        return _file_or_name(parser, text)
    if parser.parse_optional_keyword("callsite") is not None:
        with parser.in_parens():
            callee = parse_location_body(parser)
            parser.parse_keyword("at")
            caller = parse_location_body(parser)
        return CallSiteLoc(callee, caller)
    if parser.parse_optional_keyword("fused") is not None:
        metadata: Attribute = NoneAttr()
        if parser.parse_optional_punctuation("<") is not None:
            metadata = parser.parse_attribute()
            parser.parse_punctuation(">", " after fused location metadata")
        parts = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parse_location_body(parser), " in fused location"
        )
        return FusedLoc(ArrayAttr(parts), metadata)
    token = peek_tokens(parser, 1)[0]
    if token.kind == MLIRTokenKind.HASH_IDENT:
        start = parser.pos
        if "." not in token.text and token.text not in parser.attribute_aliases:  # at the alias, as MLIR
            parser.raise_error(f"undefined symbol alias '{token.text}'", token.span.start, token.span.end)
        attr = parser.parse_attribute()
        if isinstance(attr, UnknownLoc | FileLineColLoc | CallSiteLoc | FusedLoc | NameLoc):
            return attr
        parser.raise_error("expected location attribute", start)
    parser.raise_error("expected location instance")


def _file_or_name(parser: AttrParser, text: str) -> LocationAttr:
    """After the string: `:line[:col][ to [line]:col]` (a file position) or `[(inner)]` (a name)."""
    if parser.parse_optional_punctuation(":") is None:
        if parser.parse_optional_punctuation("(") is None:
            return NameLoc(StringAttr(text), NoneAttr())
        inner = parse_location_body(parser)
        parser.parse_punctuation(")", " after child location of NameLoc")
        return NameLoc(StringAttr(text), inner)
    line = parser.parse_integer(False, False, " line number")
    column = 0
    if parser.parse_optional_punctuation(":") is not None:
        column = parser.parse_integer(False, False, " column number")
        if parser.parse_optional_keyword("to") is not None:
            if parser.parse_optional_integer(False, False) is not None:
                parser.parse_punctuation(":", " after the end line")
            else:
                parser.parse_punctuation(":", " post `to`")
            parser.parse_integer(False, False, " end column number")
    return FileLineColLoc(StringAttr(text), IntAttr(line), IntAttr(column))


@dataclass(frozen=True)
class LocationAliases:
    """A chunk's location aliases, read, and its text with their definitions blanked."""

    text: str
    aliases: Mapping[str, LocationAttr]


NO_ALIASES: Mapping[str, LocationAttr] = {}


class AliasError(Exception):
    """A location alias that cannot be read: its offset in the chunk and what is wrong."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


@dataclass(frozen=True)
class _Definition:
    name: str
    start: int
    body_start: int
    body_end: int
    """The body is `text[body_start:body_end]`, inside `loc(` ... `)`; the definition ends after the `)`."""


def _closing_paren(text: str, position: int) -> int:
    """The offset of the `)` closing the `(` just before `position` (strings skipped), or -1."""
    depth = 1
    for match in _STRING_OR_BRACKET.finditer(text, position):
        token = match.group()
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
            if depth == 0:
                return match.start()
        elif token == "\n":
            return -1
    return -1


def _definitions(text: str) -> list[_Definition]:
    found: list[_Definition] = []
    for match in _DEFINITION.finditer(text):
        end = _closing_paren(text, match.end())
        if end < 0:
            raise AliasError(match.start(1), f"location alias '{match.group(1)}' has no closing ')'")
        found.append(_Definition(match.group(1), match.start(1), match.end(), end))
    return found


def read_location_aliases(
    text: str, new_parser: Callable[[str, Mapping[str, LocationAttr]], AttrParser]
) -> LocationAliases:
    """Every `#name = loc(...)` definition of `text`, read in dependency order, and the text with
    them blanked. `new_parser(body, known)` reads one body with the aliases read so far.

    Each definition is read once and each alias it names looked at once: linear in the text.
    """
    definitions = _definitions(text)
    if not definitions:
        return LocationAliases(text, NO_ALIASES)
    by_name: dict[str, _Definition] = {}
    for definition in definitions:
        if definition.name in by_name:
            raise AliasError(definition.start, f"re-declaration of alias '{definition.name}'")
        by_name[definition.name] = definition
    read: dict[str, LocationAttr] = {}
    depths: dict[str, int] = {}
    for definition in definitions:
        _read_with_dependencies(text, definition, by_name, read, depths, new_parser)
    pieces: list[str] = []
    last = 0
    for definition in definitions:
        pieces += (text[last : definition.start], " " * (definition.body_end + 1 - definition.start))
        last = definition.body_end + 1
    pieces.append(text[last:])
    return LocationAliases("".join(pieces), read)


def _read_with_dependencies(
    text: str,
    first: _Definition,
    by_name: Mapping[str, _Definition],
    read: dict[str, LocationAttr],
    depths: dict[str, int],
    new_parser: Callable[[str, Mapping[str, LocationAttr]], AttrParser],
) -> None:
    """Read `first` after the aliases it names (depth first, without recursion); a cycle is an error,
    and so is a chain of aliases nesting deeper than the text may (`nesting`)."""
    if first.name in read:
        return
    pending: list[tuple[_Definition, list[str]]] = [(first, _named(text, first))]
    open_names = {first.name}
    while pending:
        definition, needed = pending[-1]
        if needed:
            name = needed.pop()
            dependency = by_name.get(name)
            if dependency is None or name in read:
                continue  # an undefined alias is the parser's to report, at its use
            if name in open_names:
                message = f"location alias '{name}' is defined through itself (via '{definition.name}')"
                raise AliasError(definition.start, message)
            open_names.add(name)
            pending.append((dependency, _named(text, dependency)))
            continue
        pending.pop()
        open_names.discard(definition.name)
        depth = 1 + max((depths.get(name, 0) for name in _named(text, definition)), default=0)
        if depth > NESTING_LIMIT:
            raise AliasError(definition.start, f"location aliases nest deeper than {NESTING_LIMIT} levels")
        depths[definition.name] = depth
        read[definition.name] = _read_body(text, definition, read, new_parser)


def _named(text: str, definition: _Definition) -> list[str]:
    """The aliases a definition's body names, outside string literals."""
    uses = _ALIAS_USE.finditer(text, definition.body_start, definition.body_end)
    return [name for match in uses if (name := match.group(1)) is not None]


def _read_body(
    text: str,
    definition: _Definition,
    read: Mapping[str, LocationAttr],
    new_parser: Callable[[str, Mapping[str, LocationAttr]], AttrParser],
) -> LocationAttr:
    body = text[definition.body_start : definition.body_end]
    try:
        parser = new_parser(body, read)
        location = parse_location_body(parser)
        if parser.pos < len(body.rstrip()):
            parser.raise_error("expected ')' after the location")
    except ParseError as error:
        raise AliasError(definition.body_start + error.span.start, error.msg) from None
    return location


@dataclass(frozen=True)
class FilePosition:
    """A position in a source file a location names (1-based line; column as written)."""

    filename: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"


CALL_STACK_LIMIT = 10
"""The most `called from` notes, as MLIR's `SourceMgrDiagnosticHandler` prints by default."""


def source_place(location: Attribute) -> SourcePlace | None:
    """The file position a diagnostic at `location` reports, as `mlir-opt` does (None: it has none).

    MLIR shows a location's first file position (`findLocToShow`: a name's inner location, a
    call site's callee, a fused location's first part that has one) and, when the location is
    or wraps a call site, walks its callers (`getCallSiteLoc`), one `called from` note each.
    Aliases share their values, so each value is looked at once however often it is named.
    """
    seen: dict[int, FilePosition | None] = {}
    position = _shown(location, seen)
    if position is None:
        return None
    callers: list[FilePosition] = []
    call = _call_site(location)
    while call is not None and len(callers) < CALL_STACK_LIMIT:
        caller = _shown(call.caller, seen)
        if caller is not None:
            callers.append(caller)
        call = _call_site(call.caller)
    return SourcePlace(str(position), tuple(str(caller) for caller in callers))


def _shown(location: Attribute, seen: dict[int, FilePosition | None]) -> FilePosition | None:
    """MLIR's `findLocToShow`: the first file position the location holds."""
    key = id(location)
    if key in seen:
        return seen[key]
    found: FilePosition | None = None
    if isinstance(location, FileLineColLoc):
        found = FilePosition(location.filename.data, location.line.data, location.column.data)
    elif isinstance(location, NameLoc):
        found = _shown(location.location, seen)
    elif isinstance(location, CallSiteLoc):
        found = _shown(location.callee, seen)
    elif isinstance(location, FusedLoc) and isinstance(location.locations, ArrayAttr):
        parts = (_shown(part, seen) for part in location.locations.data)
        found = next((part for part in parts if part is not None), None)
    seen[key] = found
    return found


def _call_site(location: Attribute) -> CallSiteLoc | None:
    """MLIR's `getCallSiteLoc`: the call site a location is or wraps (a name's, a fused part's)."""
    pending = [location]
    visited: set[int] = set()
    while pending:
        current = pending.pop()
        if id(current) in visited:
            continue
        visited.add(id(current))
        if isinstance(current, CallSiteLoc):
            return current
        if isinstance(current, NameLoc):
            pending.append(current.location)
        elif isinstance(current, FusedLoc) and isinstance(current.locations, ArrayAttr):
            pending.extend(reversed(current.locations.data))
    return None
