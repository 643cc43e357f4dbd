"""The TTL tile ops (docs/design/kernel-config.md section 10). `ttl_registry` gathers them with the
structure, tensor-level and movement ops into the dialect; the elementwise families and the
ops made from `OpSpec` records are defined only when a text first uses them.

Op syntax follows upstream's `TTLOps.td`: a declarative assembly format where upstream's is
declarative, and custom `parse`/`print` for the elementwise tile ops, which are read in both
upstream spellings: `%r = ttl.tile_add %a, %b into dst[%i] : T, T -> T` and
the older `%r = ttl.tile_add %a, %b : T` (no DST slot). Tile ops (`TileOp` subclasses) are
the ops the kernel-config resolver is asked about; the `into dst[...]` slot index, when
written, is their last operand and carries no tile data (section 2). A `ttl.*` op not
defined here is read as an `UnknownTtlOp` (`ttl_unknown`).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, BoolAttr, DenseArrayBase, FloatAttr, IndexType, IntegerAttr, f32, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

from planner.adapters.ttlang.base.balanced import peek_tokens
from planner.adapters.ttlang.dialects.op_table import stripped_directive
from planner.adapters.ttlang.dialects.raw_body import RawBodyAttr, raw_value
from planner.adapters.ttlang.dialects.ttl_attrs import DstType, ReduceDimAttr
from planner.adapters.ttlang.dialects.ttl_tensor import BINARY_NAMES, UNARY_NAMES
from planner.adapters.ttlang.dialects.ttl_unknown import class_name, parse_dst_slot

# ---------------------------------------------------------------------------------------------
# Tile ops


class TileOp(IRDLOperation):
    """An op the kernel-config resolver reasons about (docs/design/kernel-config.md section 2)."""

    def dst_slot(self) -> SSAValue | None:
        """The `dst[...]` slot index operand, when the op has one (it carries no tile)."""
        slot = getattr(self, "dst", None)
        return slot if isinstance(slot, SSAValue) else None

    def tile_data_operands(self) -> tuple[SSAValue, ...]:
        """The operands the resolver sees, numbered as in the IR (the slot index dropped)."""
        operands = tuple(self.operands)
        return operands[:-1] if self.dst_slot() is not None else operands


def _into_dst(operands: str, types: str) -> str:
    """The assembly format of an op writing `dst[...]`: `<operands> into dst[%i] {attrs} : <types>`."""
    return f"{operands} `into` `dst` `[` $dst `]` attr-dict `:` {types}"


class ElementwiseTileOp(TileOp):
    """A unary or binary tile op, read in both upstream spellings (module docstring).

    After `:`, either one type (operands and result alike), `T, U -> R` or `(T, U) -> R`.
    `KEYWORD` names a property written as a bare keyword after the operands (the combiner
    of `ttl.tile_accumulate`); `PARENTHESIZED` prints several operand types in parentheses.
    """

    KEYWORD: ClassVar[str | None] = None
    PARENTHESIZED: ClassVar[bool] = False

    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseTileOp:
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        properties: dict[str, Attribute] = {}
        if cls.KEYWORD is not None and peek_tokens(parser, 1)[0].text not in ("into", "{", ":"):
            word = parser.parse_identifier(context_msg=" as the combiner")
            properties[cls.KEYWORD] = raw_value(f"ttl.accumulation_{cls.KEYWORD}", word, is_type=False)
        slot: UnresolvedOperand | None = None
        if parser.parse_optional_keyword("into") is not None:
            slot = parse_dst_slot(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_at = parser.pos
        parenthesized = parser.parse_optional_punctuation("(") is not None
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if parenthesized:
            parser.parse_punctuation(")")
        if parser.parse_optional_punctuation("->") is not None:
            result_type = parser.parse_type()
        elif len(types) == 1 and not parenthesized:
            result_type = types[0]
            types = types * len(unresolved)
        else:
            parser.raise_error("expected one type, or operand types then '->' and the result type", types_at)
        operands = list(parser.resolve_operands(unresolved, types, types_at))
        if slot is not None:
            operands.append(parser.resolve_operand(slot, IndexType()))
        properties |= cls.segment_sizes(len(unresolved), slot is not None)
        return cls.create(
            operands=operands, result_types=[result_type], attributes=attributes, properties=properties
        )

    @classmethod
    def segment_sizes(cls, data: int, slot: bool) -> dict[str, Attribute]:
        """The properties an op with optional operands records their counts in (none by default)."""
        return {}

    def print(self, printer: Printer) -> None:
        data = self.tile_data_operands()
        slot = self.dst_slot()
        printer.print_string(" ")
        printer.print_list(data, printer.print_operand)
        keyword = self.properties.get(self.KEYWORD) if self.KEYWORD is not None else None
        if isinstance(keyword, RawBodyAttr):
            printer.print_string(f" {keyword.body.data[1:-1]}")
        if slot is not None:
            printer.print_string(" into dst[")
            printer.print_operand(slot)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        types = [value.type for value in data]
        if slot is None and all(type_ == self.result.type for type_ in types):
            printer.print_attribute(self.result.type)
            return
        parenthesized = self.PARENTHESIZED and len(types) > 1
        printer.print_string("(" if parenthesized else "")
        printer.print_list(types, printer.print_attribute)
        printer.print_string(") -> " if parenthesized else " -> ")
        printer.print_attribute(self.result.type)


class UnaryTileOp(ElementwiseTileOp):
    input = operand_def()
    dst = opt_operand_def(IndexType)


class BinaryTileOp(ElementwiseTileOp):
    lhs = operand_def()
    rhs = operand_def()
    dst = opt_operand_def(IndexType)


UNARY_MNEMONICS = (*(f"tile_{name}" for name in UNARY_NAMES), "tile_typecast", "copy_dst")
BINARY_MNEMONICS = tuple(f"tile_{name}" for name in BINARY_NAMES)


def family_op(mnemonic: str, base: type[IRDLOperation]) -> type[IRDLOperation]:
    """The IRDL op `ttl.<mnemonic>`, sharing `base`'s operands and syntax (one per mnemonic)."""
    op_class = type(class_name(mnemonic), (base,), {"name": f"ttl.{mnemonic}", "__module__": __name__})
    return irdl_op_definition(op_class)


