"""The seed example: a 1024x1024 matmul graph, then a fused elementwise chain.

Runs on the GPU when Jeet can use one, else on the CPU (and says so). Prints
the device, the kernels launched, the time and the max error against NumPy.

    PYTHONPATH=build/python python3 examples/seed.py
"""

import sys
import time

import numpy as np

import jeet


def pick_device():
    try:
        jeet.tensor([1], device="gpu")
        return "gpu", None
    except jeet.DeviceUnavailableError as error:
        return "cpu", str(error)


def timed(fn, repeat):
    """(result, compile+first run seconds, median seconds of later runs)."""
    start = time.perf_counter()
    result = fn()
    first = time.perf_counter() - start
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return result, first, float(np.median(times))


def kernels_launched(device):
    return jeet.memory_stats(device).get("kernels_launched", 0)


def launched_text(device, before, kernels_per_run, runs):
    """Kernels launched over `runs` executions: the device's counter where it
    counts launches, else the compiled graphs' kernel count times the runs."""
    counted = kernels_launched(device) - before
    if counted:
        return f"{counted} kernel(s) launched over {runs} runs"
    return f"{kernels_per_run * runs} kernel(s) run over {runs} runs"


def main():
    device, why = pick_device()
    if why:
        print(f"No usable GPU, running on the CPU: {why}")
    print(f"device: {device}")

    # --- The seed, as written (with the device picked above). ---
    A = jeet.tensor([1024, 1024], dtype="float32", device=device)
    B = jeet.tensor([1024, 1024], dtype="float32", device=device)
    C = jeet.matmul(A, B)  # declares the intent, does not execute
    result = C.execute()   # compiles (cached) and runs
    assert result.shape == (1024, 1024)
    print(f"seed matmul on zero-filled tensors: max |C| = {np.abs(result.numpy()).max()}")

    # --- The same graph on random data: new data, same compiled graph. ---
    a = jeet.rand(1024, 1024, device=device)
    b = jeet.rand(1024, 1024, device=device)
    reference = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    before = jeet.cache_stats()
    k0 = kernels_launched(device)
    repeat = 2 if device == "cpu" else 10
    c, first, median = timed(lambda: jeet.matmul(a, b).execute(), repeat)
    num_kernels = jeet.compile(jeet.matmul(a, b)).num_kernels
    launched = launched_text(device, k0, num_kernels, repeat + 1)
    error = np.abs(c.numpy() - reference).max()
    after = jeet.cache_stats()
    flops = 2 * 1024**3
    print(
        f"matmul 1024x1024x1024: {num_kernels} kernel(s) per run, {launched}, "
        f"first run {first * 1e3:.1f} ms, "
        f"median {median * 1e3:.2f} ms ({flops / median / 1e9:.1f} GFLOP/s), "
        f"max error vs numpy (float64) {error:.2e}, "
        f"compilations +{after['compilations'] - before['compilations']}, "
        f"cache hits +{after['cache_hits'] - before['cache_hits']}"
    )

    # --- A fused elementwise chain: one kernel instead of one per op. ---
    x = jeet.randn(1024, 1024, device=device)
    y = jeet.randn(1024, 1024, device=device)

    def chain():
        return jeet.sigmoid(jeet.relu(x * y + x) * 0.5 - y).execute()

    xs, ys = x.numpy().astype(np.float64), y.numpy().astype(np.float64)
    chain_ref = 1 / (1 + np.exp(-(np.maximum(xs * ys + xs, 0) * 0.5 - ys)))
    k0 = kernels_launched(device)
    z, first, median = timed(chain, 10)
    lazy = jeet.sigmoid(jeet.relu(x * y + x) * 0.5 - y)
    num_kernels = jeet.compile(lazy).num_kernels
    launched = launched_text(device, k0, num_kernels, 11)
    error = np.abs(z.numpy() - chain_ref).max()
    print(
        f"elementwise chain (6 ops): {num_kernels} kernel(s) per run, {launched}, "
        f"first run {first * 1e3:.1f} ms, "
        f"median {median * 1e3:.2f} ms, max error vs numpy (float64) {error:.2e}"
    )
    print(jeet.explain(lazy))
    return 0


if __name__ == "__main__":
    sys.exit(main())
