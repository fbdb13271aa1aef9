"""jeet.matmul with 1-D operands, promoted as numpy.matmul promotes them,
through jeet-run on the CPU and the GPU (the `run` fixture), on fresh random
inputs against a float64 numpy reference."""
import numpy as np
import pytest

from jeetrun import assert_close, mlir_type

# (lhs shape, rhs shape): vector-matrix, matrix-vector, dot, and vectors
# against batches on either side; K of 70 spans several K tiles with a
# remainder.
CASES = [((70,), (70, 33)), ((33, 70), (70,)), ((70,), (70,)),
         ((3, 5, 70), (70,)), ((70,), (2, 70, 9)), ((1,), (1, 4)),
         ((300,), (300,))]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shapes", CASES, ids=str)
def test_matmul_vectors(run, rng, shapes, dtype):
    a_shape, b_shape = shapes
    if dtype == np.int32:
        a = rng.integers(-50, 50, size=a_shape).astype(dtype)
        b = rng.integers(-50, 50, size=b_shape).astype(dtype)
    else:
        a = rng.standard_normal(a_shape).astype(dtype)
        b = rng.standard_normal(b_shape).astype(dtype)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    ta, tb = mlir_type(a.shape, dtype), mlir_type(b.shape, dtype)
    to = mlir_type(expected.shape, dtype)
    graph = (f"func.func @main(%a: {ta}, %b: {tb}) -> {to} {{\n"
             f"  %0 = jeet.matmul %a, %b : {ta}, {tb} -> {to}\n"
             f"  return %0 : {to}\n}}\n")
    (out,) = run(graph, [a, b])
    assert out.shape == expected.shape
    if dtype == np.int32:
        np.testing.assert_array_equal(out, expected.astype(np.int32))
        return
    # Sums of K products of unit normals, accumulated in f32.
    k = a_shape[-1]
    atol = (1e-5 if dtype == np.float32 else 4e-3) * np.sqrt(k) * 4
    rtol = 1e-5 if dtype == np.float32 else 2e-3
    assert_close(out, expected, rtol=rtol, atol=atol,
                 what=f"{a_shape} @ {b_shape}")


def test_matvec_epilogue(run, rng):
    # relu(A @ v + 1): the epilogue fuses with the promoted product.
    a = rng.standard_normal((64, 48)).astype(np.float32)
    v = rng.standard_normal(48).astype(np.float32)
    ta, tv, to = (mlir_type(s, np.float32) for s in ((64, 48), (48,), (64,)))
    graph = (f"func.func @main(%a: {ta}, %v: {tv}) -> {to} {{\n"
             f"  %one = jeet.constant dense<1.0> : tensor<f32>\n"
             f"  %0 = jeet.matmul %a, %v : {ta}, {tv} -> {to}\n"
             f"  %1 = jeet.add %0, %one : {to}, tensor<f32> -> {to}\n"
             f"  %2 = jeet.relu %1 : {to}\n"
             f"  return %2 : {to}\n}}\n")
    (out,) = run(graph, [a, v])
    expected = np.maximum(a.astype(np.float64) @ v + 1.0, 0.0)
    assert_close(out, expected, rtol=1e-5, atol=1e-4)
