# pypto.program: demo_matmul_softmax
# A small hand-written dump in the printer's style, showing every mark the map draws: a phi/yield
# alias chain (Acc), a view into a wider tile (Vec), reuse of one slot (Mat), a tile parameter (Vec)
# and one deliberate cross-base conflict (Vec: probs__tile on mem_vec_6 overlaps head__tile while both live).
import pypto.language as pl

@pl.program
class demo_matmul_softmax:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def qk_matmul(self, q__ssa_v0: pl.Tensor[[64, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], k__ssa_v0: pl.Tensor[[128, 256], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 65536)], bias__ssa_v0: pl.Tensor[[1, 256], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)], s__ssa_v0: pl.Out[pl.Tensor[[64, 256], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 65536)]]) -> pl.Tensor[[64, 256], pl.FP32]:
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 65536)
        mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 16384)
        mem_right_4: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)
        mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 65536)
        mem_bias_6: pl.Ptr = pl.tile.alloc(pl.Mem.Bias, 1024)
        q_l1__tile: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_mat_1, pl.const(0, pl.INT64), 16384), pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=512)] = pl.tile.load(q__ssa_v0, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat, transpose=False)
        q_l0__tile: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_left_3, pl.const(0, pl.INT64), 16384), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=512)] = pl.tile.move(q_l1__tile, target_memory=pl.Mem.Left)
        bias_l1__tile: pl.Tile[[1, 256], pl.FP32, pl.MemRef(mem_mat_1, pl.const(0, pl.INT64), 1024), pl.Mem.Mat] = pl.tile.load(bias__ssa_v0, [0, 0], [1, 256], [1, 256], target_memory=pl.Mem.Mat, transpose=False)
        bias_bt__tile: pl.Tile[[1, 256], pl.FP32, pl.MemRef(mem_bias_6, pl.const(0, pl.INT64), 1024), pl.Mem.Bias] = pl.tile.move(bias_l1__tile, target_memory=pl.Mem.Bias)
        acc_init__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.tile.create([64, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb__idx_v0, (acc__iter_v1,) in pl.range(2, init_values=(acc_init__tile,)):
            k0__ssa_v0: pl.Scalar[pl.INDEX] = kb__idx_v0 * 64
            k_l1__tile: pl.Tile[[64, 256], pl.BF16, pl.MemRef(mem_mat_2, pl.const(16384, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(k__ssa_v0, [k0__ssa_v0, 0], [64, 256], [64, 256], target_memory=pl.Mem.Mat, transpose=False)
            k_l0__tile: pl.Tile[[64, 256], pl.BF16, pl.MemRef(mem_right_4, pl.const(0, pl.INT64), 32768), pl.Mem.Right, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major, fractal=512)] = pl.tile.move(k_l1__tile, target_memory=pl.Mem.Right)
            if kb__idx_v0 == 0:
                acc_first__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.tile.matmul_bias(q_l0__tile, k_l0__tile, bias_bt__tile)
                acc_phi__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.yield_(acc_first__tile)
            else:
                acc_next__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, q_l0__tile, k_l0__tile)
                acc_phi__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.yield_(acc_next__tile)
            acc__rv_v2: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.yield_(acc_phi__tile)
        s__tile: pl.Tensor[[64, 256], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 65536)] = pl.tile.store(acc__rv_v2, [0, 0], s__ssa_v0)
        v_l1__tile: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_mat_2, pl.const(16384, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(q__ssa_v0, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat, transpose=False)
        v_l0__tile: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_left_3, pl.const(0, pl.INT64), 16384), pl.Mem.Left] = pl.tile.move(v_l1__tile, target_memory=pl.Mem.Left)
        return s__ssa_v0
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def row_softmax(self, scale__tile: pl.Tile[[1, 256], pl.FP32, pl.MemRef(mem_vec_9, pl.const(98304, pl.INT64), 1024), pl.Mem.Vec], s__ssa_v0: pl.Tensor[[64, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)], p__ssa_v0: pl.Out[pl.Tensor[[64, 256], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)]]) -> pl.Tensor[[64, 256], pl.BF16]:
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 65536)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        s__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 65536), pl.Mem.Vec] = pl.tile.load(s__ssa_v0, [0, 0], [64, 256], [64, 256], target_memory=pl.Mem.Vec, transpose=False)
        scaled__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 65536), pl.Mem.Vec] = pl.tile.row_expand_mul(s__tile, scale__tile)
        head__tile: pl.Tile[[16, 256], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec, pl.TileView(valid_shape=[16, 256])] = pl.tile.slice(scaled__tile, [0, 0], [16, 256])
        row_max__tile: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_7, pl.const(65536, pl.INT64), 256), pl.Mem.Vec] = pl.tile.row_max(scaled__tile)
        shifted__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 65536), pl.Mem.Vec] = pl.tile.row_expand_sub(scaled__tile, row_max__tile)
        exp__tile: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 65536), pl.Mem.Vec] = pl.tile.exp(shifted__tile)
        row_sum__tile: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_7, pl.const(65536, pl.INT64), 256), pl.Mem.Vec] = pl.tile.row_sum(exp__tile)
        probs__tile: pl.Tile[[64, 256], pl.BF16, pl.MemRef(mem_vec_6, pl.const(8192, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.row_expand_div(exp__tile, row_sum__tile)
        p__tile: pl.Tensor[[64, 256], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)] = pl.tile.store(probs__tile, [0, 0], p__ssa_v0)
        stats__tile: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_7, pl.const(65536, pl.INT64), 256), pl.Mem.Vec] = pl.tile.row_max(head__tile)
        return p__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, q: pl.Tensor[[64, 128], pl.BF16], k: pl.Tensor[[128, 256], pl.BF16]) -> pl.Tensor[[64, 256], pl.BF16]:
        s: pl.Tensor[[64, 256], pl.FP32] = self.qk_matmul(q, k)
        return s
