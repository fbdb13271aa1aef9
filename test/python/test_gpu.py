"""The Python API on the GPU: tensors on device='gpu', lazy graphs executed
there, jit, memory statistics, against a float64 numpy reference on fresh
random inputs. Where no GPU answers, `make test` runs these on the GPU
emulator (JEET_CUDA_DRIVER=build/lib/libjeet_cuda_emulator.so, -m gpu)."""
import numpy as np
import pytest

import jeet
from conftest import gpu_is_emulated, requires_gpu


def close(actual, expected, rtol=1e-4):
    expected = np.asarray(expected, dtype=np.float64)
    atol = rtol * max(1.0, float(np.abs(expected).max(initial=0.0)))
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), expected,
                               rtol=rtol, atol=atol)


@requires_gpu
def test_tensors_live_on_the_gpu(rng):
    a = rng.standard_normal((37, 45)).astype(np.float32)
    x = jeet.tensor(a, device="gpu")
    assert x.device == "gpu"
    np.testing.assert_array_equal(x.numpy(), a)
    assert jeet.memory_stats("gpu")["allocated_bytes"] > 0


@requires_gpu
def test_mlp_layer(rng):
    """relu(x @ w + b) then a softmax, with shapes off every tile."""
    x = rng.standard_normal((67, 100)).astype(np.float32)
    w = rng.standard_normal((100, 45)).astype(np.float32)
    b = rng.standard_normal(45).astype(np.float32)
    X, W, B = (jeet.tensor(v, device="gpu") for v in (x, w, b))
    h = (X @ W + B).relu()
    y = jeet.softmax(h, axis=1)
    out = y.execute()
    assert out.device == "gpu"
    ref = np.maximum(x.astype(np.float64) @ w + b, 0)
    e = np.exp(ref - ref.max(axis=1, keepdims=True))
    close(h.numpy(), ref)
    close(out.numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


@requires_gpu
def test_reductions(rng):
    a = -np.abs(rng.standard_normal((33, 257))).astype(np.float32) - 0.5
    x = jeet.tensor(a, device="gpu")
    a64 = a.astype(np.float64)
    close(x.sum(1).numpy(), a64.sum(1))
    close(x.sum(0, keepdims=True).numpy(), a64.sum(0, keepdims=True))
    close(jeet.max(x, axis=1).numpy(), a64.max(1))
    close(jeet.mean(x).numpy(), a64.mean())


@requires_gpu
def test_elementwise_f16(rng):
    a = rng.standard_normal(1001).astype(np.float16)
    b = rng.standard_normal(1001).astype(np.float16)
    x = jeet.tensor(a, dtype="float16", device="gpu")
    y = jeet.tensor(b, dtype="float16", device="gpu")
    out = (x * y - x).numpy()
    assert out.dtype == np.float16
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    close(out, a64 * b64 - a64, rtol=2e-3)


@requires_gpu
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_results_read_across_the_kernels_of_one_group(rng, dtype):
    """A group returning a broadcast, a comparison of it and its maximum over
    the middle axis: the reduction reads the broadcast that the comparison's
    tiles wrote, in rows of another size, so it runs as a kernel after them
    (in one launch, f16 rows that another block had not written yet came
    back NaN: fuzz_numerics.py seed 109,407)."""
    x = (rng.standard_normal((7, 5, 16, 4)) * 10).astype(dtype)
    y = rng.standard_normal((16, 4)).astype(dtype)
    b = jeet.broadcast_to(jeet.tensor(x, dtype=dtype, device="gpu"),
                          [1, 7, 5, 16, 4])
    less = jeet.lt(b, jeet.tensor(y, dtype=dtype, device="gpu"))
    top = jeet.max(b, axis=-3)
    jeet.execute(top, less, b)
    np.testing.assert_array_equal(top.numpy(), x.max(axis=1)[None])
    np.testing.assert_array_equal(less.numpy(), (x < y)[None])
    np.testing.assert_array_equal(b.numpy(), x[None])


@requires_gpu
def test_tile_recomputing_a_reduction_keeps_its_own_accumulator(rng):
    """max over a whole bool tensor feeds a where over it (one kernel: the
    where's tiles, and a one-block tile recomputing the maximum for another
    result); the maximum is a kernel of its own too, which the where's tiles
    read. The one-block tile's accumulator was merged (CSE) with that
    kernel's result buffer: it reset it to INT_MIN while the where's tiles on
    other blocks still read it, so some rows of the row maximum came back
    wrong (fuzz_numerics.py seed 206,043). Tile temporaries are the tile's
    own since; run a few times, as a race is."""
    b = rng.integers(0, 63, (63, 33)).astype(np.float16)
    b[rng.random((63, 33)) < 0.5] = 100
    eq = np.arange(63)[:, None] == b
    ref = np.where(eq.max(), eq, True).max(axis=-1)
    for _ in range(3):
        v2 = jeet.eq(jeet.iota([63, 33], 0, "float16"),
                     jeet.tensor(b, dtype="float16", device="gpu"))
        v3 = jeet.max(v2)
        v5 = jeet.max(jeet.where(v3, v2, True), axis=-1)
        v7 = jeet.logical_xor(jeet.where(v3, v5, False), v5)
        jeet.execute(v7, v5, v2)
        np.testing.assert_array_equal(v5.numpy(), ref)
        np.testing.assert_array_equal(v2.numpy(), eq)
        np.testing.assert_array_equal(
            v7.numpy(), np.logical_xor(np.where(eq.max(), ref, False), ref))


@requires_gpu
def test_mean_whose_widened_input_exceeds_a_block(rng):
    """A mean of 17,000 halves per output: their f32 widening (68,000 bytes
    for one output) does not fit a block's workgroup memory, so it is a
    kernel of its own before the reduction (it was a compilation error;
    fuzz_numerics.py seed 213,608)."""
    x = (rng.standard_normal((17, 1000)) + 3).astype(np.float16)
    b = jeet.broadcast_to(jeet.tensor(x, dtype="float16", device="gpu"),
                          [3, 17, 1000])
    m = jeet.mean(b, axis=(1, 2))
    # The mean (about 3) rounded to f16: within one unit of its last place.
    close(m.numpy().astype(np.float64),
          np.full(3, x.astype(np.float64).mean()), rtol=2e-3)


@requires_gpu
def test_full_reduction_of_a_returned_broadcast(rng):
    """The broadcast is a kernel of its own, which the reduction's one-block
    kernel reads, not a forall cloned into its tile (the emulation target
    could not lower that; fuzz_graph_builder.py seed 14,100,428)."""
    x = rng.standard_normal((7, 3, 2)).astype(np.float32)
    b = jeet.broadcast_to(jeet.tensor(x, device="gpu"), [8, 7, 3, 2])
    n = -b
    top = jeet.max(b)
    jeet.execute(b, n, top)
    np.testing.assert_array_equal(b.numpy(), np.broadcast_to(x, (8, 7, 3, 2)))
    np.testing.assert_array_equal(n.numpy(), -np.broadcast_to(x, (8, 7, 3, 2)))
    assert float(top.numpy()) == x.max()


@requires_gpu
def test_mean_of_a_returned_value_computed_in_the_tile(rng):
    """A mean over rows of 31 of a remainder of a broadcast the graph also
    returns: each tile holds the remainder for its reduction, and tiles of
    1000 rows needed 124,000 bytes of workgroup memory (a compilation error;
    fuzz_numerics.py seed 112,476); they take what fits 32 KiB."""
    x = rng.standard_normal((1000, 31)).astype(np.float32)
    b = jeet.broadcast_to(jeet.tensor(x, device="gpu"), [2, 1000, 31])
    m = jeet.mean(jeet.fmod(b, -0.2079), axis=-1)
    # Two such inputs in one tile: their bytes add up (66,528 bytes when
    # each was held to 32 KiB alone).
    m2 = m + jeet.max(jeet.exp(b), axis=-1)
    jeet.execute(m, m2, b)
    x64 = x.astype(np.float64)
    ref = np.fmod(x64, np.float32(-0.2079)).mean(axis=-1)
    close(m.numpy(), np.broadcast_to(ref, (2, 1000)), rtol=1e-5)
    close(m2.numpy(), np.broadcast_to(ref + np.exp(x64).max(axis=-1), (2, 1000)),
          rtol=1e-5)
    np.testing.assert_array_equal(b.numpy(), np.broadcast_to(x, (2, 1000, 31)))


def test_select_after_a_convolution_with_an_operand_across_its_rows(rng):
    """where(conv2d(x, w, b) > y, y, z) with z broadcast along the rows of
    the output: jeet-sink-reshapes could not converge and the compilation
    failed with no message, on either device (fuzz_numerics.py on the GPU,
    seed 140,402)."""
    select_after_a_convolution(rng, "cpu")


@requires_gpu
def test_select_after_a_convolution_on_the_gpu(rng):
    select_after_a_convolution(rng, "gpu")


def select_after_a_convolution(rng, device):
    x = rng.standard_normal((2, 3, 5, 16)).astype(np.float32)
    w = rng.standard_normal((1, 3, 1, 2)).astype(np.float32)
    b = rng.standard_normal(1).astype(np.float32)
    y = rng.standard_normal((2, 1, 7, 8)).astype(np.float32)
    z = rng.standard_normal((1, 1, 1, 8)).astype(np.float32)
    X, W, B, Y, Z = (jeet.tensor(v, device=device) for v in (x, w, b, y, z))
    out = jeet.where(jeet.conv2d(X, W, B, (1, 2), (1, 0)) > Y, Y, Z)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (0, 0)))
    conv = np.zeros((2, 1, 7, 8)) + b[0]
    for i in range(7):
        for j in range(8):
            conv[:, 0, i, j] += np.einsum(
                "nck,ck->n", xp[:, :, i, 2 * j:2 * j + 2], w[0, :, 0, :])
    np.testing.assert_array_equal(out.numpy(), np.where(conv > y, y, z))


