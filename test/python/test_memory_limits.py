"""Memory running out in the middle of a graph: the execution stops with an
OutOfMemoryError naming the size, gives back everything it held (the
allocator's statistics return to where they were) and the next execution is
right. On the host (JIT-compiled code, allocations in the function's body and
inside OpenMP loops) and on the GPU (`make test` runs those on the GPU
emulator, whose memory JEET_EMULATOR_MEMORY caps).

The intermediates of an execution live in one arena (jeet-plan-memory), taken
before the compiled code runs and kept by the executable for its next
execution: "given back" below means everything but that pooled arena."""
import gc
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import jeet
from jeet import _jeet
from conftest import requires_gpu

# Each buffer of the graph is SIDE x SIDE f32: 16 MiB, above the caching
# allocator's small pool, so each buffer is a segment of its own.
SIDE = 2048
# The most bytes the generated code adds to a request to align the buffer.
ALIGNMENT_SLACK = 256


def graph_text(side):
    """exp, transposes, a mul and an add: unfused, two intermediates are live
    at once in the function's body (none can be computed in place)."""
    t = f"tensor<{side}x{side}xf32>"
    transpose = f"{{permutation = array<i64: 1, 0>}} : {t} -> {t}"
    return (f"func.func @main(%x: {t}) -> {t} {{\n"
            f"  %0 = jeet.exp %x : {t}\n"
            f"  %1 = jeet.transpose %0 {transpose}\n"
            f"  %2 = jeet.mul %1, %0 : {t}, {t} -> {t}\n"
            f"  %3 = jeet.transpose %2 {transpose}\n"
            f"  %4 = jeet.add %3, %0 : {t}, {t} -> {t}\n"
            f"  return %4 : {t}\n}}\n")


def reference(x):
    e = np.exp(x.astype(np.float64))
    return (e.T * e).T + e


def assert_names_size(error, *nbytes):
    """The error names a size asked for: one of `nbytes`, or the little more
    the generated code asks for to align the buffer."""
    sizes = [int(m) for m in
             re.findall(r"(?:allocating|buffer of) (\d+) bytes", str(error))]
    assert any(n <= s <= n + ALIGNMENT_SLACK for s in sizes for n in nbytes), \
        str(error)


def arena(executable):
    return executable.memory_plan["arena_bytes"]


# A batched matmul with an epilogue: its tiles' temporaries are allocated
# inside the OpenMP loop over tiles (jeet-cpu-check-allocations).
BMM = """func.func @main(%a: tensor<4x128x64xf32>, %b: tensor<4x64x128xf32>) -> tensor<4x128x128xf32> {
  %m = jeet.matmul %a, %b : tensor<4x128x64xf32>, tensor<4x64x128xf32> -> tensor<4x128x128xf32>
  %r = jeet.relu %m : tensor<4x128x128xf32>
  return %r : tensor<4x128x128xf32>
}
"""

# Attention as one kernel: each block of 64 query rows keeps its 64 x 512
# scores (128 KiB, more than a thread's stack buffer may take) in a buffer
# allocated inside the parallel loop.
ATTENTION = """func.func @main(%q: tensor<2x512x16xf32>, %k: tensor<2x512x16xf32>, %v: tensor<2x512x16xf32>) -> tensor<2x512x16xf32> {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<2x512x16xf32> -> tensor<2x16x512xf32>
  %s = jeet.matmul %q, %kt : tensor<2x512x16xf32>, tensor<2x16x512xf32> -> tensor<2x512x512xf32>
  %c = jeet.constant dense<0.25> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<2x512x512xf32>, tensor<f32> -> tensor<2x512x512xf32>
  %p = jeet.softmax %ss {axis = 2 : i64} : tensor<2x512x512xf32>
  %o = jeet.matmul %p, %v : tensor<2x512x512xf32>, tensor<2x512x16xf32> -> tensor<2x512x16xf32>
  return %o : tensor<2x512x16xf32>
}
"""


def run(executable, arrays):
    inputs = [_jeet.RuntimeTensor.from_array(a, "float32") for a in arrays]
    return [o.numpy() for o in executable.run(inputs)]


def allocated(device):
    return jeet.memory_stats(device)["allocated_bytes"]


@pytest.fixture
def no_injection():
    # Tensors of earlier tests that only a traceback kept alive go first, so
    # that the statistics a test compares change only by its own doing.
    gc.collect()
    yield
    for device in ("cpu",) + (("gpu",) if jeet.gpu_available() else ()):
        _jeet.inject_allocation_failures(0, 0, device)
        jeet.set_memory_limit(0, device)


