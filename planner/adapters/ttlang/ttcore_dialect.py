"""The TTCore types and attributes a TT-Lang compute kernel mentions (kernel-config.md sections 4.1, 10).

`!ttcore.tile<32x32, f32>` is a tile of a TTCore data type (not a builtin type: `u32` is
TTCore's spelling); `#ttcore.arch<blackhole>` names the target architecture. The
architecture keeps any identifier: recognizing a name is the resolver's job (an unknown one
is "not implemented", not a syntax error).

The system and device descriptions are read in TTCore's own spelling, keeping only what
target construction (section 4.1) needs; every other parameter and entry is skipped as a
balanced token run, so a description printed by the TTCore toolchain reads as written:

- `#ttcore.system_desc<[cpu descs], [chip descs], [chip desc indices], ...>`: each chip
  description is a dictionary holding `arch = <name>`; chip `i` is described by
  `chip_descs[chip_desc_indices[i]]`. Minimal form:
  `#ttcore.system_desc<[], [{arch = <wormhole_b0>}], [0]>`.
- `#ttcore.device<..., chipIds = [0, 1]>`: the chips the device selects (the module
  attribute form of TTCore's device). Minimal form: `#ttcore.device<chipIds = [0]>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

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


_T = TypeVar("_T")
_CLOSING = {"<": ">", "[": "]", "{": "}", "(": ")"}


def _skip_value(parser: AttrParser) -> None:
    """Skip tokens up to the next `,` or closing bracket outside any bracket (a value not needed)."""
    expected: list[str] = []
    while True:
        # Token-level access: the skipped values use TTCore syntaxes (`8x8`, `<f32>`, maps) not modelled here.
        token = parser._current_token
        if token.kind == MLIRTokenKind.EOF:
            parser.raise_error("unterminated description")
        if not expected and (token.text == "," or token.text in _CLOSING.values()):
            return
        if token.text in _CLOSING:
            expected.append(_CLOSING[token.text])
        elif token.text in _CLOSING.values() and token.text != expected.pop():
            parser.raise_error("unbalanced brackets in a description")
        parser._consume_token()


def _required_entry(
    parser: AttrParser, delimiter: AttrParser.Delimiter, name: str, parse: Callable[[], _T], owner: str
) -> _T:
    """The `name = value` entry of a bracketed entry list, parsed; every other entry is skipped."""
    at = parser.pos
    found: list[_T] = []

    def entry() -> None:
        key = parser.parse_identifier(context_msg=" as a description entry name")
        parser.parse_punctuation("=")
        if key == name:
            found.append(parse())
        else:
            _skip_value(parser)

    parser.parse_comma_separated_list(delimiter, entry)
    if not found:
        parser.raise_error(f"{owner} must give its {name}", at, parser.pos)
    return found[-1]


def _chip_arch(parser: AttrParser) -> str:
    """A chip description's `arch = <name>`."""
    (arch,) = _required_entry(
        parser,
        parser.Delimiter.BRACES,
        "arch",
        lambda: ArchAttr.parse_parameters(parser),
        "a chip description",
    )
    return arch.data


@irdl_attr_definition
class SystemDescAttr(ParametrizedAttribute):
    """`#ttcore.system_desc<...>`, kept as the architecture of each chip id (module docstring)."""

    name = "ttcore.system_desc"

    chip_archs: ArrayAttr[StringAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[ArrayAttr[StringAttr]]:
        parser.parse_punctuation("<")
        _skip_value(parser)
        parser.parse_punctuation(",")
        descs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _chip_arch(parser))
        parser.parse_punctuation(",")
        indices_at = parser.pos
        indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        if any(not 0 <= index < len(descs) for index in indices):
            message = f"chip desc indices must name one of the {len(descs)} chip descriptions"
            parser.raise_error(message, indices_at, parser.pos)
        while parser.parse_optional_punctuation(",") is not None:
            _skip_value(parser)
        parser.parse_punctuation(">")
        return (ArrayAttr(StringAttr(descs[index]) for index in indices),)

    def print_parameters(self, printer: Printer) -> None:
        descs = ", ".join(f"{{arch = <{arch.data}>}}" for arch in self.chip_archs.data)
        indices = ", ".join(str(index) for index in range(len(self.chip_archs.data)))
        printer.print_string(f"<[], [{descs}], [{indices}]>")


@irdl_attr_definition
class DeviceAttr(ParametrizedAttribute):
    """`#ttcore.device<..., chipIds = [...]>`, kept as the chip ids it selects (module docstring)."""

    name = "ttcore.device"

    chip_ids: ArrayAttr[IntAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[ArrayAttr[IntAttr]]:
        def chip_ids() -> list[int]:
            return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)

        ids = _required_entry(parser, parser.Delimiter.ANGLE, "chipIds", chip_ids, "a #ttcore.device")
        return (ArrayAttr(IntAttr(chip) for chip in ids),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<chipIds = [{', '.join(str(chip.data) for chip in self.chip_ids.data)}]>")


TTCore = Dialect("ttcore", [], [TileType, ArchAttr, SystemDescAttr, DeviceAttr])
