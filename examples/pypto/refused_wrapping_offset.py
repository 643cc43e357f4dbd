# pypto.program: NzRefused
import pypto.language as pl


@pl.program
class NzRefused:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        x: pl.Tensor[[64, 512], pl.INT8],
        w: pl.Tensor[[1024, 512], pl.INT8, pl.NZ],
        out: pl.Out[pl.Tensor[[64, 256], pl.INT32]],
    ) -> pl.Tensor[[64, 256], pl.INT32]:
        for nb in pl.spmd(4, name_hint="lanes"):
            # Lane 0 reads row -256: the sign obligation is refuted with nb = 0.
            n0: pl.Scalar[pl.INDEX] = nb * 256 - 256
            wt: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                w, [n0, 0], [256, 512], target_memory=pl.Mem.Mat
            )
            xt: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                x, [0, 0], [64, 512], target_memory=pl.Mem.Mat
            )
            c: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(xt, wt, b_trans=True)
            out = pl.store(c, [0, 0], out)
        return out