def test_host_limit_hit_by_the_arena(rng, no_injection):
    """The memory limit is reached by the arena of intermediates (two live
    16 MiB buffers): the output fits, the arena does not."""
    n = SIDE * SIDE
    exe = _jeet.compile(graph_text(SIDE), fuse=False, cached=False)
    x = rng.standard_normal((SIDE, SIDE)).astype(np.float32)
    inputs = [_jeet.RuntimeTensor.from_array(x, "float32")]
    jeet.empty_cache("cpu")
    before = allocated("cpu")
    reserved = jeet.memory_stats("cpu")["reserved_bytes"]
    # Room for the output (16 MiB) and half an intermediate.
    jeet.set_memory_limit(reserved + 24 * (1 << 20), "cpu")
    with pytest.raises(jeet.OutOfMemoryError) as info:
        exe.run(inputs)
    assert arena(exe) == 2 * 4 * n
    assert_names_size(info.value, arena(exe))
    assert allocated("cpu") == before
    jeet.set_memory_limit(0, "cpu")
    (out,) = [o.numpy() for o in exe.run(inputs)]
    np.testing.assert_allclose(out, reference(x), rtol=1e-5, atol=1e-5)
    # The executable keeps its arena for the next execution.
    assert allocated("cpu") == before + arena(exe)


def fail_then_recover(rng, device, successes, cached):
    """Makes allocation number `successes` of an execution of the 64x64 graph
    on `device` fail: the error names a size asked for, everything allocated
    before is given back (the executable keeps only its arena, once it has
    one), and the next execution is right. A first execution allocates the
    arena and the output; a cached one (`cached`) only the output."""
    side = 64
    n = side * side
    exe = _jeet.compile(graph_text(side), device=device, fuse=False,
                        cached=False)
    x = rng.standard_normal((side, side)).astype(np.float32)
    inputs = [_jeet.RuntimeTensor.from_array(x, "float32",
                                             "cpu" if device == "cpu" else "cuda:0")]
    if cached:
        exe.run(inputs)
    before = allocated(device)
    _jeet.inject_allocation_failures(successes, 1, device)
    with pytest.raises(jeet.OutOfMemoryError) as info:
        exe.run(inputs)
    assert_names_size(info.value, *((4 * n,) if cached else (4 * n, arena(exe))))
    assert allocated(device) == before
    (out,) = [o.numpy() for o in exe.run(inputs)]
    np.testing.assert_allclose(out, reference(x), rtol=1e-5, atol=1e-5)
    assert allocated(device) == before + (0 if cached else arena(exe))


@pytest.mark.parametrize("successes", [0, 1])
def test_host_failure_at_each_allocation(rng, no_injection, successes):
    """The arena and the output of a first execution fail in turn."""
    fail_then_recover(rng, "cpu", successes, cached=False)


def test_host_failure_of_a_cached_execution(rng, no_injection):
    """A cached execution reuses its arena: its output fails."""
    fail_then_recover(rng, "cpu", 0, cached=True)


@pytest.mark.parametrize("successes", [1, 2, 5])
def test_host_failure_in_the_function_body(rng, no_injection, successes):
    """Buffers the memory plan leaves to the compiled code: with sequential
    kernels, the batched matmul's function allocates the packed panels of
    every batch's B (4x64x128 f32), held through the whole loop nest, then
    temporaries per tile: its 64x64 f32 accumulator (4 batches of 2 x 2
    tiles: too few for 128-row tiles) and, where the register tile is 6x16
    (hosts without AVX-512), A's packed block (6x2x64x6 f32).
    The output first, then those in turn fail: the function's body checks the
    null result, frees the buffer it holds (all but the first case) and
    returns the error."""
    exe = _jeet.compile(BMM, parallel=False, cached=False)
    a = rng.standard_normal((4, 128, 64)).astype(np.float32)
    b = rng.standard_normal((4, 64, 128)).astype(np.float32)
    inputs = [_jeet.RuntimeTensor.from_array(v, "float32") for v in (a, b)]
    before = allocated("cpu")
    _jeet.inject_allocation_failures(successes, 1, "cpu")
    with pytest.raises(jeet.OutOfMemoryError) as info:
        exe.run(inputs)
    if successes == 1:
        assert_names_size(info.value, 4 * 64 * 128 * 4)
    else:
        assert_names_size(info.value, 64 * 64 * 4, 6 * 2 * 64 * 6 * 4)
    assert allocated("cpu") == before
    (out,) = [o.numpy() for o in exe.run(inputs)]
    ref = np.maximum(a.astype(np.float64) @ b, 0)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    assert allocated("cpu") == before


