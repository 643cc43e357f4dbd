# pypto.program: SuggestWeights
import pypto.language as pl

N = 512
K = 2048
N_TILE = 256
K_TILE = 512


@pl.program
class SuggestWeights:
    """Five ND weights feed matmul B operands; `planner suggest` says which may be pl.NZ."""

    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        x: pl.Tensor[[64, 2048], pl.INT8],
        w_up: pl.Tensor[[512, 2048], pl.INT8],
        w_gate: pl.Tensor[[512, 2048], pl.INT8, pl.ND],
        w_view: pl.Tensor[[512, 2048], pl.INT8],
        w_experts: pl.Tensor[[4, 256, 512], pl.INT8],
        w_col: pl.Tensor[[16, 1], pl.FP16],
        e: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[64, 512], pl.INT32]],
        probe_out: pl.Out[pl.Tensor[[16, 1024], pl.INT8]],
        col_out: pl.Out[pl.Tensor[[16, 1], pl.FP32]],
    ) -> pl.Tensor[[64, 512], pl.INT32]:
        for nb in pl.spmd(N // N_TILE, name_hint="spmd"):
            n0: pl.Scalar[pl.INDEX] = nb * N_TILE
            g0: pl.Scalar[pl.INDEX] = nb * 8  # not a multiple of 16: no NZ row offset
            acc0: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.create(
                [64, 256], pl.INT32, target_memory=pl.Mem.Acc
            )
            for k0, (acc,) in pl.pipeline(0, K, K_TILE, init_values=(acc0,), stage=2):
                xt: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    x, [0, k0], [64, 512], target_memory=pl.Mem.Mat
                )
                ut: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    w_up, [n0, k0], [256, 512], target_memory=pl.Mem.Mat
                )
                gt: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    w_gate, [g0, k0], [256, 512], target_memory=pl.Mem.Mat
                )
                vt: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
                    w_view, [n0, k0], [256, 512], target_memory=pl.Mem.Mat
                )
                a1: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, xt, ut, b_trans=True)
                a2: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(a1, xt, gt, b_trans=True)
                a3: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(a2, xt, vt, b_trans=True)
                acc_out = pl.yield_(a3)
            out = pl.store(acc_out, [0, n0], out)
        flat = pl.tensor.view(w_view, [1024, 1024])  # a view: NZ bytes cannot be reinterpreted
        probe: pl.Tile[[16, 1024], pl.INT8, pl.Mem.Vec] = pl.tile.load(
            flat, [0, 0], [16, 1024], target_memory=pl.Mem.Vec
        )
        probe_out = pl.store(probe, [0, 0], probe_out)
        expert = pl.slice(w_experts, [1, 256, 512], [e, 0, 0], drop_dims=[0])
        et: pl.Tile[[256, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
            expert, [0, 0], [256, 512], target_memory=pl.Mem.Mat
        )
        xe: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(
            x, [0, 0], [64, 512], target_memory=pl.Mem.Mat
        )
        ce: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(xe, et, b_trans=True)
        out = pl.store(ce, [0, 0], out)
        ht: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(
            x, [0, 0], [16, 16], target_memory=pl.Mem.Mat
        )
        ct: pl.Tile[[16, 1], pl.FP16, pl.Mem.Mat] = pl.tile.load(  # k = 1: one column
            w_col, [0, 0], [16, 1], target_memory=pl.Mem.Mat
        )
        c: pl.Tile[[16, 1], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ht, ct)
        col_out = pl.store(c, [0, 0], col_out)
        return out
