"""Code generation split over threads (JEET_COMPILE_THREADS): a graph large
enough is compiled to one object per partition, generated in parallel and
linked together, through the JIT and the disk cache; the answers are those
of the unsplit compilation, and the same graph gives the same bytes."""

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

import jeet

PACKAGE_PATH = str(pathlib.Path(jeet.__file__).resolve().parents[1])

# A child process: a two-layer MLP (width argv[2]) on inputs drawn from
# seed argv[1], run through jeet.jit; prints its largest error against
# float64 numpy and the cache counters as JSON. The second layer reads its
# weights transposed, so the two layers' tiles call two kernels (one per
# layout): with AVX2's 6x16 register tiles one tile kernel alone is under
# the smallest partition's size.
CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import jeet
    rng = np.random.default_rng(int(sys.argv[1]))
    n = int(sys.argv[2])
    x = rng.standard_normal((32, n), dtype=np.float32)
    w1 = rng.standard_normal((n, n), dtype=np.float32) * np.float32(0.1)
    b1 = rng.standard_normal((n,), dtype=np.float32)
    w2 = rng.standard_normal((n, n), dtype=np.float32) * np.float32(0.1)

    @jeet.jit
    def mlp(x, w1, b1, w2):
        return jeet.matmul(jeet.relu(jeet.matmul(x, w1) + b1), jeet.transpose(w2))

    out = mlp(*(jeet.from_numpy(a, device="cpu") for a in (x, w1, b1, w2)))
    expected = np.maximum(x.astype(np.float64) @ w1 + b1, 0) @ w2.T
    error = float(np.max(np.abs(out.numpy() - expected)))
    scale = float(np.max(np.abs(expected)))
    print(json.dumps(dict(jeet.cache_stats(), error=error, scale=scale)))
""")

# The width whose graph is large enough to split in two (its matmul tile
# kernels and the rest), and one too small to gain from it.
LARGE, SMALL = 256, 16
SPLIT = re.compile(r"codegen .* (\d+) objects in parallel \(([\d +]+) "
                   r"instructions\)")


def run_child(width, threads, cache_dir="", seed=None):
    env = dict(os.environ, JEET_CACHE_DIR=str(cache_dir), JEET_DEBUG="1",
               JEET_COMPILE_THREADS=str(threads))
    env["PYTHONPATH"] = os.pathsep.join(
        [PACKAGE_PATH] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(seed), str(width)], env=env,
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (seed, done.stderr)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # f32 sums of `width` products against float64, relative to the output.
    assert result["error"] <= 1e-5 * max(1.0, result["scale"]), (seed, result)
    return result, done.stderr


def test_a_large_graph_is_generated_in_parallel_and_right():
    _, log = run_child(LARGE, threads=2)
    split = SPLIT.search(log)
    assert split, log
    assert split.group(1) == "2"
    assert all(int(n) > 0 for n in split.group(2).split(" + "))


def test_one_thread_gives_one_object():
    _, log = run_child(LARGE, threads=1)
    assert "codegen" in log and not SPLIT.search(log), log


def test_a_small_graph_is_not_split():
    _, log = run_child(SMALL, threads=2)
    assert "codegen" in log and not SPLIT.search(log), log


def test_split_objects_go_through_the_disk_cache(tmp_path):
    first, log = run_child(LARGE, threads=2, cache_dir=tmp_path, seed=1)
    assert SPLIT.search(log), log
    (entry,) = tmp_path.glob("*.jeetc")
    assert b"\nobjects 2\n" in entry.read_bytes()
    # A new process links both objects from the file, compiling nothing.
    second, log = run_child(LARGE, threads=2, cache_dir=tmp_path, seed=1)
    assert second["disk_hits"] == 1 and second["compilations"] == 0, second
    assert "codegen" not in log, log
    assert second["error"] == first["error"]


def test_the_same_graph_gives_the_same_objects(tmp_path):
    files = []
    for name in ("a", "b"):
        run_child(LARGE, threads=2, cache_dir=tmp_path / name, seed=2)
        (entry,) = (tmp_path / name).glob("*.jeetc")
        files.append(entry.read_bytes())
    assert b"\nobjects 2\n" in files[0]
    assert files[0] == files[1]
