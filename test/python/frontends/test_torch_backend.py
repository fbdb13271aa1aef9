"""jeet.torch: torch.compile(backend="jeet") — numerics against float64,
partitions around nodes Jeet does not compile, per-shape caching, the
preparation of weights, inference only."""

import copy
import functools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import jeet  # noqa: E402
import jeet.torch  # noqa: E402
from jeet.torch import TrainingError  # noqa: E402


@pytest.fixture
def seed(rng):
    """A fresh seed for torch's generator (named in failures)."""
    value = int(rng.integers(0, 2**31))
    torch.manual_seed(value)
    return value


def compile_counting(fn):
    """torch.compile with the jeet backend, recording every specialisation
    compiled (one per graph and input shapes)."""
    compiled_specs = []
    backend = functools.partial(jeet.torch.backend, on_compile=compiled_specs.append)
    return torch.compile(fn, backend=backend), compiled_specs


def test_backend_name_is_registered():
    assert "jeet" in torch._dynamo.list_backends()
    from torch._dynamo.backends.registry import lookup_backend
    assert lookup_backend("jeet") is jeet.torch.backend


def test_elementwise_and_reductions_match_float64(seed):
    def fn(x, y):
        z = torch.tanh(x * y + 1.5) - torch.sigmoid(y) / (x.abs() + 1)
        return torch.softmax(z, dim=-1), z.sum(dim=0), z.mean(), torch.relu(z).amax(1)

    x, y = torch.randn(6, 9), torch.randn(6, 9)
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x, y)
    want = fn(x.double(), y.double())
    for g, w in zip(got, want):
        assert g.dtype == torch.float32 and g.shape == w.shape
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"seed {seed}")


def test_math_and_rounding_ops_run_in_jeet(seed):
    # The trigonometric, hyperbolic and rounding ops compile to one kernel;
    # floor, ceil and round of an int64 tensor are the tensor itself.
    def fn(x, u, w, i):
        trig = torch.tan(u) + torch.asin(u) * torch.acos(u) - torch.atan(x)
        hyper = torch.sinh(u) * torch.cosh(u) + torch.asinh(x) - torch.atanh(u)
        hyper = hyper + torch.acosh(w)
        rounded = torch.floor(x) - torch.ceil(x) * torch.round(x * 2.5)
        return trig, hyper, rounded, torch.floor(i) + torch.round(i)

    x = torch.randn(6, 9) * 3
    u = torch.rand(6, 9) * 1.8 - 0.9
    w = torch.rand(6, 9) * 4 + 1
    i = torch.randint(-50, 50, (6, 9))
    report = jeet.torch.explain(fn, x, u, w, i)
    assert report.num_kernels >= 1 and not report.fallbacks, report
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x, u, w, i)
    want = fn(x.double(), u.double(), w.double(), i)
    for g, w_ in zip(got[:3], want[:3]):
        assert g.dtype == torch.float32
        np.testing.assert_allclose(g.numpy(), w_.numpy(), rtol=1e-5, atol=1e-5,
                                   err_msg=f"seed {seed}")
    assert got[3].dtype == torch.int64
    np.testing.assert_array_equal(got[3].numpy(), (2 * i).numpy())


def test_causal_masks_run_in_jeet(seed):
    # tril/triu of any diagonal (a causal mask, its complement), which torch
    # decomposes into aranges compared, with the softmax that reads them:
    # nothing left to torch.
    def fn(x, b):
        scores = torch.tril(x) + torch.triu(x, diagonal=2) - torch.tril(x, -1)
        masked = scores.masked_fill(torch.triu(b, diagonal=1), float("-inf"))
        return torch.softmax(masked, dim=-1)

    x = torch.randn(3, 7, 7)
    b = torch.ones(7, 7, dtype=torch.bool)
    report = jeet.torch.explain(fn, x, b)
    assert not report.fallbacks, report
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x, b)
    want = fn(x.double(), b)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6,
                               err_msg=f"seed {seed}")


def test_arange_runs_in_jeet(seed):
    # Positions as the models make them: integer aranges with a start and a
    # step (rows of a table picked by indexing), float ones with a
    # fractional step.
    def fn(x, table):
        positions = torch.arange(2, 2 + 3 * x.shape[1], 3)
        angles = torch.arange(0.5, x.shape[1], 1.5) * 0.1
        scaled = x * angles[: x.shape[1] // 2 + 1].sum() + torch.arange(x.shape[1])
        return table[positions] + scaled.unsqueeze(-1), torch.arange(x.shape[1], dtype=torch.int32)

    x = torch.randn(4, 9)
    table = torch.randn(40, 5)
    report = jeet.torch.explain(fn, x, table)
    assert not report.fallbacks, report
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got, ints = compiled(x, table)
    want, want_ints = fn(x.double(), table.double())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5,
                               err_msg=f"seed {seed}")
    assert ints.dtype == torch.int32
    np.testing.assert_array_equal(ints.numpy(), want_ints.numpy())


def test_indexing_with_an_index_tensor_runs_in_jeet(seed):
    # x[idx] and x[:, idx] (negative indices count from the end), and flip
    # (a slice of step -1); two index tensors pair their elements.
    def fn(x, rows, cols):
        return x[rows] * 2, x[:, cols] + 1, x[rows, rows.flip(0)]

    x = torch.randn(6, 8, 3)
    rows = torch.tensor([[0, 5], [-1, 2]])
    cols = torch.tensor([7, 0, -3, 1], dtype=torch.int32)
    report = jeet.torch.explain(fn, x, rows, cols)
    assert not report.fallbacks, report
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x, rows, cols)
    want = fn(x, rows, cols)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"seed {seed}")


def test_advanced_indexing_with_several_index_tensors_runs_in_jeet(seed):
    # Index tensors broadcast together; adjacent indexed dimensions are
    # replaced in place by the broadcast shape, non-adjacent ones move it to
    # the front (x[i, :, j]); int32 and int64 indices, negative ones.
    def fn(x, i, j, k, m):
        return (x[i, j], x[:, j, k], x[i, :, k], x[i, j, k], x[..., j, m],
                x[:, :, k, m], x[i, :, :, m], x[:, j.unsqueeze(-1), k[:, 0]])

    x = torch.randn(5, 6, 7, 4)
    i = torch.randint(-5, 5, (3, 2))
    j = torch.randint(-6, 6, (2,), dtype=torch.int32)
    k = torch.randint(0, 7, (3, 1))
    m = torch.randint(-4, 4, (2,))
    report = jeet.torch.explain(fn, x, i, j, k, m)
    assert not report.fallbacks, report
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x, i, j, k, m)
    for n, (g, w) in enumerate(zip(got, fn(x, i, j, k, m))):
        assert g.shape == w.shape, f"output {n}"
        np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"output {n}, seed {seed}")


