"""`planner layout show`: which logical elements of an NZ tensor land in which fractal.

The blocked shape and strides come from `layout.plan` itself (one NZ tensor, no ops), so the
picture is the plan. In NZ order a fractal is 16 rows x c0 columns, and fractals run down
the rows first: element (r, c) of batch b lies in fractal
`(b * C/c0 + c // c0) * R/16 + r // 16` (docs/design/nz-layout.md section 3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from planner import extras, request_codes
from planner.budget import deadline_after
from planner.contract import request_error_from_validation
from planner.errors import RequestError
from planner.layout import plan
from planner.layout.protocol import LayoutPlanRequest
from planner.limits import MAX_NUMBER_DIGITS, Limits
from planner.outputs import open_output

_SPEC = re.compile(r"^\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*,?\s*\]\s*([A-Za-z][A-Za-z0-9_]*)\s*$")
FRACTAL_ROWS = 16
MAX_DRAWN_BLOCKS = 32  # per axis, in text and PNG alike; a larger tensor is drawn from its first fractals


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
        raise RequestError(
            request_codes.INVALID_PARAMS, f'a tensor spec looks like "[64, 64] FP16", got {spec!r}'
        )
    extents = [extent.strip() for extent in match.group(1).split(",")]
    if any(len(extent) > MAX_NUMBER_DIGITS for extent in extents):  # before int(): Python's digit limit
        raise RequestError(
            request_codes.INVALID_PARAMS, f"a tensor spec's extents have at most {MAX_NUMBER_DIGITS} digits"
        )
    return [int(extent) for extent in extents], match.group(2).upper()


def fractal_grid(spec: str) -> FractalGrid:
    """Plan `spec` as one NZ tensor; a refusal is reported with its `nz.*` code and fix."""
    shape, dtype = _parse_spec(spec)
    params = {"tensors": [{"name": "t", "shape": shape, "dtype": dtype, "layout": "NZ"}]}
    try:
        request = LayoutPlanRequest.model_validate(params)
    except ValidationError as exc:
        raise request_error_from_validation(exc) from None
    response = plan(request, deadline=deadline_after(Limits().time_budget))
    if not response.ok:
        first = response.diagnostics[0]
        raise RequestError(request_codes.BAD_INPUT, f"[{first.code}] {first.message}", {"code": first.code})
    planned = response.tensors[0]
    # Every extent of a tensor with literal dimensions is a literal: the blocking introduces no names.
    blocked, strides = (
        tuple(int(extent) for extent in values) for values in (planned.shape, planned.strides)
    )
    return FractalGrid(spec.strip(), dtype, tuple(shape), blocked, strides)


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
    rows, cols = min(grid.row_blocks, MAX_DRAWN_BLOCKS), min(grid.col_blocks, MAX_DRAWN_BLOCKS)
    if (rows, cols) != (grid.row_blocks, grid.col_blocks):
        header.append(
            f"first {rows} x {cols} of {grid.row_blocks} x {grid.col_blocks} fractals shown "
            f"(at most {MAX_DRAWN_BLOCKS} per axis)"
        )
    columns = [f"cols {_span(c * grid.c0, grid.c0)}" for c in range(cols)]
    row_labels = [f"rows {_span(r * FRACTAL_ROWS, FRACTAL_ROWS)}" for r in range(rows)]
    label_width = max(len(label) for label in row_labels)
    width = max(len(column) for column in columns)
    lines = [" " * label_width + "".join(f"  {column:>{width}}" for column in columns)]
    for r, label in enumerate(row_labels):
        cells = "".join(f"  {grid.fractal(r, c):>{width}}" for c in range(cols))
        lines.append(f"{label:<{label_width}}{cells}")
    return "\n".join(header + lines) + "\n"


# Four colours, alternating by row-block and column-block parity: fractals that touch (at an
# edge or a corner) never share a colour.
_FRACTAL_COLOURS = ("#8dd3c7", "#ffffb3", "#bebada", "#fdb462")


def fractal_colour(row_block: int, col_block: int) -> str:
    """The fill of one fractal: distinct from all eight neighbours."""
    return _FRACTAL_COLOURS[row_block % 2 + 2 * (col_block % 2)]


def _draw_fractal_map(axes: Any, grid: FractalGrid, rows: int, cols: int) -> None:
    """Left panel: batch 0's first `rows` x `cols` fractals, bordered, labelled with their memory index."""
    from matplotlib.patches import Rectangle

    fontsize = max(4.0, min(10.0, 160 / max(rows, cols)))
    centres: list[tuple[int, float, float]] = []
    for row_block in range(rows):
        for col_block in range(cols):
            index = grid.fractal(row_block, col_block)
            x, y = col_block * grid.c0, row_block * FRACTAL_ROWS
            box = Rectangle((x, y), grid.c0, FRACTAL_ROWS, facecolor=fractal_colour(row_block, col_block))
            box.set(edgecolor="black", linewidth=1.0, gid=f"fractal-{index}")
            axes.add_patch(box)
            centre = (x + grid.c0 / 2, y + FRACTAL_ROWS / 2)
            axes.text(*centre, str(index), ha="center", va="center", fontsize=fontsize, gid="fractal-label")
            centres.append((index, *centre))
    path = sorted(centres)  # memory order: down the rows of a column block, then the next block
    axes.plot([c[1] for c in path], [c[2] for c in path], color="dimgrey", linewidth=1.0, alpha=0.5, zorder=2)
    detailed = Rectangle(
        (0, 0), grid.c0, FRACTAL_ROWS, fill=False, edgecolor="red", linewidth=2.5, zorder=2.5
    )
    axes.add_patch(detailed)  # the fractal the byte-order panel details
    axes.set_xlim(0, cols * grid.c0)
    axes.set_ylim(rows * FRACTAL_ROWS, 0)
    axes.set_xticks([c * grid.c0 for c in range(cols + 1)])
    axes.set_yticks([r * FRACTAL_ROWS for r in range(rows + 1)])
    axes.tick_params(labelsize=max(5.0, fontsize - 1), labelrotation=0)
    axes.tick_params(axis="x", labelrotation=90)
    axes.set_xlabel("logical column")
    axes.set_ylabel("logical row")
    shown = (
        ""
        if (rows, cols) == (grid.row_blocks, grid.col_blocks)
        else f"; first {rows} x {cols} fractals shown"
    )
    batches = f"; batch 0 of {grid.blocked[0]}" if grid.blocked[0] > 1 else ""
    axes.set_title(f"{grid.spec}: memory index of each fractal (16 x {grid.c0}){batches}{shown}", fontsize=10)


