"""`ttl.*` ops this adapter does not define: read so the resolver can refuse them where they are.

Upstream's op set keeps growing; an op missing here has no execution semantics, and a kernel
whose tiles pass through it must be refused at that op (`kcfg.op_semantics_unknown`,
docs/design/kernel-config.md section 2), not fail to parse.
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import traits_def
from xdsl.parser import Parser, UnresolvedOperand

from planner.adapters.ttlang.dialects.foreign import generic_form_hint


def class_name(mnemonic: str) -> str:
    """`tile_exp` -> `TileExpOp`."""
    return "".join(part.title() for part in mnemonic.split("_")) + "Op"


def parse_dst_slot(parser: Parser) -> UnresolvedOperand:
    """`dst[%i]` after a tile op's `into`: the DST slot index it writes."""
    parser.parse_keyword("dst")
    parser.parse_punctuation("[")
    slot = parser.parse_unresolved_operand()
    parser.parse_punctuation("]")
    return slot


class UnknownTtlOp(Operation):
    """A `ttl.*` op this dialect does not define (one subclass per name, from `unknown_ttl_op`).

    It has no execution semantics, so the resolver refuses it (`kcfg.op_semantics_unknown`,
    docs/design/kernel-config.md section 2) at its location when it reads or produces a tile;
    otherwise it passes through. Planning never rewrites it. Its request
    lists every operand as written, since without a definition the `dst[...]` slot of the
    generic form cannot be told apart. The custom form read is the tile-op convention
    `%x, %y into dst[%i] {attrs} : T, U -> R` (operand types optionally parenthesized; with
    no operands before `into`, the types after `:` are the results); other custom syntax is a
    parse error naming the generic form. It prints generically.
    """

    name = "ttl.unknown"
    traits = traits_def()

    def tile_data_operands(self) -> tuple[SSAValue, ...]:
        return tuple(self.operands)

    @classmethod
    def parse(cls, parser: Parser) -> UnknownTtlOp:
        unresolved = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        if parser.parse_optional_keyword("into") is None:
            parser.raise_error(generic_form_hint(cls.name))
        dst = parse_dst_slot(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_at = parser.pos
        types = _parse_type_list(parser)
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = _parse_type_list(parser)
        elif not unresolved:
            types, result_types = [], types
        data = parser.resolve_operands(unresolved, types, types_at)
        operands = [*data, parser.resolve_operand(dst, IndexType())]
        return cls.create(operands=operands, result_types=result_types, attributes=attributes)


def _parse_type_list(parser: Parser) -> list[Attribute]:
    """`T, U` or `(T, U)` (possibly `()`)."""
    types: list[Attribute] = []
    if parser.parse_optional_punctuation("(") is None:
        types.extend(parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type))
    elif parser.parse_optional_punctuation(")") is None:
        types.extend(parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type))
        parser.parse_punctuation(")")
    return types


@cache
def unknown_ttl_op(name: str) -> type[UnknownTtlOp]:
    """The op class standing for the undefined `ttl.*` op `name` (the same class for every use)."""
    op_class_name = "Unknown" + class_name(name.removeprefix("ttl."))
    return type(op_class_name, (UnknownTtlOp,), {"name": name, "__module__": __name__})
