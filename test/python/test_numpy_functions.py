"""The NumPy functions Jeet builds from its ops (python/jeet/_numpy_functions.py)
against NumPy, on fresh random inputs: shapes exactly, floats against the
float64 result within the dtype's units, integers and bools exactly, the
edges (NaN, infinities, zeros) as NumPy's, and the errors."""

import numpy as np
import pytest

import jeet

# Half a unit in the last place of each dtype, relative; bfloat16 values
# travel as float32 arrays holding them.
UNIT = {"float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
# The spacing of the subnormals: the absolute precision below the smallest
# normal value.
SUBNORMAL = {"float32": 2.0 ** -149, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -133}


def rounded(x, dtype):
    if dtype == "bfloat16":
        u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
        r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32)
        return r.view(np.float32)
    return np.asarray(x).astype(dtype)


def t(x, dtype=None):
    x = np.asarray(x)
    dtype = dtype or x.dtype.name
    return jeet.tensor(x.astype(np.float32) if dtype == "bfloat16" else x,
                       dtype=dtype, device="cpu")


@pytest.mark.parametrize("name,args,kwargs", [
    ("squeeze", (), {}), ("squeeze", (), {"axis": 1}), ("squeeze", (), {"axis": (1, 3)}),
    ("expand_dims", (0,), {}), ("expand_dims", (-1,), {}), ("expand_dims", ((0, 3),), {}),
    ("flatten", (), {}), ("ravel", (), {}),
    ("flip", (), {}), ("flip", (), {"axis": 2}), ("flip", (), {"axis": (0, -1)}),
    ("tril", (), {}), ("tril", (), {"k": -1}), ("triu", (), {}), ("triu", (), {"k": 2}),
])
def test_shape_functions(rng, name, args, kwargs):
    x = rng.standard_normal((3, 1, 5, 1)).astype(np.float32)
    if name in ("tril", "triu"):
        x = rng.standard_normal((2, 4, 6)).astype(np.float32)
    got = getattr(jeet, name)(t(x), *args, **kwargs)
    want = getattr(np, "ravel" if name == "flatten" else name)(x, *args, **kwargs)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


def test_stack_and_creation(rng):
    a, b = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
    for axis in (0, 1, 2, -1):
        np.testing.assert_array_equal(jeet.stack([t(a), t(b)], axis).numpy(),
                                      np.stack([a, b], axis))
    x = t(a)
    assert jeet.zeros_like(x).numpy().tolist() == np.zeros_like(a).tolist()
    assert jeet.ones_like(x, dtype="int32").dtype == "int32"
    np.testing.assert_array_equal(jeet.full_like(x, 2.5).numpy(), np.full_like(a, 2.5))
    np.testing.assert_allclose(jeet.linspace(-1, 3, 7).numpy(), np.linspace(-1, 3, 7),
                               rtol=UNIT["float32"])
    np.testing.assert_array_equal(jeet.eye(3, 4, k=1).numpy(), np.eye(3, 4, k=1))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_elementwise_functions(rng, dtype):
    x = rounded(rng.standard_normal(4097) * np.exp2(rng.uniform(-20, 4, 4097)), dtype)
    x[:8] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5]
    a = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        cases = {
            "square": a * a, "sign": np.sign(a),
            "log1p": np.log1p(a), "expm1": np.expm1(a),
            "log2": np.log2(a), "log10": np.log10(a), "exp2": np.exp2(a),
        }
    for name, want in cases.items():
        got = np.asarray(getattr(jeet, name)(t(x, dtype)).numpy(), np.float64)
        with np.errstate(all="ignore"):
            # Past the dtype's largest value the result is infinite.
            want = np.where(np.isfinite(rounded(want, dtype)), want,
                            np.asarray(rounded(want, dtype), np.float64))
        finite = np.isfinite(want)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
            np.testing.assert_array_equal(got[~finite & ~np.isnan(want)],
                                          want[~finite & ~np.isnan(want)], err_msg=name)
        # A few units of the dtype (float32's arithmetic under the narrow
        # types); exp2 of x is as good as its x (|x| ln 2 units of exp).
        units = 8 + (np.where(np.isfinite(a), np.abs(a), 0)[finite] * 2
                     if name == "exp2" else 0)
        np.testing.assert_array_less(
            np.abs(got[finite] - want[finite]),
            units * UNIT[dtype] * np.abs(want[finite]) + SUBNORMAL[dtype],
            err_msg=f"{name} {dtype}")