def test_host_failure_inside_a_parallel_loop(rng, no_injection):
    """A block's temporary fails on an OpenMP thread: the other blocks
    finish, the execution reports the size, and nothing leaks. (A matmul
    tile's 64x64 accumulator no longer reaches the allocator: each thread
    keeps one on its stack; an attention block's scores are too large.)"""
    exe = _jeet.compile(ATTENTION, cached=False)
    q, k, v = (rng.standard_normal((2, 512, 16)).astype(np.float32)
               for _ in range(3))
    inputs = [_jeet.RuntimeTensor.from_array(x, "float32") for x in (q, k, v)]
    before = allocated("cpu")
    # The output and the buffers made before the loop first, then a few
    # blocks' scores (64x512 f32 each).
    _jeet.inject_allocation_failures(5, 1, "cpu")
    # The calling thread runs blocks too: the allocator's own message when
    # the failing block was its, else the one the function's body reports.
    with pytest.raises(jeet.OutOfMemoryError) as info:
        exe.run(inputs)
    assert_names_size(info.value, 64 * 512 * 4)
    assert allocated("cpu") == before
    (out,) = [o.numpy() for o in exe.run(inputs)]
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * 0.25
    p = np.exp(s - s.max(axis=2, keepdims=True))
    p /= p.sum(axis=2, keepdims=True)
    np.testing.assert_allclose(out, p @ v, rtol=1e-4, atol=1e-5)
    assert allocated("cpu") == before


@requires_gpu
@pytest.mark.parametrize("successes", [0, 1])
def test_gpu_failure_at_each_allocation(rng, no_injection, successes):
    """On the GPU, with the input already on the device: the arena's and the
    output's device allocations fail in turn; the host code frees what it
    holds and releases its stream."""
    fail_then_recover(rng, "gpu", successes, cached=False)


def _emulator():
    here = pathlib.Path(__file__).resolve().parents[2]
    for build in (os.environ.get("JEET_BUILD_DIR", ""), here / "build"):
        path = pathlib.Path(build) / "lib" / "libjeet_cuda_emulator.so"
        if build and path.exists():
            return str(path)
    return None


@pytest.mark.skipif(_emulator() is None, reason="the GPU emulator is not built")
def test_emulated_device_runs_out_of_memory(seed):
    """The emulated device has 56 MiB (JEET_EMULATOR_MEMORY): the unfused
    graph needs more at its peak (input and output of 16 MiB each, an arena of
    32 MiB) and fails in the driver's cuMemAlloc; the same graph on 4 MiB
    buffers then runs, and the device's memory is all back."""
    code = f"""
import sys
import numpy as np
import jeet
from jeet import _jeet
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
from test_memory_limits import SIDE, assert_names_size, graph_text, reference
x = np.random.default_rng({seed}).standard_normal((SIDE, SIDE)).astype(np.float32)
inputs = [_jeet.RuntimeTensor.from_array(x, "float32", "cuda:0")]
unfused = _jeet.compile(graph_text(SIDE), device="gpu", fuse=False, cached=False)
before = jeet.memory_stats("gpu")["allocated_bytes"]
try:
    unfused.run(inputs)
    raise SystemExit("no OutOfMemoryError")
except jeet.OutOfMemoryError as e:
    assert_names_size(e, 4 * SIDE * SIDE, unfused.memory_plan["arena_bytes"])
    print("error:", e)
assert jeet.memory_stats("gpu")["allocated_bytes"] == before
jeet.empty_cache("gpu")
small = x[:1024, :1024].copy()
smaller = _jeet.compile(graph_text(1024), device="gpu", fuse=False, cached=False)
(out,) = [o.numpy() for o in
          smaller.run([_jeet.RuntimeTensor.from_array(small, "float32", "cuda:0")])]
assert np.allclose(out, reference(small), rtol=1e-5, atol=1e-5)
# All back but the arena the executable keeps for its next execution.
assert (jeet.memory_stats("gpu")["allocated_bytes"]
        == before + smaller.memory_plan["arena_bytes"])
print("OK")
"""
    env = dict(os.environ, JEET_CUDA_DRIVER=_emulator(),
               JEET_EMULATOR_MEMORY="56M")
    result = subprocess.run([sys.executable, "-c", code], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK" in result.stdout, result.stdout
