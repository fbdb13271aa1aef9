"""jeet.onnx: importing ONNX models, calling them, and every error a user
can meet (bad files, opsets, dynamic dimensions, dtypes, call-time
mismatches, unsupported ops)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import jeet  # noqa: E402
import jeet.onnx  # noqa: E402
from jeet.onnx import OnnxImportError, UnsupportedOpsError  # noqa: E402
from conftest import requires_gpu  # noqa: E402

BUILD = os.environ.get("JEET_BUILD_DIR", os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "build"))


def make_model(nodes, inputs, outputs, initializers=(), opset=18, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs,
                              initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def conv_relu_model(wt, b, x_shape, pad=0, stride=1, group=1):
    """Conv(x, W, B) with W = `wt` and B = `b` as initializers, then Relu:
    y = relu(conv(x)) for x of `x_shape`, square padding and strides."""
    n, _, h, w = x_shape
    out = [(size + 2 * pad - k) // stride + 1 for size, k in zip((h, w), wt.shape[2:])]
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[pad] * 4,
                              strides=[stride, stride], group=group),
             helper.make_node("Relu", ["c"], ["y"])]
    return make_model(nodes, [f32("x", list(x_shape))], [f32("y", [n, wt.shape[0], *out])],
                      [numpy_helper.from_array(wt, "W"), numpy_helper.from_array(b, "B")])


def linear_model(rng, batch=3, features=5, hidden=7, opset=18):
    """x (batch, features) -> softmax(relu(x @ W.T + b)), with W stored as
    (hidden, features) as torch exports Linear (Gemm transB=1)."""
    w = rng.standard_normal((hidden, features)).astype(np.float32)
    b = rng.standard_normal(hidden).astype(np.float32)
    nodes = [
        helper.make_node("Gemm", ["x", "W", "b"], ["h"], name="fc", transB=1),
        helper.make_node("Relu", ["h"], ["r"], name="act"),
        helper.make_node("Softmax", ["r"], ["y"], name="sm", axis=-1),
    ]
    model = make_model(nodes, [f32("x", [batch, features])], [f32("y", [batch, hidden])],
                       [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b")],
                       opset=opset)

    def reference(x):
        h = np.maximum(x.astype(np.float64) @ w.T.astype(np.float64) + b, 0)
        e = np.exp(h - h.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    return model, reference


# --------------------------------------------------------------------------
# Importing and calling
# --------------------------------------------------------------------------


def test_linear_model_matches_float64(rng):
    model, reference = linear_model(rng)
    compiled = jeet.onnx.load(model, device="cpu")
    x = rng.standard_normal((3, 5)).astype(np.float32)
    (y,) = compiled(x)
    assert isinstance(y, jeet.Tensor)
    np.testing.assert_allclose(np.asarray(y), reference(x), rtol=1e-5, atol=1e-6)
    # By ONNX input name too, and a jeet tensor as the input.
    (y2,) = compiled(x=jeet.tensor(x, device="cpu"))
    np.testing.assert_allclose(np.asarray(y2), np.asarray(y), rtol=0, atol=0)
    assert compiled.input_names == ["x"] and compiled.output_names == ["y"]
    assert compiled.inputs == [("x", (3, 5), "float32")]


def test_attention_projection_split_as_torch_exports_it(rng):
    """PyTorch's multi-head attention as exported to ONNX: (1, S, D) moved
    to (S, 1, D) by a Transpose of a unit dimension (a reshape), a packed
    Q, K, V projection split by Gathers of constant indices (slices, one
    negative), heads moved out by Transposes; against float64."""
    s, d, heads = 10, 24, 3
    w = (rng.standard_normal((d, 3 * d)) * 0.2).astype(np.float32)
    idx = {name: numpy_helper.from_array(np.array(v, np.int64), name)
           for name, v in (("i0", 0), ("i1", 1), ("im1", -1))}
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
        helper.make_node("MatMul", ["xt", "W"], ["qkv"]),
        helper.make_node("Reshape", ["qkv", "shape5"], ["q5"]),
        helper.make_node("Transpose", ["q5"], ["q3"], perm=[2, 0, 1, 3]),
    ]
    outputs = []
    for name, index in (("q", "i0"), ("k", "i1"), ("v", "im1")):
        nodes += [
            helper.make_node("Gather", ["q3", index], [name + "g"], axis=0),
            helper.make_node("Reshape", [name + "g", "shape_heads"], [name + "h"]),
            helper.make_node("Transpose", [name + "h"], [name], perm=[1, 0, 2]),
        ]
        outputs.append(f32(name, [heads, s, d // heads]))
    inits = [numpy_helper.from_array(w, "W"),
             numpy_helper.from_array(np.array([s, 1, 3, d], np.int64), "shape5"),
             numpy_helper.from_array(np.array([s, heads, d // heads], np.int64), "shape_heads"),
             *idx.values()]
    model = make_model(nodes, [f32("x", [1, s, d])], outputs, inits)
    compiled = jeet.onnx.load(model, device="cpu")
    x = rng.standard_normal((1, s, d)).astype(np.float32)
    qkv = (x[0].astype(np.float64) @ w.astype(np.float64)).reshape(s, 3, heads, d // heads)
    for got, part in zip(compiled(x), (0, 1, 2)):
        np.testing.assert_allclose(np.asarray(got), qkv[:, part].transpose(1, 0, 2),
                                   rtol=1e-5, atol=1e-5)
    ops = [op for kernel in compiled.compiled().kernel_ops for op in kernel]
    assert "jeet.gather" not in ops, compiled.compiled().kernel_ops


def test_weights_are_prepared_once_and_kernels_fused(rng):
    model, _ = linear_model(rng)
    compiled = jeet.onnx.load(model, device="cpu")
    (y,) = compiled(rng.standard_normal((3, 5)).astype(np.float32))
    text = jeet.explain(y)
    # The transpose of the initializer W ran once at load: no kernel of the
    # graph transposes; the matmul takes the bias and relu as its epilogue.
    assert "jeet.transpose" not in text
    assert "jeet.matmul + jeet.add + jeet.relu" in text
    assert compiled.explain() == text
    assert compiled.num_kernels == compiled.compiled().num_kernels


@pytest.mark.parametrize("n, cin, h, w, cout", [
    (1, 40, 3, 3, 72), (2, 32, 3, 3, 48), (2, 24, 1, 7, 40), (1, 16, 2, 5, 33), (1, 8, 3, 5, 20),
], ids=str)
def test_pointwise_conv_with_constant_filter_at_few_positions(rng, n, cin, h, w, cout):
    """A 1x1 convolution with a constant filter and fewer than 16 output
    positions (EfficientNet's and MobileNet's last stages at 96x96) is a
    matmul of positions by channels; its bias, SiLU and a residual are
    written back channel by channel in blocks transposed in registers (rows
    of 3 x 3 positions folded into rows of 9 first); against float64."""
    wt = (rng.standard_normal((cout, cin, 1, 1)) * 0.3).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"]),
             helper.make_node("Sigmoid", ["c"], ["s"]),
             helper.make_node("Mul", ["c", "s"], ["m"]),
             helper.make_node("Add", ["m", "r"], ["y"])]
    model = make_model(nodes, [f32("x", [n, cin, h, w]), f32("r", [n, cout, h, w])],
                       [f32("y", [n, cout, h, w])],
                       [numpy_helper.from_array(wt, "W"), numpy_helper.from_array(b, "B")])
    compiled = jeet.onnx.load(model, device="cpu", initializers="constant")
    x = rng.standard_normal((n, cin, h, w)).astype(np.float32)
    r = rng.standard_normal((n, cout, h, w)).astype(np.float32)
    (y,) = compiled(x, r)
    conv = np.einsum("nchw,oc->nohw", x.astype(np.float64), wt[:, :, 0, 0].astype(np.float64))
    conv += b[None, :, None, None]
    np.testing.assert_allclose(np.asarray(y), conv / (1 + np.exp(-conv)) + r,
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cin, hw, cout, stride", [(512, 5, 1000, 128), (256, 6, 360, 64)], ids=str)
def test_pointwise_conv_in_column_tiles_reads_line_aligned_blocks(rng, cin, hw, cout, stride):
    """A 1x1 convolution with a constant filter at 25-36 positions whose
    output channels no multiple of 64 divides (SqueezeNet's 1,000-class
    classifier: tiles of 125, 360 in tiles of 60) reads the filter laid out
    by the compiler in blocks of the tiles' columns, each row padded to a
    cache line's start; against float64."""
    wt = (rng.standard_normal((cout, cin, 1, 1)) * 0.1).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    model = conv_relu_model(wt, b, (1, cin, hw, hw))
    compiled = jeet.onnx.load(model, device="cpu", initializers="constant")
    x = rng.standard_normal((1, cin, hw, hw)).astype(np.float32)
    (y,) = compiled(x)
    assert f"_stride{stride} " in compiled.compiled().ir("llvm")
    conv = np.einsum("nchw,oc->nohw", x.astype(np.float64), wt[:, :, 0, 0].astype(np.float64))
    np.testing.assert_allclose(np.asarray(y), np.maximum(conv + b[None, :, None, None], 0),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cin, cout, streamed", [
    (1152, 1024, True), (64, 128, False),
], ids=str)
def test_pointwise_conv_prefetches_weights_that_outgrow_l2(rng, cin, cout, streamed):
    """A 1x1 convolution with a constant filter at 3x3 positions (9 rows by
    the weights: a network's last stage): where the graph's constants
    outgrow L2 (4.7 MB of weights), every call meets the compiler's panels
    in L3 or memory, and the kernels prefetch each panel's rows ahead into
    L1 themselves (read prefetches, locality 3, in the compiled code); 32 KB
    of weights stay in L2 from call to call and get none. Against float64
    either way."""
    wt = (rng.standard_normal((cout, cin, 1, 1)) * 0.05).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    compiled = jeet.onnx.load(conv_relu_model(wt, b, (1, cin, 3, 3)), device="cpu",
                              initializers="constant")
    x = rng.standard_normal((1, cin, 3, 3)).astype(np.float32)
    (y,) = compiled(x)
    conv = np.einsum("nchw,oc->nohw", x.astype(np.float64), wt[:, :, 0, 0].astype(np.float64))
    np.testing.assert_allclose(np.asarray(y), np.maximum(conv + b[None, :, None, None], 0),
                               rtol=1e-5, atol=1e-5)
    reads = re.findall(r"llvm\.intr\.prefetch.*hint = 3 : i32, rw = 0",
                       compiled.compiled().ir("llvm"))
    assert bool(reads) == streamed, len(reads)


@pytest.mark.parametrize("cin, hw, stride, pad, cout", [
    (24, 3, 1, 1, 40), (16, 6, 2, 1, 32), (8, 5, 1, 0, 17), (12, 4, 1, 0, 16),
], ids=str)
def test_window_conv_with_constant_filter_at_few_positions(rng, cin, hw, stride, pad, cout):
    """A 3x3 convolution with a constant filter and fewer than 16 output
    positions (ResNet's last stage at 96x96, strided or not) is the matmul of
    its windows, transposed, by the filter transposed at compile time; its
    bias, ReLU and a residual after it; against float64 (the windows gathered
    here, one tap at a time)."""
    wt = (rng.standard_normal((cout, cin, 3, 3)) * 0.2).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    out = (hw + 2 * pad - 3) // stride + 1
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[pad] * 4,
                              strides=[stride, stride]),
             helper.make_node("Relu", ["c"], ["a"]),
             helper.make_node("Add", ["a", "r"], ["y"])]
    model = make_model(nodes, [f32("x", [2, cin, hw, hw]), f32("r", [2, cout, out, out])],
                       [f32("y", [2, cout, out, out])],
                       [numpy_helper.from_array(wt, "W"), numpy_helper.from_array(b, "B")])
    compiled = jeet.onnx.load(model, device="cpu")
    x = rng.standard_normal((2, cin, hw, hw)).astype(np.float32)
    r = rng.standard_normal((2, cout, out, out)).astype(np.float32)
    (y,) = compiled(x, r)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    conv = np.zeros((2, cout, out, out)) + b[None, :, None, None]
    for i in range(3):
        for j in range(3):
            taps = xp[:, :, i:i + stride * (out - 1) + 1:stride, j:j + stride * (out - 1) + 1:stride]
            conv += np.einsum("nchw,oc->nohw", taps, wt[:, :, i, j].astype(np.float64))
    np.testing.assert_allclose(np.asarray(y), np.maximum(conv, 0) + r, rtol=1e-5, atol=1e-5)
    assert "jeet.transpose" in compiled.explain() or out * out >= 16, compiled.explain()


@pytest.mark.parametrize("mode", ["auto", "constant", "argument"])
def test_initializer_modes_agree(rng, mode):
    model, reference = linear_model(rng)
    compiled = jeet.onnx.load(model, device="cpu", initializers=mode)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(compiled(x)[0]), reference(x),
                               rtol=1e-5, atol=1e-6)
    text = compiled.graph_text
    header = text.splitlines()[1]
    if mode in ("constant", "auto"):
        # W^T, prepared at load from the constant W, and b are constants
        # (a model this small: every initializer is one with 'auto').
        assert header.count("%arg") == 1 and "jeet.constant" in text
        assert "jeet.transpose" not in text
    if mode == "argument":
        # x, the prepared W^T and b are arguments: no constant in the graph.
        assert header.count("%arg") == 3 and "jeet.constant" not in text


@pytest.mark.parametrize("budget, arguments", [(None, 1), (1000, 2)], ids=str)
def test_auto_initializers_by_the_models_size(rng, monkeypatch, budget, arguments):
    """initializers='auto': every initializer (and the work on them alone,
    prepared at load) is a constant of the graph while the model's
    initializers hold at most AUTO_CONSTANT_BYTES; above that, those of
    over EMBED_LIMIT elements are bound arguments (here W, 8,000 bytes, with
    a budget of 1,000), the small ones (b) still constants."""
    from jeet.onnx import _importer
    if budget is not None:
        monkeypatch.setattr(_importer, "AUTO_CONSTANT_BYTES", budget)
    w = rng.standard_normal((40, 50)).astype(np.float32)
    b = rng.standard_normal(50).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "W"], ["h"]),
             helper.make_node("Add", ["h", "b"], ["y"])]
    model = make_model(nodes, [f32("x", [3, 40])], [f32("y", [3, 50])],
                       [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b")])
    compiled = jeet.onnx.load(model, device="cpu")
    x = rng.standard_normal((3, 40)).astype(np.float32)
    want = x.astype(np.float64) @ w.astype(np.float64) + b
    np.testing.assert_allclose(np.asarray(compiled(x)[0]), want, rtol=1e-5, atol=1e-5)
    text = compiled.graph_text
    assert text.splitlines()[1].count("%arg") == arguments
    assert "jeet.constant" in text
    # jeet.onnx.import_model decides the same way.
    text, weights = jeet.onnx.import_model(model, initializers="auto")
    assert [a.shape for a in weights] == ([] if arguments == 1 else [(40, 50)])
    # For the GPU the large weights stay bound arguments (device buffers)
    # whatever the model's size.
    from jeet.onnx import _model
    assert not _model.Options("auto", False).for_model(model, "gpu").embeds_all
    assert _model.Options("auto", False).for_model(model, "cpu").embeds_all == (budget is None)


def test_initializer_bytes_count_initializers_and_constant_nodes():
    """What 'auto' weighs against AUTO_CONSTANT_BYTES: the initializers'
    bytes and the Constant nodes' values, from their shapes and types."""
    from jeet.onnx import _importer
    nodes = [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(
                 np.zeros((10,), np.int64))),
             helper.make_node("Add", ["x", "W"], ["y"])]
    model = make_model(nodes, [f32("x", [40, 50])], [f32("y", [40, 50])],
                       [numpy_helper.from_array(np.zeros((40, 50), np.float32), "W"),
                        numpy_helper.from_array(np.zeros((3,), np.float16), "h")])
    assert _importer.initializer_bytes(model) == 40 * 50 * 4 + 3 * 2 + 10 * 8


def test_import_model_text_and_bound_arguments(rng):
    model, _ = linear_model(rng)
    text, weights = jeet.onnx.import_model(model)
    assert "func.func @main(%arg0: tensor<3x5xf32>)" in text
    assert "jeet.matmul" in text and weights == []
    text, weights = jeet.onnx.import_model(model, initializers="argument")
    # The bound weight is W.T, prepared at import (not W and a transpose).
    assert [w.shape for w in weights] == [(5, 7), (7,)]
    assert "jeet.transpose" not in text


def test_shape_arithmetic_is_folded(rng):
    # Flatten written the way exporters do: Shape -> Gather -> Unsqueeze ->
    # Concat -> Reshape, all known when the model is loaded.
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Constant", [], ["zero"], value=numpy_helper.from_array(np.array(0, np.int64))),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Constant", [], ["axes"], value=numpy_helper.from_array(np.array([0], np.int64))),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Constant", [], ["rest"], value=numpy_helper.from_array(np.array([-1], np.int64))),
        helper.make_node("Concat", ["n1", "rest"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y0"]),
        helper.make_node("Exp", ["y0"], ["y"]),
    ]
    model = make_model(nodes, [f32("x", [2, 3, 4])], [f32("y", [2, 12])])
    (y,) = jeet.onnx.load(model, device="cpu")(x)
    np.testing.assert_allclose(np.asarray(y), np.exp(x.astype(np.float64)).reshape(2, 12),
                               rtol=1e-6)


def test_inputs_that_decide_shapes_compile_by_value(rng):
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y0"]),
             helper.make_node("Neg", ["y0"], ["y"])]
    model = make_model(
        nodes, [f32("x", [2, 6]), helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])])
    compiled = jeet.onnx.load(model, device="cpu")
    assert compiled.static_inputs == ["shape"]
    x = rng.standard_normal((2, 6)).astype(np.float32)
    for shape in ([3, 4], [12, 1], [3, 4]):
        (y,) = compiled(x, np.array(shape, np.int64))
        np.testing.assert_array_equal(np.asarray(y), -x.reshape(shape))
    assert len(compiled._imports) == 2