def test_log1p_and_expm1_of_large_values():
    """Kahan's and Goldberg's forms multiply by a ratio near 1 last: (u - 1)
    x / log(u) overflowed for x past 86 (expm1(85.9) = 2.2e37 came out inf;
    found by fuzz_numerics.py)."""
    x = np.array([20.0, 85.9, 88.5, 1e30, 3e38], np.float32)
    a = x.astype(np.float64)
    with np.errstate(over="ignore"):
        want = np.expm1(a)
    got = jeet.expm1(t(x[:3])).numpy()
    np.testing.assert_allclose(got, want[:3], rtol=8 * UNIT["float32"])
    np.testing.assert_allclose(jeet.log1p(t(x)).numpy(), np.log1p(a), rtol=8 * UNIT["float32"])


def test_log1p_and_expm1_keep_small_values():
    """Computed as log(1 + x) and exp(x) - 1 they would be 0 (or a few bits)
    for |x| below float32's units; they are x there."""
    x = np.array([1e-30, -1e-20, 3e-8, -6e-8, 1e-4, -1e-4], np.float32)
    a = x.astype(np.float64)
    np.testing.assert_allclose(jeet.log1p(t(x)).numpy(), np.log1p(a), rtol=4 * UNIT["float32"])
    np.testing.assert_allclose(jeet.expm1(t(x)).numpy(), np.expm1(a), rtol=4 * UNIT["float32"])


def test_sign_of_zeros_and_nan():
    x = np.array([-0.0, 0.0, np.nan, -np.inf, 3.0, -2.0], np.float32)
    got = jeet.sign(t(x)).numpy()
    np.testing.assert_array_equal(got, np.sign(x))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.sign(x)))


def test_isnan_isinf_isfinite_clip():
    x = np.array([0.0, -1.5, np.nan, np.inf, -np.inf, 7.0], np.float32)
    for name in ("isnan", "isinf", "isfinite"):
        got = getattr(jeet, name)(t(x))
        assert got.dtype == "bool"
        np.testing.assert_array_equal(got.numpy(), getattr(np, name)(x))
        i = getattr(jeet, name)(t(np.array([1, 2], np.int32))).numpy()
        np.testing.assert_array_equal(i, getattr(np, name)(np.array([1, 2])))
    np.testing.assert_array_equal(jeet.clip(t(x), -1, 2).numpy(), np.clip(x, -1, 2))
    np.testing.assert_array_equal(t(x).clip(None, 0).numpy(), np.clip(x, None, 0))
    with pytest.raises(jeet.ArgumentError, match="cannot both be None"):
        jeet.clip(t(x))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("axis,keepdims,ddof", [(None, False, 0), (1, True, 1),
                                                ((0, 2), False, 0), (-1, False, 0)])
