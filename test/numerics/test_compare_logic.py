"""Comparisons, select, the logical ops, the unary math ops (erf, sin, cos,
tan, the inverse and hyperbolic functions, floor, ceil, round) and both forms
of GELU through jeet-run on the CPU and the GPU (the `run` fixture), on fresh
random inputs, against numpy (float64 references for the math)."""
import math

import numpy as np
import pytest

from jeetrun import assert_close, mlir_type

COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less,
               "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


def values(rng, shape, dtype):
    """Random values with many ties (so that eq/le/ge are exercised) and,
    for floats, NaN, infinities and both zeros."""
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    x = rng.integers(-3, 4, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        flat = x.reshape(-1)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=dtype)
        picks = rng.integers(0, flat.size, size=min(flat.size, 5))
        flat[picks] = specials[:picks.size]
    elif dtype == np.int64:
        x = x * np.int64(2**33)  # beyond int32: compared as int64
    return x


def binary_graph(op, a, b, out_dtype):
    ta, tb = mlir_type(a.shape, a.dtype), mlir_type(b.shape, b.dtype)
    to = mlir_type(np.broadcast_shapes(a.shape, b.shape), out_dtype)
    return (f"func.func @main(%a: {ta}, %b: {tb}) -> {to} {{\n"
            f"  %0 = jeet.{op} %a, %b : {ta}, {tb} -> {to}\n"
            f"  return %0 : {to}\n}}\n")


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64,
                                   np.bool_], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op", sorted(COMPARISONS))
def test_comparison(run, rng, op, dtype):
    a = values(rng, (5, 1, 36), dtype)
    b = values(rng, (7, 36), dtype)
    (out,) = run(binary_graph(op, a, b, np.bool_), [a, b])
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, COMPARISONS[op](a, b), err_msg=op)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_],
                         ids=lambda t: np.dtype(t).name)
def test_select(run, rng, dtype):
    # All three operands broadcast; NaN passes through untouched.
    c = rng.integers(0, 2, size=(4, 1, 40)).astype(np.bool_)
    a = values(rng, (3, 40), dtype)
    b = values(rng, (4, 3, 1), dtype)
    tc, ta, tb = (mlir_type(x.shape, x.dtype) for x in (c, a, b))
    to = mlir_type((4, 3, 40), dtype)
    graph = (f"func.func @main(%c: {tc}, %a: {ta}, %b: {tb}) -> {to} {{\n"
             f"  %0 = jeet.select %c, %a, %b : {tc}, {ta}, {tb} -> {to}\n"
             f"  return %0 : {to}\n}}\n")
    (out,) = run(graph, [c, a, b])
    np.testing.assert_array_equal(out, np.where(c, a, b))


LOGICAL = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op", sorted(LOGICAL))
def test_logical(run, rng, op, dtype):
    if dtype == np.bool_:
        a = rng.integers(0, 2, size=(6, 40)).astype(np.bool_)
        b = rng.integers(0, 2, size=(40,)).astype(np.bool_)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=(6, 40), dtype=dtype)
        b = rng.integers(info.min, info.max, size=(40,), dtype=dtype)
    (out,) = run(binary_graph(op, a, b, dtype), [a, b])
    np.testing.assert_array_equal(out, LOGICAL[op](a, b))


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64],
                         ids=lambda t: np.dtype(t).name)
def test_not(run, rng, dtype):
    x = rng.integers(-1000, 1000, size=(9, 33)).astype(dtype)
    t = mlir_type(x.shape, dtype)
    graph = (f"func.func @main(%x: {t}) -> {t} {{\n"
             f"  %0 = jeet.not %x : {t}\n  return %0 : {t}\n}}\n")
    (out,) = run(graph, [x])
    np.testing.assert_array_equal(out, np.invert(x))


ERF = np.vectorize(math.erf)


