"""Every jeet op through jeet-run on the CPU and on the GPU (the GPU emulator,
and hardware where a CUDA driver answers: the `run` fixture), on fresh random
inputs, against a float64 numpy reference."""
import math

import numpy as np
import pytest

from jeetrun import assert_close, mlir_type

F32 = np.float32


def nonzero(rng, shape, dtype=F32, positive=False):
    """Random values away from zero (and positive when asked)."""
    x = rng.uniform(0.5, 2.0, size=shape)
    if not positive:
        x *= rng.choice([-1.0, 1.0], size=shape)
    return x.astype(dtype)


def unary_graph(op, shape, dtype=F32):
    t = mlir_type(shape, dtype)
    return (f"func.func @main(%x: {t}) -> {t} {{\n"
            f"  %0 = jeet.{op} %x : {t}\n  return %0 : {t}\n}}\n")


def binary_graph(op, a_shape, b_shape, out_shape, dtype=F32):
    a, b, o = (mlir_type(s, dtype) for s in (a_shape, b_shape, out_shape))
    return (f"func.func @main(%a: {a}, %b: {b}) -> {o} {{\n"
            f"  %0 = jeet.{op} %a, %b : {a}, {b} -> {o}\n"
            f"  return %0 : {o}\n}}\n")


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


UNARY = {
    "neg": (np.negative, False),
    "abs": (np.abs, False),
    "exp": (np.exp, False),
    "log": (np.log, True),
    "sqrt": (np.sqrt, True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), True),
    "tanh": (np.tanh, False),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), False),
    "relu": (lambda x: np.maximum(x, 0), False),
    "gelu": (gelu, False),
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_f32(run, rng, op):
    fn, positive = UNARY[op]
    x = nonzero(rng, (5, 7), positive=positive)
    (out,) = run(unary_graph(op, x.shape), [x])
    assert out.dtype == F32
    assert_close(out, fn(x.astype(np.float64)), rtol=1e-5, atol=1e-6, what=op)


BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
    "pow": np.power,
}

BROADCASTS = [
    ((4, 5), (4, 5)),
    ((4, 5), (5,)),
    ((3, 1, 5), (4, 1)),
    ((), (6,)),
    ((2, 1), (1, 3)),
]


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_binary_f32(run, rng, op, shapes):
    a_shape, b_shape = shapes
    out_shape = np.broadcast_shapes(a_shape, b_shape)
    positive = op == "pow"
    a = nonzero(rng, a_shape, positive=positive)
    b = nonzero(rng, b_shape)
    (out,) = run(binary_graph(op, a_shape, b_shape, out_shape),
                       [a, b])
    ref = BINARY[op](a.astype(np.float64), b.astype(np.float64))
    assert_close(out, ref, rtol=1e-5, atol=1e-6, what=f"{op} {shapes}")


@pytest.mark.parametrize("op,fn", [("add", np.add), ("sub", np.subtract),
                                   ("mul", np.multiply), ("max", np.maximum),
                                   ("min", np.minimum)])
def test_binary_i32(run, rng, op, fn):
    a = rng.integers(-1000, 1000, size=(3, 4), dtype=np.int32)
    b = rng.integers(-1000, 1000, size=(4,), dtype=np.int32)
    (out,) = run(binary_graph(op, (3, 4), (4,), (3, 4),
                                              np.int32), [a, b])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, fn(a, b))


def test_div_i32_truncates_toward_zero(run, rng):
    a = rng.integers(-1000, 1000, size=(16,), dtype=np.int32)
    b = rng.integers(1, 50, size=(16,), dtype=np.int32) * rng.choice(
        [-1, 1], size=16).astype(np.int32)
    (out,) = run(binary_graph("div", (16,), (16,), (16,),
                                              np.int32), [a, b])
    np.testing.assert_array_equal(out, np.trunc(a / b).astype(np.int32))


@pytest.mark.parametrize("op,fn", [("neg", np.negative), ("abs", np.abs),
                                   ("relu", lambda x: np.maximum(x, 0))])
def test_unary_i32(run, rng, op, fn):
    x = rng.integers(-1000, 1000, size=(4, 5), dtype=np.int32)
    (out,) = run(unary_graph(op, x.shape, np.int32), [x])
    np.testing.assert_array_equal(out, fn(x))


@pytest.mark.parametrize("op", ["add", "mul", "exp", "tanh"])
def test_f16(run, rng, op):
    if op in UNARY:
        x = nonzero(rng, (4, 6), np.float16)
        (out,) = run(unary_graph(op, x.shape, np.float16), [x])
        ref = UNARY[op][0](x.astype(np.float64))
    else:
        a, b = nonzero(rng, (4, 6), np.float16), nonzero(rng, (6,), np.float16)
        (out,) = run(binary_graph(op, (4, 6), (6,), (4, 6),
                                                  np.float16), [a, b])
        ref = BINARY[op](a.astype(np.float64), b.astype(np.float64))
    assert out.dtype == np.float16
    assert_close(out, ref, rtol=1e-3, atol=1e-3, what=f"f16 {op}")


