"""Ascend A2/A3 and A5 facts used by NZ layout planning (docs/design/nz-layout.md sections 2, 10, 11, 12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

AscendTargetName: TypeAlias = Literal["a2a3", "a5"]

FRACTAL_ROWS = 16
C0_LINE_BITS = 256  # one C0 line is 32 bytes
GM_GAP_MAX_BLOCKS = 65535  # TLoadInstrGm2L1's uint16_t gmGap (pto-isa#317)
STORE_MAX_ROWS = 65535
STORE_MAX_COLS = 4095
STORE_TILE_ALIGN = 16


@dataclass(frozen=True, slots=True)
class AscendTarget:
    """One Ascend backend: what bounds proofs and what the NZ accumulator store may emit."""

    name: AscendTargetName
    description: str
    max_block_count: int  # the Ascend C launch limit on blockDim: bounds block_idx / block_num
    l0c_bytes: int
    supports_nz_acc_store: bool


ASCEND_TARGETS: dict[str, AscendTarget] = {
    "a2a3": AscendTarget("a2a3", "Ascend A2/A3 (Ascend910B family)", 65535, 128 * 1024, True),
    "a5": AscendTarget("a5", "Ascend A5", 65535, 256 * 1024, False),
}


@dataclass(frozen=True, slots=True)
class AscendDtype:
    """An element type as NZ blocking sees it: its bit width and whether NZ may execute it."""

    name: str
    bits: int
    nz_capable: bool = True  # packed FP4 x2 carriers are byte-sized but not NZ-executable
    is_float: bool = False


def _dtypes(*entries: AscendDtype) -> dict[str, AscendDtype]:
    return {entry.name: entry for entry in entries}


ASCEND_DTYPES: dict[str, AscendDtype] = _dtypes(
    AscendDtype("BOOL", 1),
    AscendDtype("INT4", 4),
    AscendDtype("UINT4", 4),
    AscendDtype("FP4", 4, is_float=True),
    AscendDtype("HF4", 4, is_float=True),
    AscendDtype("FP4X2_E2M1", 8, nz_capable=False, is_float=True),
    AscendDtype("FP4X2_E1M2", 8, nz_capable=False, is_float=True),
    AscendDtype("INT8", 8),
    AscendDtype("UINT8", 8),
    AscendDtype("FP8", 8, is_float=True),
    AscendDtype("FP8E4M3", 8, is_float=True),
    AscendDtype("FP8E4M3FN", 8, is_float=True),  # pypto's pl.FP8E4M3FN: e4m3 without infinities
    AscendDtype("FP8E8M0", 8, nz_capable=False, is_float=True),  # MX scales: their layouts are MX_*, never NZ
    AscendDtype("FP8E5M2", 8, is_float=True),
    AscendDtype("HF8", 8, is_float=True),
    AscendDtype("INT16", 16),
    AscendDtype("UINT16", 16),
    AscendDtype("FP16", 16, is_float=True),
    AscendDtype("BF16", 16, is_float=True),
    AscendDtype("INT24", 24),
    AscendDtype("INT32", 32),
    AscendDtype("UINT32", 32),
    AscendDtype("FP32", 32, is_float=True),
    AscendDtype("INT64", 64),
    AscendDtype("UINT64", 64),
    AscendDtype("INDEX", 64),
)
