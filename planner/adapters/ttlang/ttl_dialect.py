"""The TTL subset a compute kernel is written in (kernel-config.md section 10), as an xDSL dialect.

Every op gets a declarative assembly format matching TT-Lang's custom syntax, so the same
definitions read both that syntax and MLIR's generic form. Tile ops (`TileOp` subclasses)
are the ops the kernel-config resolver is asked about; the `into dst[...]` slot index is
always their last operand and carries no tile data (section 2). A `ttl.*` op not defined
here is read as an `UnknownTtlOp`, which the resolver is asked about too and refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i32,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
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
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoTerminator
from xdsl.utils.str_enum import StrEnum

# ---------------------------------------------------------------------------------------------
# Types and attributes


@irdl_attr_definition
class CBType(ParametrizedAttribute, TypeAttribute):
    """`!ttl.cb<[1, 1], !ttcore.tile<32x32, f32>, 2>`: a dataflow buffer of tiles."""

    name = "ttl.cb"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    block_count: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[ArrayAttr[IntAttr], Attribute, IntAttr]:
        parser.parse_punctuation("<")
        shape = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_punctuation(",")
        element_type = parser.parse_type()
        parser.parse_punctuation(",")
        block_count = parser.parse_integer()
        parser.parse_punctuation(">")
        return ArrayAttr(IntAttr(dim) for dim in shape), element_type, IntAttr(block_count)

    def print_parameters(self, printer: Printer) -> None:
        shape = ", ".join(str(dim.data) for dim in self.shape.data)
        printer.print_string(f"<[{shape}], ")
        printer.print_attribute(self.element_type)
        printer.print_string(f", {self.block_count.data}>")


@irdl_attr_definition
class DstType(ParametrizedAttribute, TypeAttribute):
    """`!ttl.dst`: the token a DST write produces."""

    name = "ttl.dst"


class TileExecutionStrategy(StrEnum):
    FPU = "fpu"
    SFPU = "sfpu"


class ReduceDim(StrEnum):
    ROW = "reduce_dim_row"
    COL = "reduce_dim_col"
    SCALAR = "reduce_dim_scalar"


class _KeywordAttr(ParametrizedAttribute):
    """`#ttl.<name><keyword>`, the keyword one of `KEYWORDS`; inside an op only `<keyword>` is written."""

    KEYWORDS: ClassVar[type[StrEnum]]

    keyword: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr]:
        parser.parse_punctuation("<")
        keyword = parser.parse_str_enum(cls.KEYWORDS)
        parser.parse_punctuation(">")
        return (StringAttr(keyword.value),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.keyword.data}>")


@irdl_attr_definition
class TileExecutionStrategyAttr(_KeywordAttr):
    """`#ttl.tile_execution_strategy<fpu|sfpu>`: the strategy selected for a binary tile op."""

    name = "ttl.tile_execution_strategy"
    KEYWORDS: ClassVar[type[StrEnum]] = TileExecutionStrategy


@irdl_attr_definition
class ReduceDimAttr(_KeywordAttr):
    """`#ttl.reduce_dim<reduce_dim_row|col|scalar>`: the dimension a `ttl.tile_reduce` folds."""

    name = "ttl.reduce_dim"
    KEYWORDS: ClassVar[type[StrEnum]] = ReduceDim


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
        """`ins(%a : T) outs(%b : T) {attrs} {^bb0(...): ...} -> T` (the dict comes first)."""
        ins = _parse_keyword_operands(parser, "ins")
        outs = _parse_keyword_operands(parser, "outs")
        attributes = parser.parse_optional_attr_dict()
        body = parser.parse_region()
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        op = cls.create(
            operands=[*ins, *outs],
            result_types=result_types,
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [len(ins), len(outs)])},
            attributes=attributes,
            regions=[body],
        )
        return op

    def print(self, printer: Printer) -> None:
        _print_keyword_operands(printer, "ins", self.ins)
        _print_keyword_operands(printer, "outs", self.outs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_region(self.body)
        if self.res:
            printer.print_string(" -> ")
            printer.print_list(self.res.types, printer.print_attribute)


def _parse_keyword_operands(parser: Parser, keyword: str) -> list[SSAValue]:
    """`keyword(%a, %b : T, U)`."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return list(parser.resolve_operands(unresolved, types, parser.pos))


