"""`planner layout show`: which logical elements of an NZ tensor land in which fractal.

The blocked shape and strides come from `layout.plan` itself (one NZ tensor, no ops), so the
picture is the plan. In NZ order a fractal is 16 rows x c0 columns, and fractals run down
the rows first: element (r, c) of batch b lies in fractal
`(b * C/c0 + c // c0) * R/16 + r // 16` (nz-layout.md section 3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from planner.contract import RequestError
from planner.service import codes, optional
from planner.service.limits import Limits
from planner.service.methods import invoke

_SPEC = re.compile(r"^\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*,?\s*\]\s*([A-Za-z][A-Za-z0-9_]*)\s*$")
FRACTAL_ROWS = 16


@dataclass(frozen=True, slots=True)
class FractalGrid:
    spec: str
    dtype: str
    shape: tuple[int, ...]
    blocked: tuple[int, ...]
    strides: tuple[int, ...]

    @property
    def c0(self) -> int:
        return self.blocked[-1]

    @property
    def row_blocks(self) -> int:
        return self.blocked[2]

    @property
    def col_blocks(self) -> int:
        return self.blocked[1]

    def fractal(self, row_block: int, col_block: int, batch: int = 0) -> int:
        """The fractal's index in memory order."""
        return (batch * self.col_blocks + col_block) * self.row_blocks + row_block


def _parse_spec(spec: str) -> tuple[list[int], str]:
    match = _SPEC.match(spec)
    if match is None:
        raise RequestError(codes.INVALID_PARAMS, f'a tensor spec looks like "[64, 64] FP16", got {spec!r}')
    return [int(extent) for extent in match.group(1).split(",")], match.group(2).upper()


def fractal_grid(spec: str) -> FractalGrid:
    """Plan `spec` as one NZ tensor; a refusal is reported with its `nz.*` code and fix."""
    shape, dtype = _parse_spec(spec)
    params = {"tensors": [{"name": "t", "shape": shape, "dtype": dtype, "layout": "NZ"}]}
    response = invoke("layout.plan", params, Limits().time_budget)
    if not response["ok"]:
        first = response["diagnostics"][0]
        raise RequestError(codes.BAD_INPUT, f"[{first['code']}] {first['message']}", {"code": first["code"]})
    planned = response["tensors"][0]
    return FractalGrid(spec.strip(), dtype, tuple(shape), tuple(planned["shape"]), tuple(planned["strides"]))


def _span(start: int, size: int) -> str:
    return f"{start}..{start + size - 1}"


def render(grid: FractalGrid) -> str:
    """A text grid: one cell per fractal (16 rows x c0 columns), holding its index in memory."""
    header = [
        f"{grid.spec}: NZ blocked {list(grid.blocked)}, strides {list(grid.strides)}",
        f"c0 = {grid.c0}: each fractal holds {FRACTAL_ROWS} rows x {grid.c0} columns; "
        "a cell is the fractal's index in memory order (fractals run down the rows first)",
    ]
    if grid.blocked[0] > 1:
        header.append(
            f"batch b (of {grid.blocked[0]}) adds b * {grid.row_blocks * grid.col_blocks} to every index"
        )
    columns = [f"cols {_span(c * grid.c0, grid.c0)}" for c in range(grid.col_blocks)]
    row_labels = [f"rows {_span(r * FRACTAL_ROWS, FRACTAL_ROWS)}" for r in range(grid.row_blocks)]
    label_width = max(len(label) for label in row_labels)
    width = max(len(column) for column in columns)
    lines = [" " * label_width + "".join(f"  {column:>{width}}" for column in columns)]
    for r, label in enumerate(row_labels):
        cells = "".join(f"  {grid.fractal(r, c):>{width}}" for c in range(grid.col_blocks))
        lines.append(f"{label:<{label_width}}{cells}")
    return "\n".join(header + lines) + "\n"


def draw_png(grid: FractalGrid, path: Path) -> None:
    """Colour each logical element (batch 0) by its fractal; needs matplotlib (`tile-planner[viz]`)."""
    plt = optional.pyplot()
    blocks = np.array([[grid.fractal(r, c) for c in range(grid.col_blocks)] for r in range(grid.row_blocks)])
    elements = np.repeat(np.repeat(blocks, FRACTAL_ROWS, axis=0), grid.c0, axis=1)
    figure, axes = plt.subplots(figsize=(8, 8 * elements.shape[0] / elements.shape[1] + 1))
    axes.imshow(elements, cmap="tab20", interpolation="nearest")
    for row_block in range(grid.row_blocks):
        for col_block in range(grid.col_blocks):
            axes.text(
                (col_block + 0.5) * grid.c0 - 0.5,
                (row_block + 0.5) * FRACTAL_ROWS - 0.5,
                str(grid.fractal(row_block, col_block)),
                ha="center",
                va="center",
                fontsize=8,
            )
    axes.set_title(f"{grid.spec}: fractal of each element (NZ, c0 = {grid.c0})")
    axes.set_xlabel("column")
    axes.set_ylabel("row")
    figure.savefig(path)
    plt.close(figure)
