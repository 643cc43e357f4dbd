"""Ops of dialects this adapter does not define, in generic or custom syntax.

An op in generic syntax (`"d2m.core_index"() <{dim = 0 : i64}> : () -> index`) is xDSL's
unregistered op and prints back the same. TTKernel and EmitC ops, which TT-Lang modules
carry in their custom syntax, are read in the call form both dialects print,
`ttkernel.copy_tile(%cb, %c0, %c0) : (!ttkernel.cb<...>, index, index) -> ()`, and print back
in it. The call form allows:

- literal arguments such as `0` or `true` among the operands, enum attributes written stripped
  as the op's format prints them (`<reduce_sum>`, `<col>`), and operands after a keyword
  (`noc %n`);
- leading string literals, as in `emitc.call_opaque "f"(%x)`;
- trailing keyword clauses after the arguments, `posted true` or `num_tiles = 3 dtype = <bf16>`;
- the `: (...) -> (...)` part left out when there is nothing to type, only result types after
  a bare literal (`emitc.literal "x" : i32`), or, for TTKernel, no arguments at all, only the
  results' types if any (`ttkernel.experimental_source_scalar_release`,
  `ttkernel.my_logical_x_ : () -> index`).

The few TTKernel ops whose format is one operand and its type, `ttkernel.get_dfb_id %cb : <...>`
and `ttkernel.cast_to_l1_addr %a : i32 to !ttkernel.l1_addr`, are read and printed in it
(`_UNARY_FORMS`). Custom syntax of any other unknown dialect is a parse error naming the op and
the generic form that does pass through.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FunctionType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    UnregisteredOp,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import traits_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

from planner.adapters.ttlang.base.balanced import peek_tokens
from planner.adapters.ttlang.dialects.raw_body import RawBodyAttr, parse_optional_body, raw_value

CALL_FORM_DIALECTS = ("ttkernel", "emitc")
_LEADING = "call_leading"
_LITERALS = "call_literals"
_LITERAL_AT = "call_literal_positions"
_BARE_RESULTS = "call_bare_results"
_BARE = "call_bare"
_KEYWORDS = "call_operand_keywords"
_TRAILING = "call_trailing"
STRIPPED_ENUM = "foreign.stripped_enum"
"""The attribute standing for an enum operand written stripped (`<col>`): its body text."""


def generic_form_hint(name: str) -> str:
    """The parse diagnostic for custom syntax this adapter cannot read."""
    return (
        f"custom syntax of '{name}' is not known to this adapter; write it in generic form "
        f'("{name}"(...) : (...) -> (...)), which passes through unchanged'
    )


class ForeignOp(Operation):
    """An op of another dialect read in its custom syntax (call form or a `_UNARY_FORMS` format)."""

    name = "foreign.op"
    traits = traits_def()


class ForeignCallOp(ForeignOp):
    """A TTKernel or EmitC op read in call form (one subclass per name, from `foreign_op`)."""

    name = "foreign.call"

    def print(self, printer: Printer) -> None:
        if _BARE in self.properties:
            printer.print_op_attributes(self.attributes)
            if self.results:
                printer.print_string(" : ")
                printer.print_attribute(FunctionType.from_lists([], self.result_types))
            return
        leading = self.properties.get(_LEADING)
        for literal in leading.data if isinstance(leading, ArrayAttr) else ():
            printer.print_string(" ")
            printer.print_attribute(literal)
        literals = self.properties.get(_LITERALS)
        positions = self.properties.get(_LITERAL_AT)
        keywords = self.properties.get(_KEYWORDS)
        items: list[SSAValue | Attribute | tuple[str, SSAValue]] = list(self.operands)
        if isinstance(keywords, ArrayAttr):
            items = [
                (word.data, value) if isinstance(word, StringAttr) and word.data else value
                for word, value in zip(keywords.data, self.operands, strict=True)
            ]
        if isinstance(literals, ArrayAttr) and isinstance(positions, DenseArrayBase):
            for position, literal in zip(positions.get_values(), literals.data, strict=True):
                items.insert(int(position), literal)
        if items or not isinstance(leading, ArrayAttr):
            printer.print_string("(")
            printer.print_list(items, lambda item: _print_item(printer, item))
            printer.print_string(")")
        trailing = self.properties.get(_TRAILING)
        for clause in trailing.data if isinstance(trailing, ArrayAttr) else ():
            assert isinstance(clause, ArrayAttr)
            word, value = clause.data
            assert isinstance(word, StringAttr)
            printer.print_string(f" {word.data} ")
            _print_item(printer, value)
        printer.print_op_attributes(self.attributes)
        if _BARE_RESULTS in self.properties:
            printer.print_string(" : ")
            printer.print_list(self.result_types, printer.print_attribute)
        elif self.operands or self.results or not isinstance(leading, ArrayAttr):
            printer.print_string(" : ")
            printer.print_attribute(FunctionType.from_lists(self.operand_types, self.result_types))


def _print_item(printer: Printer, item: SSAValue | Attribute | tuple[str, SSAValue]) -> None:
    if isinstance(item, tuple):
        printer.print_string(f"{item[0]} ")
        printer.print_operand(item[1])
    elif isinstance(item, SSAValue):
        printer.print_operand(item)
    elif isinstance(item, IntegerAttr) and item.type == i64:
        printer.print_string(str(item.value.data))
    elif isinstance(item, IntegerAttr) and item.type == IntegerType(1):
        printer.print_string("true" if item.value.data else "false")
    elif isinstance(item, RawBodyAttr) and item.name == STRIPPED_ENUM:
        printer.print_string(item.body.data)
    else:
        printer.print_attribute(item)


def _on_the_same_line(parser: Parser) -> bool:
    """The next token follows the op name on its line (a string on the next line starts an op)."""
    content, position = parser.lexer.input.content, parser.pos - 1
    while position >= 0 and content[position] in " \t":
        position -= 1
    return position < 0 or content[position] not in "\r\n"


def _parse_literal(parser: Parser) -> Attribute:
    """A literal argument or clause value: an attribute, or an enum written stripped (`<col>`)."""
    if peek_tokens(parser, 1)[0].text == "<":
        return raw_value(STRIPPED_ENUM, parse_optional_body(parser)[1:-1], is_type=False)
    return parser.parse_attribute()


def _keyword_before_operand(parser: Parser) -> bool:
    """`noc %n`: a bare word (no dialect prefix) directly followed by an operand."""
    word, after = peek_tokens(parser, 2)
    return (
        word.kind == MLIRTokenKind.BARE_IDENT
        and "." not in word.text
        and after.kind == MLIRTokenKind.PERCENT_IDENT
    )


def _clause_follows(parser: Parser) -> bool:
    """A trailing clause, `posted true` or `num_tiles = 3`: a bare word then `=` or a literal
    (an op name has a dialect prefix, and a keyword op such as `return` is followed by neither)."""
    word, after = peek_tokens(parser, 2)
    if word.kind != MLIRTokenKind.BARE_IDENT or "." in word.text:
        return False
    literal = after.kind in (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.FLOAT_LIT, MLIRTokenKind.STRING_LIT)
    return literal or after.text in ("=", "<", "true", "false")


def _parse_trailing(parser: Parser) -> list[Attribute]:
    clauses: list[Attribute] = []
    while _clause_follows(parser):
        word = parser.parse_identifier()
        if parser.parse_optional_punctuation("=") is not None:
            word += " ="
        clauses.append(ArrayAttr([StringAttr(word), _parse_literal(parser)]))
    return clauses


def _bare(name: str, parser: Parser) -> bool:
    """A TTKernel op written without arguments (its format `attr-dict` and perhaps its results'
    types, `ttkernel.my_logical_x_ : () -> index`): the line ends there, or an attribute dictionary
    or the type follows."""
    if not name.startswith("ttkernel."):
        return False
    after = peek_tokens(parser, 1)[0]
    return after.text in ("{", ":") or (
        not _on_the_same_line(parser) and after.kind != MLIRTokenKind.STRING_LIT
    )


def _parse_call(name: str, parser: Parser) -> Operation:
    leading: list[Attribute] = []
    while _on_the_same_line(parser) and (text := parser.parse_optional_str_literal()) is not None:
        leading.append(StringAttr(text))
    unresolved: list[UnresolvedOperand] = []
    keywords: list[str] = []
    literals: list[Attribute] = []
    positions: list[int] = []
    properties: dict[str, Attribute] = {}
    if parser.parse_optional_punctuation("(") is not None:
        if parser.parse_optional_punctuation(")") is None:
            while True:
                keyword = parser.parse_identifier() if _keyword_before_operand(parser) else ""
                operand = parser.parse_optional_unresolved_operand()
                if operand is not None:
                    unresolved.append(operand)
                    keywords.append(keyword)
                else:
                    positions.append(len(unresolved) + len(literals))
                    literals.append(_parse_literal(parser))
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")")
    elif not leading and _bare(name, parser):
        properties[_BARE] = UnitAttr()
    elif not leading:
        parser.raise_error(generic_form_hint(name))
    if trailing := _parse_trailing(parser):
        properties[_TRAILING] = ArrayAttr(trailing)
    attributes = parser.parse_optional_attr_dict()
    operand_types: list[Attribute] = []
    result_types: list[Attribute] = []
    if _BARE in properties:
        if parser.parse_optional_punctuation(":") is not None:
            types_at = parser.pos
            function = parser.parse_function_type()
            if function.inputs.data:
                parser.raise_error("an op written without arguments takes no operand types", types_at)
            result_types = list(function.outputs.data)
        return foreign_op(name).create(
            result_types=result_types, properties=properties, attributes=attributes
        )
    if parser.parse_optional_punctuation(":") is not None:
        if unresolved or peek_tokens(parser, 1)[0].text == "(":
            function = parser.parse_function_type()
            operand_types, result_types = list(function.inputs.data), list(function.outputs.data)
        else:
            result_types = list(parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type))
            properties[_BARE_RESULTS] = UnitAttr()
    operands = parser.resolve_operands(unresolved, operand_types, parser.pos)
    if leading:
        properties[_LEADING] = ArrayAttr(leading)
    if any(keywords):
        properties[_KEYWORDS] = ArrayAttr(StringAttr(keyword) for keyword in keywords)
    if literals:
        properties[_LITERALS] = ArrayAttr(literals)
        properties[_LITERAL_AT] = DenseArrayBase.from_list(i64, positions)
    return foreign_op(name).create(
        operands=operands, result_types=result_types, properties=properties, attributes=attributes
    )


@cache
def foreign_op(name: str) -> type[ForeignCallOp]:
    """The call-form op class standing for `name` (the same class for every use)."""
    class_name = "Foreign" + "".join(part.title() for part in name.replace(".", "_").split("_")) + "Op"
    return type(class_name, (ForeignCallOp,), {"name": name, "__module__": __name__})


@dataclass(frozen=True)
class UnaryForm:
    """`%x : T` (the result type fixed, `result`) or `%x : T to R` (`result` None); an operand type
    named `stripped` prints without its `!name` prefix, as upstream prints it, and reads either way."""

    result: Attribute | None
    stripped: str | None = None


_UNARY_FORMS: dict[str, UnaryForm] = {
    "ttkernel.get_dfb_id": UnaryForm(i32, "ttkernel.cb"),
    "ttkernel.cast_to_l1_addr": UnaryForm(None),
}


class ForeignUnaryOp(ForeignOp):
    """An op of `_UNARY_FORMS` (one subclass per name, from `foreign_unary_op`)."""

    name = "foreign.unary"

    @classmethod
    def form(cls) -> UnaryForm:
        return _UNARY_FORMS[cls.name]

    @classmethod
    def parse(cls, parser: Parser) -> ForeignUnaryOp:
        form = cls.form()
        unresolved = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        stripped = form.stripped is not None and peek_tokens(parser, 1)[0].text == "<"
        if form.stripped is not None and stripped:
            operand_type = raw_value(form.stripped, parse_optional_body(parser)[1:-1], is_type=True)
        else:
            operand_type = parser.parse_type()
        result = form.result
        if result is None:
            parser.parse_keyword("to")
            result = parser.parse_type()
        operand = parser.resolve_operand(unresolved, operand_type)
        return cls.create(operands=[operand], result_types=[result], attributes=attributes)

    def print(self, printer: Printer) -> None:
        form = self.form()
        printer.print_string(" ")
        printer.print_operand(self.operands[0])
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        operand_type = self.operands[0].type
        if (
            isinstance(operand_type, RawBodyAttr)
            and operand_type.name == form.stripped
            and operand_type.body.data
        ):
            printer.print_string(operand_type.body.data)
        else:
            printer.print_attribute(operand_type)
        if form.result is None:
            printer.print_string(" to ")
            printer.print_attribute(self.result_types[0])


@cache
def foreign_unary_op(name: str) -> type[ForeignUnaryOp]:
    """The op class standing for the `_UNARY_FORMS` op `name` (the same class for every use)."""
    class_name = "Foreign" + "".join(part.title() for part in name.replace(".", "_").split("_")) + "Op"
    return type(class_name, (ForeignUnaryOp,), {"name": name, "__module__": __name__})


@cache
def unregistered_op(name: str, generic: type[Operation]) -> type[Operation]:
    """xDSL's unregistered op `generic` for `name`, whose custom syntax reads the call form for
    TTKernel and EmitC (or the op's `_UNARY_FORMS` format) and is otherwise the generic-form
    diagnostic."""
    assert issubclass(generic, UnregisteredOp)

    def parse(cls: type[Operation], parser: Parser) -> Operation:
        if name in _UNARY_FORMS:
            return foreign_unary_op(name).parse(parser)
        if name.split(".", 1)[0] in CALL_FORM_DIALECTS:
            return _parse_call(name, parser)
        parser.raise_error(generic_form_hint(name), peek_tokens(parser, 1)[0].span.start)

    return type(generic.__name__, (generic,), {"parse": classmethod(parse), "__module__": __name__})
