"""Indexing (x[...]), jeet.concatenate, jeet.take and jeet.pad from Python,
against NumPy, and their errors."""

import numpy as np
import pytest

import jeet


def t(x, dtype=None):
    x = np.asarray(x)
    return jeet.tensor(x, dtype=dtype or x.dtype, device="cpu")


KEYS = [np.s_[1], np.s_[-1, 2:], np.s_[::-1], np.s_[1:5:2, ::-3],
        np.s_[..., 1], np.s_[2, ..., -2:0:-1], np.s_[100:], np.s_[:, 3, 1],
        np.s_[-100:100, ::7],
        # None (numpy.newaxis) adds a dimension of 1 where it stands.
        np.s_[None], np.s_[:, None], np.s_[..., None], np.s_[1, None, ::2],
        np.s_[None, ..., None, 0], np.s_[None, None, 2, 1, 3],
        np.s_[0, 0, 0, None], np.s_[None, -1, ...]]


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_getitem(key):
    x = np.arange(6 * 5 * 4, dtype=np.float32).reshape(6, 5, 4)
    got = t(x)[key]
    expected = x[key]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)


def test_getitem_random_keys(rng):
    """Random keys of ints, slices (any start, stop and step, None among
    them), one '...' and None, in Python ints (the short path) and NumPy
    ints (the general one), against NumPy; each key twice (the second time
    from the memo of basic keys) and on a tensor of another shape."""
    x = np.arange(5 * 6 * 7, dtype=np.float32).reshape(5, 6, 7)
    y = np.arange(7 * 6 * 5, dtype=np.float32).reshape(7, 6, 5)
    tx, ty = t(x), t(y)

    def bound(size):
        v = int(rng.integers(-size - 3, size + 3))
        return None if rng.random() < 0.3 else v

    for _ in range(300):
        numpy_ints = rng.random() < 0.3
        cast = np.int64 if numpy_ints else int
        key = []
        for size in x.shape[:rng.integers(0, 4)]:
            if rng.random() < 0.4:
                key.append(cast(rng.integers(-size, size)))
            else:
                step = None if rng.random() < 0.4 else int(
                    rng.choice([-3, -2, -1, 1, 2, 3]))
                key.append(slice(bound(size), bound(size),
                                 None if step is None else cast(step)))
        if rng.random() < 0.3:
            key.insert(int(rng.integers(0, len(key) + 1)), Ellipsis)
        if rng.random() < 0.2:
            key.insert(int(rng.integers(0, len(key) + 1)), None)
        key = tuple(key)
        expected = x[key]
        first = tx[key]
        for got in (first, tx[key]):
            assert got.shape == expected.shape, key
            assert got._key == first._key, key
            np.testing.assert_array_equal(got.numpy(), expected, err_msg=str(key))
        try:
            other = y[key]
        except IndexError:
            with pytest.raises(IndexError):
                ty[key]
            continue
        for got in (ty[key], ty[key]):
            assert got.shape == other.shape, key
            np.testing.assert_array_equal(got.numpy(), other, err_msg=str(key))


