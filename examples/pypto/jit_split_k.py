"""Split-K INT8 matmul over an NZ weight, windows written as subscripts (planned, not rewritten)."""

import pypto.language as pl

N = 512
K = 2048
N_TILE = 256
K_TILE = 512


@pl.jit
def split_k(
    x: pl.Tensor[[64, 2048], pl.INT8],
    w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ],
    out: pl.Out[pl.Tensor[[64, 512], pl.INT32]],
):
    for nb in pl.spmd(N // N_TILE):
        n0 = nb * N_TILE
        acc = pl.matmul(x[:, 0:K_TILE], w[n0 : n0 + N_TILE, 0:K_TILE], out_dtype=pl.INT32, b_trans=True)
        for k0 in pl.pipeline(K_TILE, K, K_TILE, stage=2):
            wt = w[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], wt, b_trans=True)
        out[:, n0 : n0 + N_TILE] = acc
    return out
