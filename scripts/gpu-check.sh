#!/usr/bin/env bash
# GPU checks of Jeet end to end, in two steps:
#
#   scripts/gpu-check.sh prepare DIR
#       On a machine with the toolchain (LLVM/MLIR 22): builds jeet-compile if
#       needed, compiles the test and benchmark graphs into artifacts, writes
#       their random inputs and float64-numpy references (.npy), a manifest,
#       and a copy of the runtime sources that the runner builds from.
#       DIR stays under 20 MB (inputs of the large benchmark graphs are
#       generated on the GPU machine from the manifest's seed).
#
#   scripts/gpu-check.sh run DIR OUTDIR
#       On a machine with an NVIDIA GPU, its driver, CMake, a C++ compiler
#       and Python with numpy, but no LLVM/MLIR: builds libjeet_runtime and
#       jeet-runner alone (JEET_RUNTIME_ONLY), runs every artifact, checks
#       each output against its reference and prints a table (name, kernels,
#       host and device time (CUDA events) per execution, GB/s or GFLOP/s
#       from the device time, max error, PASS/FAIL; beside the fused chains
#       a device-to-device copy of the same bytes), then a residency table:
#       10-kernel graphs executed on resident inputs with and without
#       CUDA-graph replay (time per execution, bytes copied and graph and
#       kernel launches per execution, the allocator's peak next to the
#       plan), and each test graph once under each of compute-sanitizer's
#       memcheck, racecheck, synccheck and initcheck
#       where the CUDA toolkit has it. Logs go to OUTDIR.
#       Exit status: 0 all passed, 1 some failed, 2 no usable GPU for GPU
#       artifacts (the runtime's reason is printed), or the GPU is the Jeet
#       GPU emulator (JEET_CUDA_DRIVER), whose times are no GPU speed. The
#       test graphs also run on the emulator in `make test`
#       (test/numerics/test_gpu_check_graphs.py).
#
# Environment:
#   JEET_BUILD_DIR  build directory with bin/jeet-compile (prepare; default
#                   <repo>/build, configured and built when it has none)
#   JEET_COMPILE    a jeet-compile binary to use instead (prepare)
#   JEET_GPU_CHIP   chip of the GPU artifacts (prepare; default sm_90)
#   JEET_DEVICE     force cpu or gpu artifacts (prepare; default: gpu when
#                   jeet-compile supports it, else cpu with a note)
#   PYTHON          the Python with numpy (default python3)
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
  exit 2
}

[ $# -ge 1 ] || usage
step=$1
shift
PYTHON=${PYTHON:-python3}
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/.." && pwd)

die() {
  echo "gpu-check: error: $*" >&2
  exit 1
}

need_numpy() {
  "$PYTHON" -c 'import numpy' 2>/dev/null ||
    die "'$PYTHON' cannot import numpy (set PYTHON to a Python with numpy)"
}

prepare() {
  [ $# -eq 1 ] || usage
  local dir=$1
  need_numpy
  local compile=${JEET_COMPILE:-}
  if [ -z "$compile" ]; then
    local build=${JEET_BUILD_DIR:-$repo/build}
    compile=$build/bin/jeet-compile
    if [ ! -x "$compile" ]; then
      echo "gpu-check: building jeet-compile in $build"
      if [ ! -f "$build/CMakeCache.txt" ]; then
        cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
          -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
          -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
          -DLLVM_USE_LINKER=lld -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
          -DPython_EXECUTABLE="$(command -v "$PYTHON")" >/dev/null
      fi
      cmake --build "$build" --target jeet-compile -- -j"${JEET_JOBS:-2}"
    fi
  fi
  [ -x "$compile" ] || die "no jeet-compile at $compile"

  rm -rf "$dir"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)

  # The runtime sources and a minimal CMakeLists for the runtime-only build.
  local src=$dir/src
  mkdir -p "$src/include/jeet" "$src/lib" "$src/tools"
  cp -r "$repo/include/jeet/Runtime" "$src/include/jeet/"
  # The emulator's interface, which the runtime recognises it by.
  cp -r "$repo/include/jeet/Emulator" "$src/include/jeet/"
  cp -r "$repo/include/jeet-c" "$src/include/"
  cp -r "$repo/lib/Runtime" "$src/lib/"
  cp -r "$repo/tools/jeet-runner" "$src/tools/"
  # The dependency-free headers of include/jeet they include (jeet/Limits.h).
  local header
  for header in $(grep -rhoE '#include "jeet/[A-Za-z]+\.h"' "$src" |
    sed 's/#include "\(.*\)"/\1/' | sort -u); do
    [ -f "$src/include/$header" ] || [ ! -f "$repo/include/$header" ] ||
      cp "$repo/include/$header" "$src/include/$header"
  done
  cat >"$src/CMakeLists.txt" <<'EOF'
# libjeet_runtime and jeet-runner alone: no LLVM/MLIR (JEET_RUNTIME_ONLY).
cmake_minimum_required(VERSION 3.16)
project(jeet_runtime_only LANGUAGES C CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
include_directories(${PROJECT_SOURCE_DIR}/include)
add_subdirectory(lib/Runtime)
add_subdirectory(tools/jeet-runner)
EOF

  sed -n '/^# ---- gpu_check.py ----$/,$p' "$0" | tail -n +2 >"$dir/gpu_check.py"
  "$PYTHON" "$dir/gpu_check.py" prepare "$dir" "$compile"
}

run() {
  [ $# -eq 2 ] || usage
  local dir=$1 out=$2
  [ -f "$dir/manifest.json" ] || die "$dir has no manifest.json (run 'prepare' first)"
  need_numpy
  command -v cmake >/dev/null || die "cmake is not on PATH"
  mkdir -p "$out"
  dir=$(cd "$dir" && pwd)
  out=$(cd "$out" && pwd)
  local build=$out/build
  echo "gpu-check: building libjeet_runtime and jeet-runner (log: $out/build.log)"
  # Ninja where it is there (a machine may have CMake and Ninja but no make).
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if ! { cmake -S "$dir/src" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release &&
    cmake --build "$build" --parallel "$(nproc 2>/dev/null || echo 4)"; } \
    >"$out/build.log" 2>&1; then
    tail -20 "$out/build.log" >&2
    die "the runtime-only build failed (see $out/build.log)"
  fi
  "$PYTHON" "$dir/gpu_check.py" run "$dir" "$out" "$build/bin/jeet-runner"
}

case "$step" in
prepare) prepare "$@" ;;
run) run "$@" ;;
*) usage ;;
esac
exit $?

