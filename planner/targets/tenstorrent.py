"""Tenstorrent compute-kernel capability relations (docs/design/kernel-config.md section 4).

Each supported target is one `DescriptorTarget` built from its own `TargetFacts` row: the
registry `TARGETS` is the only architecture switch (4.1), and no query dispatches on the
architecture. All three rows describe the `ttnn.ComputeConfigDescriptor` configuration API;
a different configuration API needs its own query implementation, not a new row here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

# Stable diagnostic codes of target construction (docs/design/kernel-config.md section 8, "module" rows).
TARGET_ARCH_INVALID = "kcfg.target_arch_invalid"
TARGET_DEVICE_MISMATCH = "kcfg.target_device_mismatch"
TARGET_DEVICE_CHIP_INVALID = "kcfg.target_device_chip_invalid"
TARGET_MIXED_ARCH = "kcfg.target_mixed_arch"
TARGET_QUASAR_UNSUPPORTED = "kcfg.target_quasar_unsupported"
TARGET_NOT_IMPLEMENTED = "kcfg.target_not_implemented"


class Primitive(StrEnum):
    """Hardware primitive of a tile op (section 2): what target relations are keyed on."""

    ELEMENTWISE_BINARY = "ElementwiseBinary"
    ELEMENTWISE_UNARY = "ElementwiseUnary"
    COPY = "Copy"
    DST_INDEX = "DstIndex"
    STORE = "Store"
    BROADCAST_COLUMN = "BroadcastColumn"
    BROADCAST_ROW = "BroadcastRow"
    BROADCAST_SCALAR = "BroadcastScalar"
    REDUCE = "Reduce"
    TRANSPOSE = "Transpose"
    FILL = "Fill"
    MATMUL = "Matmul"


BROADCASTS = frozenset({Primitive.BROADCAST_COLUMN, Primitive.BROADCAST_ROW, Primitive.BROADCAST_SCALAR})


class Route(StrEnum):
    """Physical operand route of a tile op operand (section 2)."""

    DFB = "DataflowBuffer"
    DST = "Dst"
    NONE = "None"


class UnpackMode(StrEnum):
    DEFAULT = "default"
    UNPACK_TO_DEST = "unpack_to_dest"


class FullFp32Kind(StrEnum):
    REDUCE_ROW = "ReduceRow"
    REDUCE_COLUMN = "ReduceColumn"
    REDUCE_SCALAR = "ReduceScalar"
    MATMUL = "Matmul"


WIDTHS: tuple[int, ...] = (16, 32)  # ascending: the order candidates are visited in (6.4)
MATH_FIDELITIES: tuple[str, ...] = ("LoFi", "HiFi2", "HiFi3", "HiFi4")  # ComputeConfigDescriptor's


class MathFormat(StrEnum):
    """The format an f32 value reaches the math in, or DST keeps it at (4.7)."""

    FP32 = "fp32"
    TF32 = "tf32"
    BF16 = "bf16"


DOUBLE_BUFFERED, FULL = "double_buffered", "full"
SYNC_MODES: tuple[str, ...] = (DOUBLE_BUFFERED, FULL)  # the preferred mode first (6.8)

# DST tiles (32x32) one kernel may hold at once, per (width, sync) (docs/design/kernel-config.md 4.6):
# 16 at 16 bits with full sync; double buffering gives math half of them; 32-bit elements halve both.
DST_TILES: Mapping[tuple[int, str], int] = {
    (16, FULL): 16,
    (16, DOUBLE_BUFFERED): 8,
    (32, FULL): 8,
    (32, DOUBLE_BUFFERED): 4,
}


@dataclass(frozen=True, slots=True)
class TtDtype:
    """A TTCore tile element type as the relations see it."""

    name: str
    bits: int
    is_float: bool

    @property
    def is_32bit(self) -> bool:
        return self.bits == 32

    @property
    def is_f32(self) -> bool:
        return self.name == "f32"


TT_DTYPES: dict[str, TtDtype] = {
    d.name: d
    for d in (
        TtDtype("f32", 32, True),
        TtDtype("bf16", 16, True),
        TtDtype("f16", 16, True),
        TtDtype("bfp8_b", 8, True),
        TtDtype("bfp4_b", 4, True),
        TtDtype("bfp2_b", 2, True),
        TtDtype("si32", 32, False),
        TtDtype("u32", 32, False),
        TtDtype("u16", 16, False),
        TtDtype("u8", 8, False),
    )
}


@dataclass(frozen=True, slots=True)
class FullFp32Support:
    """Whether a full-fp32 accumulation kind is available, and the fallback warning if not (4.5)."""

    supported: bool
    fallback_warning: str | None = None


_SUPPORTED = FullFp32Support(True)
_UNSUPPORTED_SILENT = FullFp32Support(False)
BLACKHOLE_ROW_REDUCE_WARNING = (
    "full-fp32 row reduce is unavailable on Blackhole (tt-metal #47311); using non-full-fp32 reduce lowering"
)
WORMHOLE_HIFI4_FP32_WARNING = (
    "HiFi4 math fidelity with fp32 destination accumulation corrupts occasional FPU multiply "
    "results by a power of two on Wormhole (tt-metal#52327, hardware issue tt-metal#38306); "
    "HiFi3 is the recommended mitigation"
)


@dataclass(frozen=True, slots=True)
class TargetFacts:
    """One target's data row: every architecture-specific answer lives here."""

    name: str
    dfb_capacity: int
    capacity_description: str
    bcast_non32_forbids_dst32: bool
    full_fp32: Mapping[FullFp32Kind, FullFp32Support] = field(default_factory=dict)
    dst_tiles: Mapping[tuple[int, str], int] = field(default_factory=lambda: DST_TILES)
    hifi4_fp32_fault: str | None = None  # the warning for HiFi4 FPU multiplies at 32 bits, if any


