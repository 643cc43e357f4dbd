"""Phase 1: block every NZ tensor type before any consumer is looked at (sections 2, 3 and 5).

Per type (section 14): distributed, explicit stride, type valid_shape, dtype (sub-byte, then
non-dividing), then the shape rules of `block_shape`.
"""

from __future__ import annotations

from planner.layout import diagnostics as nz
from planner.layout.blocking import NzTensor, block_shape
from planner.layout.context import exprs
from planner.layout.protocol import TensorSpec
from planner.targets.ascend import ASCEND_DTYPES, C0_LINE_BITS, AscendDtype

_MIN_NZ_BITS = 8


def c0_of(dtype_name: str, site: nz.Site) -> int:
    """Elements per 32-byte C0 line, `256 / bits(T)` (section 2); sub-byte and packed-FP4 types are
    refused before a width that does not divide."""
    dtype: AscendDtype = ASCEND_DTYPES[dtype_name]
    if dtype.bits < _MIN_NZ_BITS or not dtype.nz_capable:
        what = (
            f"{dtype.bits}-bit elements"
            if dtype.bits < _MIN_NZ_BITS
            else "bytes that are not NZ elements: a packed FP4 x2 carrier or an MX scale"
        )
        raise nz.refusal(
            nz.SUB_BYTE_DTYPE, f"NZ layout does not support the sub-byte dtype {dtype.name} ({what}).", site
        )
    if C0_LINE_BITS % dtype.bits:
        raise nz.refusal(
            nz.DTYPE_NOT_DIVIDING_C0,
            f"NZ layout dtype {dtype.name} has {dtype.bits}-bit elements, which does not evenly divide the "
            "32-byte C0 line.",
            site,
        )
    return C0_LINE_BITS // dtype.bits


def block_tensor_type(spec: TensorSpec) -> NzTensor:
    """The blocked description of one logical NZ tensor type, or the refusal naming its first violation."""
    site = nz.Site(tensor=spec.name)
    if spec.distributed:
        raise nz.refusal(
            nz.DISTRIBUTED_TENSOR,
            "NZ layout is not supported on a distributed tensor yet: remote_load has no NZ blocking.",
            site,
        )
    if spec.stride:
        raise nz.refusal(nz.EXPLICIT_STRIDE, "NZ layout does not support an explicit stride yet.", site)
    if spec.valid_shape:
        raise nz.refusal(
            nz.PARTIAL_VALID_SHAPE_ON_TYPE, "NZ layout does not support a partial valid_shape yet.", site
        )
    c0 = c0_of(spec.dtype, site)
    logical = exprs(spec.shape)
    return NzTensor(spec.name, spec.dtype, c0, logical, block_shape(logical, c0, site))
