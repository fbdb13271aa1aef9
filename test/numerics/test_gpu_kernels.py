"""Graphs sized to take every path of Jeet's GPU kernels, on each device of
the `run` fixture (the CPU, the GPU emulator, a GPU where one answers),
against a float64 numpy reference on fresh random inputs.

The GPU strategies (lib/Codegen/GPU) and what the shapes here exercise:
- the tiled matmul (64x64 output tiles, K staged 16 deep in shared memory):
  K several tiles long with a partial last tile, M and N not multiples of
  any tile, K = 1, exact tiles, batch dimensions that broadcast, the fused
  epilogue, f16 and bf16 operands accumulated in f32, i32;
- warp reductions of rows (a warp per row, a shuffle butterfly, the
  combiner's identity in lanes past the row's end, vectors of 4 values a
  lane where the rows allow them): rows shorter and longer than a warp, not
  multiples of 32 or 4, inputs of two widths, all-negative rows for max;
- reductions of columns (a thread per output), and to a scalar;
- elementwise kernels with 16-byte vector accesses: sizes that are not
  multiples of the vector width or of the 1024-element tile, broadcasts;
- groups with several results.
"""
import math

import numpy as np
import pytest

from jeetrun import assert_close, mlir_type

F32 = np.float32


def t(shape, dtype=F32):
    """The tensor type; dtype "bf16" (which numpy lacks) or a numpy dtype."""
    if dtype == "bf16":
        return mlir_type(shape, F32).replace("f32>", "bf16>")
    return mlir_type(shape, dtype)