def test_gather_cumsum_cumprod_and_one_hot_run_in_jeet(seed):
    # torch.gather (as ONNX's GatherElements: one take at flat indices);
    # cumsum and cumprod as log-step scans, integers in int64 as torch sums
    # them; one_hot reaches the backend decomposed (an eq against an arange).
    F = torch.nn.functional

    def fn(x, index, ints, ids):
        return (torch.gather(x, 1, index), torch.gather(x, 0, index[:2, :4] % 5),
                torch.cumsum(x, 1), torch.cumsum(x, -1, dtype=torch.float16),
                torch.cumprod(x, 0), torch.cumsum(ints, 0), torch.cumprod(ints, 1),
                F.one_hot(ids, 9))

    x = torch.randn(5, 37)
    index = torch.randint(0, 37, (5, 11))
    ints = torch.randint(-3, 4, (6, 5), dtype=torch.int32)
    ids = torch.randint(0, 9, (2, 7))
    report = jeet.torch.explain(fn, x, index, ints, ids)
    assert not report.fallbacks, report
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x, index, ints, ids)
    want = fn(x.double(), index, ints, ids)
    for n, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"output {n}"
        if w.is_floating_point():
            # float16 partial sums rounded in another order: a few units in
            # the last place of values up to ~10.
            rtol = 1e-2 if g.dtype == torch.float16 else 1e-5
            np.testing.assert_allclose(g.double().numpy(), w.numpy(), rtol=rtol, atol=rtol,
                                       err_msg=f"output {n}, seed {seed}")
        else:
            assert g.dtype == w.dtype, f"output {n}"
            np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"output {n}")


def test_division_with_rounding_and_remainders_match_torch_exactly(seed):
    # Floor and truncating division, % and fmod, on floats and integers, to
    # the bit (signed zeros, 1 // 0.1 = 9, a zero float divisor), all in Jeet.
    def fn(a, b, i, j):
        return (torch.div(a, b, rounding_mode="floor"), torch.div(a, b, rounding_mode="trunc"),
                a // b, a % b, torch.fmod(a, b), a % 0.75, i // j, i % j, torch.fmod(i, j),
                torch.div(i, j, rounding_mode="trunc"), i % 5, -7 // j)

    a = torch.cat([torch.tensor([1.0, -1.0, 7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 3.0, 1e-3]),
                   torch.randn(30) * 10])
    b = torch.cat([torch.tensor([0.1, 0.1, 2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, -5.0]),
                   torch.rand(30) * 4 + 0.25])
    i = torch.randint(-100, 100, (4, 9))
    j = torch.randint(1, 12, (9,)) * (torch.randint(0, 2, (9,)) * 2 - 1)
    report = jeet.torch.explain(fn, a, b, i, j)
    assert not report.fallbacks, report
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(a, b, i, j)
    for k, (g, w) in enumerate(zip(got, fn(a, b, i, j))):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"output {k}, seed {seed}")
        if g.is_floating_point():
            numbers_ = ~w.isnan()
            assert torch.equal(g[numbers_].signbit(), w[numbers_].signbit()), \
                f"output {k}: signs of zeros"


def test_integer_pow_runs_in_jeet_exactly(seed):
    # Integer ** on int64 and int32, tensor and scalar exponents, negative
    # exponents in a tensor: torch's values to the bit, wrapping included.
    def fn(i, e, k):
        return i ** e, i ** 3, 2 ** e, k ** (e % 31).to(torch.int32), i ** (e - 8)

    i = torch.randint(-30, 30, (5, 7))
    e = torch.randint(0, 70, (7,))
    k = torch.randint(-9, 9, (5, 7), dtype=torch.int32)
    report = jeet.torch.explain(fn, i, e, k)
    assert not report.fallbacks, report
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(i, e, k)
    for n, (g, w) in enumerate(zip(got, fn(i, e, k))):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"output {n}, seed {seed}")