MATMULS = [
    ((8, 16), (16, 5)),
    ((1, 7), (7, 1)),
    ((3, 4, 6), (3, 6, 5)),
    ((2, 1, 4, 6), (3, 6, 5)),
    ((4, 6), (2, 6, 3)),
    ((3, 50), (50, 300)),      # few rows: column panels in parallel
    ((1, 128), (128, 1000)),   # a matrix-vector product
    ((100, 37), (37, 130)),    # B's full panels packed, 2 columns left
]


@pytest.mark.parametrize("shapes", MATMULS, ids=str)
def test_matmul(run, rng, shapes):
    a_shape, b_shape = shapes
    a = rng.standard_normal(a_shape).astype(F32)
    b = rng.standard_normal(b_shape).astype(F32)
    out_shape = np.matmul(a, b).shape
    (out,) = run(binary_graph("matmul", a_shape, b_shape,
                                              out_shape), [a, b])
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert_close(out, ref, rtol=1e-4, what=f"matmul {shapes}")


def test_matmul_i32(run, rng):
    a = rng.integers(-20, 20, size=(5, 6), dtype=np.int32)
    b = rng.integers(-20, 20, size=(6, 3), dtype=np.int32)
    (out,) = run(binary_graph("matmul", (5, 6), (6, 3), (5, 3),
                                              np.int32), [a, b])
    np.testing.assert_array_equal(out, a @ b)


REDUCTIONS = {"reduce_sum": np.sum, "reduce_max": np.max,
              "reduce_mean": np.mean}
AXES = [(0,), (1,), (2,), (0, 2), (0, 1, 2)]


@pytest.mark.parametrize("op", sorted(REDUCTIONS))
@pytest.mark.parametrize("axes", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction(run, rng, op, axes, keepdims):
    x = rng.standard_normal((3, 4, 5)).astype(F32)
    ref = REDUCTIONS[op](x.astype(np.float64), axis=axes, keepdims=keepdims)
    t_in, t_out = mlir_type(x.shape, F32), mlir_type(ref.shape, F32)
    kd = "true" if keepdims else "false"
    axes_attr = ", ".join(map(str, axes))
    src = (f"func.func @main(%x: {t_in}) -> {t_out} {{\n"
           f"  %0 = jeet.{op} %x {{axes = array<i64: {axes_attr}>, "
           f"keepdims = {kd}}} : {t_in} -> {t_out}\n"
           f"  return %0 : {t_out}\n}}\n")
    (out,) = run(src, [x])
    assert_close(out, ref, rtol=1e-4, what=f"{op} {axes} {keepdims}")


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_softmax(run, rng, axis):
    x = (rng.standard_normal((3, 4, 5)) * 10).astype(F32)
    t = mlir_type(x.shape, F32)
    src = (f"func.func @main(%x: {t}) -> {t} {{\n"
           f"  %0 = jeet.softmax %x {{axis = {axis} : i64}} : {t}\n"
           f"  return %0 : {t}\n}}\n")
    (out,) = run(src, [x])
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    assert_close(out, e / e.sum(axis=axis, keepdims=True), rtol=1e-5,
                 atol=1e-6, what=f"softmax axis {axis}")


def test_softmax_large_values_do_not_overflow(run, rng):
    x = (rng.standard_normal((2, 8)) * 100 + 500).astype(F32)
    t = mlir_type(x.shape, F32)
    src = (f"func.func @main(%x: {t}) -> {t} {{\n"
           f"  %0 = jeet.softmax %x {{axis = 1 : i64}} : {t}\n"
           f"  return %0 : {t}\n}}\n")
    (out,) = run(src, [x])
    assert np.isfinite(out).all()
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    assert_close(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 0, 1), (0, 2, 1)])
def test_transpose(run, rng, perm):
    x = rng.standard_normal((2, 3, 4)).astype(F32)
    out_shape = tuple(x.shape[p] for p in perm)
    t_in, t_out = mlir_type(x.shape, F32), mlir_type(out_shape, F32)
    src = (f"func.func @main(%x: {t_in}) -> {t_out} {{\n"
           f"  %0 = jeet.transpose %x {{permutation = array<i64: "
           f"{', '.join(map(str, perm))}>}} : {t_in} -> {t_out}\n"
           f"  return %0 : {t_out}\n}}\n")
    (out,) = run(src, [x])
    np.testing.assert_array_equal(out, np.transpose(x, perm))