def to_bf16(x):
    """float32 values rounded to the nearest bfloat16 (ties to even), as
    float32."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1)))
    return (rounded & np.uint32(0xFFFF0000)).view(np.float32)


#===----------------------------------------------------------------------===#
# The tiled matmul
#===----------------------------------------------------------------------===#

MATMUL_SHAPES = [
    (67, 100, 45),   # K: 6 full tiles and a partial one; M, N past a tile
    (130, 48, 70),   # K: exactly 3 tiles; 3 tiles of rows, 2 of columns
    (1, 33, 1),      # one output, K 3 tiles long
    (5, 1, 7),       # K = 1
    (64, 64, 64),    # exact tiles
    (200, 17, 3),    # K one past a tile; a narrow N
]


def matmul_graph(a_shape, b_shape, out_shape, dtype=F32, bias=False,
                 relu=False):
    ta, tb, to = t(a_shape, dtype), t(b_shape, dtype), t(out_shape, dtype)
    params = f"%a: {ta}, %b: {tb}"
    body = f"  %0 = jeet.matmul %a, %b : {ta}, {tb} -> {to}\n"
    result = "%0"
    if bias:
        tbias = t(out_shape[-1:], dtype)
        params += f", %bias: {tbias}"
        body += f"  %1 = jeet.add %0, %bias : {to}, {tbias} -> {to}\n"
        result = "%1"
    if relu:
        body += f"  %2 = jeet.relu {result} : {to}\n"
        result = "%2"
    return (f"func.func @main({params}) -> {to} {{\n{body}"
            f"  return {result} : {to}\n}}\n")


@pytest.mark.parametrize("m,k,n", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("epilogue", [False, True], ids=["plain", "bias_relu"])
def test_matmul_tiles(run, rng, m, k, n, epilogue):
    a = rng.standard_normal((m, k)).astype(F32)
    b = rng.standard_normal((k, n)).astype(F32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    inputs = [a, b]
    if epilogue:
        bias = rng.standard_normal(n).astype(F32)
        inputs.append(bias)
        ref = np.maximum(ref + bias, 0)
    (out,) = run(matmul_graph((m, k), (k, n), (m, n), bias=epilogue,
                              relu=epilogue), inputs)
    assert_close(out, ref, rtol=1e-4, what=f"matmul {m}x{k}x{n}")


def test_matmul_k_rows_are_not_interchangeable(run, rng):
    """Every K row of B weighs differently (B[k, :] = k + 1), so a K-tile of
    B staged from the wrong rows changes every output."""
    m, k, n = 19, 70, 23
    a = rng.standard_normal((m, k)).astype(F32)
    b = np.repeat(np.arange(1, k + 1, dtype=F32)[:, None], n, axis=1)
    (out,) = run(matmul_graph((m, k), (k, n), (m, n)), [a, b])
    assert_close(out, a.astype(np.float64) @ b, rtol=1e-4)


def test_matmul_i32(run, rng):
    a = rng.integers(-50, 50, size=(37, 41), dtype=np.int32)
    b = rng.integers(-50, 50, size=(41, 29), dtype=np.int32)
    (out,) = run(matmul_graph(a.shape, b.shape, (37, 29), np.int32), [a, b])
    np.testing.assert_array_equal(out, a @ b)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((3, 37, 50), (3, 50, 29)),      # batched
    ((4, 37, 50), (50, 29)),         # B broadcast over the batch
    ((2, 1, 20, 33), (3, 33, 18)),   # both broadcast
], ids=str)
@pytest.mark.parametrize("relu", [False, True], ids=["plain", "relu"])
def test_batch_matmul(run, rng, a_shape, b_shape, relu):
    a = rng.standard_normal(a_shape).astype(F32)
    b = rng.standard_normal(b_shape).astype(F32)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    if relu:
        ref = np.maximum(ref, 0)
    (out,) = run(matmul_graph(a_shape, b_shape, ref.shape, relu=relu), [a, b])
    assert_close(out, ref, rtol=1e-4, what=f"{a_shape} @ {b_shape}")


@pytest.mark.parametrize("m,k,n", [(45, 70, 38), (3, 17, 65)], ids=str)
def test_matmul_f16(run, rng, m, k, n):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0)
    (out,) = run(matmul_graph((m, k), (k, n), (m, n), np.float16, relu=True),
                 [a, b])
    assert out.dtype == np.float16
    # One f16 rounding of an f32-accumulated sum.
    assert_close(out, ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())


@pytest.mark.parametrize("m,k,n", [(45, 70, 38), (66, 20, 3)], ids=str)
def test_matmul_bf16(run, rng, m, k, n):
    """bf16 operands (cast from f32 in the graph), f32 accumulation, one bf16
    rounding of the result."""
    ta, tb, to = t((m, k)), t((k, n)), t((m, n))
    ha, hb, ho = (t(s, "bf16") for s in ((m, k), (k, n), (m, n)))
    src = (f"func.func @main(%a: {ta}, %b: {tb}) -> {to} {{\n"
           f"  %0 = jeet.cast %a : {ta} -> {ha}\n"
           f"  %1 = jeet.cast %b : {tb} -> {hb}\n"
           f"  %2 = jeet.matmul %0, %1 : {ha}, {hb} -> {ho}\n"
           f"  %3 = jeet.cast %2 : {ho} -> {to}\n"
           f"  return %3 : {to}\n}}\n")
    a = rng.standard_normal((m, k)).astype(F32)
    b = rng.standard_normal((k, n)).astype(F32)
    ref = to_bf16(a).astype(np.float64) @ to_bf16(b).astype(np.float64)
    (out,) = run(src, [a, b])
    # bf16 keeps 8 significant bits: the result is within 2^-8 of the sum.
    assert_close(out, ref, rtol=2 ** -8, atol=2 ** -8 * np.abs(ref).max())


#===----------------------------------------------------------------------===#
# Reductions
#===----------------------------------------------------------------------===#

REDUCTIONS = {"reduce_sum": np.sum, "reduce_max": np.max,
              "reduce_mean": np.mean}

REDUCTION_CASES = [
    ((33, 257), (1,)),     # rows: 8 lanes past 256, 33 rows (5 row tiles)
    ((5, 1000), (1,)),     # long rows
    ((1, 31), (1,)),       # a row shorter than a warp
    ((300, 3), (1,)),      # rows of 3: 29 lanes start at the identity
    ((33, 257), (0,)),     # columns: a thread per output, 2 tiles
    ((300, 3), (0,)),
    ((2, 3, 65), (2,)),    # the innermost of three dimensions
    ((2, 3, 65), (1,)),
    ((37, 129), (0, 1)),   # to a scalar
]


def reduction_graph(op, shape, axes, keepdims, dtype=F32):
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(shape)
                      if keepdims or i not in axes)
    kd = "true" if keepdims else "false"
    return (f"func.func @main(%x: {t(shape, dtype)}) -> "
            f"{t(out_shape, dtype)} {{\n"
            f"  %0 = jeet.{op} %x {{axes = array<i64: "
            f"{', '.join(map(str, axes))}>, keepdims = {kd}}} : "
            f"{t(shape, dtype)} -> {t(out_shape, dtype)}\n"
            f"  return %0 : {t(out_shape, dtype)}\n}}\n")


@pytest.mark.parametrize("op", sorted(REDUCTIONS))
@pytest.mark.parametrize("shape,axes", REDUCTION_CASES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True], ids=["drop", "keep"])
def test_reduction(run, rng, op, shape, axes, keepdims):
    x = rng.standard_normal(shape).astype(F32)
    if op == "reduce_max":
        # All negative: a lane that starts at 0 instead of -inf shows.
        x = -np.abs(x) - 0.5
    ref = REDUCTIONS[op](x.astype(np.float64), axis=axes, keepdims=keepdims)
    (out,) = run(reduction_graph(op, shape, axes, keepdims), [x])
    assert_close(out, ref, rtol=1e-4, what=f"{op} {shape} {axes}")


@pytest.mark.parametrize("cols", [1000, 1004, 1001], ids=str)
@pytest.mark.parametrize("dtype", [F32, np.float16], ids=["f32", "f16"])
def test_row_reduction_of_a_product(run, rng, cols, dtype):
    """sum(x * y) along rows, y in f32: each lane reads a vector of 4 values
    of x and of y at a time (x in f16: 8 bytes beside y's 16) and folds them
    in order where the rows allow it (1000 and 1004 columns), one value at a
    time otherwise (1001); the 19 rows leave a partial tile of rows."""
    shape = (19, cols)
    red = "{axes = array<i64: 1>, keepdims = false}"
    src = (f"func.func @main(%x: {t(shape, dtype)}, %y: {t(shape)}) -> "
           f"{t((19,))} {{\n"
           f"  %x32 = jeet.cast %x : {t(shape, dtype)} -> {t(shape)}\n"
           f"  %p = jeet.mul %x32, %y : {t(shape)}, {t(shape)} -> {t(shape)}\n"
           f"  %0 = jeet.reduce_sum %p {red} : {t(shape)} -> {t((19,))}\n"
           f"  return %0 : {t((19,))}\n}}\n")
    x = rng.uniform(0.5, 1.5, size=shape).astype(dtype)
    y = rng.standard_normal(shape).astype(F32)
    ref = (x.astype(np.float64) * y.astype(np.float64)).sum(axis=1)
    (out,) = run(src, [x, y])
    assert_close(out, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max(),
                 what=f"row sum of a product {shape} {np.dtype(dtype).name}")


@pytest.mark.parametrize("shape,axes", [((33, 257), (1,)), ((300, 3), (1,)),
                                        ((33, 257), (0,))], ids=str)
def test_reduction_i32(run, rng, shape, axes):
    x = rng.integers(-1000, -1, size=shape, dtype=np.int32)
    for op, fn in (("reduce_sum", np.sum), ("reduce_max", np.max)):
        (out,) = run(reduction_graph(op, shape, axes, False, np.int32), [x])
        np.testing.assert_array_equal(out, fn(x, axis=axes), err_msg=op)


@pytest.mark.parametrize("shape,axis", [((37, 1000), 1), ((8, 3), 1),
                                        ((129, 7), 0), ((2, 5, 33), 2)],
                         ids=str)
def test_softmax(run, rng, shape, axis):
    # Large negative values: exp underflows unless the row max (all
    # negative) is subtracted first.
    x = (rng.standard_normal(shape) * 10 - 200).astype(F32)
    src = (f"func.func @main(%x: {t(shape)}) -> {t(shape)} {{\n"
           f"  %0 = jeet.softmax %x {{axis = {axis} : i64}} : {t(shape)}\n"
           f"  return %0 : {t(shape)}\n}}\n")
    (out,) = run(src, [x])
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    assert_close(out, e / e.sum(axis=axis, keepdims=True), rtol=1e-5,
                 atol=1e-6, what=f"softmax {shape} axis {axis}")


#===----------------------------------------------------------------------===#
# Elementwise kernels and vector accesses
#===----------------------------------------------------------------------===#

@pytest.mark.parametrize("a_shape,b_shape", [
    ((1023,), (1023,)),      # one element short of a tile, odd
    ((4097,), (4097,)),      # one element past 4 tiles
    ((3, 5, 7), (7,)),       # rows of 7 with a broadcast row
    ((33, 129), (33, 1)),    # a broadcast column
    ((1, 1), (1,)),
], ids=str)
@pytest.mark.parametrize("dtype", [F32, np.float16], ids=["f32", "f16"])
def test_elementwise_chain(run, rng, a_shape, b_shape, dtype):
    """(a + b) * a - tanh(b), fused into one kernel."""
    out_shape = np.broadcast_shapes(a_shape, b_shape)
    ta, tb, to = t(a_shape, dtype), t(b_shape, dtype), t(out_shape, dtype)
    src = (f"func.func @main(%a: {ta}, %b: {tb}) -> {to} {{\n"
           f"  %0 = jeet.add %a, %b : {ta}, {tb} -> {to}\n"
           f"  %1 = jeet.mul %0, %a : {to}, {ta} -> {to}\n"
           f"  %2 = jeet.tanh %b : {tb}\n"
           f"  %3 = jeet.sub %1, %2 : {to}, {tb} -> {to}\n"
           f"  return %3 : {to}\n}}\n")
    a = rng.standard_normal(a_shape).astype(dtype)
    b = rng.standard_normal(b_shape).astype(dtype)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = (a64 + b64) * a64 - np.tanh(b64)
    (out,) = run(src, [a, b])
    assert out.dtype == dtype
    tol = 1e-5 if dtype == F32 else 1e-2
    assert_close(out, ref, rtol=tol, atol=tol, what=f"{a_shape} {b_shape}")


@pytest.mark.parametrize("n", [1001, 4099])
def test_cast_bf16_round_trip(run, rng, n):
    src = (f"func.func @main(%x: {t((n,))}) -> {t((n,))} {{\n"
           f"  %0 = jeet.cast %x : {t((n,))} -> {t((n,), 'bf16')}\n"
           f"  %1 = jeet.cast %0 : {t((n,), 'bf16')} -> {t((n,))}\n"
           f"  return %1 : {t((n,))}\n}}\n")
    x = (rng.standard_normal(n) * 100).astype(F32)
    (out,) = run(src, [x])
    np.testing.assert_array_equal(out, to_bf16(x))


#===----------------------------------------------------------------------===#
# Groups with several results
#===----------------------------------------------------------------------===#

@pytest.mark.parametrize("shape", [(), (5,), (3, 1000)], ids=str)
def test_two_results_of_one_group(run, rng, shape):
    """s = a + b; return s, exp(s): one group, two results (on a scalar, one
    GPU tile with a shared output per result)."""
    ty = t(shape)
    src = (f"func.func @main(%a: {ty}, %b: {ty}) -> ({ty}, {ty}) {{\n"
           f"  %s = jeet.add %a, %b : {ty}, {ty} -> {ty}\n"
           f"  %e = jeet.exp %s : {ty}\n"
           f"  return %s, %e : {ty}, {ty}\n}}\n")
    a = rng.standard_normal(shape).astype(F32)
    b = rng.standard_normal(shape).astype(F32)
    s = a.astype(np.float64) + b.astype(np.float64)
    out_s, out_e = run(src, [a, b])
    assert_close(out_s, s, rtol=1e-6)
    assert_close(out_e, np.exp(s), rtol=1e-5)


def test_reduction_and_its_input_as_results(run, rng):
    """A row sum and the rows themselves, scaled, from one group."""
    shape = (45, 77)
    ty, tr = t(shape), t((45, 1))
    src = (f"func.func @main(%x: {ty}) -> ({ty}, {tr}) {{\n"
           f"  %0 = jeet.mul %x, %x : {ty}, {ty} -> {ty}\n"
           f"  %1 = jeet.reduce_sum %0 {{axes = array<i64: 1>, "
           f"keepdims = true}} : {ty} -> {tr}\n"
           f"  return %0, %1 : {ty}, {tr}\n}}\n")
    x = rng.standard_normal(shape).astype(F32)
    sq = x.astype(np.float64) ** 2
    out_sq, out_sum = run(src, [x])
    assert_close(out_sq, sq, rtol=1e-6)
    assert_close(out_sum, sq.sum(axis=1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, F32], ids=["f16", "f32"])
def test_reduction_and_its_consumer_as_results(run, rng, dtype):
    """An f16 sum (accumulated in f32) and its gelu, both results: one GPU
    kernel of two tiles, each filling the same f32 accumulator. Without a
    barrier between the tiles, threads of the second filled it while others
    still read it for the first: most of the sums came back 0 (found by
    fuzz_graph_builder.py --device gpu --compare-cpu, seed 7002500)."""
    ty, tr = t((3, 13, 1, 16), dtype), t((3, 13, 16), dtype)
    src = (f"func.func @main(%x: {ty}) -> ({tr}, {tr}) {{\n"
           f"  %0 = jeet.reduce_sum %x {{axes = array<i64: 2>}} : {ty} -> {tr}\n"
           f"  %1 = jeet.gelu %0 : {tr}\n"
           f"  return %1, %0 : {tr}, {tr}\n}}\n")
    x = rng.uniform(-2, 2, size=(3, 13, 1, 16)).astype(dtype)
    s = x.astype(np.float64).sum(axis=2)
    out_gelu, out_sum = run(src, [x])
    gelu = 0.5 * s * (1 + np.vectorize(math.erf)(s / math.sqrt(2)))
    assert_close(out_sum, s, rtol=0 if dtype == F32 else 1e-3)
    assert_close(out_gelu, gelu, rtol=1e-5 if dtype == F32 else 1e-2,
                 atol=1e-6 if dtype == F32 else 2e-3)


@pytest.mark.parametrize("dtype", [F32, np.float16], ids=["f32", "f16"])
def test_full_reduction_of_a_large_broadcast(run, rng, dtype):
    """min over every axis of a 3x1000 tensor broadcast to 31x3x1000: on the
    GPU a full reduction is one block, which held the broadcast whole in
    workgroup memory (186 KB in f16, more than a block has: a compilation
    error; found by fuzz_graph_builder.py --device gpu --compare-cpu, seed
    9081213). The broadcast is now a kernel of its own."""
    ts, tb = t((3, 1000), dtype), t((31, 3, 1000), dtype)
    src = (f"func.func @main(%x: {ts}) -> {t((), dtype)} {{\n"
           f"  %0 = jeet.broadcast_to %x : {ts} -> {tb}\n"
           f"  %1 = jeet.reduce_min %0 {{axes = array<i64: 0, 1, 2>}} : {tb} "
           f"-> {t((), dtype)}\n"
           f"  return %1 : {t((), dtype)}\n}}\n")
    x = rng.standard_normal((3, 1000)).astype(dtype)
    (out,) = run(src, [x])
    np.testing.assert_array_equal(out, x.min())


def test_sum_of_a_transpose(run, rng):
    """A transpose of 256 KiB under a sum to a scalar: it was a compilation
    error on the GPU (the one block of the sum held the transpose whole)."""
    ty = t((256, 256))
    src = (f"func.func @main(%x: {ty}) -> {t(())} {{\n"
           f"  %0 = jeet.transpose %x {{permutation = array<i64: 1, 0>}} : "
           f"{ty} -> {ty}\n"
           f"  %1 = jeet.reduce_sum %0 {{axes = array<i64: 0, 1>}} : {ty} -> "
           f"{t(())}\n"
           f"  return %1 : {t(())}\n}}\n")
    x = rng.standard_normal((256, 256)).astype(F32)
    (out,) = run(src, [x])
    assert_close(out, x.astype(np.float64).sum(), rtol=1e-4, atol=1e-3)