def test_linear_layers_and_layer_norm(seed):
    model = torch.nn.Sequential(torch.nn.Linear(12, 20), torch.nn.LayerNorm(20),
                                torch.nn.ReLU(), torch.nn.Linear(20, 3)).eval()
    x = torch.randn(5, 12)
    compiled = torch.compile(model, backend="jeet")
    with torch.no_grad():
        got = compiled(x)
        want = model.double()(x.double())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5,
                               err_msg=f"seed {seed}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_narrow_layer_norm_computes_in_float32(seed, dtype):
    """A float16 or bfloat16 LayerNorm of values near 300 (squared
    deviations past float16's 65504): computed in float32 and rounded once,
    as PyTorch does. Rounded per op, the variance was infinite in float16
    and every output 0."""
    weight, bias = torch.randn(64).to(dtype), torch.randn(64).to(dtype)

    def fn(x):  # a function of its own: modules share dynamo's cache entries
        return torch.nn.functional.layer_norm(x, (64,), weight, bias)

    x = (torch.randn(4, 64) * 100 + 300).to(dtype)
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x)
        want = torch.nn.functional.layer_norm(
            x.double(), (64,), weight.double(), bias.double())
    assert got.dtype == dtype
    # One rounding to the dtype: half a unit of its last place, and float32's
    # own error below it.
    ulp = 2.0 ** (-10 if dtype == torch.float16 else -7)
    np.testing.assert_allclose(got.double().numpy(), want.numpy(),
                               rtol=ulp, atol=ulp, err_msg=f"seed {seed}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_narrow_variance_computes_in_float32(seed, dtype):
    """torch.var of float16 values whose squared deviations sum past 65504
    (the variance itself ~10^4): in float32, rounded once, as PyTorch; the
    sum of squares was rounded to float16 first (infinite)."""
    def fn(x):
        return torch.var(x, dim=1), torch.var(x, dim=0, correction=0, keepdim=True)

    x = (torch.randn(4, 64) * 100 + 300).to(dtype)
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(x)
    want = fn(x.double())
    ulp = 2.0 ** (-10 if dtype == torch.float16 else -7)
    for g, w in zip(got, want):
        assert g.dtype == dtype and g.shape == w.shape
        np.testing.assert_allclose(g.double().numpy(), w.numpy(), rtol=ulp,
                                   err_msg=f"seed {seed}")


def _bn(x, weight, bias):
    mean = torch.linspace(280, 320, x.shape[1]).to(x.dtype)
    var = torch.linspace(50, 150, x.shape[1]).to(x.dtype)
    return torch.nn.functional.batch_norm(x, mean, var, weight, bias)


NARROW_COMPOSITES = {
    # (function, the multiple of PyTorch's error allowed). torch accumulates
    # a float16/bfloat16 cumsum in float32 (per op: 2.6 times its error).
    "cumsum": (lambda x, w, b: torch.cumsum(x.reshape(1, 256) / 30, 1), 1.25),
    # x * s - mean * s cancels for values near the mean (per op: 3 times).
    "batch_norm": (lambda x, w, b: _bn(x.reshape(4, 8, 8), w[:8], b[:8]), 1.25),
    # Folded into the convolution's filter and bias (PyTorch rounds the
    # convolution, then normalises): another computation, as accurate.
    "conv_batch_norm": (lambda x, w, b: _bn(torch.nn.functional.conv2d(
        x.reshape(1, 4, 8, 8), w.reshape(4, 4, 2, 2) / 16 + 1 / 16), w[:4], b[:4]), 3),
    # x / 3.3 with 3.3 rounded to the dtype first crossed an integer: off by one.
    "floor_div": (lambda x, w, b: torch.div(x, 3.3, rounding_mode="floor"), 1.25),
    "trunc_div": (lambda x, w, b: torch.div(x, 3.3, rounding_mode="trunc"), 1.25),
}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", list(NARROW_COMPOSITES))
def test_narrow_composites_compute_in_float32(seed, dtype, name):
    """Ops that the torch frontend builds from several jeet ops compute
    float16 and bfloat16 in float32 and round once, as PyTorch does: within
    a small multiple of PyTorch's own error of float64 (or half a unit of
    the dtype). Both round once at the end, and a value near a rounding
    boundary may round the other way there: half a unit further."""
    fn, factor = NARROW_COMPOSITES[name]
    x = (torch.randn(4, 64) * 100 + 300).to(dtype)
    w, b = torch.randn(64).to(dtype), torch.randn(64).to(dtype)
    torch._dynamo.reset()
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(x, w, b)
        eager = fn(x, w, b)
        want = fn(x.double(), w.double(), b.double())
    assert got.dtype == dtype
    scale = want.abs().max().item()
    ulp = 2.0 ** (-11 if dtype == torch.float16 else -8) * scale
    eager_err = (eager.double() - want).abs().max().item()
    err = (got.double() - want).abs().max().item()
    assert err <= max(factor * eager_err, eager_err + ulp), (
        err, eager_err, f"seed {seed}")


def test_explain_says_when_dynamo_captured_nothing(seed, monkeypatch):
    """Dynamo skips RNN modules by default: the backend sees no graph and
    the model runs in torch. explain says so instead of printing nothing;
    with allow_rnn the GRU's steps compile into Jeet."""
    gru = torch.nn.GRU(4, 6, batch_first=True).eval()
    x = torch.randn(2, 3, 4)
    torch._dynamo.reset()
    monkeypatch.setattr(torch._dynamo.config, "allow_rnn", False)
    report = jeet.torch.explain(gru, x)
    assert not report.specializations
    assert str(report).startswith("no graph: dynamo handed the backend nothing")
    assert "allow_rnn" in str(report)
    torch._dynamo.reset()
    monkeypatch.setattr(torch._dynamo.config, "allow_rnn", True)
    report = jeet.torch.explain(gru, x)
    assert report.partitions and not report.fallbacks, str(report)
    with torch.no_grad():
        got = torch.compile(gru, backend="jeet")(x)[0]
        want = copy.deepcopy(gru).double()(x.double())[0]
    np.testing.assert_allclose(got.double().numpy(), want.numpy(), rtol=1e-5, atol=1e-5,
                               err_msg=f"seed {seed}")
    torch._dynamo.reset()


def test_unsupported_node_splits_the_graph(seed):
    def fn(x):
        a = torch.exp(x) * 2.0
        b = torch.logcumsumexp(a, dim=1)    # no Jeet converter: runs in torch
        return torch.relu(b - 1.0).sum(dim=1)

    x = torch.randn(4, 8)
    report = jeet.torch.explain(fn, x)
    fallbacks = [op for op, _, _ in report.fallbacks]
    assert fallbacks == ["aten.logcumsumexp.default"], str(report)
    assert "no Jeet converter for this op" in report.fallbacks[0][2]
    assert len(report.partitions) == 2
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x)
    want = fn(x.double())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5,
                               err_msg=f"seed {seed}")


def test_ops_with_tuple_results_stay_in_one_partition(seed):
    # Batch norm decomposes to an op with a tuple result and a getitem: the
    # getitem must not split batch norm from the relu after it.
    model = torch.nn.Sequential(torch.nn.BatchNorm1d(6), torch.nn.ReLU()).eval()
    with torch.no_grad():
        model[0].running_mean.normal_()
        model[0].running_var.uniform_(0.5, 1.5)
    x = torch.randn(4, 6)
    # After another nn.Sequential called with another shape, dynamo traces
    # this one again, with dynamic shapes, its parameters and buffers as
    # inputs, and the getitems of batch norm's statistics (which Jeet does
    # not compute and nothing reads) left in the graph.
    other = torch.nn.Sequential(torch.nn.Linear(12, 20), torch.nn.LayerNorm(20)).eval()
    with torch.no_grad():
        torch.compile(other, backend="jeet")(torch.randn(5, 12))
    report = jeet.torch.explain(model, x)
    assert len(report.partitions) == 1 and not report.fallbacks, str(report)
    with torch.no_grad():
        got = torch.compile(model, backend="jeet")(x)
        want = model.double()(x.double())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5,
                               err_msg=f"seed {seed}")


def test_a_result_jeet_does_not_compute_leaves_its_op_to_torch(seed):
    # Batch norm's converter computes its output, not its saved statistics:
    # when one of those is read, the op runs in torch.
    def fn(x, mean, var):
        out, saved, _ = torch.ops.aten._native_batch_norm_legit_no_training(
            x, None, None, mean, var, 0.1, 1e-5)
        return torch.relu(out), saved

    x, mean, var = torch.randn(4, 6), torch.randn(6), torch.rand(6) + 0.5
    report = jeet.torch.explain(fn, x, mean, var)
    reasons = {op: reason for op, _, reason in report.fallbacks}
    assert "is not computed by Jeet" in reasons.get(
        "aten._native_batch_norm_legit_no_training.default", ""), str(report)
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(x, mean, var)
    want = fn(x, mean, var)
    assert torch.allclose(got[0], want[0], atol=1e-6) and torch.equal(got[1], want[1])


def test_inputs_returned_unchanged_are_not_passed_to_the_graph(seed):
    # A partition that returns an input as it is (a clone) reads it in no
    # graph: the inputs it does read keep their positions.
    def fn(x, y, z):
        return x.clone(), torch.relu(y) * z, z.clone(), torch.exp(x) - y

    x, y, z = torch.randn(4, 5), torch.randn(4, 5), torch.randn(4, 5)
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(x, y, z)
    want = fn(x.double(), y.double(), z.double())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-6,
                                   err_msg=f"seed {seed}")
    with torch.no_grad():
        got = torch.compile(lambda a, b: (a.clone(), torch.relu(b)),
                            backend="jeet")(x, y)
    assert torch.equal(got[0], x) and torch.equal(got[1], torch.relu(y))


def test_float64_runs_in_torch():
    def fn(x):
        return torch.exp(x) + 1

    x = torch.randn(3, dtype=torch.float64)
    report = jeet.torch.explain(fn, x)
    assert not report.partitions
    assert all("not a Jeet dtype" in reason for _, _, reason in report.fallbacks)
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(x)
    assert got.dtype == torch.float64
    np.testing.assert_allclose(got.numpy(), fn(x).numpy(), rtol=1e-12)