def gelu_exact(x):
    return 0.5 * x * (1 + ERF(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


MATH = {
    "erf": ("jeet.erf %x", ERF),
    "sin": ("jeet.sin %x", np.sin),
    "cos": ("jeet.cos %x", np.cos),
    "gelu": ("jeet.gelu %x", gelu_exact),
    "gelu_tanh": ('jeet.gelu %x {approximate = "tanh"}', gelu_tanh),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float16],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op", sorted(MATH))
def test_math(run, rng, op, dtype):
    # 8 x 256: long enough rows for the vectorised CPU and GPU loops.
    x = rng.uniform(-6, 6, size=(8, 256)).astype(dtype)
    x[0, :4] = [0.0, -0.0, 1e-3, -1e-3]
    t = mlir_type(x.shape, dtype)
    expr, reference = MATH[op]
    graph = (f"func.func @main(%x: {t}) -> {t} {{\n"
             f"  %0 = {expr} : {t}\n  return %0 : {t}\n}}\n")
    (out,) = run(graph, [x])
    assert out.dtype == dtype
    tolerance = 1e-6 if dtype == np.float32 else 2e-3
    assert_close(out, reference(x.astype(np.float64)), rtol=tolerance,
                 atol=tolerance, what=f"{op} {np.dtype(dtype).name}")


# The other unary math ops, each on inputs from its domain (and, for the
# inverse functions, a few outside it, where numpy and Jeet both give NaN);
# the rounding ops on halves (to even), both zeros and integral values.
DOMAIN_MATH = {
    "tan": (np.tan, (-1.4, 1.4), []),
    "asin": (np.arcsin, (-1.0, 1.0), [1.0, -1.0, 1.5, -2.0]),
    "acos": (np.arccos, (-1.0, 1.0), [1.0, -1.0, 1.5, -2.0]),
    "atan": (np.arctan, (-20.0, 20.0), [6e4, -6e4]),
    "sinh": (np.sinh, (-8.0, 8.0), []),
    "cosh": (np.cosh, (-8.0, 8.0), []),
    "asinh": (np.arcsinh, (-50.0, 50.0), []),
    "acosh": (np.arccosh, (1.0, 50.0), [1.0, 0.5, -3.0]),
    "atanh": (np.arctanh, (-0.99, 0.99), [1.5, -2.0]),
    "floor": (np.floor, (-6.0, 6.0), [2.0, -2.0, 0.5, -0.5, 2.5, -2.5]),
    "ceil": (np.ceil, (-6.0, 6.0), [2.0, -2.0, 0.5, -0.5, 2.5, -2.5]),
    "round": (np.round, (-6.0, 6.0), [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 2.0]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float16],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op", sorted(DOMAIN_MATH))
def test_domain_math(run, rng, op, dtype):
    reference, (lo, hi), specials = DOMAIN_MATH[op]
    x = rng.uniform(lo, hi, size=(8, 256)).astype(dtype)
    edge = [0.0, -0.0] + specials
    x[0, :len(edge)] = edge
    t = mlir_type(x.shape, dtype)
    graph = (f"func.func @main(%x: {t}) -> {t} {{\n"
             f"  %0 = jeet.{op} %x : {t}\n  return %0 : {t}\n}}\n")
    (out,) = run(graph, [x])
    assert out.dtype == dtype
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = reference(x.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(out), np.isnan(expected),
                                  err_msg=f"{op}: NaN where numpy has one")
    # Signed zeros and the halves' rounding exactly; the rest within the
    # dtype's tolerance.
    if op in ("floor", "ceil", "round"):
        np.testing.assert_array_equal(out, expected.astype(dtype), err_msg=op)
        np.testing.assert_array_equal(np.signbit(out), np.signbit(expected),
                                      err_msg=f"{op}: sign of zero")
        return
    tolerance = 2e-6 if dtype == np.float32 else 2e-3
    finite = ~np.isnan(expected)
    assert_close(out[finite], expected[finite], rtol=tolerance, atol=tolerance,
                 what=f"{op} {np.dtype(dtype).name}")


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64],
                         ids=lambda t: np.dtype(t).name)
def test_rem(run, rng, dtype):
    # C's fmod: the dividend's sign; for integers x rem 0 = x and
    # INT_MIN rem -1 = 0 (no trap), and the rest exactly numpy's fmod.
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        a = rng.integers(-1000, 1000, size=(6, 64)).astype(dtype)
        b = rng.integers(-40, 40, size=(64,)).astype(dtype)
        a[0, :4] = [info.min, info.min, info.max, -7]
        b[:4] = [-1, 3, -1, 0]
    else:
        a = (rng.standard_normal((6, 64)) * 20).astype(dtype)
        b = (rng.uniform(0.5, 4, size=(64,)) * rng.choice([-1, 1], 64)).astype(dtype)
        a[0, :3] = [-0.0, 4.0, -4.0]
        b[:3] = [3.0, 2.0, 2.0]
    graph = binary_graph("rem", a, b, dtype)
    (out,) = run(graph, [a, b])
    assert out.dtype == dtype
    with np.errstate(all="ignore"):
        expected = np.fmod(a, b)
    if np.issubdtype(dtype, np.integer):
        expected = np.where(b == 0, a, expected)  # x rem 0 = x
        np.testing.assert_array_equal(out, expected)
    else:
        # fmod is exact: the same bits, signed zeros included.
        np.testing.assert_array_equal(out, expected)
        np.testing.assert_array_equal(np.signbit(out), np.signbit(expected))


def test_gelu_forms_differ(run, rng):
    # The two forms differ by up to ~1e-3 near |x| = 2: the default is not
    # the tanh form.
    x = np.linspace(-4, 4, 1024, dtype=np.float32)
    t = mlir_type(x.shape, np.float32)
    graph = (f"func.func @main(%x: {t}) -> {t} {{\n"
             f"  %0 = jeet.gelu %x : {t}\n  return %0 : {t}\n}}\n")
    (out,) = run(graph, [x])
    x64 = x.astype(np.float64)
    assert np.max(np.abs(out - gelu_exact(x64))) < 1e-6
    assert np.max(np.abs(out - gelu_tanh(x64))) > 1e-4


def test_fused_where_chain(run, rng):
    # leaky relu and a clamp written with comparisons and selects: one
    # kernel with the arithmetic around it.
    x = rng.standard_normal((16, 130)).astype(np.float32)
    lo = np.float32(-0.5)
    t = mlir_type(x.shape, np.float32)
    b = mlir_type(x.shape, np.bool_)
    graph = (
        f"func.func @main(%x: {t}) -> {t} {{\n"
        f"  %z = jeet.constant dense<0.0> : tensor<f32>\n"
        f"  %s = jeet.constant dense<0.1> : tensor<f32>\n"
        f"  %lo = jeet.constant dense<-0.5> : tensor<f32>\n"
        f"  %p = jeet.gt %x, %z : {t}, tensor<f32> -> {b}\n"
        f"  %m = jeet.mul %x, %s : {t}, tensor<f32> -> {t}\n"
        f"  %l = jeet.select %p, %x, %m : {b}, {t}, {t} -> {t}\n"
        f"  %q = jeet.lt %l, %lo : {t}, tensor<f32> -> {b}\n"
        f"  %r = jeet.select %q, %lo, %l : {b}, tensor<f32>, {t} -> {t}\n"
        f"  return %r : {t}\n}}\n")
    (out,) = run(graph, [x])
    x64 = x.astype(np.float64)
    leaky = np.where(x64 > 0, x64, x64 * np.float32(0.1))
    assert_close(out, np.where(leaky < lo, lo, leaky), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("op", sorted(COMPARISONS))
def test_bf16_comparison_as_f16(run, rng, op):
    """bf16 comparisons whose booleans become f16, 33 lanes (two 16-lane
    vectors and one): LLVM 22's X86 back end could not select a 16-lane bf16
    comparison feeding an i1-to-f16 conversion on AVX512-FP16 hosts, once
    InstCombine had narrowed the f32 comparison of two extensions back to
    bf16 (found by fuzz_graph_builder.py: cast(le(x, x)) / itself, and
    cast(cast(x, bool) & cast(x, bool), f16)). Booleans now become f16 as
    the bits of 1.0 or 0. Also bf16 to bool (x != 0, NaN true), and the same
    bits through f32 compared in numpy."""
    ta, th = mlir_type((33,), np.float32), mlir_type((33,), np.float16)
    graph = (f"func.func @main(%a: {ta}, %b: {ta}) -> ({th}, {th}) {{\n"
             f"  %x = jeet.cast %a : {ta} -> tensor<33xbf16>\n"
             f"  %y = jeet.cast %b : {ta} -> tensor<33xbf16>\n"
             f"  %c = jeet.{op} %x, %y : tensor<33xbf16>, tensor<33xbf16> -> "
             f"tensor<33xi1>\n"
             f"  %h = jeet.cast %c : tensor<33xi1> -> {th}\n"
             f"  %z = jeet.cast %x : tensor<33xbf16> -> tensor<33xi1>\n"
             f"  %g = jeet.cast %z : tensor<33xi1> -> {th}\n"
             f"  return %h, %g : {th}, {th}\n}}\n")
    # Small integers, NaN, infinities and both zeros: exact in bf16.
    a, b = values(rng, (33,), np.float32), values(rng, (33,), np.float32)
    compared, truth = run(graph, [a, b])
    np.testing.assert_array_equal(compared,
                                  COMPARISONS[op](a, b).astype(np.float16))
    np.testing.assert_array_equal(truth, (a != 0).astype(np.float16))
