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


def finish(device):
    """Waits for the device: a GPU execution returns as soon as its work is
    queued, so a time taken without waiting would be the launch's alone."""
    if device == "gpu":
        jeet.synchronize()


def timed(fn, repeat, device):
    """(result, compile+first run seconds, median seconds of later runs),
    each run timed until the device has finished it."""
    start = time.perf_counter()
    result = fn()
    finish(device)
    first = time.perf_counter() - start
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        finish(device)
        times.append(time.perf_counter() - start)
    return result, first, float(np.median(times))


def launch_counts(device):
    stats = jeet.memory_stats(device)
    return stats.get("kernels_launched", 0), stats.get("graph_launches", 0)


def launched_text(device, before, kernels_per_run, runs):
    """What ran over `runs` executions: on a GPU the device's counters (each
    kernel launched, and each replay of a compiled graph's kernels as one
    CUDA graph), on the CPU the compiled graph's kernels times the runs."""
    if device != "gpu":
        return f"{kernels_per_run * runs} kernel(s) run over {runs} runs"
    kernels, graphs = (now - then for now, then in zip(launch_counts(device), before))
    return (f"{kernels} kernel launch(es) and {graphs} CUDA graph replay(s) "
            f"over {runs} runs")


def main():
    device, why = pick_device()
    if why:
        print(f"No usable GPU, running on the CPU: {why}")
    emulated = device == "gpu" and any(
        d.get("emulated") for d in jeet.devices() if d.get("kind") != "host")
    print(f"device: {device}" + (" (the Jeet GPU emulator: kernels run on the "
                                 "host CPU; its times are no GPU speed)"
                                 if emulated else ""))

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
    before = jeet.cache_stats()
    k0 = launch_counts(device)
    # Ten runs on either device: the median of two on the CPU was half the
    # second run's, which pays for its output's first touch (the first
    # run's result is still alive then).
    repeat = 10
    c, first, median = timed(lambda: jeet.matmul(a, b).execute(), repeat, device)
    num_kernels = jeet.compile(jeet.matmul(a, b)).num_kernels
    launched = launched_text(device, k0, num_kernels, repeat + 1)
    after = jeet.cache_stats()
    matmul_times = (num_kernels, launched, first, median)

    # --- A fused elementwise chain: one kernel instead of one per op. ---
    x = jeet.randn(1024, 1024, device=device)
    y = jeet.randn(1024, 1024, device=device)

    def chain():
        return jeet.sigmoid(jeet.relu(x * y + x) * 0.5 - y).execute()

    xs, ys = x.numpy().astype(np.float64), y.numpy().astype(np.float64)
    chain_ref = 1 / (1 + np.exp(-(np.maximum(xs * ys + xs, 0) * 0.5 - ys)))
    k0 = launch_counts(device)
    z, first, median = timed(chain, 10, device)
    lazy = jeet.sigmoid(jeet.relu(x * y + x) * 0.5 - y)
    num_kernels = jeet.compile(lazy).num_kernels
    launched = launched_text(device, k0, num_kernels, 11)
    chain_error = np.abs(z.numpy() - chain_ref).max()

    # The matmul's float64 reference after everything is timed: NumPy's BLAS
    # threads spin on the cores for a while after a matmul, and timed right
    # after one, Jeet's 1024^3 matmul took 8 ms instead of 5.2 on two cores.
    reference = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    error = np.abs(c.numpy() - reference).max()
    mm_kernels, mm_launched, mm_first, mm_median = matmul_times
    flops = 2 * 1024**3
    print(
        f"matmul 1024x1024x1024: {mm_kernels} kernel(s) per run, {mm_launched}, "
        f"first run {mm_first * 1e3:.1f} ms, "
        f"median {mm_median * 1e3:.2f} ms ({flops / mm_median / 1e9:.1f} GFLOP/s), "
        f"max error vs numpy (float64) {error:.2e}, "
        f"compilations +{after['compilations'] - before['compilations']}, "
        f"cache hits +{after['cache_hits'] - before['cache_hits']}"
    )
    print(
        f"elementwise chain (6 ops): {num_kernels} kernel(s) per run, {launched}, "
        f"first run {first * 1e3:.1f} ms, "
        f"median {median * 1e3:.2f} ms, max error vs numpy (float64) {chain_error:.2e}"
    )
    print(jeet.explain(lazy))
    return 0


if __name__ == "__main__":
    sys.exit(main())
