#!/usr/bin/env python3
"""Where a cold compile goes: the stages of `JEET_DEBUG=1` for the graphs of
bench/peers.py, over fresh processes.

Each round starts one new process per graph; it traces the graph as
bench/peers.py does (`jeet.compile`, which also pays the process's one-time
set-up), clears the in-memory caches, compiles the graph's text again with
the disk cache off and reports that second compile's stages as
`JEET_DEBUG=1` prints them: the MLIR stages (fused, linalg, bufferized, llvm) and the steps after
them (translation to LLVM IR, LLVM's optimisation, code generation, the JIT
link). For each stage: the least and the median CPU time of the compiling
thread and of the wall, in ms; the code generation row adds the other
threads' CPU when it was split over threads.

    PYTHONPATH=build/python python3 bench/compile_stages.py \\
        [--only "matmul 1024,mlp,attention 8x512"] [--rounds 5] \\
        [--compile-threads 1]

CPU time is the compiling thread's own, which other work on the machine
inflates less than wall time; the machine's load is printed before and after.
"""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

# What a child runs: bench/peers.py's graph, traced and compiled once.
CHILD = r"""
import sys
import numpy as np
sys.argv = [sys.argv[0]]
sys.path.insert(0, {bench!r})
import jeet, peers
graph = next(g for g in peers.GRAPHS if g.name == {name!r})
ops = peers.JeetOps(jeet)
tensors = [jeet.from_numpy(a, device="cpu")
           for a in graph.inputs(np.random.default_rng(0))]
text = jeet.compile(graph.fn(ops, *tensors)).graph_text
jeet.clear_cache()
jeet._jeet.compile(text, device="cpu", cached=False)
"""

STAGE = re.compile(r"^jeet:\s+(?:\d\d )?(\w+)\s+([\d.]+) ms\s+cpu\s+([\d.]+) ms"
                   r"(?:.*other threads' cpu ([\d.]+) ms)?")
ORDER = ["fused", "linalg", "bufferized", "llvm", "translate", "optimize",
         "codegen", "link", "total"]


def load():
    return open("/proc/loadavg").read().split()[0]


def run_child(name, compile_threads):
    # The child does no BLAS work: one OpenBLAS thread, so that none spins
    # beside the compile (numpy's pool starts at import and spins for a
    # while, on one of the cores that code generation's threads use).
    env = dict(os.environ, JEET_DEBUG="1", JEET_CACHE_DIR="",
               OPENBLAS_NUM_THREADS="1")
    if compile_threads:
        env["JEET_COMPILE_THREADS"] = str(compile_threads)
    code = CHILD.format(bench=str(ROOT / "bench"), name=name)
    proc = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, check=True)
    stages = {}
    for line in proc.stderr.splitlines():
        match = STAGE.match(line)
        if match and match.group(1) in ORDER:
            stages[match.group(1)] = (float(match.group(3)),
                                      float(match.group(2)),
                                      float(match.group(4) or 0.0))
    return stages


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="matmul 1024,mlp,attention 8x512",
                        help="comma-separated prefixes of bench/peers.py's "
                             "graph names")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compile-threads", type=int, default=0,
                        help="JEET_COMPILE_THREADS (0: the default)")
    args = parser.parse_args()

    sys.argv = [sys.argv[0]]
    sys.path.insert(0, str(ROOT / "bench"))
    import peers  # noqa: E402 (after argv is cleared: peers parses it)
    prefixes = [p.strip() for p in args.only.split(",") if p.strip()]
    names = [g.name for g in peers.GRAPHS
             if any(g.name.startswith(p) for p in prefixes)]

    print(f"load {load()}; {args.rounds} fresh processes per graph, "
          f"JEET_COMPILE_THREADS={args.compile_threads or 'default'}")
    results = {name: [] for name in names}
    for _ in range(args.rounds):
        for name in names:
            results[name].append(run_child(name, args.compile_threads))
    print(f"{'graph':30} {'stage':11} {'cpu min':>8} {'cpu med':>8} "
          f"{'wall min':>9} {'wall med':>9} {'others cpu':>11}")
    for name in names:
        for stage in ORDER:
            rows = [r[stage] for r in results[name] if stage in r]
            if not rows:
                continue
            cpu = [r[0] for r in rows]
            wall = [r[1] for r in rows]
            others = [r[2] for r in rows]
            extra = (f" {statistics.median(others):11.1f}"
                     if any(others) else "")
            print(f"{name:30} {stage:11} {min(cpu):8.1f} "
                  f"{statistics.median(cpu):8.1f} {min(wall):9.1f} "
                  f"{statistics.median(wall):9.1f}{extra}")
    print(f"load {load()}")


if __name__ == "__main__":
    main()
