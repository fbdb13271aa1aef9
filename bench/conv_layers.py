"""ResNet-50's convolutions one by one, side by side: jeet.onnx.load against
onnxruntime, on the CPU.

Each layer is an ONNX model of one Conv (its filter and bias initializers,
random, a fixed seed) and a Relu, at batch 1, with the shapes ResNet-50 has
at 1x3xSIZExSIZE (96: its stages at 24x24, 12x12, 6x6 and 3x3 positions,
and the 7x7/2 stem). Both contenders run in this process, one after the
other, on one thread by default (OMP_NUM_THREADS and onnxruntime's
intra-op threads); times are medians of --repeat calls after warm-up calls.
Jeet's output is checked against onnxruntime's.

    python3 bench/conv_layers.py [--size 96] [--repeat 200] [--build-dir build]

Needs onnx and onnxruntime (`make bench-setup` installs the peers).
"""

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from common import import_from_build, setup_environment, time_python  # noqa: E402


def layers(size):
    """(C_in, H = W, C_out, kernel, stride) of ResNet-50's convolutions whose
    shapes differ, at 1x3 x size x size: each stage's 3x3 convolution and its
    1x1 convolutions out of and back into the residual's channels (the first
    stage's first 1x1 too, from the stem's 64), then the 7x7/2 stem."""
    shapes, hw = [(64, size // 4, 64, 1, 1)], size // 4
    for width in (64, 128, 256, 512):
        shapes += [(width, hw, width, 3, 1), (width, hw, 4 * width, 1, 1),
                   (4 * width, hw, width, 1, 1)]
        hw //= 2
    return shapes + [(3, size, 64, 7, 2)]


def model_of(cin, hw, cout, k, stride, rng):
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    pad = k // 2
    w = (rng.standard_normal((cout, cin, k, k)) * 0.05).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    out = (hw + 2 * pad - k) // stride + 1
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[pad] * 4,
                              strides=[stride, stride]),
             helper.make_node("Relu", ["c"], ["y"])]
    graph = helper.make_graph(
        nodes, "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, hw, hw])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, out, out])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=96)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    args = parser.parse_args()
    setup_environment(args.threads)
    modules = import_from_build(args.build_dir, "conv_layers",
                                "numpy, onnx, onnxruntime",
                                ["numpy", "onnxruntime", "jeet", "jeet.onnx"])
    if modules is None:
        return 1
    np, ort, jeet, _ = modules
    rng = np.random.default_rng(0)
    print(f"ResNet-50's convolutions (Conv + Relu) at 1x3x{args.size}x"
          f"{args.size}, {args.threads} thread(s), medians of {args.repeat} "
          f"calls, ms")
    print()
    print("| Conv (C_in, HxW, C_out, kernel, stride) | GFLOP | onnxruntime | "
          "Jeet | onnxruntime / Jeet |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for cin, hw, cout, k, stride in layers(args.size):
        model = model_of(cin, hw, cout, k, stride, rng)
        x = rng.standard_normal((1, cin, hw, hw)).astype(np.float32)
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        compiled = jeet.onnx.load(model, device="cpu")
        xt = jeet.tensor(x)
        want = session.run(None, {"x": x})[0]
        got = np.asarray(compiled(xt)[0])
        error = np.abs(got - want).max() / max(np.abs(want).max(), 1e-6)
        if error > 1e-4:
            print(f"conv_layers: ({cin}, {hw}, {cout}, {k}, {stride}) differs "
                  f"from onnxruntime by {error:.1e}")
            return 1
        t_ort = time_python(lambda: session.run(None, {"x": x}), args.repeat,
                            warmup=10) * 1e3
        t_jeet = time_python(lambda: compiled(xt)[0], args.repeat, warmup=10) * 1e3
        out = (hw + 2 * (k // 2) - k) // stride + 1
        gflop = 2 * cin * cout * k * k * out * out / 1e9
        print(f"| {cin}, {hw}x{hw}, {cout}, {k}, {stride} | {gflop:.3f} | "
              f"{t_ort:.3f} | {t_jeet:.3f} | {t_ort / t_jeet:.2f}x |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