@pytest.mark.parametrize("shapes", [((2, 6), (3, 4)), ((2, 3, 4), (24,)),
                                    ((24,), (2, 3, 4)), ((1, 6), (6, 1)),
                                    ((4, 6), (2, 3, 4))], ids=str)
def test_reshape(run, rng, shapes):
    in_shape, out_shape = shapes
    x = rng.standard_normal(in_shape).astype(F32)
    t_in, t_out = mlir_type(in_shape, F32), mlir_type(out_shape, F32)
    src = (f"func.func @main(%x: {t_in}) -> {t_out} {{\n"
           f"  %0 = jeet.reshape %x : {t_in} -> {t_out}\n"
           f"  return %0 : {t_out}\n}}\n")
    (out,) = run(src, [x])
    np.testing.assert_array_equal(out, x.reshape(out_shape))


@pytest.mark.parametrize("shapes", [((3,), (4, 3)), ((4, 1), (4, 3)),
                                    ((1, 3, 1), (2, 3, 5)), ((), (2, 2))],
                         ids=str)
def test_broadcast_to(run, rng, shapes):
    in_shape, out_shape = shapes
    x = rng.standard_normal(in_shape).astype(F32)
    t_in, t_out = mlir_type(in_shape, F32), mlir_type(out_shape, F32)
    src = (f"func.func @main(%x: {t_in}) -> {t_out} {{\n"
           f"  %0 = jeet.broadcast_to %x : {t_in} -> {t_out}\n"
           f"  return %0 : {t_out}\n}}\n")
    (out,) = run(src, [x])
    np.testing.assert_array_equal(out, np.broadcast_to(x, out_shape))


@pytest.mark.parametrize("src_dtype,dst_dtype", [
    (np.float32, np.float16), (np.float16, np.float32),
    (np.float32, np.int32), (np.int32, np.float32)])
def test_cast(run, rng, src_dtype, dst_dtype):
    if src_dtype == np.int32:
        x = rng.integers(-10000, 10000, size=(3, 5), dtype=np.int32)
    else:
        x = (rng.standard_normal((3, 5)) * 100).astype(src_dtype)
    t_in, t_out = mlir_type(x.shape, src_dtype), mlir_type(x.shape, dst_dtype)
    src = (f"func.func @main(%x: {t_in}) -> {t_out} {{\n"
           f"  %0 = jeet.cast %x : {t_in} -> {t_out}\n"
           f"  return %0 : {t_out}\n}}\n")
    (out,) = run(src, [x])
    assert out.dtype == dst_dtype
    # numpy's astype rounds to nearest even and truncates float -> int toward
    # zero, as jeet.cast does.
    np.testing.assert_array_equal(out, x.astype(dst_dtype))


def test_constant(run, rng):
    x = rng.standard_normal((2, 3)).astype(F32)
    t = mlir_type(x.shape, F32)
    src = (f"func.func @main(%x: {t}) -> {t} {{\n"
           f"  %c = jeet.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : {t}\n"
           f"  %0 = jeet.mul %x, %c : {t}, {t} -> {t}\n"
           f"  return %0 : {t}\n}}\n")
    (out,) = run(src, [x])
    assert_close(out, x.astype(np.float64) * np.arange(1, 7).reshape(2, 3),
                 rtol=1e-6)


def test_mlp_with_softmax(run, rng):
    """A 3-layer perceptron with a softmax head, fused and not fused."""
    x = rng.standard_normal((16, 32)).astype(F32)
    ws = [rng.standard_normal(s).astype(F32) * 0.3
          for s in [(32, 64), (64, 64), (64, 10)]]
    bs = [rng.standard_normal(s[1:]).astype(F32) for s in [w.shape for w in ws]]
    src = """
func.func @main(%x: tensor<16x32xf32>, %w0: tensor<32x64xf32>, %b0: tensor<64xf32>,
                %w1: tensor<64x64xf32>, %b1: tensor<64xf32>,
                %w2: tensor<64x10xf32>, %b2: tensor<10xf32>) -> tensor<16x10xf32> {
  %0 = jeet.matmul %x, %w0 : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %1 = jeet.add %0, %b0 : tensor<16x64xf32>, tensor<64xf32> -> tensor<16x64xf32>
  %2 = jeet.relu %1 : tensor<16x64xf32>
  %3 = jeet.matmul %2, %w1 : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
  %4 = jeet.add %3, %b1 : tensor<16x64xf32>, tensor<64xf32> -> tensor<16x64xf32>
  %5 = jeet.relu %4 : tensor<16x64xf32>
  %6 = jeet.matmul %5, %w2 : tensor<16x64xf32>, tensor<64x10xf32> -> tensor<16x10xf32>
  %7 = jeet.add %6, %b2 : tensor<16x10xf32>, tensor<10xf32> -> tensor<16x10xf32>
  %8 = jeet.softmax %7 {axis = 1 : i64} : tensor<16x10xf32>
  return %8 : tensor<16x10xf32>
}
"""
    h = x.astype(np.float64)
    for w, b in zip(ws, bs):
        h = h @ w.astype(np.float64) + b
        if w.shape[1] != 10:
            h = np.maximum(h, 0)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    inputs = [x] + [t for pair in zip(ws, bs) for t in pair]
    for fuse in ("true", "false"):
        (out,) = run(src, inputs, [f"--fuse={fuse}"])
        assert_close(out, ref, rtol=1e-4, atol=1e-5, what=f"mlp fuse={fuse}")


