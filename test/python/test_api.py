"""The Python API: creation, operators, laziness, caching, jit, devices,
memory, explain/compile, and every user-facing error."""

import numpy as np
import pytest

import jeet
from conftest import no_gpu, requires_gpu


def randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def t(x, dtype="float32"):
    return jeet.tensor(x, dtype=dtype, device="cpu")


# -- creation ---------------------------------------------------------------


def test_a_tensor_without_a_device_reports_the_default_one():
    """A tensor computed from constants and jeet.iota alone has no device of
    its own: it runs on the default device ('auto', as jeet.tensor's
    default), reports that one, and arrays combined with it go there."""
    x = jeet.iota((2, 3), axis=1, dtype="float32") + 1.0
    assert x._device is None
    default = jeet.tensor([1]).device
    assert x.device == default
    y = x + np.full((2, 3), 0.5, np.float32)
    assert y.device == default
    assert np.array_equal(y.numpy(), np.tile([1.5, 2.5, 3.5], (2, 1)))


def test_tensor_shape_is_zero_filled():
    x = jeet.tensor([3, 4], device="cpu")
    assert x.shape == (3, 4) and x.dtype == "float32" and x.device == "cpu"
    assert np.array_equal(x.numpy(), np.zeros((3, 4), np.float32))
    assert jeet.tensor((2,), dtype="i32", device="cpu").dtype == "int32"


def test_tensor_from_data(rng):
    a = randn(rng, 3, 5)
    np.testing.assert_array_equal(jeet.tensor(a, device="cpu").numpy(), a)
    nested = [[1.5, 2.5], [3.5, 4.5]]
    np.testing.assert_array_equal(jeet.tensor(nested, device="cpu").numpy(),
                                  np.array(nested, np.float32))
    assert jeet.tensor(2.5, device="cpu").shape == ()
    assert jeet.tensor(np.arange(4), dtype="int32", device="cpu").dtype == "int32"


@pytest.mark.parametrize("name,long", [("float32", "float32"), ("f32", "float32"),
                                       ("float16", "float16"), ("f16", "float16"),
                                       ("bfloat16", "bfloat16"), ("bf16", "bfloat16"),
                                       ("int32", "int32"), ("i32", "int32")])
def test_dtype_names(name, long):
    assert jeet.zeros(2, 3, dtype=name, device="cpu").dtype == long


