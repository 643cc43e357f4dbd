"""Grouped (per-expert) FP16 weights stacked on a leading axis; the result is stored into FP32 NZ."""

import pypto.language as pl

EXPERTS = 4
N = 256
K = 1024
K_TILE = 256


@pl.jit.incore
def expert_matmul(
    x: pl.Tensor[[64, 1024], pl.FP16],
    w: pl.Tensor[[4, 256, 1024], pl.FP16, pl.NZ],
    e: pl.Scalar[pl.INDEX],
    out: pl.Out[pl.Tensor[[4, 64, 256], pl.FP32, pl.NZ]],
):
    we = w[e]  # one expert: a slice of the leading axis
    with pl.scope():
        acc = pl.matmul(x[:, 0:K_TILE], we[:, 0:K_TILE], out_dtype=pl.FP32, b_trans=True)
        for k0 in pl.range(K_TILE, K, K_TILE):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], we[:, k0 : k0 + K_TILE], b_trans=True)
    out = pl.assemble(out, acc, [e, 0, 0])  # an accumulator store into expert e's panel
    return out


@pl.jit
def grouped(
    x: pl.Tensor[[64, 1024], pl.FP16],
    w: pl.Tensor[[4, 256, 1024], pl.FP16, pl.NZ],
    out: pl.Out[pl.Tensor[[4, 64, 256], pl.FP32, pl.NZ]],
):
    for e in pl.range(EXPERTS):
        out = expert_matmul(x, w, e, out)
    return out
