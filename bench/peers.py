#!/usr/bin/env python3
"""Jeet against its peers on the CPU, side by side in one process.

Every graph is defined once, as a function of an op set (`ops.add`,
`ops.matmul`, `ops.sum`, ...), and run through Jeet (`jeet.jit`), numpy,
JAX/XLA (`jax.jit`), torch eager (oneDNN/MKL for matmuls), `torch.compile`
(inductor), onnxruntime and IREE (the JAX graph's StableHLO compiled with
iree-compile for llvm-cpu), all on the same number of threads. Peers that
are not installed are left out and named (`make bench-setup` installs them).

For each graph: median and fastest (best) time per peer, the ratio of the
peer's time to Jeet's (above 1: Jeet is faster), kernels per graph, and the
largest error against a float64 numpy reference computed in the same run.
Then cold compile times, the warm start of a cached graph in a new process,
and the per-call overhead of a tiny graph (jit, redefined every call, numpy).

    python3 bench/peers.py [--threads 2] [--rounds 3] [--only mlp,softmax]
                           [--peers jeet,numpy,jax] [--quick]

The machine's load average is printed: other work on the cores moves
medians by 1.5-3x; the best runs and the ratios of one run move less.
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
PEERS = ["jeet", "numpy", "jax", "torch", "torch.compile", "onnxruntime",
         "iree"]


def parse_args():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds over all peers; each times --repeat calls")
    parser.add_argument("--repeat", type=int, default=0,
                        help="timed calls per peer and round (0: per graph)")
    parser.add_argument("--only", default="",
                        help="comma-separated graph names (default: all)")
    parser.add_argument("--peers", default=",".join(PEERS),
                        help="comma-separated peers (default: all installed)")
    parser.add_argument("--quick", action="store_true",
                        help="one round, fewer calls: a smoke run")
    parser.add_argument("--build-dir", default=os.environ.get(
        "JEET_BUILD_DIR", str(ROOT / "build")))
    parser.add_argument("--no-compile-table", action="store_true")
    parser.add_argument("--warm-start-child", action="store_true",
                        help=argparse.SUPPRESS)
    return parser.parse_args()


ARGS = parse_args()


def set_thread_environment(threads):
    """Same threads for everyone; set before any peer is imported."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        os.environ.pop(var, None)
    # Each peer brings a thread pool that spins after its work; pauses
    # between peers (PAUSE_S) let them fall asleep before the next one runs.
    os.environ.setdefault("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] += (
        f" --xla_cpu_multi_thread_eigen=true"
        f" intra_op_parallelism_threads={threads}")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    # XLA's CPU runtime sizes its pool by the cores it may run on, whatever
    # the flags above say (jax 0.10 ran a matmul at 540 GFLOP/s with
    # --threads 1 on two Zen 5 cores: both): fewer threads than cores
    # confine the whole process, every peer's threads, to that many cores.
    cores = sorted(os.sched_getaffinity(0))
    if threads < len(cores):
        os.sched_setaffinity(0, cores[:threads])


set_thread_environment(ARGS.threads)
sys.path.insert(0, str(pathlib.Path(ARGS.build_dir) / "python"))
# The extension finds Jeet's libraries through the run path of the build it
# was linked in: a copy of a build directory (an A/B run) must put its own
# lib/ first on the loader's path, which takes a new process to apply.
_BUILD_LIB = str(pathlib.Path(ARGS.build_dir).resolve() / "lib")
if os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)[0] != _BUILD_LIB:
    os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(
        [_BUILD_LIB] + [p for p in [os.environ.get("LD_LIBRARY_PATH")] if p])
    os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy as np  # noqa: E402

PAUSE_S = 0.25


# ---------------------------------------------------------------------------
# The graphs, written once against an op set
# ---------------------------------------------------------------------------

def chain10(ops, a, b, c):
    t = ops.mul(a, b)
    t = ops.add(t, c)
    t = ops.sub(t, a)
    t = ops.maximum(t, b)
    t = ops.mul(t, c)
    t = ops.abs(t)
    t = ops.add(t, a)
    t = ops.neg(t)
    t = ops.minimum(t, b)
    return ops.relu(t)


def gelu_chain(ops, x):
    # tanh-approximated GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    x3 = ops.mul(ops.mul(x, x), x)
    inner = ops.mul(ops.add(x, ops.mul(x3, 0.044715)), 0.7978845608)
    return ops.mul(ops.mul(x, 0.5), ops.add(ops.tanh(inner), 1.0))


def matmul(ops, a, b):
    return ops.matmul(a, b)


