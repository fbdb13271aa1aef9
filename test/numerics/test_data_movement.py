"""concat, slice, gather and pad through jeet-run on the CPU and the GPU (the
`run` fixture), on fresh random inputs, against numpy: they move elements
only, so the results must be exact."""
import numpy as np
import pytest

from jeetrun import mlir_type

INT64_MIN = -(2**63)
DTYPES = [np.float32, np.float16, np.int32, np.int64, np.bool_]


def ids(t):
    return np.dtype(t).name


def random(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    return (rng.standard_normal(shape) * 100).astype(dtype)


def one_op_graph(op_text, inputs, out_shape, out_dtype):
    args = ", ".join(f"%a{i}: {mlir_type(x.shape, x.dtype)}"
                     for i, x in enumerate(inputs))
    to = mlir_type(out_shape, out_dtype)
    return (f"func.func @main({args}) -> {to} {{\n"
            f"  %0 = {op_text} -> {to}\n  return %0 : {to}\n}}\n")


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("shapes_axis", [
    ([(2, 3), (4, 3)], 0), ([(5, 1), (5, 7), (5, 0), (5, 130)], 1),
    ([(3, 4, 5)], 2), ([(2, 3, 4), (2, 6, 4), (2, 1, 4)], 1)], ids=str)
def test_concat(run, rng, dtype, shapes_axis):
    shapes, axis = shapes_axis
    xs = [random(rng, s, dtype) for s in shapes]
    expected = np.concatenate(xs, axis=axis)
    names = ", ".join(f"%a{i}" for i in range(len(xs)))
    types = ", ".join(mlir_type(x.shape, dtype) for x in xs)
    graph = one_op_graph(f"jeet.concat {names} {{axis = {axis} : i64}} : {types}",
                         xs, expected.shape, dtype)
    (out,) = run(graph, xs)
    np.testing.assert_array_equal(out, expected)


# Python slices of each dimension: negative bounds and steps, bounds past
# the ends, empty results.
SLICES = [
    ((9, 40), (slice(1, 7, 2), slice(None, None, -1))),
    ((9, 40), (slice(-3, None), slice(-100, 100, 3))),
    ((9, 40), (slice(None, None, -4), slice(35, 2, -5))),
    ((6, 5, 33), (slice(4, 1, -1), slice(None), slice(1, -1))),
    ((6, 5), (slice(3, 3), slice(None))),
    ((6, 5), (slice(-1, -7, -2), slice(10, None, -1))),
]


def bound(value, default):
    return default if value is None else value


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("shape_slices", SLICES, ids=str)
def test_slice(run, rng, dtype, shape_slices):
    shape, slices = shape_slices
    x = random(rng, shape, dtype)
    expected = x[slices]
    steps = [bound(s.step, 1) for s in slices]
    starts = [bound(s.start, 0 if st > 0 else -1) for s, st in zip(slices, steps)]
    stops = [bound(s.stop, 2**63 - 1 if st > 0 else INT64_MIN)
             for s, st in zip(slices, steps)]
    attrs = (f"starts = array<i64: {', '.join(map(str, starts))}>, "
             f"stops = array<i64: {', '.join(map(str, stops))}>, "
             f"steps = array<i64: {', '.join(map(str, steps))}>")
    graph = one_op_graph(
        f"jeet.slice %a0 {{{attrs}}} : {mlir_type(shape, dtype)}",
        [x], expected.shape, dtype)
    (out,) = run(graph, [x])
    np.testing.assert_array_equal(out, expected)


def gather_reference(data, indices, axis):
    """numpy.take with Jeet's defined result for out-of-range indices:
    [-n, 0) from the end, the rest clamped into [0, n)."""
    n = data.shape[axis]
    fixed = np.where(indices < 0, indices + n, indices)
    return np.take(data, np.clip(fixed, 0, n - 1), axis=axis)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64], ids=ids)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_],
                         ids=ids)
@pytest.mark.parametrize("case", [((1000, 64), (8, 16), 0), ((7, 50, 3), (9,), 1),
                                  ((4, 130), (2, 3, 2), 1), ((5,), (), 0)],
                         ids=str)
def test_gather(run, rng, case, dtype, index_dtype):
    data_shape, index_shape, axis = case
    n = data_shape[axis]
    data = random(rng, data_shape, dtype)
    # In range mostly, with negative ones and some beyond either end.
    indices = rng.integers(-n - 3, n + 3, size=index_shape).astype(index_dtype)
    expected = gather_reference(data, indices, axis)
    ti = mlir_type(indices.shape, index_dtype)
    graph = one_op_graph(
        f"jeet.gather %a0, %a1 {{axis = {axis} : i64}} : "
        f"{mlir_type(data_shape, dtype)}, {ti}", [data, indices],
        expected.shape, dtype)
    (out,) = run(graph, [data, indices])
    np.testing.assert_array_equal(out, expected)


