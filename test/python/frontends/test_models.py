"""The example models (examples/models/models.py: an MLP, a 2-layer
transformer encoder, a small CNN, fixed seeds) through both frontends:
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

# Small sizes: the tests check the frontends, bench/models.py the speed.
SIZES = {
    "mlp": dict(batch=8, inputs=64, hidden=48),
    "transformer": dict(batch=2, seq=16, dim=32, heads=4, hidden=64, vocab=50),
    "cnn": dict(batch=2, size=16),
}

# ATen ops of each model that run in torch (Jeet has no converter for them
# yet); every other node of the model must be in a Jeet partition.
TORCH_FALLBACKS = {
    "mlp": set(),
    "transformer": {"aten.embedding.default", "aten.gelu.default",
                    "aten.slice.Tensor", "aten.alias.default"},
    "cnn": {"aten.convolution.default", "aten.max_pool2d_with_indices.default",
            "aten.avg_pool2d.default"},
}

# The models whose ONNX export Jeet imports completely.
ONNX_MODELS = ["mlp"]


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


@pytest.mark.parametrize("name", ONNX_MODELS)
def test_onnx_export_matches_eager(name, tmp_path):
    model, inputs = build(name)
    path = models.export_onnx(model, inputs, str(tmp_path / f"{name}.onnx"))
    compiled = jeet.onnx.load(path, device="cpu")
    (got,) = compiled(*[x.numpy() for x in inputs])
    want = float64_reference(model, inputs)
    np.testing.assert_allclose(np.asarray(got), want.numpy(), **tolerance(want))
    text = jeet.explain(got)
    assert "kernel 0:" in text and "jeet.matmul" in text
