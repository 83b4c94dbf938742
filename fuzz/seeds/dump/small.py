import pypto.language as pl

@pl.program
class p:
    @pl.function(type=pl.FunctionType.AIV)
    def f(self, x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec]):
        a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, pl.const(1024, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x)
        b: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 1024.5, 1024), pl.Mem.Vec] = pl.tile.add(a, a)
        return b