# ---- gpu_check.py ----
"""The two steps of scripts/gpu-check.sh (written into DIR by `prepare`)."""
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time

import numpy as np

MAX_SHIPPED_BYTES = 20 * 1000 * 1000
# Seconds of runs after which the remaining graphs are skipped (the whole
# run step, build included, stays under 8 minutes).
TIME_BUDGET_S = 360


def t(shape, dtype="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def gelu(x):
    """jeet.gelu's default form, the exact one: 0.5 x (1 + erf(x / sqrt 2))."""
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


UNARY = {
    "neg": (np.negative, "normal"),
    "abs": (np.abs, "normal"),
    "exp": (np.exp, "normal"),
    "log": (np.log, "positive"),
    "sqrt": (np.sqrt, "positive"),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), "positive"),
    "tanh": (np.tanh, "normal"),
    "sigmoid": (sigmoid, "normal"),
    "relu": (lambda x: np.maximum(x, 0.0), "normal"),
    "gelu": (gelu, "normal"),
}
BINARY = {
    "add": (np.add, "normal"),
    "sub": (np.subtract, "normal"),
    "mul": (np.multiply, "normal"),
    "div": (np.divide, "positive"),
    "max": (np.maximum, "normal"),
    "min": (np.minimum, "normal"),
    "pow": (np.power, "positive"),
}


def graph(name, args, results, body, ref, kind="test", dist=None, tol=1e-4,
          flops=0, fuse=True, residency=False):
    """One graph: `args`/`results` are shapes, `body` the MLIR ops (generic
    form) computing %r0..., `ref` the float64 reference of the inputs.
    `residency`: also timed with and without CUDA-graph replay."""
    params = ", ".join(f"%a{i}: {t(s)}" for i, s in enumerate(args))
    rtypes = ", ".join(t(s, d) for s, d in results)
    rets = ", ".join(f"%r{i}" for i in range(len(results)))
    text = (f"func.func @main({params}) -> ({rtypes}) {{\n{body}"
            f"  return {rets} : {rtypes}\n}}\n")
    return dict(name=name, mlir=text, args=[list(s) for s in args],
                results=[[list(s), d] for s, d in results], ref=ref,
                kind=kind, dist=dist or ["normal"] * len(args), tol=tol,
                flops=flops, fuse=fuse, residency=residency)


def chain10(n_shape):
    """A chain of ten elementwise ops: one kernel when fused."""
    ty = t(n_shape)
    ops = ["add", "mul", "exp", "neg", "sub", "tanh", "mul", "relu", "add",
           "sigmoid"]
    lines, cur = [], "%a0"
    for i, op in enumerate(ops):
        dst = f"%v{i}" if i < 9 else "%r0"
        if op in ("exp", "neg", "tanh", "relu", "sigmoid"):
            lines.append(f'  {dst} = "jeet.{op}"({cur}) : ({ty}) -> {ty}\n')
        else:
            lines.append(f'  {dst} = "jeet.{op}"({cur}, %a1) : ({ty}, {ty}) '
                         f"-> {ty}\n")
        cur = dst

    def ref(x, y):
        v = x + y
        v = v * y
        v = np.exp(v)
        v = -v
        v = v - y
        v = np.tanh(v)
        v = v * y
        v = np.maximum(v, 0.0)
        v = v + y
        return [sigmoid(v)]
    return "".join(lines), ref


def matmul_body(a, b, out, extra=""):
    return (f'  %r0 = "jeet.matmul"(%a0, %a1) : ({t(a)}, {t(b)}) -> '
            f"{t(out)}\n" + extra)


