"""Differential test of multi-reduction fusion on the CPU: random row-wise
normalisations (a reduction over the trailing axes, row ops that read it
broadcast back over the rows, a second reduction of those rows, more row
ops: the shapes of softmax and layernorm) run fused and unfused through
jeet-run and agree with each other and with a float64 numpy reference; the
same graphs run on the GPU (the emulator everywhere) agree with numpy too.
Shapes are large enough that the fused group is tiled over blocks of rows in
some cases and small or prime in others. Each case has a fixed seed, printed
on failure: `pytest test/numerics/test_row_fusion_differential.py -k case_7`.
"""
import numpy as np
import pytest

from jeetrun import GPU_DRIVERS, assert_close, mlir_type, run_graph

NUM_CASES = 40

REDUCTIONS = {"reduce_sum": np.sum, "reduce_max": np.max,
              "reduce_mean": np.mean}
ROW_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
           "max": np.maximum, "min": np.minimum}


class RowGraph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.lines, self.args, self.count = [], [], 0

    def new_input(self, shape):
        name = f"%arg{len(self.args)}"
        array = self.rng.uniform(-1, 1, size=shape).astype(np.float32)
        self.args.append((name, array))
        return name, array.astype(np.float64)

    def emit(self, text):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text}")
        return name

    def reduce(self, value, ref, axes, reduced_shape):
        op = self.rng.choice(list(REDUCTIONS))
        t, rt = mlir_type(ref.shape, np.float32), mlir_type(reduced_shape,
                                                             np.float32)
        axes_text = ", ".join(str(a) for a in axes)
        name = self.emit(f"jeet.{op} {value} {{axes = array<i64: {axes_text}>,"
                         f" keepdims = true}} : {t} -> {rt}")
        return name, REDUCTIONS[op](ref, axis=tuple(axes), keepdims=True)

    def row_op(self, rows, rows_ref, reduced, reduced_ref):
        op = self.rng.choice(list(ROW_OPS))
        t = mlir_type(rows_ref.shape, np.float32)
        rt = mlir_type(reduced_ref.shape, np.float32)
        lhs_first = bool(self.rng.integers(2))
        if lhs_first:
            text = f"jeet.{op} {rows}, {reduced} : {t}, {rt} -> {t}"
            ref = ROW_OPS[op](rows_ref, reduced_ref)
        else:
            text = f"jeet.{op} {reduced}, {rows} : {rt}, {t} -> {t}"
            ref = ROW_OPS[op](reduced_ref, rows_ref)
        return self.emit(text), ref

    def unary(self, value, ref):
        # Bounded functions only: chains stay well conditioned.
        op = self.rng.choice(["tanh", "sigmoid", "neg", "abs"])
        fn = {"tanh": np.tanh, "sigmoid": lambda x: 0.5 * (1 + np.tanh(x / 2)),
              "neg": np.negative, "abs": np.abs}[op]
        return self.emit(f"jeet.{op} {value} : "
                         f"{mlir_type(ref.shape, np.float32)}"), fn(ref)

    def build(self):
        rank = int(self.rng.choice([2, 2, 3]))
        if rank == 2:
            # Some shapes tile (rows in blocks of 256 KiB), some do not.
            shape = (int(self.rng.choice([1, 5, 37, 128, 192, 256])),
                     int(self.rng.choice([3, 64, 1024, 2048])))
            axes = [1]
        else:
            shape = (int(self.rng.integers(1, 5)),
                     int(self.rng.choice([2, 40, 96])),
                     int(self.rng.choice([16, 512])))
            axes = [2] if self.rng.integers(2) else [1, 2]
        reduced_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
        x, x_ref = self.new_input(shape)
        rows, rows_ref = x, x_ref
        if self.rng.integers(2):  # a prologue
            rows, rows_ref = self.unary(rows, rows_ref)
        results = []
        for _ in range(int(self.rng.integers(2, 4))):
            red, red_ref = self.reduce(rows, rows_ref, axes, reduced_shape)
            if self.rng.integers(2):  # an epilogue on the reduced rows
                red, red_ref = self.unary(red, red_ref)
            base, base_ref = (x, x_ref) if self.rng.integers(2) else \
                (rows, rows_ref)
            rows, rows_ref = self.row_op(base, base_ref, red, red_ref)
            if self.rng.integers(2):
                rows, rows_ref = self.unary(rows, rows_ref)
        results.append((rows, rows_ref))
        params = ", ".join(f"{n}: {mlir_type(a.shape, np.float32)}"
                           for n, a in self.args)
        types = ", ".join(mlir_type(r.shape, np.float32) for _, r in results)
        names = ", ".join(n for n, _ in results)
        src = (f"func.func @main({params}) -> ({types}) {{\n"
               + "\n".join(self.lines)
               + f"\n  return {names} : {types}\n}}\n")
        return src, [a for _, a in self.args], [r for _, r in results]