# --------------------------------------------------------------------------
# Bad files, opsets, shapes, dtypes
# --------------------------------------------------------------------------


def test_missing_empty_garbage_and_truncated_files(tmp_path, rng):
    with pytest.raises(OnnxImportError, match="no ONNX file at"):
        jeet.onnx.load(str(tmp_path / "missing.onnx"))
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    with pytest.raises(OnnxImportError, match="empty.onnx' is empty"):
        jeet.onnx.load(str(empty))
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\xff\xfe this is not protobuf \x00\x01" * 7)
    with pytest.raises(OnnxImportError, match="garbage.onnx.*not a valid ONNX model"):
        jeet.onnx.load(str(garbage))
    model, _ = linear_model(rng)
    data = model.SerializeToString()
    for cut in (len(data) // 2, len(data) - 3, 5):
        truncated = tmp_path / f"truncated{cut}.onnx"
        truncated.write_bytes(data[:cut])
        with pytest.raises(OnnxImportError, match=f"truncated{cut}.onnx"):
            jeet.onnx.load(str(truncated))
    with pytest.raises(jeet.ArgumentError, match="path, bytes or an onnx.ModelProto"):
        jeet.onnx.load(42)


def test_malformed_graph_is_named():
    # A node reads a value that nothing defines.
    model = make_model([helper.make_node("Relu", ["nowhere"], ["y"], name="r")],
                       [f32("x", [2])], [f32("y", [2])])
    with pytest.raises(OnnxImportError, match="not a valid ONNX model.*nowhere"):
        jeet.onnx.load(model)


@pytest.mark.parametrize("opset,message", [
    (12, "opset 12; Jeet imports opsets 13 to 21: convert it first"),
    (99, "opset 99, newer than this onnx package knows"),
])
def test_opsets_out_of_range(opset, message):
    model = make_model([helper.make_node("Relu", ["x"], ["y"])],
                       [f32("x", [2])], [f32("y", [2])], opset=opset)
    with pytest.raises(OnnxImportError, match=message):
        jeet.onnx.load(model)


def test_newer_opset_reads_unchanged_ops(rng):
    # Opset 22 redefined Relu's siblings only to add types: its nodes mean
    # what they meant in opset 21.
    model, reference = linear_model(rng, opset=22)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(jeet.onnx.load(model, device="cpu")(x)[0]),
                               reference(x), rtol=1e-5, atol=1e-6)


def test_newer_attribute_is_refused():
    # Cast gained `round_mode` after opset 21.
    node = helper.make_node("Cast", ["x"], ["y"], name="c", to=TensorProto.FLOAT16,
                            round_mode="up")
    model = make_model([node], [f32("x", [2])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2])],
                       opset=onnx.defs.onnx_opset_version())
    with pytest.raises(UnsupportedOpsError,
                       match="Cast \\(attribute 'round_mode' is newer than opset 21\\): c"):
        jeet.onnx.load(model)


def test_dynamic_dimensions_name_the_input_and_the_fix(rng):
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    model = make_model(nodes, [f32("x", ["batch", 4])], [f32("y", ["batch", 4])])
    with pytest.raises(OnnxImportError) as error:
        jeet.onnx.load(model)
    message = str(error.value)
    assert "input 'x' has dynamic dimensions (batch, 4)" in message
    assert "input_shapes={'x': (1, 4)}" in message
    compiled = jeet.onnx.load(model, input_shapes={"x": (3, 4)}, device="cpu")
    x = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(compiled(x)[0]), np.maximum(x, 0))
    with pytest.raises(jeet.ShapeError, match=r"input_shapes\['x'\] = \(3, 5\) does not fit"):
        jeet.onnx.load(model, input_shapes={"x": (3, 5)})
    with pytest.raises(jeet.ArgumentError, match="'y', not an input of the model"):
        jeet.onnx.load(model, input_shapes={"y": (3, 4)})


def test_float64_is_an_error_or_an_explicit_cast(rng):
    nodes = [helper.make_node("Exp", ["x"], ["y"], name="e")]
    f64 = [helper.make_tensor_value_info(n, TensorProto.DOUBLE, [3]) for n in ("x", "y")]
    model = make_model(nodes, f64[:1], f64[1:])
    with pytest.raises(OnnxImportError,
                       match="input 'x' has element type float64.*cast_float64=True"):
        jeet.onnx.load(model)
    compiled = jeet.onnx.load(model, cast_float64=True, device="cpu")
    x = rng.standard_normal(3)
    (y,) = compiled(x)
    assert y.dtype == "float32"
    np.testing.assert_allclose(np.asarray(y), np.exp(x), rtol=1e-6)


def test_unsupported_element_type_is_named():
    nodes = [helper.make_node("Abs", ["x"], ["y"])]
    vi = [helper.make_tensor_value_info(n, TensorProto.INT8, [3]) for n in ("x", "y")]
    with pytest.raises(OnnxImportError, match="input 'x' has element type int8"):
        jeet.onnx.load(make_model(nodes, vi[:1], vi[1:]))


def test_unsupported_ops_are_listed_in_one_error():
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="ok"),
        helper.make_node("Det", ["a"], ["b"], name="det1"),
        helper.make_node("Custom", ["b"], ["c"], name="mine", domain="com.example"),
        helper.make_node("Det", ["c"], ["d"], name="det2"),
        helper.make_node("NonZero", ["d"], ["y"], name="nz"),
    ]
    model = make_model(nodes, [f32("x", [2, 2])], [f32("y", [2, 2])])
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    with pytest.raises(UnsupportedOpsError) as error:
        jeet.onnx.load(model)
    assert error.value.ops == {"Det": ["det1", "det2"], "NonZero": ["nz"],
                               "com.example.Custom": ["mine"]}
    message = str(error.value)
    assert "3 op(s) that Jeet does not import (4 node(s))" in message
    assert "Det: det1, det2" in message and "com.example.Custom: mine" in message


def test_node_errors_name_the_node_and_shapes():
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="proj")]
    model = make_model(nodes, [f32("x", [2, 3]), f32("w", [4, 5])], [f32("y", [2, 5])])
    with pytest.raises(OnnxImportError, match="MatMul node 'proj'.*'x' 2x3 float32, 'w' 4x5 float32"):
        jeet.onnx.load(model)


# --------------------------------------------------------------------------
# Calls
# --------------------------------------------------------------------------


def test_call_time_mismatches(rng):
    model, _ = linear_model(rng)
    compiled = jeet.onnx.load(model, device="cpu")
    x = rng.standard_normal((3, 5)).astype(np.float32)
    with pytest.raises(jeet.ShapeError, match=r"input 'x' \(3, 5\) float32: expected shape \(3, 5\), got \(4, 5\)"):
        compiled(np.zeros((4, 5), np.float32))
    with pytest.raises(jeet.ShapeError, match="got a jeet tensor of shape \\(5, 3\\)"):
        compiled(jeet.tensor(x.T, device="cpu"))
    with pytest.raises(jeet.ArgumentError, match="expected dtype float32, got float64"):
        compiled(x.astype(np.float64))
    with pytest.raises(jeet.ArgumentError, match="takes 1 input.*got 2 positional"):
        compiled(x, x)
    with pytest.raises(jeet.ArgumentError, match="no input named 'z'"):
        compiled(z=x)
    with pytest.raises(jeet.ArgumentError, match="missing input\\(s\\) 'x'"):
        compiled()
    with pytest.raises(jeet.ArgumentError, match="input 'x' given twice"):
        compiled(x, x=x)
    with pytest.raises(jeet.ArgumentError, match="expected a NumPy array, a jeet tensor or a DLPack tensor \\(torch\\), got str"):
        compiled("x")


# --------------------------------------------------------------------------
# Tensors in and out without copies (DLPack)
# --------------------------------------------------------------------------


def _pointer(array):
    return np.asarray(array).__array_interface__["data"][0]


def passthrough_model(shape):
    """y = exp(x), z = x: z is the input itself."""
    nodes = [helper.make_node("Exp", ["x"], ["y"], name="e"),
             helper.make_node("Identity", ["x"], ["z"], name="i")]
    return make_model(nodes, [f32("x", list(shape))],
                      [f32("y", list(shape)), f32("z", list(shape))])


def test_inputs_and_results_are_not_copied(rng):
    compiled = jeet.onnx.load(passthrough_model((64, 32)), device="cpu")
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y, z = compiled(x)
    # The input is the caller's memory, and np.asarray of a result is a
    # read-only view of Jeet's (the same memory each time).
    assert _pointer(z) == _pointer(x)
    assert _pointer(y) == _pointer(y) == _pointer(np.from_dlpack(y))
    assert not np.asarray(y).flags.writeable and np.array(y).flags.writeable
    assert _pointer(np.array(y)) != _pointer(y)      # np.array copies
    np.testing.assert_allclose(np.asarray(y), np.exp(x.astype(np.float64)), rtol=1e-6)

    # A large input reduced to a small result: Jeet allocates the result only.
    nodes = [helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="s", keepdims=0)]
    reduce = make_model(nodes, [f32("x", [1024, 1024])], [f32("y", [1024])],
                        [numpy_helper.from_array(np.array([1], np.int64), "axes")])
    compiled = jeet.onnx.load(reduce, device="cpu")
    big = rng.standard_normal((1024, 1024)).astype(np.float32)
    compiled(big)
    before = jeet.memory_stats("cpu")["allocated_bytes"]
    jeet.reset_peak_memory_stats("cpu")
    (total,) = compiled(big)
    peak = jeet.memory_stats("cpu")["peak_allocated_bytes"] - before
    assert peak < big.nbytes // 8, f"Jeet allocated {peak} bytes for a {big.nbytes}-byte input"
    np.testing.assert_allclose(np.asarray(total), big.astype(np.float64).sum(1),
                               rtol=1e-4, atol=1e-3)


def test_repeated_calls_check_every_input(rng):
    """Calls after the first take a short path for NumPy arrays of exactly
    the input's shape and dtype; anything else still gets the general
    path's conversion or its error, call after call."""
    model, reference = linear_model(rng, batch=4, features=6, hidden=5)
    compiled = jeet.onnx.load(model, device="cpu")
    previous = []
    for _ in range(3):
        x = rng.standard_normal((4, 6)).astype(np.float32)
        (y,) = compiled(x)
        assert y.shape == (4, 5) and y.dtype == "float32"
        np.testing.assert_allclose(np.asarray(y), reference(x), rtol=1e-5, atol=1e-6)
        previous.append((y, reference(x)))
    # Every call's result is its own: earlier ones are unchanged.
    for y, expected in previous:
        np.testing.assert_allclose(np.asarray(y), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(jeet.ShapeError, match=r"input 'x' \(4, 6\) float32: expected shape \(4, 6\), got \(6, 4\)"):
        compiled(np.zeros((6, 4), np.float32))
    with pytest.raises(jeet.ShapeError, match=r"expected shape \(4, 6\), got \(4, 6, 1\)"):
        compiled(np.zeros((4, 6, 1), np.float32))
    with pytest.raises(jeet.ArgumentError, match="expected dtype float32, got float64"):
        compiled(np.zeros((4, 6)))
    with pytest.raises(jeet.ArgumentError, match="expected dtype float32, got int32"):
        compiled(np.zeros((4, 6), np.int32))
    with pytest.raises(jeet.ArgumentError, match="expected a NumPy array.*got dict"):
        compiled({})
    # Other strides (a transposed view, Fortran order): one copy, right values.
    x = rng.standard_normal((6, 4)).astype(np.float32).T
    (y,) = compiled(x)
    np.testing.assert_allclose(np.asarray(y), reference(x), rtol=1e-5, atol=1e-6)
    x = np.asfortranarray(rng.standard_normal((4, 6)).astype(np.float32))
    (y,) = compiled(x)
    np.testing.assert_allclose(np.asarray(y), reference(x), rtol=1e-5, atol=1e-6)
    # A read-only array is read, not written.
    x = rng.standard_normal((4, 6)).astype(np.float32)
    x.flags.writeable = False
    (y,) = compiled(x)
    np.testing.assert_allclose(np.asarray(y), reference(x), rtol=1e-5, atol=1e-6)


def test_repeated_calls_share_the_input(rng):
    compiled = jeet.onnx.load(passthrough_model((8, 6)), device="cpu")
    for _ in range(3):
        x = rng.standard_normal((8, 6)).astype(np.float32)
        y, z = compiled(x)
        assert _pointer(z) == _pointer(x)
        np.testing.assert_allclose(np.asarray(y), np.exp(x.astype(np.float64)), rtol=1e-6)


def test_torch_tensors_are_passed_without_copies(rng):
    torch = pytest.importorskip("torch")
    compiled = jeet.onnx.load(passthrough_model((8, 6)), device="cpu")
    x = torch.from_numpy(rng.standard_normal((8, 6)).astype(np.float32))
    y, z = compiled(x)
    assert _pointer(z) == x.data_ptr()
    assert torch.from_dlpack(y).data_ptr() == _pointer(y)
    np.testing.assert_allclose(np.asarray(y), np.exp(x.double().numpy()), rtol=1e-6)
    # Strides DLPack cannot take: one explicit contiguous copy, right values.
    xt = torch.from_numpy(rng.standard_normal((6, 8)).astype(np.float32)).t()
    y, z = compiled(xt)
    assert _pointer(z) != xt.data_ptr()
    np.testing.assert_array_equal(np.asarray(z), xt.numpy())
    # A NumPy view with other strides too.
    y, z = compiled(xt.numpy())
    np.testing.assert_array_equal(np.asarray(z), xt.numpy())
    with pytest.raises(jeet.ArgumentError, match="input 'x' .*float32.*int64"):
        compiled(torch.zeros(8, 6, dtype=torch.int64))
    with pytest.raises(jeet.ShapeError, match=r"expected shape \(8, 6\), got \(6, 8\)"):
        compiled(torch.zeros(6, 8))
    with pytest.raises(jeet.ArgumentError, match="expected dtype float32, got float16"):
        compiled(torch.zeros(8, 6, dtype=torch.float16))


def test_torch_float64_with_cast_float64(rng):
    torch = pytest.importorskip("torch")
    nodes = [helper.make_node("Exp", ["x"], ["y"], name="e")]
    f64 = [helper.make_tensor_value_info(n, TensorProto.DOUBLE, [3]) for n in ("x", "y")]
    compiled = jeet.onnx.load(make_model(nodes, f64[:1], f64[1:]), cast_float64=True,
                              device="cpu")
    x = torch.from_numpy(rng.standard_normal(3))
    (y,) = compiled(x)
    np.testing.assert_allclose(np.asarray(y), np.exp(x.numpy()), rtol=1e-6)


# --------------------------------------------------------------------------
# The command line and the dependency
# --------------------------------------------------------------------------


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(BUILD, "python")] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


@pytest.mark.parametrize("command", ["module", "tool"])
def test_command_line_writes_ir_that_jeet_run_runs(tmp_path, rng, command):
    model, reference = linear_model(rng)
    path = tmp_path / "linear.onnx"
    onnx.save(model, str(path))
    out = tmp_path / "linear.mlir"
    launcher = ([sys.executable, "-m", "jeet.onnx"] if command == "module"
                else [os.path.join(BUILD, "bin", "jeet-import-onnx")])
    subprocess.run(launcher + [str(path), "-o", str(out)], check=True, env=_env())
    text = out.read_text()
    assert text.startswith("module {") and "jeet.matmul" in text
    # The Gemm's transposed weight is folded at import (embedded as the
    # transposed constant), not redone by every run of the IR.
    assert "jeet.transpose" not in text and "tensor<5x7xf32>" in text
    x = rng.standard_normal((3, 5)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    subprocess.run([os.path.join(BUILD, "bin", "jeet-run"), str(out), "--device=cpu",
                    f"--input=@{tmp_path / 'x.npy'}", f"--output=@{tmp_path / 'y.npy'}"],
                   check=True, capture_output=True)
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), reference(x),
                               rtol=1e-5, atol=1e-6)


