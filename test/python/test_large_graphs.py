"""Graphs of hundreds of kernels in one block, numerically against float64.

A graph of many small independent kernels lowers to one long basic block;
the compiler moves pieces of it into functions of their own before code
generation (lib/Compiler/OutlineLongBlocks.cpp) and gives every kernel its
own destination before bufferization. Values cross those pieces: each
output here is checked, not only a sample of them.
"""
import numpy as np

from jeet import _jeet

# Enough kernels for several pieces of the 256-instruction limit.
KERNELS = 300


def _compile_and_run(text, inputs):
    exe = _jeet.compile(text, device="cpu", cached=False)
    outs = exe.run([_jeet.RuntimeTensor.from_array(x, "f32") for x in inputs])
    return [o.numpy() for o in outs]


def test_independent_outputs(rng):
    args = ", ".join(f"%a{i}: tensor<16xf32>" for i in range(KERNELS))
    types = ", ".join("tensor<16xf32>" for _ in range(KERNELS))
    body = "\n".join(
        f"  %v{i} = jeet.mul %a{i}, %a{(i + 1) % KERNELS} : tensor<16xf32>, "
        "tensor<16xf32> -> tensor<16xf32>" for i in range(KERNELS))
    results = ", ".join(f"%v{i}" for i in range(KERNELS))
    text = (f"func.func @main({args}) -> ({types}) {{\n{body}\n"
            f"  return {results} : {types}\n}}")
    xs = [rng.standard_normal(16).astype(np.float32) for _ in range(KERNELS)]
    outs = _compile_and_run(text, xs)
    assert len(outs) == KERNELS
    for i, out in enumerate(outs):
        want = xs[i].astype(np.float64) * xs[(i + 1) % KERNELS]
        np.testing.assert_allclose(out, want, rtol=1e-6, err_msg=f"output {i}")


def test_fan_out_with_intermediates(rng):
    # One input through a shared intermediate to many outputs, each with its
    # own constant: the pieces take the intermediate's buffer from the first.
    types = ", ".join("tensor<16xf32>" for _ in range(KERNELS))
    lines = ["func.func @main(%x: tensor<16xf32>, %y: tensor<16xf32>) -> "
             f"({types}) {{",
             "  %t = jeet.matmul %x, %y : tensor<16xf32>, tensor<16xf32> "
             "-> tensor<f32>"]
    for i in range(KERNELS):
        lines.append(f"  %c{i} = jeet.constant dense<{i}.5> : tensor<16xf32>")
        lines.append(f"  %v{i} = jeet.add %c{i}, %t : tensor<16xf32>, "
                     "tensor<f32> -> tensor<16xf32>")
    results = ", ".join(f"%v{i}" for i in range(KERNELS))
    lines.append(f"  return {results} : {types}\n}}")
    x = rng.standard_normal(16).astype(np.float32)
    y = rng.standard_normal(16).astype(np.float32)
    outs = _compile_and_run("\n".join(lines), [x, y])
    dot = x.astype(np.float64) @ y
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out, np.full(16, i + 0.5) + dot, rtol=1e-5,
                                   atol=1e-5, err_msg=f"output {i}")
