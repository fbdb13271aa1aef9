"""Graphs of hundreds of kernels in one block, numerically against float64.

A graph of many small independent kernels lowers to one long basic block;
the compiler moves pieces of it into functions of their own before code
generation (lib/Compiler/OutlineLongBlocks.cpp) and gives every kernel its
own destination before bufferization. Values cross those pieces: each
output here is checked, not only a sample of them.

Fan-out: each group of readers of a widely read tensor reads it through a
cast of its own before one-shot bufferization (jeet-group-shared-reads), and
the CSE after the lowering to linalg tells the kernels apart by their bodies
(jeet-kernel-cse). Both must leave every output as it was.
"""
import numpy as np

from jeet import _jeet

# Enough kernels for several pieces of the 256-instruction limit, and, as
# readers of one tensor, for many groups of a size above the minimum (the
# square root of 300 is 18).
KERNELS = 300


def _compile_and_run(text, inputs):
    exe = _jeet.compile(text, device="cpu", cached=False)
    outs = exe.run([_jeet.RuntimeTensor.from_array(x, "f32") for x in inputs])
    return [o.numpy() for o in outs]


def _types(count):
    return ", ".join("tensor<16xf32>" for _ in range(count))


def test_independent_outputs(rng):
    args = ", ".join(f"%a{i}: tensor<16xf32>" for i in range(KERNELS))
    types = _types(KERNELS)
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
    types = _types(KERNELS)
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


def test_fan_out_of_an_argument(rng):
    # The fan-out graph of bench/compile_time.py: x + i for every i.
    lines = [f"func.func @main(%x: tensor<16xf32>) -> ({_types(KERNELS)}) {{"]
    for i in range(KERNELS):
        lines.append(f"  %c{i} = jeet.constant dense<{i}.0> : tensor<f32>")
        lines.append(f"  %v{i} = jeet.add %x, %c{i} : tensor<16xf32>, "
                     "tensor<f32> -> tensor<16xf32>")
    results = ", ".join(f"%v{i}" for i in range(KERNELS))
    lines.append(f"  return {results} : {_types(KERNELS)}\n}}")
    x = rng.standard_normal(16).astype(np.float32)
    outs = _compile_and_run("\n".join(lines), [x])
    assert len(outs) == KERNELS
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out, x.astype(np.float64) + i, rtol=1e-6,
                                   err_msg=f"output {i}")


def test_fan_out_of_an_intermediate(rng):
    # A matmul's result (not fused into its readers) that most kernels read,
    # with different ops, a second input that many read too, and the
    # intermediate itself returned.
    square = "tensor<4x4xf32>"
    types = ", ".join(square for _ in range(KERNELS + 1))
    lines = [f"func.func @main(%x: {square}, %y: {square}) -> ({types}) {{",
             f"  %t = jeet.matmul %x, %y : {square}, {square} -> {square}"]
    for i in range(KERNELS):
        lines.append(f"  %c{i} = jeet.constant dense<{i}.25> : tensor<f32>")
        if i % 3 == 0:
            lines.append(f"  %v{i} = jeet.mul %t, %c{i} : {square}, "
                         f"tensor<f32> -> {square}")
        elif i % 3 == 1:
            lines.append(f"  %v{i} = jeet.sub %y, %t : {square}, {square} "
                         f"-> {square}")
        else:
            lines.append(f"  %s{i} = jeet.add %t, %c{i} : {square}, "
                         f"tensor<f32> -> {square}")
            lines.append(f"  %v{i} = jeet.mul %s{i}, %y : {square}, "
                         f"{square} -> {square}")
    results = ", ".join(["%t"] + [f"%v{i}" for i in range(KERNELS)])
    lines.append(f"  return {results} : {types}\n}}")
    x = rng.standard_normal((4, 4)).astype(np.float32)
    y = rng.standard_normal((4, 4)).astype(np.float32)
    outs = _compile_and_run("\n".join(lines), [x, y])
    t = x.astype(np.float64) @ y
    y64 = y.astype(np.float64)
    np.testing.assert_allclose(outs[0], t, rtol=1e-5, atol=1e-5)
    for i, out in enumerate(outs[1:]):
        c = i + 0.25
        want = (t * c, y64 - t, (t + c) * y64)[i % 3]
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4,
                                   err_msg=f"output {i}")