def _print_keyword_operands(printer: Printer, keyword: str, operands: Sequence[SSAValue]) -> None:
    printer.print_string(f" {keyword}(")
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
    name = "ttl.iter_index"
    dim = prop_def(IntegerAttr[IntegerType])
    result = result_def()
    assembly_format = "$dim attr-dict `:` type($result)"


# ---------------------------------------------------------------------------------------------
# Tile ops


class TileOp(IRDLOperation):
    """An op the kernel-config resolver reasons about (kernel-config.md section 2).

    `HAS_DST_SLOT`: the last operand is the `dst[...]` slot index, which carries no tile.
    """

    HAS_DST_SLOT: ClassVar[bool] = True

    def tile_data_operands(self) -> tuple[SSAValue, ...]:
        """The operands the resolver sees, numbered as in the IR (the slot index dropped)."""
        operands = tuple(self.operands)
        return operands[:-1] if self.HAS_DST_SLOT else operands


def _into_dst(operands: str, types: str) -> str:
    """The assembly format of an op writing `dst[...]`: `<operands> into dst[%i] {attrs} : <types>`."""
    return f"{operands} `into` `dst` `[` $dst `]` attr-dict `:` {types}"


_UNARY_FORMAT = _into_dst("$input", "type($input) `->` type($result)")
_BINARY_FORMAT = _into_dst("$lhs `,` $rhs", "type($lhs) `,` type($rhs) `->` type($result)")


class UnaryTileOp(TileOp):
    input = operand_def()
    dst = operand_def(IndexType)
    result = result_def()
    assembly_format = _UNARY_FORMAT


class BinaryTileOp(TileOp):
    lhs = operand_def()
    rhs = operand_def()
    dst = operand_def(IndexType)
    result = result_def()
    assembly_format = _BINARY_FORMAT


_UNARY_MNEMONICS = (
    "tile_exp", "tile_log", "tile_sqrt", "tile_rsqrt", "tile_tanh", "tile_sigmoid", "tile_neg",
    "tile_abs", "tile_relu", "tile_recip", "tile_gelu", "tile_silu", "tile_sin", "tile_cos", "tile_square",
    "tile_typecast", "tile_transpose", "copy_dst",
)  # fmt: skip
_BINARY_MNEMONICS = (
    "tile_add", "tile_sub", "tile_mul", "tile_max", "tile_min", "tile_div", "tile_accumulate",
)  # fmt: skip


def _class_name(mnemonic: str) -> str:
    """`tile_exp` -> `TileExpOp`."""
    return "".join(part.title() for part in mnemonic.split("_")) + "Op"


def _tile_op_class(mnemonic: str, base: type[TileOp]) -> type[IRDLOperation]:
    """One IRDL op per mnemonic sharing `base`'s operands and syntax."""
    op_class = type(_class_name(mnemonic), (base,), {"name": f"ttl.{mnemonic}", "__module__": __name__})
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
    HAS_DST_SLOT: ClassVar[bool] = False
    index = operand_def()
    result = result_def()
    assembly_format = "$index attr-dict `:` type($index) `->` type($result)"


class UnknownTtlOp(Operation):
    """A `ttl.*` op this dialect does not define (one subclass per name, from `unknown_ttl_op`).

    It has no execution semantics, so the resolver refuses it (`kcfg.op_semantics_unknown`,
    kernel-config.md section 2) at its location; planning never rewrites it. Its request
    lists every operand as written, since without a definition the `dst[...]` slot of the
    generic form cannot be told apart. The custom form read is the tile-op convention
    `%x, %y into dst[%i] {attrs} : T, U -> R` (operand types optionally parenthesized; with
    no operands before `into`, the types after `:` are the results); it prints generically.
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
        for keyword in ("into", "dst"):
            parser.parse_keyword(keyword)
        parser.parse_punctuation("[")
        dst = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
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
    class_name = "Unknown" + _class_name(name.removeprefix("ttl."))
    return type(class_name, (UnknownTtlOp,), {"name": name, "__module__": __name__})


TTL = Dialect(
    "ttl",
    [
        BindCBOp, AttachCBOp, CBReserveOp, CBWaitOp, ComputeOp, YieldOp, DstSectionOp, IterIndexOp,
        *UNARY_TILE_OPS, *BINARY_TILE_OPS, TileBcastOp, TileReduceOp, TileMatmulBlockOp, TileFillOp,
        CopyTileOp, TileStoreOp, DstIndexOp,
    ],
    [CBType, DstType, TileExecutionStrategyAttr, ReduceDimAttr],
)  # fmt: skip