def graphs():
    g = []
    S = [128, 256]
    ty = t(S)
    # Every op family.
    for op, (fn, dist) in UNARY.items():
        g.append(graph(f"{op}", [S], [(S, "f32")],
                       f'  %r0 = "jeet.{op}"(%a0) : ({ty}) -> {ty}\n',
                       lambda x, fn=fn: [fn(x)], dist=[dist]))
    for op, (fn, dist) in BINARY.items():
        g.append(graph(f"{op}", [S, S], [(S, "f32")],
                       f'  %r0 = "jeet.{op}"(%a0, %a1) : ({ty}, {ty}) -> '
                       f"{ty}\n",
                       lambda x, y, fn=fn: [fn(x, y)], dist=[dist, dist]))
    g.append(graph("add_broadcast", [S, [S[1]]], [(S, "f32")],
                   f'  %r0 = "jeet.add"(%a0, %a1) : ({ty}, {t([S[1]])}) -> '
                   f"{ty}\n", lambda x, y: [x + y]))
    g.append(graph("matmul", [[128, 96], [96, 64]], [([128, 64], "f32")],
                   matmul_body([128, 96], [96, 64], [128, 64]),
                   lambda a, b: [a @ b], tol=1e-4,
                   flops=2 * 128 * 96 * 64))
    g.append(graph("transpose", [[64, 96]], [([96, 64], "f32")],
                   '  %r0 = "jeet.transpose"(%a0) {permutation = '
                   f'array<i64: 1, 0>}} : ({t([64, 96])}) -> {t([96, 64])}\n',
                   lambda x: [x.T]))
    g.append(graph("reshape", [[64, 96]], [([96, 64], "f32")],
                   f'  %r0 = "jeet.reshape"(%a0) : ({t([64, 96])}) -> '
                   f"{t([96, 64])}\n", lambda x: [x.reshape(96, 64)]))
    g.append(graph("broadcast_to", [[96]], [([64, 96], "f32")],
                   f'  %r0 = "jeet.broadcast_to"(%a0) : ({t([96])}) -> '
                   f"{t([64, 96])}\n",
                   lambda x: [np.broadcast_to(x, (64, 96))]))
    for op, fn in (("reduce_sum", np.sum), ("reduce_max", np.max),
                   ("reduce_mean", np.mean)):
        g.append(graph(op, [S], [([S[0]], "f32"), ([1, S[1]], "f32")],
                       f'  %r0 = "jeet.{op}"(%a0) {{axes = array<i64: 1>}} : '
                       f"({ty}) -> {t([S[0]])}\n"
                       f'  %r1 = "jeet.{op}"(%a0) {{axes = array<i64: 0>, '
                       f"keepdims = true}} : ({ty}) -> {t([1, S[1]])}\n",
                       lambda x, fn=fn: [fn(x, axis=1),
                                         fn(x, axis=0, keepdims=True)],
                       tol=1e-4))
    g.append(graph("cast", [S], [(S, "f16")],
                   f'  %r0 = "jeet.cast"(%a0) : ({ty}) -> {t(S, "f16")}\n',
                   lambda x: [x.astype(np.float16).astype(np.float64)],
                   tol=1e-3))
    g.append(graph("constant", [[4]], [([4], "f32")],
                   '  %c = "jeet.constant"() {value = dense<[1.0, 2.0, 3.0, '
                   f'4.0]> : {t([4])}}} : () -> {t([4])}\n'
                   f'  %r0 = "jeet.mul"(%a0, %c) : ({t([4])}, {t([4])}) -> '
                   f"{t([4])}\n",
                   lambda x: [x * np.array([1.0, 2.0, 3.0, 4.0])]))
    # Models.
    B, I, H, O = 128, 256, 512, 10
    g.append(graph(
        "mlp", [[B, I], [I, H], [H], [H, O]], [([B, O], "f32")],
        f'  %m = "jeet.matmul"(%a0, %a1) : ({t([B, I])}, {t([I, H])}) -> '
        f"{t([B, H])}\n"
        f'  %b = "jeet.add"(%m, %a2) : ({t([B, H])}, {t([H])}) -> '
        f"{t([B, H])}\n"
        f'  %h = "jeet.relu"(%b) : ({t([B, H])}) -> {t([B, H])}\n'
        f'  %r0 = "jeet.matmul"(%h, %a3) : ({t([B, H])}, {t([H, O])}) -> '
        f"{t([B, O])}\n",
        lambda x, w1, b1, w2: [np.maximum(x @ w1 + b1, 0.0) @ w2],
        tol=1e-3, flops=2 * B * I * H + 2 * B * H * O))
    g.append(graph("softmax", [[256, 1000]], [([256, 1000], "f32")],
                   *softmax_rows([256, 1000])))
    g.append(graph("batch_matmul", [[8, 128, 64], [8, 64, 128]],
                   [([8, 128, 128], "f32")],
                   matmul_body([8, 128, 64], [8, 64, 128], [8, 128, 128]),
                   lambda a, b: [a @ b], tol=1e-4,
                   flops=2 * 8 * 128 * 64 * 128))
    body, ref = chain10([256, 512])
    g.append(graph("chain10", [[256, 512], [256, 512]],
                   [([256, 512], "f32")], body, ref))
    # The seed's matmul, and benchmarks: inputs generated on the GPU machine.
    N = 1024
    g.append(graph("matmul_1024", [[N, N], [N, N]], [([N, N], "f32")],
                   matmul_body([N, N], [N, N], [N, N]),
                   lambda a, b: [a @ b], kind="bench", tol=1e-3,
                   flops=2 * N ** 3))
    M = 2048
    g.append(graph(
        "bench_matmul_bias_relu_2048", [[M, M], [M, M], [M]],
        [([M, M], "f32")],
        matmul_body([M, M], [M, M], [M, M]).replace("%r0", "%m") +
        f'  %b = "jeet.add"(%m, %a2) : ({t([M, M])}, {t([M])}) -> '
        f"{t([M, M])}\n"
        f'  %r0 = "jeet.relu"(%b) : ({t([M, M])}) -> {t([M, M])}\n',
        lambda a, b, c: [np.maximum(a @ b + c, 0.0)], kind="bench",
        tol=2e-3, flops=2 * M ** 3))
    E = [4096, 4096]
    body, ref = chain10(E)
    g.append(graph("bench_chain10_16M", [E, E], [(E, "f32")], body, ref,
                   kind="bench"))
    g.append(graph("bench_chain10_16M_unfused", [E, E], [(E, "f32")], body,
                   ref, kind="bench", fuse=False, residency=True))
    # Ten small kernels: the launches, not the memory, take the time; what
    # CUDA-graph replay is for.
    S = [256, 256]
    body, ref = chain10(S)
    g.append(graph("bench_chain10_64K_unfused", [S, S], [(S, "f32")], body,
                   ref, kind="bench", fuse=False, residency=True))
    g.append(graph("bench_softmax_4096x4096", [E], [(E, "f32")],
                   *softmax_rows(E), kind="bench"))
    g.append(graph("bench_reduce_sum_4096x4096", [E], [([E[0]], "f32")],
                   f'  %r0 = "jeet.reduce_sum"(%a0) {{axes = array<i64: 1>}} '
                   f": ({t(E)}) -> {t([E[0]])}\n",
                   lambda x: [x.sum(axis=1)], kind="bench", tol=1e-3))
    # Added after the graphs above, whose seeds are their positions.
    g.append(graph("layernorm", [[256, 1000], [1000], [1000]],
                   [([256, 1000], "f32")], *layernorm([256, 1000])))
    L = [8192, 8192]
    body, ref = chain10(L)
    g.append(graph("bench_chain10_64M", [L, L], [(L, "f32")], body, ref,
                   kind="bench"))
    K = 4096
    g.append(graph("bench_matmul_4096", [[K, K], [K, K]], [([K, K], "f32")],
                   matmul_body([K, K], [K, K], [K, K]),
                   lambda a, b: [a @ b], kind="bench", tol=1e-3,
                   flops=2 * K ** 3))
    g.append(graph("bench_softmax_8192x8192", [L], [(L, "f32")],
                   *softmax_rows(L), kind="bench"))
    g.append(graph("bench_layernorm_8192x8192", [L, [L[1]], [L[1]]],
                   [(L, "f32")], *layernorm(L), kind="bench"))
    # Rows of 128 KiB, past what a block stages in shared memory: one kernel
    # since 2026-12-04 (three before), each pass reading the row again.
    W = [2048, 32768]
    g.append(graph("bench_softmax_2048x32768", [W], [(W, "f32")],
                   *softmax_rows(W), kind="bench"))
    g.append(graph("bench_layernorm_2048x32768", [W, [W[1]], [W[1]]],
                   [(W, "f32")], *layernorm(W), kind="bench"))
    return g


