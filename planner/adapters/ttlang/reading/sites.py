"""xDSL's MLIR parser, recording where every op and attribute dictionary is written.

Planned output in the text-preserving mode is the input text with attribute dictionaries
rewritten in place, so the parser records, per op, the offset of its first token, the offset
of its name (where MLIR's parser locates the op: `ttl.foo` of `%0 = ttl.foo`, the quoted name
of a generic op), its result names, and the extent of its attribute dictionary with each
entry's text (or, when absent, where one would go). Only xDSL's public parser API is used: the
recording hooks are the public `parse_operation` and attribute-dictionary methods, and
positions come from `Parser.pos`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar, overload

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, LocationAttr, UnitAttr
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from planner.adapters.ttlang.base.balanced import peek_tokens
from planner.adapters.ttlang.reading.context import ttlang_context
from planner.adapters.ttlang.reading.locations import NO_ALIASES, parse_location_body

_RESULTS = re.compile(r"(%[\w$.\-]+)(?::\d+)?\s*(,|=)")
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
    """Where an op is written: its first token, its name (what diagnostics point at), its result
    names and its attribute dictionary."""

    start: int
    result_names: tuple[str, ...]
    attr_dict: AttrDictSite | None
    name_start: int


@dataclass
class _Frame:
    start: int
    result_names: tuple[str, ...]
    name_start: int
    attr_dict: AttrDictSite | None = None


def result_names(text: str, start: int) -> tuple[tuple[str, ...], int]:
    """The result names an op written at `start` binds (`%a, %b:2 = ...` gives `%a`, `%b`), and
    the offset of its name, after the results (MLIR's op location)."""
    names: list[str] = []
    position = start
    while (match := _RESULTS.match(text, position)) is not None:
        names.append(match.group(1))
        position = match.end()
        while position < len(text) and text[position].isspace():
            position += 1
        if match.group(2) == "=":
            return tuple(names), position
    return (), start


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


@dataclass
class _LocatedArgument(Parser.UnresolvedArgument):
    """A block argument written without its type but with its location, which it keeps once typed."""

    location: LocationAttr

    def resolve(self, type: Attribute) -> Parser.Argument:
        return Parser.Argument(self.name, type, self.location)


class SiteRecordingParser(Parser):
    """xDSL's MLIR parser, recording an `OpSite` for every op it builds, reading every MLIR
    location form (`locations`), the chunk's location aliases known before it starts."""

    def __init__(
        self,
        text: str,
        name: str,
        ctx: Context | None = None,
        locations: Mapping[str, LocationAttr] = NO_ALIASES,
    ) -> None:
        super().__init__(ttlang_context() if ctx is None else ctx, text, name)
        self.attribute_aliases.update(locations)
        self.sites: dict[Operation, OpSite] = {}
        self._text = text
        self._frames: list[_Frame] = []

    def parse_operation(self) -> Operation:
        start = self.pos
        self._frames.append(_Frame(start, *result_names(self._text, start)))
        try:
            op = super().parse_operation()
        except VerifyException as error:  # a literal its type cannot hold: a malformed op
            self.raise_error(str(error).splitlines()[0], start)
        finally:
            frame = self._frames.pop()
        self.sites[op] = OpSite(frame.start, frame.result_names, frame.attr_dict, frame.name_start)
        return op

    @overload
    def parse_optional_argument(self, expect_type: Literal[True] = True) -> Parser.Argument | None: ...

    @overload
    def parse_optional_argument(self, expect_type: Literal[False]) -> Parser.UnresolvedArgument | None: ...

    @overload
    def parse_optional_argument(
        self, expect_type: bool = True
    ) -> Parser.UnresolvedArgument | Parser.Argument | None: ...

    def parse_optional_argument(
        self, expect_type: bool = True
    ) -> Parser.UnresolvedArgument | Parser.Argument | None:
        """As xDSL's, and an argument written without its type may carry its location inline, as
        MLIR prints `affine.for`'s induction variable (`affine.for %i loc("k.py":3:5) = 0 to 4`)."""
        argument = super().parse_optional_argument(expect_type)
        if expect_type or argument is None:
            return argument
        location = self.parse_optional_location()
        return argument if location is None else _LocatedArgument(argument.name, location)

    def parse_optional_location(self) -> LocationAttr | None:
        """`loc(...)` in any of MLIR's forms (xDSL reads neither ranges nor fused metadata)."""
        if not self.parse_optional_characters("loc"):
            return None
        with self.in_parens():
            return parse_location_body(self)

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
