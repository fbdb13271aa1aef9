"""jeet.conv2d, jeet.max_pool2d and jeet.avg_pool2d from Python (PyTorch's
signatures) against float64 references computed here, and their errors."""

import numpy as np
import pytest

import jeet


def t(x):
    return jeet.tensor(x, dtype=x.dtype, device="cpu")


def conv_reference(x, w, b, stride, pad, dilation, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    y = np.zeros((n, o, oh, ow))
    for oc in range(o):
        g = oc // (o // groups)
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                           j * dilation:j * dilation + stride * (ow - 1) + 1:stride]
                y[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, i, j])
    return y + b[None, :, None, None]


@pytest.mark.parametrize("stride,pad,dilation,groups",
                         [(1, 1, 1, 1), (2, 0, 1, 2), (1, 2, 2, 4)])
def test_conv2d(rng, stride, pad, dilation, groups):
    x = rng.standard_normal((2, 4, 9, 8)).astype(np.float32)
    w = rng.standard_normal((8, 4 // groups, 3, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    got = jeet.conv2d(t(x), t(w), t(b), stride=stride, padding=pad,
                      dilation=dilation, groups=groups)
    np.testing.assert_allclose(
        got.numpy(), conv_reference(x, w, b, stride, pad, dilation, groups),
        rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, "bfloat16"])
