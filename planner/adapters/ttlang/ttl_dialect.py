"""The TTL ops a compute kernel is written in (docs/design/kernel-config.md section 10), as an xDSL dialect.

Op syntax follows upstream's `TTLOps.td`: a declarative assembly format where upstream's is
declarative, custom `parse`/`print` where upstream's is custom (`ttl.compute`, the stripped
buffer type of `ttl.cb_reserve`/`ttl.cb_wait`) and for the elementwise tile ops, which are
read in both upstream spellings: `%r = ttl.tile_add %a, %b into dst[%i] : T, T -> T` and
the older `%r = ttl.tile_add %a, %b : T` (no DST slot). Tile ops (`TileOp` subclasses) are
the ops the kernel-config resolver is asked about; the `into dst[...]` slot index, when
written, is their last operand and carries no tile data (section 2). A `ttl.*` op not
defined here is read as an `UnknownTtlOp` (`ttl_unknown`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import I64, BoolAttr, DenseArrayBase, FloatAttr, IndexType, IntegerAttr, f32, i32
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoTerminator
from xdsl.utils.mlir_lexer import MLIRTokenKind

from planner.adapters.ttlang.balanced import peek_tokens
from planner.adapters.ttlang.ttl_attrs import (
    CBType,
    DstType,
    ReduceDimAttr,
    TileExecutionStrategyAttr,
)
from planner.adapters.ttlang.ttl_unknown import class_name

# ---------------------------------------------------------------------------------------------
# Dataflow-buffer and structure ops


@irdl_op_definition
class BindCBOp(IRDLOperation):
    """A dataflow buffer; `cb_index` is its physical index once finalized."""

    name = "ttl.bind_cb"
    cb_index = opt_prop_def(AnyAttr())
    block_count = opt_prop_def(AnyAttr())
    result = result_def(CBType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"


@irdl_op_definition
class AttachCBOp(IRDLOperation):
    """A tensor whose tiles live in the attached dataflow buffer."""

    name = "ttl.attach_cb"
    tensor = operand_def()
    cb = operand_def(CBType)
    result = result_def()
    assembly_format = "$tensor `,` $cb attr-dict `:` `(` type($tensor) `,` type($cb) `)` `->` type($result)"


class CBViewOp(IRDLOperation):
    """`%v = ttl.cb_reserve %cb : <[1, 1], T, 2> -> tensor<...>`: the buffer type is printed stripped."""

    cb = operand_def(CBType)
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> CBViewOp:
        unresolved = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        cb_type = parser.parse_optional_type()
        if cb_type is None:
            cb_type = CBType.new(CBType.parse_parameters(parser))
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        cb = parser.resolve_operand(unresolved, cb_type)
        return cls.create(operands=[cb], result_types=[result_type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cb)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        cb_type = self.cb.type
        if isinstance(cb_type, CBType):
            cb_type.print_parameters(printer)
        else:
            printer.print_attribute(cb_type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class CBReserveOp(CBViewOp):
    name = "ttl.cb_reserve"


@irdl_op_definition
class CBWaitOp(CBViewOp):
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
        ins = _parse_keyword_operands(parser, "ins")
        outs = _parse_keyword_operands(parser, "outs")
        attributes = {} if _region_follows(parser) else parser.parse_optional_attr_dict()
        body = parser.parse_region()
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        return cls.create(
            operands=[*ins, *outs],
            result_types=result_types,
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [len(ins), len(outs)])},
            attributes=attributes,
            regions=[body],
        )

    def print(self, printer: Printer) -> None:
        _print_keyword_operands(printer, "ins", self.ins)
        _print_keyword_operands(printer, "outs", self.outs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_region(self.body)
        if self.res:
            printer.print_string(" -> ")
            printer.print_list(self.res.types, printer.print_attribute)


def _region_follows(parser: Parser) -> bool:
    """`{` opening a body (a block label or an op result next), not an attribute dictionary."""
    opening, first = peek_tokens(parser, 2)
    return opening.text == "{" and first.kind in (MLIRTokenKind.CARET_IDENT, MLIRTokenKind.PERCENT_IDENT)


def _parse_keyword_operands(parser: Parser, keyword: str) -> list[SSAValue]:
    """`keyword(%a, %b : T, U)` or `keyword()`."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is not None:
        return []
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return list(parser.resolve_operands(unresolved, types, parser.pos))