def _draw_byte_order(figure: Any, axes: Any, grid: FractalGrid) -> None:
    """Right panel: the byte offset of each element inside one fractal (16 lines of 32 bytes)."""
    element_bytes = 32 // grid.c0
    offsets = np.arange(FRACTAL_ROWS * grid.c0).reshape(FRACTAL_ROWS, grid.c0) * element_bytes
    image = axes.imshow(offsets, cmap="viridis", interpolation="nearest", aspect="auto")
    figure.colorbar(image, ax=axes, label="byte offset inside the fractal")
    for line in range(FRACTAL_ROWS):
        for element in (0, grid.c0 - 1):
            offset = int(offsets[line, element])
            colour = "white" if offset < offsets.max() / 2 else "black"
            axes.text(element, line, str(offset), ha="center", va="center", fontsize=6, color=colour)
    axes.set_yticks(
        range(FRACTAL_ROWS), [f"line {line}: bytes {line * 32}..{line * 32 + 31}" for line in range(16)]
    )
    axes.set_xticks(range(0, grid.c0, max(1, grid.c0 // 8)))
    axes.tick_params(labelsize=7)
    axes.set_xlabel(f"element in the C0 line ({grid.c0} x {element_bytes} bytes)")
    axes.set_title("inside the red fractal: bytes run along each line, then to the next line", fontsize=10)


def fractal_figure(grid: FractalGrid) -> Any:
    """The fractal map and the byte order inside one fractal, as a matplotlib figure (`tile-planner[viz]`)."""
    plt = extras.pyplot()
    rows, cols = min(grid.row_blocks, MAX_DRAWN_BLOCKS), min(grid.col_blocks, MAX_DRAWN_BLOCKS)
    aspect = rows * FRACTAL_ROWS / (cols * grid.c0)
    figure, (fractal_map, byte_order) = plt.subplots(
        1, 2, figsize=(15, max(5.0, min(14.0, 8 * aspect + 1))), gridspec_kw={"width_ratios": [3, 2]}
    )
    _draw_fractal_map(fractal_map, grid, rows, cols)
    _draw_byte_order(figure, byte_order, grid)
    figure.tight_layout()
    return figure


def draw_png(grid: FractalGrid, path: Path, option: str = "--png") -> None:
    """Write `fractal_figure(grid)` to a PNG, through the safe writer."""
    plt = extras.pyplot()
    figure = fractal_figure(grid)
    with open_output(str(path), option) as out:
        figure.savefig(out, dpi=110, format="png")
    plt.close(figure)
