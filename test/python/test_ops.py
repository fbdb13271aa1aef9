"""Every op against a float64 NumPy reference on fresh random inputs."""

import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import jeet

SHAPE = (37, 53)  # odd sizes: no vector-width luck


def randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def positive(rng, *shape):
    return rng.uniform(0.1, 4.0, shape).astype(np.float32)


def unit(rng, *shape):
    return rng.uniform(-0.95, 0.95, shape).astype(np.float32)


def above_one(rng, *shape):
    return rng.uniform(1.0, 5.0, shape).astype(np.float32)


def wide(rng, *shape):
    return (4 * rng.standard_normal(shape)).astype(np.float32)


def away_from_zero(rng, *shape):
    x = rng.uniform(0.5, 3.0, shape) * rng.choice([-1.0, 1.0], shape)
    return x.astype(np.float32)


def t(x):
    return jeet.tensor(x, dtype="float32", device="cpu")


def check(result, expected, rtol=1e-5, atol=1e-6):
    assert isinstance(result, jeet.Tensor)
    got = result.numpy()
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def f64(x):
    return np.asarray(x, dtype=np.float64)


erf_ref = np.vectorize(math.erf)


def gelu_ref(x):
    """GELU's default (exact) form, as torch's."""
    x = f64(x)
    return 0.5 * x * (1 + erf_ref(x / math.sqrt(2)))


def gelu_tanh_ref(x):
    x = f64(x)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


UNARY = {
    "neg": (randn, lambda x: -x),
    "abs": (randn, np.abs),
    "exp": (randn, np.exp),
    "log": (positive, np.log),
    "sqrt": (positive, np.sqrt),
    "rsqrt": (positive, lambda x: 1 / np.sqrt(x)),
    "tanh": (randn, np.tanh),
    "sigmoid": (randn, lambda x: 1 / (1 + np.exp(-x))),
    "relu": (randn, lambda x: np.maximum(x, 0)),
    "gelu": (randn, gelu_ref),
    "erf": (randn, lambda x: erf_ref(f64(x))),
    "sin": (randn, np.sin),
    "cos": (randn, np.cos),
    "tan": (unit, np.tan),
    "asin": (unit, np.arcsin),
    "acos": (unit, np.arccos),
    "atan": (wide, np.arctan),
    "sinh": (randn, np.sinh),
    "cosh": (randn, np.cosh),
    "asinh": (wide, np.arcsinh),
    "acosh": (above_one, np.arccosh),
    "atanh": (unit, np.arctanh),
    "floor": (wide, np.floor),
    "ceil": (wide, np.ceil),
    "round": (wide, np.round),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, rng):
    make, ref = UNARY[name]
    x = make(rng, *SHAPE)
    check(getattr(jeet, name)(t(x)), ref(f64(x)))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_method(name, rng):
    make, ref = UNARY[name]
    x = make(rng, 5, 7)
    check(getattr(t(x), name)(), ref(f64(x)))


BINARY = {
    "add": (randn, randn, np.add),
    "sub": (randn, randn, np.subtract),
    "mul": (randn, randn, np.multiply),
    "div": (randn, away_from_zero, np.divide),
    "maximum": (randn, randn, np.maximum),
    "minimum": (randn, randn, np.minimum),
    "pow": (positive, randn, np.power),
    "fmod": (wide, away_from_zero, np.fmod),
    "remainder": (wide, away_from_zero, np.remainder),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, rng):
    make_a, make_b, ref = BINARY[name]
    a, b = make_a(rng, *SHAPE), make_b(rng, *SHAPE)
    check(getattr(jeet, name)(t(a), t(b)), ref(f64(a), f64(b)))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((4, 1, 5), (3, 1)), ((6,), (2, 3, 6)),
                                    ((), (4, 3)), ((5, 1), (1, 7))])
def test_binary_broadcasting(name, shapes, rng):
    make_a, make_b, ref = BINARY[name]
    a, b = make_a(rng, *shapes[0]), make_b(rng, *shapes[1])
    check(getattr(jeet, name)(t(a), t(b)), ref(f64(a), f64(b)))


@pytest.mark.parametrize("shapes", [((64, 32), (32, 48)), ((1, 1), (1, 1)),
                                    ((33, 17), (17, 65)),
                                    ((3, 16, 8), (8, 12)),
                                    ((2, 1, 5, 7), (3, 7, 4))])
def test_matmul(shapes, rng):
    a, b = randn(rng, *shapes[0]), randn(rng, *shapes[1])
    check(jeet.matmul(t(a), t(b)), np.matmul(f64(a), f64(b)), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shapes", [
    # Epilogue tiles along the columns alone, B's rows 1 KiB apart: each
    # tile reads B as it is (an MLP layer at batch 64).
    ((64, 784), (784, 256)),
    # The same with B's rows 4 KiB apart: each tile packs its own panel.
    ((64, 96), (96, 1024)),
    # Tiles along rows and columns: one copy of B's panels for all.
    ((200, 64), (64, 256)),
    # Small enough to run on one thread.
    ((64, 256), (256, 10))])