def mlp3(ops, x, w1, b1, w2, b2, w3, b3):
    h = ops.relu(ops.add(ops.matmul(x, w1), b1))
    h = ops.relu(ops.add(ops.matmul(h, w2), b2))
    return ops.add(ops.matmul(h, w3), b3)


def batched_matmul(ops, a, b):
    return ops.matmul(a, b)


def softmax(ops, x):
    m = ops.max(x, -1)
    e = ops.exp(ops.sub(x, m))
    return ops.div(e, ops.sum(e, -1))


def layernorm(ops, x, gamma, beta):
    n = x.shape[-1]
    mean = ops.mul(ops.sum(x, -1), 1.0 / n)
    d = ops.sub(x, mean)
    var = ops.mul(ops.sum(ops.mul(d, d), -1), 1.0 / n)
    inv = ops.rsqrt(ops.add(var, 1e-5))
    return ops.add(ops.mul(ops.mul(d, inv), gamma), beta)


def transpose(ops, x):
    # Materialized: numpy's and torch's transposes are views until copied.
    return ops.contiguous(ops.transpose(x))


def transposed_bias(ops, x, b):
    # An elementwise op reading a transpose (x.T * 2 + b): one kernel.
    return ops.add(ops.mul(ops.transpose(x), 2.0), b)


def attention(ops, q, k, v):
    scale = 1.0 / float(np.sqrt(q.shape[-1]))
    s = ops.mul(ops.matmul(q, ops.transpose(k)), scale)
    return ops.matmul(softmax(ops, s), v)


class Graph:
    def __init__(self, name, fn, shapes, repeat, scale=1.0, tol=2e-4,
                 work=None):
        self.name, self.fn, self.shapes = name, fn, shapes
        self.repeat, self.scale, self.tol, self.work = repeat, scale, tol, work

    def inputs(self, rng):
        return [(rng.standard_normal(s, dtype=np.float32) *
                 np.float32(self.scale if i else 1.0)) for i, s in
                enumerate(self.shapes)]


N24 = 1 << 24
GRAPHS = [
    Graph("chain10 2^24", chain10, [(N24,)] * 3, 10),
    Graph("gelu 2^24", gelu_chain, [(N24,)], 10),
    Graph("matmul 1024^3", matmul, [(1024, 1024)] * 2, 10, tol=1e-4,
          work=2 * 1024 ** 3),
    Graph("matmul 2048^3", matmul, [(2048, 2048)] * 2, 3, tol=1e-4,
          work=2 * 2048 ** 3),
    Graph("mlp 256x1024 (3 layers)", mlp3,
          [(256, 1024), (1024, 1024), (1024,)] * 1 +
          [(1024, 1024), (1024,), (1024, 1024), (1024,)], 10, scale=0.03,
          tol=1e-4, work=3 * 2 * 256 * 1024 * 1024),
    Graph("batched matmul 16x256x512x256", batched_matmul,
          [(16, 256, 512), (16, 512, 256)], 20, tol=1e-4,
          work=2 * 16 * 256 * 512 * 256),
    Graph("softmax 4096^2", softmax, [(4096, 4096)], 10),
    Graph("layernorm 8192x1024", layernorm, [(8192, 1024), (1024,), (1024,)],
          10),
    Graph("attention 8x512x64", attention, [(8, 512, 64)] * 3, 10, tol=1e-4,
          work=2 * 2 * 8 * 512 * 512 * 64),
    Graph("attention 8x2048x64", attention, [(8, 2048, 64)] * 3, 3, tol=1e-4,
          work=2 * 2 * 8 * 2048 * 2048 * 64),
    Graph("transpose 4096^2", transpose, [(4096, 4096)], 10),
    Graph("x.T * 2 + b 4096^2", transposed_bias, [(4096, 4096), (4096,)], 10),
    Graph("tiny chain10 1024", chain10, [(1024,)] * 3, 2000),
]


# ---------------------------------------------------------------------------
# Op sets
# ---------------------------------------------------------------------------

