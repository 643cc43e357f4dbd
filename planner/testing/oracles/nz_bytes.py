"""A numpy model of NZ bytes in GM, independent of the planner (docs/design/nz-layout.md section 4).

`pack_nz` writes a logical `[..lead.., R, C]` array in NZ byte order (host byte order):
element `(b, 16*i + ii, c0*j + jj)` lands at flat index
`b*R*C + j*R*c0 + i*16*c0 + ii*c0 + jj`. `read_window` reads a planned load window the way
pto-isa's GlobalTensor does - through the blocked shape and strides alone - and returns it in
logical order, so a property test can compare it with numpy slicing of the logical array.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np
import numpy.typing as npt

FRACTAL_ROWS = 16
C0_LINE_BYTES = 32


def nz_c0(dtype: npt.DTypeLike) -> int:
    """Elements per 32-byte C0 line."""
    return C0_LINE_BYTES // np.dtype(dtype).itemsize


def _blocked_view(rows: int, cols: int, c0: int) -> tuple[int, int, int, int]:
    if rows % FRACTAL_ROWS or cols % c0:
        raise ValueError(f"an NZ matrix needs rows % 16 == 0 and cols % {c0} == 0, got [{rows}, {cols}]")
    return rows // FRACTAL_ROWS, FRACTAL_ROWS, cols // c0, c0


def pack_nz(matrix: npt.ArrayLike) -> bytes:
    """NZ bytes of a logical array of rank >= 2; leading axes fold row-major into the batch."""
    array = np.asarray(matrix)
    if array.ndim < 2:
        raise ValueError(f"an NZ matrix has rank >= 2, got rank {array.ndim}")
    rows, cols = array.shape[-2:]
    fractals, lines, col_blocks, c0 = _blocked_view(rows, cols, nz_c0(array.dtype))
    batches = prod(array.shape[:-2])
    blocked = array.reshape(batches, fractals, lines, col_blocks, c0).transpose(0, 3, 1, 2, 4)
    return np.ascontiguousarray(blocked).tobytes()


def unpack_nz(data: bytes, dtype: npt.DTypeLike, shape: Sequence[int]) -> npt.NDArray[np.generic]:
    """The logical array of `shape` whose NZ bytes are `data` (inverse of `pack_nz`)."""
    element = np.dtype(dtype)
    rows, cols = shape[-2:]
    fractals, lines, col_blocks, c0 = _blocked_view(rows, cols, nz_c0(element))
    batches = prod(shape[:-2])
    blocked = np.frombuffer(data, dtype=element).reshape(batches, col_blocks, fractals, lines, c0)
    return blocked.transpose(0, 2, 3, 1, 4).reshape(tuple(shape)).copy()


def read_window(
    nz_bytes: bytes,
    dtype: npt.DTypeLike,
    blocked_shape: Sequence[int],
    strides: Sequence[int],
    offsets: Sequence[int],
    shapes: Sequence[int],
) -> npt.NDArray[np.generic]:
    """Read a rank-5 window through blocked strides; `[rows, cols]`, or `[batch, rows, cols]` if batch > 1.

    Offsets and extents are in blocked units (batch, column block, row fractal, line, element),
    exactly what a planned `tile.load` carries; an out-of-range window is an error.
    """
    flat = np.frombuffer(nz_bytes, dtype=np.dtype(dtype))
    for axis, (start, size, extent) in enumerate(zip(offsets, shapes, blocked_shape, strict=True)):
        if start < 0 or size < 0 or start + size > extent:
            raise ValueError(f"window axis {axis}: [{start}, {start + size}) outside extent {extent}")
    axes = [
        (start + np.arange(size)).reshape([size if k == axis else 1 for k in range(len(shapes))]) * stride
        for axis, (start, size, stride) in enumerate(zip(offsets, shapes, strides, strict=True))
    ]
    window = flat[sum(axes)]
    batch, col_blocks, fractals, lines, c0 = shapes
    logical = window.transpose(0, 2, 3, 1, 4).reshape(batch, fractals * lines, col_blocks * c0)
    return logical[0] if batch == 1 else logical
