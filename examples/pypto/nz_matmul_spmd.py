# pypto.program: NzMatmulSpmd
import pypto.language as pl

N = 512
K = 2048
N_TILE = 256
K_TILE = 512


@pl.program
class NzMatmulSpmd:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        x: pl.Tensor[[64, 2048], pl.INT8],
        w: pl.Tensor[[512, 2048], pl.INT8, pl.NZ],
        out: pl.Out[pl.Tensor[[64, 512], pl.INT32]],
    ) -> pl.Tensor[[64, 512], pl.INT32]:
        for nb in pl.spmd(N // N_TILE, name_hint="nz_spmd"):
            n0: pl.Scalar[pl.INDEX] = nb * N_TILE
            acc0: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.create(
                [64, 256], pl.INT32, target_memory=pl.Mem.Acc
            )
            for k0, (acc,) in pl.pipeline(K_TILE, K, K_TILE, init_values=(acc0,), stage=2):
                xt: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    x, [0, k0], [64, 512], target_memory=pl.Mem.Mat
                )
                wt: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    w, [n0, k0], [256, 512], target_memory=pl.Mem.Mat
                )
                acc_next: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(
                    acc, xt, wt, b_trans=True
                )
                acc_out = pl.yield_(acc_next)
            out = pl.store(acc_out, [0, n0], out)
        return out
