"""The example models (examples/models: MLP, 2-layer transformer encoder,
small CNN, MobileNet-style network) on the CPU, side by side: torch eager, torch.compile with
inductor, onnxruntime, and Jeet through both of its frontends
(torch.compile(backend="jeet") and ONNX export + jeet.onnx.load).

Each contender runs in a process of its own (torch's OpenMP threads,
onnxruntime's thread pool and Jeet's OpenMP threads would otherwise spin
against each other on the same cores), with the same thread count, on the
same weights and inputs (fixed seeds). Times are the median (and the
fastest) of --repeat calls after warm-up calls; compilation is excluded.
Every contender's output is compared with torch eager's. Every contender
runs with its runtime's default thread wait policy (--jeet-wait-policy
sets OMP_WAIT_POLICY for Jeet's contenders).

    python3 bench/models.py [--models mlp,cnn] [--threads 2] [--repeat 50]
        [--contenders eager,inductor,inductor-freeze,onnxruntime,jeet-torch,jeet-torch-freeze,jeet-onnx]

The frozen contenders (inductor's `freezing`, the jeet backend's
options={"freeze": True}) compile the weights into the code, as the ONNX
contenders do with the model's initializers; they run when named.
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
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "examples" / "models"))

# The benchmark's model sizes (examples/models/models.py builders).
SIZES = {
    "mlp": dict(batch=64),                            # 784-256-256-10
    "transformer": dict(batch=8, seq=64),             # d 128, 4 heads, ffn 512
    "cnn": dict(batch=16, size=32),                   # 3x32x32, 16 and 32 channels
    "mobile": dict(batch=2, size=96),                 # 3x96x96 down to 3x3, 96 channels
}
CONTENDERS = ["eager", "inductor", "onnxruntime", "jeet-torch", "jeet-onnx"]
# Asked for by name (--contenders): the weights frozen into the compiled
# code, inductor's `freezing` and the jeet backend's options={"freeze": True}.
FROZEN = ["inductor-freeze", "jeet-torch-freeze"]
LABELS = {
    "eager": "torch eager",
    "inductor": "torch.compile (inductor)",
    "onnxruntime": "onnxruntime",
    "jeet-torch": "Jeet torch.compile",
    "jeet-onnx": "Jeet ONNX",
    "inductor-freeze": "inductor, frozen",
    "jeet-torch-freeze": "Jeet torch.compile, frozen",
}


# --------------------------------------------------------------------------
# One contender, in its own process
# --------------------------------------------------------------------------


def _time(fn, repeat, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def worker(model_name, contender, repeat, warmup, threads, workdir):
    import numpy as np
    import torch
    import models
    torch.set_num_threads(threads)
    model, inputs = models.BUILDERS[model_name](**SIZES[model_name])
    numpy_inputs = [x.numpy() for x in inputs]
    with torch.no_grad():
        expected = model(*inputs).numpy()

    if contender in ("onnxruntime", "jeet-onnx"):
        path = os.path.join(workdir, f"{model_name}.onnx")
        if not os.path.exists(path):
            models.export_onnx(model, inputs, path)
    if contender == "eager":
        def run():
            with torch.no_grad():
                return model(*inputs).numpy()
    elif contender in ("inductor", "jeet-torch", "inductor-freeze", "jeet-torch-freeze"):
        frozen = contender.endswith("-freeze")
        if contender.startswith("jeet-torch"):
            import jeet.torch  # noqa: F401 (registers the backend)
            compiled = torch.compile(model, backend="jeet",
                                     options={"freeze": True} if frozen else None)
        else:
            if frozen:
                import torch._inductor.config
                torch._inductor.config.freezing = True
            compiled = torch.compile(model, backend="inductor")

        def run():
            with torch.no_grad():
                return compiled(*inputs).numpy()
    elif contender == "onnxruntime":
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        feed = {f"input{i}": x for i, x in enumerate(numpy_inputs)}

        def run():
            return session.run(None, feed)[0]
    elif contender == "jeet-onnx":
        import jeet.onnx
        try:
            compiled = jeet.onnx.load(path, device="cpu")
        except jeet.onnx.UnsupportedOpsError as error:
            return {"error": "unsupported: this build of Jeet lacks ops "
                             + ", ".join(sorted(error.ops))}

        def run():
            return np.asarray(compiled(*numpy_inputs)[0])
    else:
        raise SystemExit(f"unknown contender {contender}")

    start = time.perf_counter()
    got = run()
    first = time.perf_counter() - start
    median, best = _time(run, repeat, warmup)
    scale = max(1.0, float(np.max(np.abs(expected))))
    error = float(np.max(np.abs(got.astype(np.float64) - expected))) / scale
    result = {"median_ms": median * 1e3, "min_ms": best * 1e3,
              "first_call_s": first, "max_rel_error": error}
    if contender.startswith("jeet"):
        import jeet
        result["kernels"] = _jeet_kernels(contender, model, inputs, compiled)
    return result


def _jeet_kernels(contender, model, inputs, compiled):
    if contender == "jeet-onnx":
        return compiled.num_kernels
    import jeet.torch
    report = jeet.torch.explain(model, *inputs)
    torch_ops = len(report.fallbacks)
    return f"{report.num_kernels} (+{torch_ops} ops in torch)" if torch_ops else report.num_kernels


# --------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------


def run_contender(args, model_name, contender, workdir):
    cmd = [sys.executable, __file__, "--worker", model_name, contender,
           "--repeat", str(args.repeat), "--warmup", str(args.warmup),
           "--threads", str(args.threads), "--workdir", workdir]
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(args.threads)
    if contender.startswith("jeet") and args.jeet_wait_policy != "default":
        # Jeet's kernels run on LLVM's OpenMP runtime, whose idle threads
        # spin for a while (KMP_BLOCKTIME) before they sleep, as onnxruntime's
        # pool does; the default is what a user's process gets. On this
        # 2-core machine, quiet, the default was 1.6-4x faster than
        # OMP_WAIT_POLICY=passive for both of Jeet's contenders (each
        # parallel region wakes a sleeping thread); under load from other
        # processes spinning can cost instead (docs/Performance.md).
        env["OMP_WAIT_POLICY"] = args.jeet_wait_policy
    build_python = str(pathlib.Path(args.build_dir) / "python")
    env["PYTHONPATH"] = os.pathsep.join(
        [build_python] + [p for p in [env.get("PYTHONPATH")] if p])
    # The extension finds Jeet's libraries through the run path of the
    # build it was linked in: a copy of a build directory (an A/B run) must
    # name its own lib/ first, or it runs the original's compiler.
    build_lib = str(pathlib.Path(args.build_dir).resolve() / "lib")
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        [build_lib] + [p for p in [env.get("LD_LIBRARY_PATH")] if p])
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        return {"error": f"failed: {last[:160]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(SIZES))
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--jeet-wait-policy", default="default",
                        choices=["default", "passive", "active"],
                        help="OMP_WAIT_POLICY for Jeet's contenders")
    parser.add_argument("--build-dir", default=os.environ.get(
        "JEET_BUILD_DIR", str(ROOT / "build")))
    parser.add_argument("--worker", nargs=2, metavar=("MODEL", "CONTENDER"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        result = worker(*args.worker, args.repeat, args.warmup, args.threads,
                        args.workdir)
        print(json.dumps(result))
        return

    names = args.models.split(",")
    contenders = args.contenders.split(",")
    print(f"machine: {os.cpu_count()} logical cores; threads per contender: "
          f"{args.threads}; load average at start: {os.getloadavg()[0]:.2f} "
          "(other work on the cores makes numbers noisy)")
    print(f"median (fastest) of {args.repeat} calls after {args.warmup} warm-up "
          "calls, ms; compilation excluded; each contender in its own process")
    results = {}
    with tempfile.TemporaryDirectory(prefix="jeet-models-") as workdir:
        for name in names:
            for contender in contenders:
                results[name, contender] = run_contender(args, name, contender, workdir)
                print(f"  {name:12s} {LABELS[contender]:26s} "
                      + _cell(results[name, contender]), flush=True)
    _print_tables(names, contenders, results)


def _cell(r):
    if "error" in r:
        return r["error"]
    return f"{r['median_ms']:.3f} ({r['min_ms']:.3f})  err {r['max_rel_error']:.1e}" + (
        f"  kernels {r['kernels']}" if "kernels" in r else "")


def _print_tables(names, contenders, results):
    header = ["model"] + [LABELS[c] for c in contenders]
    rows = []
    for name in names:
        row = [name]
        for c in contenders:
            r = results[name, c]
            row.append(r["error"].split(":")[0] if "error" in r
                       else f"{r['median_ms']:.3f} ({r['min_ms']:.3f})")
        rows.append(row)
    _table("median (fastest) ms per call", header, rows)
    for name in names:
        for c in contenders:
            if "error" in results[name, c]:
                print(f"  {name}, {LABELS[c]}: {results[name, c]['error']}")

    ratio_rows = []
    for name in names:
        for jeet in ("jeet-torch", "jeet-torch-freeze", "jeet-onnx"):
            if jeet not in contenders or "error" in results[name, jeet]:
                continue
            mine = results[name, jeet]
            row = [f"{name}, {LABELS[jeet]}"]
            for other in ("eager", "inductor", "inductor-freeze", "onnxruntime"):
                r = results.get((name, other))
                row.append("—" if r is None or "error" in r
                           else f"{r['median_ms'] / mine['median_ms']:.2f}x "
                                f"({r['min_ms'] / mine['min_ms']:.2f}x)")
            ratio_rows.append(row)
    _table("speed of Jeet relative to each: their time / Jeet's, medians "
           "(fastest runs); >= 1.0x: Jeet as fast or faster",
           ["model, frontend", "vs eager", "vs inductor", "vs inductor, frozen",
            "vs onnxruntime"], ratio_rows)


def _table(title, header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    print()
    print(title)
    print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                    for i, (c, w) in enumerate(zip(header, widths))))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))


if __name__ == "__main__":
    main()