@irdl_op_definition
class TileAccumulateOp(BinaryTileOp):
    """`%next = ttl.tile_accumulate %acc, %delta add into dst[%i] : T, T -> T`; the combiner keyword
    is optional (older spelling)."""

    name = "ttl.tile_accumulate"
    KEYWORD: ClassVar[str | None] = "combiner"
    combiner = opt_prop_def(AnyAttr())


@irdl_op_definition
class TileTransposeOp(ElementwiseTileOp):
    """`ttl.tile_transpose %in, %out into dst[%i] : (T, T) -> T`, or the older one-operand spelling;
    the output operand names the output buffer and carries no tile data."""

    name = "ttl.tile_transpose"
    PARENTHESIZED: ClassVar[bool] = True
    input = operand_def()
    output = opt_operand_def()
    dst = opt_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def segment_sizes(cls, data: int, slot: bool) -> dict[str, Attribute]:
        sizes = [1, data - 1, int(slot)]
        return {"operandSegmentSizes": DenseArrayBase.from_list(i32, sizes)}


@irdl_op_definition
class TileMulUnaryConstOp(TileOp):
    """`ttl.tile_mul_unary_const %x, 5.000000e-01 into dst[%i] : T -> T`: a tile times a constant."""

    name = "ttl.tile_mul_unary_const"
    input = operand_def()
    value = prop_def(FloatAttr.constr(type=f32))
    dst = operand_def(IndexType)
    result = result_def()
    assembly_format = _into_dst("$input `,` $value", "type($input) `->` type($result)")