def test_command_line_bound_weights_are_prepared(tmp_path, rng):
    model, reference = linear_model(rng)
    path = tmp_path / "linear.onnx"
    onnx.save(model, str(path))
    out, weights = tmp_path / "linear.mlir", tmp_path / "weights"
    subprocess.run([sys.executable, "-m", "jeet.onnx", str(path), "-o", str(out),
                    "--initializers=argument", "--weights-dir", str(weights)],
                   check=True, env=_env())
    text = out.read_text()
    assert "jeet.transpose" not in text
    assert np.load(weights / "arg0.npy").shape == (5, 7)   # W.T, prepared
    x = rng.standard_normal((3, 5)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    subprocess.run([os.path.join(BUILD, "bin", "jeet-run"), str(out), "--device=cpu",
                    f"--input=@{tmp_path / 'x.npy'}",
                    f"--input=@{weights / 'arg0.npy'}", f"--input=@{weights / 'arg1.npy'}",
                    f"--output=@{tmp_path / 'y.npy'}"],
                   check=True, capture_output=True)
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), reference(x),
                               rtol=1e-5, atol=1e-6)


def test_command_line_errors(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08")
    result = subprocess.run([sys.executable, "-m", "jeet.onnx", str(bad)],
                            capture_output=True, text=True, env=_env())
    assert result.returncode == 1
    assert "jeet-import-onnx: error:" in result.stderr and "bad.onnx" in result.stderr
    result = subprocess.run([sys.executable, "-m", "jeet.onnx", str(bad),
                             "--input-shape", "x=2,a"],
                            capture_output=True, text=True, env=_env())
    assert result.returncode != 0 and "values must be integers" in result.stderr


def test_import_jeet_needs_neither_onnx_nor_torch():
    # A meta-path finder that refuses onnx and torch stands for a machine
    # without them.
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('onnx', 'onnxruntime', 'torch'):
            raise ImportError('blocked: ' + name)
sys.meta_path.insert(0, Block())
import jeet
assert float(jeet.tensor([1.0, 2.0]).sum()) == 3.0
import jeet.onnx
try:
    jeet.onnx.load('model.onnx')
except ImportError as e:
    assert 'pip install onnx' in str(e), e
else:
    raise SystemExit('no error')
try:
    import jeet.torch
except ImportError as e:
    assert 'pip install torch' in str(e), e
else:
    raise SystemExit('no error')
print('ok')
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True, env=_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_integer_pow_is_exact_and_a_float_exponent_is_refused():
    # Integer ** integer in integers (exact past 2**24, wrapping as
    # onnxruntime's); the float power of an integer would round: refused.
    i64 = [helper.make_tensor_value_info(n, TensorProto.INT64, [4]) for n in ("x", "e", "y")]
    model = make_model([helper.make_node("Pow", ["x", "e"], ["y"], name="p")],
                       i64[:2], i64[2:])
    x = np.array([3, -7, 2, 11], np.int64)
    e = np.array([33, 21, 62, 17], np.int64)
    (y,) = jeet.onnx.load(model)(x, e)
    np.testing.assert_array_equal(np.asarray(y), [pow(int(a), int(b)) for a, b in zip(x, e)])
    f32 = helper.make_tensor_value_info("e", TensorProto.FLOAT, [4])
    model = make_model([helper.make_node("Pow", ["x", "e"], ["y"], name="p")],
                       [i64[0], f32], i64[2:])
    with pytest.raises(OnnxImportError,
                       match="Pow node 'p'.*integer base .int64. with a float exponent .float32."):
        jeet.onnx.load(model)


def test_int64_torch_input_is_copied_and_bool_reduction_runs():
    torch = pytest.importorskip("torch")
    nodes = [helper.make_node("Cast", ["i"], ["b"], to=TensorProto.BOOL),
             helper.make_node("ReduceMax", ["b", "axes"], ["y"], keepdims=0)]
    model = make_model(
        nodes, [helper.make_tensor_value_info("i", TensorProto.INT64, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.BOOL, [3])],
        [numpy_helper.from_array(np.asarray([1], np.int64), "axes")])
    x = torch.tensor([[0, 0, 0, 0], [0, 5, 0, 0], [-1, 2, 0, 3]])
    (y,) = jeet.onnx.load(model)(x)
    np.testing.assert_array_equal(np.asarray(y), [False, True, True])


# --------------------------------------------------------------------------
# Ops built from other jeet ops: OneHot, GatherElements, GatherND, CumSum,
# Einsum, GroupNormalization, LRN (each against a float64 or exact NumPy
# reference on fresh random data)
# --------------------------------------------------------------------------

_NP_TO_ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
               np.dtype(np.int32): TensorProto.INT32, np.dtype(np.int64): TensorProto.INT64}


def info(name, array):
    return helper.make_tensor_value_info(name, _NP_TO_ONNX[array.dtype], list(array.shape))


def run_node(op, inputs, outputs, initializers=(), opset=18, order=None, **attrs):
    """Imports a model of one node named 'node' (graph inputs: `inputs`, a
    dict name -> array; initializers: a dict too; the node's inputs in
    `order`, by default the graph inputs then the initializers) and runs it
    on the inputs. `outputs` is a list of (name, elem_type, shape)."""
    initializers = dict(initializers)
    node = helper.make_node(op, order or list(inputs) + list(initializers),
                            [o[0] for o in outputs], name="node", **attrs)
    model = make_model(
        [node], [info(k, v) for k, v in inputs.items()],
        [helper.make_tensor_value_info(*o) for o in outputs],
        [numpy_helper.from_array(v, k) for k, v in initializers.items()], opset=opset)
    compiled = jeet.onnx.load(model, device="cpu")
    return [np.asarray(y) for y in compiled(*inputs.values())]


def node_error(op, inputs, outputs, initializers=(), opset=18, order=None, **attrs):
    with pytest.raises(OnnxImportError) as error:
        run_node(op, inputs, outputs, initializers, opset, order, **attrs)
    message = str(error.value)
    assert f"{op} node 'node'" in message, message
    return message


def onehot_reference(indices, depth, values, axis):
    indices = np.trunc(indices).astype(np.int64)
    axis = axis % (indices.ndim + 1)
    out = np.empty(indices.shape[:axis] + (depth,) + indices.shape[axis:], values.dtype)
    for position in np.ndindex(*out.shape):
        i = indices[position[:axis] + position[axis + 1:]]
        i = i + depth if i < 0 else i
        out[position] = values[1] if i == position[axis] else values[0]
    return out


@pytest.mark.parametrize("axis", [-1, 0, 1, 2, -3])
def test_onehot_wraps_negative_indices_and_ignores_out_of_range(rng, axis):
    depth = 7
    # Indices in [-depth - 2, depth + 2): negative ones count from the end,
    # those outside [-depth, depth) are all off_value.
    indices = rng.integers(-depth - 2, depth + 2, size=(3, 4)).astype(np.int64)
    values = rng.standard_normal(2).astype(np.float32)
    out_shape = list(onehot_reference(indices, depth, values, axis).shape)
    (y,) = run_node("OneHot", {"indices": indices, "values": values},
                    [("y", TensorProto.FLOAT, out_shape)],
                    {"depth": np.asarray(depth, np.int64)},
                    order=["indices", "depth", "values"], axis=axis)
    np.testing.assert_array_equal(y, onehot_reference(indices, depth, values, axis))


def test_onehot_float_indices_int_values_and_depth_as_input(rng):
    # Float indices are cast to int64 (toward zero); depth, a graph input
    # that decides the shape, compiles by value.
    indices = (rng.standard_normal((5,)) * 4).astype(np.float32)
    values = rng.integers(-9, 9, size=2).astype(np.int32)
    depth = np.asarray([6.0], np.float32)
    node = helper.make_node("OneHot", ["indices", "depth", "values"], ["y"], name="node")
    model = make_model([node], [info("indices", indices), info("depth", depth), info("values", values)],
                       [helper.make_tensor_value_info("y", TensorProto.INT32, [5, 6])])
    (y,) = jeet.onnx.load(model, device="cpu")(indices, depth, values)
    np.testing.assert_array_equal(np.asarray(y), onehot_reference(indices, 6, values, -1))


def test_onehot_errors_name_the_node():
    indices = np.zeros(3, np.int64)
    message = node_error("OneHot", {"indices": indices}, [("y", TensorProto.FLOAT, [3, 4])],
                         {"depth": np.asarray(4, np.int64),
                          "values": np.zeros(3, np.float32)})
    assert "values must be [off_value, on_value] (shape (2,)), got shape (3,)" in message
    message = node_error("OneHot", {"indices": indices}, [("y", TensorProto.FLOAT, [3, 4])],
                         {"depth": np.asarray(0, np.int64),
                          "values": np.zeros(2, np.float32)})
    assert "depth must be a positive integer, got 0" in message
    # A depth computed from tensor data cannot decide the shape.
    nodes = [helper.make_node("ReduceMax", ["d"], ["depth"], name="dmax", keepdims=0),
             helper.make_node("OneHot", ["i", "depth", "v"], ["y"], name="node")]
    model = make_model(nodes, [helper.make_tensor_value_info("i", TensorProto.INT64, [3]),
                               f32("d", [2]), f32("v", [2])],
                       [f32("y", [3, 4])])
    with pytest.raises(OnnxImportError, match="OneHot node 'node': the depth .input 'depth'. "
                       "must be known when the model is loaded.*node 'dmax'"):
        jeet.onnx.load(model)


def gather_elements_reference(data, indices, axis):
    coordinates = list(np.indices(indices.shape))
    coordinates[axis] = np.where(indices < 0, indices + data.shape[axis], indices)
    return data[tuple(coordinates)]


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_gather_elements_with_negative_indices(rng, axis):
    data = rng.standard_normal((3, 4, 5)).astype(np.float32)
    # Fewer elements than data in the other dimensions, more along axis.
    shape = [2, 3, 4]
    shape[axis] = 6
    size = data.shape[axis]
    indices = rng.integers(-size, size, size=shape).astype(np.int64)
    (y,) = run_node("GatherElements", {"data": data, "indices": indices},
                    [("y", TensorProto.FLOAT, shape)], axis=axis)
    np.testing.assert_array_equal(y, gather_elements_reference(data, indices, axis))


def test_gather_elements_int32_data_and_indices(rng):
    data = rng.integers(-1000, 1000, size=(6, 5)).astype(np.int32)
    indices = rng.integers(-5, 5, size=(6, 9)).astype(np.int32)
    (y,) = run_node("GatherElements", {"data": data, "indices": indices},
                    [("y", TensorProto.INT32, [6, 9])], axis=1)
    np.testing.assert_array_equal(y, gather_elements_reference(data, indices, 1))


def test_gather_elements_errors_name_the_node():
    data, indices = np.zeros((3, 4), np.float32), np.zeros((3,), np.int64)
    message = node_error("GatherElements", {"data": data, "indices": indices},
                         [("y", TensorProto.FLOAT, [3])])
    assert "data (3, 4) and indices (3,) must have the same rank" in message
    message = node_error("GatherElements", {"data": data, "indices": np.zeros((3, 5), np.int64)},
                         [("y", TensorProto.FLOAT, [3, 5])], axis=0)
    assert "indices (3, 5) exceed data (3, 4) in dimension 1" in message


def gather_nd_reference(data, indices, batch_dims):
    depth = indices.shape[-1]
    lead = indices.shape[:-1]
    out = np.empty(lead + data.shape[batch_dims + depth:], data.dtype)
    for position in np.ndindex(*lead):
        index = tuple(int(i) + data.shape[batch_dims + j] if i < 0 else int(i)
                      for j, i in enumerate(indices[position]))
        out[position] = data[position[:batch_dims] + index]
    return out


@pytest.mark.parametrize("data_shape, indices_shape, batch_dims", [
    ((4, 5, 6), (2, 3, 2), 0),       # slices of the last axis
    ((4, 5, 6), (7, 3), 0),          # elements
    ((4, 5), (2,), 0),               # one element: a scalar
    ((3, 4, 5, 6), (3, 2, 2), 1),    # a batch dim
    ((2, 3, 4, 5), (2, 3, 4, 1), 2),  # two batch dims
])
def test_gather_nd_with_batch_dims_and_negative_indices(rng, data_shape, indices_shape, batch_dims):
    data = rng.standard_normal(data_shape).astype(np.float32)
    depth = indices_shape[-1]
    sizes = np.asarray(data_shape[batch_dims:batch_dims + depth])
    indices = (rng.integers(0, 1 << 30, size=indices_shape) % (2 * sizes) - sizes).astype(np.int64)
    want = gather_nd_reference(data, indices, batch_dims)
    (y,) = run_node("GatherND", {"data": data, "indices": indices},
                    [("y", TensorProto.FLOAT, list(want.shape))], batch_dims=batch_dims)
    assert y.shape == want.shape
    np.testing.assert_array_equal(y, want)


def test_gather_nd_errors_name_the_node():
    data = np.zeros((3, 4), np.float32)
    message = node_error("GatherND", {"data": data, "indices": np.zeros((3, 2), np.int64)},
                         [("y", TensorProto.FLOAT, [3])], batch_dims=2)
    assert "batch_dims 2 must be at least 0 and less than the ranks" in message
    message = node_error("GatherND", {"data": data, "indices": np.zeros((3, 3), np.int64)},
                         [("y", TensorProto.FLOAT, [3])])
    assert "last dimension of indices (3, 3) must be between 1 and" in message
    message = node_error("GatherND", {"data": data, "indices": np.zeros((2, 1), np.int64)},
                         [("y", TensorProto.FLOAT, [2])], batch_dims=1)
    assert "batch dims of data (3, 4) and indices (2, 1) differ" in message


def cumsum_reference(x, axis, exclusive, reverse):
    x = np.flip(x, axis) if reverse else x
    y = np.cumsum(x.astype(np.float64) if x.dtype.kind == "f" else x, axis=axis)
    if exclusive:
        y = np.concatenate([np.zeros_like(np.take(y, [0], axis)), np.delete(y, -1, axis)], axis)
    return np.flip(y, axis) if reverse else y


@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("axis", [1, -1])
def test_cumsum_exclusive_and_reverse(rng, exclusive, reverse, axis):
    # Sizes that are not powers of two: the scan's last round is partial.
    x = rng.standard_normal((3, 37, 21)).astype(np.float32)
    (y,) = run_node("CumSum", {"x": x}, [("y", TensorProto.FLOAT, list(x.shape))],
                    {"axis": np.asarray(axis, np.int64)},
                    exclusive=exclusive, reverse=reverse)
    np.testing.assert_allclose(y, cumsum_reference(x, axis, exclusive, reverse),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_cumsum_integers_are_exact(rng, dtype):
    x = rng.integers(-10**6, 10**6, size=(100, 3)).astype(dtype)
    for exclusive, reverse in [(0, 0), (1, 1)]:
        (y,) = run_node("CumSum", {"x": x}, [("y", _NP_TO_ONNX[np.dtype(dtype)], [100, 3])],
                        {"axis": np.asarray([0], np.int32)},
                        exclusive=exclusive, reverse=reverse)
        np.testing.assert_array_equal(y, cumsum_reference(x, 0, exclusive, reverse))


def test_cumsum_errors_name_the_node():
    x = np.zeros((3, 4), np.float32)
    message = node_error("CumSum", {"x": x}, [("y", TensorProto.FLOAT, [3, 4])],
                         {"axis": np.asarray([0, 1], np.int64)})
    assert "axis must hold one value, got 2" in message
    message = node_error("CumSum", {"x": x}, [("y", TensorProto.FLOAT, [3, 4])],
                         {"axis": np.asarray(2, np.int64)})
    assert "axis 2 is out of range for rank 2" in message


@pytest.mark.parametrize("equation, shapes", [
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),            # batch matmul
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),    # attention scores
    ("bqk,bkhd->bqhd", [(2, 3, 4), (2, 4, 5, 6)]),         # batch, contraction, kept
    ("ijk,jil->lk", [(3, 4, 5), (4, 3, 6)]),              # two contracted, permuted
    ("abc,cd", [(2, 3, 4), (4, 5)]),                      # implicit output: abd
    ("ja,aB", [(3, 4), (4, 5)]),                          # implicit: Bj (ASCII order)
    ("i,i", [(7,), (7,)]),                                # implicit: a scalar
    ("i,j->ij", [(3,), (4,)]),                            # outer product
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),           # three operands
    ("bn,anm,bm->ba", [(3, 4), (2, 4, 5), (3, 5)]),       # bilinear
    ("ij->ji", [(3, 4)]),                                 # transpose
    ("bij->jb", [(2, 3, 4)]),                             # a sum and a transpose
    ("Ba,aB->", [(3, 4), (4, 3)]),                        # upper case, everything summed
    ("ii->i", [(4, 4)]),                                  # a diagonal
    ("bii", [(2, 4, 4)]),                                 # implicit: traces (b)
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]),    # ellipsis, broadcast
    ("...ii->...i", [(3, 5, 5)]),                         # batch diagonal
    ("ij, jk -> ik", [(2, 1), (3, 4)]),                   # a size 1 broadcast, spaces
])
def test_einsum_matches_numpy(rng, equation, shapes):
    operands = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    want = np.einsum(equation, *(o.astype(np.float64) for o in operands))
    names = [f"x{i}" for i in range(len(operands))]
    (y,) = run_node("Einsum", dict(zip(names, operands)),
                    [("y", TensorProto.FLOAT, list(want.shape))], equation=equation)
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_einsum_int32_is_exact(rng):
    a = rng.integers(-100, 100, size=(3, 4, 5)).astype(np.int32)
    b = rng.integers(-100, 100, size=(3, 5, 2)).astype(np.int32)
    (y,) = run_node("Einsum", {"a": a, "b": b}, [("y", TensorProto.INT32, [3, 4, 2])],
                    equation="bij,bjk->bik")
    np.testing.assert_array_equal(y, np.einsum("bij,bjk->bik", a, b))