class NumpyOps:
    """numpy: also the float64 reference (the dtype follows the inputs)."""

    def __init__(self, dtype=np.float32):
        self.dtype = dtype

    def _c(self, v):
        return self.dtype(v) if isinstance(v, float) else v

    def add(self, x, y): return np.add(x, self._c(y))
    def sub(self, x, y): return np.subtract(x, self._c(y))
    def mul(self, x, y): return np.multiply(x, self._c(y))
    def div(self, x, y): return np.divide(x, self._c(y))
    def maximum(self, x, y): return np.maximum(x, self._c(y))
    def minimum(self, x, y): return np.minimum(x, self._c(y))
    def neg(self, x): return np.negative(x)
    def abs(self, x): return np.abs(x)
    def exp(self, x): return np.exp(x)
    def tanh(self, x): return np.tanh(x)
    def relu(self, x): return np.maximum(x, self.dtype(0))
    def rsqrt(self, x): return self.dtype(1) / np.sqrt(x)
    def matmul(self, x, y): return np.matmul(x, y)
    def transpose(self, x): return np.swapaxes(x, -1, -2)
    def contiguous(self, x): return np.ascontiguousarray(x)
    def sum(self, x, axis): return np.sum(x, axis=axis, keepdims=True)
    def max(self, x, axis): return np.max(x, axis=axis, keepdims=True)


class JeetOps:
    def __init__(self, jeet):
        self.j = jeet

    def add(self, x, y): return x + y
    def sub(self, x, y): return x - y
    def mul(self, x, y): return x * y
    def div(self, x, y): return x / y
    def maximum(self, x, y): return self.j.maximum(x, y)
    def minimum(self, x, y): return self.j.minimum(x, y)
    def neg(self, x): return -x
    def abs(self, x): return self.j.abs(x)
    def exp(self, x): return self.j.exp(x)
    def tanh(self, x): return self.j.tanh(x)
    def relu(self, x): return self.j.relu(x)
    def rsqrt(self, x): return self.j.rsqrt(x)
    def matmul(self, x, y): return self.j.matmul(x, y)

    def transpose(self, x):
        perm = list(range(len(x.shape)))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return self.j.transpose(x, perm)

    def contiguous(self, x): return x

    def sum(self, x, axis): return self.j.sum(x, axis=axis, keepdims=True)
    def max(self, x, axis): return self.j.max(x, axis=axis, keepdims=True)


class JaxOps:
    def __init__(self, jnp):
        self.n = jnp

    def add(self, x, y): return x + y
    def sub(self, x, y): return x - y
    def mul(self, x, y): return x * y
    def div(self, x, y): return x / y
    def maximum(self, x, y): return self.n.maximum(x, y)
    def minimum(self, x, y): return self.n.minimum(x, y)
    def neg(self, x): return -x
    def abs(self, x): return self.n.abs(x)
    def exp(self, x): return self.n.exp(x)
    def tanh(self, x): return self.n.tanh(x)
    def relu(self, x): return self.n.maximum(x, 0.0)
    def rsqrt(self, x): return 1.0 / self.n.sqrt(x)
    def matmul(self, x, y): return self.n.matmul(x, y)
    def transpose(self, x): return self.n.swapaxes(x, -1, -2)
    def contiguous(self, x): return x
    def sum(self, x, axis): return self.n.sum(x, axis=axis, keepdims=True)
    def max(self, x, axis): return self.n.max(x, axis=axis, keepdims=True)


class TorchOps:
    def __init__(self, torch):
        self.t = torch

    def add(self, x, y): return x + y
    def sub(self, x, y): return x - y
    def mul(self, x, y): return x * y
    def div(self, x, y): return x / y
    def maximum(self, x, y): return self.t.maximum(x, y)
    def minimum(self, x, y): return self.t.minimum(x, y)
    def neg(self, x): return -x
    def abs(self, x): return self.t.abs(x)
    def exp(self, x): return self.t.exp(x)
    def tanh(self, x): return self.t.tanh(x)
    def relu(self, x): return self.t.relu(x)
    def rsqrt(self, x): return self.t.rsqrt(x)
    def matmul(self, x, y): return self.t.matmul(x, y)
    def transpose(self, x): return self.t.transpose(x, -1, -2)
    def contiguous(self, x): return x.contiguous()
    def sum(self, x, axis): return self.t.sum(x, dim=axis, keepdim=True)
    def max(self, x, axis): return self.t.amax(x, dim=axis, keepdim=True)


