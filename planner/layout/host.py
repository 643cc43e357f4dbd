"""Host packing: a logical array in the NZ byte order a planned descriptor reads, and back.

`pack` turns `[..lead.., R, C]` into the blocked array `[B, C/c0, R/16, 16, c0]`
(docs/design/nz-layout.md sections 3, 4 and 9): leading axes fold row-major into the batch, column
blocks lie outside row fractals. Its C-order bytes are what the device expects in GM for a
`pl.NZ` tensor, so a weight is packed once on the host instead of converted on every load.

The shape rules are the planner's own (`planner.layout.blocking`): a shape the planner
would refuse (rows not a multiple of 16, cols not a multiple of c0, sub-byte dtypes) is
refused here with the same `nz.*` code instead of being padded, because no planned
descriptor addresses padded bytes.

Only element widths matter, never values: numpy has no BF16, so BF16 travels as 16-bit
words (any numeric numpy dtype of the declared width is accepted and kept). The copy moves
whole 32-byte C0 lines, in row bands small enough to stay in cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from planner.errors import INVALID, UNKNOWN_DTYPE, RequestError
from planner.layout import diagnostics as nz
from planner.layout.blocking import block_shape
from planner.layout.tensor_types import c0_of
from planner.proofs.expr import Const, Expr
from planner.targets.ascend import ASCEND_DTYPES, C0_LINE_BITS

_LINE = np.dtype((np.void, C0_LINE_BITS // 8))  # one C0 line: the unit NZ order moves
_BAND_BYTES = 256 * 1024  # source bytes per copy step: a band that stays in the L2 cache
_WORD_KINDS = frozenset("biuf")


@dataclass(frozen=True, slots=True)
class NzGeometry:
    """A static logical NZ shape, its dtype and the blocked shape the planner gives it."""

    dtype: str
    logical: tuple[int, ...]
    blocked: tuple[int, int, int, int, int]

    @property
    def itemsize(self) -> int:
        return ASCEND_DTYPES[self.dtype].bits // 8

    @property
    def lines(self) -> tuple[int, int, int]:
        """`(B, R, C/c0)`: the logical array counted in C0 lines."""
        batch, col_blocks, row_fractals, fractal_rows, _ = self.blocked
        return batch, row_fractals * fractal_rows, col_blocks


def dtype_name(dtype: str) -> str:
    """The PyPTO dtype name (`INT8`, `pl.BF16`, `bf16` all name BF16); unknown names are typed errors."""
    name = dtype.removeprefix("pl.").upper()
    if name not in ASCEND_DTYPES:
        raise RequestError(
            UNKNOWN_DTYPE, f"unknown dtype {dtype!r}; expected one of {', '.join(sorted(ASCEND_DTYPES))}"
        )
    return name


def nz_geometry(logical_shape: Sequence[int], dtype: str, name: str = "array") -> NzGeometry:
    """Block a static shape by the planner's rules; a refusal becomes a typed error with its `nz.*` code."""
    element = dtype_name(dtype)
    site = nz.Site(tensor=name)
    try:
        c0 = c0_of(element, site)
        blocked = block_shape([Const(int(extent)) for extent in logical_shape], c0, site, f"{name}'s shape")
    except nz.LayoutRefusal as refusal:
        diagnostic = refusal.diagnostic
        raise RequestError(diagnostic.code, diagnostic.message, {"tensor": name}) from None
    batch, col_blocks, row_fractals, rows, line = (_constant(extent) for extent in blocked)
    return NzGeometry(
        element, tuple(int(e) for e in logical_shape), (batch, col_blocks, row_fractals, rows, line)
    )


def _constant(extent: Expr) -> int:
    assert isinstance(extent, Const), "a static shape blocks to constant extents"
    return extent.value


def _check_words(array: npt.NDArray[np.generic], geometry: NzGeometry, name: str) -> None:
    if array.dtype.kind not in _WORD_KINDS or array.dtype.itemsize != geometry.itemsize:
        raise RequestError(
            INVALID,
            f"{name} holds {array.dtype} elements, but {geometry.dtype} needs {geometry.itemsize}-byte "
            "integer or float words (numpy has no BF16: pass BF16 as 16-bit words, e.g. uint16)",
        )


def pack(array: npt.ArrayLike, dtype: str, *, name: str = "array") -> npt.NDArray[np.generic]:
    """The blocked `[B, C/c0, R/16, 16, c0]` array (C-contiguous) holding `array` in NZ byte order."""
    logical = np.asarray(array)
    geometry = nz_geometry(logical.shape, dtype, name)
    _check_words(logical, geometry, name)
    packed = np.empty(geometry.blocked, dtype=logical.dtype)
    batch, rows, col_blocks = geometry.lines
    lines = np.ascontiguousarray(logical).view(_LINE).reshape(batch, rows, col_blocks)
    _move_lines(lines, packed.view(_LINE).reshape(batch, col_blocks, rows), to_nz=True)
    return packed


def unpack(
    blocked: npt.ArrayLike, logical_shape: Sequence[int], dtype: str, *, name: str = "array"
) -> npt.NDArray[np.generic]:
    """The logical array of `logical_shape` whose NZ bytes `blocked` holds (the inverse of `pack`).

    `blocked` has the blocked shape, or is flat with the same element count (bytes as read from GM).
    """
    packed = np.asarray(blocked)
    geometry = nz_geometry(logical_shape, dtype, name)
    _check_words(packed, geometry, name)
    if packed.shape not in (geometry.blocked, (int(np.prod(geometry.blocked)),)):
        raise RequestError(
            INVALID,
            f"{name} has shape {list(packed.shape)}, but the NZ bytes of {list(geometry.logical)} "
            f"{geometry.dtype} have the blocked shape {list(geometry.blocked)} (or flat {packed.size})",
        )
    logical = np.empty(geometry.logical, dtype=packed.dtype)
    batch, rows, col_blocks = geometry.lines
    nz_lines = np.ascontiguousarray(packed).view(_LINE).reshape(batch, col_blocks, rows)
    _move_lines(logical.view(_LINE).reshape(batch, rows, col_blocks), nz_lines, to_nz=False)
    return logical


def _move_lines(logical: npt.NDArray[np.void], blocked: npt.NDArray[np.void], *, to_nz: bool) -> None:
    """Copy C0 lines between `[B, R, C/c0]` (logical) and `[B, C/c0, R]` (NZ) order, a band of rows at a time.

    A band spans a cache-sized run of logical rows, so both sides of each step stay in cache.
    """
    batches, rows, col_blocks = logical.shape
    band = max(1, _BAND_BYTES // max(1, col_blocks * _LINE.itemsize))
    for batch in range(batches):
        for start in range(0, rows, band):
            window = slice(start, start + band)
            if to_nz:
                np.copyto(blocked[batch, :, window], logical[batch, window].T)
            else:
                np.copyto(logical[batch, window], blocked[batch, :, window].T)
