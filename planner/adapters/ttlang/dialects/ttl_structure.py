"""The TTL ops around the tile ops (docs/design/kernel-config.md section 10): dataflow buffers, `ttl.compute`
and its body's structure, data movement and synchronization.

Syntax follows upstream's `TTLOps.td`: declarative assembly formats where upstream's are
declarative; custom `parse`/`print` for `ttl.compute` and for the buffer protocol ops, which
print the buffer type stripped (`<[1, 1], T, 2>`) and read it either way. The kernel-config
resolver reads buffers and `ttl.compute` block arguments through these ops; the rest are
only read and printed back.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import I64, ArrayAttr, DenseArrayBase, IndexType, IntegerAttr, StringAttr, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoTerminator
from xdsl.utils.mlir_lexer import MLIRTokenKind

from planner.adapters.ttlang.base.balanced import peek_tokens
from planner.adapters.ttlang.dialects.ttl_attrs import CBType

# ---------------------------------------------------------------------------------------------
# Dataflow-buffer and structure ops


@irdl_op_definition
class BindCBOp(IRDLOperation):
    """A dataflow buffer; `cb_index` is its physical index once finalized.

    Read as `{cb_index = 0, block_count = 2} {dfb_id = 0 : index} : !ttl.cb<...>`: upstream's
    fixed entries, then its attribute dictionary, then the buffer type in full or stripped.
    Printed in upstream's assembly format, `ttl.bind_cb{cb_index = 0, block_count = 2}
    {ttl.compiler_allocated} : <[1, 1], T, 2>` (the fixed entries' values without their
    types); without both fixed entries, as one dictionary and the full type.
    """

    name = "ttl.bind_cb"
    cb_index = opt_prop_def(AnyAttr())
    block_count = opt_prop_def(AnyAttr())
    result = result_def(CBType)

    @classmethod
    def parse(cls, parser: Parser) -> BindCBOp:
        attributes = parser.parse_optional_attr_dict()
        for name, value in parser.parse_optional_attr_dict().items():
            if name in attributes:
                parser.raise_error(f"attribute '{name}' is given twice")
            attributes[name] = value
        parser.parse_punctuation(":")
        fixed: list[str] = [name for name in ("cb_index", "block_count") if name in attributes]
        properties = {name: attributes.pop(name) for name in fixed}
        return cls.create(result_types=[_parse_cb_type(parser)], properties=properties, attributes=attributes)

    def print(self, printer: Printer) -> None:
        cb_index, block_count = self.cb_index, self.block_count
        if not (isinstance(cb_index, IntegerAttr) and isinstance(block_count, IntegerAttr)):
            printer.print_op_attributes({**self.properties, **self.attributes})
            printer.print_string(" : ")
            printer.print_attribute(self.result.type)
            return
        printer.print_string(f"{{cb_index = {cb_index.value.data}, block_count = {block_count.value.data}}}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_cb_type(printer, self.result.type)


@irdl_op_definition
class AttachCBOp(IRDLOperation):
    """A tensor whose tiles live in the attached dataflow buffer."""

    name = "ttl.attach_cb"
    tensor = operand_def()
    cb = operand_def(CBType)
    result = result_def()
    assembly_format = "$tensor `,` $cb attr-dict `:` `(` type($tensor) `,` type($cb) `)` `->` type($result)"


def _parse_cb_type(parser: Parser) -> Attribute:
    """A buffer type, written in full (`!ttl.cb<...>`) or stripped (`<...>`) as upstream prints it."""
    cb_type = parser.parse_optional_type()
    return cb_type if cb_type is not None else CBType.new(CBType.parse_parameters(parser))


def _print_cb_type(printer: Printer, cb_type: Attribute) -> None:
    if isinstance(cb_type, CBType):
        cb_type.print_parameters(printer)
    else:
        printer.print_attribute(cb_type)


class CBProtocolOp(IRDLOperation):
    """`%v = ttl.cb_wait %cb : <[1, 1], T, 2> -> tensor<...>` or `ttl.cb_pop %cb : <[1, 1], T, 2>`:
    a buffer protocol step, with a tensor view for reserve and wait; the buffer type may be stripped.
    The older spelling gives a block count after the buffer, `ttl.cb_wait %cb, %n : ...` (`%n` an i32)."""

    cb = operand_def(CBType)
    count = opt_operand_def(i32)
    view = opt_result_def()

    @classmethod
    def parse(cls, parser: Parser) -> CBProtocolOp:
        unresolved = parser.parse_unresolved_operand()
        count = parser.parse_unresolved_operand() if parser.parse_optional_punctuation(",") else None
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        cb = parser.resolve_operand(unresolved, _parse_cb_type(parser))
        operands = [cb, *([parser.resolve_operand(count, i32)] if count is not None else [])]
        view_types = [parser.parse_type()] if parser.parse_optional_punctuation("->") is not None else []
        return cls.create(operands=operands, result_types=view_types, attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cb)
        if self.count is not None:
            printer.print_string(", ")
            printer.print_operand(self.count)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_cb_type(printer, self.cb.type)
        if self.view is not None:
            printer.print_string(" -> ")
            printer.print_attribute(self.view.type)


@irdl_op_definition
class CBReserveOp(CBProtocolOp):
    name = "ttl.cb_reserve"


@irdl_op_definition
class CBWaitOp(CBProtocolOp):
    name = "ttl.cb_wait"


@irdl_op_definition
class ComputeOp(IRDLOperation):
    """A tile loop nest; its block arguments are the ins then the outs, one tile each."""

    name = "ttl.compute"
    ins = var_operand_def()
    outs = var_operand_def()
    body = region_def()
    res = var_result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> ComputeOp:
        """`ins(%a : T) outs(%b : T) {attrs} {^bb0(...): ...} -> T`; either list may be empty."""
        ins = parse_keyword_operands(parser, "ins")
        outs = parse_keyword_operands(parser, "outs")
        attributes = {} if region_follows(parser) else parser.parse_optional_attr_dict()
        body = parser.parse_region()
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = _parse_types(parser)
        return cls.create(
            operands=[*ins, *outs],
            result_types=result_types,
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [len(ins), len(outs)])},
            attributes=attributes,
            regions=[body],
        )

    def print(self, printer: Printer) -> None:
        print_keyword_operands(printer, "ins", self.ins)
        print_keyword_operands(printer, "outs", self.outs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_region(self.body)
        if self.res:
            printer.print_string(" -> (" if len(self.res) > 1 else " -> ")
            printer.print_list(self.res.types, printer.print_attribute)
            printer.print_string(")" if len(self.res) > 1 else "")


def _parse_types(parser: Parser) -> list[Attribute]:
    """`T, U` or `(T, U)`."""
    types: list[Attribute] = []
    if parser.parse_optional_punctuation("(") is None:
        return [*parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)]
    types.extend(parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type))
    parser.parse_punctuation(")")
    return types


def region_follows(parser: Parser) -> bool:
    """`{` opening a body (a block label or an op result next), not an attribute dictionary."""
    opening, first = peek_tokens(parser, 2)
    return opening.text == "{" and first.kind in (MLIRTokenKind.CARET_IDENT, MLIRTokenKind.PERCENT_IDENT)


def parse_keyword_operands(parser: Parser, keyword: str) -> list[SSAValue]:
    """`keyword(%a, %b : T, U)`, or none as upstream prints it, `keyword( : )`, or `keyword()`."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(":") is not None:
        parser.parse_punctuation(")")
        return []
    if parser.parse_optional_punctuation(")") is not None:
        return []
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return list(parser.resolve_operands(unresolved, types, parser.pos))


def print_keyword_operands(printer: Printer, keyword: str, operands: Sequence[SSAValue]) -> None:
    """`keyword(%a : T)`, and `keyword()` for none: the spelling TT-Lang 1.1.1's parser reads (newer
    printers write `keyword( : )`, which the reader takes too)."""
    printer.print_string(f" {keyword}(")
    if operands:
        printer.print_list(operands, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([operand.type for operand in operands], printer.print_attribute)
    printer.print_string(")")


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "ttl.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict ($values^ `:` type($values))?"


@irdl_op_definition
class DstSectionOp(IRDLOperation):
    name = "ttl.dst_section"
    body = region_def()
    traits = traits_def(NoTerminator())
    assembly_format = "$body attr-dict"


@irdl_op_definition
class AccumulationScopeOp(IRDLOperation):
    """`ttl.accumulation_scope outs(%o : T) inits(%i : T) {^bb0(...): ...} initial_modes([init])`:
    an accumulation policy for its outputs; `inits` is written only when some output has one."""

    name = "ttl.accumulation_scope"
    outs = var_operand_def()
    inits = var_operand_def()
    initial_modes = prop_def(ArrayAttr[StringAttr])
    body = region_def()
    traits = traits_def(NoTerminator())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> AccumulationScopeOp:
        outs = parse_keyword_operands(parser, "outs")
        inits = parse_keyword_operands(parser, "inits") if _keyword_follows(parser, "inits") else []
        attributes = {} if region_follows(parser) else parser.parse_optional_attr_dict()
        body = parser.parse_region()
        parser.parse_keyword("initial_modes")
        parser.parse_punctuation("(")
        modes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_identifier)
        parser.parse_punctuation(")")
        attributes |= parser.parse_optional_attr_dict()
        return cls.create(
            operands=[*outs, *inits],
            properties={
                "operandSegmentSizes": DenseArrayBase.from_list(i32, [len(outs), len(inits)]),
                "initial_modes": ArrayAttr(StringAttr(mode) for mode in modes),
            },
            attributes=attributes,
            regions=[body],
        )

    def print(self, printer: Printer) -> None:
        print_keyword_operands(printer, "outs", self.outs)
        if self.inits:
            print_keyword_operands(printer, "inits", self.inits)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_region(self.body)
        modes = ", ".join(mode.data for mode in self.initial_modes.data)
        printer.print_string(f" initial_modes([{modes}])")


def _keyword_follows(parser: Parser, keyword: str) -> bool:
    return peek_tokens(parser, 1)[0].text == keyword


@irdl_op_definition
class IterIndexOp(IRDLOperation):
    """`%i = ttl.iter_index 0 : index`: the index of a `ttl.compute` iteration dimension."""

    name = "ttl.iter_index"
    dim = prop_def(IntegerAttr.constr(type=I64))
    result = result_def(IndexType)
    assembly_format = "$dim attr-dict `:` type($result)"


# ---------------------------------------------------------------------------------------------
# Buffer protocol, data movement and DST markers: read and printed back, never planned


@irdl_op_definition
class CBPushOp(CBProtocolOp):
    name = "ttl.cb_push"


@irdl_op_definition
class CBPopOp(CBProtocolOp):
    name = "ttl.cb_pop"


@irdl_op_definition
class CreateCBOp(IRDLOperation):
    name = "ttl.create_cb"
    result = result_def(CBType)
    assembly_format = "`(` `)` attr-dict `:` type($result)"


@irdl_op_definition
class CopyOp(IRDLOperation):
    """An asynchronous copy between a tensor and a buffer; its result is a transfer handle."""

    name = "ttl.copy"
    src = operand_def()
    dst = operand_def()
    xf = result_def()
    assembly_format = "$src `,` $dst attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class WaitOp(IRDLOperation):
    name = "ttl.wait"
    xf = operand_def()
    assembly_format = "$xf attr-dict `:` type($xf)"


@irdl_op_definition
class AcquireDstOp(IRDLOperation):
    name = "ttl.acquire_dst"
    dst_reg = result_def(IndexType)
    assembly_format = "attr-dict"


@irdl_op_definition
class ReleaseDstOp(IRDLOperation):
    name = "ttl.release_dst"
    dst_reg = operand_def(IndexType)
    assembly_format = "$dst_reg attr-dict"


@irdl_op_definition
class RequireDstOp(IRDLOperation):
    name = "ttl.require_dst"
    value = operand_def()
    assembly_format = "$value attr-dict `:` type($value)"


STRUCTURE_OPS = (
    BindCBOp, AttachCBOp, CBReserveOp, CBWaitOp, CBPushOp, CBPopOp, CreateCBOp, CopyOp, WaitOp,
    ComputeOp, YieldOp, DstSectionOp, AccumulationScopeOp, IterIndexOp, AcquireDstOp, ReleaseDstOp,
    RequireDstOp,
)  # fmt: skip
