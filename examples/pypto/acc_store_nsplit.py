# pypto.program: NzAccStore
import pypto.language as pl


@pl.program
class NzAccStore:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 1024], pl.FP16],
        out: pl.Out[pl.Tensor[[64, 1024], pl.FP32, pl.NZ]],
    ) -> pl.Tensor[[64, 1024], pl.FP32, pl.NZ]:
        at: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(
            a, [0, 0], [64, 128], target_memory=pl.Mem.Mat
        )
        bt: pl.Tile[[128, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(
            b, [0, 0], [128, 1024], target_memory=pl.Mem.Mat
        )
        # 64 x 1024 FP32 is 256 KiB: twice the A2/A3 L0C, so the store is split along N.
        acc: pl.Tile[[64, 1024], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(at, bt)
        out = pl.store(acc, [0, 0], out)
        return out
