"""int64 and bool tensors end to end (graph arguments and results, .npy
files, inline literals) and jeet.cast between every pair of dtypes, through
jeet-run on the CPU and the GPU (the `run` fixture), against numpy."""
import math

import numpy as np
import pytest

from jeetrun import JEET_RUN, mlir_type

# The dtypes of graph arguments and results that .npy files carry (bfloat16,
# which numpy lacks, is checked as an intermediate step below).
DTYPES = [np.float32, np.float16, np.int32, np.int64, np.bool_]


def source_values(rng, dtype, target, n=64):
    """Values of `dtype` whose conversion to `target` numpy defines the way
    jeet.cast does: in range, truncation toward zero for floats, NaN only
    where the result is a float or a bool."""
    if dtype == np.bool_:
        return rng.integers(0, 2, size=n).astype(np.bool_)
    # float16 holds integers exactly up to 2048.
    limit = 2000 if np.float16 in (dtype, target) else 100000
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(-limit, limit, size=n).astype(dtype)
        x[:4] = [0, 1, -1, 0]
        if dtype == np.int64 and target == np.int32:
            # Wider integers wrap to narrower ones, as numpy's astype does.
            x[4:8] = [2**31, -2**31 - 1, 2**40 + 7, -2**35]
        return x
    x = (rng.uniform(-limit, limit, size=n)).astype(dtype)
    x[:6] = [0.0, -0.0, 0.5, -0.5, 1.75, -1.75]
    if target in (np.float32, np.float16, np.bool_):
        x[6:9] = [np.nan, np.inf, -np.inf]
    return x