@pytest.mark.parametrize("equation, shapes, message", [
    ("ij,jk->ix", [(2, 3), (3, 4)], "output letters x occur in no input"),
    ("ij->i", [(2, 3, 4)], "term 'ij' has 2 letters for an input of rank 3"),
    ("ij,jk->ik", [(2, 3), (4, 5)], "'j' stands for sizes 3 and 4"),
    ("ij->i", [(2, 3), (3,)], "1 input terms for 2 inputs"),
    ("...ij->ij", [(2, 3, 4)], "the inputs' '...' stands for dimensions that the output has no"),
    ("ii->i", [(3, 4)], "'i' stands for sizes 3 and 4"),
    ("ii->i", [(1, 4)], "the diagonal 'ii' of an input of shape (1, 4) is not square"),
    ("i1->i", [(3, 4)], "holds other than letters"),
])
def test_einsum_errors_name_the_equation(equation, shapes, message):
    operands = {f"x{i}": np.zeros(s, np.float32) for i, s in enumerate(shapes)}
    text = node_error("Einsum", operands, [("y", TensorProto.FLOAT, [2])], equation=equation)
    assert f"equation '{equation}'" in text and message in text, text


def group_norm_reference(x, groups, scale, bias, epsilon, per_group):
    n, c = x.shape[:2]
    g = x.astype(np.float64).reshape(n, groups, -1)
    g = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + epsilon)
    if per_group:
        return (g * scale.reshape(groups, 1) + bias.reshape(groups, 1)).reshape(x.shape)
    shape = (c,) + (1,) * (x.ndim - 2)
    return g.reshape(x.shape) * scale.reshape(shape) + bias.reshape(shape)


@pytest.fixture
def opset18_group_norm(monkeypatch):
    """onnx >= 1.16 deprecates GroupNormalization's opset-18 definition
    (one scale per group; opset 21 has one per channel): its checker then
    refuses opsets 18 to 20 with that op, which older onnx packages accept.
    The checker is bypassed here to stand for those."""
    monkeypatch.setattr(onnx.checker, "check_model", lambda model: None)


@pytest.mark.parametrize("opset", [18, 21])
@pytest.mark.parametrize("shape", [(2, 6, 4, 5), (3, 6, 7)])
def test_group_normalization_per_group_in_18_per_channel_in_21(rng, opset18_group_norm,
                                                               opset, shape):
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    per_group = opset == 18
    params = 3 if per_group else 6
    scale = rng.standard_normal(params).astype(np.float32)
    bias = rng.standard_normal(params).astype(np.float32)
    (y,) = run_node("GroupNormalization", {"x": x, "scale": scale, "bias": bias},
                    [("y", TensorProto.FLOAT, list(shape))], opset=opset,
                    num_groups=3, epsilon=1e-3)
    np.testing.assert_allclose(y, group_norm_reference(x, 3, scale, bias, 1e-3, per_group),
                               rtol=1e-4, atol=1e-4)


def test_group_normalization_float16_statistics_in_float32(rng):
    x = (rng.standard_normal((2, 4, 8, 8)) * 50 + 100).astype(np.float16)
    scale = rng.standard_normal(4).astype(np.float16)
    bias = rng.standard_normal(4).astype(np.float16)
    (y,) = run_node("GroupNormalization", {"x": x, "scale": scale, "bias": bias},
                    [("y", TensorProto.FLOAT16, [2, 4, 8, 8])], opset=21, num_groups=2)
    want = group_norm_reference(x, 2, scale.astype(np.float64), bias.astype(np.float64),
                                1e-5, False)
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=1e-2, atol=1e-2)


def test_group_normalization_errors_name_the_node_and_the_opset(opset18_group_norm):
    x, p3, p6 = np.zeros((2, 6, 4), np.float32), np.zeros(3, np.float32), np.zeros(6, np.float32)
    out = [("y", TensorProto.FLOAT, [2, 6, 4])]
    message = node_error("GroupNormalization", {"x": x, "scale": p3, "bias": p3}, out,
                         opset=21, num_groups=3)
    assert "scale must have shape (6,) (one value per channel in opset 21's" in message
    message = node_error("GroupNormalization", {"x": x, "scale": p6, "bias": p6}, out,
                         opset=18, num_groups=3)
    assert "scale must have shape (3,) (one value per group in opset 18's" in message
    message = node_error("GroupNormalization", {"x": x, "scale": p6, "bias": p6}, out,
                         opset=21, num_groups=4)
    assert "num_groups 4 does not divide the 6 channels" in message


def lrn_reference(x, size, alpha, beta, bias):
    x = x.astype(np.float64)
    channels = x.shape[1]
    square_sum = np.zeros_like(x)
    for c in range(channels):
        lo = max(0, c - (size - 1) // 2)
        hi = min(channels - 1, c + -(-(size - 1) // 2))
        square_sum[:, c] = (x[:, lo:hi + 1] ** 2).sum(axis=1)
    return x / (bias + alpha / size * square_sum) ** beta


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 14])
def test_lrn_windows(rng, size):
    # Even sizes reach further after the channel than before it; a size
    # past the channels covers all of them.
    x = rng.standard_normal((2, 6, 3, 4)).astype(np.float32)
    (y,) = run_node("LRN", {"x": x}, [("y", TensorProto.FLOAT, [2, 6, 3, 4])],
                    size=size, alpha=0.9, beta=0.75, bias=1.5)
    np.testing.assert_allclose(y, lrn_reference(x, size, 0.9, 0.75, 1.5), rtol=1e-5, atol=1e-6)


def test_lrn_rank3_and_defaults(rng):
    x = (rng.standard_normal((2, 5, 7)) * 10).astype(np.float32)
    (y,) = run_node("LRN", {"x": x}, [("y", TensorProto.FLOAT, [2, 5, 7])], size=3)
    np.testing.assert_allclose(y, lrn_reference(x, 3, 1e-4, 0.75, 1.0), rtol=1e-5, atol=1e-6)


def test_lrn_errors_name_the_node():
    message = node_error("LRN", {"x": np.zeros((2, 3, 4), np.float32)},
                         [("y", TensorProto.FLOAT, [2, 3, 4])], size=0)
    assert "size must be 1 or more, got 0" in message


# --------------------------------------------------------------------------
# More ops built from other jeet ops: Swish, RMSNormalization, Range,
# CumProd, ReverseSequence (float64 or exact NumPy references)
# --------------------------------------------------------------------------

_NP_TO_ONNX[np.dtype(np.bool_)] = TensorProto.BOOL


def needs_schema(op):
    try:
        onnx.defs.get_schema(op)
    except onnx.defs.SchemaError:
        pytest.skip(f"this onnx package does not define {op}")


def sigmoid64(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.mark.parametrize("alpha", [None, 1.0, 0.5, -2.0])
def test_swish_with_alpha(rng, alpha):
    needs_schema("Swish")
    x = (rng.standard_normal((3, 4, 5)) * 4).astype(np.float32)
    attrs = {} if alpha is None else {"alpha": alpha}
    (y,) = run_node("Swish", {"x": x}, [("y", TensorProto.FLOAT, [3, 4, 5])], opset=24, **attrs)
    x64 = x.astype(np.float64)
    a = 1.0 if alpha is None else alpha
    np.testing.assert_allclose(y, x64 * sigmoid64(a * x64), rtol=1e-5, atol=1e-6)


def test_ops_newer_than_the_models_opset_are_refused():
    # Swish is an op of opset 24: a model of opset 23 cannot use it.
    needs_schema("Swish")
    model = make_model([helper.make_node("Swish", ["x"], ["y"], name="sw")],
                       [f32("x", [2])], [f32("y", [2])], opset=23)
    with pytest.raises(OnnxImportError):
        jeet.onnx.load(model)
    from jeet.onnx import _importer
    with pytest.raises(UnsupportedOpsError) as error:
        _importer.scan_unsupported(model, jeet.onnx._ops.CONVERTERS, jeet.onnx._ops.FOLDERS)
    assert error.value.ops == {"Swish (not an op of ONNX opset 23)": ["sw"]}


def rms_norm_reference(x, scale, axis, epsilon):
    x = x.astype(np.float64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    return x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + epsilon) * scale.astype(np.float64)


@pytest.mark.parametrize("axis, scale_shape", [
    (-1, (6,)), (1, (4, 5, 6)), (2, (1, 6)), (0, (3, 4, 5, 6)), (-3, (4, 1, 6)),
])
def test_rms_normalization_axes_and_scale_broadcast(rng, axis, scale_shape):
    needs_schema("RMSNormalization")
    x = (rng.standard_normal((3, 4, 5, 6)) * 3 + 0.5).astype(np.float32)
    scale = rng.standard_normal(scale_shape).astype(np.float32)
    (y,) = run_node("RMSNormalization", {"x": x, "scale": scale},
                    [("y", TensorProto.FLOAT, list(x.shape))], opset=23,
                    axis=axis, epsilon=1e-3)
    np.testing.assert_allclose(y, rms_norm_reference(x, scale, axis, 1e-3), rtol=1e-5, atol=1e-5)


def test_rms_normalization_float16_statistics_in_float32(rng):
    # Squares of float16 values near 300 overflow float16 (65504): the
    # statistics must be computed in float32 (stash_type 1, the default).
    needs_schema("RMSNormalization")
    x = (rng.standard_normal((4, 64)) * 30 + 300).astype(np.float16)
    scale = rng.standard_normal(64).astype(np.float16)
    (y,) = run_node("RMSNormalization", {"x": x, "scale": scale},
                    [("y", TensorProto.FLOAT16, [4, 64])], opset=23)
    assert y.dtype == np.float16 and np.isfinite(y).all()
    np.testing.assert_allclose(y.astype(np.float64), rms_norm_reference(x, scale, -1, 1e-5),
                               rtol=2e-3, atol=2e-3)


def test_rms_normalization_errors_name_the_node():
    needs_schema("RMSNormalization")
    x = np.zeros((2, 3, 4), np.float32)
    message = node_error("RMSNormalization", {"x": x, "scale": np.zeros(3, np.float32)},
                         [("y", TensorProto.FLOAT, [2, 3, 4])], opset=23)
    assert "scale (3,) does not broadcast to the input (2, 3, 4)" in message


def range_model(start, limit, delta, elem_type):
    """y = Range(start, limit, delta), the bounds initializers."""
    bounds = {"start": start, "limit": limit, "delta": delta}
    inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in bounds.items()]
    node = helper.make_node("Range", ["start", "limit", "delta"], ["y"], name="node")
    return make_model([node], [], [helper.make_tensor_value_info("y", elem_type, ["n"])],
                      inits)


@pytest.mark.parametrize("start, limit, delta, dtype", [
    (3, 9, 3, np.int64), (10, 4, -2, np.int32), (-7, 20, 4, np.int64),
    (0.5, 3.7, 0.3, np.float32), (2.0, -1.0, -0.25, np.float32), (1.0, 1.7, 0.5, np.float32),
])
def test_range_of_values_known_at_load(start, limit, delta, dtype):
    # Integer bounds fold with the shape arithmetic; float ones are
    # converted to a value known at load. start + i * delta, i below
    # ceil((limit - start) / delta).
    values = [np.asarray(v, dtype) for v in (start, limit, delta)]
    model = range_model(*values, _NP_TO_ONNX[np.dtype(dtype)])
    (y,) = jeet.onnx.load(model, device="cpu")()
    s, l, d = (float(v) for v in values)
    count = max(int(np.ceil((l - s) / d)), 0)
    want = (s + np.arange(count) * d).astype(dtype)
    assert np.asarray(y).dtype == dtype
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-6)


def test_range_feeds_run_time_ops_and_compiles_its_bounds_by_value(rng):
    # Range's float positions scale x; its limit is a graph input (it
    # decides the shape): compiled once per value.
    nodes = [helper.make_node("Range", ["start", "limit", "delta"], ["r"], name="node"),
             helper.make_node("Mul", ["x", "r"], ["y"])]
    model = make_model(
        nodes, [f32("x", [3, 1]), f32("limit", [])], [f32("y", [3, "n"])],
        [numpy_helper.from_array(np.asarray(0.5, np.float32), "start"),
         numpy_helper.from_array(np.asarray(1.5, np.float32), "delta")])
    compiled = jeet.onnx.load(model, device="cpu")
    x = rng.standard_normal((3, 1)).astype(np.float32)
    for limit in (5.0, 9.5):
        (y,) = compiled(x, np.asarray(limit, np.float32))
        np.testing.assert_allclose(np.asarray(y), x * np.arange(0.5, limit, 1.5, np.float32),
                                   rtol=1e-6)
    assert compiled.static_inputs == ["limit"]


def test_range_of_a_length_cast_from_an_integer_input_compiles_it_by_value():
    # A window of n float positions, n an int32 graph input cast to float
    # (the expanded HannWindow functions): n is compiled by value.
    nodes = [helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT),
             helper.make_node("Range", ["zero", "nf", "one"], ["y"], name="node")]
    model = make_model(
        nodes, [helper.make_tensor_value_info("n", TensorProto.INT32, [])], [f32("y", ["len"])],
        [numpy_helper.from_array(np.asarray(0.0, np.float32), "zero"),
         numpy_helper.from_array(np.asarray(1.0, np.float32), "one")])
    compiled = jeet.onnx.load(model, device="cpu")
    for n in (4, 7):
        (y,) = compiled(np.asarray(n, np.int32))
        np.testing.assert_array_equal(np.asarray(y), np.arange(n, dtype=np.float32))
    assert compiled.static_inputs == ["n"]


def test_range_errors_name_the_node():
    # Bounds computed from tensor data: the shape would depend on them.
    nodes = [helper.make_node("ReduceMax", ["x"], ["m"], name="max", keepdims=0),
             helper.make_node("Range", ["zero", "m", "one"], ["y"], name="node")]
    model = make_model(nodes, [f32("x", [3])], [f32("y", ["n"])],
                       [numpy_helper.from_array(np.asarray(0.0, np.float32), "zero"),
                        numpy_helper.from_array(np.asarray(1.0, np.float32), "one")])
    with pytest.raises(OnnxImportError, match=r"Range node 'node': limit \(input 'm'\) is "
                       r"computed at run time by node 'max': the output's length.*would "
                       r"depend on run-time values"):
        jeet.onnx.load(model)
    zero = [np.asarray(v, np.float32) for v in (0.0, 3.0, 0.0)]
    with pytest.raises(OnnxImportError, match="Range node 'node': delta must not be 0"):
        jeet.onnx.load(range_model(*zero, TensorProto.FLOAT))


def cumprod_reference(x, axis, exclusive, reverse):
    x = np.flip(x, axis) if reverse else x
    x = x.astype(np.float64) if x.dtype.kind == "f" else x
    if exclusive:
        x = np.concatenate([np.ones_like(np.take(x, [0], axis)), np.delete(x, -1, axis)], axis)
    y = np.cumprod(x, axis=axis)
    return np.flip(y, axis) if reverse else y