@pytest.mark.parametrize("case", range(NUM_CASES), ids=lambda c: f"case_{c}")
def test_row_groups_match_unfused_and_numpy(tmp_path, case):
    seed = 20261201 + case
    src, inputs, refs = RowGraph(seed).build()
    fused = run_graph(tmp_path, src, inputs, ["--fuse=true"])
    unfused = run_graph(tmp_path, src, inputs, ["--fuse=false"])
    for i, (f, u, ref) in enumerate(zip(fused, unfused, refs)):
        what = f"seed {seed}, result {i}\n{src}"
        assert_close(f, ref, rtol=1e-4, what="fused vs numpy, " + what)
        assert_close(u, ref, rtol=1e-4, what="unfused vs numpy, " + what)
        assert_close(f, u.astype(np.float64), rtol=1e-4,
                     what="fused vs unfused, " + what)


@pytest.mark.parametrize("driver", GPU_DRIVERS)
@pytest.mark.parametrize("case", range(NUM_CASES), ids=lambda c: f"case_{c}")
def test_row_groups_on_gpu_match_numpy(tmp_path, case, driver):
    # The GPU arm: the same graphs through the GPU pipeline, where a group
    # whose rows fit a block's shared memory is one kernel (rows staged,
    # reductions a warp per row) and longer rows are split per reduction.
    seed = 20261201 + case
    src, inputs, refs = RowGraph(seed).build()
    outs = run_graph(tmp_path, src, inputs, gpu=driver)
    for i, (out, ref) in enumerate(zip(outs, refs)):
        assert_close(out, ref, rtol=1e-4,
                     what=f"GPU ({driver}) vs numpy, seed {seed}, result {i}"
                     f"\n{src}")


@pytest.mark.parametrize("cols", [3, 5, 17])
def test_f16_softmax_rows_feeding_a_log(tmp_path, rng, cols):
    """One f16 row whose length leaves a last lane alone (3 = 2 + 1, 5, 17):
    log(softmax(x) - y), where the guards of the exp and log approximations
    make one-lane masks. Code generation aborted on AVX-512 hosts when the
    compiler cut the long block that holds them into functions and passed
    such a mask to one (found by fuzz/python/fuzz_graph_builder.py; see
    lib/Compiler/OutlineLongBlocks.cpp)."""
    t = mlir_type((1, cols), np.float16)
    graph = (f"func.func @main(%x: {t}, %y: {t}) -> {t} {{\n"
             f"  %0 = jeet.softmax %x {{axis = 1 : i64}} : {t}\n"
             f"  %1 = jeet.sub %0, %y : {t}, {t} -> {t}\n"
             f"  %2 = jeet.log %1 : {t}\n"
             f"  return %2 : {t}\n}}\n")
    x = rng.uniform(-2, 2, size=(1, cols)).astype(np.float16)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    softmax = e / e.sum(axis=1, keepdims=True)
    # Below half of the smallest probability: the log's argument stays
    # positive whatever f16's rounding of the softmax.
    y = (rng.uniform(0, 0.5, size=(1, cols)) * softmax.min()).astype(np.float16)
    (out,) = run_graph(tmp_path, graph, [x, y])
    assert out.dtype == np.float16
    assert_close(out, np.log(softmax - y.astype(np.float64)), rtol=1e-2,
                 atol=1e-2, what=f"log(softmax(x) - y), 1x{cols} f16")


