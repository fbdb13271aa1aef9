"""Runs torchvision's image models (random weights) through Jeet's two
frontends, torch.compile(backend="jeet") and ONNX export + jeet.onnx.load,
and compares each with the model in float64: the check behind the table in
docs/Frontends.md ("torchvision's models"). torchvision is not one of
Jeet's dependencies: install it (the wheel matching the installed torch) to
run this.

    PYTHONPATH=build/python python3 examples/models/torchvision_models.py \
        [resnet18 mobilenet_v3_small swin_t ...]
"""

import copy
import os
import sys
import tempfile
import time

import numpy as np
import torch

import jeet.onnx
import jeet.torch

DEFAULT = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
           "shufflenet_v2_x0_5", "squeezenet1_0", "googlenet", "densenet121",
           "mnasnet0_5", "regnet_y_400mf", "convnext_tiny", "swin_t", "vit_b_16",
           "efficientnet_v2_s", "resnext50_32x4d", "maxvit_t", "inception_v3"]


def relative_error(got, want):
    """The largest difference over the largest output magnitude (with
    random weights several models' outputs are tiny: 1e-9 and less)."""
    scale = float(np.max(np.abs(want)))
    difference = float(np.max(np.abs(np.asarray(got, np.float64) - want)))
    return difference / scale if scale > 0 else difference


def check(name, workdir):
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    size = 224 if name.startswith(("vit", "swin", "maxvit")) else 299 if name == "inception_v3" else 96
    x = torch.randn(2, 3, size, size)
    with torch.no_grad():
        want = copy.deepcopy(model).double()(x.double()).numpy()

    torch._dynamo.reset()
    start = time.perf_counter()
    with torch.no_grad():
        got = torch.compile(model, backend="jeet")(x).numpy()
    seconds = time.perf_counter() - start
    report = jeet.torch.explain(model, x)
    left = sorted({op for op, _, _ in report.fallbacks})
    print(f"{name:20s} torch.compile  error {relative_error(got, want):.1e}  "
          f"{report.num_kernels} kernels  first call {seconds:.1f} s  "
          f"left to torch: {', '.join(left) or 'nothing'}", flush=True)

    path = os.path.join(workdir, f"{name}.onnx")
    torch.onnx.export(model, (x,), path, dynamo=False, opset_version=17)
    start = time.perf_counter()
    loaded = jeet.onnx.load(path, device="cpu")
    (got,) = loaded(x.numpy())
    seconds = time.perf_counter() - start
    print(f"{name:20s} ONNX           error {relative_error(got, want):.1e}  "
          f"{jeet.compile(got).num_kernels} kernels  load and first call {seconds:.1f} s",
          flush=True)


if __name__ == "__main__":
    try:
        import torchvision  # noqa: F401
    except ImportError:
        sys.exit("torchvision is not installed: pip install torchvision (the "
                 "version matching your torch) to run these models")
    with tempfile.TemporaryDirectory() as workdir:
        for name in sys.argv[1:] or DEFAULT:
            check(name, workdir)
