"""The TTCore types and attributes a TT-Lang compute kernel mentions (kernel-config.md sections 4.1, 10).

`!ttcore.tile<32x32, f32>` is a tile of a TTCore data type (not a builtin type: `u32` is
TTCore's spelling); `#ttcore.arch<blackhole>` names the target architecture. The
architecture keeps any identifier: recognizing a name is the resolver's job (an unknown one
is "not implemented", not a syntax error).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from planner.targets.tenstorrent import TT_DTYPES

DATA_TYPES = tuple(sorted(TT_DTYPES))
"""The tile data types the kernel-config relations know, spelled as the tile type prints them."""


@irdl_attr_definition
class TileType(ParametrizedAttribute, TypeAttribute):
    """`!ttcore.tile<HxW, dtype>`: one hardware tile of a TTCore data type."""

    name = "ttcore.tile"

    height: IntAttr
    width: IntAttr
    data_type: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr, StringAttr]:
        parser.parse_punctuation("<")
        height = parser.parse_shape_dimension(allow_dynamic=False)
        parser.parse_shape_delimiter()
        width = parser.parse_shape_dimension(allow_dynamic=False)
        parser.parse_punctuation(",")
        data_type = parser.parse_keyword_in(DATA_TYPES, " as a TTCore tile data type")
        parser.parse_punctuation(">")
        return IntAttr(height), IntAttr(width), StringAttr(data_type)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.height.data}x{self.width.data}, {self.data_type.data}>")


@irdl_attr_definition
class ArchAttr(ParametrizedAttribute):
    """`#ttcore.arch<wormhole_b0>`: the architecture named by a module or a device."""

    name = "ttcore.arch"

    arch: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr]:
        parser.parse_punctuation("<")
        arch = parser.parse_identifier(context_msg=" as architecture name")
        parser.parse_punctuation(">")
        return (StringAttr(arch),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.arch.data}>")


TTCore = Dialect("ttcore", [], [TileType, ArchAttr])