def test_strided_windows_copied_by_vectors(rng, dtype):
    """Windows of stride 2 to 4 along W (a stem's 7x7/2 or 4x4/4, a
    downsampling 3x3/2) are copied a run of output columns at a time:
    stride x run elements loaded, every stride-th kept, up to where a load
    would pass the row's end; stride 5 one element at a time. Random
    widths, kernels, paddings and dilations against float64, so that runs
    of every width meet both ends of a row; the copies are checked to be
    vectors in the IR."""
    for _ in range(16):
        stride = int(rng.integers(2, 6))
        wd = int(rng.integers(5, 80))
        k = int(rng.integers(1, 8))
        dilation = int(rng.integers(1, 3))
        pad = int(rng.integers(0, k))
        if min(wd, 9) + 2 * pad < dilation * (k - 1) + 1:  # H is 9
            continue
        c, o = int(rng.integers(1, 4)), int(rng.integers(1, 9))
        x = rng.standard_normal((1, c, 9, wd)).astype(np.float32)
        w = rng.standard_normal((o, c, k, k)).astype(np.float32)
        b = rng.standard_normal(o).astype(np.float32)
        if dtype == "bfloat16":
            xt = jeet.tensor(x, device="cpu").cast("bfloat16")
            wt = jeet.tensor(w, device="cpu").cast("bfloat16")
            bt = jeet.tensor(b, device="cpu").cast("bfloat16")
            # The reference from the values the bf16 tensors hold.
            x, w, b = (v.numpy().astype(np.float32) for v in (xt, wt, bt))
            rtol, atol = 2e-2, 5e-2 * np.sqrt(c * k * k)
        else:
            xt, wt, bt = t(x), t(w), t(b)
            rtol, atol = 1e-5, 1e-4
        got = jeet.conv2d(xt, wt, bt, stride=stride, padding=pad, dilation=dilation)
        want = conv_reference(x, w, b, stride, pad, dilation, 1)
        np.testing.assert_allclose(
            got.numpy().astype(np.float64), want, rtol=rtol, atol=atol,
            err_msg=f"stride={stride} W={wd} k={k} pad={pad} dilation={dilation}")
    if dtype == np.float32:
        for stride, k, pad in ((2, 7, 3), (4, 4, 0)):
            x = rng.standard_normal((1, 3, 40, 40)).astype(np.float32)
            w = rng.standard_normal((8, 3, k, k)).astype(np.float32)
            got = jeet.conv2d(t(x), t(w), stride=stride, padding=pad)
            assert "vector.shuffle" in jeet.compile(got).ir("bufferized")
            np.testing.assert_allclose(got.numpy(), conv_reference(
                x, w, np.zeros(8, np.float32), stride, pad, 1, 1),
                rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("stride,pad,groups", [(1, 0, 1), (2, 0, 1), (3, 0, 2), (1, 1, 1),
                                               (2, 1, 4)])
def test_pointwise_conv2d_reads_its_input_in_place(rng, stride, pad, groups):
    """A 1x1 convolution (MobileNet's expansions and projections, ResNet's
    downsampling); against float64. With unit strides its windows are the
    (padded) input, read by the matmul in place: no im2col copy."""
    x = rng.standard_normal((2, 8, 11, 10)).astype(np.float32)
    w = rng.standard_normal((12, 8 // groups, 1, 1)).astype(np.float32)
    b = rng.standard_normal(12).astype(np.float32)
    got = jeet.conv2d(t(x), t(w), t(b), stride=stride, padding=pad, groups=groups)
    np.testing.assert_allclose(
        got.numpy(), conv_reference(x, w, b, stride, pad, 1, groups), rtol=1e-5, atol=1e-4)
    if stride == 1:
        ops = [op for kernel_ops in jeet.compile(got).kernel_ops for op in kernel_ops]
        assert "jeet.im2col" not in ops, ops
        # The matmul with its bias; a padded input is one kernel more.
        assert jeet.compile(got).num_kernels == (1 if pad == 0 else 2), jeet.explain(got)


def test_pools(rng):
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    windows = x.reshape(1, 2, 3, 2, 3, 2).astype(np.float64)
    np.testing.assert_array_equal(jeet.max_pool2d(t(x), 2).numpy(),
                                  windows.max(axis=(3, 5)))
    # A float32 sum of four terms: its rounding follows the terms' magnitude,
    # not the mean's, which cancellation can make small.
    np.testing.assert_allclose(jeet.avg_pool2d(t(x), 2).numpy(),
                               windows.mean(axis=(3, 5)), rtol=1e-6,
                               atol=4 * np.finfo(np.float32).eps * np.abs(x).max())
    # Padding counts as zeros by default (PyTorch), or not at all.
    ones = np.ones((1, 1, 2, 2), np.float32)
    np.testing.assert_allclose(
        jeet.avg_pool2d(t(ones), 2, stride=1, padding=1).numpy()[0, 0],
        [[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]])
    np.testing.assert_allclose(
        jeet.avg_pool2d(t(ones), 2, stride=1, padding=1,
                        count_include_pad=False).numpy(), np.ones((1, 1, 3, 3)))


def test_errors():
    x = t(np.zeros((1, 4, 5, 5), np.float32))
    with pytest.raises(jeet.ShapeError, match="groups = 3"):
        jeet.conv2d(x, t(np.zeros((6, 1, 3, 3), np.float32)), groups=3)
    with pytest.raises(jeet.ArgumentError, match="stride must be an int or a pair"):
        jeet.conv2d(x, t(np.zeros((6, 4, 3, 3), np.float32)), stride=0)
    with pytest.raises(jeet.ShapeError, match="does not fit the padded input"):
        jeet.max_pool2d(x, 7)
    with pytest.raises(jeet.ShapeError, match="bias of shape"):
        jeet.conv2d(x, t(np.zeros((6, 4, 3, 3), np.float32)),
                    t(np.zeros(5, np.float32)))


@pytest.mark.parametrize("pool", ["max", "avg"])
def test_pooling_of_a_convolution(rng, pool):
    # A 2x2 pooling of a convolution's relu: the pooling runs in the
    # convolution's tiles (jeet-cpu-pool-in-tiles), each tile pooling its
    # own rows of outputs (64 pixels: 2 rows of 32, 4 of 16).
    for n, c, o, size in ((3, 3, 16, 32), (2, 16, 32, 16)):
        x = rng.standard_normal((n, c, size, size)).astype(np.float32)
        w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
        b = rng.standard_normal(o).astype(np.float32)
        y = jeet.relu(jeet.conv2d(t(x), t(w), t(b), padding=1))
        got = (jeet.max_pool2d(y, 2) if pool == "max" else jeet.avg_pool2d(y, 2)).numpy()
        ref = np.maximum(conv_reference(x, w, b, 1, 1, 1, 1), 0)
        windows = ref.reshape(n, o, size // 2, 2, size // 2, 2)
        want = windows.max(axis=(3, 5)) if pool == "max" else windows.mean(axis=(3, 5))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_max_pooling_of_a_relu_keeps_nans_and_infinities(rng):
    """The max pooling of a convolution's relu, in the convolution's tiles,
    compares the relu's results as unsigned integers (jeet-cpu-vectorize-
    window-reductions): a NaN of either sign must still win its window, +inf
    stay +inf, and a window of negative values give +0 (never -0)."""
    n, c, o, size = 2, 3, 16, 32
    x = rng.standard_normal((n, c, size, size)).astype(np.float32)
    # NaNs with the sign bit clear and set (x86's default NaN has it set).
    x[0, 0, 4, 7] = np.nan
    x[1, 2, 20, 9] = np.array(0xFFC00000, np.uint32).view(np.float32)
    w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    b[3], b[5], b[7] = np.inf, -np.inf, -1e30
    y = jeet.relu(jeet.conv2d(t(x), t(w), t(b), padding=1))
    got = jeet.max_pool2d(y, 2).numpy()
    ref = np.maximum(conv_reference(x, w, b, 1, 1, 1, 1), 0)
    want = ref.reshape(n, o, size // 2, 2, size // 2, 2).max(axis=(3, 5))
    assert np.isnan(want).sum() > 0 and np.isnan(got).sum() == np.isnan(want).sum()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)  # NaNs where want's
    finite_input = ~np.isnan(want[:, 3])  # windows that read no NaN
    assert (got[:, 3][finite_input] == np.inf).all()
    assert (got[:, [5, 7]][~np.isnan(want[:, [5, 7]])] == 0).all()
    assert not np.signbit(got[:, [5, 7]][~np.isnan(want[:, [5, 7]])]).any()


def pool_reference(x, kind, k, s, p, ceil_mode, count_include_pad=True):
    """PyTorch's max_pool2d / avg_pool2d in float64, window by window: with
    ceil_mode the output size is rounded up unless the last window would
    start past the input and its padding; a window's cells past that padding
    are never counted."""
    n, c, h, w = x.shape
    sizes = []
    for size in (h, w):
        span = size + 2 * p - k
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        sizes.append(out)
    y = np.zeros((n, c) + tuple(sizes))
    for i in range(sizes[0]):
        for j in range(sizes[1]):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, h + p), min(w0 + k, w + p)
            window = x[:, :, max(h0, 0):min(h1, h), max(w0, 0):min(w1, w)].astype(np.float64)
            if kind == "max":
                y[:, :, i, j] = window.max(axis=(2, 3))
            else:
                count = (h1 - h0) * (w1 - w0) if count_include_pad else \
                    (min(h1, h) - max(h0, 0)) * (min(w1, w) - max(w0, 0))
                y[:, :, i, j] = window.sum(axis=(2, 3)) / count
    return y


@pytest.mark.parametrize("shape, k, s, p", [
    ((2, 3, 7, 9), 2, 2, 0),     # one more window each way
    ((1, 2, 10, 10), 3, 2, 1),   # the added windows overlap the padding
    ((1, 2, 5, 5), 2, 2, 1),     # the last window would start on the padding: dropped
    ((1, 1, 8, 8), 2, 2, 0),     # nothing added
], ids=str)
@pytest.mark.parametrize("kind, include", [("max", None), ("avg", True), ("avg", False)])
def test_ceil_mode_pooling(rng, shape, k, s, p, kind, include):
    x = rng.standard_normal(shape).astype(np.float32)
    want = pool_reference(x, kind, k, s, p, True, include is not False)
    if kind == "max":
        got = jeet.max_pool2d(t(x), k, s, p, ceil_mode=True)
    else:
        got = jeet.avg_pool2d(t(x), k, s, p, count_include_pad=include, ceil_mode=True)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape, k, s, p", [
    ((1, 64, 47, 47), 3, 2, 0),  # SqueezeNet's: rows of 23 outputs, inputs 2 apart
    ((2, 5, 12, 13), 3, 1, 1),   # GoogLeNet's inception branch: stride 1, padded
    ((1, 3, 11, 11), 5, 3, 2),   # inputs 3 apart
    ((1, 2, 9, 9), 7, 1, 3),     # 49 taps, the most taken as views
    ((1, 2, 9, 9), 8, 1, 0),     # 64 taps: windows gathered and reduced
], ids=str)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_overlapping_windows_as_views(rng, shape, k, s, p, kind):
    """A pooling whose windows overlap (or leave input out) is the maximum
    (sum) of the padded input's views at the kernel's offsets, one kernel
    over the output (two with padding: the padded copy first); every input
    negative, so that padding leaking into a maximum would show; against
    float64."""
    x = -np.abs(rng.standard_normal(shape)).astype(np.float32) - 0.5
    want = pool_reference(x, kind, k, s, p, False)
    pool = jeet.max_pool2d if kind == "max" else jeet.avg_pool2d
    got = pool(t(x), k, s, p)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)
    if k * k <= 49:
        assert jeet.compile(got).num_kernels == (2 if p else 1), jeet.explain(got)