def test_creation_functions(rng):
    assert np.array_equal(jeet.zeros(2, 3, device="cpu").numpy(), np.zeros((2, 3)))
    assert np.array_equal(jeet.ones((2, 3), device="cpu").numpy(), np.ones((2, 3)))
    assert np.array_equal(jeet.full((2, 2), 7, dtype="i32", device="cpu").numpy(),
                          np.full((2, 2), 7))
    np.testing.assert_array_equal(jeet.arange(5, device="cpu").numpy(),
                                  np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(jeet.arange(1, 10, 3, dtype="i32", device="cpu").numpy(),
                                  np.arange(1, 10, 3))
    r = jeet.rand(100, 10, device="cpu").numpy()
    assert r.shape == (100, 10) and r.min() >= 0 and r.max() < 1 and r.std() > 0.1
    n = jeet.randn((200, 10), device="cpu").numpy()
    assert abs(n.mean()) < 0.2 and 0.8 < n.std() < 1.2
    a = randn(rng, 4, 4)
    f = jeet.from_numpy(a, device="cpu")
    assert f.dtype == "float32"
    np.testing.assert_array_equal(f.numpy(), a)
    assert jeet.from_numpy(np.ones(3, np.float16), device="cpu").dtype == "float16"
    assert jeet.from_numpy(np.arange(3, dtype=np.int64), device="cpu").dtype == "int64"
    assert jeet.from_numpy(np.arange(3, dtype=np.int16), device="cpu").dtype == "int32"
    b = jeet.from_numpy(np.array([True, False]), device="cpu")
    assert b.dtype == "bool" and b.numpy().dtype == np.bool_
    np.testing.assert_array_equal(b.numpy(), [True, False])


def test_numpy_interop(rng):
    a = randn(rng, 3, 4)
    x = t(a)
    np.testing.assert_array_equal(np.asarray(x), a)
    np.testing.assert_array_equal(np.asarray(x + 1), a + np.float32(1))
    # numpy() is a copy: changing it leaves the tensor alone.
    got = x.numpy()
    got[:] = 0
    np.testing.assert_array_equal(x.numpy(), a)
    # NumPy arrays on the left defer to the tensor.
    y = a + x
    assert isinstance(y, jeet.Tensor)
    np.testing.assert_allclose(y.numpy(), a + a)


@pytest.mark.parametrize("shape", [(3,), (1024, 1025), (2, 1024, 1024)])
def test_numpy_copies_are_whole_and_their_own(shape, rng):
    """numpy() copies into memory of its own, small or large (4 MiB and up:
    aligned to and advised as huge pages): every value there, writable, and
    alive after the tensor is gone."""
    a = rng.standard_normal(shape).astype(np.float32)
    x = t(a) * 2
    got = x.numpy()
    assert got.flags.writeable and got.flags.c_contiguous and got.shape == a.shape
    np.testing.assert_array_equal(got, a * np.float32(2))
    del x
    got += 1
    np.testing.assert_array_equal(got, a * np.float32(2) + np.float32(1))


def test_auto_device():
    x = jeet.tensor([2, 2])
    assert x.device == ("gpu" if jeet.gpu_available() else "cpu")


# -- laziness and execution --------------------------------------------------


def test_ops_are_lazy_until_execute(rng):
    a = t(randn(rng, 8, 8))
    y = (a * 2 + 1).relu()
    assert not y.is_materialized
    assert "lazy" in repr(y)
    assert y.execute() is y
    assert y.is_materialized
    np.testing.assert_allclose(y.numpy(), np.maximum(a.numpy() * 2 + 1, 0), rtol=1e-6)
    assert "jeet.Tensor(" in repr(y)


def test_execute_many_at_once(rng):
    a = t(randn(rng, 5, 5))
    s = a + 1
    x, y = jeet.execute(s * 2, s * 3)
    np.testing.assert_allclose(x.numpy(), (a.numpy() + 1) * 2, rtol=1e-6)
    np.testing.assert_allclose(y.numpy(), (a.numpy() + 1) * 3, rtol=1e-6)


def test_materialised_node_becomes_a_leaf(rng):
    a = t(randn(rng, 4, 4))
    b = (a + 1).execute()
    c = b * 2
    np.testing.assert_allclose(c.numpy(), (a.numpy() + 1) * 2, rtol=1e-6)


def test_shared_subexpression_computed_once(rng):
    a = t(randn(rng, 6, 6))
    s = a.exp()
    y = s + s * s
    e = np.exp(a.numpy().astype(np.float64))
    np.testing.assert_allclose(y.numpy(), e + e * e, rtol=1e-5)


# -- scalars and operators ---------------------------------------------------


def test_operators_with_scalars(rng):
    a = randn(rng, 7, 3)
    x = t(a)
    af = a.astype(np.float64)
    cases = [
        (x + 2, af + 2), (2 + x, 2 + af), (x - 1.5, af - 1.5), (1.5 - x, 1.5 - af),
        (x * 3, af * 3), (3 * x, 3 * af), (x / 4, af / 4), (4 / (x * x + 1), 4 / (af * af + 1)),
        (-x, -af), (+x, af), (abs(x), np.abs(af)), ((x * x + 1) ** 0.5, (af * af + 1) ** 0.5),
        (2 ** x, 2 ** af), (x ** 2, af ** 2),
    ]
    for got, expected in cases:
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_scalar_takes_tensor_dtype():
    h = jeet.ones(4, dtype="float16", device="cpu")
    assert (h * 2.5).dtype == "float16"
    np.testing.assert_array_equal((h * 2.5).numpy(), np.full(4, 2.5, np.float16))
    i = jeet.full((3,), 7, dtype="int32", device="cpu")
    np.testing.assert_array_equal((i + 2).numpy(), [9, 9, 9])
    with pytest.raises(jeet.JeetError):
        i + 0.5


def test_methods_and_properties(rng):
    a = randn(rng, 2, 3, 4)
    x = t(a)
    assert x.ndim == 3 and x.size == 24 and len(x) == 2
    assert x.reshape(6, 4).shape == (6, 4)
    assert x.reshape((4, -1)).shape == (4, 6)
    assert x.transpose(2, 0, 1).shape == (4, 2, 3)
    assert x.T.shape == (4, 3, 2)
    assert x.sum().shape == ()
    assert x.sum(axis=-1, keepdims=True).shape == (2, 3, 1)
    assert x.mean(axis=(0, 1)).shape == (4,)
    np.testing.assert_allclose(x.max(axis=1).numpy(), a.max(axis=1))
    # A float32 sum of values of both signs may land near zero, where its
    # relative error is large (seed 914137108: -0.003364, 6e-5 off): its
    # error is bounded by the sum of the magnitudes instead.
    np.testing.assert_allclose(float(x.sum()), a.astype(np.float64).sum(),
                               rtol=1e-5, atol=1e-6 * np.abs(a).sum())


# -- caching -----------------------------------------------------------------


def _graph(x, y):
    return jeet.relu(x @ y + 1.0)


def test_new_data_never_recompiles(rng):
    first = _graph(t(randn(rng, 24, 16)), t(randn(rng, 16, 8))).execute()
    before = jeet.cache_stats()
    for _ in range(3):
        a, b = randn(rng, 24, 16), randn(rng, 16, 8)
        out = _graph(t(a), t(b)).execute()
        ref = np.maximum(a.astype(np.float64) @ b + 1, 0)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    after = jeet.cache_stats()
    assert after["compilations"] == before["compilations"]
    assert after["cache_hits"] == before["cache_hits"] + 3
    assert first.shape == (24, 8)


def test_new_shape_compiles_once(rng):
    shape = (int(rng.integers(100, 200)), 3)  # a shape no other test uses
    before = jeet.cache_stats()
    for _ in range(3):
        (t(randn(rng, *shape)) * 2).sum(axis=0).execute()
    after = jeet.cache_stats()
    assert after["compilations"] == before["compilations"] + 1
    assert after["cache_hits"] == before["cache_hits"] + 2


def test_cache_stats_keys():
    stats = jeet.cache_stats()
    assert {"compilations", "cache_hits"} <= set(stats)


# -- jit ----------------------------------------------------------------------


def test_jit_traces_once_per_shape(rng):
    calls = []

    @jeet.jit
    def f(x, y):
        calls.append(1)
        return jeet.tanh(x * y + x).sum(axis=-1)

    for _ in range(3):
        a, b = randn(rng, 6, 5), randn(rng, 6, 5)
        out = f(t(a), t(b))
        af, bf = a.astype(np.float64), b.astype(np.float64)
        np.testing.assert_allclose(out.numpy(), np.tanh(af * bf + af).sum(-1),
                                   rtol=1e-4, atol=1e-5)
    assert f.num_traces == 1 and len(calls) == 1
    f(t(randn(rng, 2, 5)), t(randn(rng, 2, 5)))
    assert f.num_traces == 2
    f(t(randn(rng, 6, 5)), t(randn(rng, 6, 5)))
    f(t(randn(rng, 2, 5)), t(randn(rng, 2, 5)))
    assert f.num_traces == 2
    # A new dtype is a new trace too.
    f(jeet.ones(6, 5, dtype="f16", device="cpu"), jeet.ones(6, 5, dtype="f16", device="cpu"))
    assert f.num_traces == 3


def test_jit_does_not_recompile(rng):
    @jeet.jit
    def g(x):
        return (x * 3 - 1).relu()

    g(t(randn(rng, 9, 4)))
    before = jeet.cache_stats()
    for _ in range(4):
        a = randn(rng, 9, 4)
        np.testing.assert_allclose(g(t(a)).numpy(), np.maximum(a * 3.0 - 1, 0), rtol=1e-5)
    assert jeet.cache_stats()["compilations"] == before["compilations"]


def test_jit_multiple_outputs_and_static_args(rng):
    @jeet.jit
    def h(x, axis):
        return x.sum(axis=axis), x.max(axis=axis), x

    a = randn(rng, 4, 6)
    s, m, same = h(t(a), 1)
    np.testing.assert_allclose(s.numpy(), a.astype(np.float64).sum(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.numpy(), a.max(1))
    np.testing.assert_array_equal(same.numpy(), a)
    h(t(a), 0)
    assert h.num_traces == 2


def test_jit_takes_numpy_arrays(rng):
    """NumPy arrays are tensor arguments (copied in on each call, as
    jeet.from_numpy does): one trace per shape and dtype, float64 computed
    in float32, the data of each call used (not the first call's)."""
    @jeet.jit
    def f(x, w):
        return (x @ w).relu()

    for _ in range(3):
        a, b = randn(rng, 4, 5), randn(rng, 5, 3)
        out = f(a, b)
        assert isinstance(out, jeet.Tensor) and out.dtype == "float32"
        np.testing.assert_allclose(
            out.numpy(), np.maximum(a.astype(np.float64) @ b, 0), rtol=1e-5, atol=1e-6)
    assert f.num_traces == 1
    a64, b64 = rng.standard_normal((4, 5)), rng.standard_normal((5, 3))
    np.testing.assert_allclose(f(a64, b64).numpy(), np.maximum(a64 @ b64, 0),
                               rtol=1e-5, atol=1e-5)
    assert f.num_traces == 2
    # Mixed with a tensor; an array returned as it is comes back as a tensor.
    g = jeet.jit(lambda x, y: (x + y, y))
    a, b = randn(rng, 3, 2), randn(rng, 3, 2)
    total, same = g(t(a), b)
    np.testing.assert_allclose(total.numpy(), a + b, rtol=1e-6)
    np.testing.assert_array_equal(same.numpy(), b)
    with pytest.raises(TypeError, match="unsupported argument of type set"):
        f({1}, b)


def test_jit_captures_closure_tensors(rng):
    w = t(randn(rng, 5, 3))

    @jeet.jit
    def k(x):
        return x @ w

    a = randn(rng, 2, 5)
    np.testing.assert_allclose(k(t(a)).numpy(), a.astype(np.float64) @ w.numpy(),
                               rtol=1e-4, atol=1e-5)


def test_jit_keyword_arguments(rng):
    """Tensors and arrays given by keyword are inputs of the graph like
    positional ones (each call's data used); other keyword values are
    static."""
    @jeet.jit
    def f(x, w, *, bias, scale=1.0):
        return (x @ w + bias) * scale

    for _ in range(2):
        a, b, c = randn(rng, 4, 5), randn(rng, 5, 3), randn(rng, 3)
        got = f(t(a), w=b, bias=t(c), scale=2.0)
        np.testing.assert_allclose(got.numpy(), (a.astype(np.float64) @ b + c) * 2,
                                   rtol=1e-5, atol=1e-5)
    assert f.num_traces == 1
    f(t(a), w=b, bias=t(c), scale=3.0)
    assert f.num_traces == 2


def test_jit_inside_jit(rng):
    inner = jeet.jit(lambda x, w: (x @ w).relu())
    outer = jeet.jit(lambda x, w: inner(x, w).sum(axis=0))
    a, b = randn(rng, 4, 5), randn(rng, 5, 3)
    np.testing.assert_allclose(outer(t(a), t(b)).numpy(),
                               np.maximum(a.astype(np.float64) @ b, 0).sum(0),
                               rtol=1e-5, atol=1e-5)
    # Traced into the outer graph: the inner function was not traced alone.
    assert outer.num_traces == 1 and inner.num_traces == 0


def test_jit_control_flow_on_values_is_a_clear_error(rng):
    @jeet.jit
    def choose(x):
        return x if x.sum() > 0 else -x

    with pytest.raises(jeet.JeetError, match="values of choose's tensors are not "
                       "known while it is traced.*jeet.where"):
        choose(t(randn(rng, 3)))
    # Nothing is left half-traced: the function works without jit, and a
    # lazy tensor made outside a trace still executes.
    assert choose.__wrapped__(t(np.ones(3, np.float32))).numpy().tolist() == [1, 1, 1]
    assert bool((t(np.ones(3, np.float32)) + 1).sum() > 0)


# -- compile / explain ----------------------------------------------------------


def test_compile_and_explain(rng):
    x, w = t(randn(rng, 32, 16)), t(randn(rng, 16, 8))
    y = jeet.relu(x @ w + 1.0).sum(axis=1)
    compiled = jeet.compile(y)
    assert compiled.num_kernels >= 1
    assert "jeet.matmul" in compiled.ir("jeet")
    assert "func.func @main" in compiled.ir("jeet")
    assert "jeet.fusion" in compiled.ir("fused")
    assert any("jeet.matmul" in ops for ops in compiled.kernel_ops)
    text = jeet.explain(y)
    assert "kernel" in text and "jeet.matmul" in text and "peak" in text
    assert not y.is_materialized  # compile/explain do not execute
    with pytest.raises(jeet.JeetError, match="no PTX for the CPU backend"):
        compiled.ptx()
    y.execute()
    assert jeet.compile(y).num_kernels == compiled.num_kernels


def test_compile_and_explain_several_tensors(rng):
    """jeet.compile/explain(*tensors) show the one graph that
    jeet.execute(*tensors) runs: an output per distinct tensor, shared work
    once; after the execution, the graph that computed them."""
    x = t(randn(rng, 64, 32))
    centred = x - x.mean(axis=1, keepdims=True)
    var = (centred * centred).mean(axis=1)
    scaled = centred * 2.0
    both = jeet.compile(var, scaled, var)
    assert len(both.outputs) == 2
    assert both.outputs == [((64,), "float32"), ((64, 32), "float32")]
    assert both.ir("jeet").count("jeet.reduce_mean") == 2  # shared: once
    assert both.ir("jeet").count("jeet.sub") == 1
    assert "-> 2 output(s)" in jeet.explain(var, scaled)
    assert not var.is_materialized and not scaled.is_materialized
    # The same executable execute(*tensors) uses, from the cache.
    compilations = jeet.cache_stats()["compilations"]
    jeet.execute(var, scaled)
    assert jeet.cache_stats()["compilations"] == compilations
    assert jeet.compile(scaled, var).graph_text == both.graph_text
    x64 = x.numpy().astype(np.float64)
    c64 = x64 - x64.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(var.numpy(), (c64 * c64).mean(axis=1), rtol=1e-5)
    np.testing.assert_allclose(scaled.numpy(), c64 * 2.0, rtol=1e-5, atol=1e-6)


def test_compile_of_several_tensors_errors(rng):
    x = t(randn(rng, 8))
    done = (x + 1.0).execute()
    lazy = x * 2.0
    with pytest.raises(jeet.JeetError, match=r"jeet.compile: argument 0 is "
                       r"computed already and argument 1 is not"):
        jeet.compile(done, lazy)
    other = (x - 1.0).execute()
    with pytest.raises(jeet.JeetError, match="jeet.explain: the tensors were "
                       "computed by different graphs"):
        jeet.explain(done, other)
    with pytest.raises(jeet.JeetError,
                       match=r"a constant has no graph to compile \(argument 1\)"):
        # (A lazy constant is the frontends' own node, kept out of user code.)
        jeet.compile(lazy, jeet._tensor._constant(np.ones(3, np.float32), x._dtype))
    with pytest.raises(jeet.JeetError, match=r"created, not computed\) "
                       r"\(argument 0\): there is nothing to compile"):
        jeet.compile(x, x)
    with pytest.raises(TypeError, match=r"jeet.compile: expected jeet.Tensor, "
                       r"got ndarray \(argument 1\)"):
        jeet.compile(lazy, np.ones(3))
    with pytest.raises(jeet.ArgumentError, match="jeet.explain: expected at "
                       "least one jeet.Tensor"):
        jeet.explain()


def test_fusion_counts(rng):
    x = t(randn(rng, 64, 64))
    chain = x
    for _ in range(10):
        chain = chain + 1.0
    assert jeet.compile(chain).num_kernels == 1
    np.testing.assert_allclose(chain.numpy(), x.numpy() + 10, rtol=1e-6)


def test_reshapes_alone_are_views_not_kernels(rng):
    """A fusion group of reshapes alone bufferizes to a view of its
    operand: explain and num_kernels do not count it."""
    table = t(randn(rng, 100, 32))
    ids = jeet.from_numpy(rng.integers(0, 100, (4, 16)))
    rows = jeet.take(table, ids.reshape(-1)).reshape(4, 16, 32)
    out = jeet.softmax(rows, axis=-1)
    compiled = jeet.compile(out)
    assert compiled.num_kernels == 2
    assert [ops[0] for ops in compiled.kernel_ops] == ["jeet.gather", "jeet.reduce_max"]
    assert "jeet.reshape" not in jeet.explain(out)
    assert jeet.compile(jeet.exp(table.reshape(50, 64))).num_kernels == 1
    assert jeet.compile(table.reshape(3200)).num_kernels == 0
    np.testing.assert_allclose(
        out.numpy().reshape(64, 32),
        jeet.softmax(jeet.take(table, ids.reshape(-1)), axis=-1).numpy(), rtol=1e-6)


def test_attention_is_one_kernel(rng):
    """softmax(q @ k^T * scale) @ v on the CPU: one kernel (the scores and
    the softmax computed block of rows by block of rows); the transpose of k
    is read by the first matmul (the kernel lists it), not a kernel of its
    own."""
    q, k, v = (t(randn(rng, 2, 8, 4)) for _ in range(3))
    scores = jeet.matmul(q, jeet.transpose(k, [0, 2, 1])) * 0.5
    out = jeet.matmul(jeet.softmax(scores, axis=-1), v)
    compiled = jeet.compile(out)
    assert compiled.num_kernels == 1
    assert compiled.kernel_ops[0] == [
        "jeet.transpose", "jeet.matmul", "jeet.mul", "jeet.reduce_max",
        "jeet.sub", "jeet.exp", "jeet.reduce_sum", "jeet.div", "jeet.matmul"]
    assert "1 kernel(s):\n  kernel 0: jeet.transpose + jeet.matmul + " \
        "jeet.mul + jeet.reduce_max" in jeet.explain(out)
    q64, k64, v64 = (x.numpy().astype(np.float64) for x in (q, k, v))
    s = q64 @ k64.transpose(0, 2, 1) * 0.5
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(out.numpy(), p @ v64, rtol=1e-5, atol=1e-6)


def test_graph_text_has_no_locations_and_is_canonical(rng):
    a, b = t(randn(rng, 3, 3)), t(randn(rng, 3, 3))
    c, d = t(randn(rng, 3, 3)), t(randn(rng, 3, 3))
    text1 = jeet.compile((a + b).exp()).graph_text
    text2 = jeet.compile((c + d).exp()).graph_text
    assert text1 == text2
    assert "loc(" not in text1
    assert jeet.compile((a + a).exp()).graph_text != text1


# -- devices and memory ---------------------------------------------------------


def test_devices():
    devices = jeet.devices()
    assert devices[0]["name"] == "host" and devices[0]["available"]
    for d in devices:
        assert {"name", "kind", "available", "reason", "description"} <= set(d)
        if not d["available"]:
            assert d["reason"]


def test_memory_stats_and_empty_cache(rng):
    jeet.empty_cache()
    stats = jeet.memory_stats("cpu")
    for key in ("allocated_bytes", "reserved_bytes", "peak_allocated_bytes",
                "num_allocs", "num_frees", "cache_hits", "device_mallocs"):
        assert key in stats
    x = jeet.tensor(randn(rng, 256, 256), device="cpu")
    after = jeet.memory_stats("cpu")
    assert after["allocated_bytes"] >= stats["allocated_bytes"] + 256 * 256 * 4
    assert after["num_allocs"] > stats["num_allocs"]
    del x
    freed = jeet.memory_stats("cpu")
    assert freed["allocated_bytes"] < after["allocated_bytes"]
    jeet.empty_cache("cpu")
    assert jeet.memory_stats("cpu")["reserved_bytes"] <= freed["reserved_bytes"]


def test_buffers_are_recycled(rng):
    y = (t(randn(rng, 128, 128)) * 2).execute()
    del y
    before = jeet.memory_stats("cpu")
    y = (t(randn(rng, 128, 128)) * 2).execute()
    after = jeet.memory_stats("cpu")
    assert after["cache_hits"] > before["cache_hits"]


# -- errors -------------------------------------------------------------------


def test_error_hierarchy():
    assert issubclass(jeet.ShapeError, jeet.JeetError)
    assert issubclass(jeet.ShapeError, ValueError)
    for cls in (jeet.DeviceUnavailableError, jeet.OutOfMemoryError,
                jeet.CompilationError):
        assert issubclass(cls, jeet.JeetError)


def test_shape_error_matmul_is_eager():
    a = jeet.zeros(2, 3, device="cpu")
    b = jeet.zeros(4, 5, device="cpu")
    with pytest.raises(jeet.ShapeError) as info:
        jeet.matmul(a, b)
    message = str(info.value)
    assert "matmul" in message
    assert "(2, 3)" in message and "(4, 5)" in message
    with pytest.raises(ValueError):
        a @ b


@pytest.mark.parametrize("make", [
    lambda: jeet.add(jeet.zeros(2, 3, device="cpu"), jeet.zeros(4, 3, device="cpu")),
    lambda: jeet.zeros(2, 3, device="cpu") * jeet.zeros(3, 2, device="cpu"),
    lambda: jeet.reshape(jeet.zeros(2, 3, device="cpu"), (4, 2)),
    lambda: jeet.broadcast_to(jeet.zeros(2, 3, device="cpu"), (3, 3)),
    lambda: jeet.transpose(jeet.zeros(2, 3, device="cpu"), (0, 0)),
    lambda: jeet.sum(jeet.zeros(2, 3, device="cpu"), axis=2),
    lambda: jeet.softmax(jeet.zeros(2, 3, device="cpu"), axis=5),
    # A vector is promoted as numpy's matmul promotes it; its K must agree.
    lambda: jeet.matmul(jeet.zeros(4, device="cpu"), jeet.zeros(3, 3, device="cpu")),
    lambda: jeet.concatenate([jeet.zeros(2, 3, device="cpu"), jeet.zeros(2, 4, device="cpu")]),
    lambda: jeet.take(jeet.zeros(2, 3, device="cpu"), [0], axis=2),
    lambda: jeet.argmax(jeet.zeros(2, 3, device="cpu"), axis=-3),
    lambda: jeet.add(jeet.zeros(2, device="cpu"), jeet.zeros(2, dtype="i32", device="cpu")),
])
def test_shape_errors(make):
    with pytest.raises(jeet.ShapeError) as info:
        make()
    assert "jeet." in str(info.value)
    # One line naming the op and operands, without the verifier's note that
    # prints the op again in MLIR's generic form.
    assert "\n" not in str(info.value), str(info.value)


def test_shape_error_names_op_and_shapes():
    with pytest.raises(jeet.ShapeError) as info:
        jeet.zeros(2, 3, device="cpu") + jeet.zeros(4, 3, device="cpu")
    message = str(info.value)
    assert "add" in message and "(2, 3)" in message and "(4, 3)" in message


def test_unknown_dtype_and_device():
    with pytest.raises(jeet.JeetError, match="unknown dtype 'float64'"):
        jeet.tensor([2], dtype="float64")
    with pytest.raises(jeet.JeetError, match="unknown device 'tpu'"):
        jeet.tensor([2], device="tpu")
    with pytest.raises(ValueError):
        jeet.zeros(2, dtype="int8")
    with pytest.raises(jeet.JeetError):
        jeet.cast(jeet.zeros(2, device="cpu"), "complex64")


@no_gpu
def test_gpu_unavailable_error_has_reason():
    with pytest.raises(jeet.DeviceUnavailableError) as info:
        jeet.tensor([4, 4], device="gpu")
    message = str(info.value)
    assert "unavailable" in message and len(message) > len("device 'gpu' is unavailable: ")
    with pytest.raises(jeet.DeviceUnavailableError):
        jeet.zeros(2, device="cuda")
    with pytest.raises(jeet.DeviceUnavailableError):
        jeet.memory_stats("gpu")
    # Never a silent fallback: 'auto' is the only way to get the CPU instead.
    assert jeet.tensor([2], device="auto").device == "cpu"


@requires_gpu
def test_mixing_devices_is_an_error():
    with pytest.raises(jeet.JeetError, match="devices"):
        jeet.zeros(2, device="cpu") + jeet.zeros(2, device="gpu")


def test_out_of_memory_error_and_recovery():
    jeet.empty_cache("cpu")
    base = jeet.memory_stats("cpu")["reserved_bytes"]
    jeet.set_memory_limit(base + (4 << 20), "cpu")
    try:
        with pytest.raises(jeet.OutOfMemoryError) as info:
            jeet.zeros(64 << 20, dtype="float32", device="cpu")
        assert "256" in str(info.value) or "bytes" in str(info.value)
        assert isinstance(info.value, MemoryError)
    finally:
        jeet.set_memory_limit(0, "cpu")
    x = jeet.ones(1 << 20, device="cpu")
    assert float(x.sum()) == float(1 << 20)


def test_compilation_error_carries_diagnostic():
    from jeet import _jeet
    with pytest.raises(jeet.CompilationError) as info:
        _jeet.compile("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                      "  %0 = \"jeet.bogus\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
                      "  return %0 : tensor<2xf32>\n}\n")
    assert "jeet.bogus" in str(info.value)
    assert info.value.diagnostic
    assert "<graph>:" in info.value.diagnostic  # file:line:col


def test_oversized_result_number_is_a_compilation_error():
    """MLIR's parser sizes a table by a value use's result number before it
    checks it: `%r#2147483648` would exhaust memory and end the process. The
    compiler refuses it first, naming the line (a run in a subprocess, so a
    regression fails this test instead of killing the session)."""
    import subprocess
    import sys
    code = """
import jeet
from jeet import _jeet
_jeet.compile("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\\n"
              "  return %a : tensor<2xf32>\\n}\\n")
text = ("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\\n"
        "  %r:2 = jeet.fusion (%a) : (tensor<2xf32>) -> "
        "(tensor<2xf32>, tensor<2xf32>) {\\n"
        "  ^bb0(%x: tensor<2xf32>):\\n"
        "    jeet.yield %x, %x : tensor<2xf32>, tensor<2xf32>\\n  }\\n"
        "  return %r#2147483648 : tensor<2xf32>\\n}\\n")
try:
    _jeet.compile(text)
except jeet.CompilationError as error:
    print("raised:", error.diagnostic)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "raised: <graph>:6:10: error: value use '%r#2147483648' names " \
        "result number beyond 1048576" in done.stdout, done.stdout


def test_nothing_to_compile():
    with pytest.raises(jeet.JeetError):
        jeet.compile(jeet.zeros(3, device="cpu"))


def test_bad_operand_types():
    with pytest.raises(TypeError):
        jeet.zeros(3, device="cpu") + "a"
    with pytest.raises(jeet.JeetError):
        jeet.add(1, 2)


def _fake_cuda_driver():
    import os
    import pathlib
    here = pathlib.Path(__file__).resolve().parents[2]
    candidates = [os.environ.get("JEET_BUILD_DIR", ""), here / "build"]
    for c in candidates:
        if c and (pathlib.Path(c) / "lib" / "libjeet_fake_cuda.so").exists():
            return str(pathlib.Path(c) / "lib" / "libjeet_fake_cuda.so")
    return None


@pytest.mark.skipif(_fake_cuda_driver() is None,
                    reason="the fake CUDA driver (unit-test double) is not built")
def test_gpu_with_fake_driver_is_never_a_silent_fallback():
    """With a usable (fake) CUDA device, 'gpu' either runs on it or raises
    DeviceUnavailableError saying why; 'auto' never pretends."""
    import os
    import subprocess
    import sys
    code = (
        "import jeet\n"
        "ok, why = jeet._gpu_status()\n"
        "assert jeet.memory_stats('gpu')['device'] == 'cuda:0'\n"
        "try:\n"
        "    x = jeet.tensor([2], device='gpu')\n"
        "    assert ok and x.device == 'gpu'\n"
        "except jeet.DeviceUnavailableError as e:\n"
        "    assert not ok and why in str(e), (why, str(e))\n"
        "assert jeet.tensor([2]).device == ('gpu' if ok else 'cpu')\n"
        "assert jeet.cache_stats()['compilations'] == 0\n"
        "print('OK')\n"
    )
    env = dict(os.environ, JEET_CUDA_DRIVER=_fake_cuda_driver())
    result = subprocess.run([sys.executable, "-c", code], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "OK" in result.stdout


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32", "int64", "bool"])
def test_pickle_round_trip(dtype, rng):
    """Tensors pickle as their values, dtype and device (multiprocessing,
    saved results); a lazy tensor is computed first. copy and deepcopy give
    the tensor itself: it never changes."""
    import copy
    import pickle
    values = rng.standard_normal((3, 5)).astype(np.float32) * 100
    x = jeet.tensor(values > 0 if dtype == "bool" else values, dtype=dtype, device="cpu")
    for original in (x, x + x):
        restored = pickle.loads(pickle.dumps(original))
        assert restored.dtype == dtype and restored.shape == (3, 5)
        assert restored.device == "cpu" and restored.is_materialized
        np.testing.assert_array_equal(restored.numpy(), original.numpy())
    assert copy.copy(x) is x and copy.deepcopy([x])[0] is x


def test_dtype_spellings():
    """Jeet's names, NumPy's dtypes, scalar types and strings ('f4', '<i8',
    '?'), and torch's dtypes name the same dtypes; others are errors listing
    Jeet's."""
    for spelling, name in [("f4", "float32"), ("<f2", "float16"), ("i8", "int64"),
                           ("?", "bool"), (np.int32, "int32"), (np.dtype("f4"), "float32"),
                           ("bf16", "bfloat16"), (bool, "bool")]:
        assert jeet.zeros(2, dtype=spelling, device="cpu").dtype == name, spelling
    for bad in ("f8", "int8", "float64"):
        with pytest.raises(jeet.ArgumentError, match=f"unknown dtype '{bad}': expected one of"):
            jeet.zeros(2, dtype=bad, device="cpu")
    torch = pytest.importorskip("torch")
    for spelling, name in [(torch.float32, "float32"), (torch.half, "float16"),
                           (torch.bfloat16, "bfloat16"), (torch.int64, "int64"),
                           (torch.bool, "bool")]:
        assert jeet.zeros(2, dtype=spelling, device="cpu").dtype == name, spelling
    with pytest.raises(jeet.ArgumentError, match="unknown dtype 'float64'"):
        jeet.zeros(2, dtype=torch.float64, device="cpu")


def test_iteration_as_numpy(rng):
    a = randn(rng, 3, 4)
    rows = list(t(a))
    assert len(rows) == 3 and all(r.shape == (4,) for r in rows)
    np.testing.assert_array_equal(np.stack([r.numpy() for r in rows]), a)
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        list(t(a).sum())
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(t(a).sum())


def test_where_with_a_host_condition(rng):
    a, b = randn(rng, 3, 4), randn(rng, 3, 4)
    mask = rng.random((3, 4)) < 0.5
    np.testing.assert_array_equal(jeet.where(mask, t(a), t(b)).numpy(), np.where(mask, a, b))
    np.testing.assert_array_equal(jeet.where(mask.tolist(), t(a), 0.0).numpy(),
                                  np.where(mask, a, 0.0).astype(np.float32))
    # Truth values of numbers, as NumPy's.
    np.testing.assert_array_equal(jeet.where([0, 2, 0, -1], t(a), t(b)).numpy(),
                                  np.where([0, 2, 0, -1], a, b))
    with pytest.raises(TypeError, match="jeet.where: expected a jeet.Tensor, got str"):
        jeet.where("yes", t(a), t(b))


def test_asarray_takes_every_list_as_data(rng):
    """jeet.tensor takes a list of ints as a shape (the seed's API);
    jeet.asarray (and jeet.array) takes it as data, as numpy.asarray."""
    assert jeet.tensor([1, 0], device="cpu").shape == (1, 0)
    for data in ([1, 0], [[1, 2], [3, 4]], [1.5, 2], [True, False], 3, 2.5, (1, 2),
                 np.arange(3, dtype=np.int8), rng.standard_normal((2, 3))):
        got = jeet.asarray(data, device="cpu")
        want = np.asarray(data)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.astype(got.numpy().dtype))
    assert jeet.asarray([1, 0], device="cpu").dtype == "int64"
    assert jeet.asarray([1.5], device="cpu").dtype == "float32"
    assert jeet.array([[1, 2]], dtype="float16", device="cpu").dtype == "float16"
    x = jeet.asarray([1.0, 2.0], device="cpu")
    assert jeet.asarray(x) is x
    assert jeet.asarray(x, dtype="int32").numpy().tolist() == [1, 2]
    with pytest.raises(jeet.ArgumentError, match="not a rectangular array of numbers"):
        jeet.asarray([[1], [1, 2]])
    with pytest.raises(jeet.ArgumentError, match="not a rectangular array of numbers .it holds dict"):
        jeet.asarray([{}, {}])


def test_format_of_a_0d_tensor():
    """f"{loss:.4f}" of a 0-d tensor formats its value, as NumPy's and
    PyTorch's do; a tensor of several elements takes no format spec."""
    x = jeet.asarray([2.5, 1.0], device="cpu")
    assert f"{x.sum():.3f}" == "3.500" and f"{x.sum():8.2e}" == "3.50e+00"
    assert f"{jeet.asarray(7, device='cpu'):04d}" == "0007"
    assert f"{x}" == str(x)
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{x:.2f}"


def test_integer_0d_tensor_as_an_index():
    n = jeet.asarray(3, device="cpu")
    assert list(range(n)) == [0, 1, 2] and [10, 20, 30, 40][n] == 40
    assert np.arange(5)[n] == 3 and hex(n) == "0x3"
    with pytest.raises(TypeError, match="only integer 0-d tensors can be used as an index, got a float32"):
        range(jeet.asarray(2.0, device="cpu"))
    with pytest.raises(TypeError, match="of shape \\(2,\\)"):
        [1, 2][jeet.asarray([1, 0], device="cpu")]
