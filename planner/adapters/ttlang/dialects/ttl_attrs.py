"""The TTL types and attributes (docs/design/kernel-config.md section 10): dataflow buffers, DST tokens, and
the keyword attributes naming a tile op's execution strategy and reduce dimension."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum


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
    keyword: StringAttr  # declared on the definition itself, so equality compares it


@irdl_attr_definition
class ReduceDimAttr(_KeywordAttr):
    """`#ttl.reduce_dim<reduce_dim_row|col|scalar>`: the dimension a `ttl.tile_reduce` folds."""

    name = "ttl.reduce_dim"
    KEYWORDS: ClassVar[type[StrEnum]] = ReduceDim
    keyword: StringAttr