@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("axis", [1, -1])
def test_cumprod_exclusive_and_reverse(rng, exclusive, reverse, axis):
    needs_schema("CumProd")
    # Factors near 1 (products neither vanish nor overflow), sizes that are
    # not powers of two, a few negative.
    x = (np.exp(rng.standard_normal((3, 37, 21)) * 0.1)
         * rng.choice([1, -1], size=(3, 37, 21), p=[0.9, 0.1])).astype(np.float32)
    (y,) = run_node("CumProd", {"x": x}, [("y", TensorProto.FLOAT, list(x.shape))],
                    {"axis": np.asarray(axis, np.int64)}, opset=26,
                    exclusive=exclusive, reverse=reverse)
    np.testing.assert_allclose(y, cumprod_reference(x, axis, exclusive, reverse),
                               rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_cumprod_integers_are_exact(rng, dtype):
    needs_schema("CumProd")
    x = rng.integers(-3, 4, size=(13, 3)).astype(dtype)
    for exclusive, reverse in [(0, 0), (1, 1), (0, 1)]:
        (y,) = run_node("CumProd", {"x": x}, [("y", _NP_TO_ONNX[np.dtype(dtype)], [13, 3])],
                        {"axis": np.asarray(0, np.int32)}, opset=26,
                        exclusive=exclusive, reverse=reverse)
        np.testing.assert_array_equal(y, cumprod_reference(x, 0, exclusive, reverse))


def reverse_sequence_reference(x, lengths, batch_axis, time_axis):
    y = x.copy()
    for b, n in enumerate(lengths):
        index = [slice(None)] * x.ndim
        index[batch_axis] = b
        source = list(index)
        index[time_axis] = slice(0, n)
        source[time_axis] = slice(n - 1, None, -1) if n else slice(0, 0)
        y[tuple(index)] = x[tuple(source)]
    return y


@pytest.mark.parametrize("batch_axis, time_axis", [(1, 0), (0, 1)])
@pytest.mark.parametrize("shape", [(6, 5), (6, 5, 3, 2)])
def test_reverse_sequence_per_batch_lengths(rng, batch_axis, time_axis, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    steps, batch = shape[time_axis], shape[batch_axis]
    # Every length from 0 (nothing reversed) to all the steps.
    lengths = rng.permutation(np.arange(batch) % (steps + 1)).astype(np.int64)
    (y,) = run_node("ReverseSequence", {"x": x, "lens": lengths},
                    [("y", TensorProto.FLOAT, list(shape))],
                    batch_axis=batch_axis, time_axis=time_axis)
    np.testing.assert_array_equal(y, reverse_sequence_reference(x, lengths, batch_axis, time_axis))


def test_reverse_sequence_of_ints_and_bools(rng):
    x = rng.integers(-100, 100, size=(4, 7, 2)).astype(np.int32)
    lengths = np.asarray([1, 4, 0, 3, 2, 4, 1], np.int64)
    (y,) = run_node("ReverseSequence", {"x": x, "lens": lengths},
                    [("y", TensorProto.INT32, [4, 7, 2])])
    np.testing.assert_array_equal(y, reverse_sequence_reference(x, lengths, 1, 0))
    mask = x > 0
    (m,) = run_node("ReverseSequence", {"x": mask, "lens": lengths},
                    [("y", TensorProto.BOOL, [4, 7, 2])])
    np.testing.assert_array_equal(m, reverse_sequence_reference(mask, lengths, 1, 0))


def test_reverse_sequence_errors_name_the_node():
    x = np.zeros((4, 3), np.float32)
    message = node_error("ReverseSequence", {"x": x, "lens": np.zeros(4, np.int64)},
                         [("y", TensorProto.FLOAT, [4, 3])])
    assert "sequence_lens must have shape (3,) (one length per batch entry), got (4,)" in message
    message = node_error("ReverseSequence", {"x": x, "lens": np.zeros(4, np.int64)},
                         [("y", TensorProto.FLOAT, [4, 3])], batch_axis=0, time_axis=0)
    assert "batch_axis (0) and time_axis (0) must be 0 and 1, one each" in message


@pytest.mark.parametrize("alpha", [None, 1.702])
def test_swiglu_gates_b_with_swish_of_a(rng, alpha):
    needs_schema("SwiGLU")
    a = (rng.standard_normal((2, 3, 8)) * 3).astype(np.float32)
    b = rng.standard_normal((2, 3, 8)).astype(np.float32)
    attrs = {} if alpha is None else {"alpha": alpha}
    (y,) = run_node("SwiGLU", {"a": a, "b": b}, [("y", TensorProto.FLOAT, [2, 3, 8])],
                    opset=28, **attrs)
    a64 = a.astype(np.float64)
    k = 1.0 if alpha is None else alpha
    np.testing.assert_allclose(y, a64 * sigmoid64(k * a64) * b, rtol=1e-5, atol=1e-6)


def test_swiglu_does_not_broadcast():
    needs_schema("SwiGLU")
    message = node_error("SwiGLU", {"a": np.zeros((2, 4), np.float32),
                                    "b": np.zeros((1, 4), np.float32)},
                         [("y", TensorProto.FLOAT, [2, 4])], opset=28)
    assert "A (2, 4) and B (1, 4) must have the same shape" in message


def rotary_reference(x, cos, sin, positions, interleaved, dim, num_heads):
    """RoPE in float64, written from the definition independently of
    onnx's reference: x (batch, heads, seq, head) or (batch, seq, hidden)."""
    x = x.astype(np.float64)
    three_d = x.ndim == 3
    if three_d:
        b, s, h = x.shape
        x = x.reshape(b, s, num_heads, h // num_heads).transpose(0, 2, 1, 3)
    dim = dim or x.shape[-1]
    if positions is not None:
        cos, sin = cos[positions], sin[positions]
    cos = cos.astype(np.float64)[:, None]
    sin = sin.astype(np.float64)[:, None]
    y = x.copy()
    for i in range(dim // 2):
        j, k = (2 * i, 2 * i + 1) if interleaved else (i, i + dim // 2)
        c, s_ = cos[..., i], sin[..., i]
        y[..., j] = c * x[..., j] - s_ * x[..., k]
        y[..., k] = s_ * x[..., j] + c * x[..., k]
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(b, s, -1)
    return y


@pytest.mark.parametrize("rank3, interleaved, dim, with_positions", [
    (False, 0, 0, True), (False, 1, 0, True), (True, 0, 4, True), (True, 1, 6, False),
    (False, 0, 6, False),
])
def test_rotary_embedding(rng, rank3, interleaved, dim, with_positions):
    needs_schema("RotaryEmbedding")
    batch, heads, seq, head = 2, 3, 5, 8
    x = rng.standard_normal((batch, heads, seq, head)).astype(np.float32)
    if rank3:
        x = x.transpose(0, 2, 1, 3).reshape(batch, seq, heads * head)
    half = (dim or head) // 2
    rows = (11, half) if with_positions else (batch, seq, half)
    angles = rng.uniform(0, 6.3, rows)
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    inputs = {"x": x, "cos": cos, "sin": sin}
    positions = None
    if with_positions:
        positions = rng.integers(0, 11, (batch, seq)).astype(np.int64)
        inputs["pos"] = positions
    attrs = {"interleaved": interleaved, "rotary_embedding_dim": dim}
    if rank3:
        attrs["num_heads"] = heads
    (y,) = run_node("RotaryEmbedding", inputs, [("y", TensorProto.FLOAT, list(x.shape))],
                    opset=23, **attrs)
    want = rotary_reference(x, cos, sin, positions, interleaved, dim, heads)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_rotary_embedding_errors_name_the_node():
    needs_schema("RotaryEmbedding")
    x = np.zeros((1, 2, 3, 8), np.float32)
    cache = np.zeros((4, 3), np.float32)
    message = node_error("RotaryEmbedding", {"x": x, "cos": cache, "sin": cache,
                                             "pos": np.zeros((1, 3), np.int64)},
                         [("y", TensorProto.FLOAT, [1, 2, 3, 8])], opset=23)
    assert "cos_cache (4, 3) must be (max_position, 4)" in message
    message = node_error("RotaryEmbedding", {"x": np.zeros((1, 3, 10), np.float32),
                                             "cos": cache, "sin": cache},
                         [("y", TensorProto.FLOAT, [1, 3, 10])], opset=23, num_heads=3)
    assert "needs num_heads dividing its hidden size, got num_heads=3" in message


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
def test_windows_compile_their_size_by_value(op, periodic):
    # The size decides the shape: a graph input, compiled once per value.
    node = helper.make_node(op, ["n"], ["y"], name="node", periodic=periodic)
    model = make_model([node], [helper.make_tensor_value_info("n", TensorProto.INT64, [])],
                       [f32("y", ["len"])], opset=17)
    compiled = jeet.onnx.load(model, device="cpu")
    for size in (1, 2, 9, 16):
        (y,) = compiled(np.asarray(size, np.int64))
        N = size if periodic else size - 1
        i = np.arange(size, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            c1, c2 = np.cos(2 * np.pi * i / N), np.cos(4 * np.pi * i / N)
        want = {"HannWindow": 0.5 - 0.5 * c1, "HammingWindow": 25 / 46 - 21 / 46 * c1,
                "BlackmanWindow": 0.42 - 0.5 * c1 + 0.08 * c2}[op] if N else np.ones(1)
        assert np.asarray(y).dtype == np.float32
        np.testing.assert_allclose(np.asarray(y), want, rtol=1e-6, atol=1e-7)
    assert compiled.static_inputs == ["n"]


def test_window_of_float16_and_run_time_size_error(rng):
    (y,) = run_node("HannWindow", {}, [("y", TensorProto.FLOAT16, [5])],
                    {"n": np.asarray(5, np.int32)}, opset=17,
                    output_datatype=TensorProto.FLOAT16, periodic=0)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y, [0, 0.5, 1, 0.5, 0], atol=1e-3)
    # A size computed from tensor data (an ArgMax) cannot decide a shape.
    nodes = [helper.make_node("ArgMax", ["x"], ["k"], keepdims=0),
             helper.make_node("HannWindow", ["k"], ["y"], name="node")]
    model = make_model(nodes, [f32("x", [4])], [f32("y", ["len"])], opset=17)
    with pytest.raises(OnnxImportError) as error:
        jeet.onnx.load(model, device="cpu")
    assert "HannWindow node 'node': size (input 'k') is computed at run time" in str(error.value)


def nll_reference(log_prob, target, weight, reduction, ignore_index):
    """NegativeLogLikelihoodLoss in float64 from its definition."""
    log_prob = log_prob.astype(np.float64)
    classes = log_prob.shape[1]
    w = np.ones(classes) if weight is None else weight.astype(np.float64)
    loss = np.zeros(target.shape)
    scale = np.zeros(target.shape)
    for position in np.ndindex(*target.shape):
        t = int(target[position])
        if t == ignore_index:
            continue
        scale[position] = w[t]
        loss[position] = -log_prob[(position[0], t) + position[1:]] * w[t]
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / scale.sum()


def log_softmax64(x, axis):
    x = x.astype(np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("op", ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
@pytest.mark.parametrize("shape, reduction, weighted, ignore_index", [
    ((6, 5), "mean", False, None), ((6, 5), "none", True, 2), ((3, 5, 4), "sum", True, None),
    ((3, 5, 4, 2), "mean", True, -1), ((3, 5, 4, 2), "mean", False, 7),
    ((4, 5, 3), "none", False, None),
])
def test_losses(rng, op, shape, reduction, weighted, ignore_index):
    x = rng.standard_normal(shape).astype(np.float32)
    classes = shape[1]
    target = rng.integers(0, classes, (shape[0],) + shape[2:]).astype(np.int64)
    if ignore_index is not None:
        target[rng.random(target.shape) < 0.3] = ignore_index
        target.reshape(-1)[0] = 1  # not all ignored
    inputs = {"x": x, "t": target}
    weight = None
    if weighted:
        weight = rng.uniform(0.2, 2.0, classes).astype(np.float32)
        inputs["w"] = weight
    attrs = {"reduction": reduction}
    if ignore_index is not None:
        attrs["ignore_index"] = ignore_index
    loss_shape = list(target.shape) if reduction == "none" else []
    outputs = [("loss", TensorProto.FLOAT, loss_shape)]
    if op == "SoftmaxCrossEntropyLoss":
        outputs.append(("log_prob", TensorProto.FLOAT, list(shape)))
    results = run_node(op, inputs, outputs, opset=13, **attrs)
    log_prob = log_softmax64(x, 1) if op == "SoftmaxCrossEntropyLoss" else x
    want = nll_reference(log_prob, target, weight, reduction, ignore_index)
    assert results[0].shape == np.shape(want)
    np.testing.assert_allclose(results[0], want, rtol=1e-5, atol=1e-6)
    if op == "SoftmaxCrossEntropyLoss":
        np.testing.assert_allclose(results[1], log_prob, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
def test_loss_errors_name_the_node(op):
    x = np.zeros((4, 3, 2), np.float32)
    message = node_error(op, {"x": x, "t": np.zeros((4, 3), np.int64)},
                         [("loss", TensorProto.FLOAT, [])], opset=13)
    assert "target (4, 3) must be (4, 2) for the input (4, 3, 2)" in message
    message = node_error(op, {"x": x, "t": np.zeros((4, 2), np.int64),
                              "w": np.ones(2, np.float32)},
                         [("loss", TensorProto.FLOAT, [])], opset=13)
    assert "weight (2,) must be (3,), one per class" in message
    message = node_error(op, {"x": x, "t": np.zeros((4, 2), np.int64)},
                         [("loss", TensorProto.FLOAT, [])], opset=13, reduction="max")
    assert "reduction must be 'none', 'sum' or 'mean', got 'max'" in message


def conv_transpose_reference(x, w, b, strides, pads, dilations, group, output_padding):
    """ConvTranspose in float64 by scattering: each input element times the
    filter of its group added at (position * stride) of the full output,
    which the pads then crop (a negative pad end adds zeros). 2-D, NCHW."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c_in, h, wd = x.shape
    _, c_out_g, kh, kw = w.shape
    c_in_g = c_in // group
    (sh, sw), (dh, dw), (oh, ow) = strides, dilations, output_padding
    full = np.zeros((n, c_out_g * group, sh * (h - 1) + oh + (kh - 1) * dh + 1,
                     sw * (wd - 1) + ow + (kw - 1) * dw + 1))
    for c in range(c_in):
        g = c // c_in_g
        for i in range(h):
            for j in range(wd):
                for p in range(kh):
                    for q in range(kw):
                        full[:, g * c_out_g:(g + 1) * c_out_g, i * sh + p * dh,
                             j * sw + q * dw] += x[:, c, i, j][:, None] * w[c, :, p, q]
    top, left, bottom, right = pads
    full = np.pad(full, [(0, 0), (0, 0), (0, max(-bottom, 0)), (0, max(-right, 0))])
    y = full[:, :, top:full.shape[2] - max(bottom, 0), left:full.shape[3] - max(right, 0)]
    if b is not None:
        y = y + b.astype(np.float64)[:, None, None]
    return y


@pytest.mark.parametrize("shape, c_out_g, kernel, strides, pads, dilations, group, outpad, bias", [
    ((2, 3, 4, 5), 2, (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1, (0, 0), False),
    ((1, 2, 3, 4), 3, (3, 2), (2, 3), (1, 0, 0, 1), (1, 1), 1, (1, 2), True),
    ((2, 4, 5, 3), 1, (2, 3), (3, 2), (2, 1, 1, 2), (2, 3), 2, (0, 1), True),
    ((1, 6, 3, 3), 2, (3, 3), (2, 2), (1, 1, 1, 1), (1, 2), 3, (1, 0), False),
])
def test_conv_transpose_scatters_the_filter(rng, shape, c_out_g, kernel, strides, pads,
                                             dilations, group, outpad, bias):
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((shape[1], c_out_g) + kernel).astype(np.float32)
    b = rng.standard_normal(c_out_g * group).astype(np.float32) if bias else None
    want = conv_transpose_reference(x, w, b, strides, pads, dilations, group, outpad)
    inputs = {"x": x, "w": w, **({"b": b} if bias else {})}
    (y,) = run_node("ConvTranspose", inputs, [("y", TensorProto.FLOAT, list(want.shape))],
                    strides=list(strides), pads=[pads[0], pads[1], pads[2], pads[3]],
                    dilations=list(dilations), group=group, output_padding=list(outpad))
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_conv_transpose_1d(rng):
    x = rng.standard_normal((2, 3, 6)).astype(np.float32)
    w = rng.standard_normal((3, 2, 4)).astype(np.float32)
    want = conv_transpose_reference(x[:, :, None], w[:, :, None], None, (1, 3), (0, 2, 0, 1),
                                    (1, 2), 1, (0, 1))[:, :, 0]
    (y,) = run_node("ConvTranspose", {"x": x, "w": w},
                    [("y", TensorProto.FLOAT, list(want.shape))],
                    strides=[3], pads=[2, 1], dilations=[2], output_padding=[1])
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("attrs", [
    {"output_shape": [10, 9]}, {"output_shape": [7, 8]},
    {"auto_pad": "SAME_UPPER"}, {"auto_pad": "SAME_LOWER"},
    {"auto_pad": "SAME_LOWER", "output_shape": [8, 9]},
])
def test_conv_transpose_output_shape_and_auto_pad(rng, attrs):
    # The pads that give the output shape (the input's times the strides
    # for SAME_*): their total split evenly, the odd one at the end for
    # SAME_UPPER, else at the beginning.
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    strides = (3, 2)
    out = attrs.get("output_shape", [3 * 3, 4 * 2])
    total = [s * (i - 1) + 3 - o for s, i, o in zip(strides, (3, 4), out)]
    if attrs.get("auto_pad") == "SAME_UPPER":
        pads = (total[0] // 2, total[1] // 2, total[0] - total[0] // 2, total[1] - total[1] // 2)
    else:
        pads = (total[0] - total[0] // 2, total[1] - total[1] // 2, total[0] // 2, total[1] // 2)
    want = conv_transpose_reference(x, w, None, strides, pads, (1, 1), 1, (0, 0))
    assert list(want.shape[2:]) == out
    (y,) = run_node("ConvTranspose", {"x": x, "w": w},
                    [("y", TensorProto.FLOAT, list(want.shape))], strides=list(strides), **attrs)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_conv_transpose_errors_name_the_node():
    message = node_error("ConvTranspose", {"x": np.zeros((1, 2, 3, 3, 3), np.float32),
                                           "w": np.zeros((2, 2, 2, 2, 2), np.float32)},
                         [("y", TensorProto.FLOAT, [1, 2, 4, 4, 4])])
    assert "a 3-D transposed convolution (1-D and 2-D are) is not supported" in message
    message = node_error("ConvTranspose", {"x": np.zeros((1, 2, 3, 3), np.float32),
                                           "w": np.zeros((2, 2, 2, 2), np.float32)},
                         [("y", TensorProto.FLOAT, [1, 2, 4, 4])],
                         output_shape=[4, 4], pads=[0, 0, 0, 0])
    assert "output_shape together with pads is not supported by Jeet" in message


@pytest.mark.parametrize("shape, attrs, scales, sizes, factors", [
    # half_pixel (the default) with round_prefer_floor repeats each element.
    ((2, 3, 4, 5), {}, [1, 1, 2, 3], None, (1, 1, 2, 3)),
    ((2, 3, 4), {"coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
     None, [2, 12, 8], (1, 4, 2)),
    ((2, 3, 4, 5), {"axes": [3, 1]}, [2, 2], None, (1, 2, 1, 2)),
    ((1, 2, 3, 4), {"coordinate_transformation_mode": "pytorch_half_pixel",
                    "nearest_mode": "round_prefer_ceil"}, None, [1, 2, 6, 4], (1, 1, 2, 1)),
    ((1, 2, 3, 4), {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"},
     None, [9, 13], (1, 1, 3, 3)),
])
def test_resize_nearest_repeats_by_whole_factors(rng, shape, attrs, scales, sizes, factors):
    x = rng.standard_normal(shape).astype(np.float32)
    want = x.astype(np.float64)
    for axis, f in enumerate(factors):
        want = np.repeat(want, f, axis=axis)
    inputs = {"x": x}
    order = ["x", ""]
    if scales is not None:
        inputs["scales"] = np.array(scales, np.float32)
        order.append("scales")
    else:
        inputs["sizes"] = np.array(sizes, np.int64)
        order += ["", "sizes"]
    (y,) = run_node("Resize", inputs, [("y", TensorProto.FLOAT, list(want.shape))],
                    order=order, mode="nearest", **attrs)
    assert y.shape == want.shape
    np.testing.assert_array_equal(y, want)


def resize_reference(x, roi, scales, sizes, **attrs):
    """The ONNX reference implementation's Resize of x in float64."""
    from onnx.reference import ReferenceEvaluator
    feeds = {"x": x.astype(np.float64)}
    names = ["x"]
    for name, value in (("roi", roi), ("scales", scales), ("sizes", sizes)):
        if value is None:
            names.append("")
        else:
            feeds[name] = value
            names.append(name)
    while names[-1] == "":
        names.pop()
    inputs = [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype),
                                            list(v.shape)) for k, v in feeds.items()]
    node = helper.make_node("Resize", names, ["y"], **attrs)
    model = make_model([node], inputs, [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)])
    return ReferenceEvaluator(model).run(None, feeds)[0], names


@pytest.mark.parametrize("shape, attrs, roi, scales, sizes", [
    # torch's bilinear (align_corners=False) and bicubic upsampling.
    ((2, 3, 5, 7), {"mode": "linear"}, None, [1, 1, 2, 2], None),
    ((2, 3, 5, 7), {"mode": "cubic", "coordinate_transformation_mode": "pytorch_half_pixel"},
     None, [1, 1, 2, 2], None),
    # Sizes that are not whole multiples, both ways.
    ((1, 2, 6, 5), {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
     None, None, [1, 2, 9, 3]),
    ((1, 2, 6, 5), {"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
                    "nearest_mode": "floor"}, None, None, [1, 2, 4, 8]),
    ((1, 2, 6, 5), {"mode": "nearest", "nearest_mode": "round_prefer_ceil"},
     None, [1, 1, 0.5, 1.5], None),
    ((3, 8, 6), {"mode": "linear", "axes": [2, 1],
                 "coordinate_transformation_mode": "half_pixel_symmetric"},
     None, [1.7, 0.8], None),
    # Antialiased downsampling: kernels widened by 1 / scale.
    ((1, 1, 12, 10), {"mode": "linear", "antialias": 1}, None, [1, 1, 0.6, 0.35], None),
    ((1, 1, 12, 10), {"mode": "cubic", "antialias": 1}, None, None, [1, 1, 5, 7]),
    # The cubic kernel's coefficient, and the neighbours outside the input
    # left out (the others reweighted).
    ((2, 4, 7), {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1},
     None, [1, 1, 2.5], None),
    # A crop: outputs whose source falls outside the input take the
    # extrapolation value.
    ((1, 1, 6, 6), {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize",
                    "extrapolation_value": 7.5},
     [0, 0, -0.2, 0.3, 1, 1, 0.9, 1.4], None, [1, 1, 5, 4]),
], ids=str)
def test_resize_as_the_onnx_reference(rng, shape, attrs, roi, scales, sizes):
    x = rng.standard_normal(shape).astype(np.float32)
    roi = None if roi is None else np.array(roi, np.float32)
    scales = None if scales is None else np.array(scales, np.float32)
    sizes = None if sizes is None else np.array(sizes, np.int64)
    want, order = resize_reference(x, roi, scales, sizes, **attrs)
    inputs = {"x": x}
    for name, value in (("roi", roi), ("scales", scales), ("sizes", sizes)):
        if value is not None:
            inputs[name] = value
    (y,) = run_node("Resize", inputs, [("y", TensorProto.FLOAT, list(want.shape))],
                    order=order, **attrs)
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_resize_of_float16_computes_in_float32(rng):
    x = rng.standard_normal((1, 3, 6, 5)).astype(np.float16)
    scales = np.array([1, 1, 1.5, 2], np.float32)
    want, order = resize_reference(x, None, scales, None, mode="cubic")
    (y,) = run_node("Resize", {"x": x, "scales": scales},
                    [("y", TensorProto.FLOAT16, list(want.shape))], order=order, mode="cubic")
    assert y.dtype == np.float16
    # Rounded once from float32: within one unit in the last place of
    # float16 everywhere (summed in float16, the taps' roundings add up past
    # it).
    ulp = np.spacing(np.abs(want).astype(np.float16)).astype(np.float64)
    # Plus float32's own error on the 16 taps, relative to their size (the
    # cubic weights sum to at most 4 in absolute value over 4x4 taps): where
    # the taps cancel to a tiny result (-9.4e-4, seed 2149459796), float32's
    # 1e-6 is 2.5 of float16's units there.
    taps = 4 * float(np.abs(x.astype(np.float64)).max())
    slack = 4 * float(np.finfo(np.float32).eps) * taps
    error = np.abs(y.astype(np.float64) - want)
    assert np.all(error <= ulp + slack), float(np.max(error / ulp))


@pytest.mark.parametrize("attrs, scales, message", [
    ({"mode": "area"}, [1, 1, 2, 2], "mode 'area' is not one of nearest, linear, cubic"),
    ({"mode": "nearest", "antialias": 1}, [1, 1, 0.5, 1],
     "antialias applies to modes linear and cubic, not nearest"),
    ({"coordinate_transformation_mode": "tf_crop_and_resize"}, [1, 1, 2, 1],
     "coordinate_transformation_mode 'tf_crop_and_resize' needs roi"),
    ({"coordinate_transformation_mode": "corners"}, [1, 1, 2, 1],
     "coordinate_transformation_mode 'corners' is not one of half_pixel"),
    ({"nearest_mode": "round"}, [1, 1, 2, 1], "nearest_mode 'round' is not one of"),
    ({}, [1, 1, -2, 1], "scales [1.0, 1.0, -2.0, 1.0] must be positive"),
    ({}, [1, 1, 0.2, 1], "an empty result (output sizes [1, 2, 0, 4] on axes [0, 1, 2, 3]) "
                         "is not supported by Jeet"),
])
def test_resize_errors_name_the_node(attrs, scales, message):
    x = np.zeros((1, 2, 4, 4), np.float32)
    got = node_error("Resize", {"x": x, "scales": np.array(scales, np.float32)},
                     [("y", TensorProto.FLOAT, [1, 2, 8, 4])], order=["x", "", "scales"],
                     **attrs)
    assert message in got


def test_resize_linear_of_integers_is_refused():
    x = np.zeros((1, 2, 4, 4), np.int64)
    got = node_error("Resize", {"x": x, "scales": np.array([1, 1, 2, 2], np.float32)},
                     [("y", TensorProto.INT64, [1, 2, 8, 8])], order=["x", "", "scales"],
                     mode="linear")
    assert "mode 'linear' needs a floating-point input, got int64" in got


@pytest.mark.parametrize("mode", ["edge", "reflect", "wrap"])
@pytest.mark.parametrize("pads, axes", [
    ([1, 2, 0, 3, 2, 1], None),
    ([2, 0, 1, 3], [2, -3]),
    # A negative pad crops first; the modes then repeat what is left.
    ([0, -1, 2, 0, 2, 1], None),
], ids=str)
def test_pad_modes(rng, mode, pads, axes):
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    inputs = {"x": x, "pads": np.array(pads, np.int64)}
    order = ["x", "pads"]
    if axes is not None:
        inputs["axes"] = np.array(axes, np.int64)
        order += ["", "axes"]
    axes = [a % 3 for a in axes] if axes is not None else [0, 1, 2]
    crop = [slice(None)] * 3
    widths = [(0, 0)] * 3
    for k, a in enumerate(axes):
        before, after = pads[k], pads[k + len(axes)]
        crop[a] = slice(max(-before, 0), x.shape[a] - max(-after, 0))
        widths[a] = (max(before, 0), max(after, 0))
    want = np.pad(x.astype(np.float64)[tuple(crop)], widths, mode=mode)
    (y,) = run_node("Pad", inputs, [("y", TensorProto.FLOAT, list(want.shape))],
                    order=order, mode=mode)
    np.testing.assert_array_equal(y, want)


def test_pad_mode_errors_name_the_node():
    x = np.zeros((2, 3), np.float32)
    got = node_error("Pad", {"x": x, "pads": np.array([1, 0, 1, 0], np.int64)},
                     [("y", TensorProto.FLOAT, [4, 3])], mode="mirror")
    assert "mode 'mirror' is not one of constant, edge, reflect, wrap" in got
    got = node_error("Pad", {"x": x, "pads": np.array([-2, 0, 1, 0], np.int64)},
                     [("y", TensorProto.FLOAT, [1, 3])], mode="reflect")
    assert "mode 'reflect' cannot pad axis 0 of [0, 3]: it has no elements" in got


def _single_node(op, dtype, shape, out_shape, **attrs):
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    return make_model([node], [helper.make_tensor_value_info("x", dtype, shape)],
                      [helper.make_tensor_value_info("y", dtype, out_shape)], opset=18)


def _mvn(x):
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    var = (x * x).mean(axis=(0, 2, 3), keepdims=True) - mean * mean
    return (x - mean) / (np.sqrt(var) + 1e-9)


def _instance_norm(x):
    mean = x.mean(axis=(2, 3), keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=(2, 3), keepdims=True) + 1e-5)


# (op, attributes, the result's shape from x's (2, 4, 4, 4), float64 formula)
NARROW_NODES = [
    ("ReduceL2", {"keepdims": 1}, (1, 1, 1, 1),
     lambda x: np.sqrt((x * x).sum(keepdims=True))),
    ("ReduceLogSum", {"keepdims": 1}, (1, 1, 1, 1),
     lambda x: np.log(x.sum(keepdims=True))),
    ("LpNormalization", {"axis": 1, "p": 2}, (2, 4, 4, 4),
     lambda x: x / np.sqrt((x * x).sum(axis=1, keepdims=True))),
    ("MeanVarianceNormalization", {}, (2, 4, 4, 4), _mvn),
    ("Softplus", {}, (2, 4, 4, 4), lambda x: np.logaddexp(x, 0)),
    ("Mish", {}, (2, 4, 4, 4), lambda x: x * np.tanh(np.logaddexp(x, 0))),
]


@pytest.mark.parametrize("op,attrs,out_shape,formula", NARROW_NODES,
                         ids=[c[0] for c in NARROW_NODES])
def test_narrow_nodes_do_not_overflow_inside(rng, op, attrs, out_shape, formula):
    """float16 nodes whose results are in range but whose sums of squares
    (or exp(x)) are not: computed in float32 and rounded once. Values near
    300: the L2 norm, the Lp normalization and the MVN of float16 were
    infinite or 0; softplus (and mish) of 300 were infinite in any dtype."""
    x = (rng.standard_normal((2, 4, 4, 4)) * 100 + 300).astype(np.float16)
    model = jeet.onnx.load(_single_node(op, TensorProto.FLOAT16, list(x.shape),
                                        list(out_shape), **attrs), device="cpu")
    got = np.asarray(model(x)[0], np.float64)
    want = formula(x.astype(np.float64))
    assert np.isfinite(want).all()
    np.testing.assert_allclose(got, want, rtol=2.0 ** -10, atol=1e-3)


def test_softplus_of_large_values_is_x():
    x = np.array([-300.0, -20.0, 0.0, 20.0, 88.0, 100.0, 300.0, 1e30], np.float32)
    model = jeet.onnx.load(_single_node("Softplus", TensorProto.FLOAT, [8], [8]),
                           device="cpu")
    got = np.asarray(model(x)[0], np.float64)
    np.testing.assert_allclose(got, np.logaddexp(x.astype(np.float64), 0),
                               rtol=1e-6, atol=1e-30)


def test_narrow_instance_norm_computes_in_float32(rng):
    x = (rng.standard_normal((2, 4, 4, 4)) * 100 + 300).astype(np.float16)
    scale = rng.standard_normal(4).astype(np.float16)
    bias = rng.standard_normal(4).astype(np.float16)
    node = helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"])
    model = make_model(
        [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT16, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, list(x.shape))],
        [numpy_helper.from_array(scale, "s"), numpy_helper.from_array(bias, "b")])
    got = np.asarray(jeet.onnx.load(model, device="cpu")(x)[0], np.float64)
    want = _instance_norm(x.astype(np.float64)) * scale.astype(np.float64)[:, None, None] \
        + bias.astype(np.float64)[:, None, None]
    np.testing.assert_allclose(got, want, rtol=2.0 ** -10, atol=4e-3)


def test_prelu_and_leaky_relu_as_defined_at_zero():
    """slope * x where x < 0, else x: relu(x) + slope * min(x, 0) gave NaN at
    x = 0 for an infinite slope (inf * 0) and +0.0 for -0.0 (onnxruntime:
    0 and -0.0). Found by a sweep of edge values against onnxruntime."""
    x = np.array([0.0, -0.0, -2.0, 3.0, np.nan, -np.inf], np.float32)
    slope = np.array([np.inf, 0.5, 0.5, np.inf, 2.0, 0.25], np.float32)
    node = helper.make_node("PRelu", ["x", "s"], ["y"])
    model = make_model([node], [f32("x", [6]), f32("s", [6])], [f32("y", [6])])
    got = np.asarray(jeet.onnx.load(model, device="cpu")(x, slope)[0])
    want = np.where(x < 0, slope * x, x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    leaky = make_model([helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.1)],
                       [f32("x", [6])], [f32("y", [6])])
    got = np.asarray(jeet.onnx.load(leaky, device="cpu")(x)[0])
    want = np.where(x < 0, np.float32(0.1) * x, x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_reduce_log_sum_exp_of_infinite_slices():
    """An infinite maximum is not subtracted (inf - inf was NaN): a slice
    holding +inf gives inf, one of -inf alone gives -inf, as onnxruntime
    and NumPy's float64 give. Found by a sweep of edge values."""
    x = np.array([[np.inf, 1.0, 2.0], [-np.inf, -np.inf, -np.inf],
                  [-np.inf, 1.0, np.inf], [1.0, 2.0, 3.0], [np.nan, 1.0, 2.0]], np.float32)
    node = helper.make_node("ReduceLogSumExp", ["x", "axes"], ["y"], keepdims=0)
    model = make_model([node], [f32("x", [5, 3])], [f32("y", [5])],
                       [numpy_helper.from_array(np.array([1], np.int64), "axes")])
    got = np.asarray(jeet.onnx.load(model, device="cpu")(x)[0])
    with np.errstate(all="ignore"):
        want = np.log(np.exp(x.astype(np.float64)).sum(axis=1))
    np.testing.assert_allclose(got, want, rtol=1e-6)


def recurrent_reference(op, inputs, **attrs):
    """The ONNX reference implementation's RNN, GRU or LSTM in float64
    (`inputs`: name -> array, in the op's input order; '' for absent ones)."""
    from onnx.reference import ReferenceEvaluator
    names = list(inputs)
    while names and inputs[names[-1]] is None:
        names.pop()
    feeds = {k: (v.astype(np.float64) if v.dtype == np.float32 else v)
             for k, v in inputs.items() if v is not None}
    node = helper.make_node(op, [k if inputs[k] is not None else "" for k in names],
                            ["y", "y_h"] + (["y_c"] if op == "LSTM" else []), **attrs)
    model = make_model(
        [node], [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype),
                                               list(v.shape)) for k, v in feeds.items()],
        [helper.make_tensor_value_info(o, TensorProto.DOUBLE, None) for o in node.output])
    return ReferenceEvaluator(model).run(None, feeds)


def run_recurrent(op, inputs, **attrs):
    """Jeet's outputs of a one-node model of `op` (float32 graph inputs)."""
    names = list(inputs)
    while names and inputs[names[-1]] is None:
        names.pop()
    feeds = {k: v for k, v in inputs.items() if v is not None}
    outputs = ["y", "y_h"] + (["y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, [k if inputs[k] is not None else "" for k in names],
                            outputs, name="node", **attrs)
    directions, _, hidden = inputs["r"].shape
    steps, batch = inputs["x"].shape[:2]
    shapes = [[steps, directions, batch, hidden], [directions, batch, hidden]]
    if attrs.get("layout"):
        batch, steps = steps, batch
        shapes = [[batch, steps, directions, hidden], [batch, directions, hidden]]
    shapes.append(shapes[1])
    model = make_model([node], [info(k, v) for k, v in feeds.items()],
                       [helper.make_tensor_value_info(o, TensorProto.FLOAT, shape)
                        for o, shape in zip(outputs, shapes)])
    return [np.asarray(y) for y in jeet.onnx.load(model, device="cpu")(*feeds.values())]


def recurrent_inputs(rng, op, steps=5, batch=3, features=4, hidden=6, directions=1,
                     bias=True, initial=True, peepholes=False, layout=0):
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    x_shape = (batch, steps, features) if layout else (steps, batch, features)
    s_shape = (batch, directions, hidden) if layout else (directions, batch, hidden)
    f = np.float32
    inputs = {
        "x": rng.standard_normal(x_shape).astype(f),
        "w": (rng.standard_normal((directions, gates * hidden, features)) * 0.5).astype(f),
        "r": (rng.standard_normal((directions, gates * hidden, hidden)) * 0.5).astype(f),
        "b": (rng.standard_normal((directions, 2 * gates * hidden)) * 0.5).astype(f)
        if bias else None,
        "sequence_lens": None,
        "initial_h": rng.standard_normal(s_shape).astype(f) if initial else None,
    }
    if op == "LSTM":
        inputs["initial_c"] = rng.standard_normal(s_shape).astype(f) if initial else None
        inputs["p"] = (rng.standard_normal((directions, 3 * hidden)).astype(f)
                       if peepholes else None)
    return inputs


@pytest.mark.parametrize("op, attrs, options", [
    ("LSTM", {"direction": "bidirectional"}, {"directions": 2, "peepholes": True}),
    ("LSTM", {"layout": 1}, {"layout": 1, "peepholes": True}),
    ("GRU", {"direction": "reverse", "linear_before_reset": 1}, {}),
    ("GRU", {"direction": "bidirectional", "layout": 1}, {"directions": 2, "layout": 1}),
    ("RNN", {"activations": ["Affine"], "activation_alpha": [0.7],
             "activation_beta": [-0.2]}, {"bias": False}),
    ("RNN", {"direction": "bidirectional"}, {"directions": 2, "initial": False}),
], ids=str)
def test_recurrent_layers_as_the_onnx_reference(rng, op, attrs, options):
    inputs = recurrent_inputs(rng, op, **options)
    want = recurrent_reference(op, inputs, hidden_size=6, **attrs)
    got = run_recurrent(op, inputs, hidden_size=6, **attrs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _lstm_reference(x, w, r, b, h, c, clip, input_forget, acts):
    """A one-direction LSTM in float64 with clip, input_forget and chosen
    activations (which the ONNX reference implementation ignores)."""
    f, g, hf = acts
    x, w, r, b, h, c = (v.astype(np.float64) for v in (x, w, r, b, h, c))
    hidden = r.shape[-1]
    ys = []
    for xt in x:
        gates = xt @ w.T + h @ r.T + b[:4 * hidden] + b[4 * hidden:]
        gates = np.clip(gates, -clip, clip)
        i, o, fo, cc = np.split(gates, 4, axis=-1)
        i = f(i)
        fo = 1 - i if input_forget else f(fo)
        c = fo * c + i * g(cc)
        h = f(o) * hf(c)
        ys.append(h)
    return np.stack(ys), h, c


def test_lstm_clip_input_forget_and_activations(rng):
    inputs = recurrent_inputs(rng, "LSTM", steps=6)
    for k in ("w", "r"):
        inputs[k] *= 4  # pre-activations past the clip
    acts = {"HardSigmoid": lambda v: np.clip(0.3 * v + 0.4, 0, 1),
            "ScaledTanh": lambda v: 1.5 * np.tanh(0.5 * v),
            "LeakyRelu": lambda v: np.where(v < 0, 0.05 * v, v)}
    y, y_h, y_c = run_recurrent(
        "LSTM", inputs, hidden_size=6, clip=2.5, input_forget=1,
        activations=list(acts), activation_alpha=[0.3, 1.5, 0.05],
        activation_beta=[0.4, 0.5])
    want_y, want_h, want_c = _lstm_reference(
        inputs["x"], inputs["w"][0], inputs["r"][0], inputs["b"][0],
        inputs["initial_h"][0], inputs["initial_c"][0], 2.5, True, list(acts.values()))
    np.testing.assert_allclose(y[:, 0], want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y_h[0], want_h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y_c[0], want_c, rtol=1e-5, atol=1e-5)


def test_torch_lstm_and_gru_through_onnx(rng, tmp_path):
    """nn.LSTM (two layers, bidirectional, batch first) and nn.GRU exported
    by torch.onnx: one LSTM or GRU node per layer, against torch in
    float64."""
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(5, 8, num_layers=2, bidirectional=True,
                                      batch_first=True)
            self.gru = torch.nn.GRU(16, 7, batch_first=True)

        def forward(self, x):
            return self.gru(self.lstm(x)[0])[0]

    torch.manual_seed(int(rng.integers(1 << 31)))
    model = Net().eval()
    x = torch.randn(3, 9, 5)
    path = str(tmp_path / "rnn.onnx")
    torch.onnx.export(model, (x,), path, dynamo=False, opset_version=17)
    import onnx as onnx_module
    ops = {node.op_type for node in onnx_module.load(path).graph.node}
    assert {"LSTM", "GRU"} <= ops
    (got,) = jeet.onnx.load(path, device="cpu")(x.numpy())
    with torch.no_grad():
        want = model.double()(x.double()).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("attrs, message", [
    ({"direction": "sideways"},
     "direction 'sideways' is not one of forward, reverse, bidirectional"),
    ({"activations": ["Swish"]}, "activation 'Swish' is not one of Sigmoid, Tanh"),
    ({"activations": ["Tanh", "Tanh"]},
     "activations ['Tanh', 'Tanh'] should name 1 function(s) per direction"),
    ({"hidden_size": 5}, "hidden_size 5 does not match R's 6"),
    ({"direction": "bidirectional"}, "do not fit X [5, 3, 4] with 2 direction(s)"),
])
def test_recurrent_errors_name_the_node(rng, attrs, message):
    inputs = recurrent_inputs(rng, "RNN")
    with pytest.raises(OnnxImportError) as error:
        run_recurrent("RNN", inputs, **attrs)
    assert "RNN node 'node'" in str(error.value)
    assert message in str(error.value)


def test_recurrent_sequence_lengths_shorter_than_the_sequence_are_refused(rng):
    inputs = recurrent_inputs(rng, "GRU")
    inputs["sequence_lens"] = np.array([5, 4, 5], np.int32)
    with pytest.raises(OnnxImportError, match=r"sequence_lens \[5, 4, 5\] other than "
                       r"the whole sequence \(5\) for every batch entry is not supported"):
        run_recurrent("GRU", inputs, hidden_size=6)
    inputs["sequence_lens"] = np.array([5, 5, 5], np.int32)
    want = recurrent_reference("GRU", inputs, hidden_size=6)
    got = run_recurrent("GRU", inputs, hidden_size=6)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def scatter_nd_reference(data, indices, updates, reduction):
    out = data.astype(np.float64).copy()
    ops = {"none": lambda a, b: b, "add": np.add, "mul": np.multiply,
           "max": np.maximum, "min": np.minimum}
    for index in np.ndindex(*indices.shape[:-1]):
        at = tuple(int(i) for i in indices[index])
        out[at] = ops[reduction](out[at], updates[index])
    return out


@pytest.mark.parametrize("shape, indices, reduction", [
    ((6, 4, 3), [[1], [-2], [0]], "none"),
    ((6, 4, 3), [[[1, 2], [5, 0]], [[0, -1], [3, 3]]], "none"),
    # A repeated index: the last update wins; reductions combine them all.
    ((5, 4), [[2], [0], [2]], "none"),
    ((5, 4), [[2], [0], [2], [2]], "add"),
    ((5, 4), [[4], [4]], "mul"),
    ((3, 4, 2), [[0, 1, 1], [0, 1, 1], [2, 3, 0]], "max"),
    ((3, 4, 2), [[1, 1, 1], [1, 1, 1]], "min"),
    # Every row written.
    ((3, 2), [[2], [0], [1]], "none"),
], ids=str)
def test_scatter_nd(rng, shape, indices, reduction):
    data = rng.standard_normal(shape).astype(np.float32)
    indices = np.array(indices, np.int64)
    updates = rng.standard_normal(indices.shape[:-1] + shape[indices.shape[-1]:]).astype(np.float32)
    want = scatter_nd_reference(data, indices, updates, reduction)
    (y,) = run_node("ScatterND", {"data": data, "updates": updates},
                    [("y", TensorProto.FLOAT, list(shape))],
                    initializers={"indices": indices}, order=["data", "indices", "updates"],
                    **({} if reduction == "none" else {"reduction": reduction}))
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def test_scatter_nd_errors_name_the_node():
    data = np.zeros((4, 3), np.float32)
    updates = np.zeros((2, 3), np.float32)
    cases = [
        (np.array([[1], [4]], np.int64), updates, {},
         "indices [[1], [4]] out of range for data [4, 3]"),
        (np.array([[1], [2]], np.int64), np.zeros((2, 2), np.float32), {},
         "updates [2, 2] should be [2, 3] for indices [2, 1] and data [4, 3]"),
        (np.array([[1], [2]], np.int64), updates, {"reduction": "avg"},
         "reduction 'avg' is not one of none, add, mul, max, min"),
    ]
    for indices, upd, attrs, message in cases:
        got = node_error("ScatterND", {"data": data, "updates": upd},
                         [("y", TensorProto.FLOAT, [4, 3])], initializers={"indices": indices},
                         order=["data", "indices", "updates"], **attrs)
        assert message in got
    # Indices given as a graph input: the model compiles for their values.
    indices = np.array([[3], [1]], np.int64)
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = run_node("ScatterND", {"data": data, "indices": indices, "updates": values},
                    [("y", TensorProto.FLOAT, [4, 3])])
    np.testing.assert_array_equal(y, scatter_nd_reference(data, indices, values, "none"))


def test_index_arrays_built_from_shapes_fold_at_load(rng):
    """Swin's window masks: ScatterND indices built from Range, Expand,
    Unsqueeze and Concat over a 40 x 40 grid (3,200 integers, past the old
    folding limit of 1,024), and pads transposed from a constant (Transpose
    folded): both known when the model loads, so both import."""
    n = 40
    ints = lambda name, values: numpy_helper.from_array(np.array(values, np.int64), name)
    nodes = [
        helper.make_node("Range", ["zero", "n", "one"], ["r"]),
        helper.make_node("Unsqueeze", ["r", "ax1"], ["rows"]),            # (n, 1)
        helper.make_node("Expand", ["rows", "grid"], ["ri"]),             # (n, n)
        helper.make_node("Unsqueeze", ["r", "ax0"], ["cols"]),            # (1, n)
        helper.make_node("Expand", ["cols", "grid"], ["ci"]),             # (n, n)
        helper.make_node("Unsqueeze", ["ri", "ax2"], ["ri3"]),
        helper.make_node("Unsqueeze", ["ci", "ax2"], ["ci3"]),
        helper.make_node("Concat", ["ci3", "ri3"], ["indices"], axis=2),  # (n, n, 2): transposed
        helper.make_node("ScatterND", ["data", "indices", "updates"], ["s"]),
        helper.make_node("Transpose", ["pads2"], ["pads_t"], perm=[1, 0]),
        helper.make_node("Reshape", ["pads_t", "flat"], ["pads"]),
        helper.make_node("Pad", ["s", "pads"], ["y"]),
    ]
    inits = [ints("zero", 0), ints("n", n), ints("one", 1), ints("ax0", [0]), ints("ax1", [1]),
             ints("ax2", [2]), ints("grid", [n, n]), ints("pads2", [[1, 2], [0, 3]]),
             ints("flat", [4])]
    data = rng.standard_normal((n, n)).astype(np.float32)
    updates = rng.standard_normal((n, n)).astype(np.float32)
    model = make_model(nodes, [f32("data", [n, n]), f32("updates", [n, n])],
                       [f32("y", [n + 3, n + 3])], inits)
    (y,) = jeet.onnx.load(model, device="cpu")(data, updates)
    # Element (i, j) of updates goes to (j, i); pads [1, 0] before, [2, 3] after.
    want = np.pad(updates.T.astype(np.float64), [(1, 2), (0, 3)])
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("stride", [1, 2])
def test_depthwise_conv_with_initializer_filter(rng, stride):
    """A depthwise Conv (group = C) whose filter is an initialiser, as every
    exported MobileNet's: each tap is a view of the filter's one global
    (slices of a constant read in place), so the graph is the pad and one
    kernel (slices of the constant filter were a kernel each, copying C
    values at every call, and then constants of their own, a global and a
    base pointer per tap in the kernel's loop); against float64."""
    c = 20
    x = rng.standard_normal((2, c, 11, 13)).astype(np.float32)
    w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = (11 - 1) // stride + 1, (13 - 1) // stride + 1
    want = np.zeros((2, c, oh, ow)) + b[:, None, None]
    for i in range(3):
        for j in range(3):
            want += (xp[:, :, i:i + stride * (oh - 1) + 1:stride,
                        j:j + stride * (ow - 1) + 1:stride] * w[:, 0, i, j, None, None])
    model = make_model(
        [helper.make_node("Conv", ["x", "W", "B"], ["y"], name="dw", group=c,
                          pads=[1, 1, 1, 1], strides=[stride, stride])],
        [f32("x", list(x.shape))], [f32("y", list(want.shape))],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
    compiled = jeet.onnx.load(model, device="cpu", initializers="constant")
    (y,) = compiled(x)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-5)
    assert compiled.num_kernels == 2, compiled.explain()
    globals_ = [line for line in compiled.compiled().ir("llvm").splitlines()
                if "llvm.mlir.global" in line]
    assert len(globals_) == 2, globals_  # the filter and the bias
    assert any(f"{c}x1x3x3xf32" in line for line in globals_), globals_


def test_inverted_residual_block_at_3x3_cancels_transposes(rng):
    """MNASNet's last stages: a 1x1 Conv to 64 channels, Relu, a 5x5
    depthwise Conv, Relu, a 1x1 Conv back to 24 channels and the residual
    Add, at 3x3 positions, every filter an initialiser. The 1x1 ones are
    computed transposed (positions as the matmul's rows), the depthwise one
    channels last; the transposes between them (back to NCHW and to NHWC,
    and back again) cancel through the biases, the Relus and the reshapes
    (jeet-cancel-transposes): two remain of six, the first matmul's read of
    its input and the last one's result; against float64."""
    c, e = 24, 64
    x = rng.standard_normal((1, c, 3, 3)).astype(np.float32)
    w1 = (rng.standard_normal((e, c, 1, 1)) / 5).astype(np.float32)
    b1 = rng.standard_normal(e).astype(np.float32)
    wd = (rng.standard_normal((e, 1, 5, 5)) / 5).astype(np.float32)
    bd = rng.standard_normal(e).astype(np.float32)
    w2 = (rng.standard_normal((c, e, 1, 1)) / 8).astype(np.float32)
    b2 = rng.standard_normal(c).astype(np.float32)
    x64 = x.astype(np.float64)
    h1 = np.maximum(np.einsum("oc,nchw->nohw", w1[:, :, 0, 0].astype(np.float64), x64)
                    + b1[:, None, None], 0)
    hp = np.pad(h1, ((0, 0), (0, 0), (2, 2), (2, 2)))
    h2 = np.zeros_like(h1) + bd[:, None, None]
    for i in range(5):
        for j in range(5):
            h2 += hp[:, :, i:i + 3, j:j + 3] * wd[:, 0, i, j, None, None]
    h2 = np.maximum(h2, 0)
    want = (np.einsum("oc,nchw->nohw", w2[:, :, 0, 0].astype(np.float64), h2)
            + b2[:, None, None] + x64)
    model = make_model(
        [helper.make_node("Conv", ["x", "W1", "B1"], ["c1"], name="expand"),
         helper.make_node("Relu", ["c1"], ["r1"]),
         helper.make_node("Conv", ["r1", "WD", "BD"], ["c2"], name="dw", group=e,
                          pads=[2, 2, 2, 2]),
         helper.make_node("Relu", ["c2"], ["r2"]),
         helper.make_node("Conv", ["r2", "W2", "B2"], ["c3"], name="project"),
         helper.make_node("Add", ["c3", "x"], ["y"])],
        [f32("x", list(x.shape))], [f32("y", list(x.shape))],
        [numpy_helper.from_array(a, name) for a, name in
         ((w1, "W1"), (b1, "B1"), (wd, "WD"), (bd, "BD"), (w2, "W2"), (b2, "B2"))])
    compiled = jeet.onnx.load(model, device="cpu", initializers="constant")
    (y,) = compiled(x)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-5)
    fused = compiled.compiled().ir("fused")
    assert fused.count("jeet.transpose") == 2, fused
    assert f"tensor<1x7x7x{e}xf32>" in fused


@pytest.mark.parametrize("spatial", [(1, 1), (2, 3), (3, 3), (4, 4), (5, 7)])
def test_pointwise_conv_with_initializer_filter(rng, spatial):
    """A 1x1 Conv whose filter is an initialiser, at the few output
    positions of a network's last stages: below 16 positions, or at
    positions that fill their vectors poorly (5x7: 35 of 48 lanes), the
    matmul runs transposed (positions as rows, the filter transposed at
    compile time), 16 as (O, C) x (C, H * W); with its bias and a Clip
    (ReLU6) after it, against float64 either way."""
    c, o = 24, 40
    x = rng.standard_normal((2, c) + spatial).astype(np.float32)
    w = rng.standard_normal((o, c, 1, 1)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    want = np.einsum("nchw,oc->nohw", x.astype(np.float64), w[:, :, 0, 0].astype(np.float64))
    want = np.clip(want + b[:, None, None], 0, 6)
    model = make_model(
        [helper.make_node("Conv", ["x", "W", "B"], ["c"], name="pw"),
         helper.make_node("Clip", ["c", "lo", "hi"], ["y"], name="relu6")],
        [f32("x", list(x.shape))], [f32("y", list(want.shape))],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B"),
         numpy_helper.from_array(np.array(0, np.float32), "lo"),
         numpy_helper.from_array(np.array(6, np.float32), "hi")])
    compiled = jeet.onnx.load(model, device="cpu", initializers="constant")
    (y,) = compiled(x)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-5)
    text = compiled.explain()
    assert "jeet.im2col" not in text
    # At one position the transposes in and out move only dimensions of
    # size 1: reshapes (views).
    positions = spatial[0] * spatial[1]
    assert ("jeet.transpose" in text) == (1 < positions < 16 or positions == 35), text
    # Transposed at fewer than 16 positions: the matmul, then the transpose
    # back with the epilogue; at 35, transposed back in the matmul's tiles.
    assert compiled.num_kernels == (2 if positions < 16 else 1), text


def test_top_k_errors_name_the_node(rng):
    """TopK's K must be known at load and within the axis, at most 64."""
    x = rng.standard_normal((3, 100)).astype(np.float32)

    def model(k, axis=-1):
        return make_model(
            [helper.make_node("TopK", ["x", "K"], ["v", "i"], name="top", axis=axis)],
            [f32("x", [3, 100])],
            [f32("v", [3, min(k, 100)]),
             helper.make_tensor_value_info("i", TensorProto.INT64, [3, min(k, 100)])],
            [numpy_helper.from_array(np.array([k], np.int64), "K")])
    (v, i) = jeet.onnx.load(model(3), device="cpu")(x)
    np.testing.assert_array_equal(np.asarray(i), np.argsort(-x, axis=1, kind="stable")[:, :3])
    np.testing.assert_array_equal(np.asarray(v), -np.sort(-x, axis=1)[:, :3])
    with pytest.raises(OnnxImportError, match="TopK node 'top': K = 101 is out of range "
                                              "for axis 1 of size 100"):
        jeet.onnx.load(model(101), device="cpu")
    with pytest.raises(OnnxImportError, match="TopK node 'top': k = 65 is more than 64"):
        jeet.onnx.load(model(65), device="cpu")


@pytest.mark.parametrize("n, cin, hw, k, cout", [
    (1, 32, 6, 1, 64), (1, 24, 6, 3, 48), (2, 16, 6, 1, 80), (1, 16, 7, 1, 64),
    (1, 8, 5, 3, 40), (1, 64, 6, 1, 2048),
], ids=str)
def test_conv_positions_transposed_in_the_tiles(rng, n, cin, hw, k, cout):
    """A convolution with a constant filter whose output positions fill
    their vectors poorly (5x5, 6x6, 7x7: 25, 36, 49 of 32, 48, 64 lanes) is
    computed transposed, positions as the matmul's rows, and moved back to
    NCHW in the matmul's tiles with its bias and ReLU: one kernel (a 2048
    channel filter, whose rows alias in L1, through the matrices' kernels);
    against float64."""
    pad = k // 2
    wt = (rng.standard_normal((cout, cin, k, k)) * 0.2).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    model = conv_relu_model(wt, b, (n, cin, hw, hw), pad=pad)
    compiled = jeet.onnx.load(model, device="cpu", initializers="constant")
    x = rng.standard_normal((n, cin, hw, hw)).astype(np.float32)
    (y,) = compiled(x)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    conv = np.zeros((n, cout, hw, hw)) + b[None, :, None, None]
    for i in range(k):
        for j in range(k):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, i:i + hw, j:j + hw],
                              wt[:, :, i, j].astype(np.float64))
    np.testing.assert_allclose(np.asarray(y), np.maximum(conv, 0), rtol=1e-5, atol=1e-5)
    kernels = compiled.compiled().kernel_ops
    assert ["jeet.transpose", "jeet.matmul", "jeet.transpose", "jeet.add",
            "jeet.relu"] in kernels, kernels


@pytest.mark.parametrize("cin, hw, k, stride, pad, cout", [
    (32, 6, 1, 1, 0, 64), (24, 6, 3, 1, 1, 48), (16, 12, 3, 2, 1, 40), (8, 3, 3, 1, 1, 32),
    (16, 8, 1, 1, 0, 32),
], ids=str)
def test_conv_with_bound_filter_takes_the_transposed_form(rng, cin, hw, k, stride, pad, cout):
    """A Conv whose filter is an initializer bound as an argument (a model
    over the constants budget) at few output positions gets the form the
    compiler gives a constant filter there (positions as the matmul's rows),
    the filter's transpose prepared once at load: the same kernels as with
    the filter a constant, and no kernel of the graph transposes the filter;
    8x8 positions (64, whole vectors) keep the convolution. Against float64."""
    wt = (rng.standard_normal((cout, cin, k, k)) * 0.2).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    out = (hw + 2 * pad - k) // stride + 1
    model = conv_relu_model(wt, b, (1, cin, hw, hw), pad=pad, stride=stride)
    bound = jeet.onnx.load(model, device="cpu", initializers="argument")
    constant = jeet.onnx.load(model, device="cpu", initializers="constant")
    x = rng.standard_normal((1, cin, hw, hw)).astype(np.float32)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    conv = np.zeros((1, cout, out, out)) + b[None, :, None, None]
    span = stride * (out - 1) + 1
    for i in range(k):
        for j in range(k):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, i:i + span:stride, j:j + span:stride],
                              wt[:, :, i, j].astype(np.float64))
    for compiled in (bound, constant):
        (y,) = compiled(x)
        np.testing.assert_allclose(np.asarray(y), np.maximum(conv, 0), rtol=1e-5, atol=1e-5)
    assert bound.compiled().kernel_ops == constant.compiled().kernel_ops, (
        bound.compiled().kernel_ops, constant.compiled().kernel_ops)
    transposed = out * out != 64
    assert (["jeet.transpose", "jeet.matmul", "jeet.transpose", "jeet.add", "jeet.relu"]
            in bound.compiled().kernel_ops or out * out < 16) == transposed
    # The filter, prepared at load, is read as (K, O): no kernel moves it.
    assert ["jeet.transpose"] not in bound.compiled().kernel_ops


