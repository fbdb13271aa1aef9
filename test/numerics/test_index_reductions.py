"""reduce_min, reduce_prod, argmax/argmin and iota through jeet-run on the
CPU and the GPU (the `run` fixture), on fresh random inputs, against numpy
(float64 references for the products)."""
import numpy as np
import pytest

from jeetrun import assert_close, mlir_type

FLOATS = [np.float32, np.float16]
NUMBERS = FLOATS + [np.int32, np.int64]


def ids(t):
    return np.dtype(t).name


def reduce_graph(op, x, axes, keepdims, out_dtype=None):
    out_dtype = out_dtype or x.dtype
    if keepdims:
        shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
    else:
        shape = [d for i, d in enumerate(x.shape) if i not in axes]
    ti, to = mlir_type(x.shape, x.dtype), mlir_type(shape, out_dtype)
    attrs = (f"axes = array<i64: {', '.join(map(str, axes))}>"
             + (", keepdims = true" if keepdims else ""))
    return (f"func.func @main(%x: {ti}) -> {to} {{\n"
            f"  %0 = jeet.{op} %x {{{attrs}}} : {ti} -> {to}\n"
            f"  return %0 : {to}\n}}\n")


def arg_graph(op, x, axis, keepdims):
    shape = list(x.shape)
    if keepdims:
        shape[axis] = 1
    else:
        del shape[axis]
    ti, to = mlir_type(x.shape, x.dtype), mlir_type(shape, np.int64)
    attrs = f"axis = {axis} : i64" + (", keepdims = true" if keepdims else "")
    return (f"func.func @main(%x: {ti}) -> {to} {{\n"
            f"  %0 = jeet.{op} %x {{{attrs}}} : {ti} -> {to}\n"
            f"  return %0 : {to}\n}}\n")


def with_ties_and_specials(rng, shape, dtype):
    """Small integers (many ties) and, for floats, infinities and a few
    NaN-holding rows."""
    x = rng.integers(-20, 21, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        flat = x.reshape(-1)
        picks = rng.integers(0, flat.size, size=6)
        flat[picks[:2]] = np.inf
        flat[picks[2:4]] = -np.inf
        flat[picks[4:]] = np.nan
    return x


# Rows of 37 (shorter than a vector loop plus a remainder, and across a
# warp) and 300; the axis is the innermost one or an outer one.
SHAPES_AXES = [((5, 37), (1,)), ((300, 6), (0,)), ((3, 4, 300), (2,)),
               ((4, 9, 11), (0, 2)), ((7, 33), (0, 1))]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape_axes", SHAPES_AXES, ids=str)
@pytest.mark.parametrize("dtype", NUMBERS, ids=ids)
def test_reduce_min(run, rng, dtype, shape_axes, keepdims):
    shape, axes = shape_axes
    x = with_ties_and_specials(rng, shape, dtype)
    (out,) = run(reduce_graph("reduce_min", x, axes, keepdims), [x])
    np.testing.assert_array_equal(out, np.min(x, axis=axes, keepdims=keepdims))


@pytest.mark.parametrize("shape_axes", SHAPES_AXES, ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=ids)
def test_reduce_prod_float(run, rng, dtype, shape_axes):
    shape, axes = shape_axes
    # Factors near 1, some negative, so that long products stay in range.
    x = (rng.uniform(0.9, 1.1, size=shape)
         * rng.choice([-1.0, 1.0], size=shape)).astype(dtype)
    (out,) = run(reduce_graph("reduce_prod", x, axes, False), [x])
    expected = np.prod(x.astype(np.float64), axis=axes)
    # f32 products round once per factor; f16 ones multiply in f32 and round
    # once at the end.
    rtol = 4e-5 if dtype == np.float32 else 1e-3
    assert_close(out, expected, rtol=rtol, atol=0, what=f"prod {ids(dtype)}")


@pytest.mark.parametrize("shape_axes", SHAPES_AXES, ids=str)
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=ids)
def test_reduce_prod_int(run, rng, dtype, shape_axes):
    shape, axes = shape_axes
    # Products that wrap around, as numpy's do in the same dtype.
    x = rng.integers(-7, 8, size=shape).astype(dtype)
    (out,) = run(reduce_graph("reduce_prod", x, axes, False), [x])
    np.testing.assert_array_equal(out, np.prod(x, axis=axes, dtype=dtype))


def test_reduce_prod_special_values(run):
    x = np.array([[2.0, np.inf, 0.5], [0.0, np.inf, 1.0], [np.nan, 1.0, 1.0],
                  [-0.0, 3.0, 1.0]], dtype=np.float32)
    (out,) = run(reduce_graph("reduce_prod", x, (1,), False), [x])
    with np.errstate(invalid="ignore"):  # 0 * inf, which numpy reports
        expected = np.prod(x, axis=1)
    np.testing.assert_array_equal(out, expected)
    assert np.signbit(out[3])


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape_axis", [((5, 37), 1), ((300, 6), 0),
                                        ((3, 300, 4), 1), ((1000,), 0)],
                         ids=str)
@pytest.mark.parametrize("dtype", NUMBERS, ids=ids)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reduction(run, rng, op, dtype, shape_axis, keepdims):
    shape, axis = shape_axis
    x = with_ties_and_specials(rng, shape, dtype)
    (out,) = run(arg_graph(op, x, axis, keepdims), [x])
    assert out.dtype == np.int64
    reference = getattr(np, op)(x, axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(out, reference, err_msg=f"{op} {x!r}")


def test_arg_reduction_first_nan_and_first_tie(run):
    x = np.array([[1.0, 5.0, 5.0, 2.0], [1.0, np.nan, 7.0, np.nan],
                  [-np.inf, -np.inf, -np.inf, -np.inf],
                  [0.0, -0.0, -1.0, 0.0]], dtype=np.float32)
    (amax,) = run(arg_graph("argmax", x, 1, False), [x])
    (amin,) = run(arg_graph("argmin", x, 1, False), [x])
    np.testing.assert_array_equal(amax, [1, 1, 0, 0])
    np.testing.assert_array_equal(amin, [0, 1, 0, 2])


@pytest.mark.parametrize("shape_axis", [((2, 3), 1), ((5, 70, 300), 1),
                                        ((5, 70, 300), 2), ((4096,), 0)],
                         ids=str)
@pytest.mark.parametrize("dtype", NUMBERS, ids=ids)
def test_iota(run, dtype, shape_axis):
    # The small ones fold into constants, the large ones run as kernels.
    shape, axis = shape_axis
    t = mlir_type(shape, dtype)
    graph = (f"func.func @main() -> {t} {{\n"
             f"  %0 = jeet.iota {{axis = {axis} : i64}} : {t}\n"
             f"  return %0 : {t}\n}}\n")
    (out,) = run(graph, [])
    expected = np.broadcast_to(
        np.arange(shape[axis]).reshape(
            [-1 if i == axis else 1 for i in range(len(shape))]), shape)
    if dtype == np.float16:
        expected = expected.astype(np.float16)  # rounds above 2048, as Jeet
    np.testing.assert_array_equal(out, expected.astype(dtype))
