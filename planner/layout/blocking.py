"""The blocked rank-5 form of an NZ shape, its strides, and the leading-axis fold (sections 3 and 9).

`shape = [B, C/c0, R/16, 16, c0]` with row-major strides `[C*R, R*c0, 16*c0, c0, 1]`: once the
shape is blocked, NZ is an ordinary member of the row-major family, so strides are derived here
and nowhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from planner.errors import INVALID, RequestError
from planner.layout import diagnostics as nz
from planner.proofs.expr import BinOp, Const, Expr, format_expr
from planner.targets.ascend import FRACTAL_ROWS

ROW_AXIS = -2
COL_AXIS = -1
BLOCKED_RANK = 5


@dataclass(frozen=True, slots=True)
class NzTensor:
    """A logical NZ tensor and its blocked description; rows and cols are static by construction."""

    name: str
    dtype: str
    c0: int
    logical: tuple[Expr, ...]
    blocked: tuple[Expr, ...]

    @property
    def rank(self) -> int:
        return len(self.logical)

    @property
    def rows(self) -> int:
        return _static(self.logical[ROW_AXIS])

    @property
    def cols(self) -> int:
        return _static(self.logical[COL_AXIS])

    @property
    def strides(self) -> tuple[int, ...]:
        return blocked_strides(self.blocked)


def _static(extent: Expr) -> int:
    assert isinstance(extent, Const), "trailing NZ extents are checked static when blocking"
    return extent.value


def blocked_strides(blocked: Sequence[Expr]) -> tuple[int, ...]:
    """Row-major strides over a blocked shape (section 3); the batch extent never enters them."""
    inner = [_static(extent) for extent in blocked[1:]]
    return tuple(prod(inner[axis:]) for axis in range(len(inner) + 1))


def block_shape(
    shape: Sequence[Expr], c0: int, site: nz.Site, what: str = "the tensor shape"
) -> tuple[Expr, ...]:
    """Block `[..lead.., R, C]` to `[fold(lead), C/c0, R/16, 16, c0]` in the check order of section 14."""
    if len(shape) < 2:
        raise nz.refusal(
            nz.RANK_BELOW_2,
            f"NZ layout requires a tensor of rank >= 2, got rank {len(shape)} ({what}).",
            site,
        )
    rows, cols = (_static_trailing(shape[axis], axis, site, what) for axis in (ROW_AXIS, COL_AXIS))
    if rows <= 0 or rows % FRACTAL_ROWS:
        raise nz.refusal(
            nz.ROWS_NOT_MULTIPLE_OF_16,
            f"NZ layout requires shape[-2] to be a positive multiple of 16, got {rows} ({what}).",
            site,
            axis=ROW_AXIS,
        )
    if cols <= 0 or cols % c0:
        raise nz.refusal(
            nz.COLS_NOT_MULTIPLE_OF_C0,
            f"NZ layout requires shape[-1] to be a positive multiple of c0 = {c0}, got {cols} ({what}).",
            site,
            axis=COL_AXIS,
        )
    batch = fold_leading_extents(shape[:-2], site, what)
    return (batch, Const(cols // c0), Const(rows // FRACTAL_ROWS), Const(FRACTAL_ROWS), Const(c0))


def _static_trailing(extent: Expr, axis: int, site: nz.Site, what: str) -> int:
    if not isinstance(extent, Const):
        raise nz.refusal(
            nz.DYNAMIC_TRAILING_EXTENT,
            f"NZ layout requires a static shape[{axis}], got a dynamic extent {format_expr(extent)} "
            f"({what}).",
            site,
            axis=axis,
        )
    return extent.value


def fold_leading_extents(leading: Sequence[Expr], site: nz.Site, what: str) -> Expr:
    """The one batch slot: 1 at rank 2, the extent itself at rank 3, the static product above (section 9)."""
    if not leading:
        return Const(1)
    negative = [extent.value for extent in leading if isinstance(extent, Const) and extent.value < 0]
    if negative:
        raise RequestError(
            INVALID, f"{what} has a negative leading extent {negative[0]} (tensor {site.tensor!r})"
        )
    if len(leading) == 1:
        return leading[0]
    dynamic = [axis for axis, extent in enumerate(leading) if not isinstance(extent, Const)]
    if dynamic:
        raise nz.refusal(
            nz.DYNAMIC_LEADING_EXTENT,
            f"NZ layout requires every leading extent to be static to fold them into the batch, but "
            f"axis {dynamic[0]} of {what} is {format_expr(leading[dynamic[0]])}.",
            site,
            axis=dynamic[0],
        )
    return Const(prod(_static(extent) for extent in leading))


def fold_leading_offsets(offsets: Sequence[Expr], parent_leading: Sequence[Expr]) -> Expr:
    """`FoldNzLeadingOffsets`: `((o0*E1 + o1)*E2 + o2)...` over the parent's extents; exact for any value."""
    if not offsets:
        return Const(0)
    batch = offsets[0]
    for offset, extent in zip(offsets[1:], parent_leading[1:], strict=True):
        batch = add_exact(_mul(batch, extent), offset)
    return batch


def _mul(left: Expr, right: Expr) -> Expr:
    if isinstance(left, Const) and isinstance(right, Const):
        return Const(left.value * right.value)
    return Const(0) if left == Const(0) else BinOp("*", left, right)


def add_exact(left: Expr, right: Expr) -> Expr:
    """`left + right`, folded only where folding is exact (constants, or adding 0)."""
    if isinstance(left, Const) and isinstance(right, Const):
        return Const(left.value + right.value)
    if left == Const(0):
        return right
    return left if right == Const(0) else BinOp("+", left, right)
