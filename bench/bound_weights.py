"""Weights bound as arguments against weights compiled in, side by side: a
PyTorch MLP through torch.compile with its parameters (Jeet's default:
arguments, prepared once) and frozen (constants), torch eager and
torch.compile's inductor; and ResNet-50's widest 1x1 convolution at 3x3
positions through jeet.onnx.load with its filter bound as an argument and
as a constant, and onnxruntime. Products of few rows by a wide weight are
where bound weights cost most (docs/Performance.md, "Bound weights read by
few rows: panels prepared once").

Every contender runs in this process, one thread by default; times are
medians of --repeat calls after warm-up calls; each result is checked
against float64.

    python3 bench/bound_weights.py [--rows 1,8,32] [--repeat 200]
        [--peers eager,inductor,onnxruntime] [--build-dir build]

Needs torch (and onnx, onnxruntime for the convolution; `make bench-setup`
installs the peers).
"""

import argparse
import copy
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from common import (import_from_build, max_rel_error,  # noqa: E402
                    setup_environment, time_python)


def mlp_rows(args, torch, np, jeet_torch):
    """(rows, [(contender, ms)]) for the MLP 1024 -> 4096 -> 1024 (GELU)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                                torch.nn.Linear(4096, 1024)).eval()
    compiled = {
        "Jeet, parameters": torch.compile(copy.deepcopy(model), backend="jeet"),
        "Jeet, frozen": torch.compile(copy.deepcopy(model), backend="jeet",
                                      options={"freeze": True}),
    }
    if "eager" in args.peers:
        compiled["torch eager"] = model
    if "inductor" in args.peers:
        compiled["torch.compile (inductor)"] = torch.compile(copy.deepcopy(model))
    for rows in args.rows:
        x = torch.randn(rows, 1024)
        with torch.no_grad():
            want = copy.deepcopy(model).double()(x.double()).numpy()
            times = []
            for name, fn in compiled.items():
                error = max_rel_error(fn(x).numpy(), want)
                if error > 1e-4:
                    raise SystemExit(f"bound_weights: {name} at {rows} rows differs "
                                     f"from float64 by {error:.1e}")
                times.append((name, time_python(lambda: fn(x), args.repeat,
                                                warmup=10) * 1e3))
        yield rows, times


def conv_model(rng, np):
    from onnx import TensorProto, helper, numpy_helper
    w = (rng.standard_normal((2048, 512, 1, 1)) * 0.05).astype(np.float32)
    b = rng.standard_normal(2048).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"]),
             helper.make_node("Relu", ["c"], ["y"])]
    graph = helper.make_graph(
        nodes, "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 512, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2048, 3, 3])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal((1, 512, 3, 3)).astype(np.float32)
    want = np.maximum(np.einsum("oc,nchw->nohw", w[:, :, 0, 0].astype(np.float64),
                                x.astype(np.float64)) + b[None, :, None, None], 0)
    return model, x, want


def conv_times(args, np, jeet, jeet_onnx):
    rng = np.random.default_rng(0)
    model, x, want = conv_model(rng, np)
    xt = jeet.tensor(x)
    contenders = {
        f"Jeet, filter {mode}": (lambda m: lambda: m(xt)[0])(
            jeet_onnx.load(model, device="cpu", initializers=mode))
        for mode in ("argument", "constant")}
    if "onnxruntime" in args.peers:
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        contenders["onnxruntime"] = lambda: session.run(None, {"x": x})[0]
    times = []
    for name, fn in contenders.items():
        error = max_rel_error(np.asarray(fn()), want)
        if error > 1e-4:
            raise SystemExit(f"bound_weights: {name} differs from float64 by {error:.1e}")
        times.append((name, time_python(fn, args.repeat, warmup=10) * 1e3))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1,8,32")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--peers", default="eager,inductor,onnxruntime")
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    args = parser.parse_args()
    args.rows = [int(r) for r in args.rows.split(",")]
    args.peers = set(args.peers.split(",")) if args.peers else set()
    setup_environment(args.threads)
    modules = import_from_build(
        args.build_dir, "bound_weights", "numpy, torch, onnx",
        ["numpy", "torch", "jeet", "jeet.onnx", "jeet.torch"])
    if modules is None:
        return 1
    np, torch, jeet, _, _ = modules
    torch.set_num_threads(args.threads)
    print(f"{args.threads} thread(s), medians of {args.repeat} calls, ms")
    print()
    print("MLP 1024 -> 4096 -> 1024 (GELU), rows by contender:")
    print()
    header_done = False
    for rows, times in mlp_rows(args, torch, np, jeet.torch):
        if not header_done:
            print("| rows | " + " | ".join(name for name, _ in times) + " |")
            print("| ---: |" + " ---: |" * len(times))
            header_done = True
        print(f"| {rows} | " + " | ".join(f"{t:.3f}" for _, t in times) + " |",
              flush=True)
    print()
    print("1x1 convolution 512 -> 2048 channels at 3x3 positions (Conv + Relu):")
    print()
    for name, t in conv_times(args, np, jeet, jeet.onnx):
        print(f"- {name}: {t:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