def test_var_std(rng, dtype, axis, keepdims, ddof):
    """Two passes, float16 and bfloat16 in float32: values near 300 (squared
    deviations past float16's 65504) keep the variance in range."""
    x = rounded(rng.standard_normal((4, 9, 33)) * 100 + 300, dtype)
    a = np.asarray(x, np.float64)
    for name in ("var", "std"):
        got = getattr(jeet, name)(t(x, dtype), axis, keepdims, ddof)
        want = getattr(np, name)(a, axis=axis, keepdims=keepdims, ddof=ddof)
        assert got.shape == np.shape(want) and got.dtype == dtype
        np.testing.assert_allclose(np.asarray(got.numpy(), np.float64), want,
                                   rtol=4 * UNIT[dtype] + 1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_log_softmax_and_logsumexp(rng, dtype):
    x = rounded(rng.uniform(-30, 30, (5, 65)), dtype)
    x[0, :3] = [np.inf, 1.0, 2.0]        # an infinite maximum
    x[1, :] = -np.inf                    # a row of -inf
    a = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        m = a.max(axis=1, keepdims=True)
        mf = np.where(np.isfinite(m), m, 0)
        lse = np.log(np.exp(a - mf).sum(axis=1, keepdims=True)) + mf
    got = np.asarray(jeet.logsumexp(t(x, dtype), 1).numpy(), np.float64)
    np.testing.assert_allclose(got, lse[:, 0], rtol=4 * UNIT[dtype] + 1e-6)
    ls = np.asarray(jeet.log_softmax(t(x, dtype), 1).numpy(), np.float64)
    rows = slice(2, None)  # rows of finite values: NumPy's formula as is
    want = a[rows] - lse[rows]
    np.testing.assert_allclose(ls[rows], want, rtol=4 * UNIT[dtype],
                               atol=4 * UNIT[dtype] * np.abs(a[rows]).max())


def test_any_all(rng):
    x = rng.integers(0, 3, (4, 5)).astype(np.int32)
    for name in ("any", "all"):
        for axis in (None, 0, 1):
            got = getattr(jeet, name)(t(x), axis)
            assert got.dtype == "bool"
            np.testing.assert_array_equal(got.numpy(), getattr(np, name)(x, axis=axis))
    f = np.array([[0.0, np.nan], [0.0, -0.0]], np.float32)
    np.testing.assert_array_equal(t(f).any(1).numpy(), f.any(1))


def test_errors_name_the_problem():
    x = t(np.zeros((2, 3), np.float32))
    with pytest.raises(jeet.ShapeError, match="size not equal to one.*axis 0 of shape"):
        jeet.squeeze(x, 0)
    with pytest.raises(jeet.ShapeError, match="same shape"):
        jeet.stack([x, t(np.zeros((3, 2), np.float32))])
    with pytest.raises(jeet.ShapeError, match="rank >= 2"):
        jeet.tril(t(np.zeros(3, np.float32)))
    with pytest.raises(jeet.ShapeError, match="jeet.var: needs a float tensor, got int32"):
        jeet.var(t(np.zeros(3, np.int32)))
    with pytest.raises(jeet.ShapeError, match="out of range"):
        jeet.expand_dims(x, 5)
    with pytest.raises(TypeError, match="expected a jeet.Tensor"):
        jeet.log1p([1.0])


def test_one_graph_one_kernel(rng):
    """Built from Jeet's ops, a function is part of the graph and fuses:
    log_softmax of a tensor is one kernel on the CPU."""
    x = t(rng.standard_normal((8, 64)).astype(np.float32))
    stats = jeet.explain(jeet.log_softmax(x, -1))
    assert "1 kernel(s)" in str(stats)


@pytest.mark.parametrize("make", [lambda: jeet.arange(2**40), lambda: jeet.full((2**40,), 1.0),
                                  lambda: jeet.linspace(0, 1, 2**40), lambda: jeet.eye(2**20)],
                         ids=["arange", "full", "linspace", "eye"])
def test_host_values_beyond_memory_are_out_of_memory_errors(make):
    """Values made on the host by NumPy (8 TiB here): NumPy's MemoryError is
    Jeet's OutOfMemoryError (a JeetError), naming the function."""
    with pytest.raises(jeet.OutOfMemoryError, match=r"jeet\.\w+: the host has no memory"):
        make()


def test_numpy_reductions_of_tensors(rng):
    """NumPy's reduction functions call a non-ndarray's methods with dtype
    and out: np.sum(x), np.mean(x, axis=0), np.std(x, ddof=1) of a tensor
    are tensors, computed by Jeet."""
    a = rng.standard_normal((5, 7)).astype(np.float32)
    x = jeet.tensor(a, device="cpu")
    for fn, kwargs in [(np.sum, {}), (np.mean, {"axis": 0}), (np.max, {"axis": 1}),
                       (np.min, {"keepdims": True}), (np.prod, {"axis": 0}),
                       (np.std, {"ddof": 1}), (np.var, {"axis": 1}),
                       (np.argmax, {"axis": 1}), (np.argmin, {})]:
        got = fn(x, **kwargs)
        assert isinstance(got, jeet.Tensor), fn.__name__
        np.testing.assert_allclose(got.numpy(), fn(a.astype(np.float64), **kwargs),
                                   rtol=1e-5, atol=1e-5, err_msg=fn.__name__)
    assert isinstance(np.any(x > 0), jeet.Tensor) and bool(np.all(x < 100))
    assert x.sum(dtype="float16").dtype == "float16"
    with pytest.raises(jeet.ArgumentError, match="out= is not supported"):
        np.sum(x, out=np.zeros(()))
    with pytest.raises(jeet.ArgumentError, match="where= is not supported"):
        np.sum(x, where=a > 0)


def test_numpy_names_of_jeet_ops(rng):
    a = rng.uniform(0.1, 0.9, (4, 5)).astype(np.float32)
    b = rng.uniform(0.1, 0.9, (4, 5)).astype(np.float32)
    x, y = jeet.tensor(a, device="cpu"), jeet.tensor(b, device="cpu")
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for name in ("subtract", "multiply", "power"):
        np.testing.assert_allclose(getattr(jeet, name)(x, y).numpy(),
                                   getattr(np, name)(a64, b64), rtol=1e-6, err_msg=name)
    for name in ("negative", "absolute", "arcsin", "arccos", "arctan", "arcsinh", "arctanh"):
        np.testing.assert_allclose(getattr(jeet, name)(x).numpy(), getattr(np, name)(a64),
                                   rtol=1e-6, atol=1e-7, err_msg=name)
    np.testing.assert_allclose(jeet.arccosh(x + 1.0).numpy(), np.arccosh(a64 + 1.0), rtol=1e-5)
    np.testing.assert_array_equal(jeet.amax(x, axis=0).numpy(), np.amax(a, axis=0))
    np.testing.assert_array_equal(jeet.amin(x).numpy(), np.amin(a))


@pytest.mark.parametrize("call", [
    lambda m, x: m.swapaxes(x, 0, 2), lambda m, x: m.swapaxes(x, -1, 1),
    lambda m, x: m.moveaxis(x, 0, -1), lambda m, x: m.moveaxis(x, [0, 1], [2, 0]),
    lambda m, x: m.moveaxis(x, (2,), (0,)),
    lambda m, x: m.roll(x, 2, 1), lambda m, x: m.roll(x, -7), lambda m, x: m.roll(x, 13, -1),
    lambda m, x: m.roll(x, 0, 0),
    lambda m, x: m.vstack([x[0], x[1]]), lambda m, x: m.vstack([x[0, 0], x[1, 1]]),
    lambda m, x: m.hstack([x[0], x[1]]), lambda m, x: m.hstack([x[0, 0], x[1, 1]]),
    lambda m, x: m.outer(x[0, 0], x[1, :, 1]),
])
def test_numpy_data_movement_functions(call, rng):
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    got = call(jeet, jeet.tensor(a, device="cpu")).numpy()
    want = call(np, a)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_permute_dims_and_dot(rng):
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    x = jeet.tensor(a, device="cpu")
    np.testing.assert_array_equal(jeet.permute_dims(x, (2, 0, 1)).numpy(), a.transpose(2, 0, 1))
    a64 = a.astype(np.float64)
    # Inner product, matrix-vector, vector-matrix, scalars.
    for lhs, rhs in [((0, 0), (1, 0)), ((0,), (1, 0)), ((0, slice(None), 0), (0,)),
                     ((0, 0, 0), (0, 0)), ((0, 0), (0, 0, 0))]:
        u, v = a[lhs], a[rhs]
        got = jeet.dot(x[lhs], x[rhs]).numpy()
        np.testing.assert_allclose(got, np.dot(u.astype(np.float64), v.astype(np.float64)),
                                   rtol=1e-5, atol=1e-5)
    # A rank-3 a with a 1-d b: a sum over a's last axis.
    np.testing.assert_allclose(jeet.dot(x, x[0, 0]).numpy(), np.dot(a64, a64[0, 0]), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x[0].dot(x[0].T).numpy(), a64[0] @ a64[0].T, rtol=1e-5, atol=1e-5)
    with pytest.raises(jeet.ShapeError, match="numpy.dot's outer batching is not supported"):
        jeet.dot(x[0], x.transpose((0, 2, 1)))
    with pytest.raises(jeet.ShapeError, match="axis 3 is out of range"):
        jeet.swapaxes(x, 0, 3)
    with pytest.raises(jeet.ArgumentError, match="same number of elements"):
        jeet.moveaxis(x, [0, 1], [0])
    with pytest.raises(jeet.ArgumentError, match="shift must be an int"):
        jeet.roll(x, 1.5)


def test_isclose_allclose_nan_to_num_logaddexp(rng):
    a = rng.standard_normal(200).astype(np.float32)
    # b in float32 too (the int64 choice would widen it to float64, and numpy
    # would then compare in float64 what Jeet compares in float32).
    b = (a + rng.standard_normal(200).astype(np.float32) * np.float32(1e-5)
         * rng.choice([0, 1, 10, 1000], 200)).astype(np.float32)
    edges_a = np.array([np.inf, -np.inf, np.inf, np.nan, np.nan, 0.0, 1e-9], np.float32)
    edges_b = np.array([np.inf, -np.inf, -np.inf, np.nan, 1.0, 1e-9, 0.0], np.float32)
    a, b = np.concatenate([a, edges_a]), np.concatenate([b, edges_b])
    x, y = jeet.tensor(a, device="cpu"), jeet.tensor(b, device="cpu")
    for kwargs in ({}, {"rtol": 1e-3}, {"atol": 1e-4}, {"equal_nan": True}):
        np.testing.assert_array_equal(jeet.isclose(x, y, **kwargs).numpy(),
                                      np.isclose(a, b, **kwargs), err_msg=str(kwargs))
    assert bool(jeet.allclose(x[:200], x[:200] + 1e-9)) and not bool(jeet.allclose(x, y))
    assert bool(jeet.allclose(x, x, equal_nan=True))
    ints = jeet.tensor(np.array([1, 2, 3], np.int32), dtype="int32", device="cpu")
    assert jeet.isclose(ints, 2).numpy().tolist() == [False, True, False]

    special = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0], np.float32)
    for kwargs in ({}, {"nan": -1.0, "posinf": 7.0, "neginf": -7.0}):
        for dtype in ("float32", "float16"):
            got = jeet.nan_to_num(jeet.tensor(special, dtype=dtype, device="cpu"), **kwargs).numpy()
            np.testing.assert_array_equal(got, np.nan_to_num(special.astype(dtype), **kwargs))
    assert jeet.nan_to_num(ints) is ints

    u = np.concatenate([rng.uniform(-800, 800, 300), [np.inf, -np.inf, np.inf, 1.0, np.nan, 0.0]]).astype(np.float32)
    v = np.concatenate([rng.uniform(-800, 800, 300), [np.inf, -np.inf, -np.inf, np.inf, 1.0, 0.0]]).astype(np.float32)
    with np.errstate(invalid="ignore"):
        want = np.logaddexp(u.astype(np.float64), v.astype(np.float64))
    got = jeet.logaddexp(jeet.tensor(u, device="cpu"), jeet.tensor(v, device="cpu")).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-7, atol=1e-7)
    half = jeet.logaddexp(jeet.tensor(u[:300], dtype="float16", device="cpu"), 0.5).numpy()
    with np.errstate(over="ignore"):
        ref = np.logaddexp(u[:300].astype(np.float16).astype(np.float64), 0.5)
    np.testing.assert_allclose(half.astype(np.float64), ref, rtol=1e-3)