@requires_gpu
def test_jit_on_the_gpu(rng):
    @jeet.jit
    def layer(x, w):
        return (x @ w).relu().sum(1)

    x = rng.standard_normal((20, 70)).astype(np.float32)
    w = rng.standard_normal((70, 30)).astype(np.float32)
    got = layer(jeet.tensor(x, device="gpu"), jeet.tensor(w, device="gpu"))
    assert got.device == "gpu"
    close(got.numpy(), np.maximum(x.astype(np.float64) @ w, 0).sum(1))


@requires_gpu
def test_scalar_group_with_two_results(rng):
    """s = a + b; return s, exp(s) on scalars (once 'cannot be mapped to one
    GPU kernel: 2 results')."""
    a, b = rng.standard_normal(2).astype(np.float32)
    A, B = jeet.tensor(np.float32(a), device="gpu"), jeet.tensor(
        np.float32(b), device="gpu")
    s = A + B
    e = jeet.exp(s)
    s64 = np.float64(a) + np.float64(b)
    close(e.numpy(), np.exp(s64), rtol=1e-5)
    close(s.numpy(), s64, rtol=1e-6)


@requires_gpu
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_power_on_the_gpu(dtype, rng):
    """The square-and-multiply steps of integer ** through NVPTX: wrapping
    past the dtype's range and negative exponents, exactly."""
    from conftest import integer_power
    base = rng.integers(-40, 40, (3, 67)).astype(dtype)
    exponent = rng.integers(-4, 130, (3, 67)).astype(dtype)
    exponent[2] = rng.integers(2**20, np.iinfo(dtype).max, 67)  # high bits
    got = (jeet.tensor(base, dtype=dtype, device="gpu")
           ** jeet.tensor(exponent, dtype=dtype, device="gpu"))
    assert got.device == "gpu"
    np.testing.assert_array_equal(got.numpy(), integer_power(base, exponent, dtype))