def softmax_rows(shape):
    """Softmax over the last axis of a 2-D tensor: the graph's body and its
    float64 reference."""
    x = t(shape)
    body = (f'  %r0 = "jeet.softmax"(%a0) {{axis = 1 : i64}} : '
            f"({x}) -> {x}\n")
    return body, lambda a: [softmax(a, axis=1)]


def layernorm(shape):
    """Layer normalization over the last axis with a scale and a shift, as
    the frontends build it: (x - mean) * rsqrt(var + 1e-5) * g + b."""
    rows, n = shape
    x, row, v = t(shape), t([rows, 1]), t([n])
    eps = t([1])
    body = (f'  %m = "jeet.reduce_mean"(%a0) {{axes = array<i64: 1>, '
            f"keepdims = true}} : ({x}) -> {row}\n"
            f'  %d = "jeet.sub"(%a0, %m) : ({x}, {row}) -> {x}\n'
            f'  %sq = "jeet.mul"(%d, %d) : ({x}, {x}) -> {x}\n'
            f'  %var = "jeet.reduce_mean"(%sq) {{axes = array<i64: 1>, '
            f"keepdims = true}} : ({x}) -> {row}\n"
            f'  %eps = "jeet.constant"() {{value = dense<1.0e-05> : {eps}}} : '
            f"() -> {eps}\n"
            f'  %ve = "jeet.add"(%var, %eps) : ({row}, {eps}) -> {row}\n'
            f'  %rs = "jeet.rsqrt"(%ve) : ({row}) -> {row}\n'
            f'  %y = "jeet.mul"(%d, %rs) : ({x}, {row}) -> {x}\n'
            f'  %yg = "jeet.mul"(%y, %a1) : ({x}, {v}) -> {x}\n'
            f'  %r0 = "jeet.add"(%yg, %a2) : ({x}, {v}) -> {x}\n')

    def ref(x, g, b):
        m = x.mean(axis=1, keepdims=True)
        var = ((x - m) ** 2).mean(axis=1, keepdims=True)
        return [(x - m) / np.sqrt(var + 1e-5) * g + b]
    return body, ref


