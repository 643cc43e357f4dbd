"""An 800-row NZ weight in 256-row tiles: the last tile is ragged, its valid rows bounded with pl.min."""

import pypto.language as pl

N = 800
K = 512
N_TILE = 256


@pl.jit
def ragged(
    x: pl.Tensor[[64, 512], pl.BF16],
    w: pl.Tensor[[800, 512], pl.BF16, pl.NZ],
    out: pl.Out[pl.Tensor[[64, 1024], pl.FP32]],
):
    for nb in pl.spmd((N + N_TILE - 1) // N_TILE):
        n0 = nb * N_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ragged_tail"):
            rows = pl.min(N - n0, N_TILE)
            wt = pl.slice(w, [N_TILE, K], [n0, 0], valid_shape=[rows, K])
            out[:, n0 : n0 + N_TILE] = pl.matmul(x, wt, out_dtype=pl.FP32, b_trans=True)
    return out