@requires_gpu
def test_the_device_says_what_it_is():
    cuda = [d for d in jeet.devices() if d["kind"] == "cuda"]
    assert cuda and cuda[0]["available"]
    if gpu_is_emulated():
        assert cuda[0]["emulated"] is True
        assert "Jeet GPU emulator" in cuda[0]["description"]
        assert "emulated" in cuda[0]["description"]
        assert "no GPU speed" in cuda[0]["description"]
    else:
        assert cuda[0]["emulated"] is False
        assert "emulat" not in cuda[0]["description"]


@requires_gpu
def test_gpu_graphs_compile_for_the_device():
    """'auto' compiles for the device: the emulation target on the emulator
    (no PTX), PTX on a GPU."""
    t = (jeet.ones([64, 64], device="gpu") * 2).relu()
    compiled = jeet.compile(t)
    if gpu_is_emulated():
        assert compiled.gpu_target == "emulator"
        with pytest.raises(jeet.JeetError, match="emulation target"):
            compiled.ptx()
    else:
        assert compiled.gpu_target == "ptx"
        assert ".entry" in compiled.ptx()
    explained = jeet.explain(t)
    assert f"gpu target: {compiled.gpu_target}" in explained


@requires_gpu
def test_pickle_keeps_the_device(rng):
    import pickle
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x = jeet.tensor(a, device="gpu")
    restored = pickle.loads(pickle.dumps(jeet.exp(x)))
    assert restored.device == "gpu"
    close(restored.numpy(), np.exp(a.astype(np.float64)))