def make_inputs(entry, seed):
    rng = np.random.default_rng(seed)
    out = []
    for shape, dist in zip(entry["args"], entry["dist"]):
        if dist == "positive":
            a = rng.uniform(0.5, 2.0, size=shape)
        else:
            a = rng.standard_normal(size=shape)
        out.append(a.astype(np.float32))
    return out


NP_DTYPES = {"f32": np.float32, "f16": np.float16}


def references(entry, inputs):
    fns = {g["name"]: g["ref"] for g in graphs()}
    refs = fns[entry["name"]](*[a.astype(np.float64) for a in inputs])
    return [np.asarray(r, dtype=np.float64) for r in refs]


def prepare(d, compile_bin):
    os.makedirs(f"{d}/graphs")
    os.makedirs(f"{d}/artifacts")
    os.makedirs(f"{d}/data")
    chip = os.environ.get("JEET_GPU_CHIP", "sm_90")
    device = os.environ.get("JEET_DEVICE", "")
    note = ""
    if not device:
        probe = f"{d}/graphs/probe.mlir"
        with open(probe, "w") as f:
            f.write(graphs()[0]["mlir"])
        r = subprocess.run([compile_bin, probe, "-o", f"{d}/artifacts/probe.so",
                            "--device=gpu", f"--gpu-chip={chip}"],
                           capture_output=True, text=True)
        os.remove(probe)
        if os.path.exists(f"{d}/artifacts/probe.so"):
            os.remove(f"{d}/artifacts/probe.so")
        if r.returncode == 0:
            device = "gpu"
        else:
            device = "cpu"
            note = ("NOTE: jeet-compile cannot build GPU artifacts yet ("
                    + r.stderr.strip().splitlines()[0] + "); the artifacts "
                    "are CPU artifacts, run on the GPU machine's CPU.")
            print("gpu-check: " + note)
    manifest = dict(device=device, chip=chip if device == "gpu" else "",
                    arch=platform.machine(), note=note, graphs=[])
    shipped = 0
    t0 = time.time()
    for seed, entry in enumerate(graphs()):
        name = entry["name"]
        path = f"{d}/graphs/{name}.mlir"
        with open(path, "w") as f:
            f.write(entry["mlir"])
        so = f"{d}/artifacts/{name}.so"
        cmd = [compile_bin, path, "-o", so, f"--device={device}",
               "--print-signature"]
        if not entry["fuse"]:
            cmd.append("--fuse=false")
        if device == "gpu":
            cmd.append(f"--gpu-chip={chip}")
        else:
            # Host code for the GPU machine's CPU, not this one's.
            cmd.append("--target-cpu=x86-64-v3"
                       if platform.machine() == "x86_64" else "--target-cpu=generic")
        r = subprocess.run(cmd, capture_output=True, text=True)
        m = dict(name=name, kind=entry["kind"], seed=seed, tol=entry["tol"],
                 flops=entry["flops"], args=entry["args"],
                 results=entry["results"], dist=entry["dist"],
                 residency=entry["residency"],
                 artifact=f"artifacts/{name}.so")
        if r.returncode != 0:
            m["compile_error"] = r.stderr.strip()[-2000:]
            print(f"gpu-check: {name}: compilation failed:\n{r.stderr}",
                  file=sys.stderr)
            manifest["graphs"].append(m)
            continue
        sig = r.stdout.strip()
        m["signature"] = sig
        k = re.search(r"kernels=(\d+)", sig)
        m["kernels"] = int(k.group(1)) if k else -1
        if entry["kind"] == "test":
            inputs = make_inputs(entry, seed)
            refs = references(entry, inputs)
            m["inputs"], m["refs"] = [], []
            for i, a in enumerate(inputs):
                p = f"data/{name}.in{i}.npy"
                np.save(f"{d}/{p}", a)
                m["inputs"].append(p)
            for i, a in enumerate(refs):
                p = f"data/{name}.ref{i}.npy"
                # The reference in float64, rounded to float32 to halve the
                # size where it is large (its error is far below the
                # tolerance).
                np.save(f"{d}/{p}", a if a.size < 4096 else a.astype(np.float32))
                m["refs"].append(p)
        manifest["graphs"].append(m)
    with open(f"{d}/manifest.json", "w") as f:
        json.dump(manifest, f, indent=1)
    total = 0
    for root, _, files in os.walk(d):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    failed = [g["name"] for g in manifest["graphs"] if "compile_error" in g]
    print(f"gpu-check: prepared {len(manifest['graphs'])} graphs "
          f"({device} artifacts{', ' + chip if device == 'gpu' else ''}) in "
          f"{d}: {total / 1e6:.1f} MB, {time.time() - t0:.1f} s"
          + (f"; {len(failed)} failed to compile: {', '.join(failed)}"
             if failed else ""))
    if total > MAX_SHIPPED_BYTES:
        sys.exit(f"gpu-check: error: {d} holds {total / 1e6:.1f} MB, more "
                 f"than {MAX_SHIPPED_BYTES / 1e6:.0f} MB")
    return 1 if failed else 0


