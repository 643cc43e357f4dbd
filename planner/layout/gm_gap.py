"""The temporary GM row-gap guard for hw-native-sys/pto-isa#317 (section 10).

`TLoadGm2L1Nz2nz` hands the gap between column blocks to a 16-bit field unchecked; for a
blocked view the gap is `R - loaded rows` 32-byte blocks whatever the dtype. Delete this
module when the defect is fixed upstream.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.layout import diagnostics as nz
from planner.layout.blocking import NzTensor
from planner.proofs.expr import Const, Expr
from planner.targets.ascend import FRACTAL_ROWS, GM_GAP_MAX_BLOCKS

_COL_BLOCK_SLOT = 1
_ROW_FRACTAL_SLOT = 2


def check_gm_gap(site: nz.Site, tensor: NzTensor, window: Sequence[Expr]) -> None:
    """Refuse a multi-column-block load whose gap exceeds 65535 blocks; a dynamic row extent counts as 0."""
    col_blocks = window[_COL_BLOCK_SLOT]
    if isinstance(col_blocks, Const) and col_blocks.value <= 1:
        return  # one burst: the DMA never applies the gap
    fractals = window[_ROW_FRACTAL_SLOT]
    loaded = fractals.value * FRACTAL_ROWS if isinstance(fractals, Const) else 0
    gap = tensor.rows - loaded
    if gap > GM_GAP_MAX_BLOCKS:
        raise nz.refusal(
            nz.GM_GAP_OVERFLOW,
            f"NZ tile.load GM row gap is {gap} 32-byte blocks ({tensor.rows} tensor rows - {loaded} loaded "
            f"rows), above the {GM_GAP_MAX_BLOCKS} that the DMA's 16-bit gmGap field holds. This is a "
            "temporary guard for hw-native-sys/pto-isa#317 and NOT an expected pl.NZ limitation.",
            site,
            axis=-2,
        )