def test_half_precision(seed):
    def fn(x, y):
        return torch.relu(x @ y) * 0.5

    x = torch.randn(8, 16, dtype=torch.float16)
    y = torch.randn(16, 4, dtype=torch.float16)
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(x, y)
    assert got.dtype == torch.float16
    want = fn(x.double(), y.double())
    np.testing.assert_allclose(got.double().numpy(), want.numpy(), rtol=1e-2,
                               atol=1e-2, err_msg=f"seed {seed}")


def test_non_contiguous_inputs(seed):
    def fn(x):
        return x * 3.0 + 1.0

    x = torch.randn(5, 7).t()
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(x)
    np.testing.assert_allclose(got.numpy(), (x.double() * 3.0 + 1.0).numpy(),
                               rtol=1e-6, atol=1e-6)
    # A slice of rows is contiguous at an offset into its base (shared, not
    # copied); one of columns is not (copied).
    base = torch.randn(9, 7)
    for view in (base[3:], base[:, 2:]):
        with torch.no_grad():
            got = torch.compile(fn, backend="jeet")(view)
        np.testing.assert_allclose(got.numpy(), (view.double() * 3.0 + 1.0).numpy(),
                                   rtol=1e-6, atol=1e-6, err_msg=f"seed {seed}")


def test_compiled_once_per_shape():
    def fn(x):
        return torch.sigmoid(x) * x - 0.25

    compiled, specs = compile_counting(fn)
    before = jeet.cache_stats()["compilations"]
    shapes = [(4, 13), (4, 13), (6, 13), (4, 13), (6, 13), (9, 13), (9, 13)]
    with torch.no_grad():
        for shape in shapes:
            x = torch.randn(*shape)
            np.testing.assert_allclose(compiled(x).numpy(), (fn(x.double())).numpy(),
                                       rtol=1e-6, atol=1e-6)
    # Jeet compiles one graph per distinct shape, whether dynamo traced the
    # graph statically or made it dynamic after the second shape (a dynamic
    # graph is specialised per shape; equal specialisations share the
    # compiled graph through Jeet's cache).
    assert jeet.cache_stats()["compilations"] - before == 3
    assert {tuple(s.partitions[0].executable.inputs[0][0]) for s in specs} == {
        (4, 13), (6, 13), (9, 13)}


def test_a_graph_that_is_one_partition_is_called_directly(seed):
    """A graph Jeet compiles whole is called without the FX module in
    between, with its results in the graph's order (a tuple result picked
    apart as the graph's getitems do); a graph with ops left to torch runs
    through the FX module. Both give the same values call after call."""
    def whole(x, y):
        return torch.relu(x @ y), torch.sigmoid(x).sum(0), x * 2.0

    def split(x, y):
        # float64 stays in torch: two partitions around it.
        return (torch.relu(x @ y).double() * 2.0).float() + 1.0

    for fn, direct in ((whole, True), (split, False)):
        compiled, specs = compile_counting(fn)
        with torch.no_grad():
            for _ in range(3):
                x, y = torch.randn(5, 7), torch.randn(7, 3)
                got = compiled(x, y)
                want = fn(x.double(), y.double())
                got, want = ((got,), (want,)) if direct is False else (got, want)
                assert len(got) == len(want)
                for g, w in zip(got, want):
                    np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5,
                                               atol=1e-5, err_msg=f"seed {seed}")
        assert (specs[0]._direct is not None) == direct, fn.__name__


def test_weights_are_prepared_once_and_again_when_changed(seed):
    model = torch.nn.Linear(6, 4).eval()
    x = torch.randn(2, 6)
    report = jeet.torch.explain(model, x)
    (partition,) = report.partitions
    # The transposed weight is prepared: the graph's only kernel is the
    # matmul with its bias epilogue.
    assert partition.prep_executable is not None
    assert [k for k in partition.executable.kernel_ops] == [["jeet.matmul", "jeet.add"]]
    assert "prepared once from parameters" in str(report)
    compiled = torch.compile(model, backend="jeet")
    with torch.no_grad():
        np.testing.assert_allclose(compiled(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)
        model.weight.mul_(2.0)        # in place: the preparation runs again
        np.testing.assert_allclose(compiled(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_training_is_refused_with_a_clear_error():
    model = torch.nn.Linear(3, 2)
    compiled = torch.compile(model, backend="jeet")
    with pytest.raises(Exception) as error:
        compiled(torch.randn(4, 3))
    assert isinstance(error.value, TrainingError) or isinstance(
        error.value.__cause__, TrainingError) or "TrainingError" in str(error.value)
    assert "compiles inference only" in str(error.value)
    assert "torch.no_grad()" in str(error.value)


def test_inputs_that_require_grad_are_refused():
    def fn(x):
        return x * 2

    with pytest.raises(Exception, match="compiles inference only.*requires grad"):
        torch.compile(fn, backend="jeet")(torch.randn(3, requires_grad=True))


def test_backend_options_are_refused():
    with pytest.raises(Exception, match="takes one option, 'freeze'; got 'fuse'"):
        torch.compile(lambda x: x + 1, backend="jeet", options={"fuse": False})(torch.randn(2))
    with pytest.raises(Exception, match="option 'freeze' is True or False, got 'yes'"):
        torch.compile(lambda x: x + 1, backend="jeet", options={"freeze": "yes"})(torch.randn(2))


def _frozen_cnn():
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3, padding=1, groups=8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 16, 1), torch.nn.Flatten(), torch.nn.Linear(16 * 36, 10)).eval()


def test_frozen_weights_are_constants_of_the_graph(seed):
    """options={"freeze": True}: the parameters and buffers, and the work
    prepared from them (batch norm folded, the linear layer's transposed
    weight), are constants of the graph, compiled at the first call; the
    results match float64, and a weight changed in place (or replaced)
    compiles the graph again on its new values."""
    model = _frozen_cnn()
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
    torch._dynamo.reset()
    specs = []
    backend = functools.partial(jeet.torch.backend, on_compile=specs.append)
    compiled = torch.compile(model, backend=backend, options={"freeze": True})
    x = torch.randn(2, 3, 6, 6)
    with torch.no_grad():
        for change in ("nothing", "in place", "replaced"):
            if change == "in place":
                model[0].weight.mul_(-2.0)
            elif change == "replaced":
                model[7].weight = torch.nn.Parameter(torch.randn(10, 16 * 36),
                                                     requires_grad=False)
            got = compiled(x)
            want = model.double()(x.double())
            model.float()
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4,
                                       err_msg=f"seed {seed}, {change} changed")
    # (A replaced Parameter is a new graph input for dynamo: a second graph.)
    for spec in specs:
        (partition,) = spec.partitions
        assert partition.freeze
        # The graph takes x alone: every weight is in it as a constant.
        header = partition.graph_text.splitlines()[1]
        assert header.count("%arg") == 1, header
        assert "jeet.constant" in partition.graph_text
        assert not partition.leaves


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_frozen_weights_in_half_precision(seed, dtype):
    """Frozen float16 and bfloat16 weights (NumPy lacks bfloat16: its
    values go through float32, which holds them exactly) give what the same
    weights give as arguments, to the dtype's rounding."""
    model = torch.nn.Sequential(torch.nn.Linear(12, 9), torch.nn.GELU(),
                                torch.nn.Linear(9, 5)).eval().to(dtype)
    x = torch.randn(4, 12).to(dtype)
    results = {}
    for freeze in (False, True):
        torch._dynamo.reset()
        compiled = torch.compile(model, backend="jeet", options={"freeze": freeze})
        with torch.no_grad():
            results[freeze] = compiled(x).float().numpy()
    np.testing.assert_allclose(results[True], results[False], rtol=2**-7, atol=2**-9)
    with torch.no_grad():
        want = model.double()(x.double()).numpy()
    np.testing.assert_allclose(results[True], want, rtol=0.05, atol=0.05,
                               err_msg=f"seed {seed}")