def run(d, out, runner):
    with open(f"{d}/manifest.json") as f:
        manifest = json.load(f)
    device = manifest["device"]
    log = open(f"{out}/run.log", "w")
    if manifest.get("note"):
        print("gpu-check: " + manifest["note"])
    if manifest["arch"] != platform.machine():
        sys.exit(f"gpu-check: error: the artifacts were compiled for "
                 f"{manifest['arch']}, this machine is {platform.machine()}")
    devices = subprocess.run([runner, "--list-devices"], capture_output=True,
                             text=True).stdout
    print(devices.rstrip())
    log.write(devices)
    if device == "gpu" and "cuda:0: available" not in devices:
        reason = re.search(r"cuda:0: unavailable: (.*)", devices)
        print("gpu-check: error: no usable GPU: " +
              (reason.group(1) if reason else devices.strip()),
              file=sys.stderr)
        return 2
    if device == "gpu" and re.search(r"cuda:0: available .*emulated", devices):
        # Its times are the host CPU's: never report them as GPU speed. The
        # GPU tests (these graphs included) run on the emulator in
        # `make test`.
        print("gpu-check: error: the CUDA driver is the Jeet GPU emulator "
              "(JEET_CUDA_DRIVER): gpu-check measures a GPU and reports no "
              "speed from an emulated one; unset JEET_CUDA_DRIVER on a "
              "machine with an NVIDIA GPU", file=sys.stderr)
        return 2
    rows, failures = [], 0
    start = time.time()
    for g in manifest["graphs"]:
        name = g["name"]
        row = dict(name=name, kernels=g.get("kernels", "-"), time="-",
                   device_time="-",
                   rate="-", err="-", status="FAIL")
        rows.append(row)
        if "compile_error" in g:
            row["status"] = "FAIL (compile)"
            failures += 1
            log.write(f"== {name}: compilation failed\n{g['compile_error']}\n")
            continue
        if g["kind"] == "test":
            inputs = [f"{d}/{p}" for p in g["inputs"]]
            refs = [np.load(f"{d}/{p}").astype(np.float64) for p in g["refs"]]
        else:
            arrays = make_inputs(g, g["seed"])
            inputs = []
            for i, a in enumerate(arrays):
                p = f"{out}/{name}.in{i}.npy"
                np.save(p, a)
                inputs.append(p)
            refs = None
        if time.time() - start > TIME_BUDGET_S:
            row["status"] = "SKIP (time)"
            continue
        if device == "cpu" and g["flops"] > 4e9:
            # The CPU fallback of a large matmul takes minutes.
            row["status"] = "SKIP (cpu)"
            continue
        outs = [f"{out}/{name}.out{i}.npy" for i in range(len(g["results"]))]
        if g["kind"] == "bench":
            runs = 20 if device == "gpu" else 1
        else:
            runs = 5
        cmd = ([runner, f"{d}/{g['artifact']}", f"--device={device}",
                f"--benchmark={runs}", "--print-stats"] +
               [f"--input=@{p}" for p in inputs] +
               [f"--output=@{p}" for p in outs])
        log.write(f"== {name}\n$ {' '.join(cmd)}\n")
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=max(10, TIME_BUDGET_S + 30 -
                                           (time.time() - start)))
        except subprocess.TimeoutExpired:
            row["status"] = "FAIL (timeout)"
            failures += 1
            continue
        log.write(r.stdout + r.stderr)
        if r.returncode != 0:
            row["status"] = "FAIL (run)"
            failures += 1
            print(f"gpu-check: {name}: {r.stderr.strip()}", file=sys.stderr)
            continue
        m = re.search(r"median ([0-9.]+) ms", r.stdout)
        ms = float(m.group(1)) if m else float("nan")
        row["time"] = f"{ms:.3f} ms"
        # The rate from the device's time where the runner measured it
        # (CUDA events around the execution's work, as the copy baselines
        # and PyTorch are timed), else from the host's.
        dm = re.search(r"device time: median ([0-9.]+) ms", r.stdout)
        if dm:
            ms = float(dm.group(1))
            row["device_time"] = f"{ms:.3f} ms"
        k = re.search(r"kernels executed: (\d+)", r.stdout)
        if k and device == "gpu":
            row["kernels"] = f"{int(k.group(1)) // runs}"
        if not ms > 0:
            pass  # below the timer's resolution
        elif g["flops"]:
            row["rate"] = f"{g['flops'] / ms / 1e6:.1f} GFLOP/s"
        else:
            row["rate"] = f"{moved_bytes(g) / ms / 1e6:.1f} GB/s"
        if refs is None:
            refs = references(g, [np.load(p) for p in inputs])
        err = 0.0
        ok = True
        for o, ref in zip(outs, refs):
            got = np.load(o).astype(np.float64)
            if got.shape != ref.shape:
                ok = False
                log.write(f"shape {got.shape} != reference {ref.shape}\n")
                continue
            diff = np.abs(got - ref) / (1.0 + np.abs(ref))
            e = float(np.nanmax(diff)) if diff.size else 0.0
            if np.isnan(got).any() != np.isnan(ref).any() or np.isnan(e):
                ok = False
            err = max(err, e)
        for p in (outs if ok else []) + (inputs if g["kind"] == "bench"
                                         else []):
            os.remove(p)
        row["err"] = f"{err:.1e}"
        if ok and err <= g["tol"]:
            row["status"] = "PASS"
        else:
            failures += 1
    notes = []
    if device == "gpu":
        notes = copy_baselines(manifest, rows, runner, log)
    keys = ("name", "kernels", "time", "device_time", "rate", "err",
            "status")
    header = dict(zip(keys, ("name", "kernels", "host time", "device time",
                             "rate", "max err", "result")))
    widths = [max(len(str(r.get(k, "-"))) for r in rows + [header])
              for k in keys]
    lines = []
    for r in [header] + rows:
        cells = [str(r.get(k, "-")) for k in keys]
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(cells, widths))))
    table = "\n".join(lines)
    skipped = sum(r["status"].startswith("SKIP") for r in rows)
    # The graphs' rows (not the copy baselines').
    n = len(manifest["graphs"])
    summary = (f"{n - failures - skipped}/{n} passed, "
               f"{failures} failed, {skipped} skipped on {device}"
               f" in {time.time() - start:.0f} s")
    print(table)
    print(summary)
    for line in notes:
        print(line)
    summary = "\n".join([summary] + notes)
    residency = residency_table(d, out, runner, manifest, log) \
        if device == "gpu" else ""
    sanitizers, unclean = sanitizer_section(d, out, runner, manifest, log) \
        if device == "gpu" else ("", 0)
    with open(f"{out}/table.txt", "w") as f:
        f.write(table + "\n" + summary + "\n" + residency + sanitizers)
    return 1 if failures or unclean else 0


