"""Computed constants fit the index (docs/design/nz-layout.md 7.3, 13: `nz.index_overflow`).

Blocked strides, folded batch extents, folded leading offsets and N-split chunk offsets are
computed by the planner, not written by the program; generated code holds each in an index
value, so one outside the signed index range would wrap into another address.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from planner.layout import diagnostics as nz
from planner.layout.blocking import NzTensor
from planner.layout.protocol import PlannedOp
from planner.proofs.expr import BinOp, Const, Expr, MinMaxCall, Neg, parse_expr


def constants_in(expr: Expr) -> Iterator[int]:
    """Every int literal in an expression."""
    if isinstance(expr, Const):
        yield expr.value
    elif isinstance(expr, Neg):
        yield from constants_in(expr.operand)
    elif isinstance(expr, BinOp | MinMaxCall):
        yield from constants_in(expr.left)
        yield from constants_in(expr.right)


def _first_outside(values: Iterable[Expr], index_bits: int) -> int | None:
    top = 1 << (index_bits - 1)
    for value in values:
        for constant in constants_in(value):
            if not -top <= constant < top:
                return constant
    return None


def _refusal(constant: int, what: str, index_bits: int, site: nz.Site) -> nz.LayoutRefusal:
    return nz.refusal(
        nz.INDEX_OVERFLOW,
        f"NZ layout computed {what} {constant}, outside the signed {index_bits}-bit index range.",
        site,
    )


def check_tensor_fits(tensor: NzTensor, index_bits: int) -> None:
    """The blocked shape and strides of a tensor (section 3) fit the index."""
    site = nz.Site(tensor=tensor.name)
    strides = [Const(stride) for stride in tensor.strides]
    for what, values in (("a blocked extent", list(tensor.blocked)), ("a blocked stride", strides)):
        outside = _first_outside(values, index_bits)
        if outside is not None:
            raise _refusal(outside, what, index_bits, site)


def check_op_fits(op: PlannedOp, tensor: str, index_bits: int) -> None:
    """The offsets, shapes and chunk offsets planned for one op fit the index."""
    site = nz.Site(tensor=tensor, op=op.id)
    chunks = [value for chunk in op.chunks or [] for value in (chunk.col_offset, *chunk.offsets)]
    fields = (
        ("a folded offset", op.offsets or []),
        ("a blocked window extent", [*(op.shapes or []), *(op.valid_shape or []), *(op.partition or [])]),
        ("a chunk offset", chunks),
    )
    for what, values in fields:
        outside = _first_outside(map(parse_expr, values), index_bits)
        if outside is not None:
            raise _refusal(outside, what, index_bits, site)
