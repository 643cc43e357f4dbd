"""`affine.if` in MLIR's custom syntax, which xDSL's affine dialect defines only in generic form.

    %r = affine.if #set(%d0, %d1)[%s0] -> (index) {
      affine.yield %a : index
    } else {
      affine.yield %b : index
    } {attrs}

The condition is an integer set (an alias such as `#set` or `affine_set<...>` inline); its
dimensions are the parenthesized operands, its symbols the bracketed ones. An `affine.yield`
without operands is implicit, as in MLIR. The rest of xDSL's affine dialect (`affine.for`,
`affine.apply`, ...) has its custom syntax already; `affine_dialect` is it with this op in
place of xDSL's.
"""

from __future__ import annotations

from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineSetAttr, IndexType
from xdsl.ir import Attribute, Block, Dialect, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    IsTerminator,
    RecursivelySpeculatable,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)


@irdl_op_definition
class AffineIfOp(IRDLOperation):
    """xDSL's `affine.if` (its operands, results, condition and regions), read and printed in
    MLIR's custom syntax (module docstring)."""

    name = "affine.if"
    args = var_operand_def(IndexType)
    res = var_result_def()
    condition = prop_def(AffineSetAttr)
    then_region = region_def("single_block")
    else_region = region_def()
    traits = traits_def(
        RecursiveMemoryEffect(), RecursivelySpeculatable(), SingleBlockImplicitTerminator(affine.YieldOp)
    )

    @classmethod
    def parse(cls, parser: Parser) -> AffineIfOp:
        at = parser.pos
        condition = parser.parse_attribute()
        if not isinstance(condition, AffineSetAttr):
            parser.raise_error("expected an integer set (`#set` or `affine_set<...>`)", at)
        dims = _parse_operands(parser, parser.Delimiter.PAREN)
        symbols = _parse_operands(parser, parser.Delimiter.SQUARE)
        if len(dims) != condition.data.num_dims or len(symbols) != condition.data.num_symbols:
            parser.raise_error("operand count does not match the integer set", at)
        operands = parser.resolve_operands([*dims, *symbols], [IndexType()] * (len(dims) + len(symbols)), at)
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = list(parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type))
        then_region = _with_a_block(parser.parse_region())
        else_region = Region()
        if parser.parse_optional_keyword("else") is not None:
            else_region = _with_a_block(parser.parse_region())
        attributes = parser.parse_optional_attr_dict()
        op = cls.create(
            operands=operands,
            result_types=result_types,
            properties={"condition": condition},
            attributes=attributes,
            regions=[then_region, else_region],
        )
        if not result_types:
            for region in op.regions:
                for block in region.blocks:
                    if block.last_op is None or not block.last_op.has_trait(IsTerminator):
                        block.add_op(affine.YieldOp.create())
        return op

    def print(self, printer: Printer) -> None:
        condition = self.condition
        dims = self.args[: condition.data.num_dims]
        symbols = self.args[condition.data.num_dims :]
        printer.print_string(" ")
        printer.print_attribute(condition)
        printer.print_string("(")
        printer.print_list(dims, printer.print_operand)
        printer.print_string(")")
        if symbols:
            printer.print_string("[")
            printer.print_list(symbols, printer.print_operand)
            printer.print_string("]")
        if self.res:
            printer.print_string(" -> (")
            printer.print_list(self.res.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        terminators = bool(self.res)
        printer.print_region(
            self.then_region, print_entry_block_args=False, print_block_terminators=terminators
        )
        if self.else_region.blocks:
            printer.print_string(" else ")
            printer.print_region(
                self.else_region, print_entry_block_args=False, print_block_terminators=terminators
            )
        printer.print_op_attributes(self.attributes)


def _with_a_block(region: Region) -> Region:
    """`{}` as a region of one empty block, as MLIR reads a written region."""
    if not region.blocks:
        region.add_block(Block())
    return region


def _parse_operands(parser: Parser, delimiter: Parser.Delimiter) -> list[UnresolvedOperand]:
    found = parser.parse_optional_comma_separated_list(delimiter, parser.parse_unresolved_operand)
    return list(found or [])


def affine_dialect() -> Dialect:
    """xDSL's affine dialect with `affine.if` in its custom syntax."""
    ops = [AffineIfOp if op is affine.IfOp else op for op in affine.Affine.operations]
    return Dialect("affine", ops, list(affine.Affine.attributes))