NO_TARGET_FACTS = TargetFacts(
    name="none",
    dfb_capacity=32,
    capacity_description="the conservative 32-DFB-index capacity used when target metadata is absent",
    bcast_non32_forbids_dst32=False,
    full_fp32=dict.fromkeys(FullFp32Kind, _SUPPORTED),
)
WORMHOLE_B0_FACTS = TargetFacts(
    name="wormhole_b0",
    dfb_capacity=32,
    capacity_description="the 32-DFB-index Wormhole B0 target capacity",
    bcast_non32_forbids_dst32=True,
    full_fp32={
        FullFp32Kind.REDUCE_ROW: _UNSUPPORTED_SILENT,
        FullFp32Kind.REDUCE_COLUMN: _UNSUPPORTED_SILENT,
        FullFp32Kind.REDUCE_SCALAR: _UNSUPPORTED_SILENT,
        FullFp32Kind.MATMUL: _SUPPORTED,
    },
    hifi4_fp32_fault=WORMHOLE_HIFI4_FP32_WARNING,
)
BLACKHOLE_FACTS = TargetFacts(
    name="blackhole",
    dfb_capacity=64,
    capacity_description="the 64-DFB-index Blackhole target capacity",
    bcast_non32_forbids_dst32=True,
    full_fp32={
        FullFp32Kind.REDUCE_ROW: FullFp32Support(False, BLACKHOLE_ROW_REDUCE_WARNING),
        FullFp32Kind.REDUCE_COLUMN: _SUPPORTED,
        FullFp32Kind.REDUCE_SCALAR: _SUPPORTED,
        FullFp32Kind.MATMUL: _SUPPORTED,
    },
)


class KernelTargetEnvironment(Protocol):
    """The query interface the resolver sees (4.2-4.5); it never sees op classes."""

    @property
    def name(self) -> str: ...

    @property
    def dfb_capacity(self) -> int: ...

    @property
    def capacity_description(self) -> str: ...

    def supports_destination_width(self, primitive: Primitive, elem: TtDtype, width: int) -> bool: ...

    def supported_dfb_configurations(
        self, primitive: Primitive, route: Route, elem: TtDtype
    ) -> frozenset[tuple[int, UnpackMode]]: ...

    def full_fp32_support(self, kind: FullFp32Kind) -> FullFp32Support: ...

    @property
    def hifi4_fp32_fault(self) -> str | None: ...

    def dst_slots(self, width: int, sync: str) -> int: ...

    def f32_format(self, reads_dfb: bool, mode: UnpackMode, width: int) -> MathFormat: ...


_F32_UNPACK_PAIRS = frozenset({(32, UnpackMode.UNPACK_TO_DEST)})
_DEFAULT_PAIRS = frozenset({(16, UnpackMode.DEFAULT), (32, UnpackMode.DEFAULT)})


