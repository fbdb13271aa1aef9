"""Runs the example models (models.py) through Jeet's two frontends,
torch.compile(backend="jeet") and ONNX export + jeet.onnx.load, compares
each output with torch eager and prints what Jeet compiled.

    PYTHONPATH=build/python python3 examples/models/run.py [mlp transformer cnn]
"""

import os
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402

import jeet  # noqa: E402
import jeet.onnx  # noqa: E402
import jeet.torch  # noqa: E402


def max_rel_error(got, want):
    scale = max(1.0, float(np.max(np.abs(want))))
    return float(np.max(np.abs(np.asarray(got, np.float64) - want))) / scale


def run(name, workdir):
    model, inputs = models.BUILDERS[name]()
    with torch.no_grad():
        want = model(*inputs).numpy()
    print(f"== {name}: {sum(p.numel() for p in model.parameters())} parameters, "
          f"inputs {[tuple(x.shape) for x in inputs]}")

    compiled = torch.compile(model, backend="jeet")
    with torch.no_grad():
        got = compiled(*inputs)
    print(f"torch.compile(backend='jeet'): max relative error vs eager "
          f"{max_rel_error(got.numpy(), want):.2e}")
    print(jeet.torch.explain(model, *inputs))

    path = models.export_onnx(model, inputs, os.path.join(workdir, f"{name}.onnx"))
    try:
        loaded = jeet.onnx.load(path)
    except jeet.onnx.UnsupportedOpsError as error:
        print(f"ONNX export + jeet.onnx.load: unsupported by this build of Jeet "
              f"(missing ops: {', '.join(sorted(error.ops))})")
        return
    (got,) = loaded(*[x.numpy() for x in inputs])
    print(f"ONNX export + jeet.onnx.load: max relative error vs eager "
          f"{max_rel_error(got, want):.2e}")
    print(jeet.explain(got))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as workdir:
        for name in sys.argv[1:] or list(models.BUILDERS):
            run(name, workdir)
            print()
