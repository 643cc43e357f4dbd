"""Phase 1: block every NZ tensor type before any consumer is looked at (sections 3 and 5).

Per type (section 14): distributed, explicit stride, type valid_shape, dtype (sub-byte, then
non-dividing), then the shape rules of `block_shape`.
"""

from __future__ import annotations

from planner.layout import diagnostics as nz
from planner.layout.blocking import NzTensor, block_shape
from planner.layout.context import exprs
from planner.layout.dtypes import c0_of
from planner.layout.protocol import TensorSpec


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