def _with_and_without_freeze(model, x):
    """{freeze: (result as NumPy, the compiled graph's one partition)} for
    a copy of `model` compiled with options={"freeze": freeze}."""
    runs = {}
    for freeze in (False, True):
        torch._dynamo.reset()
        specs = []
        backend = functools.partial(jeet.torch.backend, on_compile=specs.append)
        compiled = torch.compile(copy.deepcopy(model), backend=backend,
                                 options={"freeze": freeze})
        with torch.no_grad():
            result = compiled(x).numpy()
        (partition,) = specs[0].partitions
        runs[freeze] = (result, partition)
    return runs


def test_without_freeze_weights_stay_arguments(seed):
    """Without freeze the same model takes its weights as arguments (the
    graph's header names them); with it they are not arguments, and both
    agree to float32 rounding."""
    runs = _with_and_without_freeze(_frozen_cnn(), torch.randn(1, 3, 6, 6))
    for freeze, (_, partition) in runs.items():
        header = partition.graph_text.splitlines()[1]
        assert (header.count("%arg") == 1) == freeze, header
    np.testing.assert_allclose(runs[True][0], runs[False][0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("hw, k", [(6, 3), (6, 1), (3, 3)], ids=str)
def test_parameter_filters_at_few_positions_take_the_transposed_form(seed, hw, k):
    """A convolution by parameters (arguments of the graph, batch norm
    folded into them) at 36 or 9 output positions gets the form the
    compiler gives a constant filter there (positions as the matmul's
    rows), the filter's transpose prepared once with the batch norm's scale:
    the same kernels as with the weights frozen, no kernel of the graph
    transposing a filter. The first product's transpose back to NCHW and
    the second convolution's transpose of its input cancel through the
    bias and the ReLU (jeet-cancel-transposes): the first keeps (positions,
    channels), the second stores NCHW by its tiles at 36 positions;
    against float64."""
    model = torch.nn.Sequential(
        torch.nn.Conv2d(24, 48, k, padding=k // 2), torch.nn.BatchNorm2d(48),
        torch.nn.ReLU(), torch.nn.Conv2d(48, 32, 1), torch.nn.ReLU()).eval()
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 24, hw, hw)
    with torch.no_grad():
        want = copy.deepcopy(model).double()(x.double()).numpy()
    kernels = {}
    for freeze, (got, partition) in _with_and_without_freeze(model, x).items():
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5,
                                   err_msg=f"seed {seed}, freeze {freeze}")
        kernels[freeze] = [list(k) for k in partition.executable.kernel_ops]
    assert kernels[False] == kernels[True], kernels
    assert ["jeet.transpose", "jeet.matmul", "jeet.add", "jeet.relu"] in kernels[False], \
        kernels[False]
    # (Products of fewer than 16 rows store their transpose in a kernel of
    # its own.)
    if hw * hw >= 16:
        assert ["jeet.matmul", "jeet.transpose", "jeet.add", "jeet.relu"] in kernels[False]
    else:
        assert ["jeet.matmul"] in kernels[False], kernels[False]
        assert ["jeet.transpose", "jeet.add", "jeet.relu"] in kernels[False], kernels[False]
    assert ["jeet.transpose"] not in kernels[False], kernels[False]


def _panels_conv():
    model = torch.nn.Sequential(
        torch.nn.Conv2d(32, 1088, 1), torch.nn.BatchNorm2d(1088), torch.nn.ReLU()).eval()
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
    return model, torch.randn(1, 32, 3, 3), "tensor<17x32x64xf32>"


def _panels_mlp():
    model = torch.nn.Sequential(torch.nn.Linear(80, 1100), torch.nn.GELU(),
                                torch.nn.Linear(1100, 40)).eval()
    return model, torch.randn(3, 80), "tensor<18x80x64xf32>"


@pytest.mark.parametrize("make", [_panels_conv, _panels_mlp], ids=["conv", "linear"])
def test_parameters_read_by_few_rows_are_prepared_in_panels(seed, make):
    """A 1x1 convolution at 3x3 positions into 1,088 channels (batch norm
    folded in) and a linear layer of 1,100 outputs applied to 3 rows read
    their weights prepared in panels of 64 columns (python/jeet/
    _frontends.py: 17 panels of (32, 64), 18 of (80, 64), the last padded):
    the same values as frozen weights and as float64."""
    model, x, prepared = make()
    with torch.no_grad():
        want = copy.deepcopy(model).double()(x.double()).numpy()
    runs = _with_and_without_freeze(model, x)
    for freeze, (got, _) in runs.items():
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5,
                                   err_msg=f"seed {seed}, freeze {freeze}")
    np.testing.assert_allclose(runs[False][0], runs[True][0], rtol=1e-5, atol=1e-6)
    partition = runs[False][1]
    assert partition.prep_executable is not None
    assert prepared in partition.graph_text.splitlines()[1]


def test_installed_package_declares_the_entry_point():
    import importlib
    import pathlib
    import tomllib
    pyproject = pathlib.Path(__file__).resolve().parents[3] / "python" / "pyproject.toml"
    table = tomllib.loads(pyproject.read_text())["project"]["entry-points"]
    target = table["torch_dynamo_backends"]["jeet"]
    module, _, name = target.partition(":")
    assert getattr(importlib.import_module(module), name) is jeet.torch.backend
    # The frontends' packages are extras, never dependencies of `jeet`.
    project = tomllib.loads(pyproject.read_text())["project"]
    assert project["optional-dependencies"]["torch"] == ["torch"]
    assert project["optional-dependencies"]["onnx"] == ["onnx"]
    assert not {"torch", "onnx", "onnxruntime"} & set(project["dependencies"])


# --------------------------------------------------------------------------
# Tensors across the boundary (DLPack, no copies)
# --------------------------------------------------------------------------