def test_bf16_softmax_feeding_a_sqrt(tmp_path, rng):
    """The same abort from a bf16 row of 31 (16 + 8 + 4 + 2 + 1 lanes):
    sqrt(softmax(rsqrt(x))), f32 at the graph's edges (numpy has no
    bfloat16)."""
    t32, t16 = mlir_type((31,), np.float32), "tensor<31xbf16>"
    graph = (f"func.func @main(%x: {t32}) -> {t32} {{\n"
             f"  %a = jeet.cast %x : {t32} -> {t16}\n"
             f"  %0 = jeet.rsqrt %a : {t16}\n"
             f"  %1 = jeet.softmax %0 {{axis = 0 : i64}} : {t16}\n"
             f"  %2 = jeet.sqrt %1 : {t16}\n"
             f"  %3 = jeet.cast %2 : {t16} -> {t32}\n"
             f"  return %3 : {t32}\n}}\n")
    x = rng.uniform(0.25, 4, size=31).astype(np.float32)
    (out,) = run_graph(tmp_path, graph, [x])
    r = 1 / np.sqrt(x.astype(np.float64))
    e = np.exp(r - r.max())
    # bfloat16 keeps 8 bits of mantissa: each of the four steps rounds.
    assert_close(out, np.sqrt(e / e.sum()), rtol=3e-2, atol=1e-3,
                 what="sqrt(softmax(rsqrt(x))), 31 bf16")


@pytest.mark.parametrize("reduction", ["reduce_sum", "reduce_max"])
def test_softmax_over_the_unit_axis_of_a_keepdims_reduction(run, rng,
                                                           reduction):
    """softmax(reduce(x, axis 2, keepdims)) over that axis of extent 1, then
    x's rows scaled by it: the softmax's reductions read the reduction's
    result through a reshape that adds the unit axis. jeet-gpu-form-kernels
    made them read its source instead and left their reduced loop with no
    extent (a segfault in tiling; found by fuzz_graph_builder.py --device
    gpu, seed 6005623)."""
    t, r = mlir_type((33, 2, 2), np.float32), mlir_type((33, 2, 1), np.float32)
    graph = (f"func.func @main(%x: {t}) -> ({r}, {t}) {{\n"
             f"  %0 = jeet.{reduction} %x {{axes = array<i64: 2>, "
             f"keepdims = true}} : {t} -> {r}\n"
             f"  %1 = jeet.softmax %0 {{axis = 2 : i64}} : {r}\n"
             f"  %2 = jeet.mul %x, %1 : {t}, {r} -> {t}\n"
             f"  return %1, %2 : {r}, {t}\n}}\n")
    x = rng.uniform(-3, 3, size=(33, 2, 2)).astype(np.float32)
    x64 = x.astype(np.float64)
    reduced = getattr(np, reduction.split("_")[1])(x64, axis=2, keepdims=True)
    e = np.exp(reduced - reduced.max(axis=2, keepdims=True))
    softmax = e / e.sum(axis=2, keepdims=True)
    out_softmax, out_scaled = run(graph, [x])
    assert_close(out_softmax, softmax, rtol=1e-6, what="softmax over one")
    assert_close(out_scaled, x64 * softmax, rtol=1e-6, what="x * softmax")


@pytest.mark.parametrize("size", [1, 4, 37])
def test_softmax_of_a_broadcast_scalar_also_returned(run, rng, size):
    """A scalar broadcast to a vector, its softmax over the only axis, both
    returned: the group is split at its reductions, which read the broadcast
    before the kernel that yields it. jeet-gpu-form-kernels made the
    reductions read that kernel's result (an op used before it is defined;
    found by fuzz_graph_builder.py --device gpu, seed 6012813)."""
    s, t = mlir_type((), np.float32), mlir_type((size,), np.float32)
    graph = (f"func.func @main(%x: {s}) -> ({t}, {t}) {{\n"
             f"  %0 = jeet.broadcast_to %x : {s} -> {t}\n"
             f"  %1 = jeet.softmax %0 {{axis = 0 : i64}} : {t}\n"
             f"  return %0, %1 : {t}, {t}\n}}\n")
    x = np.asarray(rng.uniform(-3, 3), np.float32)
    broadcast, softmax = run(graph, [x])
    assert_close(broadcast, np.full(size, x, np.float64), rtol=0,
                 what="the broadcast")
    assert_close(softmax, np.full(size, 1.0 / size), rtol=1e-6,
                 what="softmax of equal values")