class OnnxOps:
    """Records an ONNX graph (opset 18) while the graph function runs on
    symbolic values: (name, shape) pairs."""

    def __init__(self, helper, numpy_helper):
        self.h, self.nh = helper, numpy_helper
        self.nodes, self.inits = [], []
        self.count = 0

    def _name(self):
        self.count += 1
        return f"v{self.count}"

    def _value(self, x, like_shape=None):
        if isinstance(x, tuple):
            return x
        name = self._name()
        self.inits.append(self.nh.from_array(np.array(x, dtype=np.float32),
                                             name))
        return (name, ())

    def _node(self, op, inputs, shape, **attrs):
        name = self._name()
        self.nodes.append(self.h.make_node(op, [i[0] for i in inputs], [name],
                                           **attrs))
        return (name, tuple(shape))

    def _binary(self, op, x, y):
        x, y = self._value(x), self._value(y)
        return self._node(op, [x, y], np.broadcast_shapes(x[1], y[1]))

    def _axes(self, axis, rank):
        name = self._name()
        self.inits.append(self.nh.from_array(
            np.array([axis % rank], dtype=np.int64), name))
        return (name, (1,))

    def add(self, x, y): return self._binary("Add", x, y)
    def sub(self, x, y): return self._binary("Sub", x, y)
    def mul(self, x, y): return self._binary("Mul", x, y)
    def div(self, x, y): return self._binary("Div", x, y)
    def maximum(self, x, y): return self._binary("Max", x, y)
    def minimum(self, x, y): return self._binary("Min", x, y)
    def neg(self, x): return self._node("Neg", [x], x[1])
    def abs(self, x): return self._node("Abs", [x], x[1])
    def exp(self, x): return self._node("Exp", [x], x[1])
    def tanh(self, x): return self._node("Tanh", [x], x[1])
    def relu(self, x): return self._node("Relu", [x], x[1])

    def rsqrt(self, x):
        return self._node("Reciprocal", [self._node("Sqrt", [x], x[1])], x[1])

    def matmul(self, x, y):
        shape = np.broadcast_shapes(x[1][:-2], y[1][:-2]) + (x[1][-2],
                                                             y[1][-1])
        return self._node("MatMul", [x, y], shape)

    def transpose(self, x):
        perm = list(range(len(x[1])))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return self._node("Transpose", [x], [x[1][p] for p in perm],
                          perm=perm)

    def contiguous(self, x): return x

    def _reduce(self, op, x, axis):
        shape = list(x[1])
        shape[axis] = 1
        return self._node(op, [x, self._axes(axis, len(shape))], shape,
                          keepdims=1)

    def sum(self, x, axis): return self._reduce("ReduceSum", x, axis)
    def max(self, x, axis): return self._reduce("ReduceMax", x, axis)


class Symbolic:
    """A graph input for OnnxOps with the .shape that graph functions read."""


# ---------------------------------------------------------------------------
# Peers: each prepares a callable on its own copies of the inputs
# ---------------------------------------------------------------------------

class Prepared:
    """A peer's compiled graph: `call()` runs it, `result()` gives the last
    output as numpy, `kernels` counts its kernels (or None), `compile_s` is
    how long preparing it took (compilation included), `first_s` (where
    measured) compilation and the first call together."""

    def __init__(self, call, result, kernels=None, compile_s=None,
                 first_s=None):
        self.call, self.result = call, result
        self.kernels, self.compile_s = kernels, compile_s
        self.first_s = first_s


def load_peers(names):
    peers, missing = {}, []
    for name in names:
        try:
            peers[name] = PEER_LOADERS[name]()
        except Exception as error:  # an optional peer that is not usable
            missing.append(f"{name} ({type(error).__name__}: "
                           f"{str(error).splitlines()[0][:100]})")
    return peers, missing


def load_jeet():
    import jeet
    return jeet


def prepare_jeet(jeet, graph, arrays):
    ops = JeetOps(jeet)
    tensors = [jeet.from_numpy(a, device="cpu") for a in arrays]
    fn = jeet.jit(lambda *xs: graph.fn(ops, *xs))
    # Compilation alone (tracing included), as XLA's is timed below; then
    # the first call, which finds the compiled graph in the cache and runs
    # it for the first time (first touch of its output and scratch memory).
    start = time.perf_counter()
    kernels = jeet.compile(graph.fn(ops, *tensors)).num_kernels
    compile_s = time.perf_counter() - start
    out = fn(*tensors)
    first_s = time.perf_counter() - start
    box = [out]

    def call():
        box[0] = fn(*tensors)

    return Prepared(call, lambda: box[0].numpy(), kernels, compile_s,
                    first_s)


def load_numpy():
    return np


def prepare_numpy(_, graph, arrays):
    ops = NumpyOps()
    box = [None]

    def call():
        box[0] = graph.fn(ops, *arrays)

    return Prepared(call, lambda: box[0])


def load_jax():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", False)
    return (jax, jnp)


def count_hlo_kernels(text):
    """Instructions of the ENTRY computation that run code (fusions, dots,
    custom calls, copies, ...)."""
    free = {"parameter", "tuple", "get-tuple-element", "constant", "bitcast"}
    count, in_entry = 0, False
    for line in text.splitlines():
        if line.startswith("ENTRY"):
            in_entry = True
            continue
        if in_entry:
            if line.startswith("}"):
                break
            if "=" not in line:
                continue
            rhs = line.split("=", 1)[1].strip()
            opcode = rhs.split("(", 1)[0].split()[-1] if "(" in rhs else ""
            if opcode and opcode not in free:
                count += 1
    return count