@pytest.mark.parametrize("call", [
    lambda m, x: m.repeat(x, 2), lambda m, x: m.repeat(x, 3, axis=1),
    lambda m, x: m.repeat(x, [1, 0, 2], axis=0), lambda m, x: m.repeat(x, 0, axis=-1),
    lambda m, x: m.tile(x, 2), lambda m, x: m.tile(x, (2, 1, 3)), lambda m, x: m.tile(x, (1, 0)),
    lambda m, x: m.diag(x), lambda m, x: m.diag(x, 2), lambda m, x: m.diag(x, -1),
    lambda m, x: m.diag(x, 9), lambda m, x: m.diag(x[0]), lambda m, x: m.diag(x[1], 2),
    lambda m, x: m.diag(x[2], -3), lambda m, x: m.trace(x), lambda m, x: m.trace(x, -1),
])
def test_numpy_repeat_tile_diag_trace(call, rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    got = call(jeet, jeet.tensor(a, device="cpu")).numpy()
    want = call(np, a)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_numpy_split_and_hypot(rng):
    a = rng.standard_normal((6, 4)).astype(np.float32)
    x = jeet.tensor(a, device="cpu")
    for args in [(3,), (2, 1), ([1, 4],), ([2, 2, 5],), ([0, 10],)]:
        got, want = jeet.split(x, *args), np.split(a, *args)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(jeet.ShapeError, match="does not result in an equal division"):
        jeet.split(x, 4)
    with pytest.raises(jeet.ArgumentError, match="repeats must be an int"):
        jeet.repeat(x, 1.5)
    with pytest.raises(jeet.ShapeError, match="3 repeats for axis 0 of size 6"):
        jeet.repeat(x, [1, 2, 3], axis=0)
    with pytest.raises(jeet.ShapeError, match="input must be 1- or 2-d"):
        jeet.diag(jeet.tensor(np.zeros((2, 2, 2), np.float32), device="cpu"))

    u = np.concatenate([rng.standard_normal(100) * 10.0 ** rng.integers(-30, 30, 100),
                        [3e30, 3e-30, np.inf, np.nan, 0.0, -0.0, np.inf]]).astype(np.float32)
    v = np.concatenate([rng.standard_normal(100) * 10.0 ** rng.integers(-30, 30, 100),
                        [4e30, 4e-30, np.nan, 1.0, 0.0, -2.0, -np.inf]]).astype(np.float32)
    got = jeet.hypot(jeet.tensor(u, device="cpu"), jeet.tensor(v, device="cpu")).numpy()
    np.testing.assert_allclose(got, np.hypot(u.astype(np.float64), v.astype(np.float64)),
                               rtol=3e-7)
    half = jeet.hypot(jeet.tensor(u[:100] * 0, dtype="float16", device="cpu") + 300.0, 400.0)
    np.testing.assert_array_equal(half.numpy(), np.full(100, 500.0, np.float16))


def _topk_reference(x, k, axis, largest):
    """Sorted values and indices in float64 NumPy: NaN above every number
    (as +inf, after it, for the smallest), ties to the lower index."""
    x = np.moveaxis(np.asarray(x, np.float64), axis, -1)
    index = np.arange(x.shape[-1])
    key = np.where(np.isnan(x), np.inf, x)
    rank = np.where(np.isnan(x), 1, 0) if largest else np.zeros(x.shape, int)
    order = np.empty(x.shape, np.int64)
    for pos in np.ndindex(x.shape[:-1]):
        primary = -key[pos] if largest else key[pos]
        secondary = -rank[pos] if largest else rank[pos]
        order[pos] = np.lexsort((index, secondary, primary))
    order = order[..., :k]
    values = np.take_along_axis(x, order, -1)
    return np.moveaxis(values, -1, axis), np.moveaxis(order, -1, axis)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "bool"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("shape, k, axis", [((7, 33), 5, 1), ((4, 9, 3), 9, 1),
                                            ((40,), 1, 0), ((6, 5), 3, 0)])
def test_topk(rng, dtype, largest, shape, k, axis):
    """jeet.topk against a float64 sort: duplicates (ties to the lower
    index), infinities (all left equal to the fill value: the picks must
    not repeat) and NaN (above every number), in every dtype."""
    if dtype == "bool":
        x = rng.integers(0, 2, shape).astype(bool)
    elif dtype == "int32":
        x = rng.integers(-4, 5, shape).astype(np.int32)
    else:
        x = rng.integers(-6, 7, shape).astype(dtype)   # many ties
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, 3, replace=False)] = [np.inf, -np.inf, np.nan]
        x[(0,) * (len(shape) - 1)] = -np.inf if largest else np.inf
    values, indices = jeet.topk(t(x), k, axis, largest=largest)
    want_values, want_indices = _topk_reference(x, k, axis, largest)
    assert indices.dtype == "int64" and values.shape == want_values.shape
    np.testing.assert_array_equal(indices.numpy(), want_indices)
    np.testing.assert_array_equal(values.numpy().astype(np.float64), want_values)


def test_topk_errors():
    x = t(np.zeros((3, 70), np.float32))
    with pytest.raises(jeet.ShapeError, match="k = 71 is out of range for axis 1 of size 70"):
        jeet.topk(x, 71)
    with pytest.raises(jeet.ShapeError, match="k = 65 is more than 64"):
        jeet.topk(x, 65)
    with pytest.raises(jeet.ShapeError, match="k = 0 gives empty tensors"):
        jeet.topk(x, 0)
    with pytest.raises(jeet.ShapeError, match="axis 2 is out of range for rank 2"):
        jeet.topk(x, 1, axis=2)
    with pytest.raises(ValueError, match="k must be an int, got 2.0"):
        jeet.topk(x, 2.0)
    with pytest.raises(jeet.ShapeError, match="rank >= 1"):
        jeet.topk(t(np.float32(1)), 1)