def test_getitem_errors():
    x = t(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        x[2]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    # Nones index nothing: three ints are still too many.
    with pytest.raises(IndexError, match="rank 2: 3 were given"):
        x[None, 0, None, 0, 0]
    with pytest.raises(ValueError, match="step cannot be zero"):
        x[::0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(IndexError, match="rank 2: 3 were given"):
        x[..., 0, 0, 0]
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 1"):
        x[..., -4]
    with pytest.raises(IndexError, match="only integers, slices, '...', None and one index array"):
        x[0.5]


# One index array (NumPy's advanced indexing) among full slices and '...':
# lists, NumPy integer arrays of any shape, NumPy bool masks over one or
# more axes, and 0-d integer arrays (an int).
ARRAY_KEYS = [[0, 2], [[5, 0], [-1, 3]], np.s_[:, [4, 1, 1]], np.s_[..., [3, -4]],
              np.s_[[1], ...], np.s_[:, ..., [0]], np.s_[:, :, [[2, 0]]], [],
              "mask0", "mask1", "mask01", "mask12", "mask012", "none",
              "int0d"]


def array_key(name, rng):
    masks = {"mask0": (6,), "mask1": (5,), "mask01": (6, 5), "mask12": (5, 4),
             "mask012": (6, 5, 4), "none": (6,)}
    if isinstance(name, str) and name in masks:
        mask = rng.random(masks[name]) < (0 if name == "none" else 0.5)
        return (mask,) if name in ("mask0", "mask01", "mask012", "none") \
            else (slice(None), mask)
    if isinstance(name, str) and name == "int0d":
        return (slice(None), np.array(3))
    return name


@pytest.mark.parametrize("key", ARRAY_KEYS, ids=str)
def test_getitem_with_an_index_array(key, rng):
    x = rng.standard_normal((6, 5, 4)).astype(np.float32)
    key = array_key(key, rng)
    expected = x[tuple(key) if isinstance(key, tuple) else key]
    got = t(x)[key]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)


def test_getitem_with_an_integer_tensor(rng):
    x = rng.standard_normal((6, 5)).astype(np.float32)
    ids = rng.integers(-6, 6, (2, 3))
    got = t(x)[jeet.from_numpy(ids.astype(np.int32))]
    np.testing.assert_array_equal(got.numpy(), x[ids])
    got = t(x)[:, jeet.from_numpy(np.array([4, 0]))]
    np.testing.assert_array_equal(got.numpy(), x[:, [4, 0]])


def test_getitem_with_an_index_array_errors():
    x = t(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        x[[0, 3]]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        x[:, np.array([-5])]
    with pytest.raises(IndexError, match="one index array at most"):
        x[[0], [1]]
    with pytest.raises(IndexError, match="combines only with full slices .* got 0 beside it"):
        x[0, [1]]
    with pytest.raises(IndexError, match="got None beside it"):
        x[None, [1]]
    with pytest.raises(IndexError, match="must be of integer .or boolean. type, got float64"):
        x[[0.5]]
    with pytest.raises(IndexError, match="along axis 1; size of axis is 4 but size of corresponding boolean axis is 3"):
        x[:, np.array([True, False, True])]
    with pytest.raises(IndexError, match="too many indices for a tensor of rank 2: 3 were given"):
        x[:, :, [0]]
    with pytest.raises(IndexError, match="a bool mask of shape \\(\\) does not index"):
        x[np.array(True)]
    # A jeet tensor's values are not known when the graph is built.
    mask = x > 0
    with pytest.raises(IndexError, match="bool jeet tensor .* jeet.where"):
        x[mask]
    with pytest.raises(IndexError, match="must be of integer or bool type, got float32"):
        x[x]


def test_item_assignment_is_a_clear_error():
    x = t(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match="does not support item assignment.*jeet.where"):
        x[0, 1] = 5.0


def test_concatenate(rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_array_equal(jeet.concatenate([t(a), t(b)]).numpy(),
                                  np.concatenate([a, b]))
    np.testing.assert_array_equal(
        jeet.concat((t(a), t(a)), axis=-1).numpy(), np.concatenate([a, a], axis=-1))
    # Mixed dtypes promote as numpy's.
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = jeet.concatenate([t(i), t(i.astype(np.int64))])
    assert got.dtype == "int64"
    with pytest.raises(jeet.ShapeError, match="differ outside axis 0"):
        jeet.concatenate([t(a), t(a.T)])
    with pytest.raises(jeet.ArgumentError, match="at least one"):
        jeet.concatenate([])


@pytest.mark.parametrize("axis", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_concatenate_copies_into_views(rng, axis, dtype):
    """A concat is its inputs copied into their slices of the result: runs
    as long as the dimensions after the axis (the whole input where only
    dimensions of 1 come before it), rows where the axis is the last; an
    input empty along the axis copies nothing. Its inputs computed in the
    graph and its result read by another kernel; exact."""
    sizes = [3, 0, 5, 2]
    shape = [2, 4, 6, 7]
    parts = []
    for size in sizes:
        part_shape = list(shape)
        part_shape[axis] = size
        parts.append((rng.standard_normal(part_shape) * 10).astype(dtype))
    got = jeet.concatenate([t(p) for p in parts], axis=axis)
    np.testing.assert_array_equal(got.numpy(), np.concatenate(parts, axis=axis))
    # Inputs computed in the graph, the result read after it.
    ts = [t(p) for p in parts]
    got = jeet.concatenate([x + x for x in ts], axis=axis) * t(np.array(3, dtype))
    np.testing.assert_array_equal(
        got.numpy(), np.concatenate([p + p for p in parts], axis=axis) * dtype(3))
    # One batch: each input one run.
    ones = [p[:1] for p in parts] if axis != 0 else parts
    np.testing.assert_array_equal(
        jeet.concatenate([t(p) for p in ones], axis=axis).numpy(),
        np.concatenate(ones, axis=axis))


def test_take(rng):
    table = rng.standard_normal((50, 8)).astype(np.float32)
    ids = rng.integers(-50, 50, (3, 4))
    np.testing.assert_array_equal(jeet.take(t(table), ids).numpy(),
                                  np.take(table, ids, axis=0))
    np.testing.assert_array_equal(
        jeet.gather(t(table), t(ids.astype(np.int32)), axis=0).numpy(),
        np.take(table, ids, axis=0))
    np.testing.assert_array_equal(jeet.take(t(table), [1, -1], axis=1).numpy(),
                                  np.take(table, [1, -1], axis=1))
    # Out of range: clamped, as documented.
    np.testing.assert_array_equal(jeet.take(t(table), [50, -51, 1000]).numpy(),
                                  table[[49, 0, 49]])
    with pytest.raises(jeet.ArgumentError, match="indices must be integers"):
        jeet.take(t(table), [0.5])


def test_pad(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    for width in [1, (1, 2), [(0, 1), (2, 0)]]:
        np.testing.assert_array_equal(
            jeet.pad(t(x), width, constant_values=-2.5).numpy(),
            np.pad(x, width, constant_values=-2.5))
    i = np.arange(4, dtype=np.int64)
    np.testing.assert_array_equal(jeet.pad(t(i), (2, 1)).numpy(), np.pad(i, (2, 1)))
    with pytest.raises(jeet.ArgumentError, match="negative"):
        jeet.pad(t(x), -1)
    with pytest.raises(jeet.ArgumentError, match="does not fit a tensor of rank 2"):
        jeet.pad(t(x), [(1, 1)] * 3)


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("shape, width", [
    ((5,), (2, 3)),
    ((3, 4), [(1, 2), (3, 0)]),
    # Wider than the axis: numpy's modes repeat their pattern.
    ((2, 3, 4), [(0, 0), (7, 5), (1, 1)]),
    ((1, 6), 2),
], ids=str)
def test_pad_modes_repeat_elements_as_numpy(rng, mode, shape, width):
    x = rng.standard_normal(shape).astype(np.float32)
    want = np.pad(x.astype(np.float64), width, mode=mode)
    np.testing.assert_array_equal(jeet.pad(t(x), width, mode=mode).numpy(), want)
    # numpy's spelling: the mode as the third argument; and an integer tensor.
    np.testing.assert_array_equal(jeet.pad(t(x), width, mode).numpy(), want)
    i = rng.integers(-9, 9, shape)
    np.testing.assert_array_equal(jeet.pad(t(i), width, mode=mode).numpy(),
                                  np.pad(i, width, mode=mode))


def test_pad_mode_errors(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    with pytest.raises(jeet.ArgumentError, match="mode 'mirror' is not one of "
                       "constant, edge, reflect, symmetric, wrap"):
        jeet.pad(t(x), 1, mode="mirror")
    with pytest.raises(jeet.ShapeError, match="mode 'reflect' cannot pad dimension 0 "
                       r"of shape \(0, 3\): it has no elements to repeat"):
        jeet.pad(t(np.zeros((0, 3), np.float32)), [(1, 0), (0, 0)], mode="reflect")
    with pytest.raises(jeet.ArgumentError, match="negative"):
        jeet.pad(t(x), -1, mode="edge")


@pytest.mark.parametrize("width", [((0, 7), (0, 0), (0, 0)),
                                   ((3, 4), (0, 0), (0, 0)),
                                   ((0, 7), (2, 1), (0, 1))], ids=str)
def test_pad_of_a_batch_in_a_matmul_tile(rng, width):
    """A pad along the batch dimension of a batched matmul's left operand,
    with an epilogue: the pad is computed in each batch's tile, which the
    CPU's pad vectorisation took for the whole pad (every batch came out as
    a copy of the input's; seed 498119 of fuzz_numerics.py)."""
    shape = (1, 7 - sum(width[1]), 32 - sum(width[2]))
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal((8, 32, 31)).astype(np.float32)
    e = rng.standard_normal(31).astype(np.float32)
    got = (jeet.matmul(jeet.pad(t(a), width, constant_values=2.0), t(b))
           + t(e)).numpy()
    padded = np.pad(a.astype(np.float64), width, constant_values=2.0)
    expected = padded @ b.astype(np.float64) + e
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)


def _slice_graphs(rng, device):
    """Graphs whose slices the ops after them read in place, each with its
    kernel count and its float64 result: a recurrent cell's gates (slices of
    a matmul's result, one strided), a matmul of strided slices, attention
    over queries, keys and values stacked in one tensor, and a reduction of
    a strided slice of a row group's input."""
    def T(a):
        return jeet.tensor(a, device=device)

    x = rng.standard_normal((6, 10)).astype(np.float32)
    w = rng.standard_normal((10, 48)).astype(np.float32)
    y = T(x) @ T(w)
    gates = jeet.sigmoid(y[:, :16]) * jeet.tanh(y[:, 16:32]) + y[:, 32::1] * y[:, ::3]
    Y = x.astype(np.float64) @ w
    yield "gates", gates, 2, (1 / (1 + np.exp(-Y[:, :16])) * np.tanh(Y[:, 16:32])
                              + Y[:, 32:] * Y[:, ::3])

    a = rng.standard_normal((50, 40)).astype(np.float32)
    b = rng.standard_normal((30, 70)).astype(np.float32)
    got = jeet.relu(T(a)[3:43:2, 5:35] @ T(b)[:, 10:60:3] + 1.0)
    yield "strided matmul", got, 1, np.maximum(
        a[3:43:2, 5:35].astype(np.float64) @ b[:, 10:60:3] + 1, 0)

    B, S, H, D = 2, 24, 3, 16
    qkv = rng.standard_normal((B * S, 3 * H * D)).astype(np.float32)
    stacked = jeet.transpose(jeet.reshape(T(qkv), (B, S, 3, H, D)), (2, 0, 3, 1, 4))
    q, k, v = stacked[0], stacked[1], stacked[2]
    scores = q @ jeet.transpose(k, (0, 1, 3, 2)) * (1 / np.sqrt(D))
    out = jeet.softmax(scores, axis=-1) @ v
    Q = qkv.astype(np.float64).reshape(B, S, 3, H, D).transpose(2, 0, 3, 1, 4)
    s = Q[0] @ Q[1].transpose(0, 1, 3, 2) / np.sqrt(D)
    p = np.exp(s - s.max(-1, keepdims=True))
    # The stacking transpose and the attention kernels (three on the GPU,
    # one block kernel on the CPU): no copy of q, k or v.
    yield "stacked attention", out, None, p / p.sum(-1, keepdims=True) @ Q[2]

    # PyTorch's exported attention (sequence first): the packed projection's
    # (S, 3, E) moved to (3, S, E), Q, K and V indexed out of that copy and
    # their heads moved out; K moved again on the other side of a reshape.
    # The slices become views of the projection, read in place by the
    # transposes of the heads (K's two folded into one): the projection,
    # three heads' copies (two with the scale), the attention and the
    # output's transpose (it was 12 kernels).
    S, H, D = 20, 3, 8
    E = H * D
    xp = rng.standard_normal((S, E)).astype(np.float32)
    wp = (rng.standard_normal((E, 3 * E)) / np.sqrt(E)).astype(np.float32)
    scale = np.float32(1 / np.sqrt(np.sqrt(D)))
    packed = jeet.reshape(jeet.transpose(jeet.reshape(T(xp) @ T(wp), (1, S, 1, 3, E)),
                                         (3, 1, 2, 0, 4)), (3, S, 1, E))

    def heads(t):
        return jeet.transpose(jeet.reshape(t, (S, H, D)), (1, 0, 2))

    q = jeet.reshape(heads(packed[0]), (1, H, S, D)) * scale
    k = jeet.transpose(jeet.reshape(heads(packed[1]), (1, H, S, D)), (0, 1, 3, 2)) * scale
    v = jeet.reshape(heads(packed[2]), (1, H, S, D))
    got = jeet.reshape(jeet.transpose(jeet.softmax(q @ k, axis=-1) @ v, (2, 0, 1, 3)), (S, E))
    P = xp.astype(np.float64) @ wp
    Q, K, V = (P[:, i * E:(i + 1) * E].reshape(S, H, D).transpose(1, 0, 2) for i in range(3))
    s = Q @ K.transpose(0, 2, 1) / np.sqrt(D)
    p = np.exp(s - s.max(-1, keepdims=True))
    yield "packed heads", got, 6 if device == "cpu" else None, (
        p / p.sum(-1, keepdims=True) @ V).transpose(1, 0, 2).reshape(S, E)

    # An index and a new axis: the slice's unit dimension dropped, another
    # added (a strided view reshaped; it was copied by a call the JIT could
    # not link, fuzz_numerics.py seed 595217), then a batched matmul.
    x4 = rng.standard_normal((31, 5, 5, 16)).astype(np.float32)
    y4 = rng.standard_normal((10, 2, 1, 15)).astype(np.float32)
    w4 = rng.standard_normal((10, 2, 15, 4)).astype(np.float32)
    moved = jeet.abs(T(x4)[1:40:3, 1, :-1:3, None, 0:-1] - T(y4)) @ T(w4)
    yield "moved unit dims", moved, 2, np.abs(
        x4[1:40:3, 1, :-1:3, None, 0:-1].astype(np.float64) - y4) @ w4

    r = rng.standard_normal((64, 96)).astype(np.float32)
    rows = T(r)[1:61, ::2]
    normed = rows - jeet.mean(rows, axis=1, keepdims=True)
    R = r[1:61, ::2].astype(np.float64)
    yield "row group", normed, 1, R - R.mean(1, keepdims=True)


@pytest.mark.parametrize("name", ["gates", "strided matmul", "stacked attention",
                                  "packed heads", "moved unit dims", "row group"])
def test_slices_are_read_in_place(rng, name):
    """Slices (positive steps) of values in memory are read in place by the
    kernels that use them, not copied by kernels of their own; the results
    match float64."""
    for graph, got, kernels, want in _slice_graphs(rng, "cpu"):
        if graph != name:
            continue
        if kernels is not None:
            assert jeet.compile(got).num_kernels == kernels, jeet.explain(got)
        assert "jeet.slice  (1 op fused)" not in str(jeet.explain(got))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("step", [2, 3, 4, 5])
@pytest.mark.parametrize("width", [7, 16, 37, 70])
def test_strided_slices_in_elementwise_and_reduction_kernels(rng, step, width):
    """Columns `step` apart, read in place (a view) by an elementwise kernel
    and a row reduction: up to 4 apart each vector is read from the span
    from its first lane to its last (two loads that end at its last lane, or
    a masked load for few lanes) and a shuffle (5 apart, scalars),
    over whole vectors and the remainders of every width; against float64."""
    # b's last element is the buffer's last: a load past it would show.
    x = rng.standard_normal((6, step * (width - 1) + 4)).astype(np.float32)
    y = rng.standard_normal((6, width)).astype(np.float32)
    X, Y = t(x), t(y)
    a, b = X[:, 1::step][:, :width], X[:, 3::step][:, :width]
    got = jeet.exp(a) * Y + b
    total = jeet.sum(a * b, axis=1)
    x64 = x.astype(np.float64)
    A, B = x64[:, 1::step][:, :width], x64[:, 3::step][:, :width]
    np.testing.assert_allclose(got.numpy(), np.exp(A) * y + B, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(total.numpy(), (A * B).sum(1), rtol=1e-5, atol=1e-4)


def test_a_reshaped_result_is_computed_in_its_output(rng):
    """A graph whose result is a reshape of what a kernel computes: the
    kernel writes the caller's output buffer (seen through the inverse
    reshape), with no copy of the result at the end (jeet-reshaped-results-
    in-place), and a second result that reads the same values is right."""
    x = rng.standard_normal(4096).astype(np.float32)
    y = jeet.exp(jeet.tensor(x)) * 2.0 + 1.0
    shaped = jeet.reshape(y, (64, 64))
    assert "memref.copy" not in jeet.compile(shaped).ir("bufferized")
    want = np.exp(x.astype(np.float64)) * 2.0 + 1.0
    np.testing.assert_allclose(shaped.numpy(), want.reshape(64, 64), rtol=1e-6)
    # The flat and the reshaped value both results of one graph.
    flat, again = jeet.execute(y, jeet.reshape(jeet.sqrt(y), (2, 32, 64)))
    np.testing.assert_allclose(flat.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(again.numpy(), np.sqrt(want).reshape(2, 32, 64), rtol=1e-6)


def _bufferized_copies(result):
    """The copies left in the bufferized IR of the graph of `result`."""
    ir = jeet.compile(result).ir("bufferized")
    return ir.count("linalg.copy") + ir.count("memref.copy")


def _concat_chain(rng, third, third_want):
    """f0 and f1 (kernels of x), c1 = concat(f0, f1), f2 = third(c1), and
    c1's channel sum plus 3 x concat(f0, f1, f2) (a concat of c1 and f2
    once canonicalized, as densenet's): (x's tensor and float64 value, the
    result, its float64 value; third_want(w0, w1, wc1) is f2's)."""
    x = rng.standard_normal((1, 16, 8, 8)).astype(np.float32)
    xd = x.astype(np.float64)
    t = jeet.tensor(x)
    f0 = jeet.exp(t) * 2.0
    f1 = jeet.tanh(t) + 1.0
    c1 = jeet.concat((f0, f1), axis=1)
    out = (jeet.sum(c1, axis=1, keepdims=True)
           + jeet.concat((f0, f1, third(c1)), axis=1) * 3.0)
    w0, w1 = np.exp(xd) * 2.0, np.tanh(xd) + 1.0
    wc1 = np.concatenate([w0, w1], axis=1)
    want = (wc1.sum(axis=1, keepdims=True)
            + np.concatenate([w0, w1, third_want(w0, w1, wc1)], axis=1) * 3.0)
    return t, xd, out, want


def test_concatenated_inputs_are_computed_in_their_slices(rng):
    """A concat's inputs computed by kernels of the graph are written in
    their slices of the concat (jeet-plan-memory's coalesced copies): no
    copy is left. Densenet's chain, each concat the one before and one more
    input, coalesces too, and an input read after the concat (a slice of the
    concat that is one of its inputs reads that input) reads its slice; the
    values are right against float64."""
    _, _, out, want = _concat_chain(
        rng, lambda c1: jeet.sqrt(c1[:, 0:16]) + jeet.sum(c1, axis=1, keepdims=True),
        lambda w0, w1, wc1: np.sqrt(w0) + wc1.sum(axis=1, keepdims=True))
    assert _bufferized_copies(out) == 0
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


def test_concatenated_inputs_that_cannot_be_coalesced_are_copied(rng):
    """Copies that stay, with the values right against float64: an input
    whose buffer the next kernel of its chain writes over after the concat
    (f2 reads f1 and takes its buffer), two concats that start with the same
    input (CSE makes their first inserts one, which the second concat's
    buffer then copies whole: neither is written by copies into disjoint
    slices alone), and inputs whose slices are not one contiguous run (a
    batch of two along the channels)."""
    t, xd, out, want = _concat_chain(
        rng, lambda c1: (jeet.sqrt(c1[:, 0:16] * c1[:, 16:32])
                         + jeet.sum(c1, axis=1, keepdims=True)),
        lambda w0, w1, wc1: np.sqrt(w0 * w1) + wc1.sum(axis=1, keepdims=True))
    assert _bufferized_copies(out) == 1
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)

    a, b = jeet.exp(t), jeet.tanh(t)
    twice = jeet.concat((a, b), axis=1) * 2.0 - jeet.concat((a, a), axis=1)
    assert _bufferized_copies(twice) == 4
    wa, wb = np.exp(xd), np.tanh(xd)
    want = np.concatenate([wa, wb], axis=1) * 2.0 - np.concatenate([wa, wa], axis=1)
    np.testing.assert_allclose(twice.numpy(), want, rtol=1e-5, atol=1e-6)

    y = rng.standard_normal((2, 16, 4, 4)).astype(np.float32)
    yd = y.astype(np.float64)
    u = jeet.tensor(y)
    batched = jeet.concat((jeet.exp(u), jeet.sin(u)), axis=1) + 1.0
    assert _bufferized_copies(batched) == 2
    np.testing.assert_allclose(
        batched.numpy(), np.concatenate([np.exp(yd), np.sin(yd)], axis=1) + 1.0,
        rtol=1e-5, atol=1e-6)


def _random_concat_graph(rng, device="cpu"):
    """A random graph of concats along the channels (some extending an
    earlier concat's inputs, as densenet's do), channel slices, elementwise
    kernels and channel sums, on (1, C, 4, 4) tensors (16 floats a channel:
    every slice starts a multiple of 64 bytes in, so every copy may be
    coalesced) on `device`: its last results as (tensor, float64 value,
    magnitude). The magnitude bounds what rounding in float32 can move the
    value by, in units of float32's epsilon: each op's error from its inputs
    (1-Lipschitz tanh and sin pass theirs on; a product scales each by the
    other operand; sums add them) plus its own rounding of its result, so a
    sine of a product of products of 1e4 may be 1e-3 off while a value that
    only crossed concats and slices must be exact."""
    x = rng.standard_normal((1, 16, 4, 4)).astype(np.float32)
    pool = [(jeet.tensor(x, device=device), x.astype(np.float64),
             np.abs(x.astype(np.float64)))]
    concats = []
    unary = [(jeet.tanh, np.tanh), (jeet.sin, np.sin),
             (lambda v: v * 0.5 + 1.0, lambda v: v * 0.5 + 1.0)]
    for _ in range(int(rng.integers(6, 14))):
        kind = rng.choice(["unary", "binary", "concat", "extend", "slice", "sum"])
        a, av, am = pool[int(rng.integers(len(pool)))]
        channels = a.shape[1]
        if kind == "unary":
            f, g = unary[int(rng.integers(len(unary)))]
            value = g(av)
            pool.append((f(a), value, am + np.abs(value)))
        elif kind == "binary":
            same = [p for p in pool if p[0].shape == a.shape]
            b, bv, bm = same[int(rng.integers(len(same)))]
            if rng.integers(2):
                pool.append((a * b, av * bv,
                             am * np.abs(bv) + np.abs(av) * bm + np.abs(av * bv)))
            else:
                pool.append((a + b, av + bv, am + bm))
        elif kind in ("concat", "extend"):
            if kind == "extend" and concats:
                parts = concats[int(rng.integers(len(concats)))] + [pool[-1]]
            else:
                picks = rng.integers(len(pool), size=int(rng.integers(2, 4)))
                parts = [pool[int(i)] for i in picks]
            if sum(p[0].shape[1] for p in parts) > 160:
                continue
            concats.append(parts)
            pool.append((jeet.concat(tuple(p[0] for p in parts), axis=1),
                         np.concatenate([p[1] for p in parts], axis=1),
                         np.concatenate([p[2] for p in parts], axis=1)))
        elif kind == "slice" and channels >= 32:
            lo = 16 * int(rng.integers(channels // 16 - 1))
            hi = lo + 16 * int(rng.integers(1, (channels - lo) // 16 + 1))
            pool.append((a[:, lo:hi], av[:, lo:hi], am[:, lo:hi]))
        elif kind == "sum":
            pool.append((jeet.sum(a, axis=1, keepdims=True) * 0.1 + a,
                         av.sum(axis=1, keepdims=True) * 0.1 + av,
                         am.sum(axis=1, keepdims=True) * 0.1 + am))
    return pool[-3:]


def _assert_within_rounding(got, want, magnitude, epsilons=64):
    """`got` within `epsilons` float32 epsilons of each element's magnitude
    (from _random_concat_graph) of the float64 `want`."""
    error = np.abs(np.asarray(got, np.float64) - want)
    bound = epsilons * np.finfo(np.float32).eps * magnitude
    if (error > bound).any():
        at = np.unravel_index(int(np.argmax(error / np.maximum(bound, 1e-300))),
                              error.shape)
        raise AssertionError(
            f"{int((error > bound).sum())} of {error.size} elements off by more "
            f"than {epsilons} epsilons of their magnitude; worst at {at}: got "
            f"{got[at]!r}, want {want[at]!r}, magnitude {magnitude[at]!r}")


def test_random_concat_graphs_against_float64(rng):
    """Random graphs of concats (coalesced into their slices where the memory
    plan can), slices and kernels reading them before and after: every result
    against float64, and some copies gone."""
    inserted = copied = 0
    for _ in range(20):
        results = _random_concat_graph(rng)
        tensors = [r[0] for r in results]
        for tensor in tensors:
            inserted += jeet.compile(tensor).ir("linalg").count("tensor.insert_slice")
            copied += _bufferized_copies(tensor)
        got = jeet.execute(*tensors)
        for value, (_, want, magnitude) in zip(got, results):
            _assert_within_rounding(value.numpy(), want, magnitude)
    # Some inputs of the twenty graphs' concats went into their slices.
    assert copied < inserted, (inserted, copied)