def _allocated():
    return jeet.memory_stats("cpu")["allocated_bytes"]


def test_inputs_are_not_copied_into_jeet(seed):
    # A 4 MiB input reduced to 4 KiB: a copy of the input would be in Jeet's
    # allocator during the call (its peak); shared through DLPack, Jeet
    # allocates the result alone.
    def fn(x):
        return (x * x).sum(dim=1)

    x = torch.randn(1024, 1024)
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        compiled(x)
        before = _allocated()
        jeet.reset_peak_memory_stats("cpu")
        got = compiled(x)
    peak = jeet.memory_stats("cpu")["peak_allocated_bytes"] - before
    assert peak < x.nbytes // 8, f"Jeet allocated {peak} bytes for a {x.nbytes}-byte input"
    np.testing.assert_allclose(got.numpy(), fn(x.double()).numpy(), rtol=1e-5,
                               err_msg=f"seed {seed}")


def test_results_are_jeet_memory_shared_with_torch(seed):
    # The torch result is Jeet's buffer: it stays allocated in Jeet's
    # allocator while torch holds it (a copy would have freed it), and goes
    # back when torch drops it.
    def fn(x):
        return torch.exp(x) * 2.0

    x = torch.randn(256, 256)
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        compiled(x)
        before = _allocated()
        y = compiled(x)
    assert _allocated() - before >= y.nbytes
    np.testing.assert_allclose(y.numpy(), fn(x.double()).numpy(), rtol=1e-6,
                               err_msg=f"seed {seed}")
    y.fill_(0.0)                      # the caller's own memory: no other call sees it
    with torch.no_grad():
        np.testing.assert_allclose(compiled(x).numpy(), fn(x.double()).numpy(),
                                   rtol=1e-6)
    del y
    assert _allocated() == before


def test_parameters_are_read_in_place(seed):
    # The runtime tensors of parameters are their torch memory (kept while
    # unchanged, so no per-call import), and a result computed from
    # parameters alone, kept for the calls to come, is copied for the caller.
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(6, 4)

        def forward(self, x):
            return self.linear(x), self.linear.weight.t() * 2.0

    model = Model().eval()
    x = torch.randn(3, 6)
    compiled, specs = compile_counting(model)
    with torch.no_grad():
        got, doubled = compiled(x)
        (partition,) = specs[0].partitions
        pointers = {np.from_dlpack(jeet.Tensor._wrap(rt, "cpu")).ctypes.data
                    for rt in partition._static_rts.values()}
        doubled.fill_(0.0)
        again = compiled(x)
        want = model(x)
    assert pointers and pointers <= {p.data_ptr() for p in model.parameters()}
    np.testing.assert_allclose(got.numpy(), want[0].numpy(), rtol=1e-5, atol=1e-6,
                               err_msg=f"seed {seed}")
    np.testing.assert_allclose(again[1].numpy(), want[1].numpy(), rtol=1e-6)


def _check_in_jeet(fn, inputs, seed, rtol=1e-5, atol=1e-5):
    """fn compiled wholly into Jeet partitions (no ATen op left to torch)
    and matching fn in float64."""
    report = jeet.torch.explain(fn, *inputs)
    fallbacks = {op for op, _, _ in report.fallbacks
                 if op != "<built-in function getitem>"}
    assert not fallbacks, str(report)
    with torch.no_grad():
        got = torch.compile(fn, backend="jeet")(*inputs)
        want = fn(*[x.double() if x.is_floating_point() else x for x in inputs])
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"seed {seed}"
        if not w.is_floating_point():
            assert g.dtype == w.dtype, f"seed {seed}"
        np.testing.assert_allclose(g.double().numpy(), w.double().numpy(),
                                   rtol=rtol, atol=atol, err_msg=f"seed {seed}")


def test_indexing_and_data_movement_run_in_jeet(seed):
    F = torch.nn.functional

    def fn(table, ids, x, cols):
        e = F.embedding(ids, table)                  # (2, 5, 6)
        picked = torch.index_select(x, 1, cols)      # (7, 5)
        a, b, c = torch.split(x, [2, 3, 2], dim=1)   # pieces of (7, 7)
        joined = torch.cat([c, a, b * 2], dim=1)
        padded = F.pad(x[1:6:2, ::2], (1, 2, 0, 1), value=-3.0)
        return (e.sum(-1), picked, joined, padded, x[:, 3],
                torch.argmax(x, 1), torch.argmin(x, 0, keepdim=True),
                torch.amin(x, 1), torch.prod(x[:, :3], 0),
                F.gelu(x), F.gelu(x, approximate="tanh"))

    table, x = torch.randn(11, 6), torch.randn(7, 7)
    ids, cols = torch.randint(0, 11, (2, 5)), torch.randint(0, 7, (5,))
    _check_in_jeet(fn, (table, ids, x, cols), seed)


def test_convolution_and_pooling_run_in_jeet(seed):
    F = torch.nn.functional

    def fn(x, w, b, g, s):
        y = F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2))
        z = F.conv2d(x, g, None, padding=1, groups=2)
        return (F.max_pool2d(y, 2), F.avg_pool2d(z, 3, 2, 1),
                F.avg_pool2d(z, 3, 2, 1, count_include_pad=False),
                F.max_pool2d(z, 3, 1, 1, dilation=2),
                F.conv1d(x[:, :, 0], s, padding=1))

    x = torch.randn(2, 4, 9, 10)
    w, b = torch.randn(6, 4, 3, 3), torch.randn(6)
    g, s = torch.randn(6, 2, 3, 3), torch.randn(5, 4, 3)
    _check_in_jeet(fn, (x, w, b, g, s), seed, rtol=1e-4, atol=1e-4)


def test_resampling_and_padding_modes_run_in_jeet(seed):
    """Upsampling (nearest, bilinear and bicubic, both corner conventions,
    a scale that is not a whole number) and the padding modes that repeat
    elements: all of them gathers and weighted sums in Jeet."""
    F = torch.nn.functional

    def fn(x):
        return (F.interpolate(x, scale_factor=2, mode="nearest"),
                F.interpolate(x, scale_factor=2, mode="bilinear"),
                F.interpolate(x, size=(7, 4), mode="bilinear", align_corners=True),
                F.interpolate(x, scale_factor=1.5, mode="bicubic"),
                F.interpolate(x, size=(9, 11), mode="bicubic", align_corners=True),
                F.pad(x, (2, 1, 1, 2), mode="reflect"),
                F.pad(x, (1, 3, 0, 2), mode="replicate"),
                F.pad(x, (2, 2, 1, 1), mode="circular"))

    _check_in_jeet(fn, (torch.randn(2, 3, 5, 6),), seed)


