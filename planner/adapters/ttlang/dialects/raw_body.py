"""Attributes and types this adapter does not model, carried as their body text on one line.

Other dialects' attributes (`#ttkernel.thread<compute>`), TTL attributes and types without a
definition here (`#ttl.layout<...>`, `!ttl.pipe<...>`) keep the text they were written with,
so they print back unchanged. The body is put on one canonical line when read: a
multi-line alias body otherwise prints with its line breaks re-indented by the nesting of
each use, so one type would print differently at two uses and fail to read back. Comments
inside a body are dropped with the line breaks that end them.
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from planner.adapters.ttlang.base.balanced import parse_balanced, peek_tokens

_OPENING = "<([{"
_CLOSING = ">)]},"


def one_line(text: str) -> str:
    """`text` on one line: `//` comments dropped, each whitespace run holding a line break one
    space, or nothing after an opening bracket and before a closing bracket or a comma (string
    literals kept)."""
    if "\n" not in text and "//" not in text:
        return text
    pieces: list[str] = []
    in_string = False
    index = 0
    while index < len(text):
        char = text[index]
        if in_string:
            in_string = not (char == '"' and text[index - 1] != "\\")
        elif char == '"':
            in_string = True
        elif text.startswith("//", index):
            while pieces and pieces[-1].isspace():
                pieces.pop()
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
            continue
        elif char.isspace():
            end = index
            while end < len(text) and text[end].isspace():
                end += 1
            run = text[index:end]
            if "\n" in run:
                before = pieces[-1][-1:] if pieces else ""
                after = text[end : end + 1]
                run = "" if (before and before in _OPENING) or (after and after in _CLOSING) else " "
            pieces.append(run)
            index = end
            continue
        pieces.append(char)
        index += 1
    return "".join(pieces).strip()


def parse_optional_body(parser: AttrParser) -> str:
    """The `<...>` body at the parser's position, on one line (empty when none follows)."""
    if peek_tokens(parser, 1)[0].text != "<":
        return ""
    return one_line(parse_balanced(parser, lambda text: None)[0])


class RawBodyAttr(ParametrizedAttribute):
    """`#dialect.name<body>` kept as its body text (one subclass per name, from `raw_attr`, which
    declares `body` again so that equality compares it)."""

    body: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr]:
        return (StringAttr(parse_optional_body(parser)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.body.data)


class RawBodyType(RawBodyAttr, TypeAttribute):
    """`!dialect.name<body>` kept as its body text."""


def raw_attr(name: str, *, is_type: bool) -> type[RawBodyAttr]:
    """The class standing for the attribute (or type) `name` (the same class for every use)."""
    return _raw_class(name, is_type)


@cache
def _raw_class(name: str, is_type: bool) -> type[RawBodyAttr]:
    base = RawBodyType if is_type else RawBodyAttr
    class_name = "Raw" + "".join(part.title() for part in name.replace(".", "_").split("_"))
    body = {"name": name, "__module__": __name__, "__annotations__": {"body": StringAttr}}
    return irdl_attr_definition(type(class_name, (base,), body))


def raw_value(name: str, body: str, *, is_type: bool) -> Attribute:
    """The attribute `#name<body>` (or type `!name<body>`) as this module reads it."""
    return raw_attr(name, is_type=is_type)(StringAttr(one_line(f"<{body}>") if body else ""))