@irdl_op_definition
class TileBcastOp(TileOp):
    """A column, row or scalar broadcast (`<col>`, `<row>`, `<scalar>`, or the older `1 : i32`, `2`,
    `3`); the second operand is the output tile."""

    name = "ttl.tile_bcast"
    input = operand_def()
    output = operand_def()
    dst = operand_def(IndexType)
    bcast_type = prop_def(AnyAttr())
    result = result_def()
    custom_directives = (stripped_directive("BcastType"),)
    assembly_format = _into_dst(
        "$input `,` $output custom<BcastType>($bcast_type)",
        "`(` type($input) `,` type($output) `)` `->` type($result)",
    )


@irdl_op_definition
class TileReduceOp(TileOp):
    name = "ttl.tile_reduce"
    input = operand_def()
    scaler = operand_def()
    output = operand_def()
    dst = operand_def(IndexType)
    reduce_type = prop_def(AnyAttr())
    reduce_dim = prop_def(ReduceDimAttr)
    result = result_def()
    custom_directives = (stripped_directive("ReduceType"),)
    assembly_format = _into_dst(
        "$input `,` $scaler `,` $output custom<ReduceType>($reduce_type) $reduce_dim",
        "`(` type($input) `,` type($scaler) `,` type($output) `)` `->` type($result)",
    )


@irdl_op_definition
class TileRowNormalizationBlockOp(TileOp):
    """A row of `num_tiles` tiles normalized in DST at once; `gamma` is read only when `has_gamma`."""

    name = "ttl.tile_row_normalization_block"
    input = operand_def()
    gamma = operand_def()
    output = operand_def()
    dst = operand_def(IndexType)
    scale = prop_def(FloatAttr.constr(type=f32))
    epsilon = prop_def(FloatAttr.constr(type=f32))
    has_gamma = prop_def(BoolAttr)
    num_tiles = prop_def(IntegerAttr.constr(type=I64))
    result = result_def()
    assembly_format = _into_dst(
        "$input `,` $gamma `,` $output `scale` `=` $scale `epsilon` `=` $epsilon "
        "`has_gamma` `=` $has_gamma `num_tiles` `=` $num_tiles",
        "type($input) `,` type($gamma) `,` type($output) `->` type($result)",
    )


@irdl_op_definition
class TileMatmulBlockOp(TileOp):
    name = "ttl.tile_matmul_block"
    lhs = operand_def()
    rhs = operand_def()
    acc = opt_operand_def()
    dst = operand_def(IndexType)
    result = result_def()
    assembly_format = _into_dst(
        "$lhs `,` $rhs (`,` $acc^)?", "type($lhs) `,` type($rhs) (`,` type($acc)^)? `->` type($result)"
    )


