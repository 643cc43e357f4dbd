"""Reading ahead with xDSL's public lexer: bracketed bodies carried as text, and token peeking.

A TTCore description holds syntaxes this adapter does not model (grids, affine maps,
`8x8` shapes). Its body is consumed token by token through the parser's public API, so it
prints back exactly as written, and the few values target construction needs are then read
from the text by splitting it at the top-level commas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import TypeVar

from xdsl.parser import AttrParser
from xdsl.utils.lexer import Input, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

_T = TypeVar("_T")
_CLOSING = {"<": ">", "[": "]", "{": "}", "(": ")"}


_PEEKERS: dict[int, tuple[Input, MLIRLexer]] = {}


def _peeker(parser: AttrParser) -> MLIRLexer:
    """A lexer over the parser's input, kept for the input the parser reads (one at a time)."""
    source = parser.lexer.input
    kept = _PEEKERS.get(id(source))
    if kept is None or kept[0] is not source:
        _PEEKERS.clear()
        kept = (source, MLIRLexer(Input(source.content, source.name)))
        _PEEKERS[id(source)] = kept
    return kept[1]


def peek_tokens(parser: AttrParser, count: int) -> list[Token[MLIRTokenKind, str]]:
    """The next `count` tokens at the parser's position, without consuming them."""
    lexer = _peeker(parser)
    lexer.pos = parser.pos
    return [lexer.lex() for _ in range(count)]


class DescriptionError(Exception):
    """A description whose text lacks what the adapter reads from it."""


def parse_balanced(parser: AttrParser, read: Callable[[str], _T]) -> tuple[str, _T]:
    """Consume the `<...>` group at the parser's position; its text, and `read` of that text.

    A `DescriptionError` raised by `read` becomes a parse error spanning the group.
    """
    content = parser.lexer.input.content
    start = parser.pos
    lexer = MLIRLexer(Input(content, parser.lexer.input.name))
    expected: list[str] = []
    while True:
        lexer.pos = parser.pos
        token = lexer.lex()
        if token.kind == MLIRTokenKind.EOF:
            parser.raise_error("unterminated description", start, parser.pos)
        if not expected and token.text != "<":
            parser.raise_error("expected '<' to open a description")
        if token.text in _CLOSING:
            expected.append(_CLOSING[token.text])
        elif token.text in _CLOSING.values() and token.text != expected.pop():
            parser.raise_error("unbalanced brackets in a description", token.span.start, token.span.end)
        parser.parse_characters(token.text)
        if not expected:
            break
    body = content[start : token.span.end]
    try:
        return body, read(body)
    except DescriptionError as error:
        parser.raise_error(str(error), start, token.span.end)


def _top_level_commas(text: str) -> Iterator[int]:
    """Offsets of the commas of `text` outside brackets and string literals (`->` is no bracket)."""
    depth = 0
    in_string = False
    previous = ""
    for offset, char in enumerate(text):
        if in_string:
            in_string = not (char == '"' and previous != "\\")
        elif char == '"':
            in_string = True
        elif char in _CLOSING:
            depth += 1
        elif char in _CLOSING.values() and not (char == ">" and previous == "-"):
            depth -= 1
        elif char == "," and depth == 0:
            yield offset
        previous = char


def top_level_items(bracketed: str) -> list[str]:
    """The comma-separated items inside one bracket pair: `[a, <b, c>]` gives `a` and `<b, c>`."""
    inner = bracketed[1:-1]
    if not inner.strip():
        return []
    cuts = [-1, *_top_level_commas(inner), len(inner)]
    return [inner[begin + 1 : end].strip() for begin, end in pairwise(cuts)]


def entry_value(bracketed: str, opening: str, key: str, owner: str) -> str:
    """The value text of the last `key = value` item inside a `opening`-bracketed group."""
    if not bracketed.startswith(opening):
        raise DescriptionError(f"{owner} must be written {opening}...{_CLOSING[opening]}, got {bracketed}")
    found = None
    for item in top_level_items(bracketed):
        name, separator, value = item.partition("=")
        if separator and name.strip() == key:
            found = value.strip()
    if found is None:
        raise DescriptionError(f"{owner} must give its {key}")
    return found