@dataclass(frozen=True, slots=True)
class DescriptorTarget:
    """`ttnn.ComputeConfigDescriptor` relations answered from one target's facts row."""

    facts: TargetFacts

    @property
    def name(self) -> str:
        return self.facts.name

    @property
    def dfb_capacity(self) -> int:
        return self.facts.dfb_capacity

    @property
    def capacity_description(self) -> str:
        return self.facts.capacity_description

    def supports_destination_width(self, primitive: Primitive, elem: TtDtype, width: int) -> bool:
        """4.3: 16-bit iff the element is not 32-bit; 32-bit unless the broadcast entry forbids it."""
        if width == 16:
            return not elem.is_32bit
        if elem.is_32bit:
            return True
        return not (self.facts.bcast_non32_forbids_dst32 and primitive in BROADCASTS)

    def supported_dfb_configurations(
        self, primitive: Primitive, route: Route, elem: TtDtype
    ) -> frozenset[tuple[int, UnpackMode]]:
        """4.4: f32 through DST (or a copy) unpacks to DST at 32 bits; everything else is Default."""
        if elem.is_f32 and (route is Route.DST or primitive is Primitive.COPY):
            return _F32_UNPACK_PAIRS
        return _DEFAULT_PAIRS

    def full_fp32_support(self, kind: FullFp32Kind) -> FullFp32Support:
        return self.facts.full_fp32[kind]

    @property
    def hifi4_fp32_fault(self) -> str | None:
        return self.facts.hifi4_fp32_fault

    def dst_slots(self, width: int, sync: str) -> int:
        """4.6: the DST slots (tiles) a kernel has at `width` under `sync`."""
        return self.facts.dst_tiles[(width, sync)]

    def f32_format(self, reads_dfb: bool, mode: UnpackMode, width: int) -> MathFormat:
        """4.7: an f32 tile read from a DFB in the default mode goes through the unpacker into
        SrcA/SrcB (TF32 with 32-bit DST, bfloat16 with 16-bit); one unpacked to DST, or already
        in DST, is kept at the DST width (fp32 at 32 bits, bfloat16 at 16)."""
        if reads_dfb and mode is UnpackMode.DEFAULT:
            return MathFormat.TF32 if width == 32 else MathFormat.BF16
        return MathFormat.FP32 if width == 32 else MathFormat.BF16


NO_TARGET = DescriptorTarget(NO_TARGET_FACTS)
TARGETS: dict[str, DescriptorTarget] = {
    "wormhole_b0": DescriptorTarget(WORMHOLE_B0_FACTS),
    "blackhole": DescriptorTarget(BLACKHOLE_FACTS),
}
KNOWN_TARGETS: tuple[str, ...] = (*TARGETS, NO_TARGET.name)
"""Every environment a module's attributes can select: each implemented target, and `none` (no
target attributes)."""

QUASAR_MESSAGE = (
    "Quasar compute kernels require the Gen2 configuration and launch APIs, "
    "which are not supported by the current TT-Lang runtime"
)
_ARCH_SPELLING = re.compile(r"[a-z][a-z0-9_]*")


class TargetError(Exception):
    """A module-level target refusal (4.1) with its stable `kcfg.*` code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _implemented(arch: str) -> DescriptorTarget:
    """The registry lookup: Quasar and every unlisted architecture are refused (4.1)."""
    if not _ARCH_SPELLING.fullmatch(arch):
        raise TargetError(TARGET_ARCH_INVALID, "ttl.target_arch must be a #ttcore.arch attribute")
    if arch == "quasar":
        raise TargetError(TARGET_QUASAR_UNSUPPORTED, QUASAR_MESSAGE)
    if arch not in TARGETS:
        raise TargetError(
            TARGET_NOT_IMPLEMENTED,
            f"compute-kernel configuration is not implemented for target architecture '{arch}'",
        )
    return TARGETS[arch]


def device_arch(chip_archs: Sequence[str], device_chip_ids: Sequence[int] | None) -> str | None:
    """The architecture of the chips the device selects (default device: chip 0), or None."""
    selected = [0] if device_chip_ids is None else list(device_chip_ids)
    if not chip_archs and device_chip_ids is None:
        return None
    for chip in selected:
        if not 0 <= chip < len(chip_archs):
            raise TargetError(
                TARGET_DEVICE_CHIP_INVALID,
                f"default device selects chip {chip} outside the system description",
            )
    archs = sorted({chip_archs[chip] for chip in selected})
    if len(archs) > 1:
        raise TargetError(
            TARGET_MIXED_ARCH,
            f"default device selects chips of different architectures: {', '.join(archs)}",
        )
    return archs[0] if archs else None


def build_target(
    arch: str | None, chip_archs: Sequence[str] = (), device_chip_ids: Sequence[int] | None = None
) -> KernelTargetEnvironment:
    """4.1: agree `ttl.target_arch` with the device, then look the architecture up once."""
    from_device = device_arch(chip_archs, device_chip_ids)
    if arch is not None and from_device is not None and arch != from_device:
        raise TargetError(TARGET_DEVICE_MISMATCH, "ttl.target_arch does not match the selected device arch")
    chosen = arch if arch is not None else from_device
    return NO_TARGET if chosen is None else _implemented(chosen)