@irdl_custom_directive
class FillValue(CustomDirective):
    """`ttl.tile_fill`'s constant, upstream's `F32Attr`: a float written bare (`1.0`) is an f32 and
    an f32 prints bare; a typed literal (`1.000000e+00 : f32`) or any other attribute reads too."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        tokens = peek_tokens(parser, 3)
        sign = int(tokens[0].text == "-")
        if tokens[sign].kind is MLIRTokenKind.FLOAT_LIT and tokens[sign + 1].text != ":":
            self.value.set(state, FloatAttr(float(parser.parse_number()), f32))
        else:
            self.value.set(state, parser.parse_attribute())

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        value = self.value.get(op)
        state.print_whitespace(printer)
        if isinstance(value, FloatAttr) and value.type == f32:
            printer.print_float(value.value.data, f32)
        elif value is not None:
            printer.print_attribute(value)


@irdl_op_definition
class TileFillOp(TileOp):
    name = "ttl.tile_fill"
    value = prop_def(AnyAttr())
    dst = operand_def(IndexType)
    result = result_def()
    custom_directives = (FillValue,)
    assembly_format = _into_dst("custom<FillValue>($value)", "type($result)")


@irdl_op_definition
class CopyTileOp(TileOp):
    """Copies a dataflow-buffer tile into DST; yields the DST token and the resident tile.

    Read as `ttl.copy_tile %src[%i] into dst[%d] : T -> !ttl.dst, T`, and in the older spelling
    `ttl.copy_tile %src, %i, %d : T, index, index -> !ttl.dst, T` (the same operands: the source
    index, then the DST slot); printed in the first."""

    name = "ttl.copy_tile"
    src = operand_def()
    src_indices = var_operand_def(IndexType)
    dst = operand_def(IndexType)
    token = result_def(DstType)
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> CopyTileOp:
        source = parser.parse_unresolved_operand()
        older = parser.parse_optional_punctuation(",") is not None
        if older:
            indices = [parser.parse_unresolved_operand()]
            parser.parse_punctuation(",")
            slot = parser.parse_unresolved_operand()
        else:
            indices = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_unresolved_operand
            )
            parser.parse_keyword("into")
            slot = parse_dst_slot(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_at = parser.pos
        source_type = parser.parse_type()
        if older:
            for _ in range(2):
                parser.parse_punctuation(",")
                parser.parse_type()
        parser.parse_punctuation("->")
        result_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        operands = [
            parser.resolve_operand(source, source_type),
            *parser.resolve_operands(indices, [IndexType()] * len(indices), types_at),
            parser.resolve_operand(slot, IndexType()),
        ]
        return cls.create(operands=operands, result_types=result_types, attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_string("[")
        printer.print_list(self.src_indices, printer.print_operand)
        printer.print_string("] into dst[")
        printer.print_operand(self.dst)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_list(self.result_types, printer.print_attribute)


@irdl_op_definition
class TileStoreOp(TileOp):
    """Stores a DST tile into a view: `ttl.tile_store %t, %view[%i, %j] from dst[%d] : T, V`, and the
    older spellings without the slot (`%view[%i, %j]`) or without indices either (`%view`)."""

    name = "ttl.tile_store"
    tile = operand_def()
    view = operand_def()
    indices = var_operand_def(IndexType)
    dst = opt_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> TileStoreOp:
        tile = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view = parser.parse_unresolved_operand()
        indexed = peek_tokens(parser, 1)[0].text == "["
        indices = (
            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
            if indexed
            else []
        )
        slot = parse_dst_slot(parser) if parser.parse_optional_keyword("from") is not None else None
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_at = parser.pos
        tile_type = parser.parse_type()
        parser.parse_punctuation(",")
        view_type = parser.parse_type()
        operands = [
            parser.resolve_operand(tile, tile_type),
            parser.resolve_operand(view, view_type),
            *parser.resolve_operands(indices, [IndexType()] * len(indices), types_at),
            *([parser.resolve_operand(slot, IndexType())] if slot is not None else []),
        ]
        segments = DenseArrayBase.from_list(i32, [1, 1, len(indices), int(slot is not None)])
        return cls.create(
            operands=operands, attributes=attributes, properties={"operandSegmentSizes": segments}
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tile)
        printer.print_string(", ")
        printer.print_operand(self.view)
        if self.indices or self.dst is not None:
            printer.print_string("[")
            printer.print_list(self.indices, printer.print_operand)
            printer.print_string("]")
        if self.dst is not None:
            printer.print_string(" from dst[")
            printer.print_operand(self.dst)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.tile.type)
        printer.print_string(", ")
        printer.print_attribute(self.view.type)


@irdl_op_definition
class DstIndexOp(TileOp):
    """A tile resident in DST: `ttl.dst_index %tile[%i] : T -> T` names the tile at slot `%i`; the
    older `ttl.dst_index %i : index -> T` only the slot."""

    name = "ttl.dst_index"
    source = operand_def()
    dst = opt_operand_def(IndexType)
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> DstIndexOp:
        source = parser.parse_unresolved_operand()
        slot = None
        if parser.parse_optional_punctuation("[") is not None:
            slot = parser.parse_unresolved_operand()
            parser.parse_punctuation("]")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operands = [parser.resolve_operand(source, parser.parse_type())]
        if slot is not None:
            operands.append(parser.resolve_operand(slot, IndexType()))
        parser.parse_punctuation("->")
        return cls.create(operands=operands, result_types=[parser.parse_type()], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        if self.dst is not None:
            printer.print_string("[")
            printer.print_operand(self.dst)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