def _print_keyword_operands(printer: Printer, keyword: str, operands: Sequence[SSAValue]) -> None:
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
class IterIndexOp(IRDLOperation):
    """`%i = ttl.iter_index 0 : index`: the index of a `ttl.compute` iteration dimension."""

    name = "ttl.iter_index"
    dim = prop_def(IntegerAttr.constr(type=I64))
    result = result_def(IndexType)
    assembly_format = "$dim attr-dict `:` type($result)"


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

    After `:`, either one type (operands and result alike) or `T, U -> R`.
    """

    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseTileOp:
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        slot: UnresolvedOperand | None = None
        if parser.parse_optional_keyword("into") is not None:
            parser.parse_keyword("dst")
            parser.parse_punctuation("[")
            slot = parser.parse_unresolved_operand()
            parser.parse_punctuation("]")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_at = parser.pos
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if parser.parse_optional_punctuation("->") is not None:
            result_type = parser.parse_type()
        elif len(types) == 1:
            result_type = types[0]
            types = types * len(unresolved)
        else:
            parser.raise_error("expected one type, or operand types then '->' and the result type", types_at)
        operands = list(parser.resolve_operands(unresolved, types, types_at))
        if slot is not None:
            operands.append(parser.resolve_operand(slot, IndexType()))
        return cls.create(operands=operands, result_types=[result_type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        data = self.tile_data_operands()
        slot = self.dst_slot()
        printer.print_string(" ")
        printer.print_list(data, printer.print_operand)
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
        printer.print_list(types, printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


class UnaryTileOp(ElementwiseTileOp):
    input = operand_def()
    dst = opt_operand_def(IndexType)


class BinaryTileOp(ElementwiseTileOp):
    lhs = operand_def()
    rhs = operand_def()
    dst = opt_operand_def(IndexType)


_UNARY_MNEMONICS = (
    "tile_exp", "tile_log", "tile_sqrt", "tile_rsqrt", "tile_tanh", "tile_sigmoid", "tile_neg",
    "tile_abs", "tile_relu", "tile_recip", "tile_gelu", "tile_silu", "tile_sin", "tile_cos", "tile_square",
    "tile_floor", "tile_typecast", "tile_transpose", "copy_dst",
)  # fmt: skip
_BINARY_MNEMONICS = (
    "tile_add", "tile_sub", "tile_mul", "tile_max", "tile_min", "tile_div", "tile_accumulate",
)  # fmt: skip


def _tile_op_class(mnemonic: str, base: type[TileOp]) -> type[IRDLOperation]:
    """One IRDL op per mnemonic sharing `base`'s operands and syntax."""
    op_class = type(class_name(mnemonic), (base,), {"name": f"ttl.{mnemonic}", "__module__": __name__})
    return irdl_op_definition(op_class)


UNARY_TILE_OPS = tuple(_tile_op_class(mnemonic, UnaryTileOp) for mnemonic in _UNARY_MNEMONICS)
BINARY_TILE_OPS = tuple(_tile_op_class(mnemonic, BinaryTileOp) for mnemonic in _BINARY_MNEMONICS)


@irdl_op_definition
class TileBcastOp(TileOp):
    """`1 : i32` column, `2` row, `3` scalar broadcast; the second operand is the output tile."""

    name = "ttl.tile_bcast"
    input = operand_def()
    output = operand_def()
    dst = operand_def(IndexType)
    bcast_type = prop_def(AnyAttr())
    result = result_def()
    assembly_format = _into_dst(
        "$input `,` $output $bcast_type", "`(` type($input) `,` type($output) `)` `->` type($result)"
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
    assembly_format = _into_dst(
        "$input `,` $scaler `,` $output $reduce_type $reduce_dim",
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


@irdl_op_definition
class TileFillOp(TileOp):
    name = "ttl.tile_fill"
    value = prop_def(AnyAttr())
    dst = operand_def(IndexType)
    result = result_def()
    assembly_format = _into_dst("$value", "type($result)")


@irdl_op_definition
class CopyTileOp(TileOp):
    """Copies a dataflow-buffer tile into DST; yields the DST token and the resident tile."""

    name = "ttl.copy_tile"
    src = operand_def()
    src_indices = var_operand_def(IndexType)
    dst = operand_def(IndexType)
    token = result_def(DstType)
    result = result_def()
    assembly_format = _into_dst("$src `[` $src_indices `]`", "type($src) `->` type($token) `,` type($result)")


@irdl_op_definition
class TileStoreOp(TileOp):
    name = "ttl.tile_store"
    tile = operand_def()
    view = operand_def()
    indices = var_operand_def(IndexType)
    dst = operand_def(IndexType)
    assembly_format = (
        "$tile `,` $view `[` $indices `]` `from` `dst` `[` $dst `]` attr-dict `:` type($tile) `,` type($view)"
    )


@irdl_op_definition
class DstIndexOp(TileOp):
    """A tile already resident in DST at the given slot."""

    name = "ttl.dst_index"
    index = operand_def()
    result = result_def()
    assembly_format = "$index attr-dict `:` type($index) `->` type($result)"


TTL = Dialect(
    "ttl",
    [
        BindCBOp, AttachCBOp, CBReserveOp, CBWaitOp, ComputeOp, YieldOp, DstSectionOp, IterIndexOp,
        *UNARY_TILE_OPS, *BINARY_TILE_OPS, TileBcastOp, TileReduceOp, TileRowNormalizationBlockOp,
        TileMatmulBlockOp, TileFillOp, CopyTileOp, TileStoreOp, DstIndexOp,
    ],
    [CBType, DstType, TileExecutionStrategyAttr, ReduceDimAttr],
)  # fmt: skip
