"""The C++ jeet::Graph through the bindings: building, checking, printing."""

import numpy as np
import pytest

import jeet
from jeet import _jeet


def build_mlp():
    g = _jeet.Graph()
    x = g.add_input([4, 8], "f32")
    w = g.add_input([8, 3], "float32")
    b = g.add_constant(np.arange(3, dtype=np.float32), "f32")
    y = g.add_op("matmul", [x, w])
    z = g.add_op("jeet.add", [y, b])
    s = g.add_op("reduce_sum", [z], {"axes": [1], "keepdims": True})
    t = g.add_op("transpose", [s], {"permutation": [1, 0]})
    r = g.add_op("reshape", [t], result_shape=[4], result_dtype="f32")
    g.mark_output(r)
    g.mark_output(z)
    return g, (x, w, b, y, z, s, t, r)


def test_build_and_print():
    g, ids = build_mlp()
    assert list(ids) == list(range(8))
    assert g.num_inputs == 2 and g.num_outputs == 2 and g.num_values == 8
    assert g.type(ids[3]) == ((4, 3), "f32")
    assert g.type(ids[5]) == ((4, 1), "f32")
    text = g.print()
    assert "func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x3xf32>)" in text
    assert "-> (tensor<4xf32>, tensor<4x3xf32>)" in text
    assert "jeet.matmul" in text and "jeet.constant" in text
    assert "loc(" not in text


def test_equal_structure_prints_equal_text():
    assert build_mlp()[0].print() == build_mlp()[0].print()


def test_printed_graph_compiles_and_runs(rng):
    g, _ = build_mlp()
    exe = _jeet.compile(g.print(), device="cpu")
    assert [tuple(s) for s, _ in exe.inputs] == [(4, 8), (8, 3)]
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w = rng.standard_normal((8, 3)).astype(np.float32)
    outs = exe.run([_jeet.RuntimeTensor.from_array(x, "f32"),
                    _jeet.RuntimeTensor.from_array(w, "f32")])
    z = x.astype(np.float64) @ w + np.arange(3)
    np.testing.assert_allclose(outs[1].numpy(), z, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(outs[0].numpy(), z.sum(1), rtol=1e-4, atol=1e-5)


def test_graph_compiled_without_vectorizing(rng):
    """vectorize=False (a graph that runs once: work prepared from a model's
    weights at load) compiles to scalar loops, less code, the same results:
    a transpose, an elementwise chain and a reduction, against float64; the
    option is part of the executable's options (and its cache key)."""
    text = """func.func @main(%a: tensor<37x19xf32>) -> (tensor<19x37xf32>, tensor<37xf32>) {
  %t = jeet.transpose %a {permutation = array<i64: 1, 0>} : tensor<37x19xf32> -> tensor<19x37xf32>
  %e = jeet.exp %a : tensor<37x19xf32>
  %s = jeet.reduce_sum %e {axes = array<i64: 1>, keepdims = false} : tensor<37x19xf32> -> tensor<37xf32>
  return %t, %s : tensor<19x37xf32>, tensor<37xf32>
}"""
    a = rng.standard_normal((37, 19)).astype(np.float32)
    scalar = _jeet.compile(text, device="cpu", vectorize=False, keep_ir=True)
    vector = _jeet.compile(text, device="cpu", keep_ir=True)
    assert "vectorize=false" in scalar.options
    assert "vectorize=true" in vector.options
    assert "vector<" not in scalar.ir("llvm") and "vector<" in vector.ir("llvm")
    t, s = scalar.run([_jeet.RuntimeTensor.from_array(a, "f32")])
    np.testing.assert_array_equal(t.numpy(), a.T)
    np.testing.assert_allclose(s.numpy(), np.exp(a.astype(np.float64)).sum(1),
                               rtol=1e-5)


def test_invalid_ops_are_errors_not_crashes():
    g = _jeet.Graph()
    a = g.add_input([2, 3], "f32")
    b = g.add_input([4, 5], "f32")
    with pytest.raises(jeet.ShapeError, match="jeet.matmul"):
        g.add_op("matmul", [a, b])
    with pytest.raises(jeet.ShapeError, match="broadcast"):
        g.add_op("add", [a, b])
    with pytest.raises(jeet.ShapeError):
        g.add_op("transpose", [a], {"permutation": [0, 0]})
    with pytest.raises(jeet.ShapeError, match="permutation"):
        g.add_op("transpose", [a])  # missing attribute
    with pytest.raises(jeet.ShapeError):
        g.add_op("transpose", [a], {"permutation": True})  # wrong kind
    with pytest.raises(jeet.ShapeError, match="unknown jeet op"):
        g.add_op("frobnicate", [a])
    with pytest.raises(jeet.ShapeError):
        g.add_op("fusion", [a])
    with pytest.raises(jeet.ShapeError, match="result type"):
        g.add_op("reshape", [a])
    with pytest.raises(jeet.ShapeError):
        g.add_op("reshape", [a], result_shape=[7], result_dtype="f32")
    with pytest.raises(jeet.ShapeError, match="no value"):
        g.add_op("neg", [42])
    with pytest.raises(jeet.ShapeError):
        g.add_op("neg", [a, b])
    with pytest.raises(jeet.JeetError, match="unknown dtype"):
        g.add_input([2], "f64")
    with pytest.raises(jeet.JeetError, match="bytes"):
        g.add_constant(np.zeros(3, np.float32), "f16")
    # Failed ops leave nothing behind: the graph is still valid.
    n = g.add_op("neg", [a])
    g.mark_output(n)
    assert "jeet.neg" in g.print()
    assert "jeet.matmul" not in g.print()


def test_missing_attributes_and_graph_dtypes():
    # Type inference reports the attributes it needs, the verifier the rest.
    g = _jeet.Graph()
    a = g.add_input([2, 3], "f32")
    with pytest.raises(jeet.ShapeError, match="requires attribute 'axes'"):
        g.add_op("reduce_sum", [a])
    with pytest.raises(jeet.ShapeError, match="requires attribute 'axis'"):
        g.add_op("softmax", [a])
    with pytest.raises(jeet.ShapeError, match="unknown jeet op 'jeet.yield'"):
        g.add_op("yield", [a])
    # The runtime's dtype spellings, every one of which graphs take; others
    # are named with the list of the valid ones.
    assert g.type(g.add_input([2], "half")) == ((2,), "f16")
    assert g.type(g.add_input([2], "int64")) == ((2,), "i64")
    assert g.type(g.add_input([2], "bool")) == ((2,), "i1")
    with pytest.raises(jeet.JeetError, match="unknown dtype 'float64'.*i64.*i1"):
        g.add_input([2], "float64")


def test_graph_without_outputs():
    g = _jeet.Graph()
    g.add_input([2], "f32")
    with pytest.raises(jeet.CompilationError, match="no outputs"):
        g.print()


def test_infer_type():
    assert _jeet.infer_type("jeet.add", [([4, 1], "f32"), ([3], "f32")]) == ((4, 3), "f32")
    assert _jeet.infer_type("jeet.reduce_max", [([4, 5, 6], "bf16")],
                            {"axes": [0, 2]}) == ((5,), "bf16")
    assert _jeet.infer_type("jeet.pow", [([2], "i32"), ([2], "i32")]) == ((2,), "i32")
    with pytest.raises(jeet.ShapeError, match="jeet.pow"):
        _jeet.infer_type("jeet.pow", [([2], "i1"), ([2], "i1")])