def test_gather_in_range_is_take(run, rng):
    data = rng.standard_normal((50, 8)).astype(np.float32)
    indices = rng.integers(-50, 50, size=(6, 4)).astype(np.int64)
    graph = one_op_graph("jeet.gather %a0, %a1 {axis = 0 : i64} : "
                         "tensor<50x8xf32>, tensor<6x4xi64>",
                         [data, indices], (6, 4, 8), np.float32)
    (out,) = run(graph, [data, indices])
    np.testing.assert_array_equal(out, np.take(data, indices, axis=0))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("case", [((2, 3), (1, 2), (1, 1)), ((5, 70), (0, 3), (2, 0)),
                                  ((3, 0), (1, 1), (0, 2)), ((4,), (0,), (0,)),
                                  ((2, 3, 33), (1, 0, 5), (0, 2, 6))], ids=str)
def test_pad(run, rng, dtype, case):
    shape, low, high = case
    x = random(rng, shape, dtype)
    value = random(rng, (), dtype)
    expected = np.pad(x, list(zip(low, high)), constant_values=value)
    t = mlir_type(shape, dtype)
    attrs = (f"low = array<i64: {', '.join(map(str, low))}>, "
             f"high = array<i64: {', '.join(map(str, high))}>")
    graph = one_op_graph(
        f"jeet.pad %a0, %a1 {{{attrs}}} : {t}, {mlir_type((), dtype)}",
        [x, value], expected.shape, dtype)
    (out,) = run(graph, [x, value])
    np.testing.assert_array_equal(out, expected)


def test_data_movement_with_arithmetic(run, rng):
    # An embedding lookup, a reversed slice, a concat and a pad, with
    # elementwise work between them, in one graph.
    table = rng.standard_normal((100, 16)).astype(np.float32)
    ids_ = rng.integers(0, 100, size=(4, 5)).astype(np.int64)
    graph = (
        "func.func @main(%t: tensor<100x16xf32>, %i: tensor<4x5xi64>) -> tensor<6x5x32xf32> {\n"
        "  %z = jeet.constant dense<-1.0> : tensor<f32>\n"
        "  %e = jeet.gather %t, %i {axis = 0 : i64} : tensor<100x16xf32>, tensor<4x5xi64> -> tensor<4x5x16xf32>\n"
        "  %r = jeet.relu %e : tensor<4x5x16xf32>\n"
        "  %s = jeet.slice %e {starts = array<i64: -1, 0, 0>, stops = array<i64: -9223372036854775808, 5, 16>, steps = array<i64: -1, 1, 1>} : tensor<4x5x16xf32> -> tensor<4x5x16xf32>\n"
        "  %c = jeet.concat %r, %s {axis = 2 : i64} : tensor<4x5x16xf32>, tensor<4x5x16xf32> -> tensor<4x5x32xf32>\n"
        "  %p = jeet.pad %c, %z {low = array<i64: 1, 0, 0>, high = array<i64: 1, 0, 0>} : tensor<4x5x32xf32>, tensor<f32> -> tensor<6x5x32xf32>\n"
        "  %o = jeet.mul %p, %p : tensor<6x5x32xf32>, tensor<6x5x32xf32> -> tensor<6x5x32xf32>\n"
        "  return %o : tensor<6x5x32xf32>\n}\n")
    (out,) = run(graph, [table, ids_])
    e = table[ids_]
    c = np.concatenate([np.maximum(e, 0), e[::-1]], axis=2)
    p = np.pad(c, [(1, 1), (0, 0), (0, 0)], constant_values=-1.0)
    np.testing.assert_array_equal(out, p * p)


# Transposes that keep the innermost dimension in place are copies of whole
# rows (vector loads and stores on the CPU): attention's heads split from
# the QKV projection's rows and merged back, rows with a remainder (20 =
# 16 + 4, 37 = 2 x 16 + 4 + 1), rows of one element; the last one moves the
# innermost dimension (element by element) and is the control.
TRANSPOSES = [
    ((2, 5, 3, 2, 20), (2, 0, 3, 1, 4)),
    ((2, 4, 8, 32), (0, 2, 1, 3)),
    ((3, 6, 37), (1, 0, 2)),
    ((5, 3, 1), (1, 0, 2)),
    ((4, 6, 9), (2, 0, 1)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("shape_perm", TRANSPOSES, ids=str)
def test_transpose(run, rng, dtype, shape_perm):
    shape, perm = shape_perm
    x = random(rng, shape, dtype)
    expected = np.transpose(x, perm)
    graph = one_op_graph(
        f"jeet.transpose %a0 {{permutation = array<i64: {', '.join(map(str, perm))}>}} "
        f": {mlir_type(x.shape, dtype)}", [x], expected.shape, dtype)
    (out,) = run(graph, [x])
    np.testing.assert_array_equal(out, expected)