@pytest.mark.parametrize("cin, hw, k, pad, cout", [
    (256, 6, 1, 0, 128), (64, 5, 3, 1, 48), (96, 7, 1, 0, 64)], ids=str)
def test_conv_without_bias_at_few_positions_tiles_its_transpose(rng, cin, hw, k, pad,
                                                                  cout):
    """A convolution with a constant filter and no bias or activation at few
    positions (DenseNet's last transition: 1x1 of 1024 -> 512 at 6x6) is
    computed transposed, its transpose back yielded alone: that transpose is
    the matmul's epilogue, tiled with it (0.22 -> 0.18 ms for DenseNet's),
    not a copy after the whole product. Against float64."""
    wt = (rng.standard_normal((cout, cin, k, k)) * 0.2).astype(np.float32)
    out = hw + 2 * pad - k + 1
    nodes = [helper.make_node("Conv", ["x", "W"], ["y"], pads=[pad] * 4)]
    model = make_model(nodes, [f32("x", [1, cin, hw, hw])], [f32("y", [1, cout, out, out])],
                       [numpy_helper.from_array(wt, "W")])
    compiled = jeet.onnx.load(model, device="cpu")
    x = rng.standard_normal((1, cin, hw, hw)).astype(np.float32)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    conv = np.zeros((1, cout, out, out))
    for i in range(k):
        for j in range(k):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, i:i + out, j:j + out],
                              wt[:, :, i, j].astype(np.float64))
    (y,) = compiled(x)
    np.testing.assert_allclose(np.asarray(y), conv, rtol=1e-5, atol=1e-5)
    graph = compiled.compiled()
    assert ["jeet.transpose", "jeet.matmul", "jeet.transpose"] in graph.kernel_ops
    # A generic reading the product permuted (in tiles of the output
    # channels where there are several), no linalg.transpose.
    linalg = graph.ir("linalg")
    assert "linalg.transpose" not in linalg
    assert ("scf.forall" in linalg) == (cout > 64), linalg