def prepare_jax(mods, graph, arrays):
    jax, jnp = mods
    ops = JaxOps(jnp)
    inputs = [jax.device_put(a) for a in arrays]
    jitted = jax.jit(lambda *xs: graph.fn(ops, *xs))
    start = time.perf_counter()
    compiled = jitted.lower(*inputs).compile()
    compile_s = time.perf_counter() - start
    box = [compiled(*inputs).block_until_ready()]
    first_s = time.perf_counter() - start
    kernels = count_hlo_kernels(compiled.as_text())

    def call():
        box[0] = compiled(*inputs).block_until_ready()

    return Prepared(call, lambda: np.asarray(box[0]), kernels, compile_s,
                    first_s)


def load_torch():
    import torch
    torch.set_num_threads(ARGS.threads)
    return torch


def prepare_torch(torch, graph, arrays):
    ops = TorchOps(torch)
    inputs = [torch.from_numpy(a) for a in arrays]
    box = [None]

    def call():
        with torch.no_grad():
            box[0] = graph.fn(ops, *inputs)

    return Prepared(call, lambda: box[0].numpy())


def prepare_torch_compile(torch, graph, arrays):
    import torch._dynamo
    import torch._inductor.metrics as metrics
    ops = TorchOps(torch)
    inputs = [torch.from_numpy(a) for a in arrays]
    torch._dynamo.reset()
    metrics.reset()
    compiled = torch.compile(lambda *xs: graph.fn(ops, *xs))
    start = time.perf_counter()
    with torch.no_grad():
        out = compiled(*inputs)
    compile_s = time.perf_counter() - start
    kernels = metrics.generated_kernel_count + getattr(
        metrics, "num_extern_kernels", 0) if hasattr(
        metrics, "generated_kernel_count") else None
    box = [out]

    def call():
        with torch.no_grad():
            box[0] = compiled(*inputs)

    return Prepared(call, lambda: box[0].numpy(), kernels, compile_s)


def load_onnxruntime():
    import onnx
    import onnx.helper
    import onnx.numpy_helper
    import onnxruntime
    return (onnx, onnxruntime)


def prepare_onnxruntime(mods, graph, arrays):
    onnx, ort = mods
    ops = OnnxOps(onnx.helper, onnx.numpy_helper)

    class Value(tuple):
        @property
        def shape(self):
            return self[1]

    names = [f"in{i}" for i in range(len(arrays))]
    inputs = [Value((n, a.shape)) for n, a in zip(names, arrays)]
    out = graph.fn(ops, *inputs)
    f32 = onnx.TensorProto.FLOAT
    model = onnx.helper.make_model(
        onnx.helper.make_graph(
            ops.nodes, graph.name.replace(" ", "_"),
            [onnx.helper.make_tensor_value_info(n, f32, a.shape)
             for n, a in zip(names, arrays)],
            [onnx.helper.make_tensor_value_info(out[0], f32, out[1])],
            ops.inits),
        opset_imports=[onnx.helper.make_opsetid("", 18)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = ARGS.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = \
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    optimized = tempfile.NamedTemporaryFile(suffix=".onnx", delete=False)
    options.optimized_model_filepath = optimized.name
    start = time.perf_counter()
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    compile_s = time.perf_counter() - start
    kernels = len(onnx.load(optimized.name).graph.node)
    os.unlink(optimized.name)
    feed = dict(zip(names, arrays))
    box = [None]

    def call():
        box[0] = session.run(None, feed)[0]

    return Prepared(call, lambda: box[0], kernels, compile_s)


def load_iree():
    import iree.compiler
    import iree.runtime
    jax_mods = load_jax()
    iree.runtime.flags.parse_flags(
        f"--task_topology_max_group_count={ARGS.threads}")
    return (iree.compiler, iree.runtime, jax_mods)


def prepare_iree(mods, graph, arrays):
    compiler, runtime, (jax, jnp) = mods
    ops = JaxOps(jnp)
    stablehlo = jax.jit(lambda *xs: graph.fn(ops, *xs)).lower(
        *arrays).as_text()
    flags = ["--iree-llvmcpu-target-cpu=host"]
    start = time.perf_counter()
    vmfb = compiler.compile_str(stablehlo, target_backends=["llvm-cpu"],
                                input_type="stablehlo", extra_args=flags)
    compile_s = time.perf_counter() - start
    flow = compiler.compile_str(stablehlo, target_backends=["llvm-cpu"],
                                input_type="stablehlo",
                                extra_args=flags + ["--compile-to=flow"])
    text = flow.decode() if isinstance(flow, bytes) else str(flow)
    kernels = text.count("flow.dispatch @")
    config = runtime.Config("local-task")
    ctx = runtime.SystemContext(config=config)
    module = runtime.VmModule.copy_buffer(ctx.instance, vmfb)
    ctx.add_vm_module(module)
    main = ctx.modules[module.name]["main"]
    inputs = [runtime.asdevicearray(config.device, a) for a in arrays]
    box = [None]

    def call():
        box[0] = main(*inputs)

    return Prepared(call, lambda: np.asarray(box[0].to_host()), kernels,
                    compile_s)


PEER_LOADERS = {"jeet": load_jeet, "numpy": load_numpy, "jax": load_jax,
                "torch": load_torch, "torch.compile": load_torch,
                "onnxruntime": load_onnxruntime, "iree": load_iree}
PEER_PREPARE = {"jeet": prepare_jeet, "numpy": prepare_numpy,
                "jax": prepare_jax, "torch": prepare_torch,
                "torch.compile": prepare_torch_compile,
                "onnxruntime": prepare_onnxruntime, "iree": prepare_iree}


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------

def max_rel_error(actual, expected):
    expected = np.asarray(expected, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(expected))))
    return float(np.max(np.abs(np.asarray(actual, dtype=np.float64) -
                                expected))) / scale