@pytest.mark.parametrize("target", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("source", DTYPES, ids=lambda t: np.dtype(t).name)
def test_cast(run, rng, source, target):
    x = source_values(rng, source, target)
    a, b = mlir_type(x.shape, source), mlir_type(x.shape, target)
    graph = (f"func.func @main(%x: {a}) -> {b} {{\n"
             f"  %0 = jeet.cast %x : {a} -> {b}\n  return %0 : {b}\n}}\n")
    (out,) = run(graph, [x])
    assert out.dtype == np.dtype(target)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = x.astype(target)
    np.testing.assert_array_equal(out, expected, err_msg=f"{x}")


@pytest.mark.parametrize("target", [np.float32, np.int32, np.int64, np.bool_],
                         ids=lambda t: np.dtype(t).name)
def test_cast_through_bfloat16(run, rng, target):
    # f32 -> bf16 rounds to nearest even; bf16 -> target as above.
    x = rng.integers(-200, 200, size=32).astype(np.float32) / 4
    x[:3] = [0.0, -0.0, 3.0]
    a, m, b = (mlir_type(x.shape, t) for t in (np.float32, np.float32, target))
    m = m.replace("f32", "bf16")
    graph = (f"func.func @main(%x: {a}) -> {b} {{\n"
             f"  %0 = jeet.cast %x : {a} -> {m}\n"
             f"  %1 = jeet.cast %0 : {m} -> {b}\n  return %1 : {b}\n}}\n")
    (out,) = run(graph, [x])
    np.testing.assert_array_equal(out, x.astype(target))


def test_bfloat16_rounding_of_every_kind_of_value(run, rng):
    """f32 -> bf16 -> f32 bit for bit against round-to-nearest-even on the
    bits: random bit patterns of every exponent, subnormals, ties, values
    that round up to the next binade or to infinity, signed zeros and
    infinities; NaNs stay NaNs. On hosts with AVX512-BF16
    (Zen 4, Sapphire Rapids) LLVM's vcvtneps2bf16 flushed subnormals to
    zero (2^-127 came back as 0); jeet-expand-bf16-truncation rounds them."""
    bits = rng.integers(0, 2**32, size=4096, dtype=np.uint64).astype(np.uint32)
    subnormal = rng.integers(1, 2**23, size=512, dtype=np.uint64).astype(np.uint32)
    ties = (rng.integers(0, 2**16, size=256, dtype=np.uint64).astype(np.uint32)
            << 16) | 0x8000
    special = np.array([0x00000000, 0x80000000, 0x00400000, 0x80400000,
                        0x00000001, 0x0000FFFF, 0x00008000, 0x00018000,
                        0x007FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F7FFF,
                        0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                        0x7F800001, 0xFF810001, 0x7FFFFFFF, 0xFFFFFFFF],
                       dtype=np.uint32)
    u = np.concatenate([special, subnormal, subnormal | 0x80000000, ties, bits])
    x = u.view(np.float32)
    a = mlir_type(x.shape, np.float32)
    m = a.replace("f32", "bf16")
    graph = (f"func.func @main(%x: {a}) -> {a} {{\n"
             f"  %0 = jeet.cast %x : {a} -> {m}\n"
             f"  %1 = jeet.cast %0 : {m} -> {a}\n  return %1 : {a}\n}}\n")
    (out,) = run(graph, [x])
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    wide = u.astype(np.uint64)
    expected = ((wide + 0x7FFF + ((wide >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    got = out.view(np.uint32)
    # NaNs stay NaNs (their sign and payload: jeet-expand-bf16.mlir; a GPU's
    # cvt.rn.bf16.f32 may give its canonical NaN).
    assert np.isnan(out[nan]).all(), [hex(v) for v in got[nan][:8]]
    wrong = np.flatnonzero((got != expected) & ~nan)
    assert wrong.size == 0, [(hex(u[i]), hex(got[i]), hex(expected[i]))
                             for i in wrong[:8]]


@pytest.mark.parametrize("op,fn", [("add", np.add), ("sub", np.subtract),
                                   ("mul", np.multiply), ("max", np.maximum),
                                   ("min", np.minimum)])
def test_int64_arithmetic(run, rng, op, fn):
    # Values beyond int32, products that wrap around as numpy's do.
    a = rng.integers(-2**40, 2**40, size=(3, 5), dtype=np.int64)
    b = rng.integers(-2**40, 2**40, size=(5,), dtype=np.int64)
    ta, tb = mlir_type(a.shape, np.int64), mlir_type(b.shape, np.int64)
    graph = (f"func.func @main(%a: {ta}, %b: {tb}) -> {ta} {{\n"
             f"  %0 = jeet.{op} %a, %b : {ta}, {tb} -> {ta}\n"
             f"  return %0 : {ta}\n}}\n")
    (out,) = run(graph, [a, b])
    assert out.dtype == np.int64
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, fn(a, b))


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["i32", "i64"])
def test_integer_division_and_unary(run, rng, dtype):
    a = rng.integers(-10**6, 10**6, size=(64,)).astype(dtype)
    b = rng.integers(1, 1000, size=(64,)).astype(dtype) * rng.choice(
        [-1, 1], size=64).astype(dtype)
    t = mlir_type(a.shape, dtype)
    graph = (f"func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}, {t}, {t}) {{\n"
             f"  %0 = jeet.div %a, %b : {t}, {t} -> {t}\n"
             f"  %1 = jeet.neg %a : {t}\n"
             f"  %2 = jeet.abs %a : {t}\n"
             f"  %3 = jeet.relu %a : {t}\n"
             f"  return %0, %1, %2, %3 : {t}, {t}, {t}, {t}\n}}\n")
    q, n, ab, r = run(graph, [a, b])
    # Integer division rounds toward zero (C, not numpy's floor).
    np.testing.assert_array_equal(q, (np.abs(a) // np.abs(b)) * np.sign(a) * np.sign(b))
    np.testing.assert_array_equal(n, -a)
    np.testing.assert_array_equal(ab, np.abs(a))
    np.testing.assert_array_equal(r, np.maximum(a, 0))


def test_int64_and_bool_reductions(run, rng):
    x = rng.integers(-2**40, 2**40, size=(6, 7), dtype=np.int64)
    t, r = mlir_type(x.shape, np.int64), mlir_type((6,), np.int64)
    graph = (f"func.func @main(%x: {t}) -> ({r}, {r}) {{\n"
             f"  %0 = jeet.reduce_sum %x {{axes = array<i64: 1>}} : {t} -> {r}\n"
             f"  %1 = jeet.reduce_max %x {{axes = array<i64: 1>}} : {t} -> {r}\n"
             f"  return %0, %1 : {r}, {r}\n}}\n")
    s, m = run(graph, [x])
    np.testing.assert_array_equal(s, x.sum(axis=1))
    np.testing.assert_array_equal(m, x.max(axis=1))


def test_bool_arguments_and_results_large(run, rng):
    # Large enough that the CPU and GPU code generators vectorise the float
    # part of the kernel: booleans are bytes in memory, never packed bits.
    x = rng.standard_normal((33, 129)).astype(np.float32)
    c = rng.integers(0, 2, size=(33, 129)).astype(np.bool_)
    tf, tb = mlir_type(x.shape, np.float32), mlir_type(x.shape, np.bool_)
    graph = (f"func.func @main(%x: {tf}, %c: {tb}) -> ({tb}, {tf}) {{\n"
             f"  %0 = jeet.cast %x : {tf} -> {tb}\n"
             f"  %1 = jeet.cast %c : {tb} -> {tf}\n"
             f"  %2 = jeet.add %1, %x : {tf}, {tf} -> {tf}\n"
             f"  return %0, %2 : {tb}, {tf}\n}}\n")
    b, y = run(graph, [x, c])
    np.testing.assert_array_equal(b, x != 0)
    np.testing.assert_array_equal(y, c.astype(np.float32) + x)


def test_inline_literals(tmp_path):
    import subprocess
    graph = tmp_path / "g.mlir"
    graph.write_text(
        "func.func @main(%a: tensor<3xi64>, %b: tensor<3xi1>) -> tensor<3xi64> {\n"
        "  %0 = jeet.cast %b : tensor<3xi1> -> tensor<3xi64>\n"
        "  %1 = jeet.add %a, %0 : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>\n"
        "  return %1 : tensor<3xi64>\n}\n")
    proc = subprocess.run(
        [str(JEET_RUN), str(graph), "--device=cpu",
         "--input=3xi64=5000000000,-1,7", "--input=3xi1=1,0,1"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "3xi64=[5000000001 -1 8]" in proc.stdout


@pytest.mark.parametrize("cols", [3000, 8193])
def test_f16_mean_whose_sum_passes_f16(run, rng, cols):
    """The mean of f16 values whose sum is past f16's largest finite value
    (65504): summed and divided in f32, as NumPy means f16. The sum was
    rounded to f16 first, and the mean was infinite (a layernorm of 8193 f16
    columns came out as its shift)."""
    t, r = mlir_type((3, cols), np.float16), mlir_type((3, 1), np.float16)
    source = (f"func.func @main(%x: {t}) -> {r} {{\n"
              f"  %0 = jeet.reduce_mean %x {{axes = array<i64: 1>, "
              f"keepdims = true}} : {t} -> {r}\n"
              f"  return %0 : {r}\n}}\n")
    x = rng.uniform(20, 40, size=(3, cols)).astype(np.float16)
    (out,) = run(source, [x])
    expected = x.astype(np.float64).mean(axis=1, keepdims=True)
    assert np.isfinite(out).all(), out
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=1e-3)


def round_to_bf16(x):
    """float32 values rounded to the nearest bfloat16 (ties to even)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    return r.view(np.float32)


def narrow_graph(body, shape, narrow):
    """A graph of f32 arguments and results (what .npy files carry) whose
    `body` works on `narrow` (f16 or bf16) values: cast in, cast out (both
    exact for values of the narrow type)."""
    t = mlir_type(shape, np.float32)
    n = t.replace("f32", narrow)
    return (f"func.func @main(%x: {t}) -> {t} {{\n"
            f"  %n = jeet.cast %x : {t} -> {n}\n"
            f"  %r = {body.replace('{n}', n)}\n"
            f"  %w = jeet.cast %r : {n} -> {t}\n"
            f"  return %w : {t}\n}}\n")


def narrow_ulp_error(out, expected, narrow):
    """|out - expected| in units in the last place of the narrow type at
    `expected` (float64)."""
    bits = 10 if narrow == "f16" else 7
    tiny = 2.0 ** (-14 if narrow == "f16" else -126)
    exponent = np.floor(np.log2(np.maximum(np.abs(expected), tiny)))
    return np.abs(out.astype(np.float64) - expected) / 2.0 ** (exponent - bits)


def erf64(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


@pytest.mark.parametrize("narrow", ["f16", "bf16"])
@pytest.mark.parametrize("form", ["none", "tanh"])
def test_narrow_gelu_rounds_once(run, rng, narrow, form):
    """f16 and bf16 GELU computed in f32 and rounded once, as PyTorch does:
    rounded between its ops, 1 + erf(x / sqrt(2)) cancelled for x below -2
    (bf16 gelu(-3) was -0.00586 for -0.00405; f16 8% off). Found by
    fuzz/python/fuzz_numerics.py against float64."""
    x = rng.uniform(-6, 4, size=(4, 257)).astype(np.float32)
    x = x.astype(np.float16).astype(np.float32) if narrow == "f16" else round_to_bf16(x)
    attr = ' {approximate = "tanh"}' if form == "tanh" else ""
    (out,) = run(narrow_graph(f"jeet.gelu %n{attr} : {{n}}", x.shape, narrow), [x])
    a = x.astype(np.float64)
    if form == "tanh":
        expected = 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))
    else:
        expected = 0.5 * a * (1 + erf64(a / math.sqrt(2)))
    # Below x = -3.5 the f32 formula itself cancels (torch's too): there
    # the result is within f32 units of |x|.
    fine = a > -3.5
    err = narrow_ulp_error(out, expected, narrow)
    worst = np.argmax(np.where(fine, err, 0))
    assert err[fine].max() <= 1.0, (x.flat[worst], out.flat[worst], expected.flat[worst])
    assert np.all(np.abs(out[~fine] - expected[~fine]) <= 1e-5 * np.abs(a[~fine]))


@pytest.mark.parametrize("narrow", ["f16", "bf16"])
@pytest.mark.parametrize("axis", [0, 1])
def test_narrow_softmax_rounds_once(run, rng, narrow, axis):
    """f16 and bf16 softmax computed in f32 and rounded once: x - max
    rounded to bf16 lost up to |x - max| 2^-9, 3% of the smaller values
    at x - max = -10. Found by fuzz/python/fuzz_numerics.py."""
    x = rng.uniform(-12, 12, size=(33, 65)).astype(np.float32)
    x = x.astype(np.float16).astype(np.float32) if narrow == "f16" else round_to_bf16(x)
    body = f"jeet.softmax %n {{axis = {axis} : i64}} : {{n}}"
    (out,) = run(narrow_graph(body, x.shape, narrow), [x])
    a = x.astype(np.float64)
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    expected = e / e.sum(axis=axis, keepdims=True)
    err = narrow_ulp_error(out, expected, narrow)
    worst = np.unravel_index(np.argmax(err), err.shape)
    assert err.max() <= 1.0, (x[worst], out[worst], expected[worst])