def test_matmul_bias_relu(shapes, rng):
    a, b = randn(rng, *shapes[0]), randn(rng, *shapes[1])
    bias = randn(rng, shapes[1][1])
    check(jeet.relu(jeet.matmul(t(a), t(b)) + t(bias)),
          np.maximum(f64(a) @ f64(b) + f64(bias), 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shapes", [
    # One row: the column panels run in parallel instead of the rows.
    ((1, 700), (700, 37)),
    # K past one reduction block (k-block is at most 512), not a multiple of
    # it; one remainder row past the 6-row register tiles and 2 columns past
    # the 16- and 64-column ones.
    ((97, 1031), (1031, 130)),
    # Remainders in M, N and K at once, several row blocks per thread.
    ((389, 517), (517, 259)),
    # Batched, K of one block and a bit.
    ((3, 25, 530), (3, 530, 47)),
    # K one step past two blocks of 256 (Zen 3's k-block): three blocks of
    # equal depth, each added to C after its loop; one remainder row and 3
    # remainder columns.
    ((13, 513), (513, 35)),
    # K four whole blocks of 256 (or two of 512), 7 rows: a 6-row tile and
    # a 1-row one.
    ((7, 1024), (1024, 48))])
def test_matmul_blocks(shapes, rng):
    a, b = randn(rng, *shapes[0]), randn(rng, *shapes[1])
    check(jeet.matmul(t(a), t(b)), np.matmul(f64(a), f64(b)), rtol=1e-4,
          atol=1e-3)


