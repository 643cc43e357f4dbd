"""c0 per element type: the elements in one 32-byte C0 line (nz-layout.md section 2)."""

from __future__ import annotations

from planner.layout import diagnostics as nz
from planner.targets.ascend import ASCEND_DTYPES, C0_LINE_BITS, AscendDtype

_MIN_NZ_BITS = 8


def c0_of(dtype_name: str, site: nz.Site) -> int:
    """`256 / bits(T)`; sub-byte and packed-FP4 types are refused before a width that does not divide."""
    dtype: AscendDtype = ASCEND_DTYPES[dtype_name]
    if dtype.bits < _MIN_NZ_BITS or not dtype.nz_capable:
        raise nz.refusal(
            nz.SUB_BYTE_DTYPE,
            f"NZ layout does not support the sub-byte dtype {dtype.name} ({dtype.bits}-bit elements or a "
            "packed FP4 x2 carrier).",
            site,
        )
    if C0_LINE_BITS % dtype.bits:
        raise nz.refusal(
            nz.DTYPE_NOT_DIVIDING_C0,
            f"NZ layout dtype {dtype.name} has {dtype.bits}-bit elements, which does not evenly divide the "
            "32-byte C0 line.",
            site,
        )
    return C0_LINE_BITS // dtype.bits
