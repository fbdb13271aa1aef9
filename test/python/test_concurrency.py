"""One cached graph executed from 8 Python threads at once: the binding
releases the GIL while the compiled code runs, so the executions overlap in
Jeet's code (the compiler's cache, the executable's pool of arenas, the
runtime's allocator and error slots). `make test-tsan` runs this file under
ThreadSanitizer with the kernels sequential (`-k sequential`: libomp is not
instrumented)."""
import threading

import numpy as np
import pytest

import jeet
from jeet import _jeet

THREADS = 8
RUNS_PER_THREAD = 20
M, K, N = 33, 17, 9

# relu(x @ w + b) summed over rows: two kernels and an intermediate.
GRAPH = f"""func.func @main(%x: tensor<{M}x{K}xf32>, %w: tensor<{K}x{N}xf32>,
                %b: tensor<{N}xf32>) -> tensor<{M}xf32> {{
  %0 = jeet.matmul %x, %w : tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32> -> tensor<{M}x{N}xf32>
  %1 = jeet.add %0, %b : tensor<{M}x{N}xf32>, tensor<{N}xf32> -> tensor<{M}x{N}xf32>
  %2 = jeet.relu %1 : tensor<{M}x{N}xf32>
  %3 = jeet.reduce_sum %2 {{axes = array<i64: 1>}} : tensor<{M}x{N}xf32> -> tensor<{M}xf32>
  return %3 : tensor<{M}xf32>
}}
"""


def reference(x, w, b):
    h = x.astype(np.float64) @ w.astype(np.float64) + b
    return np.maximum(h, 0).sum(axis=1)


@pytest.mark.parametrize("parallel", [False, True],
                         ids=["sequential", "parallel"])
def test_threads_execute_one_cached_graph(rng, parallel):
    _jeet.clear_cache()
    before = jeet.memory_stats("cpu")["allocated_bytes"]
    exe = _jeet.compile(GRAPH, parallel=parallel, cached=True)
    # Inputs of their own per thread: an execution that read or wrote
    # another's buffers gives a wrong result.
    cases = []
    for _ in range(THREADS):
        arrays = [rng.standard_normal(s).astype(np.float32)
                  for s in ((M, K), (K, N), (N,))]
        cases.append((arrays, reference(*arrays)))
    start = threading.Barrier(THREADS)
    failures = [[] for _ in range(THREADS)]

    def work(index):
        arrays, expected = cases[index]
        inputs = [_jeet.RuntimeTensor.from_array(a, "float32")
                  for a in arrays]
        start.wait()
        for run in range(RUNS_PER_THREAD):
            try:
                (out,) = [o.numpy() for o in exe.run(inputs)]
            except Exception as error:  # reported by the main thread
                failures[index].append(f"run {run}: {error!r}")
                continue
            if not np.allclose(out, expected, rtol=1e-4, atol=1e-4):
                failures[index].append(
                    f"run {run}: max error "
                    f"{np.nanmax(np.abs(out - expected))}")

    threads = [threading.Thread(target=work, args=(i,))
               for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == [[] for _ in range(THREADS)]
    assert _jeet.cache_stats()["entries"] == 1
    # The executable's pooled arenas are freed with it and the cache's copy.
    del exe
    _jeet.clear_cache()
    assert jeet.memory_stats("cpu")["allocated_bytes"] == before