@requires_gpu
def test_kernels_counted_are_the_kernels_launched(rng):
    """explain's kernels are the launches: a group of reshapes alone is a
    view, launched never."""
    # Shapes no other test uses: the first execution of this graph launches
    # its kernels (later ones replay a CUDA graph).
    table = jeet.tensor(rng.standard_normal((97, 29)).astype(np.float32), device="gpu")
    ids = jeet.from_numpy(rng.integers(0, 97, (3, 11)), device="gpu")
    out = jeet.softmax(jeet.take(table, ids.reshape(-1)).reshape(3, 11, 29), axis=-1)
    jeet.synchronize()
    before = jeet.memory_stats("gpu")["kernels_launched"]
    out.execute()
    jeet.synchronize()
    launched = jeet.memory_stats("gpu")["kernels_launched"] - before
    assert launched == jeet.compile(out).num_kernels == 2


@requires_gpu
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_floor_division_of_edge_values_on_the_gpu(dtype):
    """// as NumPy's on the GPU too, over every pair of edge values."""
    if dtype == "float32":
        values = np.array([0.0, -0.0, 1.0, -1.0, 0.1, -0.1, 2.5, -7.0, 1e30, 1e-30,
                           np.inf, -np.inf, np.nan, 1e-45, 16777217.0], np.float32)
    else:
        values = np.array([0, 1, -1, 3, -7, 2**31 - 1, -2**31], np.int32)
    a, b = np.repeat(values, values.size), np.tile(values, values.size)
    A = jeet.tensor(a, dtype=dtype, device="gpu")
    B = jeet.tensor(b, dtype=dtype, device="gpu")
    with np.errstate(all="ignore"):
        want = np.floor_divide(a, b)
    np.testing.assert_array_equal((A // B).numpy(), want)


@requires_gpu
def test_numpy_functions_on_the_gpu(rng):
    """The NumPy functions built from Jeet's ops on the GPU, against NumPy."""
    a = rng.standard_normal((5, 6)).astype(np.float32)
    b = rng.standard_normal((5, 6)).astype(np.float32)
    x, y = jeet.tensor(a, device="gpu"), jeet.tensor(b, device="gpu")
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    close(jeet.hypot(x, y).numpy(), np.hypot(a64, b64))
    close(jeet.logaddexp(x, y).numpy(), np.logaddexp(a64, b64))
    np.testing.assert_array_equal(jeet.isclose(x, x + 1e-7).numpy(), np.isclose(a, a + np.float32(1e-7)))
    for got, want in [(jeet.roll(x, 2, 1), np.roll(a, 2, 1)), (jeet.diag(x, 1), np.diag(a, 1)),
                      (jeet.tile(x, (2, 1)), np.tile(a, (2, 1))),
                      (jeet.repeat(x, [1, 0, 2, 1, 1], axis=0), np.repeat(a, [1, 0, 2, 1, 1], axis=0)),
                      (x[[4, 0]], a[[4, 0]]), (x[:, a[0] > 0], a[:, a[0] > 0]),
                      (jeet.moveaxis(x, 0, 1), np.moveaxis(a, 0, 1))]:
        assert got.device == "gpu"
        np.testing.assert_array_equal(got.numpy(), want)
    close(jeet.dot(x, y.T).numpy(), a64 @ b64.T)
    close((x // 0.3).numpy(), np.floor_divide(a, np.float32(0.3)).astype(np.float64))


@requires_gpu
def test_slices_are_read_in_place_on_the_gpu(rng):
    """The slices that kernels read in place (views of their inputs) on the
    GPU: the graphs of test_api_data_movement.py's test, against float64."""
    from test_api_data_movement import _slice_graphs
    for name, got, _, want in _slice_graphs(rng, "gpu"):
        assert "jeet.slice  (1 op fused)" not in str(jeet.explain(got)), name
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4,
                                   err_msg=name)


@requires_gpu
def test_depthwise_conv2d_on_the_gpu(rng):
    """A depthwise convolution on the GPU: strided views of the padded
    input (stride 2, a 5x5 kernel), against float64."""
    from test_api_conv_pool import conv_reference
    x = rng.standard_normal((2, 8, 13, 11)).astype(np.float32)
    w = rng.standard_normal((8, 1, 5, 5)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    got = jeet.conv2d(jeet.tensor(x, device="gpu"), jeet.tensor(w, device="gpu"),
                      jeet.tensor(b, device="gpu"), stride=2, padding=2, groups=8)
    np.testing.assert_allclose(got.numpy(), conv_reference(x, w, b, 2, 2, 1, 8),
                               rtol=1e-4, atol=1e-4)


@requires_gpu
def test_depthwise_conv2d_channels_last_on_the_gpu(rng):
    """A depthwise convolution of 40 channels with 5x5 taps at 3x3 output
    positions, computed channels last as on the CPU (the decomposition is
    shared: the input transposed to NHWC, rows of the filter transposed, the
    sum transposed back), with its ReLU, on the GPU; against float64."""
    from test_api_conv_pool import conv_reference
    x = rng.standard_normal((2, 40, 3, 3)).astype(np.float32)
    w = rng.standard_normal((40, 1, 5, 5)).astype(np.float32)
    b = rng.standard_normal(40).astype(np.float32)
    got = jeet.relu(jeet.conv2d(jeet.tensor(x, device="gpu"), jeet.tensor(w, device="gpu"),
                                jeet.tensor(b, device="gpu"), padding=2, groups=40))
    assert "tensor<2x7x7x40xf32>" in jeet.compile(got).ir("fused")
    np.testing.assert_allclose(got.numpy(),
                               np.maximum(conv_reference(x, w, b, 1, 2, 1, 40), 0),
                               rtol=1e-4, atol=1e-4)


@requires_gpu
@pytest.mark.parametrize("op", ["ceil", "exp"])
def test_mean_of_a_result_the_graph_also_returns(rng, op):
    """A mean over a whole tensor whose operand (ceil(x), exp(x): not a
    cheap op) the graph also returns, with another result computed from it:
    the reduction's launch read the returned result's buffer before the
    launch that writes it ran (NaN under JEET_POISON_DEVICE_MEMORY, stale
    values otherwise: fuzz_numerics GPU seed 488,281)."""
    x = (rng.standard_normal((1, 4, 125, 33)) * 2).astype(np.float32)
    t = jeet.tensor(x, device="gpu")
    v1 = getattr(jeet, op)(t)
    v2 = jeet.mean(v1, axis=None, keepdims=True)
    v3 = jeet.logical_not(v1)
    jeet.execute(v3, v2, v1)
    ref = getattr(np, op)(x.astype(np.float64))
    close(v1.numpy(), ref)
    close(v2.numpy(), ref.mean(keepdims=True))
    np.testing.assert_array_equal(v3.numpy(), ref.astype(np.float32) == 0)


@requires_gpu
def test_arrays_with_device_less_tensors_go_to_the_default_device(rng):
    """A tensor with no device of its own (from jeet.iota) runs on the
    default device, 'auto': the GPU here, which it now reports; a NumPy
    filter combined with it goes there too, so a later op with a GPU tensor
    works (the filter went to the CPU, and that op raised 'operands are on
    different devices': fuzz_numerics seed 476,425)."""
    x = jeet.iota((1, 2, 5, 5), axis=3, dtype="float32") * 0.5
    assert x._device is None and x.device == "gpu"
    w = rng.standard_normal((3, 2, 1, 1)).astype(np.float32)
    y = jeet.conv2d(x, w)
    assert y.device == "gpu"
    b = rng.standard_normal((1, 3, 5, 5)).astype(np.float32)
    z = y + jeet.tensor(b, device="gpu")
    xs = np.broadcast_to(np.arange(5.0) * 0.5, (1, 2, 5, 5))
    want = np.einsum("nchw,oc->nohw", xs, w[:, :, 0, 0].astype(np.float64)) + b
    close(z.numpy(), want)


@requires_gpu
def test_conv2d_of_a_device_less_input_with_an_array_filter(rng):
    """conv2d of an input that has no device yet (computed from jeet.iota),
    a NumPy filter and a GPU bias: the filter goes where the bias is (it
    went to the CPU, and the bias's add raised 'operands are on different
    devices')."""
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    x = jeet.exp2(jeet.iota((1, 2, 6, 7), axis=3, dtype="float32") * 0.25)
    y = jeet.conv2d(x, w, jeet.tensor(b, device="gpu"))
    assert y.device == "gpu"
    xs = np.exp2(np.broadcast_to(np.arange(7.0) * 0.25, (1, 2, 6, 7)))
    want = np.zeros((1, 4, 4, 5))
    for i in range(4):
        for j in range(5):
            want[0, :, i, j] = np.einsum("chw,ochw->o", xs[0, :, i:i + 3, j:j + 3], w) + b
    close(y.numpy(), want)


@requires_gpu
def test_random_concat_graphs_on_the_gpu(rng):
    """The random graphs of concats, slices, kernels and channel sums of the
    CPU's coalesced-copies test on the GPU (one kernel a concat there, the
    same destinations and accumulators per chain and kernel before
    bufferization), against float64."""
    from test_api_data_movement import (_assert_within_rounding,
                                        _random_concat_graph)
    for _ in range(12):
        results = _random_concat_graph(rng, device="gpu")
        got = jeet.execute(*[r[0] for r in results])
        for value, (_, want, magnitude) in zip(got, results):
            _assert_within_rounding(value.numpy(), want, magnitude)
