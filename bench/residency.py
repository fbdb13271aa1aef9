"""Host time per cached execution of a 10-kernel GPU graph from Python, side
by side: replayed as a CUDA graph, launched kernel by kernel, and the staged
path (inputs copied to the device and the result back on every execution, as
Python did before tensors stayed on the device).

It runs on the recording fake CUDA driver (libjeet_fake_cuda.so, built with
the tests), which executes no kernel and answers each call at once: what is
measured is the host side alone (Python, the runtime, the driver calls), the
part replay exists to shrink. The target is 10 us per replayed execution.
Each mode runs in a process of its own (the driver is chosen per process).
On a GPU, `scripts/gpu-check.sh run` measures the same graph with and
without replay on the device.

    python3 bench/residency.py [--executions N] [--rounds R]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
KERNELS = 10
SIZE = 64
TARGET_US = 10.0

MODES = {
    "replay": "resident inputs, CUDA graph replayed",
    "launches": "resident inputs, 10 kernel launches",
    "staged": "inputs copied in, result copied out",
}


def worker(mode, executions):
    """Runs in the child: times `executions` cached executions in `mode` and
    prints one JSON line."""
    import numpy as np
    import jeet

    jeet.set_cuda_graphs(mode != "launches")

    def chain(a, *ws):
        for w in ws:
            a = a @ w
        return a

    graph = jeet.jit(chain)
    rng = np.random.default_rng(0)
    host = [rng.standard_normal((SIZE, SIZE)).astype(np.float32)
            for _ in range(KERNELS + 1)]
    resident = [jeet.tensor(x, device="gpu") for x in host]

    if mode == "staged":
        def once():
            inputs = [jeet.tensor(x, device="gpu") for x in host]
            return graph(*inputs).numpy()
    else:
        def once():
            return graph(*resident)

    for _ in range(3):  # compile, launch, build the graph
        out = once()
    if mode != "staged":
        out.numpy()
    before = jeet.memory_stats("gpu")
    start = time.perf_counter()
    for _ in range(executions):
        out = once()
    seconds = time.perf_counter() - start
    after = jeet.memory_stats("gpu")
    per = {k: (after[k] - before[k]) / executions
           for k in ("kernels_launched", "graph_launches", "h2d_bytes",
                     "d2h_bytes", "synchronizations", "device_mallocs")}
    # A yardstick of this machine's speed at the moment (load changes it).
    start = time.perf_counter()
    for _ in range(1000):
        sum(range(100))
    yardstick = (time.perf_counter() - start) / 1000
    print(json.dumps({"us": seconds / executions * 1e6, "per": per,
                      "yardstick_us": yardstick * 1e6,
                      "cuda_graphs": jeet.compile(out).cuda_graphs
                      if mode != "staged" else ""}))


def run_mode(mode, args, fake):
    env = dict(os.environ, JEET_CUDA_DRIVER=str(fake),
               PYTHONPATH=str(pathlib.Path(args.build_dir) / "python") +
               os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run(
        [sys.executable, __file__, "--worker", mode,
         "--executions", str(args.executions)],
        env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"residency.py: the {mode} run failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.environ.get(
        "JEET_BUILD_DIR", str(ROOT / "build")))
    parser.add_argument("--executions", type=int, default=2000,
                        help="timed executions per run")
    parser.add_argument("--rounds", type=int, default=3,
                        help="runs (fresh processes) per mode; the median "
                             "is reported")
    parser.add_argument("--worker", choices=sorted(MODES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.executions)
        return

    fake = pathlib.Path(args.build_dir) / "lib" / "libjeet_fake_cuda.so"
    if not fake.exists():
        sys.exit(f"residency.py: {fake} is missing (make build builds it)")
    print(f"Host time per cached execution of a {KERNELS}-kernel graph "
          f"({KERNELS} chained {SIZE}x{SIZE} f32 matmuls, jeet.jit) from "
          f"Python,\non the recording fake CUDA driver (no kernel runs: host "
          f"side only); median of {args.rounds} runs of {args.executions} "
          f"executions; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores.\n")
    header = (f"{'mode':<40} {'us/exec':>8} {'kernels':>8} {'graphs':>7} "
              f"{'H2D B':>8} {'D2H B':>8} {'waits':>6}")
    print(header)
    print("-" * len(header))
    results = {}
    for mode, description in MODES.items():
        runs = [run_mode(mode, args, fake) for _ in range(args.rounds)]
        us = statistics.median(r["us"] for r in runs)
        per = runs[-1]["per"]
        results[mode] = (us, runs)
        print(f"{description:<40} {us:8.1f} {per['kernels_launched']:8.1f} "
              f"{per['graph_launches']:7.1f} {per['h2d_bytes']:8.0f} "
              f"{per['d2h_bytes']:8.0f} {per['synchronizations']:6.1f}")
    replay = results["replay"][0]
    yardstick = statistics.median(r["yardstick_us"]
                                  for r in results["replay"][1])
    print(f"\nreplay vs launches: {results['launches'][0] / replay:.2f}x; "
          f"vs staged: {results['staged'][0] / replay:.1f}x. "
          f"Target: {TARGET_US:.0f} us per replayed execution: "
          f"{'met' if replay <= TARGET_US else 'not met'} ({replay:.1f} us).")
    print(f"Yardstick: sum(range(100)) took {yardstick:.2f} us here "
          f"(about 0.5 us on an idle 3 GHz core); a loaded machine slows "
          f"every row alike.")


if __name__ == "__main__":
    main()