@pytest.mark.parametrize("k", [37, 1031])
@pytest.mark.parametrize("n", [2, 3, 6, 7, 9, 12, 15, 17, 28, 44, 70, 73])
def test_matmul_remainder_columns(n, k, rng):
    """Columns past the register tile's whole vectors: on AVX-512 one vector
    with its last lanes masked off (9 columns: 9 of 16 lanes), its loads of B
    and C and its stores of C masked. A store past a row's end would write
    the next row's first columns (70, 73: after their tiles); K past one
    k-block adds each block's tile to C. Alone and with an epilogue (the
    tiles' kernel); against float64."""
    a, b, bias = randn(rng, 13, k), randn(rng, k, n), randn(rng, n)
    check(jeet.matmul(t(a), t(b)), f64(a) @ f64(b), rtol=1e-4, atol=1e-3)
    check(jeet.relu(jeet.matmul(t(a), t(b)) + t(bias)),
          np.maximum(f64(a) @ f64(b) + f64(bias), 0), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("shapes", [((32, 1152), (1, 1152, 576)), ((8, 64), (64, 256)),
                                    ((100, 300), (300, 512)), ((127, 1030), (1030, 192)),
                                    ((7, 64), (64, 256)), ((32, 200), (200, 1000))], ids=str)
def test_matmul_of_few_rows_in_column_tiles(shapes, rng):
    """A product of 8 to 127 rows yielded alone (a convolution without bias)
    is computed in tiles of its columns, each reading its columns of B in
    place, with its initial fill in each tile; 7 rows, and 1000 columns
    (tiles of 125), keep the whole product. Against float64, the result
    whole and read by the next kernel."""
    a, b = randn(rng, *shapes[0]), randn(rng, *shapes[1])
    want = np.matmul(f64(a), f64(b))
    got = jeet.matmul(t(a), t(b))
    check(got, want, rtol=1e-4, atol=1e-3)
    tiled = "scf.forall" in jeet.compile(got).ir("linalg")
    rows, cols = shapes[0][0], shapes[1][-1]
    assert tiled == (8 <= rows < 128 and cols % 64 == 0), jeet.compile(got).ir("linalg")
    check(jeet.sum(jeet.matmul(t(a), t(b)), axis=-1), want.sum(axis=-1), rtol=1e-4,
          atol=1e-2)


@pytest.mark.parametrize("shapes", [((131, 600), (600, 192)),
                                    ((70, 1030), (1030, 100))])
def test_matmul_blocks_bias_relu(shapes, rng):
    a, b = randn(rng, *shapes[0]), randn(rng, *shapes[1])
    bias = randn(rng, shapes[1][1])
    check(jeet.relu(jeet.matmul(t(a), t(b)) + t(bias)),
          np.maximum(f64(a) @ f64(b) + f64(bias), 0), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("shape", [(2, 6, 6, 40), (3, 49, 40), (2, 3, 1, 40)])
def test_matmul_of_batches_of_rows_by_a_matrix(shape, rng):
    """(..., M, K) x (K, N) is one product of (P * M, K) rows (jeet-decompose),
    its bias and a residual connection in the same kernel; a transposed lhs
    stays batched (read in place); against float64."""
    x, w, b = randn(rng, *shape), randn(rng, shape[-1], 40), randn(rng, 40)
    h = jeet.matmul(t(x), t(w)) + t(b)
    got = h + t(x)
    check(got, f64(x) @ f64(w) + f64(b) + f64(x), rtol=1e-4, atol=1e-4)
    assert len(jeet.compile(got).kernel_ops) == 1, jeet.compile(got).kernel_ops
    xt = randn(rng, *shape[:-2], shape[-1], shape[-2])
    rank = len(shape)
    perm = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    got = jeet.relu(jeet.matmul(jeet.transpose(t(xt), perm), t(w)))
    check(got, np.maximum(np.swapaxes(f64(xt), -1, -2) @ f64(w), 0), rtol=1e-4, atol=1e-4)


def test_matmul_operator(rng):
    a, b = randn(rng, 40, 30), randn(rng, 30, 20)
    check(t(a) @ t(b), f64(a) @ f64(b), rtol=1e-4, atol=1e-4)
    check(t(a) @ b, f64(a) @ f64(b), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("perm", [None, (1, 0, 2), (2, 0, 1), (-1, 0, 1)])
def test_transpose(perm, rng):
    x = randn(rng, 3, 4, 5)
    check(jeet.transpose(t(x), perm), np.transpose(f64(x), perm))


@pytest.mark.parametrize("shape, perm", [
    ((3, 37, 5), (2, 0, 1)),      # innermost moved: read lane by lane
    ((6, 7, 33), (1, 0, 2)),      # innermost kept: whole rows
    ((2, 3, 3, 40), (0, 3, 1, 2)),  # NHWC to NCHW, a pointwise conv's result
    ((300, 300), (1, 0)),         # large: read in blocks transposed in registers
    ((2, 100, 40, 24), (0, 3, 1, 2)),  # large, 4-D: blocks too
    ((3, 30000), (1, 0)),         # large with rows of 3: a copy first
])
def test_transpose_read_in_place_by_elementwise_ops(shape, perm, rng):
    """An elementwise op after a transpose of a value in memory reads it
    through its indexing map (one kernel; where the transpose moves the
    innermost dimension, the loads gathered lane by lane when small, in
    blocks transposed in registers when both dimensions that trade places
    span 16 or more), with a broadcast operand; against float64."""
    x = randn(rng, *shape)
    y = randn(rng, *np.transpose(x, perm).shape[-1:])
    got = jeet.exp(jeet.tanh(jeet.transpose(t(x), perm)) + t(y))
    want = np.exp(np.tanh(np.transpose(f64(x), perm)) + f64(y))
    check(got, want, rtol=1e-5, atol=1e-6)
    moved = perm[-1] != len(perm) - 1
    small = np.prod(shape) <= 1 << 16
    out = np.transpose(x, perm).shape
    blocked = out[-1] >= 16 and out[perm.index(len(perm) - 1)] >= 16
    kernels = jeet.compile(got).kernel_ops
    assert len(kernels) == (1 if (small or not moved or blocked) else 2), kernels


@pytest.mark.parametrize("shape, perm", [
    ((1029, 37), (1, 0)),           # blocks of 16 and both ends left over
    ((256, 512), (1, 0)),           # blocks alone
    ((6, 5), (1, 0)),               # blocks of 4
    ((12, 40), (1, 0)),             # blocks of 8 (an AVX2 host's, on any host)
    ((9, 100, 10), (0, 2, 1)),      # blocks of 8 with a batch
    ((3, 40, 24), (2, 0, 1)),
    ((5, 33, 20), (0, 2, 1)),       # the batch dimension a parallel loop
    ((2, 17, 5, 19), (0, 3, 1, 2)),
    ((3, 2), (1, 0)),               # too small for a block: gathered
])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32", "int64", "bool"])
def test_transpose_in_register_blocks(shape, perm, dtype, rng):
    """Transposes that move the innermost dimension run as blocks
    transposed in vector registers (jeet-cpu-vectorize-transpose), the
    block's side by element size, with the ends the blocks leave gathered:
    every element lands where numpy puts it, in every dtype."""
    x = rng.standard_normal(shape) * 100
    if dtype == "bool":
        x = x > 0
    elif dtype.startswith("int"):
        x = x.astype(dtype)
    x = jeet.tensor(x, dtype=dtype, device="cpu")
    want = np.transpose(x.numpy(), perm)
    got = jeet.transpose(x, perm).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_T(rng):
    x = randn(rng, 6, 9)
    check(t(x).T, f64(x).T)


@pytest.mark.parametrize("shape", [(20, 3), (-1,), (5, -1, 2), (60,), (1, 60, 1)])
def test_reshape(shape, rng):
    x = randn(rng, 3, 4, 5)
    check(jeet.reshape(t(x), shape), f64(x).reshape(shape))
    check(t(x).reshape(*shape), f64(x).reshape(shape))


@pytest.mark.parametrize("shapes", [((3,), (4, 3)), ((4, 1), (4, 5)),
                                    ((), (2, 3)), ((2, 1, 3), (5, 2, 4, 3))])
def test_broadcast_to(shapes, rng):
    x = randn(rng, *shapes[0])
    check(jeet.broadcast_to(t(x), shapes[1]), np.broadcast_to(f64(x), shapes[1]))


REDUCTIONS = {"sum": np.sum, "max": np.max, "mean": np.mean}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (-1, -3)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, axis, keepdims, rng):
    x = randn(rng, 7, 9, 11)
    ref = REDUCTIONS[name](f64(x), axis=axis, keepdims=keepdims)
    check(getattr(jeet, name)(t(x), axis=axis, keepdims=keepdims), ref,
          rtol=1e-4, atol=1e-5)
    check(getattr(t(x), name)(axis=axis, keepdims=keepdims), ref,
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("shape", [(8, 64, 1, 1), (3, 37, 1), (2, 5, 1, 1)], ids=str)
def test_reductions_over_channels_of_unit_maps(name, shape, rng):
    """A reduction over axis 1 of (N, C, 1, 1): the loops after the reduced
    one run once (dropped, so the vectors run along the channels), with an
    elementwise prologue, then a softmax and an argmax over the channels."""
    x = randn(rng, *shape)
    ref = REDUCTIONS[name](np.exp(f64(x)), axis=1, keepdims=True)
    check(getattr(jeet, name)(jeet.exp(t(x)), axis=1, keepdims=True), ref,
          rtol=1e-4, atol=1e-5)
    e = np.exp(f64(x) - f64(x).max(axis=1, keepdims=True))
    check(jeet.softmax(t(x), axis=1), e / e.sum(axis=1, keepdims=True),
          rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(jeet.argmax(t(x), axis=1).numpy(),
                                  np.argmax(x, axis=1))


@pytest.mark.parametrize("name", ["sum", "max", "min"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32], ids=str)
@pytest.mark.parametrize("shape,k", [((3, 28, 28), 2), ((2, 12, 12), 2), ((5, 6, 21), 3),
                                     ((4, 4, 2), 2), ((2, 9, 45), 3)], ids=str)
def test_reductions_over_windows_of_any_width(name, dtype, shape, k, rng):
    """A reduction over k x k windows that tile the input (a reshape to
    (C, H/k, k, W/k, k), axes 2 and 4: a pooling written by hand, as
    einops' reduce does) whose output row no vector width divides (14, 7,
    1) takes vectors with one narrower step at the end of each row (it took
    scalar loops, 5-10 times slower). Against float64 (exact for max, min
    and integers), with NaN and infinities in the float maxima."""
    c, h, w = shape
    if dtype == np.int32:
        x = rng.integers(-1000, 1000, shape).astype(np.int32)
    else:
        x = (rng.standard_normal(shape) * 4).astype(dtype)
        if name != "sum":
            x[0, 0, 0] = np.nan
            x[-1, -1, -1] = np.inf
            x[-1, 0, -1] = -np.inf
    windows = x.reshape(c, h // k, k, w // k, k)
    got = getattr(jeet, name)(t(windows), axis=(2, 4)).numpy()
    want = getattr(np, name)(windows.astype(np.float64), axis=(2, 4))
    if name == "sum" and dtype != np.int32:
        tol = 1e-6 if dtype == np.float32 else 4e-3
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol * 8)
    else:
        np.testing.assert_array_equal(got.astype(np.float64), want)


def test_large_sum(rng):
    x = randn(rng, 512, 1024)
    check(jeet.sum(t(x), axis=1), f64(x).sum(axis=1), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax(axis, rng):
    x = randn(rng, 13, 29) * 3
    e = np.exp(f64(x) - f64(x).max(axis=axis, keepdims=True))
    ref = e / e.sum(axis=axis, keepdims=True)
    check(jeet.softmax(t(x), axis=axis), ref, rtol=1e-4, atol=1e-6)


def test_cast_roundtrips(rng):
    x = randn(rng, 8, 9) * 10
    half = jeet.cast(t(x), "float16")
    assert half.dtype == "float16"
    got = half.numpy()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, x.astype(np.float16))
    back = jeet.cast(half, "f32")
    check(back, x.astype(np.float16).astype(np.float64))
    as_int = jeet.cast(t(x), "int32")
    assert as_int.dtype == "int32"
    np.testing.assert_array_equal(as_int.numpy(), np.trunc(x).astype(np.int32))
    check(t(x).astype("bfloat16").cast("float32"),
          jeet.tensor(x, dtype="bf16", device="cpu").numpy().astype(np.float64))


def test_int32_elementwise(rng):
    a = rng.integers(-1000, 1000, (6, 7)).astype(np.int32)
    b = rng.integers(1, 50, (6, 7)).astype(np.int32)
    A = jeet.tensor(a, dtype="int32", device="cpu")
    B = jeet.tensor(b, dtype="int32", device="cpu")
    np.testing.assert_array_equal((A + B).numpy(), a + b)
    np.testing.assert_array_equal((A * B - 3).numpy(), a * b - 3)
    np.testing.assert_array_equal(jeet.maximum(A, B).numpy(), np.maximum(a, b))
    # jeet.div of integers rounds toward zero (C semantics); the / operator
    # is true division, in float32 (as PyTorch's and JAX's).
    np.testing.assert_array_equal(jeet.div(A, B).numpy(), np.trunc(a / b).astype(np.int32))
    assert (A / B).dtype == "float32"
    np.testing.assert_allclose((A / B).numpy(), a / b, rtol=1e-6)
    np.testing.assert_allclose((A / 8).numpy(), a / 8, rtol=1e-6)
    np.testing.assert_allclose((3 / B).numpy(), 3 / b, rtol=1e-6)
    np.testing.assert_allclose((A / 2.5).numpy(), a / 2.5, rtol=1e-6)
    np.testing.assert_array_equal(jeet.true_divide(A, B).numpy(), (A / B).numpy())
    bools = jeet.tensor(a > 0, dtype="bool", device="cpu")
    np.testing.assert_array_equal((bools / 2).numpy(), (a > 0) / 2)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_remainders(dtype, rng):
    # fmod has the dividend's sign, remainder and % the divisor's (Python's),
    # // rounds toward minus infinity (Python's and NumPy's).
    a = rng.integers(-1000, 1000, (6, 7)).astype(dtype)
    b = (rng.integers(1, 50, (6, 7)) * rng.choice([-1, 1], (6, 7))).astype(dtype)
    A, B = jeet.tensor(a, dtype=dtype, device="cpu"), jeet.tensor(b, dtype=dtype, device="cpu")
    np.testing.assert_array_equal(jeet.fmod(A, B).numpy(), np.fmod(a, b))
    np.testing.assert_array_equal(jeet.remainder(A, B).numpy(), np.remainder(a, b))
    np.testing.assert_array_equal((A % B).numpy(), a % b)
    np.testing.assert_array_equal((A % 7).numpy(), a % 7)
    np.testing.assert_array_equal((-7 % B).numpy(), -7 % b)
    np.testing.assert_array_equal((A // B).numpy(), a // b)
    np.testing.assert_array_equal((A // 7).numpy(), a // 7)
    np.testing.assert_array_equal((-7 // B).numpy(), -7 // b)
    np.testing.assert_array_equal(jeet.floor_divide(A, B).numpy(), np.floor_divide(a, b))
    quotient, rest = divmod(A, B)
    np.testing.assert_array_equal(quotient.numpy(), a // b)
    np.testing.assert_array_equal(rest.numpy(), a % b)
    assert quotient.dtype == dtype
    # The divisor 0: x for the remainder, not numpy's 0 (see jeet.fmod); 0
    # for the floor quotient, as numpy's.
    zero = jeet.tensor(np.zeros((6, 7), dtype), dtype=dtype, device="cpu")
    np.testing.assert_array_equal((A % zero).numpy(), a)
    np.testing.assert_array_equal((A // zero).numpy(), np.zeros((6, 7), dtype))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_power(dtype, rng):
    """Integer ** as NumPy's, wrapping past the dtype's range (exponents up
    to 200, every bit of the square-and-multiply steps), against exact Python
    integers; negative exponents in a tensor give 1 / x ** -y rounded toward
    zero (PyTorch's values)."""
    from conftest import integer_power
    base = rng.integers(-40, 40, (9, 31)).astype(dtype)
    base[0, :5] = [0, 1, -1, 2, -2]
    exponent = rng.integers(0, 200, (9, 31)).astype(dtype)
    exponent[1, :6] = [0, 1, 62, 63, 31, 30]
    # Exponents with high bits set: odd bases wrap to values they decide.
    top = np.iinfo(dtype).max
    exponent[2, :31] = [top, top - 1, 2**30 + 1, 2**29 + 7, 2**24 + 3] + list(
        rng.integers(2**20, top, 26))
    B = jeet.tensor(base, dtype=dtype, device="cpu")
    E = jeet.tensor(exponent, dtype=dtype, device="cpu")
    got = (B ** E).numpy()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, integer_power(base, exponent, dtype))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, base ** exponent)
    # Constant exponents (folded to multiplications) and a scalar base.
    np.testing.assert_array_equal((B ** 3).numpy(), base ** 3)
    np.testing.assert_array_equal((B ** 0).numpy(), np.ones_like(base))
    np.testing.assert_array_equal((3 ** (E % 20)).numpy(), 3 ** (exponent % 20))
    # Negative exponents, broadcast against a row of bases.
    small = np.array([-3, -2, -1, 0, 1, 2, 3], dtype)
    negative = rng.integers(-5, 0, (4, 1)).astype(dtype)
    got = jeet.pow(jeet.tensor(small, dtype=dtype, device="cpu"),
                   jeet.tensor(negative, dtype=dtype, device="cpu")).numpy()
    np.testing.assert_array_equal(got, integer_power(small, negative, dtype))
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(
        got, (torch.from_numpy(small) ** torch.from_numpy(negative)).numpy())


def test_integer_power_errors():
    i = jeet.tensor(np.arange(4, dtype=np.int32), dtype="int32", device="cpu")
    for exponent in (-1, -2.0, np.int64(-3)):
        with pytest.raises(jeet.ArgumentError,
                           match=r"jeet.pow: a tensor of int32 to the negative power"):
            i ** exponent
    with pytest.raises(jeet.ArgumentError, match="a tensor of int32 to the negative power -1"):
        jeet.pow(i, -1)
    p = jeet.tensor(np.array([True, False]), dtype="bool", device="cpu")
    with pytest.raises(jeet.ArgumentError, match="a tensor of bool to the negative power"):
        p ** -1
    with pytest.raises(jeet.ShapeError, match=r"bool \*\* bool is not supported.*int8"):
        p ** p
    # bool with a Python int computes in int64, as NumPy 2 does.
    assert (p ** 2).dtype == "int64"
    np.testing.assert_array_equal((p ** 2).numpy(), [1, 0])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_floor_division(dtype, rng):
    """x // y and divmod as NumPy's: from the exact remainder (1 // 0.1 is
    9), signed zeros, division by zero, narrow floats rounded once."""
    a = np.concatenate([wide(rng, 200), [1.0, -1.0, 0.0, -0.0, 7.0, 5.0, np.inf]]).astype(np.float32)
    b = np.concatenate([away_from_zero(rng, 200), [0.1, 0.1, -3.0, 3.0, 0.0, -0.0, 2.0]]).astype(np.float32)
    A, B = jeet.tensor(a, dtype=dtype, device="cpu"), jeet.tensor(b, dtype=dtype, device="cpu")
    # The reference on the values the tensors hold (narrow types rounded).
    x, y = A.cast("float32").numpy(), B.cast("float32").numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.floor_divide(x, y)
    # Computed in float32, rounded once to the tensor's dtype.
    want = jeet.tensor(want, dtype=dtype, device="cpu").cast("float32").numpy()
    got = (A // B).cast("float32").numpy()
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(want)  # a NaN's sign means nothing
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))
    quotient, rest = divmod(A, B)
    np.testing.assert_array_equal(quotient.cast("float32").numpy(), got)
    np.testing.assert_array_equal(rest.cast("float32").numpy(), (A % B).cast("float32").numpy())
    with np.errstate(divide="ignore", invalid="ignore"):
        halves = np.floor_divide(x, np.float32(2))
    np.testing.assert_array_equal((A // 2).cast("float32").numpy(),
                                  jeet.tensor(halves, dtype=dtype, device="cpu").cast("float32").numpy())
    assert (A // B).dtype == dtype
    with pytest.raises(jeet.ShapeError, match="floor division of bool tensors"):
        jeet.tensor(a > 0, dtype="bool", device="cpu") // jeet.tensor(a > 0, dtype="bool", device="cpu")


def test_round_with_ndigits(rng):
    a = wide(rng, 5, 9)
    np.testing.assert_array_equal(round(t(a)).numpy(), np.round(a))
    np.testing.assert_allclose(round(t(a), 2).numpy(), np.round(f64(a), 2), atol=1e-6)
    np.testing.assert_allclose(round(t(a * 100), -1).numpy(), np.round(f64(a * 100), -1), atol=1e-4)
    with pytest.raises(jeet.ArgumentError, match="ndigits=2 of a int32 tensor"):
        round(jeet.tensor(np.ones(3, np.int32), dtype="int32", device="cpu"), 2)


def test_operators_take_what_numpy_takes():
    """An operand no op takes (None, a string, an object) makes the operator
    return NotImplemented: == and != then compare identities, as for any
    Python object, and arithmetic raises Python's TypeError."""
    x = t(np.arange(3, dtype=np.float32))
    assert (x == None) is False  # noqa: E711
    assert (x != None) is True  # noqa: E711
    assert x in [None, "a", x]
    assert x not in [None, "a"]
    with pytest.raises(TypeError, match="unsupported operand type.*'Tensor' and 'str'"):
        x + "a"
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' and 'NoneType'"):
        x < None  # noqa: B015
    with pytest.raises(TypeError, match="unsupported operand type.*'dict' and 'Tensor'"):
        {} * x
    assert x.nbytes == 12 and x.astype("float16").nbytes == 6 and (x > 0).nbytes == 3


def test_float_remainder_operator(rng):
    a, b = wide(rng, 5, 9), away_from_zero(rng, 9)
    check(t(a) % t(b), np.remainder(f64(a), f64(b)))
    check(t(a) % 1.5, np.remainder(f64(a), 1.5))
    check(3.0 % t(b), np.remainder(3.0, f64(b)))
    check(jeet.remainder(t(a), b), np.remainder(f64(a), f64(b)))
    check(jeet.remainder(t(a), list(b)), np.remainder(f64(a), f64(b)))
    with pytest.raises(TypeError, match="remainder"):
        jeet.remainder(t(a), "3")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_zero_remainders_take_the_divisors_sign(dtype):
    """NumPy's remainder gives a zero result the divisor's sign (0 % -1 is
    -0.0, -0.0 % 1 is 0.0); fmod gave it the dividend's. Found by a sweep of
    edge values against NumPy."""
    x = np.array([0.0, -0.0, 0.0, -0.0, 4.0, -4.0, 3.0], np.float32)
    y = np.array([-1.0, 1.0, -np.inf, 2.5, -2.0, 2.0, -1.5], np.float32)
    got = jeet.remainder(jeet.tensor(x, dtype=dtype), jeet.tensor(y, dtype=dtype)).numpy()
    want = np.remainder(x, y)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype,rtol", [("float16", 2e-3), ("bfloat16", 1.6e-2)])
def test_low_precision(dtype, rtol, rng):
    a, b = randn(rng, 16, 24), randn(rng, 16, 24)
    A = jeet.tensor(a, dtype=dtype, device="cpu")
    B = jeet.tensor(b, dtype=dtype, device="cpu")
    a_q, b_q = A.numpy().astype(np.float64), B.numpy().astype(np.float64)
    C = (A * B + A).execute()
    assert C.dtype == dtype
    np.testing.assert_allclose(C.numpy().astype(np.float64), a_q * b_q + a_q,
                               rtol=rtol, atol=rtol)


def test_fused_chain(rng):
    x, y = randn(rng, 64, 64), randn(rng, 64, 64)
    X, Y = t(x), t(y)
    Z = jeet.relu((X * Y + X) * 0.5 - Y).exp().sqrt()
    xf, yf = f64(x), f64(y)
    check(Z, np.sqrt(np.exp(np.maximum((xf * yf + xf) * 0.5 - yf, 0))))


def test_mlp_block(rng):
    x, w, bias = randn(rng, 32, 64), randn(rng, 64, 48) * 0.1, randn(rng, 48)
    y = jeet.gelu(t(x) @ t(w) + t(bias)).softmax(axis=-1).sum(axis=0)
    h = gelu_ref(f64(x) @ f64(w) + f64(bias))
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    check(y, (e / e.sum(axis=-1, keepdims=True)).sum(axis=0), rtol=1e-4, atol=1e-5)


def test_gelu_forms(rng):
    x = randn(rng, *SHAPE) * 3
    check(jeet.gelu(t(x)), gelu_ref(x))
    check(jeet.gelu(t(x), approximate="none"), gelu_ref(x))
    check(jeet.gelu(t(x), approximate="tanh"), gelu_tanh_ref(x))
    with pytest.raises(jeet.ArgumentError, match="approximate must be 'none' or 'tanh'"):
        jeet.gelu(t(x), approximate="erf")


@pytest.mark.parametrize("shapes", [((5,), (5, 3)), ((4, 5), (5,)),
                                    ((5,), (5,)), ((2, 4, 5), (5,)),
                                    ((5,), (3, 5, 2))], ids=str)
def test_matmul_promotes_vectors(shapes):
    # As numpy.matmul: a 1-D lhs is a row, a 1-D rhs a column, and the
    # promoted dimension is dropped.
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shapes[0]).astype(np.float32)
    b = rng.standard_normal(shapes[1]).astype(np.float32)
    got = jeet.tensor(a, device="cpu") @ jeet.tensor(b, device="cpu")
    expected = a.astype(np.float64) @ b.astype(np.float64)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_matmul_rank0_error():
    x = jeet.tensor(np.ones((3, 2), np.float32), device="cpu")
    with pytest.raises(jeet.ShapeError, match="rank 1 or more"):
        jeet.matmul(x, 2.0)


def test_maximum_of_signed_zeros():
    """IEEE 754-2019's maximum and minimum: +0.0 is above -0.0, in either
    order (NumPy returns one operand by position; docs/Reliability.md)."""
    a = np.array([0.0, -0.0], np.float32)
    b = np.array([-0.0, 0.0], np.float32)
    hi = jeet.maximum(jeet.tensor(a), jeet.tensor(b)).numpy()
    lo = jeet.minimum(jeet.tensor(a), jeet.tensor(b)).numpy()
    assert not np.signbit(hi).any()
    assert np.signbit(lo).all()


def _host_has(*flags):
    try:
        with open("/proc/cpuinfo") as f:
            have = next(line for line in f if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return False
    return all(flag in have for flag in flags)


def _ieee(op, a, b):
    """IEEE 754-2019 maximum/minimum in float64: a NaN if either is one,
    +0.0 above -0.0."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        out = np.maximum(a, b) if op == "max" else np.minimum(a, b)
    zeros = (a == 0) & (b == 0)
    if op == "max":
        signed = np.signbit(a) & np.signbit(b)
    else:
        signed = np.signbit(a) | np.signbit(b)
    return np.where(zeros, np.where(signed, -0.0, 0.0), out)


def _assert_same_floats(got, want, what):
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    numbers = ~np.isnan(want)
    np.testing.assert_array_equal(got[numbers].view(np.uint32),
                                  want[numbers].astype(np.float32).view(np.uint32),
                                  err_msg=what)


@pytest.mark.parametrize("shift", [0, 3, 11])
def test_maximum_and_minimum_of_edge_values(rng, shift):
    """jeet.maximum/minimum, a fused tree of three, and a max pooling of
    values that may be negative, over every pair of edge values (signed
    zeros, infinities, NaNs of both signs and other payloads, subnormals):
    bit for bit IEEE maximum and minimum (a NaN where either operand is
    one). The 361 pairs, shifted along the vectors, run 16-lane vectors and
    the 8-, 4-lane and scalar tails on every pair. On hosts with AVX-512DQ
    and VL the trees are vrangeps and one NaN test (jeet-cpu-minmax-by-
    range); the IR is checked for it."""
    values = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, np.inf, -np.inf, np.nan,
                       1e-45, -1e-45, 1e-40, -1e-40, 3.4e38, -3.4e38], np.float32)
    payloads = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFA00123],
                        np.uint32).view(np.float32)
    values = np.concatenate([values, payloads])
    a = np.roll(np.repeat(values, values.size), shift)
    b = np.roll(np.tile(values, values.size), shift)
    c = rng.permutation(a)
    A, B, C = (jeet.tensor(v, device="cpu") for v in (a, b, c))
    with np.errstate(invalid="ignore"):
        for op, fn in (("max", jeet.maximum), ("min", jeet.minimum)):
            _assert_same_floats(fn(A, B).numpy(), _ieee(op, a, b), op)
            _assert_same_floats(fn(fn(A, B), C).numpy(),
                                _ieee(op, _ieee(op, a, b), c), op + " of three")
            # Tails alone: 3 elements.
            _assert_same_floats(fn(A[:3], B[:3]).numpy(), _ieee(op, a[:3], b[:3]),
                                op + " tail")
            uses_range = "llvm.x86.avx512.mask.range.ps" in jeet.compile(
                fn(fn(A, B), C)).ir("llvm")
            assert uses_range == _host_has("avx512dq", "avx512vl")
        # A max pooling of such values (3x3/2, padded: the pad's -inf too).
        x = np.resize(values, (1, 4, 9, 20)).astype(np.float32)
        x = x[:, :, :, rng.permutation(20)].copy()
        got = jeet.max_pool2d(jeet.tensor(x, device="cpu"), 3, 2, 1).numpy()
        xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (1, 1), (1, 1)],
                    constant_values=-np.inf)
        want = None
        for i in range(3):
            for j in range(3):
                window = xp[:, :, i:i + 9:2, j:j + 20:2]
                want = window if want is None else _ieee("max", want, window)
    assert got.shape == want.shape == (1, 4, 5, 10)
    _assert_same_floats(got, want, "max pooling")


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_floor_division_of_edge_values(dtype):
    """// and % bit for bit as NumPy's over every pair of edge values: signed
    zeros, infinities, NaN, subnormals, values past 2^24, integer extremes
    (INT_MIN // -1 wraps as NumPy's), division by zero."""
    if dtype == "float32":
        values = np.array([0.0, -0.0, 1.0, -1.0, 0.1, -0.1, 0.3, 2.5, -2.5, 7.0, -7.0,
                           1e30, -1e30, 1e-30, 3.0, np.inf, -np.inf, np.nan, 1e-45,
                           65504.0, 16777217.0], np.float32)
    else:
        info = np.iinfo(dtype)
        values = np.array([0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100, info.max,
                           info.min, info.max - 1, info.min + 1], dtype)
    a = np.repeat(values, values.size)
    b = np.tile(values, values.size)
    A, B = jeet.tensor(a, dtype=dtype, device="cpu"), jeet.tensor(b, dtype=dtype, device="cpu")
    with np.errstate(all="ignore"):
        want = np.floor_divide(a, b)
    got = (A // B).numpy()
    np.testing.assert_array_equal(got, want)
    if dtype == "float32":
        numbers = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal((A % B).numpy(), np.remainder(a, b))


# Programs that compute a long chain from an operand the same in every lane
# of a kernel that LLVM's loop vectorizer sees (a broadcast operand beside a
# bool output), each step using the one before twice: integer ** (31
# squares of its base for int32) and float chains of 31 steps. Compiled and
# run in a process of their own, bounded: such programs once never finished
# compiling (LLVM 22's VPlan asked of each step whether it is one scalar for
# all lanes by asking both operands, without remembering: 2^31 questions;
# see jeet-cpu-freeze-invariant-loads). Seed 15,566,392 of the graph builder
# fuzzer (--ops all --sizes mixed) found the first.
UNIFORM_CHAINS = r"""
import sys
import numpy as np
import jeet
sys.path.insert(0, sys.argv[1])
from conftest import integer_power

rng = np.random.default_rng()
for dtype in ("int32", "int64"):
    for base_shape, exponent_shape in (((1,), (5, 33)), ((5, 1), (5, 33)),
                                       ((5, 1), (5, 1))):
        base = rng.integers(-9, 9, base_shape).astype(dtype)
        exponent = rng.integers(0, 40, exponent_shape).astype(dtype)
        other = rng.integers(-9, 9, (5, 33)).astype(dtype)
        X = jeet.tensor(base, dtype=dtype, device="cpu")
        E = jeet.tensor(exponent, dtype=dtype, device="cpu")
        Y = jeet.tensor(other, dtype=dtype, device="cpu")
        P = jeet.pow(X, E) + Y
        Q = jeet.eq(P, P)
        R = jeet.pow(X, E) > Y
        jeet.execute(P, Q, R)
        power = np.broadcast_to(integer_power(base, exponent, dtype), (5, 33))
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(P.numpy(), power + other)
        np.testing.assert_array_equal(Q.numpy(), np.ones((5, 33), bool))
        np.testing.assert_array_equal(R.numpy(), power > other)
for shape in ((1,), (5, 1)):
    x = rng.uniform(0.999, 1.001, shape).astype(np.float32)
    y = rng.standard_normal((5, 33)).astype(np.float32)
    # x * x, x * 2 + x, max(x, x) + x; `maximum` is jeet's or NumPy's.
    chains = [lambda v, maximum: v * v, lambda v, maximum: v * 2.0 + v,
              lambda v, maximum: maximum(v, v) + v]
    for step in chains:
        X = jeet.tensor(x, device="cpu")
        Y = jeet.tensor(y, device="cpu")
        expected = x.astype(np.float64)
        for _ in range(31):
            X = step(X, jeet.maximum)
            expected = step(expected, np.maximum)
        P = X + Y
        Q = P > Y
        jeet.execute(P, Q)
        np.testing.assert_allclose(P.numpy(), expected + y, rtol=1e-5)
        np.testing.assert_array_equal(Q.numpy(), expected + y > y)
print("compiled and checked")
"""


def test_chains_of_a_uniform_operand_compile():
    env = dict(os.environ, JEET_CACHE_DIR="")
    proc = subprocess.run(
        [sys.executable, "-c", UNIFORM_CHAINS, str(pathlib.Path(__file__).parent)],
        capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "compiled and checked" in proc.stdout
