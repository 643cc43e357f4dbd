"""The fractal map PNG, read from matplotlib's figure objects: borders, labels, colours, byte order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from matplotlib import pyplot as plt
from matplotlib.colors import to_hex
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

from planner.explain.fractals import fractal_figure, fractal_grid

ROWS_PER_FRACTAL = 16
LINE_BYTES = 32


@pytest.fixture
def figure_of() -> Iterator[Any]:
    figures: list[Any] = []

    def build(spec: str) -> Any:
        figures.append(fractal_figure(fractal_grid(spec)))
        return figures[-1]

    yield build
    for figure in figures:
        plt.close(figure)


def fractal_boxes(axes: Any, c0: int) -> dict[tuple[int, int], Rectangle]:
    """(row block, column block) -> the bordered rectangle drawn for that fractal."""
    boxes = [p for p in axes.patches if isinstance(p, Rectangle) and str(p.get_gid()).startswith("fractal-")]
    return {(round(b.get_y()) // ROWS_PER_FRACTAL, round(b.get_x()) // c0): b for b in boxes}


@pytest.mark.parametrize(
    ("spec", "c0", "row_blocks", "col_blocks"),
    [
        ("[64, 64] FP16", 16, 4, 4),
        ("[256, 512] INT8", 32, 16, 16),
        ("[48, 16] FP32", 8, 3, 2),
        ("[3, 32, 64] INT64", 4, 2, 16),
    ],
)
def test_every_fractal_is_bordered_labelled_with_its_memory_index_and_coloured_apart_from_its_neighbours(
    figure_of: Any, spec: str, c0: int, row_blocks: int, col_blocks: int
) -> None:
    fractal_map = figure_of(spec).axes[0]
    boxes = fractal_boxes(fractal_map, c0)
    assert sorted(boxes) == [(r, c) for r in range(row_blocks) for c in range(col_blocks)]
    for box in boxes.values():
        assert (box.get_width(), box.get_height()) == (c0, ROWS_PER_FRACTAL)
        assert box.get_linewidth() > 0 and box.get_edgecolor()[3] == 1.0  # a visible border

    for (r, c), box in boxes.items():
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                touching = boxes.get((r + dr, c + dc))
                if (dr, dc) != (0, 0) and touching is not None:
                    assert to_hex(box.get_facecolor()) != to_hex(touching.get_facecolor()), (r, c, dr, dc)

    labels = [t for t in fractal_map.texts if t.get_gid() == "fractal-label"]
    assert len(labels) == len(boxes)
    for label in labels:
        x, y = label.get_position()
        row_block, col_block = int(y // ROWS_PER_FRACTAL), int(x // c0)
        # NZ memory order within batch 0: column blocks outermost, row fractals inside.
        assert label.get_text() == str(col_block * row_blocks + row_block)


@pytest.mark.parametrize(("spec", "c0"), [("[64, 64] FP16", 16), ("[32, 64] INT8", 32), ("[16, 8] FP32", 8)])
def test_the_second_panel_shows_the_byte_order_inside_one_fractal(figure_of: Any, spec: str, c0: int) -> None:
    byte_order = figure_of(spec).axes[1]
    (image,) = [artist for artist in byte_order.get_children() if isinstance(artist, AxesImage)]
    offsets = np.asarray(image.get_array())
    element_bytes = LINE_BYTES // c0
    assert offsets.shape == (ROWS_PER_FRACTAL, c0)
    # Row-major inside the fractal: each 32-byte line in turn, elements left to right.
    assert offsets.ravel().tolist() == list(range(0, 512, element_bytes))


def test_a_large_tensor_is_drawn_from_its_first_fractals_and_says_so(figure_of: Any) -> None:
    fractal_map = figure_of("[1024, 2048] INT8").axes[0]
    assert len(fractal_boxes(fractal_map, 32)) == 32 * 32
    assert "first 32 x 32 fractals shown" in fractal_map.get_title()
