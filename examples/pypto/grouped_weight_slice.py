# pypto.program: GroupedNzWeight
import pypto.language as pl


@pl.program
class GroupedNzWeight:
    @pl.function(type=pl.FunctionType.InCore)
    def expert(
        self,
        x: pl.Tensor[[64, 1024], pl.INT8],
        w: pl.Tensor[[4, 512, 1024], pl.INT8, pl.NZ],
        e: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[64, 256], pl.INT32]],
    ) -> pl.Tensor[[64, 256], pl.INT32]:
        # Sample A of the layout spec: one window of one expert.
        wt: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
            w, [1, 256, 512], [1, 256, 512], target_memory=pl.Mem.Mat
        )
        # A rank-reducing slice picks expert e; a second slice keeps two experts.
        we: pl.Tensor[[512, 1024], pl.INT8, pl.NZ] = pl.slice(w, [1, 512, 1024], [e, 0, 0], drop_dims=[0])
        pair: pl.Tensor[[2, 512, 1024], pl.INT8, pl.NZ] = pl.tensor.slice(w, [2, 512, 1024], [2, 0, 0])
        xt: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
            x, [0, 512], [64, 512], target_memory=pl.Mem.Mat
        )
        et: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
            we, [256, 512], [256, 512], target_memory=pl.Mem.Mat
        )
        pt: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
            pair, [1, 0, 0], [1, 256, 512], target_memory=pl.Mem.Mat
        )
        c0: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(xt, wt, b_trans=True)
        c1: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, xt, et, b_trans=True)
        c2: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(c1, xt, pt, b_trans=True)
        out = pl.store(c2, [0, 0], out)
        return out
