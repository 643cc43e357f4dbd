"""Ops of dialects this adapter does not define, in generic or custom syntax.

An op in generic syntax (`"d2m.core_index"() <{dim = 0 : i64}> : () -> index`) is xDSL's
unregistered op and prints back the same. TTKernel and EmitC ops, which TT-Lang modules
carry in their custom syntax, are read in the call form both dialects print,
`ttkernel.copy_tile(%cb, %c0, %c0) : (!ttkernel.cb<...>, index, index) -> ()` (literal
arguments such as `0` or `true` allowed among the operands, and enum attributes written
stripped as the op's format prints them, `<reduce_sum>` or `<col>`, leading string literals as in
`emitc.call_opaque "f"(%x)`, the `: (...) -> (...)` part left out when there is nothing to
type, or only result types after a bare literal as in `emitc.literal "x" : i32`), and print
back in it. Custom syntax of any other unknown dialect is a parse error
naming the op and the generic form that does pass through.
"""

from __future__ import annotations

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
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import traits_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from planner.adapters.ttlang.base.balanced import peek_tokens
from planner.adapters.ttlang.dialects.raw_body import RawBodyAttr, parse_optional_body, raw_value

CALL_FORM_DIALECTS = ("ttkernel", "emitc")
_LEADING = "call_leading"
_LITERALS = "call_literals"
_LITERAL_AT = "call_literal_positions"
_BARE_RESULTS = "call_bare_results"
STRIPPED_ENUM = "foreign.stripped_enum"
"""The attribute standing for an enum operand written stripped (`<col>`): its body text."""


def generic_form_hint(name: str) -> str:
    """The parse diagnostic for custom syntax this adapter cannot read."""
    return (
        f"custom syntax of '{name}' is not known to this adapter; write it in generic form "
        f'("{name}"(...) : (...) -> (...)), which passes through unchanged'
    )


class ForeignCallOp(Operation):
    """A TTKernel or EmitC op read in call form (one subclass per name, from `foreign_op`)."""

    name = "foreign.call"
    traits = traits_def()

    def print(self, printer: Printer) -> None:
        leading = self.properties.get(_LEADING)
        for literal in leading.data if isinstance(leading, ArrayAttr) else ():
            printer.print_string(" ")
            printer.print_attribute(literal)
        literals = self.properties.get(_LITERALS)
        positions = self.properties.get(_LITERAL_AT)
        items: list[SSAValue | Attribute] = list(self.operands)
        if isinstance(literals, ArrayAttr) and isinstance(positions, DenseArrayBase):
            for position, literal in zip(positions.get_values(), literals.data, strict=True):
                items.insert(int(position), literal)
        if items or not isinstance(leading, ArrayAttr):
            printer.print_string("(")
            printer.print_list(items, lambda item: _print_item(printer, item))
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        if _BARE_RESULTS in self.properties:
            printer.print_string(" : ")
            printer.print_list(self.result_types, printer.print_attribute)
        elif self.operands or self.results or not isinstance(leading, ArrayAttr):
            printer.print_string(" : ")
            printer.print_attribute(FunctionType.from_lists(self.operand_types, self.result_types))


def _print_item(printer: Printer, item: SSAValue | Attribute) -> None:
    if isinstance(item, SSAValue):
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


def _parse_call(name: str, parser: Parser) -> Operation:
    leading: list[Attribute] = []
    while _on_the_same_line(parser) and (text := parser.parse_optional_str_literal()) is not None:
        leading.append(StringAttr(text))
    unresolved: list[UnresolvedOperand] = []
    literals: list[Attribute] = []
    positions: list[int] = []
    if parser.parse_optional_punctuation("(") is not None:
        if parser.parse_optional_punctuation(")") is None:
            while True:
                operand = parser.parse_optional_unresolved_operand()
                if operand is not None:
                    unresolved.append(operand)
                else:
                    positions.append(len(unresolved) + len(literals))
                    stripped = peek_tokens(parser, 1)[0].text == "<"
                    literals.append(
                        raw_value(STRIPPED_ENUM, parse_optional_body(parser)[1:-1], is_type=False)
                        if stripped
                        else parser.parse_attribute()
                    )
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")")
    elif not leading:
        parser.raise_error(generic_form_hint(name))
    attributes = parser.parse_optional_attr_dict()
    operand_types: list[Attribute] = []
    result_types: list[Attribute] = []
    properties: dict[str, Attribute] = {}
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


@cache
def unregistered_op(name: str, generic: type[Operation]) -> type[Operation]:
    """xDSL's unregistered op `generic` for `name`, whose custom syntax reads the call form for
    TTKernel and EmitC and is otherwise the generic-form diagnostic."""
    assert issubclass(generic, UnregisteredOp)

    def parse(cls: type[Operation], parser: Parser) -> Operation:
        if name.split(".", 1)[0] in CALL_FORM_DIALECTS:
            return _parse_call(name, parser)
        parser.raise_error(generic_form_hint(name), peek_tokens(parser, 1)[0].span.start)

    return type(generic.__name__, (generic,), {"parse": classmethod(parse), "__module__": __name__})
