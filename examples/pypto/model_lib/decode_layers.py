"""A builder-style model file: the program is built inside a function, its extents come from
`config.py`. `planner suggest` says which ND weights may become pl.NZ, and where each extent
came from; the plan holds for the builder's default `batch` (`--bind batch=32` plans another)."""

import pypto.language as pl
from config import FLASH as M

D = M.hidden_size
N = M.nope_head_dim


def build_decode_program(batch=16):
    K_TILE = M.k_tile

    @pl.program
    class DecodeLayer:
        @pl.function(type=pl.FunctionType.InCore)
        def project(
            self,
            x: pl.Tensor[[batch, D], pl.BF16],
            w_nope: pl.Tensor[[N, D], pl.BF16],
            out: pl.Out[pl.Tensor[[batch, N], pl.FP32]],
        ):
            for k0 in pl.range(0, D, K_TILE):
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w_nope[:, k0 : k0 + K_TILE], b_trans=True)
                out[:, :] = acc
            return out

    return DecodeLayer
