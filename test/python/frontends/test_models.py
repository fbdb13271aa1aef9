"""The example models (examples/models/models.py: an MLP, a 2-layer
transformer encoder, a small CNN, a MobileNet-style network, fixed seeds)
through both frontends:
torch.compile(backend="jeet") and ONNX export + jeet.onnx.load. Outputs are
checked against the model run by torch eager in float64."""

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

import jeet  # noqa: E402
import jeet.onnx  # noqa: E402
import jeet.torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples", "models"))
import models  # noqa: E402

import frontends_summary  # noqa: E402,F401 (prints Report at the end)

# Small sizes: the tests check the frontends, bench/models.py the speed.
SIZES = {
    "mlp": dict(batch=8, inputs=64, hidden=48),
    "transformer": dict(batch=2, seq=16, dim=32, heads=4, hidden=64, vocab=50),
    "cnn": dict(batch=2, size=16),
    "mobile": dict(batch=2, size=64),
}

# ATen ops of each model that may run in torch: none, every node of the
# four models is in a Jeet partition.
TORCH_FALLBACKS = {"mlp": set(), "transformer": set(), "cnn": set(), "mobile": set()}

# ONNX ops of each model's export that a build of Jeet may not import: none.
ONNX_MAY_LACK = {"mlp": set(), "transformer": set(), "cnn": set(), "mobile": set()}


class Report:
    """How each example model went, for the summary at the end
    (frontends_summary.py): (model, frontend) -> text."""
    lines = {}


def float64_reference(model, inputs):
    """The model's output computed by torch eager in float64 (on a copy)."""
    import copy
    model = copy.deepcopy(model)
    with torch.no_grad():
        return model.double()(*[x.double() if x.is_floating_point() else x
                                for x in inputs]).float()


def build(name):
    model, inputs = models.BUILDERS[name](**SIZES[name])
    return model, inputs


def tolerance(want):
    scale = float(want.abs().max())
    return dict(rtol=1e-4, atol=1e-4 * max(scale, 1.0))


@pytest.mark.parametrize("name", sorted(models.BUILDERS))
def test_torch_compile_matches_eager(name):
    model, inputs = build(name)
    report = jeet.torch.explain(model, *inputs)
    fallbacks = {op for op, _, _ in report.fallbacks
                 if op not in ("<built-in function getitem>",)}
    assert fallbacks <= TORCH_FALLBACKS[name], str(report)
    assert report.partitions and report.num_kernels >= 1
    assert "kernel 0:" in str(report)
    compiled = torch.compile(model, backend="jeet")
    with torch.no_grad():
        got = compiled(*inputs)
    want = float64_reference(model, inputs)
    assert got.shape == want.shape and got.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), **tolerance(want))
    Report.lines[name, "torch.compile"] = (
        f"matches eager; {report.num_kernels} kernel(s)" + (
            f"; ATen ops left to torch in this build: "
            + ", ".join(sorted(fallbacks)) if fallbacks else "; no op left to torch"))


@pytest.mark.parametrize("name", sorted(models.BUILDERS))
def test_onnx_export_matches_eager(name, tmp_path):
    model, inputs = build(name)
    path = models.export_onnx(model, inputs, str(tmp_path / f"{name}.onnx"))
    try:
        compiled = jeet.onnx.load(path, device="cpu")
    except jeet.onnx.UnsupportedOpsError as error:
        # Keys are op types, some qualified ("Gather (on values computed at
        # run time)").
        missing = sorted({op.split(" ")[0] for op in error.ops})
        assert set(missing) <= ONNX_MAY_LACK[name], str(error)
        text = ", ".join(sorted(error.ops))
        Report.lines[name, "ONNX"] = f"UNSUPPORTED by this build: missing ops {text}"
        pytest.skip(f"{name}: ONNX export not supported by this build of Jeet; "
                    f"missing ops: {text}")
    (got,) = compiled(*[x.numpy() for x in inputs])
    want = float64_reference(model, inputs)
    np.testing.assert_allclose(np.asarray(got), want.numpy(), **tolerance(want))
    text = jeet.explain(got)
    assert "kernel 0:" in text and "jeet.matmul" in text
    Report.lines[name, "ONNX"] = f"matches eager; {compiled.num_kernels} kernel(s)"


def test_mlp_at_benchmark_size_repeats_exactly(tmp_path):
    """The MLP at bench/models.py's size (batch 64, 784-256-256-10), where
    its two hidden layers share one OpenMP region (a barrier between them,
    tiles handed out to whichever thread asks): calls on two inputs in turn
    match float64 and give the same bits every time, whichever thread
    computed which tile (a layer that read the previous one's output before
    it was complete would see the other input's values)."""
    model, inputs = models.BUILDERS["mlp"](batch=64, seed=3)
    path = models.export_onnx(model, inputs, str(tmp_path / "mlp.onnx"))
    compiled = jeet.onnx.load(path, device="cpu")
    generator = torch.Generator().manual_seed(4)
    xs = [inputs[0], torch.randn(inputs[0].shape, generator=generator)]
    firsts = []
    for x in xs:
        want = float64_reference(model, (x,))
        first = np.array(compiled(x.numpy())[0])
        np.testing.assert_allclose(first, want.numpy(), **tolerance(want))
        firsts.append(first)
    for call in range(100):
        got = np.asarray(compiled(xs[call % 2].numpy())[0])
        np.testing.assert_array_equal(got, firsts[call % 2])
