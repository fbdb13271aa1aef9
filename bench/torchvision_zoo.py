"""torchvision's image models through ONNX, side by side: jeet.onnx.load
against onnxruntime, on the CPU.

Each model (random weights, a fixed seed) is exported once with
torch.onnx.export (opset 17) at 1x3xSIZExSIZE, then loaded and called by
each contender in a process of its own (onnxruntime's thread pool and Jeet's
OpenMP threads would otherwise spin against each other), with the same
thread count and the same input. Times are medians (and the fastest) of
--repeat calls after warm-up calls, in two rounds; loading is timed apart
(Jeet's from an empty compile cache). Each row gives Jeet's kernel count and
the largest difference between the two outputs, relative to the largest
output.

    python3 bench/torchvision_zoo.py [--models squeezenet1_1,densenet121]
        [--threads 1] [--size 96] [--repeat 20] [--build-dir build]

Needs torch, torchvision, onnx and onnxruntime (`make bench-setup` installs
the peers; torchvision with `pip install torchvision`).
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

MODELS = ["squeezenet1_1", "shufflenet_v2_x1_0", "mnasnet1_0", "regnet_y_400mf",
          "regnet_x_400mf", "mobilenet_v3_large", "googlenet", "densenet121",
          "resnet50", "resnext50_32x4d", "efficientnet_v2_s", "convnext_tiny"]


def export(name, size, path):
    import torch
    import torchvision.models as models
    import warnings
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    model = getattr(models, name)().eval()
    x = torch.randn(1, 3, size, size)
    torch.onnx.export(model, (x,), str(path), opset_version=17, dynamo=False)


def child(args):
    """One contender: loads the model, calls it, prints its times as JSON."""
    import numpy as np
    x = np.load(args.input)
    start = time.perf_counter()
    if args.child == "jeet":
        import jeet
        import jeet.onnx
        model = jeet.onnx.load(args.model, device="cpu")
        loaded = time.perf_counter() - start
        xt = jeet.tensor(x)

        def call():
            out = model(xt)
            out = out[0] if isinstance(out, (list, tuple)) else out
            return out.numpy()
        kernels = model.num_kernels
    else:
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(args.model, options,
                                       providers=["CPUExecutionProvider"])
        loaded = time.perf_counter() - start
        name = session.get_inputs()[0].name

        def call():
            return session.run(None, {name: x})[0]
        kernels = None
    result = call()
    np.save(args.output, result)
    rounds = []
    for _ in range(2):
        for _ in range(3):
            call()
        times = []
        for _ in range(args.repeat):
            begin = time.perf_counter()
            call()
            times.append(time.perf_counter() - begin)
        rounds.append((statistics.median(times) * 1e3, min(times) * 1e3))
    print(json.dumps(dict(load=loaded, rounds=rounds, kernels=kernels)))


def run_contender(kind, model, x_path, out_path, args, env):
    cmd = [sys.executable, __file__, "--child", kind, "--model", str(model),
           "--input", str(x_path), "--output", str(out_path),
           "--threads", str(args.threads), "--repeat", str(args.repeat)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True,
                          timeout=1800)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1:] or ["failed"]
    return json.loads(done.stdout.strip().splitlines()[-1]), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--size", type=int, default=96)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--child", choices=["jeet", "ort"])
    parser.add_argument("--model")
    parser.add_argument("--input")
    parser.add_argument("--output")
    args = parser.parse_args()
    if args.child:
        child(args)
        return 0
    try:
        import numpy as np
        import onnxruntime  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as error:
        print(f"torchvision_zoo: needs torch, torchvision, onnx and "
              f"onnxruntime ({error})")
        return 1
    build = pathlib.Path(args.build_dir).resolve()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(build / "python")] + env.get("PYTHONPATH", "").split(os.pathsep))
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        [str(build / "lib")] + env.get("LD_LIBRARY_PATH", "").split(os.pathsep))
    env["OMP_NUM_THREADS"] = str(args.threads)
    print(f"torchvision models at 1x3x{args.size}x{args.size}, "
          f"{args.threads} thread(s), medians (fastest) of {args.repeat} "
          f"calls, two rounds, ms")
    print()
    print("| model | Jeet kernels | Jeet load s | onnxruntime | Jeet | "
          "onnxruntime / Jeet | difference |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        x = np.random.default_rng(0).standard_normal(
            (1, 3, args.size, args.size)).astype(np.float32)
        np.save(tmp / "x.npy", x)
        for name in args.models.split(","):
            model = tmp / f"{name}.onnx"
            try:
                export(name, args.size, model)
            except Exception as error:  # the exporter's own limits
                print(f"| {name} | export failed: {type(error).__name__} | "
                      "| | | | |")
                continue
            cache = tmp / f"cache-{name}"
            times = {}
            failed = None
            for kind in ("ort", "jeet"):
                run_env = dict(env, JEET_CACHE_DIR=str(cache))
                times[kind], failed = run_contender(
                    kind, model, tmp / "x.npy", tmp / f"{name}-{kind}.npy",
                    args, run_env)
                if failed:
                    break
            if failed:
                print(f"| {name} | {kind} failed: {failed[0][:80]} | | | | | |")
                continue
            ours = np.load(tmp / f"{name}-jeet.npy").astype(np.float64)
            theirs = np.load(tmp / f"{name}-ort.npy").astype(np.float64)
            difference = np.abs(ours - theirs).max() / max(
                np.abs(theirs).max(), 1e-30)
            cell = ", ".join(f"{median:.3f} ({fastest:.3f})"
                             for median, fastest in times["ort"]["rounds"])
            jeet_cell = ", ".join(f"{median:.3f} ({fastest:.3f})"
                                  for median, fastest in times["jeet"]["rounds"])
            ratio = (min(m for m, _ in times["ort"]["rounds"]) /
                     min(m for m, _ in times["jeet"]["rounds"]))
            print(f"| {name} | {times['jeet']['kernels']} | "
                  f"{times['jeet']['load']:.1f} | {cell} | {jeet_cell} | "
                  f"{ratio:.2f}x | {difference:.1e} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