# Seconds that compute-sanitizer may take over the test graphs, all tools.
SANITIZER_BUDGET_S = 240
# compute-sanitizer's tools, each over every test graph: memcheck (accesses
# out of a buffer's bounds or misaligned, errors of the driver API),
# racecheck (shared-memory hazards between threads of a block), synccheck
# (barriers misused: divergent __syncthreads, wrong masks), initcheck
# (reads of device memory nothing wrote).
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")


def sanitizer_section(d, out, runner, manifest, log):
    """Each test graph executed once under each of compute-sanitizer's
    tools (SANITIZER_TOOLS), where the CUDA toolkit's compute-sanitizer is
    there. Its text, and the number of (tool, graph) runs with errors."""
    tool = shutil.which("compute-sanitizer", path=os.pathsep.join(
        [os.environ.get("PATH", ""), "/usr/local/cuda/bin"]))
    if tool is None:
        text = ("\ncompute-sanitizer: not run (not on this machine)\n")
        print(text, end="")
        return text, 0
    text, total_unclean = "", 0
    start = time.time()
    for check in SANITIZER_TOOLS:
        clean, unclean, skipped = [], [], []
        tool_start = time.time()
        for g in manifest["graphs"]:
            if g["kind"] != "test" or "compile_error" in g:
                continue
            if time.time() - start > SANITIZER_BUDGET_S:
                skipped.append(g["name"])
                continue
            cmd = ([tool, "--tool", check, "--error-exitcode", "99",
                    "--print-limit", "10", runner, f"{d}/{g['artifact']}",
                    "--device=gpu"] +
                   [f"--input=@{d}/{p}" for p in g["inputs"]] +
                   [f"--output=@{out}/{g['name']}.{check}{i}.npy"
                    for i in range(len(g["results"]))])
            log.write(f"== {check} {g['name']}\n$ {' '.join(cmd)}\n")
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=120)
                log.write(r.stdout + r.stderr)
                ok = r.returncode == 0 and (
                    "ERROR SUMMARY: 0 errors" in r.stdout or
                    "RACECHECK SUMMARY: 0 hazards" in r.stdout)
            except subprocess.TimeoutExpired:
                log.write("timed out\n")
                ok = False
            (clean if ok else unclean).append(g["name"])
            for i in range(len(g["results"])):
                path = f"{out}/{g['name']}.{check}{i}.npy"
                if os.path.exists(path):
                    os.remove(path)
        line = (f"{check} (compute-sanitizer, one execution each): "
                f"{len(clean)} test graphs clean, {len(unclean)} with errors"
                + (f" ({', '.join(unclean)}; see run.log)" if unclean else "")
                + (f", {len(skipped)} not run (time)" if skipped else "")
                + f" in {time.time() - tool_start:.0f} s\n")
        text += line
        total_unclean += len(unclean)
    text = "\n" + text
    print(text, end="")
    return text, total_unclean


# The fused elementwise chains measured against a copy of the same bytes.
COPY_BASELINES = ("bench_chain10_16M", "bench_chain10_64M")


def moved_bytes(g):
    """Bytes an execution reads and writes: its arguments and results."""
    return sum(4 * int(np.prod(s)) for s in g["args"]) + sum(
        (2 if dt == "f16" else 4) * int(np.prod(s)) for s, dt in g["results"])


