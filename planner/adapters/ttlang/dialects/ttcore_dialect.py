"""TTCore types, attributes and ops a TT-Lang compute kernel mentions (docs/design/kernel-config.md 4.1, 10).

`!ttcore.tile<32x32, f32>` is a tile of a TTCore data type (not a builtin type: `u32` is
TTCore's spelling); `#ttcore.arch<blackhole>` names the target architecture. The
architecture keeps any identifier: recognizing a name is the resolver's job (an unknown one
is "not implemented", not a syntax error).

The system and device descriptions keep their body exactly as written (it prints back
unchanged) plus what target construction (section 4.1) needs, read from the body:

- `#ttcore.system_desc<[cpu descs], [chip descs], [chip desc indices], ...>`: each chip
  description is a dictionary holding `arch = <name>`; chip `i` is described by
  `chip_descs[chip_desc_indices[i]]`. Minimal form:
  `#ttcore.system_desc<[], [{arch = <wormhole_b0>}], [0]>`.
- `#ttcore.device<..., chipIds = [0, 1]>`: the chips the device selects (the module
  attribute form of TTCore's device). Minimal form: `#ttcore.device<chipIds = [0]>`.

`ttcore.device @name = <...>` and `ttcore.device_module {...}` are TTCore ops in custom
syntax that TT-Lang modules carry; they are read only to be printed back.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator

from planner.adapters.ttlang.base.balanced import (
    DescriptionError,
    entry_value,
    parse_balanced,
    top_level_items,
)
from planner.targets.tenstorrent import TT_DTYPES

TTCORE_DATA_TYPES = (
    "f32", "f16", "bf16", "bfp_f8", "bfp_bf8", "bfp_f4", "bfp_bf4", "bfp_f2", "bfp_bf2", "u32", "u16", "u8",
    "si32",
)  # fmt: skip
"""TTCore's `DataType` enum as a tile type spells it (tt-mlir `TTCoreOpsEnums.td`)."""

DATA_TYPES = tuple(sorted({*TTCORE_DATA_TYPES, *TT_DTYPES}))
"""Every data type a tile reads with: TTCore's, and the block-float names the kernel-config relations
know (`bfp8_b`, ...). A tile of a type the relations do not know reads and prints back; a kernel using
it is refused by the resolver (`request.unknown_dtype`), never planned."""

RELATION_DATA_TYPES = {"bfp_bf8": "bfp8_b", "bfp_bf4": "bfp4_b", "bfp_bf2": "bfp2_b"}
"""TTCore's block-float spellings with a bfloat16 exponent, under the names the kernel-config relations
know them by: tt-mlir lowers `BFP_BFloat8` / `BFP_BFloat4` to TT-Metal's `BFLOAT8_B` / `BFLOAT4_B`. The
`bfp_f*` formats (a float16 exponent) have no relation entry and stay unknown."""


def relation_data_type(data_type: str) -> str:
    """The name the kernel-config relations give a tile's data type; the type's own name otherwise."""
    return RELATION_DATA_TYPES.get(data_type, data_type)


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


def _chip_arch(desc: str) -> str:
    """A chip description's `arch = <name>`."""
    arch = entry_value(desc, "{", "arch", "a chip description")
    name = arch.removeprefix("<").removesuffix(">").strip()
    if not arch.startswith("<") or not arch.endswith(">") or not name.isidentifier():
        raise DescriptionError(f"a chip description's arch must be <name>, got {arch}")
    return name


def _int_list(text: str, what: str) -> list[int]:
    if not text.startswith("["):
        raise DescriptionError(f"{what} must be a list of integers, got {text}")
    items = top_level_items(text)
    if not all(item.isdigit() for item in items):
        raise DescriptionError(f"{what} must be a list of integers, got {text}")
    return [int(item) for item in items]


def _chip_archs(body: str) -> list[str]:
    """The architecture of each chip id a system description lists."""
    parts = top_level_items(body)
    if len(parts) < 3:
        raise DescriptionError("a system description gives cpu descs, chip descs and chip desc indices")
    if not parts[1].startswith("["):
        raise DescriptionError(f"chip descs must be a list, got {parts[1]}")
    descs = [_chip_arch(desc) for desc in top_level_items(parts[1])]
    indices = _int_list(parts[2], "chip desc indices")
    if any(index >= len(descs) for index in indices):
        raise DescriptionError(f"chip desc indices must name one of the {len(descs)} chip descriptions")
    return [descs[index] for index in indices]


@irdl_attr_definition
class SystemDescAttr(ParametrizedAttribute):
    """`#ttcore.system_desc<...>`: its body as written and the architecture of each chip id."""

    name = "ttcore.system_desc"

    body: StringAttr
    chip_archs: ArrayAttr[StringAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr, ArrayAttr[StringAttr]]:
        body, archs = parse_balanced(parser, _chip_archs)
        return StringAttr(body), ArrayAttr(StringAttr(arch) for arch in archs)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.body.data)


def _chip_ids(body: str) -> list[int]:
    return _int_list(entry_value(body, "<", "chipIds", "a #ttcore.device"), "chipIds")


@irdl_attr_definition
class DeviceAttr(ParametrizedAttribute):
    """`#ttcore.device<..., chipIds = [...]>`: its body as written and the chip ids it selects."""

    name = "ttcore.device"

    body: StringAttr
    chip_ids: ArrayAttr[IntAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr, ArrayAttr[IntAttr]]:
        body, ids = parse_balanced(parser, _chip_ids)
        return StringAttr(body), ArrayAttr(IntAttr(chip) for chip in ids)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.body.data)


@irdl_op_definition
class DeviceOp(IRDLOperation):
    """`ttcore.device @default_device = <workerGrid = ..., ...>`: a named device, carried unchanged;
    its `chipIds` are checked against the system description like the attribute's (section 4.1)."""

    name = "ttcore.device"

    sym_name = prop_def(StringAttr)
    body = prop_def(StringAttr)

    @classmethod
    def parse(cls, parser: Parser) -> DeviceOp:
        sym_name = parser.parse_symbol_name()
        parser.parse_punctuation("=")
        body, _ = parse_balanced(parser, lambda text: None)
        attributes = parser.parse_optional_attr_dict()
        return cls.create(properties={"sym_name": sym_name, "body": StringAttr(body)}, attributes=attributes)

    def chip_ids(self) -> list[int] | None:
        """The `chipIds` the device selects, when its body gives them."""
        try:
            return _chip_ids(self.body.data)
        except DescriptionError:
            return None

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(f" = {self.body.data}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class DeviceModuleOp(IRDLOperation):
    """`ttcore.device_module { builtin.module ... }`: the device part of a module."""

    name = "ttcore.device_module"

    body = region_def()
    traits = traits_def(NoTerminator())
    assembly_format = "attr-dict-with-keyword $body"


TTCore = Dialect("ttcore", [DeviceOp, DeviceModuleOp], [TileType, ArchAttr, SystemDescAttr, DeviceAttr])