def test_slice_and_select_scatters_run_in_jeet(seed):
    """Writes into slices (with steps, from the end, broadcast, of another
    dtype) as their functional ops, and a slice assigned in place."""
    def fn(x, y, r, v):
        z = x.clone()
        z[:, 1:4] = y
        z[1] = 0.5
        return (torch.slice_scatter(x, y, 1, 1, 4),
                torch.slice_scatter(x, y[:, :2], 1, 1, 5, 2),
                torch.slice_scatter(x, r, 0, -2),
                torch.select_scatter(x, v, 1, -1),
                torch.select_scatter(x, v.to(torch.float16), 1, 2),
                z)

    x, y = torch.randn(4, 6), torch.randn(4, 3)
    r, v = torch.randn(2, 6), torch.randn(4)
    _check_in_jeet(fn, (x, y, r, v), seed)


def test_ceil_mode_pooling_and_strided_views_run_in_jeet(seed):
    """Pooling with ceil_mode (SqueezeNet's and GoogLeNet's max pools; the
    average with and without the padding counted) and as_strided views of
    a contiguous tensor (ConvNeXt's pooled features restrided: a reshape;
    a sliding window: a take)."""
    F = torch.nn.functional

    def fn(x, v):
        return (F.max_pool2d(x, 3, 2, ceil_mode=True),
                F.max_pool2d(x, 2, 2, 1, ceil_mode=True),
                F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                torch.as_strided(x[:, :1].mean((2, 3), keepdim=True) * 2,
                                 (2, 1, 1, 1), (1, 1, 1, 1)),
                torch.as_strided(v * 1.5, (4, 3), (2, 1), 1))

    _check_in_jeet(fn, (torch.randn(2, 3, 10, 9), torch.randn(12)), seed)


def test_any_and_all_run_in_jeet(seed):
    """torch.any and torch.all (ViT's attention checks its mask with
    any): of booleans and of floats, over one axis, several, or all."""
    def fn(x, m):
        return (torch.any(m, 1), torch.all(m, 0, keepdim=True), torch.any(x > 1.5),
                torch.all(x != 0, dim=(0, 2)), x.any(-1), m.all())

    x = torch.randn(4, 5, 3)
    x[1, 2] = 0.0
    m = torch.randn(4, 5) > 0.3
    _check_in_jeet(fn, (x, m), seed)


def test_int64_and_bool_inputs_cross_without_a_copy():
    # Indices and masks are shared through DLPack like float tensors: the
    # runtime tensor is over the torch tensor's memory.
    from jeet.torch._backend import to_runtime
    ids = torch.tensor([[3, 1], [0, 2]], dtype=torch.int64)
    mask = ids > 1
    for t in (ids, mask):
        rt = to_runtime(t)
        assert rt.data_ptr == t.data_ptr()
        np.testing.assert_array_equal(np.from_dlpack(jeet.Tensor._wrap(rt, "cpu")),
                                      t.numpy())


