"""conv2d (NCHW/OIHW; strides, padding, dilations, groups) and 2-D max and
average pooling through jeet-run on the CPU and the GPU (the `run` fixture),
on fresh random inputs, against float64 numpy references written here."""
import numpy as np
import pytest

from jeetrun import assert_close, mlir_type


def windows(x, kernel, strides, padding, dilations, pad_value):
    """(N, C, KH, KW, OH, OW): the windows of x padded with pad_value."""
    n, c, h, w = x.shape
    top, left, bottom, right = padding
    xp = np.full((n, c, h + top + bottom, w + left + right), pad_value,
                 dtype=np.float64)
    xp[:, :, top:top + h, left:left + w] = x
    kh, kw = kernel
    oh = (xp.shape[2] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.empty((n, c, kh, kw, oh, ow))
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilations[0], j * dilations[1]
            out[:, :, i, j] = xp[:, :, r0:r0 + strides[0] * (oh - 1) + 1:strides[0],
                                 c0:c0 + strides[1] * (ow - 1) + 1:strides[1]]
    return out


def conv2d_reference(x, w, strides, padding, dilations, groups):
    o, cg, kh, kw = w.shape
    win = windows(x.astype(np.float64), (kh, kw), strides, padding, dilations, 0.0)
    n, c = x.shape[:2]
    win = win.reshape(n, groups, cg, kh, kw, *win.shape[-2:])
    wg = w.astype(np.float64).reshape(groups, o // groups, cg, kh, kw)
    y = np.einsum("ngcijhw,gocij->ngohw", win, wg)
    return y.reshape(n, o, *y.shape[-2:])


def attrs(strides, padding, dilations):
    def arr(v):
        return f"array<i64: {', '.join(map(str, v))}>"
    return (f"strides = {arr(strides)}, padding = {arr(padding)}, "
            f"dilations = {arr(dilations)}")


CONVS = [
    # (N, C, H, W), (O, C/g, KH, KW), strides, padding, dilations, groups
    ((2, 3, 9, 9), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((1, 4, 11, 10), (6, 2, 3, 2), (2, 3), (0, 1, 2, 0), (1, 1), 2),
    ((2, 6, 12, 12), (6, 1, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 6),
    ((1, 8, 7, 7), (16, 8, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((1, 3, 16, 16), (8, 3, 5, 5), (2, 2), (2, 2, 2, 2), (1, 1), 1),
    # 16 x 16 outputs (see test_conv2d_tiles): strided, padded on two sides
    # only; dilated.
    ((2, 4, 32, 32), (8, 4, 3, 3), (2, 2), (1, 0, 0, 1), (1, 1), 1),
    ((1, 3, 16, 16), (4, 3, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("case", CONVS, ids=str)
def test_conv2d(run, rng, case, dtype):
    x_shape, w_shape, strides, padding, dilations, groups = case
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    expected = conv2d_reference(x, w, strides, padding, dilations, groups)
    tx, tw = mlir_type(x_shape, dtype), mlir_type(w_shape, dtype)
    to = mlir_type(expected.shape, dtype)
    graph = (f"func.func @main(%x: {tx}, %w: {tw}) -> {to} {{\n"
             f"  %0 = jeet.conv2d %x, %w {{{attrs(strides, padding, dilations)}, "
             f"groups = {groups} : i64}} : {tx}, {tw} -> {to}\n"
             f"  return %0 : {to}\n}}\n")
    (out,) = run(graph, [x, w])
    k = np.prod(w_shape[1:])
    tol = (2e-6 if dtype == np.float32 else 1e-3) * np.sqrt(k) * 4
    assert_close(out, expected, rtol=tol, atol=tol, what=str(case))


def test_conv2d_int32_with_epilogue(run, rng):
    # Integer convolution (exact) followed by a bias and relu.
    x = rng.integers(-5, 6, (1, 2, 6, 6)).astype(np.int32)
    w = rng.integers(-3, 4, (3, 2, 3, 3)).astype(np.int32)
    b = rng.integers(-10, 11, (3, 1, 1)).astype(np.int32)
    expected = conv2d_reference(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1) + b
    expected = np.maximum(expected, 0).astype(np.int32)
    graph = (
        "func.func @main(%x: tensor<1x2x6x6xi32>, %w: tensor<3x2x3x3xi32>, %b: tensor<3x1x1xi32>) -> tensor<1x3x6x6xi32> {\n"
        f"  %0 = jeet.conv2d %x, %w {{{attrs((1, 1), (1, 1, 1, 1), (1, 1))}, groups = 1 : i64}} : tensor<1x2x6x6xi32>, tensor<3x2x3x3xi32> -> tensor<1x3x6x6xi32>\n"
        "  %1 = jeet.add %0, %b : tensor<1x3x6x6xi32>, tensor<3x1x1xi32> -> tensor<1x3x6x6xi32>\n"
        "  %2 = jeet.relu %1 : tensor<1x3x6x6xi32>\n"
        "  return %2 : tensor<1x3x6x6xi32>\n}\n")
    (out,) = run(graph, [x, w, b])
    np.testing.assert_array_equal(out, expected)


POOLS = [
    # (N, C, H, W), kernel, strides, padding, dilations
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1)),
    # Windows that tile the input: reduced from a reshape of it.
    ((2, 3, 6, 12), (3, 4), (3, 4), (0, 0, 0, 0), (1, 1)),
    # Rows of 8 windows of 3: vector loads split into every third lane.
    ((1, 2, 4, 24), (2, 3), (2, 3), (0, 0, 0, 0), (1, 1)),
    # The same kernel leaving a row and a column out: gathered by im2col.
    ((1, 2, 7, 9), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1)),
    ((1, 4, 9, 11), (3, 3), (1, 2), (1, 1, 1, 1), (1, 1)),
    ((1, 2, 10, 10), (3, 2), (2, 1), (1, 0, 1, 1), (2, 1)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("case", POOLS, ids=str)
def test_max_pool2d(run, rng, case, dtype):
    shape, kernel, strides, padding, dilations = case
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[5] = np.nan  # propagates to the windows holding it
    win = windows(x, kernel, strides, padding, dilations, -np.inf)
    expected = win.max(axis=(2, 3))
    t, to = mlir_type(shape, dtype), mlir_type(expected.shape, dtype)
    k = f"array<i64: {kernel[0]}, {kernel[1]}>"
    graph = (f"func.func @main(%x: {t}) -> {to} {{\n"
             f"  %0 = jeet.max_pool2d %x {{kernel_shape = {k}, "
             f"{attrs(strides, padding, dilations)}}} : {t} -> {to}\n"
             f"  return %0 : {to}\n}}\n")
    (out,) = run(graph, [x])
    np.testing.assert_array_equal(out, expected.astype(dtype))


def avg_pool_graph(shape, out_shape, dtype, kernel, strides, padding,
                   dilations, count_include_pad):
    t, to = mlir_type(shape, dtype), mlir_type(out_shape, dtype)
    k = f"array<i64: {kernel[0]}, {kernel[1]}>"
    return (f"func.func @main(%x: {t}) -> {to} {{\n"
            f"  %0 = jeet.avg_pool2d %x {{kernel_shape = {k}, "
            f"{attrs(strides, padding, dilations)}, count_include_pad = "
            f"{str(count_include_pad).lower()}}} : {t} -> {to}\n"
            f"  return %0 : {to}\n}}\n")


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float16],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("case", POOLS, ids=str)
def test_avg_pool2d(run, rng, case, dtype, count_include_pad):
    shape, kernel, strides, padding, dilations = case
    x = rng.standard_normal(shape).astype(dtype)
    win = windows(x, kernel, strides, padding, dilations, 0.0)
    if count_include_pad:
        expected = win.mean(axis=(2, 3))
    else:
        ones = windows(np.ones((1, 1) + shape[2:]), kernel, strides, padding,
                       dilations, 0.0)
        expected = win.sum(axis=(2, 3)) / ones.sum(axis=(2, 3))
    graph = avg_pool_graph(shape, expected.shape, dtype, kernel, strides,
                           padding, dilations, count_include_pad)
    (out,) = run(graph, [x])
    tol = 1e-6 if dtype == np.float32 else 2e-3
    assert_close(out, expected, rtol=tol, atol=tol, what=str(case))


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_f16_avg_pool2d_whose_window_sum_passes_f16(run, rng,
                                                    count_include_pad):
    """Windows of nine f16 values near 30000: their sum passes f16's 65504.
    The average is summed and divided in f32 (it was infinite)."""
    x = rng.uniform(20000, 40000, size=(1, 2, 5, 5)).astype(np.float16)
    case = (x.shape, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1))
    win = windows(x.astype(np.float64), *case[1:], 0.0)
    ones = windows(np.ones((1, 1, 5, 5)), *case[1:], 0.0)
    expected = win.sum(axis=(2, 3)) / (9 if count_include_pad
                                       else ones.sum(axis=(2, 3)))
    graph = avg_pool_graph(x.shape, expected.shape, np.float16, *case[1:],
                           count_include_pad)
    (out,) = run(graph, [x])
    assert np.isfinite(out).all(), out
    assert_close(out, expected, rtol=2e-3, what="f16 averages near 30000")


EPILOGUES = [
    # conv case (as CONVS), bias shape
    (CONVS[0], (4, 1, 1)),
    (CONVS[1], (1, 6, 1, 1)),
    (CONVS[2], (6, 1, 1)),
    (CONVS[4], (8, 1, 1)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("case", EPILOGUES, ids=str)
def test_conv2d_bias_relu(run, rng, case, dtype):
    # The epilogue runs in the convolution's matmul kernel (jeet-sink-reshapes
    # moves the NCHW reshape below it); the convolution itself is also a
    # result, and a per-row bias (broadcast along W only, which the matmul's
    # (N, O, OH * OW) shape cannot express) stays a kernel of its own.
    (x_shape, w_shape, strides, padding, dilations, groups), b_shape = case
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    b = rng.standard_normal(b_shape).astype(dtype)
    conv = conv2d_reference(x, w, strides, padding, dilations, groups)
    r = rng.standard_normal(conv.shape[2:3] + (1,)).astype(dtype)
    expected = np.maximum(conv + b.astype(np.float64), 0.0)
    rows = conv * r.astype(np.float64)
    tx, tw = mlir_type(x_shape, dtype), mlir_type(w_shape, dtype)
    tb, tr = mlir_type(b_shape, dtype), mlir_type(r.shape, dtype)
    to = mlir_type(conv.shape, dtype)
    graph = (f"func.func @main(%x: {tx}, %w: {tw}, %b: {tb}, %r: {tr}) -> ({to}, {to}, {to}) {{\n"
             f"  %0 = jeet.conv2d %x, %w {{{attrs(strides, padding, dilations)}, "
             f"groups = {groups} : i64}} : {tx}, {tw} -> {to}\n"
             f"  %1 = jeet.add %0, %b : {to}, {tb} -> {to}\n"
             f"  %2 = jeet.relu %1 : {to}\n"
             f"  %3 = jeet.mul %0, %r : {to}, {tr} -> {to}\n"
             f"  return %2, %0, %3 : {to}, {to}, {to}\n}}\n")
    out, out_conv, out_rows = run(graph, [x, w, b, r])
    k = np.prod(w_shape[1:])
    tol = (2e-6 if dtype == np.float32 else 1e-3) * np.sqrt(k) * 4
    assert_close(out, expected, rtol=tol, atol=tol, what=f"{case} relu")
    assert_close(out_conv, conv, rtol=tol, atol=tol, what=f"{case} conv")
    rtol = tol * 4
    assert_close(out_rows, rows, rtol=rtol, atol=rtol, what=f"{case} rows")


@pytest.mark.parametrize("case", [(CONVS[5], (8, 1, 1)), (CONVS[6], (4, 1, 1))],
                         ids=str)
def test_conv2d_tiles(run, rng, case):
    # conv + bias + relu alone: each tile of the matmul (its epilogue joined)
    # copies the windows of its whole output rows itself (jeet-cpu-im2col).
    (x_shape, w_shape, strides, padding, dilations, groups), b_shape = case
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    conv = conv2d_reference(x, w, strides, padding, dilations, groups)
    expected = np.maximum(conv + b.astype(np.float64), 0.0)
    tx, tw = mlir_type(x_shape, np.float32), mlir_type(w_shape, np.float32)
    tb, to = mlir_type(b_shape, np.float32), mlir_type(conv.shape, np.float32)
    graph = (f"func.func @main(%x: {tx}, %w: {tw}, %b: {tb}) -> {to} {{\n"
             f"  %0 = jeet.conv2d %x, %w {{{attrs(strides, padding, dilations)}, "
             f"groups = {groups} : i64}} : {tx}, {tw} -> {to}\n"
             f"  %1 = jeet.add %0, %b : {to}, {tb} -> {to}\n"
             f"  %2 = jeet.relu %1 : {to}\n"
             f"  return %2 : {to}\n}}\n")
    (out,) = run(graph, [x, w, b])
    tol = 2e-6 * np.sqrt(np.prod(w_shape[1:])) * 4
    assert_close(out, expected, rtol=tol, atol=tol, what=str(case))


@pytest.mark.parametrize("case", [
    # (N, C, H, W), kernel, strides: the depthwise convolutions of a mobile
    # network's last stages, 6 x 6 and 3 x 3 outputs.
    ((2, 96, 16, 16), (5, 5), (2, 2)),
    ((2, 96, 5, 5), (3, 3), (1, 1)),
], ids=str)
def test_depthwise_constant_filter(run, rng, case):
    # A constant filter (an ONNX initialiser): its taps are views of the
    # filter's global, read in place. On the CPU each image and channel is
    # one iteration of straight-line vector code, a load per tap, 2 x 96 of
    # them, which run on all threads (jeet-cpu-sequentialize-nested-parallel
    # weighs an iteration by its loads and stores). Bias and a clamp (ReLU6)
    # follow in the kernel.
    x_shape, kernel, strides = case
    c = x_shape[1]
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((c, 1) + kernel).astype(np.float32)
    b = rng.standard_normal((c, 1, 1)).astype(np.float32)
    conv = conv2d_reference(x, w, strides, (0, 0, 0, 0), (1, 1), c)
    expected = np.clip(conv + b.astype(np.float64), 0.0, 6.0)
    tx, tw = mlir_type(x_shape, np.float32), mlir_type(w.shape, np.float32)
    tb, to = mlir_type(b.shape, np.float32), mlir_type(conv.shape, np.float32)
    values = ", ".join(f"{v:.9e}" for v in w.ravel())
    graph = (f"func.func @main(%x: {tx}, %b: {tb}) -> {to} {{\n"
             f"  %w = jeet.constant dense<[{values}]> : tensor<{w.size}xf32>\n"
             f"  %w4 = jeet.reshape %w : tensor<{w.size}xf32> -> {tw}\n"
             f"  %0 = jeet.conv2d %x, %w4 {{{attrs(strides, (0, 0, 0, 0), (1, 1))}, "
             f"groups = {c} : i64}} : {tx}, {tw} -> {to}\n"
             f"  %1 = jeet.add %0, %b : {to}, {tb} -> {to}\n"
             f"  %2 = jeet.relu %1 : {to}\n"
             f"  %six = jeet.constant dense<6.0> : tensor<f32>\n"
             f"  %3 = jeet.min %2, %six : {to}, tensor<f32> -> {to}\n"
             f"  return %3 : {to}\n}}\n")
    (out,) = run(graph, [x, b])
    tol = 2e-6 * np.sqrt(np.prod(kernel)) * 4
    assert_close(out, expected, rtol=tol, atol=tol, what=str(case))


def max_pool_reference(x, k):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // k, k, w // k, k).max(axis=(3, 5))


STAGES = [
    # (N, C, H, W), first filter, second filter: two conv + bias + relu
    # stages with a 2x2 max pooling between them, as the example CNN. Each
    # tile of a conv's matmul (64 output pixels: 2 rows of 32, then 4 of 16)
    # copies its own windows (K = 27, then 144) from the input and from the
    # pooling's result, with the pads' zeros.
    ((2, 3, 32, 32), (16, 3, 3, 3), (32, 16, 3, 3)),
    # K = 8 * 5 * 5 = 200; the second conv pads by 2.
    ((3, 8, 32, 32), (8, 8, 5, 5), (4, 8, 5, 5)),
]


@pytest.mark.parametrize("case", STAGES, ids=str)
def test_conv_stages(run, rng, case):
    x_shape, w1_shape, w2_shape = case
    x = rng.standard_normal(x_shape).astype(np.float32)
    w1 = rng.standard_normal(w1_shape).astype(np.float32)
    w2 = rng.standard_normal(w2_shape).astype(np.float32)
    b1 = rng.standard_normal((w1_shape[0], 1, 1)).astype(np.float32)
    b2 = rng.standard_normal((w2_shape[0], 1, 1)).astype(np.float32)
    p1 = (w1_shape[2] // 2,) * 4
    p2 = (w2_shape[2] // 2,) * 4
    h1 = np.maximum(conv2d_reference(x, w1, (1, 1), p1, (1, 1), 1) + b1, 0.0)
    pooled = max_pool_reference(h1, 2)
    expected = np.maximum(
        conv2d_reference(pooled, w2, (1, 1), p2, (1, 1), 1) + b2, 0.0)
    n, _, h, w = x_shape
    tx, tw1, tw2 = (mlir_type(s, np.float32) for s in (x_shape, w1_shape, w2_shape))
    tb1, tb2 = mlir_type(b1.shape, np.float32), mlir_type(b2.shape, np.float32)
    t1 = mlir_type((n, w1_shape[0], h, w), np.float32)
    tp = mlir_type(pooled.shape, np.float32)
    to = mlir_type(expected.shape, np.float32)
    pool = "kernel_shape = array<i64: 2, 2>, " + attrs((2, 2), (0, 0, 0, 0), (1, 1))
    graph = (
        f"func.func @main(%x: {tx}, %w1: {tw1}, %b1: {tb1}, %w2: {tw2}, %b2: {tb2}) -> {to} {{\n"
        f"  %0 = jeet.conv2d %x, %w1 {{{attrs((1, 1), p1, (1, 1))}, groups = 1 : i64}} : {tx}, {tw1} -> {t1}\n"
        f"  %1 = jeet.add %0, %b1 : {t1}, {tb1} -> {t1}\n"
        f"  %2 = jeet.relu %1 : {t1}\n"
        f"  %3 = jeet.max_pool2d %2 {{{pool}}} : {t1} -> {tp}\n"
        f"  %4 = jeet.conv2d %3, %w2 {{{attrs((1, 1), p2, (1, 1))}, groups = 1 : i64}} : {tp}, {tw2} -> {to}\n"
        f"  %5 = jeet.add %4, %b2 : {to}, {tb2} -> {to}\n"
        f"  %6 = jeet.relu %5 : {to}\n"
        f"  return %6 : {to}\n}}\n")
    (out,) = run(graph, [x, w1, b1, w2, b2])
    k = max(np.prod(w1_shape[1:]), np.prod(w2_shape[1:]))
    # The second conv sums K products of first-stage values of size ~sqrt(K).
    tol = 2e-6 * k * 4
    assert_close(out, expected, rtol=tol, atol=tol, what=str(case))
