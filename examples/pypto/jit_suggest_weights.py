"""@pl.jit source with ND weights: `planner suggest` says which may be pl.NZ, callers included."""

import pypto.language as pl

N = 512
K = 1024
N_TILE = 256
K_TILE = 256


@pl.jit.incore
def expert_matmul(
    x: pl.Tensor[[64, 1024], pl.FP16],
    w: pl.Tensor[[4, 256, 1024], pl.FP16],
    e: pl.Scalar[pl.INDEX],
    out: pl.Out[pl.Tensor[[4, 64, 256], pl.FP32]],
):
    we = w[e]  # one expert: a slice of the leading axis
    acc = pl.matmul(x[:, 0:K_TILE], we[:, 0:K_TILE], out_dtype=pl.FP32, b_trans=True)
    for k0 in pl.range(K_TILE, K, K_TILE):
        acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], we[:, k0 : k0 + K_TILE], b_trans=True)
    out = pl.assemble(out, acc, [e, 0, 0])
    return out


@pl.jit
def grouped(
    x: pl.Tensor[[64, 1024], pl.FP16],
    w: pl.Tensor[[4, 256, 1024], pl.FP16],
    out: pl.Out[pl.Tensor[[4, 64, 256], pl.FP32]],
):
    for e in pl.range(4):
        out = expert_matmul(x, w, e, out)  # w follows the kernel's parameter
    return out


@pl.jit.incore
def projections(
    x: pl.Tensor[[64, 1024], pl.FP16],
    w_gate: pl.Tensor[[512, 1024], pl.FP16],
    w_view: pl.Tensor[[512, 1024], pl.FP16],
    w_col: pl.Tensor[[16, 1], pl.FP16],
    out: pl.Out[pl.Tensor[[64, 512], pl.FP32]],
    col_out: pl.Out[pl.Tensor[[64, 1], pl.FP32]],
):
    for nb in pl.spmd(N // N_TILE):
        g0 = nb * 8  # not a multiple of 16: no NZ row offset
        acc = pl.matmul(x[:, 0:K_TILE], w_gate[g0 : g0 + N_TILE, 0:K_TILE], out_dtype=pl.FP32, b_trans=True)
        acc = pl.matmul_acc(acc, x[:, 0:K_TILE], w_view[0:N_TILE, 0:K_TILE], b_trans=True)
        out[:, 0:N_TILE] = acc
    flat = pl.tensor.view(w_view, [1024, 512])  # a view: NZ bytes cannot be reinterpreted
    out[0:16, 0:512] = flat[0:16, 0:512]
    col_out[:, :] = pl.matmul(x[:, 0:16], w_col[:, :], out_dtype=pl.FP32)  # k = 1: one column
    return out