class _Attention(torch.nn.Module):
    """examples/models' self-attention: one projection for queries, keys and
    values, split into heads, scaled dot products, softmax, the heads merged
    back, the output projection."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, x):
        batch, seq, dim = x.shape
        qkv = self.qkv(x).reshape(batch, seq, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        scores = (q @ k.transpose(-2, -1)) * (dim // self.heads) ** -0.5
        context = torch.softmax(scores, dim=-1) @ v
        return self.out(context.transpose(1, 2).reshape(batch, seq, dim))


def test_attention_keeps_its_batch_dimensions(seed):
    # torch views a linear layer's (batch, seq, features) input as rows and a
    # batched matmul's (batch, head, ...) operands as one batch: the matmuls
    # take the tensors as they were, so no reshape kernel is left around a
    # linear layer, and K's transpose folds into the scores' matmul instead
    # of being copied: the ONNX export's kernels (20 for the example
    # transformer, 58 before; reshapes alone are views, not counted). The
    # scores, the softmax and the product with V are one attention kernel
    # over the (batch, head) matrices, which reads Q, K and V in place as
    # slices of the projection's stacked result (no copy kernels).
    model = _Attention(16, 2).eval()
    x = torch.randn(3, 10, 16)
    report = jeet.torch.explain(model, x)
    assert not report.fallbacks and len(report.partitions) == 1
    # The graph's kernels (those of the weights' preparation come after).
    kernels = [line.split(": ", 1)[1] for line in str(report).splitlines()
               if line.strip().startswith("kernel ")]
    graph_kernels = kernels[:report.partitions[0].num_kernels]
    assert graph_kernels[0].startswith("jeet.matmul + jeet.add"), graph_kernels
    assert graph_kernels[-1].startswith("jeet.matmul + jeet.add"), graph_kernels
    assert any("jeet.transpose + jeet.matmul + jeet.mul + jeet.reduce_max" in k
               and k.split("  (")[0].endswith("jeet.reshape + jeet.matmul")
               for k in graph_kernels), graph_kernels
    assert not any(k.startswith("jeet.slice  (") for k in graph_kernels), graph_kernels
    assert report.num_kernels == 5, str(report)
    compiled = torch.compile(model, backend="jeet")
    with torch.no_grad():
        got = compiled(x)
        want = model.double()(x.double())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5,
                               err_msg=f"seed {seed}")


def test_linear_layer_on_rows_of_a_batch(seed):
    # A linear layer on (batch, seq, features), with and without a bias, and
    # addmm with a bias of whole rows (added to the flat product).
    def fn(x, w, b, c):
        y = torch.nn.functional.linear(x, w, b)
        z = torch.nn.functional.linear(torch.relu(y), w.t()[:5])
        rows = torch.addmm(c, x.reshape(-1, 7), w.t())
        return y, z, rows

    x, w = torch.randn(2, 3, 7), torch.randn(5, 7)
    b, c = torch.randn(5), torch.randn(6, 5)
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x, w, b, c)
    want = fn(x.double(), w.double(), b.double(), c.double())
    for g, w_ in zip(got, want):
        assert g.shape == w_.shape
        np.testing.assert_allclose(g.numpy(), w_.numpy(), rtol=1e-5, atol=1e-5,
                                   err_msg=f"seed {seed}")


def test_batch_norm_folds_into_the_convolution_before_it(seed):
    # A batch norm that alone reads a convolution's result becomes that
    # convolution's filter and bias, scaled once from the parameters: each
    # call's epilogue is the bias and the relu only. A convolution whose
    # result is read twice keeps the batch norm as an epilogue of its own.
    class Model(torch.nn.Module):
        def __init__(self, bias, groups):
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 6, 3, padding=1, bias=bias, groups=groups)
            self.bn = torch.nn.BatchNorm2d(6)

        def forward(self, x):
            return torch.relu(self.bn(self.conv(x)))

    class Shared(Model):
        def forward(self, x):
            y = self.conv(x)
            return torch.relu(self.bn(y)), y

    x = torch.randn(2, 4, 8, 8)
    for model, folded in ((Model(True, 1), True), (Model(False, 2), True),
                          (Shared(True, 1), False)):
        model.eval()
        with torch.no_grad():
            model.bn.running_mean.normal_()
            model.bn.running_var.uniform_(0.5, 1.5)
            model.bn.weight.uniform_(0.5, 1.5)
            model.bn.bias.normal_()
        report = str(jeet.torch.explain(model, x))
        # The graph each call runs, without the preparation graph's kernels.
        per_call = report.split("prepared once")[0]
        assert ("jeet.mul" not in per_call) == folded, report
        with torch.no_grad():
            got = torch.compile(model, backend="jeet")(x)
            want = model.double()(x.double())
        for g, w in zip(*(t if isinstance(t, tuple) else (t,) for t in (got, want))):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-5,
                                       err_msg=f"seed {seed}")


def test_inputs_that_require_grad_under_no_grad(seed):
    # Under no_grad a graph is inference even when an input requires grad:
    # its memory is shared with Jeet every call (the __dlpack__ protocol
    # would refuse such a tensor; torch's to_dlpack takes it), and the answer
    # follows the input's values when they change in place.
    lin = torch.nn.Linear(5, 3)
    x = torch.randn(4, 5, requires_grad=True)
    compiled = torch.compile(lambda v: torch.relu(lin(v)) * 2.0, backend="jeet")
    for _ in range(2):
        with torch.no_grad():
            got = compiled(x)
            want = torch.relu(torch.nn.functional.linear(
                x.double(), lin.weight.double(), lin.bias.double())) * 2.0
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=f"seed {seed}")
            x.mul_(-1.5)  # in place between calls


def _compile_noting_aot(monkeypatch, fn):
    """torch.compile with the jeet backend, noting whether the graph went
    through AOT autograd (whose runtime wrapper then runs on every call)."""
    from jeet.torch import _backend
    through_aot = []

    def noting(*args, **kwargs):
        through_aot.append(True)
        return aot(*args, **kwargs)

    aot = _backend.aot_module_simplified
    monkeypatch.setattr(_backend, "aot_module_simplified", noting)
    return torch.compile(fn, backend="jeet"), through_aot


def test_inference_graphs_are_called_without_aot_autograd(seed, monkeypatch):
    # Nothing requires grad (or grad is off): the ATen graph is traced
    # directly and dynamo calls Jeet's graph with no wrapper in between.
    model = torch.nn.Sequential(torch.nn.Linear(12, 8), torch.nn.GELU(),
                                torch.nn.LayerNorm(8), torch.nn.Linear(8, 3)).eval()
    for grad_off in (True, False):
        torch._dynamo.reset()
        if not grad_off:
            model.requires_grad_(False)
        compiled, through_aot = _compile_noting_aot(monkeypatch, model)
        x = torch.randn(5, 12)
        with torch.set_grad_enabled(not grad_off):
            got = compiled(x)
        with torch.no_grad():
            want = model.double()(x.double())
            model.float()
        np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-5,
                                   atol=1e-5, err_msg=f"seed {seed}")
        assert through_aot == [], f"grad off: {grad_off}"
    model.requires_grad_(True)


def test_input_mutations_and_views_of_inputs_go_through_aot_autograd(seed, monkeypatch):
    # What AOT autograd's wrapper does at run time stays its to do: an input
    # changed in place is changed in the caller's tensor, and a result that
    # is a view of an input stays one (writing to it writes to the input).
    def mutates(x):
        x.mul_(2.0)
        return torch.sigmoid(x) + 1.0

    def returns_a_view(x):
        return torch.sigmoid(x) * 3.0, x.t()

    for fn in (mutates, returns_a_view):
        torch._dynamo.reset()
        compiled, through_aot = _compile_noting_aot(monkeypatch, fn)
        x = torch.randn(4, 6)
        original = x.clone()
        with torch.no_grad():
            got = compiled(x)
        assert through_aot == [True], fn.__name__
        want = fn(original.double())
        if fn is mutates:
            np.testing.assert_allclose(x.numpy(), original.numpy() * 2.0, rtol=0,
                                       atol=0, err_msg=f"seed {seed}")
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=f"seed {seed}")
        else:
            np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=f"seed {seed}")
            got[1][0, 0] = 42.0
            assert x[0, 0].item() == 42.0


def test_replaced_weights_are_prepared_again(seed):
    # A parameter whose storage is swapped (`.data = ...`: same tensor,
    # same version counter, another address) or that is replaced by a new
    # Parameter is read anew and its preparation (the transposed weight)
    # runs again.
    model = torch.nn.Linear(6, 4).eval()
    x = torch.randn(3, 6)
    compiled = torch.compile(model, backend="jeet")
    # (`.data = ...` leaves the version counter as it was: the address tells.)
    with torch.no_grad():
        for before in ("nothing", "data", "parameter"):
            if before == "data":
                model.weight.data = torch.randn(4, 6)
            elif before == "parameter":
                model.weight = torch.nn.Parameter(torch.randn(4, 6), requires_grad=False)
            np.testing.assert_allclose(compiled(x).numpy(), model(x).numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=f"seed {seed}, {before} changed")


def test_dynamic_inference_graphs_are_called_without_aot_autograd(seed, monkeypatch):
    # After a second batch size dynamo makes the batch symbolic: the graph is
    # still traced directly, once per batch size seen (the weights prepared
    # once for all of them), and matches float64 on every call.
    model = torch.nn.Sequential(torch.nn.Linear(10, 6), torch.nn.ReLU(),
                                torch.nn.Linear(6, 3)).eval()
    torch._dynamo.reset()
    compiled, through_aot = _compile_noting_aot(monkeypatch, model)
    before = jeet.cache_stats()["compilations"]
    with torch.no_grad():
        for batch in (3, 5, 7, 5, 3):
            x = torch.randn(batch, 10)
            got = compiled(x)
            want = model.double()(x.double())
            model.float()
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6,
                                       err_msg=f"seed {seed}, batch {batch}")
    assert through_aot == []
    # Batches 3, 5 and 7, and the weights' preparation: each compiled once.
    assert jeet.cache_stats()["compilations"] - before == 4


def test_topk_runs_in_jeet(seed):
    # torch.topk (a classifier's top-5, and the smallest along another dim):
    # values as torch's; indices too where no two values tie (torch leaves
    # the order of equal values open, Jeet puts the lower index first).
    def fn(x):
        probs = torch.softmax(x, dim=-1)
        top, where = torch.topk(probs, 5)
        low, low_at = torch.topk(x, 2, dim=0, largest=False)
        return top * 100, where, low, low_at

    x = torch.randn(4, 50)
    report = jeet.torch.explain(fn, x)
    assert not report.fallbacks, report
    compiled = torch.compile(fn, backend="jeet")
    with torch.no_grad():
        got = compiled(x)
    want = fn(x.double())
    for n, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"output {n}"
        if w.is_floating_point():
            np.testing.assert_allclose(g.double().numpy(), w.numpy(), rtol=1e-5, atol=1e-6,
                                       err_msg=f"output {n}, seed {seed}")
        else:
            assert g.dtype == torch.int64
            np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"output {n}")