def test_overlapping_max_pool_keeps_nans_and_infinities():
    x = np.zeros((1, 1, 7, 7), np.float32)
    x[0, 0, 1, 1] = np.nan
    x[0, 0, 5, 5] = np.inf
    x[0, 0, 3, 5] = -np.inf
    got = jeet.max_pool2d(t(x), 3, stride=2, padding=1).numpy()
    want = pool_reference(x, "max", 3, 2, 1, False)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[0, 0, 0, 0]) and np.isnan(got[0, 0, 1, 1])
    assert got[0, 0, 3, 3] == np.inf


@pytest.mark.parametrize("shape", [(1, 832, 6, 6), (2, 64, 14, 14), (1, 16, 48, 48),
                                   (1, 4, 8, 30)], ids=str)
def test_tiling_max_pool_is_the_maximum_of_views(rng, shape):
    """A max pooling whose windows tile the input (2x2/2, GoogLeNet's and
    VGG's) is the maximum of the input's strided views, one elementwise
    kernel, not a reduction over a reshape (4-10 times slower on short
    rows); exact against NumPy with NaNs of both signs, +-inf and signed
    zeros, of a relu's values too."""
    x = rng.standard_normal(shape).astype(np.float32)
    x[0, 0, 0, 0] = np.nan
    x[0, -1, 1, 1] = np.array(0xFFC00000, np.uint32).view(np.float32)
    x[0, 1, 2, 2:4] = [-np.inf, np.inf]
    x[0, 2, :2, :2] = [[0.0, -0.0], [-0.0, -0.0]]
    n, c, h, w = shape
    for relu in (False, True):
        src = jeet.relu(t(x)) if relu else t(x)
        got = jeet.max_pool2d(src, 2, 2)
        ops = [op for kernel in jeet.compile(got).kernel_ops for op in kernel]
        assert "jeet.reduce_max" not in ops and "jeet.max" in ops, ops
        ref = np.maximum(x, 0) if relu else x
        with np.errstate(invalid="ignore"):
            want = ref.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        got = got.numpy()
        np.testing.assert_array_equal(got, want)
        assert np.isnan(got[0, 0, 0, 0]) and np.isnan(got[0, -1, 0, 0])
        assert got[0, 1, 1, 1] == np.inf
        if not relu:
            # IEEE maximum: +0 above -0 (a window of -0 alone stays -0).
            assert got[0, 2, 0, 0] == 0 and not np.signbit(got[0, 2, 0, 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=str)
@pytest.mark.parametrize("shape,k", [((1, 256, 28, 28), 2), ((2, 16, 12, 18), 3),
                                     ((1, 832, 6, 6), 2), ((1, 8, 16, 16), 8)],
                         ids=str)
def test_tiling_avg_pool_sums_views(rng, shape, k, dtype):
    """An average pooling whose windows tile the input (DenseNet's 2x2/2
    transitions) is the sum of the input's strided views, elementwise, not
    a reduction over a reshape (256 x 28 x 28: 9 times slower); past 49
    taps (8x8) the reduction. Against float64, either count_include_pad."""
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    n, c, h, w = shape
    want = x.astype(np.float64).reshape(n, c, h // k, k, w // k, k).mean(axis=(3, 5))
    for include_pad in (True, False):
        got = jeet.avg_pool2d(t(x), k, k, count_include_pad=include_pad)
        ops = [op for kernel in jeet.compile(got).kernel_ops for op in kernel]
        assert ("jeet.reduce_sum" in ops) == (k * k > 49), ops
        tol = 1e-6 if dtype == np.float32 else 2e-3
        np.testing.assert_allclose(got.numpy().astype(np.float64), want,
                                   rtol=tol, atol=tol * 4)


def _special_relu_input(rng, size):
    x = rng.standard_normal((1, 16, size, size)).astype(np.float32)
    x[0, 1, 2, 3] = np.nan
    x[0, 4, size - 1, 0] = np.array(0xFFC00000, np.uint32).view(np.float32)
    x[0, 5, 1, 1] = np.inf
    x[0, 6] = -np.abs(x[0, 6])
    x[0, 7] = -0.0
    return x


@pytest.mark.parametrize("size, kernel, stride, padding, ceil_mode", [
    (23, 3, 2, 0, False), (11, 3, 2, 0, False), (12, 3, 1, 0, False),
    (24, 3, 2, 1, False), (24, 3, 2, 0, True), (12, 3, 1, 1, False), (13, 3, 2, 1, True),
], ids=str)
def test_overlapping_max_pool_of_a_relu_compares_bits(rng, size, kernel, stride, padding,
                                                      ceil_mode):
    """An overlapping max pooling (strided views) of a relu's results takes
    the maximum of their bits as unsigned integers (jeet-cpu-maximum-as-
    unsigned; padded ones with +0 for the pad's -inf, every window reading
    the relu): exact against float64, a NaN of either sign wins its windows,
    +inf stays +inf, a window of negative values and -0 gives +0 (never -0).
    A pooling of values that may be negative keeps maximumf."""
    x = _special_relu_input(rng, size)
    x[0, 8, :, :3] = -np.inf
    relu = jeet.relu(t(x))
    got = jeet.max_pool2d(relu, kernel, stride, padding, ceil_mode=ceil_mode)
    assert "arith.maxui" in jeet.compile(got).ir("linalg")
    got = got.numpy()
    want = pool_reference(np.maximum(x.astype(np.float64), 0), "max", kernel, stride,
                          padding, ceil_mode)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[0, 1]).any() and np.isnan(got[0, 4]).any()
    assert (got[0, 5][~np.isnan(want[0, 5])] == np.inf).any()
    assert (got[0, [6, 7]] == 0).all() and not np.signbit(got[0, [6, 7]]).any()
    plain = jeet.max_pool2d(t(x), kernel, stride, padding, ceil_mode=ceil_mode)
    assert "arith.maxui" not in jeet.compile(plain).ir("linalg")
    np.testing.assert_array_equal(plain.numpy(), pool_reference(x, "max", kernel, stride,
                                                                padding, ceil_mode))


def test_max_pool_read_by_the_next_layer_compares_bits(rng):
    """DenseNet's stem: a padded 3x3/2 max pooling of a relu's values that
    is an output of its own and, in the same kernel, the input of the next
    batch norm and relu. The pooling compares bits (maxui) and the next
    layer reads them as floats; both exact against float64."""
    x = _special_relu_input(rng, 12)
    scale = rng.standard_normal((1, 16, 1, 1)).astype(np.float32)
    shift = rng.standard_normal((1, 16, 1, 1)).astype(np.float32)
    pooled = jeet.max_pool2d(jeet.relu(t(x)), 3, 2, 1)
    after = jeet.relu(pooled * t(scale) + t(shift))
    compiled = jeet.compile(pooled, after)
    # The pooling's kernel computes the next layer's batch norm and relu.
    assert any("jeet.max" in ops and "jeet.mul" in ops and "jeet.relu" in ops
               for ops in compiled.kernel_ops), jeet.explain(pooled, after)
    assert "arith.maxui" in compiled.ir("linalg")
    jeet.execute(pooled, after)
    want = pool_reference(np.maximum(x.astype(np.float64), 0), "max", 3, 2, 1, False)
    np.testing.assert_array_equal(pooled.numpy(), want)
    want_after = np.maximum(want.astype(np.float32) * scale + shift, 0)
    np.testing.assert_array_equal(after.numpy(), want_after)
    assert np.isnan(pooled.numpy()[0, 1]).any() and np.isnan(after.numpy()[0, 4]).any()


@pytest.mark.parametrize("ceil_mode", [False, True])
def test_max_pool_of_a_non_overlapping_pool_compares_bits(rng, ceil_mode):
    """GoogLeNet's 2x2/2 pooling (windows that do not overlap: strided
    views; a max reduction over a reshape of its input past 49 taps, the
    form lit's @pooled_after_a_reduction checks) of a relu's values, then a
    padded 3x3/1 pooling of its result: the maximum of a relu's values holds
    such values, so the second compares bits too; exact against float64."""
    x = _special_relu_input(rng, 11 if ceil_mode else 12)
    first = jeet.max_pool2d(jeet.relu(t(x)), 2, 2, 0, ceil_mode=ceil_mode)
    second = jeet.max_pool2d(first, 3, 1, 1)
    assert jeet.compile(second).ir("linalg").count("arith.maxui") >= 8
    want_first = pool_reference(np.maximum(x.astype(np.float64), 0), "max", 2, 2, 0,
                                ceil_mode)
    np.testing.assert_array_equal(second.numpy(),
                                  pool_reference(want_first, "max", 3, 1, 1, False))


@pytest.mark.parametrize("kernel, stride, pad, dilation", [
    (3, 1, 1, 1), (3, 2, 1, 1), (5, 1, 2, 1), (5, 2, 2, 1), (3, 1, 2, 2), (2, 2, 0, 1),
], ids=str)
def test_depthwise_conv2d(rng, kernel, stride, pad, dilation):
    """A depthwise convolution (MobileNet's, EfficientNet's): the sum of the
    kernel's taps times strided views of the padded input, one kernel after
    the pad; against float64."""
    c = 12
    x = rng.standard_normal((2, c, 13, 11)).astype(np.float32)
    w = rng.standard_normal((c, 1, kernel, kernel)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    got = jeet.conv2d(t(x), t(w), t(b), stride=stride, padding=pad, dilation=dilation,
                      groups=c)
    want = conv_reference(x, w, b, stride, pad, dilation, c)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    # No im2col copy and no grouped matmul: the pad and one kernel.
    ops = [op for kernel_ops in jeet.compile(got).kernel_ops for op in kernel_ops]
    assert "jeet.matmul" not in ops and "jeet.im2col" not in ops, ops
    assert jeet.compile(got).num_kernels <= 2


@pytest.mark.parametrize("n, c, h, kernel, stride, pad, dilation", [
    (1, 100, 3, 5, 1, 2, 1), (2, 24, 6, 5, 2, 2, 1), (1, 16, 3, 7, 1, 3, 1),
    (1, 32, 5, 5, 2, 1, 1), (1, 20, 3, 5, 1, 4, 2),
], ids=str)
def test_depthwise_conv2d_channels_last(rng, n, c, h, kernel, stride, pad, dilation):
    """A depthwise convolution with few output positions (at most 3x3) and
    5x5 or 7x7 taps (MNASNet's last stages) is computed channels last: the
    input transposed to NHWC, vectors along the channels, each window times
    a row of the filter transposed (a bound filter: transposed in the graph),
    the sum transposed back. 100 channels: whole vectors in chunks of 80
    channels, the chunks outermost (25 rows of taps outgrow 8 KiB), and a
    remainder of 4 in the last; with its bias and ReLU, against float64."""
    x = rng.standard_normal((n, c, h, h)).astype(np.float32)
    w = rng.standard_normal((c, 1, kernel, kernel)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    got = jeet.relu(jeet.conv2d(t(x), t(w), t(b), stride=stride, padding=pad,
                                dilation=dilation, groups=c))
    want = np.maximum(conv_reference(x, w, b, stride, pad, dilation, c), 0)
    assert got.shape == want.shape and want.shape[2] * want.shape[3] < 16
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    fused = jeet.compile(got).ir("fused")
    padded = (h + 2 * pad)
    assert f"tensor<{n}x{padded}x{padded}x{c}xf32>" in fused, fused
    assert "permutation = array<i64: 0, 2, 3, 1>" in fused


@pytest.mark.parametrize("n, c, h, w, kernel, stride, pad", [
    (2, 8, 6, 6, 5, 1, 2), (2, 8, 3, 3, 3, 1, 1), (1, 16, 12, 12, 3, 1, 1),
    (2, 4, 7, 7, 7, 1, 3), (1, 3, 5, 9, 3, 1, 1), (1, 4, 13, 5, 3, 1, 0), (3, 5, 2, 2, 1, 1, 0),
    (2, 8, 6, 6, 3, 2, 1), (1, 4, 12, 12, 5, 2, 2), (2, 3, 7, 9, 3, 2, 1), (1, 2, 12, 10, 3, 3, 1),
], ids=str)
def test_depthwise_conv2d_on_rows_shorter_than_a_vector(rng, n, c, h, w, kernel, stride, pad):
    """EfficientNet's last stages: a depthwise convolution (stride 1, 2 or
    3) with SiLU on rows of 1 to 12 and a squeeze-and-excitation block (the
    mean of the positions, a sigmoid, the product) and a maximum over them.
    Such rows are vectors across rows (jeet-cpu-vectorize-elementwise's and
    -reductions' joined rows: loads of the padded input's windows, of their
    spans and a shuffle when strided, the output's lanes on rows packed by
    shuffles into whole vectors); against float64."""
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((c, 1, kernel, kernel)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    d = jeet.conv2d(t(x), t(wt), t(b), stride=stride, padding=pad, groups=c)
    s = d * jeet.sigmoid(d)
    out = s * jeet.sigmoid(jeet.mean(s, axis=(2, 3), keepdims=True))
    top = jeet.max(d, axis=(2, 3))
    want = conv_reference(x, wt, b, stride, pad, 1, c)
    ws = want / (1 + np.exp(-want))
    gate = 1 / (1 + np.exp(-ws.mean(axis=(2, 3), keepdims=True)))
    np.testing.assert_allclose(out.numpy(), ws * gate, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(top.numpy(), want.max(axis=(2, 3)), rtol=1e-5, atol=1e-5)
    if (h, w, kernel, stride) == (6, 6, 5, 1):
        # Joined: a grid shorter than its vector (the mean's 64 lanes on 56
        # positions) is a masked load; the row by row loop reads rows of 6
        # as vectors of 4 and 2, none masked. (A strided window's loads and
        # shuffles are alike either way.)
        assert "llvm.intr.masked.load" in jeet.compile(out).ir("llvm")


@pytest.mark.parametrize("shape", [(3, 23), (2, 5, 47), (4, 30), (2, 3, 11)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64", "bool"])
def test_elementwise_row_remainders(rng, shape, dtype):
    """A row's elements past its whole vectors (23 = 16 + 7): on AVX-512
    one vector whose lanes past the row are masked off (read as 1, stored
    nowhere), else vectors of 4, 2 and 1; a strided view's too (every other
    element, a pooling's window); exact against numpy (float64 for the
    transcendental). Storing one lane short fails it."""
    if dtype == "bool":
        a, b = rng.random(shape) < 0.5, rng.random(shape) < 0.5
        np.testing.assert_array_equal(
            (t(a) & ~t(b)).numpy(), a & ~b)
        return
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        a = rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(dtype)
        b = rng.integers(1, min(info.max, 50), shape).astype(dtype)
        b[..., ::3] *= -1
        np.testing.assert_array_equal((t(a) // t(b)).numpy(), a // b)
        np.testing.assert_array_equal((t(a) % t(b)).numpy(), a % b)
        wide = np.concatenate([a, a], axis=-1)
        np.testing.assert_array_equal((t(wide)[..., ::2] * 3).numpy(),
                                      wide[..., ::2] * dtype_of(dtype)(3))
        return
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    np.testing.assert_array_equal((t(a) * t(b) + t(a)).numpy(), a * b + a)
    got = jeet.exp(t(a)).numpy().astype(np.float64)
    tol = 1e-6 if dtype == "float32" else 2e-3
    np.testing.assert_allclose(got, np.exp(a.astype(np.float64)), rtol=tol)
    wide = np.concatenate([a, b], axis=-1)
    np.testing.assert_array_equal(jeet.maximum(t(wide)[..., ::2], t(a)).numpy(),
                                  np.maximum(wide[..., ::2], a))


@pytest.mark.parametrize("n, positions, c", [(1, (3, 3), 1280), (2, (2, 3), 40), (1, (6, 6), 17)], ids=str)
def test_mean_over_positions_of_a_transposed_result(rng, n, positions, c):
    """The squeeze at the end of a mobile network: the mean over the
    positions of (N, positions, C) read as NCHW through a transpose (a
    transposed 1x1 convolution's result), its bias and ReLU on the way; its
    channels are the vectors' lanes (the positions outer loops), against
    float64; the maximum too."""
    h, w = positions
    x = rng.standard_normal((n, h * w, c)).astype(np.float32)
    b = rng.standard_normal((c, 1, 1)).astype(np.float32)
    nchw = jeet.transpose(jeet.reshape(t(x), (n, h, w, c)), (0, 3, 1, 2))
    act = jeet.relu(nchw + t(b))
    want = np.maximum(x.reshape(n, h, w, c).transpose(0, 3, 1, 2).astype(np.float64) + b, 0)
    np.testing.assert_allclose(jeet.mean(act, axis=(2, 3)).numpy(), want.mean(axis=(2, 3)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(jeet.max(act, axis=(2, 3)).numpy(),
                                  want.max(axis=(2, 3)).astype(np.float32))


def dtype_of(name):
    return np.dtype(name).type


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64"])
def test_elementwise_on_rows_shorter_than_a_vector(rng, dtype):
    """Short rows of a strided view (rows 11 apart) and of packed tensors,
    joined across rows where that pays (int64's 64-bit lanes stay with the
    row loop); an integer division (which a lane between rows would run on
    zeros) is left to the row by row loop (its divisor a strided view);
    against NumPy (float64 for floats)."""
    big = (rng.standard_normal((3, 9, 11)) * 20).astype(dtype)
    y = (rng.standard_normal((3, 7, 5)) * 20).astype(dtype)
    view = t(big)[:, 1:8, 2:7]
    got = view * t(y) + view
    wide = np.float64 if dtype.startswith("float") else dtype
    x = big[:, 1:8, 2:7]
    want = x.astype(wide) * y + x
    if dtype == "float16":
        # Rounded twice (the product, then the sum): within a few units of
        # float16 (2^-11) of the terms' magnitudes, which the sum may cancel.
        bound = 2e-3 * (np.abs(x.astype(wide) * y) + np.abs(x)) + 1e-3
        assert np.all(np.abs(got.numpy().astype(wide) - want) <= bound)
    else:
        np.testing.assert_allclose(got.numpy().astype(wide), want.astype(dtype).astype(wide),
                                   rtol=1e-6, atol=1e-6)
    if dtype != "int64":
        # Joined rows: the lanes on rows packed by shuffles (the row by row
        # loop reads and stores each row as vectors of 4 and 1).
        assert "llvm.shufflevector" in jeet.compile(got).ir("llvm")
    if dtype.startswith("int"):
        # The divisor through the strided view: a lane between its rows
        # would divide by whatever element lies there.
        divisors = np.where(big == 0, 1, big).astype(dtype)
        q = t(y) // t(divisors)[:, 1:8, 2:7]
        np.testing.assert_array_equal(q.numpy(), y // divisors[:, 1:8, 2:7])
        # Division by zero is undefined behaviour in LLVM: it need not trap
        # here, so the test checks that the division stayed in the row loop.
        assert "llvm.shufflevector" not in jeet.compile(q).ir("llvm")


@pytest.mark.parametrize("n, c, h, w", [(1, 48, 3, 3), (2, 20, 24, 24), (1, 7, 1, 7), (3, 33, 6, 6)],
                         ids=str)
def test_squeeze_excitation_gate(rng, n, c, h, w):
    """A squeeze-and-excitation block's gate, sigmoid(s + b) per channel,
    times every position of its channel (one kernel; the gate is computed
    once per channel by a loop of its own, where it was computed for every
    vector of positions); against float64."""
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    s = rng.standard_normal((n, c, 1, 1)).astype(np.float32)
    b = rng.standard_normal((1, c, 1, 1)).astype(np.float32)
    out = t(x) * jeet.sigmoid(t(s) + t(b))
    assert jeet.compile(out).num_kernels == 1, jeet.explain(out)
    want = x.astype(np.float64) / (1 + np.exp(-(s.astype(np.float64) + b)))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n, c, h, w", [(2, 40, 3, 3), (1, 16, 24, 24), (3, 5, 7, 1)], ids=str)
def test_mean_of_a_silu_that_is_also_a_result(rng, n, c, h, w):
    """A SiLU that the graph returns and a squeeze-and-excitation block
    averages, in one kernel: the mean reads the SiLU computed once (the
    group's result) instead of computing it again; against float64."""
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    b = rng.standard_normal((1, c, 1, 1)).astype(np.float32)
    y = t(x) + t(b)
    y = y * jeet.sigmoid(y)
    m = jeet.mean(y, axis=(2, 3), keepdims=True)
    g = y * jeet.sigmoid(m)
    jeet.execute(y, m, g)
    ref = x.astype(np.float64) + b
    ref = ref / (1 + np.exp(-ref))
    mean = ref.mean(axis=(2, 3), keepdims=True)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.numpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g.numpy(), ref / (1 + np.exp(-mean)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pad", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_convolution_of_an_input_another_result_overwrites(rng, pad, dtype):
    """A gathered tensor that a convolution and an elementwise result both
    read; the elementwise result is computed in place, in the gathered
    tensor's buffer, and its kernel runs before the convolution's (the
    remainder's sign of the divisor is a kernel the matmul waits for). The
    copies of the windows went into the matmul's tiles, after the
    elementwise kernel had overwritten the input (fuzz_numerics seed
    1222351); without padding the input was also freed before the tiles
    read it. Against float64, where the quotient is not within a rounding of
    an integer (there the remainder may wrap)."""
    x = rng.standard_normal((9, 4, 7, 31)).astype(dtype)
    index = np.array([3, -2, 0, 5, 3], dtype=np.int32)
    w = rng.standard_normal((4, 4, 1, 3)).astype(dtype)
    ow = 31 + 2 * pad - 2
    d = (rng.uniform(1, 2, (4, ow)) * rng.choice([-1, 1], (4, ow))).astype(dtype)
    c = rng.standard_normal((5, 1, 7, 31)).astype(dtype)
    g = jeet.take(t(x), t(index), axis=0)
    z = g - t(c)
    y = jeet.remainder(jeet.conv2d(g, t(w), None, stride=(2, 1), padding=(0, pad)), t(d))
    ops = jeet.compile(y).kernel_ops
    jeet.execute(y, z)
    taken = x.astype(np.float64)[index]
    xp = np.pad(taken, [(0, 0), (0, 0), (0, 0), (pad, pad)])
    conv = np.zeros((5, 4, 4, ow))
    for j in range(3):
        conv += np.einsum("nchw,oc->nohw", xp[:, :, 0:7:2, j:j + ow],
                          w[:, :, 0, j].astype(np.float64))
    tol = 1e-4 if dtype == np.float32 else 3e-2
    q = conv / d
    clear = np.abs(q - np.round(q)) > tol * (1 + np.abs(q))
    want = np.remainder(conv, d.astype(np.float64))
    got = y.numpy().astype(np.float64)
    assert clear.mean() > 0.75
    np.testing.assert_allclose(got[clear], want[clear], rtol=tol, atol=tol * 4)
    np.testing.assert_allclose(z.numpy().astype(np.float64), taken - c, rtol=tol, atol=tol)


@pytest.mark.parametrize("n, c", [(1, 480), (3, 20), (2, 7)], ids=str)
def test_squeeze_excitation_values_of_one_per_channel(rng, n, c):
    """A squeeze-and-excitation block's middle, on (N, C, 1, 1): the SiLU of
    the reduced channels and the sigmoid gate, computed in vectors along the
    channels (rows of one element were one-lane vectors); against float64."""
    x = rng.standard_normal((n, c, 1, 1)).astype(np.float32)
    b = rng.standard_normal((1, c, 1, 1)).astype(np.float32)
    y = t(x) + t(b)
    s = y * jeet.sigmoid(y)
    g = jeet.sigmoid(s * 2.0 - 1.0)
    jeet.execute(s, g)
    ref = x.astype(np.float64) + b
    silu = ref / (1 + np.exp(-ref))
    np.testing.assert_allclose(s.numpy(), silu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g.numpy(), 1 / (1 + np.exp(-(silu * 2 - 1))), rtol=1e-5, atol=1e-6)


def test_dilated_strided_conv_of_a_strided_pool(rng):
    """A dilated, strided convolution of a 1x1 average pooling with stride 2
    (a strided view of the input) to one output column: its windows' copy
    ran its output's trailing loop of one iteration folded into the loop
    before it, which linalg::areDimSequencesPreserved allowed for a read that
    is no projected permutation (d4 * 2 + d2 * 2), and every window read one
    element (fuzz_numerics.py, seed 1,783,223). Against float64."""
    x = rng.uniform(-1, 1, (1, 2, 33, 4)).astype(np.float32)
    w = rng.uniform(-1, 1, (4, 2, 3, 1)).astype(np.float32)
    pooled = jeet.avg_pool2d(jeet.tensor(x), (1, 1), (2, 2), (0, 0))
    y = jeet.conv2d(pooled, jeet.tensor(w), None, (2, 2), (0, 0), (2, 1), 1)
    scaled = pooled * 1.5
    jeet.execute(y, scaled)
    xs = x[:, :, ::2, ::2].astype(np.float64)            # (1, 2, 17, 2)
    want = np.zeros((1, 4, 7, 1))
    for a in range(3):                                   # taps 2 rows apart
        want += np.einsum("nchw,oc->nohw", xs[:, :, 2 * a:2 * a + 13:2, 0:1],
                          w[:, :, a, 0].astype(np.float64))
    np.testing.assert_allclose(np.asarray(y.numpy()), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(scaled.numpy()), xs * 1.5, rtol=1e-6)