@pytest.mark.parametrize("m,k,n", [(100, 37, 130), (97, 64, 200), (200, 16, 97),
                                   (128, 8, 256)])
def test_matmul_bias_relu_tiles(run, rng, m, k, n):
    # The fused epilogue is tiled; sizes that 64 does not divide get tiles of
    # another divisor (50, 65, 100) or one tile (97), all static.
    a = rng.standard_normal((m, k)).astype(F32)
    b = rng.standard_normal((k, n)).astype(F32)
    bias = rng.standard_normal(n).astype(F32)
    ta, tb, to = (mlir_type(s, F32) for s in [(m, k), (k, n), (m, n)])
    tbias = mlir_type((n,), F32)
    src = (f"func.func @main(%a: {ta}, %b: {tb}, %bias: {tbias}) -> {to} {{\n"
           f"  %0 = jeet.matmul %a, %b : {ta}, {tb} -> {to}\n"
           f"  %1 = jeet.add %0, %bias : {to}, {tbias} -> {to}\n"
           f"  %2 = jeet.relu %1 : {to}\n"
           f"  return %2 : {to}\n}}\n")
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
    (out,) = run(src, [a, b, bias])
    assert_close(out, ref, rtol=1e-4, what=f"matmul+bias+relu {m}x{k}x{n}")


@pytest.mark.parametrize("a_shape,b_shape", [
    ((16, 24, 40), (40, 33)), ((2, 3, 37, 19), (19, 41)),
    ((5, 70, 33), (2, 5, 33, 20)), ((3, 1, 8, 4), (5, 4, 6))], ids=str)
@pytest.mark.parametrize("epilogue", [False, True])
def test_broadcast_batch_matmul(run, rng, a_shape, b_shape, epilogue):
    # Batch dimensions that broadcast: one 2-D kernel per batch on the CPU,
    # alone and with a fused relu.
    a = rng.standard_normal(a_shape).astype(F32)
    b = rng.standard_normal(b_shape).astype(F32)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    ta, tb, to = (mlir_type(s, F32) for s in (a_shape, b_shape, ref.shape))
    body = f"  %0 = jeet.matmul %a, %b : {ta}, {tb} -> {to}\n"
    if epilogue:
        body += f"  %1 = jeet.relu %0 : {to}\n  return %1 : {to}\n"
        ref = np.maximum(ref, 0)
    else:
        body += f"  return %0 : {to}\n"
    src = f"func.func @main(%a: {ta}, %b: {tb}) -> {to} {{\n{body}}}\n"
    (out,) = run(src, [a, b])
    assert_close(out, ref, rtol=1e-4, what=f"{a_shape} @ {b_shape}")


@pytest.mark.parametrize("a_shape,b_shape", [
    ((64, 48), (48, 40)), ((3, 37, 19), (3, 19, 41)), ((2, 37, 19), (19, 41)),
    ((100, 70), (70, 130))], ids=str)
def test_matmul_f16_relu(run, rng, a_shape, b_shape):
    # f16 operands, f32 accumulation in the register-tiled CPU kernel, the
    # fused relu applied before the result is rounded to f16.
    a = rng.standard_normal(a_shape).astype(np.float16)
    b = rng.standard_normal(b_shape).astype(np.float16)
    ref = np.maximum(np.matmul(a.astype(np.float64), b.astype(np.float64)), 0)
    ta, tb, to = (mlir_type(s, np.float16) for s in (a_shape, b_shape, ref.shape))
    src = (f"func.func @main(%a: {ta}, %b: {tb}) -> {to} {{\n"
           f"  %0 = jeet.matmul %a, %b : {ta}, {tb} -> {to}\n"
           f"  %1 = jeet.relu %0 : {to}\n  return %1 : {to}\n}}\n")
    (out,) = run(src, [a, b])
    assert out.dtype == np.float16
    # One f16 rounding of an f32-accumulated sum.
    assert_close(out, ref, rtol=1e-3, atol=1e-4, what=f"f16 {a_shape} @ {b_shape}")
