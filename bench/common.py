"""Shared helpers of the CPU benchmarks: the environment numpy runs in, timing of
jeet-run and of numpy, and table printing.

Import this module before numpy: it fixes the thread count of OpenBLAS and
unsets the OpenBLAS core-type overrides in this process only.
"""
import argparse
import importlib
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def setup_environment(threads):
    """Sets the thread counts of OpenBLAS and OpenMP to `threads` and unsets
    OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE together (some machines set them
    for old OpenBLAS builds; they slow a current one). Must run before numpy
    is imported; affects this process and its children only."""
    removed = {k: os.environ.pop(k) for k in ("OPENBLAS_CORETYPE",
                                              "OPENBLAS_L2_SIZE")
               if k in os.environ}
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    return removed


def import_from_build(build_dir, program, needs, names):
    """Imports the modules `names` (NumPy, the peers, Jeet's) with Jeet's
    Python package taken from `build_dir`/python, after setup_environment;
    returns them in order, or None after printing what `program` needs
    (`needs`: the other packages, in words) when one is missing."""
    sys.path.insert(0, str(pathlib.Path(build_dir).resolve() / "python"))
    try:
        return [importlib.import_module(name) for name in names]
    except ImportError as error:
        print(f"{program}: needs {needs} and Jeet's Python package in "
              f"{build_dir}/python ({error})")
        return None


def parse_args(description, default_repeat, add_arguments=None):
    parser = argparse.ArgumentParser(description=description)
    if add_arguments:
        add_arguments(parser)
    parser.add_argument("--build-dir", default=os.environ.get(
        "JEET_BUILD_DIR", str(ROOT / "build")),
        help="the build folder holding bin/jeet-run (default: $JEET_BUILD_DIR "
             "or build/)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="threads for Jeet (OpenMP) and numpy (OpenBLAS)")
    parser.add_argument("--repeat", type=int, default=default_repeat,
                        help="timed runs per measurement; the median is "
                             "reported")
    parser.add_argument("--rounds", type=int, default=3,
                        help="times each jeet-run measurement is repeated "
                             "(a fresh process each); the median of their "
                             "medians is reported")
    args = parser.parse_args()
    if "numpy" in sys.modules:
        raise RuntimeError("bench.common must set the environment before "
                           "numpy is imported")
    args.removed_env = setup_environment(args.threads)
    return args


def blas_description():
    """Which BLAS numpy runs, with its kernel (architecture) and threads."""
    try:
        import threadpoolctl
    except ImportError:
        return "numpy BLAS: (install threadpoolctl to see the OpenBLAS kernel)"
    parts = []
    for info in threadpoolctl.threadpool_info():
        if info.get("user_api") != "blas":
            continue
        parts.append(f"{info.get('internal_api')} {info.get('version')}, "
                     f"kernel {info.get('architecture')}, "
                     f"{info.get('num_threads')} threads")
    return "numpy BLAS: " + ("; ".join(parts) or "none found")


def describe_machine(args):
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    lines = [f"machine: {cpu}, {os.cpu_count()} logical cores; "
             f"benchmark threads: {args.threads}"]
    if args.removed_env:
        lines.append("unset in this process: " + ", ".join(
            f"{k}={v}" for k, v in args.removed_env.items()))
    try:
        lines.append(f"load average at start: {os.getloadavg()[0]:.2f} "
                     "(other work on the cores makes numbers noisy)")
    except OSError:
        pass
    if os.environ.get("JEET_CUDA_DRIVER"):
        # These tables time the CPU only (jeet-run --device=cpu): a CUDA
        # driver chosen for the GPU, the emulator above all, plays no part.
        lines.append(f"JEET_CUDA_DRIVER={os.environ['JEET_CUDA_DRIVER']} is "
                     "ignored: these are CPU benchmarks, and no GPU speed is "
                     "reported (bench/gpu_emulator.py times the GPU "
                     "emulator, which is never GPU speed)")
    return "\n".join(lines)


class JeetRunner:
    """Compiles and times a graph with jeet-run --benchmark=N."""

    def __init__(self, args):
        self.jeet_run = pathlib.Path(args.build_dir) / "bin" / "jeet-run"
        if not self.jeet_run.exists():
            sys.exit(f"error: {self.jeet_run} not found; build jeet-run first "
                     "or pass --build-dir")
        self.repeat = args.repeat
        self.rounds = args.rounds
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="jeet-bench-"))

    def save_inputs(self, name, arrays):
        import numpy as np
        paths = []
        for i, array in enumerate(arrays):
            path = self.tmp / f"{name}-in{i}.npy"
            np.save(path, array)
            paths.append(path)
        return paths

    def time(self, name, source, input_paths, extra_args=(), repeat=None,
             rounds=None):
        """Returns (median seconds, output array of the last round); the
        fastest run is kept in `self.best`."""
        import numpy as np
        graph = self.tmp / f"{name}.mlir"
        graph.write_text(source)
        out = self.tmp / f"{name}-out.npy"
        cmd = [str(self.jeet_run), str(graph), "--device=cpu",
               f"--benchmark={repeat or self.repeat}",
               *[f"--input=@{p}" for p in input_paths],
               f"--output=@{out}", *extra_args]
        medians, bests = [], []
        for _ in range(rounds or self.rounds):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"error: jeet-run failed ({' '.join(cmd)}):\n"
                         f"{proc.stdout}{proc.stderr}")
            match = re.search(r"median ([0-9.]+) ms", proc.stdout)
            if not match:
                sys.exit(f"error: no benchmark line in jeet-run's output:\n"
                         f"{proc.stdout}")
            medians.append(float(match.group(1)) * 1e-3)
            best = re.search(r"min ([0-9.]+) ms", proc.stdout)
            bests.append(float(best.group(1)) * 1e-3 if best else medians[-1])
        self.best = min(bests)
        return statistics.median(medians), np.load(out)


BEST = {}


def time_python(fn, repeat, warmup=1):
    """The median wall time of `fn()` over `repeat` runs; the fastest is kept
    in BEST["python"]."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    BEST["python"] = min(times)
    return statistics.median(times)


def max_rel_error(actual, expected):
    import numpy as np
    expected = np.asarray(expected, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(expected))))
    return float(np.max(np.abs(actual.astype(np.float64) - expected))) / scale


def print_table(title, header, rows):
    """Prints rows (lists of strings) under `header`, columns right-aligned
    except the first."""
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]

    def fmt(row):
        cells = [str(c).ljust(w) if i == 0 else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells)

    print()
    print(title)
    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(fmt(row))
