#!/usr/bin/env python3
"""Jeet's own compiled GPU kernels on the Jeet GPU emulator: how long the
GPU tests take without a GPU. Never GPU speed.

Runs, through jeet-run --device=gpu with JEET_CUDA_DRIVER set to the emulator
(so the graphs compile for the emulation target and the real tiled-matmul
and elementwise kernels run, every access checked), the seed's 1024x1024
matmul and the 10-op elementwise chain on 2^20 elements, fused and unfused,
with the emulator's checks on and off. Prints, for each, the execution's
wall time (median of --repeat runs), the whole jeet-run (compilation
included, wall and CPU seconds) and the largest error against float64
numpy. Budgets (docs/GPU-emulation.md): the matmul under 30 s and the chain
under 5 s with checks on.

    python3 bench/gpu_emulator.py [--build-dir build] [--repeat 3]
"""
import argparse
import os
import pathlib
import re
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]

MATMUL = """
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = jeet.matmul %a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
"""

CHAIN_OPS = ["add", "mul", "exp", "neg", "sub", "tanh", "mul", "relu", "add",
             "sigmoid"]


def chain_graph(n):
    ty = f"tensor<{n}xf32>"
    lines, cur = [], "%a"
    for i, op in enumerate(CHAIN_OPS):
        dst = f"%v{i}"
        if op in ("exp", "neg", "tanh", "relu", "sigmoid"):
            lines.append(f"  {dst} = jeet.{op} {cur} : {ty}")
        else:
            lines.append(f"  {dst} = jeet.{op} {cur}, %b : {ty}, {ty} -> {ty}")
        cur = dst
    return (f"func.func @main(%a: {ty}, %b: {ty}) -> {ty} {{\n"
            + "\n".join(lines) + f"\n  return {cur} : {ty}\n}}\n")


def chain_reference(x, y):
    v = np.exp((x + y) * y)
    v = np.tanh(-v - y) * y
    v = np.maximum(v, 0.0) + y
    return 1.0 / (1.0 + np.exp(-v))


def run(args, tmp, name, source, inputs, reference, extra, checks):
    graph = tmp / f"{name}.mlir"
    graph.write_text(source)
    paths = []
    for i, array in enumerate(inputs):
        path = tmp / f"{name}.in{i}.npy"
        np.save(path, array)
        paths.append(path)
    out = tmp / f"{name}.out.npy"
    cmd = [str(args.build_dir / "bin" / "jeet-run"), str(graph),
           "--device=gpu", f"--benchmark={args.repeat}", "--print-stats",
           *[f"--input=@{p}" for p in paths], f"--output=@{out}", *extra]
    env = dict(os.environ, JEET_CUDA_DRIVER=str(args.emulator),
               JEET_EMULATOR_CHECKS=checks)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed:\n{proc.stderr}")
    if "emulated" not in proc.stdout:
        sys.exit("error: the GPU jeet-run used is not the emulator:\n"
                 + proc.stdout)
    median = float(re.search(r"median ([0-9.]+) ms", proc.stdout).group(1))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    got = np.load(out).astype(np.float64)
    err = float(np.max(np.abs(got - reference) / (1 + np.abs(reference))))
    return median / 1e3, wall, cpu, err


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=pathlib.Path, default=pathlib.Path(
        os.environ.get("JEET_BUILD_DIR", ROOT / "build")))
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed executions per case (after compilation)")
    args = parser.parse_args()
    args.emulator = args.build_dir / "lib" / "libjeet_cuda_emulator.so"
    if not args.emulator.exists():
        sys.exit(f"error: {args.emulator} not found: build it first")
    rng = np.random.default_rng(0)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="jeet-emu-bench-"))
    a = rng.standard_normal((1024, 1024), dtype=np.float32)
    b = rng.standard_normal((1024, 1024), dtype=np.float32)
    mm_ref = a.astype(np.float64) @ b.astype(np.float64)
    n = 1 << 20
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    chain_ref = chain_reference(x.astype(np.float64), y.astype(np.float64))
    cases = [
        ("seed matmul 1024^3", "mm", MATMUL, [a, b], mm_ref, [], 30.0),
        ("10-op chain 2^20, fused", "chain", chain_graph(n), [x, y],
         chain_ref, [], 5.0),
        ("10-op chain 2^20, unfused", "chain_unfused", chain_graph(n), [x, y],
         chain_ref, ["--fuse=false"], 5.0),
    ]
    print("Jeet GPU emulator: host CPU times of Jeet's compiled GPU kernels, "
          "never GPU speed")
    print(f"host: {os.cpu_count()} cores; jeet-run --device=gpu, "
          f"{args.repeat} timed executions after compilation\n")
    header = ("case", "checks", "execution s", "jeet-run wall s",
              "jeet-run CPU s", "max err", "budget")
    rows = [header]
    for label, name, source, inputs, ref, extra, budget in cases:
        for checks in ("all", "none"):
            median, wall, cpu, err = run(args, tmp, f"{name}_{checks}",
                                         source, inputs, ref, extra, checks)
            verdict = ""
            if checks == "all":
                verdict = (f"< {budget:.0f} s: "
                           + ("yes" if median < budget else "NO"))
            rows.append((label, checks, f"{median:.3f}", f"{wall:.2f}",
                         f"{cpu:.2f}", f"{err:.1e}", verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))


if __name__ == "__main__":
    main()
