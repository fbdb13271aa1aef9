"""Inputs and float64 numpy references for the AOT tests.

  reference.py gen DIR NAME   writes DIR/in0.npy, DIR/in1.npy, ... and DIR/ref.npy
  reference.py check OUT REF  prints "max error E: OK" or exits 1
"""
import sys

import numpy as np


def mlp(x, w1, b1, w2):
    return np.maximum(x @ w1 + b1, 0.0) @ w2


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


GRAPHS = {
    # name: (input shapes, reference)
    "mlp": ([(8, 16), (16, 32), (32,), (32, 4)], mlp),
    "softmax": ([(4, 10)], softmax),
    "bmm": ([(3, 4, 5), (3, 5, 6)], lambda a, b: a @ b),
}

if sys.argv[1] == "gen":
    out, name = sys.argv[2], sys.argv[3]
    shapes, fn = GRAPHS[name]
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    for i, a in enumerate(inputs):
        np.save(f"{out}/in{i}.npy", a)
    np.save(f"{out}/ref.npy", fn(*[a.astype(np.float64) for a in inputs]))
else:
    got, ref = np.load(sys.argv[2]), np.load(sys.argv[3])
    if got.shape != ref.shape:
        sys.exit(f"shape {got.shape} != reference {ref.shape}")
    err = float(np.max(np.abs(got.astype(np.float64) - ref) / (1.0 + np.abs(ref))))
    print(f"max error {err:.2e}: {'OK' if err < 1e-4 else 'TOO LARGE'}")
    sys.exit(0 if err < 1e-4 else 1)