def time_calls(call, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


def fmt_ms(seconds):
    ms = seconds * 1e3
    if ms < 0.1:
        return f"{ms * 1e3:.1f}us"
    return f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def print_table(title, header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]

    def fmt(row):
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(row, widths)))

    print(f"\n{title}")
    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(fmt(row))
    sys.stdout.flush()


def run_graph(graph, peers, rng):
    arrays = graph.inputs(rng)
    reference = graph.fn(NumpyOps(np.float64),
                         *[a.astype(np.float64) for a in arrays])
    prepared, failed = {}, {}
    for name, mod in peers.items():
        # The reference's matmuls leave OpenBLAS's threads spinning, and
        # each peer's preparation its own pool: a compile that starts while
        # they spin shares its cores with them (Jeet's code generation
        # runs on two threads).
        time.sleep(PAUSE_S)
        try:
            prepared[name] = PEER_PREPARE[name](mod, graph, arrays)
        except Exception as error:
            lines = str(error).splitlines() or [""]
            failed[name] = f"{type(error).__name__}: {lines[0][:80]}"
    repeat = ARGS.repeat or graph.repeat
    rounds = ARGS.rounds
    if ARGS.quick:
        repeat, rounds = max(1, min(repeat, 3 if repeat < 100 else 200)), 1
    times = {name: [] for name in prepared}
    for _ in range(rounds):
        for name, p in prepared.items():
            p.call()  # warm
            times[name] += time_calls(p.call, repeat)
            time.sleep(PAUSE_S)
    results = {}
    for name, p in prepared.items():
        error = max_rel_error(p.result(), reference)
        results[name] = dict(median=statistics.median(times[name]),
                             best=min(times[name]), kernels=p.kernels,
                             compile_s=p.compile_s, first_s=p.first_s,
                             error=error,
                             ok=error <= graph.tol)
    return results, failed


def warm_start_child():
    """In a fresh process, after `import jeet`: the MLP's first call (its
    graph compiled by an earlier process and kept in JEET_CACHE_DIR), split
    into the time to a ready executable (trace, graph text, the disk cache's
    read, check and link: `ready`) and the rest of the call (the first run);
    then a steady call (the fastest of 5 more). Prints seconds."""
    start = time.perf_counter()
    import jeet
    from jeet import _tensor
    imported = time.perf_counter()
    graph = next(g for g in GRAPHS if g.name.startswith("mlp"))
    arrays = graph.inputs(np.random.default_rng(0))
    ops = JeetOps(jeet)
    tensors = [jeet.from_numpy(a, device="cpu") for a in arrays]
    fn = jeet.jit(lambda *xs: graph.fn(ops, *xs))
    compiled_at = []
    compile_fn = _tensor._compile

    def timed_compile(*args, **kwargs):
        executable = compile_fn(*args, **kwargs)
        compiled_at.append(time.perf_counter())
        return executable

    _tensor._compile = timed_compile
    first = time.perf_counter()
    fn(*tensors).numpy()
    first_s = time.perf_counter() - first
    ready_s = compiled_at[0] - first
    _tensor._compile = compile_fn
    second = time.perf_counter()
    fn(*tensors).numpy()
    second_s = time.perf_counter() - second
    steady_s = min(time_calls(lambda: fn(*tensors).numpy(), 5))
    stats = jeet.cache_stats()
    print(f"import {imported - start:.6f} ready {ready_s:.6f} "
          f"first {first_s:.6f} second {second_s:.6f} steady {steady_s:.6f} "
          f"compilations {stats['compilations']} "
          f"disk_hits {stats.get('disk_hits', 0)}")