@pytest.mark.parametrize("n, cin, hw, stride, groups, cout", [
    (1, 64, 3, 1, 4, 64), (1, 64, 6, 2, 2, 64), (2, 48, 3, 1, 3, 48), (1, 32, 6, 1, 2, 32),
    (1, 32, 3, 1, 4, 32), (1, 40, 8, 1, 2, 64),
], ids=str)
def test_grouped_conv_at_few_positions_is_computed_transposed(rng, n, cin, hw, stride,
                                                              groups, cout):
    """A grouped 3x3 convolution (ResNeXt's, RegNet's) at few output
    positions computes each group transposed, positions as its rows and 16
    or more of the group's output channels along the vectors: (N, g, P, K /
    g) x (g, K / g, O / g), with the filter a constant (each group's
    transpose at compile time) or bound (prepared at load), the same kernels
    either way; 8 channels a group, or 8x8 positions, keep the grouped
    matmul. Against float64."""
    pad = 1
    wt = (rng.standard_normal((cout, cin // groups, 3, 3)) * 0.2).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    out = (hw + 2 * pad - 3) // stride + 1
    model = conv_relu_model(wt, b, (n, cin, hw, hw), pad=pad, stride=stride, group=groups)
    x = rng.standard_normal((n, cin, hw, hw)).astype(np.float32)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    conv = np.zeros((n, cout, out, out)) + b[None, :, None, None]
    span = stride * (out - 1) + 1
    cg, og = cin // groups, cout // groups
    for g in range(groups):
        for i in range(3):
            for j in range(3):
                conv[:, g * og:(g + 1) * og] += np.einsum(
                    "nchw,oc->nohw",
                    xp[:, g * cg:(g + 1) * cg, i:i + span:stride, j:j + span:stride],
                    wt[g * og:(g + 1) * og, :, i, j].astype(np.float64))
    bound = jeet.onnx.load(model, device="cpu", initializers="argument")
    constant = jeet.onnx.load(model, device="cpu", initializers="constant")
    for compiled in (constant, bound):
        (y,) = compiled(x)
        np.testing.assert_allclose(np.asarray(y), np.maximum(conv, 0), rtol=1e-5, atol=1e-5)
    transposed = og >= 16 and out * out in (4, 9, 25, 36, 49)
    for compiled in (constant, bound):
        text = compiled.compiled().ir("fused")
        matmuls = [line for line in text.splitlines() if "jeet.matmul" in line]
        assert len(matmuls) == 1, text
        want = (f"tensor<{n}x{groups}x{out * out}x{9 * cg}xf32>" if transposed
                else f"tensor<{groups}x{og}x{9 * cg}xf32>")
        assert want in matmuls[0], (want, matmuls[0])
    assert bound.compiled().kernel_ops == constant.compiled().kernel_ops, (
        bound.compiled().kernel_ops, constant.compiled().kernel_ops)


@pytest.mark.parametrize("cin, k, cout, n, hw", [
    (32, 1, 1024, 1, 3), (16, 3, 1100, 1, 3), (32, 1, 1088, 2, 3), (16, 3, 1100, 2, 2),
], ids=str)
def test_conv_with_bound_filter_at_few_positions_reads_panels(rng, cin, k, cout, n, hw):
    """A Conv at 3x3 (or 2x2) positions whose bound filter has 256 or more
    output channels: the filter is prepared in panels of 64 columns (the
    last one padded with zeros where O is no multiple of 64) and the
    product is a batch of panels, every image's rows by every panel; the
    same values as the filter a constant (the compiler's own panels) and as
    float64; two images at 3x3 (18 rows) read the filter's transpose."""
    pad = k // 2
    wt = (rng.standard_normal((cout, cin, k, k)) * 0.2).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    model = conv_relu_model(wt, b, (n, cin, hw, hw), pad=pad)
    x = rng.standard_normal((n, cin, hw, hw)).astype(np.float32)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    conv = np.zeros((n, cout, hw, hw)) + b[None, :, None, None]
    for i in range(k):
        for j in range(k):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, i:i + hw, j:j + hw],
                              wt[:, :, i, j].astype(np.float64))
    results = {}
    for mode in ("argument", "constant"):
        (y,) = jeet.onnx.load(model, device="cpu", initializers=mode)(x)
        results[mode] = np.asarray(y)
        np.testing.assert_allclose(results[mode], np.maximum(conv, 0), rtol=1e-5, atol=1e-5,
                                   err_msg=mode)
    np.testing.assert_allclose(results["argument"], results["constant"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rows, trans_b", [(1, 0), (5, 1)], ids=str)
def test_gemm_with_bound_weights_of_few_rows_reads_panels(rng, rows, trans_b):
    """A Gemm of 1 or 5 rows by a bound (K, 1100) weight (or (1100, K) with
    transB) reads it prepared in panels of 64 columns (the last one padded):
    the same values as the weight a constant and as float64."""
    k, n = 96, 1100
    wt = (rng.standard_normal((n, k) if trans_b else (k, n)) * 0.2).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    nodes = [helper.make_node("Gemm", ["x", "W", "B"], ["y"], transB=trans_b)]
    model = make_model(nodes, [f32("x", [rows, k])], [f32("y", [rows, n])],
                       [numpy_helper.from_array(wt, "W"), numpy_helper.from_array(bias, "B")])
    x = rng.standard_normal((rows, k)).astype(np.float32)
    want = x.astype(np.float64) @ (wt.T if trans_b else wt).astype(np.float64) + bias
    results = {}
    for mode in ("argument", "constant"):
        (y,) = jeet.onnx.load(model, device="cpu", initializers=mode)(x)
        results[mode] = np.asarray(y)
        np.testing.assert_allclose(results[mode], want, rtol=1e-5, atol=1e-5, err_msg=mode)
    np.testing.assert_allclose(results["argument"], results["constant"], rtol=1e-5, atol=1e-6)


@requires_gpu
@pytest.mark.parametrize("hw, k", [(6, 1), (6, 3), (3, 3), (7, 1)], ids=str)
def test_conv_positions_transposed_on_the_gpu(rng, hw, k):
    """On the GPU too, a convolution with a constant filter at positions
    that the decomposition computes transposed (9, 36, 49): the matmul of
    positions by channels, moved back to NCHW by a transpose the next
    kernel reads in place; with its bias and ReLU, against float64."""
    cin, cout, pad = 24, 48, k // 2
    wt = (rng.standard_normal((cout, cin, k, k)) * 0.2).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    model = conv_relu_model(wt, b, (2, cin, hw, hw), pad=pad)
    compiled = jeet.onnx.load(model, device="gpu", initializers="constant")
    x = rng.standard_normal((2, cin, hw, hw)).astype(np.float32)
    (y,) = compiled(x)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    conv = np.zeros((2, cout, hw, hw)) + b[None, :, None, None]
    for i in range(k):
        for j in range(k):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, i:i + hw, j:j + hw],
                              wt[:, :, i, j].astype(np.float64))
    np.testing.assert_allclose(np.asarray(y.numpy()), np.maximum(conv, 0), rtol=1e-5, atol=1e-5)
    assert "jeet.transpose" in compiled.explain()


def test_prepared_work_compiles_without_vectorizing(rng, monkeypatch):
    """The work on initializers alone (here a Gemm's weight transposed) runs
    once at load, compiled without vectorizing (less code, a faster load);
    the model's graph is compiled vectorized, and the result is the same."""
    from jeet import _jeet
    calls = []
    compile_graph = _jeet.compile

    def recording(text, **kwargs):
        calls.append(kwargs.get("vectorize", True))
        return compile_graph(text, **kwargs)

    monkeypatch.setattr(_jeet, "compile", recording)
    model, reference = linear_model(rng, features=40, hidden=48)
    compiled = jeet.onnx.load(model, device="cpu", initializers="argument")
    x = rng.standard_normal((3, 40)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(compiled(x)[0]), reference(x),
                               rtol=1e-5, atol=1e-6)
    assert calls[0] is False and True in calls[1:], calls