def copy_baselines(manifest, rows, runner, log):
    """A device-to-device copy moving the same bytes as each fused chain
    (jeet-runner --copy-bandwidth: the copy engine, timed with CUDA events),
    as rows of the table, and a line per chain: its rate as a share of the
    copy's (the target: 90% or more), both from the device's time."""
    notes = []
    by_name = {r["name"]: r for r in rows}
    for g in manifest["graphs"]:
        row = by_name.get(g["name"])
        if g["name"] not in COPY_BASELINES or row is None:
            continue
        nbytes = moved_bytes(g)
        cmd = [runner, f"--copy-bandwidth={nbytes // 2}", "--benchmark=20"]
        log.write(f"== copy baseline for {g['name']}\n$ {' '.join(cmd)}\n")
        r = subprocess.run(cmd, capture_output=True, text=True)
        log.write(r.stdout + r.stderr)
        m = re.search(r"median ([0-9.]+) ms.*?([0-9.]+) GB/s", r.stdout)
        copy = dict(name=f"copy ({nbytes / 2**20:.0f} MiB moved, as "
                    f"{g['name']})", kernels="-", err="-", time="-",
                    device_time=f"{float(m.group(1)):.3f} ms" if m else "-",
                    rate=f"{float(m.group(2)):.1f} GB/s" if m else "-",
                    status="measured" if m else "FAIL (run)")
        rows.insert(rows.index(row), copy)
        chain = re.match(r"([0-9.]+) GB/s", row["rate"])
        if m and chain:
            share = float(chain.group(1)) / float(m.group(2))
            notes.append(f"{g['name']}: {100 * share:.0f}% of the copy "
                         "bandwidth of the same bytes (target: 90% or more)")
    return notes


# Executions timed per replay measurement (after a warm-up one).
RESIDENCY_RUNS = 200


def stat(text, name):
    """The value of a `cuda:0.<name>: N` line of jeet-runner --print-stats."""
    m = re.search(r"^\S+\." + name + r": (\d+)$", text, re.M)
    return int(m.group(1)) if m else -1


def residency_table(d, out, runner, manifest, log):
    """The graphs marked `residency`, each with and without CUDA-graph
    replay: time per execution, copies per execution (none: the inputs are
    resident), graph launches per execution, and the allocator's peak next
    to the plan (inputs, outputs and the arena of intermediates)."""
    rows = []
    for g in manifest["graphs"]:
        if not g.get("residency") or "compile_error" in g:
            continue
        inputs = []
        for i, a in enumerate(make_inputs(g, g["seed"])):
            p = f"{out}/{g['name']}.res{i}.npy"
            np.save(p, a)
            inputs.append(p)
        io_bytes = moved_bytes(g)
        for graphs_on in (True, False):
            cmd = ([runner, f"{d}/{g['artifact']}", "--device=gpu",
                    f"--cuda-graphs={'true' if graphs_on else 'false'}",
                    f"--benchmark={RESIDENCY_RUNS}", "--print-stats"] +
                   [f"--input=@{p}" for p in inputs] +
                   [f"--output=@{out}/{g['name']}.res.out{i}.npy"
                    for i in range(len(g["results"]))])
            log.write(f"== residency {g['name']}\n$ {' '.join(cmd)}\n")
            r = subprocess.run(cmd, capture_output=True, text=True)
            log.write(r.stdout + r.stderr)
            m = re.search(r"median ([0-9.]+) ms", r.stdout)
            arena = re.search(r"arena bytes: (\d+)", r.stdout)
            replay = re.search(r"cuda graphs: (.*)", r.stdout)
            runs = RESIDENCY_RUNS
            copied = (stat(r.stdout, "h2d_bytes") + stat(r.stdout, "d2h_bytes"))
            rows.append(dict(
                name=g["name"], kernels=str(g.get("kernels", "-")),
                mode="replay" if graphs_on else "launches",
                time=f"{float(m.group(1)) * 1e3:.1f} us" if m else "FAIL",
                copied=f"{copied / runs:.0f} B" if copied >= 0 else "-",
                graphs=f"{stat(r.stdout, 'graph_launches') / runs:.1f}",
                launches=f"{stat(r.stdout, 'kernels_launched') / runs:.1f}",
                peak=f"{stat(r.stdout, 'peak_allocated_bytes') / 2**20:.2f}",
                plan=f"{(io_bytes + int(arena.group(1))) / 2**20:.2f}"
                if arena else "-",
                status=(replay.group(1) if replay else r.stderr.strip()[:60])))
        for p in inputs:
            os.remove(p)
    columns = [("name", "name"), ("kernels", "kernels"), ("mode", "mode"),
               ("time", "time/exec"), ("copied", "copied/exec"),
               ("graphs", "graph launches/exec"),
               ("launches", "kernel launches/exec"), ("peak", "peak MiB"),
               ("plan", "plan MiB"), ("status", "cuda graphs")]
    head = {k: title for k, title in columns}
    widths = {k: max(len(str(r[k])) for r in rows + [head])
              for k, _ in columns}
    lines = ["", f"Residency: {RESIDENCY_RUNS} executions on resident "
             "inputs, with and without CUDA-graph replay (plan: inputs, "
             "outputs and the arena of intermediates)"]
    for r in [head] + rows:
        lines.append("  ".join(str(r[k]).ljust(widths[k]) if i in (0, 2, 9)
                               else str(r[k]).rjust(widths[k])
                               for i, (k, _) in enumerate(columns)))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    return text


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        sys.exit(prepare(sys.argv[2], sys.argv[3]))
    sys.exit(run(sys.argv[2], sys.argv[3], sys.argv[4]))