def measure_warm_start(cache_dir):
    env = dict(os.environ, JEET_CACHE_DIR=cache_dir)
    cmd = [sys.executable, __file__, "--warm-start-child", "--threads",
           str(ARGS.threads), "--build-dir", ARGS.build_dir]
    runs = []
    for _ in range(3):  # the first fills the cache
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            return None, proc.stderr.strip().splitlines()[-1:]
        fields = proc.stdout.split()
        runs.append({fields[i]: float(fields[i + 1])
                     for i in range(0, len(fields), 2)})
    return runs, None


def call_overhead(peers):
    """The tiny chain: jit call, the graph redefined and executed on every
    call (Jeet's natural use), numpy, torch eager."""
    graph = next(g for g in GRAPHS if g.name.startswith("tiny"))
    arrays = graph.inputs(np.random.default_rng(1))
    rows = []
    calls = 2000 if not ARGS.quick else 200
    if "jeet" in peers:
        jeet = peers["jeet"]
        ops = JeetOps(jeet)
        tensors = [jeet.from_numpy(a, device="cpu") for a in arrays]

        def redefined():
            graph.fn(ops, *tensors).execute()

        redefined()
        t = time_calls(redefined, calls // 4)
        rows.append(["jeet: graph redefined + execute()",
                     statistics.median(t), min(t)])
        a = tensors[0]

        def record_ops():  # 10 ops recorded, nothing compiled or run
            x = a
            for _ in range(10):
                x = x + a

        record_ops()
        t = time_calls(record_ops, calls)
        rows.append(["jeet: recording 10 ops (no execute)",
                     statistics.median(t), min(t)])

        def record_mixed():  # 10 ops of the kinds a model's code records
            x = a * 2.0 + 1.0
            y = x.reshape(32, 32)
            z = jeet.exp(y - y.max(axis=-1, keepdims=True))
            z = z / z.sum(axis=-1, keepdims=True)
            return (z @ y).T

        record_mixed()
        t = time_calls(record_mixed, calls)
        rows.append(["jeet: recording 10 mixed ops (scalars, reshape, "
                     "reductions, matmul)", statistics.median(t), min(t)])
    for label, name in [("jeet.jit (cached)", "jeet"), ("numpy", "numpy"),
                        ("torch eager", "torch"),
                        ("torch.compile", "torch.compile"), ("jax.jit", "jax")]:
        if name not in peers:
            continue
        p = PEER_PREPARE[name](peers[name], graph, arrays)
        p.call()
        t = time_calls(p.call, calls)
        rows.append([label, statistics.median(t), min(t)])
    return rows


def time_cell(results, name, key):
    """`results[name][key]` in ms for a table, "-" where not measured."""
    r = results.get(name)
    return "-" if not r or r.get(key) is None else fmt_ms(r[key])


def main():
    if ARGS.warm_start_child:
        warm_start_child()
        return
    # Cold compiles are cold: an empty disk cache of this run's own (the
    # default one keeps the graphs of an earlier run of the same build).
    cold_cache = tempfile.TemporaryDirectory(prefix="jeet-cold-")
    os.environ["JEET_CACHE_DIR"] = cold_cache.name
    names = [p for p in ARGS.peers.split(",") if p]
    peers, missing = load_peers(names)
    only = [s.strip() for s in ARGS.only.split(",") if s.strip()]
    graphs = [g for g in GRAPHS
              if not only or any(g.name.startswith(o) for o in only)]

    cpu = "unknown CPU"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    print(f"machine: {cpu}, {os.cpu_count()} cores; threads per peer: "
          f"{ARGS.threads}; load average at start: {os.getloadavg()[0]:.2f}")
    versions = []
    for name, mod in peers.items():
        if name == "jeet":
            versions.append(f"jeet {mod.__version__}")
        elif name == "numpy":
            versions.append(f"numpy {np.__version__}")
        elif name == "jax":
            versions.append(f"jax {mod[0].__version__}")
        elif name == "torch":
            versions.append(f"torch {mod.__version__}")
        elif name == "onnxruntime":
            versions.append(f"onnxruntime {mod[1].__version__}")
        elif name == "iree":
            versions.append(f"iree {mod[1].version.PACKAGE_SUFFIX}"
                            if hasattr(mod[1], "version") else "iree")
    print("peers: " + ", ".join(versions))
    if missing:
        print("not available (make bench-setup installs them): " +
              "; ".join(missing))

    rng = np.random.default_rng(0)
    summary, compile_rows = [], []
    for graph in graphs:
        results, failed = run_graph(graph, peers, rng)
        jeet = results.get("jeet")
        rows = []
        for name, r in results.items():
            ratio = "" if not jeet else \
                f"{r['median'] / jeet['median']:.2f}x"
            best_ratio = "" if not jeet else \
                f"{r['best'] / jeet['best']:.2f}x"
            rate = ""
            if graph.work:
                rate = f"{graph.work / r['best'] / 1e9:.0f}"
            rows.append([name, fmt_ms(r["median"]), fmt_ms(r["best"]), ratio,
                         best_ratio, rate,
                         "-" if r["kernels"] is None else r["kernels"],
                         f"{r['error']:.1e}" + ("" if r["ok"] else " FAIL")])
        for name, why in failed.items():
            rows.append([name, "failed", why, "", "", "", "", ""])
        print_table(f"{graph.name} (load {os.getloadavg()[0]:.1f})",
                    ["peer", "median ms", "best ms", "peer/jeet",
                     "best peer/jeet", "GFLOP/s" if graph.work else "",
                     "kernels", "max rel err"], rows)
        others = [(n, r) for n, r in results.items() if n != "jeet"]
        if jeet and others:
            fastest = min(others, key=lambda nr: nr[1]["best"])
            summary.append([graph.name, fastest[0],
                            f"{fastest[1]['best'] / jeet['best']:.2f}x",
                            jeet["kernels"],
                            results.get("iree", {}).get("kernels", "-")])
        compile_rows.append(
            [graph.name] +
            [time_cell(results, name, key)
             for name, key in (("jeet", "compile_s"), ("jax", "compile_s"),
                               ("jeet", "first_s"), ("jax", "first_s"),
                               ("torch.compile", "compile_s"),
                               ("onnxruntime", "compile_s"),
                               ("iree", "compile_s"))])

    if summary:
        print_table("Summary: Jeet against the fastest peer (best runs)",
                    ["graph", "fastest peer", "peer/jeet", "jeet kernels",
                     "iree kernels"], summary)
    if not ARGS.no_compile_table and compile_rows:
        print_table("Cold compile, ms (Jeet's in-process and disk caches "
                    "empty): compile alone (trace + compile) and the first "
                    "call (compile + first run) for Jeet and XLA; "
                    "torch.compile's first call, onnxruntime's session, "
                    "IREE's compile",
                    ["graph", "jeet", "jax/xla", "jeet first call",
                     "xla first call", "torch.compile", "onnxruntime",
                     "iree"], compile_rows)

    if "jeet" in peers and (not only or "mlp" in only):
        with tempfile.TemporaryDirectory(prefix="jeet-warm-") as cache_dir:
            runs, error = measure_warm_start(cache_dir)
        if runs:
            print_table("Warm start: the MLP in a new process, its graph "
                        "compiled by an earlier process (JEET_CACHE_DIR); "
                        "warm start = time to a ready executable after "
                        "import jeet (trace + disk cache read, check, link)",
                        ["process", "import jeet", "warm start (ready)",
                         "first call", "steady call", "first - steady",
                         "compilations"],
                        [[f"{i}{' (fills the cache)' if i == 0 else ''}",
                          fmt_ms(r["import"]), fmt_ms(r["ready"]),
                          fmt_ms(r["first"]), fmt_ms(r["steady"]),
                          fmt_ms(r["first"] - r["steady"]),
                          int(r["compilations"])]
                         for i, r in enumerate(runs)])
        else:
            print(f"\nwarm start not measured: {error}")

    if not only or "tiny" in only:
        rows = call_overhead(peers)
        print_table("Call overhead: the 10-op chain on 1024 f32, per call",
                    ["", "median", "best"],
                    [[label, fmt_ms(m), fmt_ms(b)] for label, m, b in rows])
    print("\npeer/jeet: the peer's time over Jeet's (above 1: Jeet is faster)."
          " kernels: Jeet's kernels (fusion groups; reshapes alone are views, not counted), XLA's entry\ninstructions that run"
          " code, inductor's generated + extern kernels, onnxruntime's nodes"
          " after optimisation, IREE's dispatches.")


# Imports of the peers happen lazily (load_*); jeet finds its extension in
# the build folder given.
if __name__ == "__main__":
    main()
