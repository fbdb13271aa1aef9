"""Multi-reduction groups (softmax, layernorm) on the GPU: one kernel per
group, its rows staged in shared memory where a block's rows fit it, on the
GPU emulator everywhere (and a GPU where a CUDA driver answers), against a
float64 numpy reference on fresh random inputs.

The rule (lib/Codegen/GPU/FormKernels.cpp): a softmax or layernorm over
the last axis is one kernel whatever its rows' length (blocks of 8 rows
while 8 fit 32 KiB, else 4, 2 or 1; a warp per row, or 8 / rows warps a row
when a block has fewer rows than warps); rows of up to 32 KiB (the blocks'
rows together) are staged in shared memory, longer ones read from global
memory by each pass, but for a single long row (three kernels: its
elementwise part is then parallel over many blocks). Row counts that are
not multiples of the block's rows leave a partial last
block; columns shorter than a warp, odd, with fewer rows per block (4097
f32: 2; 8193 f16: 2; 8192 f32: 1, all 8 warps on it; 3 rows: 2 warps each,
2 idle) and past the staging limit (8193 and 16384 f32, 16385 f16: not
staged; 16384 read by 16-byte vectors) cover the lanes past a row's end and
both kinds of row.
"""
import re
import subprocess

import numpy as np
import pytest

from jeetrun import GPU_DRIVERS, JEET_RUN, assert_close, driver_env, \
    mlir_type

EPS = 1e-5

COLUMNS = [1, 7, 33, 1000, 4097, 8192, 8193, 16384, 16385]
ROWS = [1, 3, 19]
DTYPES = {"f32": np.float32, "f16": np.float16}
# Tolerances against float64: f32 rounding of exp and sums over <= 4097
# terms; f16 inputs, outputs and arithmetic (10-bit mantissa).
RTOL = {"f32": 1e-5, "f16": 1e-2}
ATOL = {"f32": 1e-6, "f16": 2e-3}


def softmax_graph(shape, dtype):
    t = mlir_type(shape, dtype)
    return (f"func.func @main(%x: {t}) -> {t} {{\n"
            f"  %0 = jeet.softmax %x {{axis = 1 : i64}} : {t}\n"
            f"  return %0 : {t}\n}}\n")


def layernorm_graph(shape, dtype):
    rows, cols = shape
    t, r = mlir_type(shape, dtype), mlir_type((rows, 1), dtype)
    v, s = mlir_type((cols,), dtype), mlir_type((), dtype)
    red = "{axes = array<i64: 1>, keepdims = true}"
    return (
        f"func.func @main(%x: {t}, %g: {v}, %b: {v}) -> {t} {{\n"
        f"  %eps = jeet.constant dense<{EPS:.1e}> : {s}\n"
        f"  %m = jeet.reduce_mean %x {red} : {t} -> {r}\n"
        f"  %d = jeet.sub %x, %m : {t}, {r} -> {t}\n"
        f"  %sq = jeet.mul %d, %d : {t}, {t} -> {t}\n"
        f"  %v = jeet.reduce_mean %sq {red} : {t} -> {r}\n"
        f"  %ve = jeet.add %v, %eps : {r}, {s} -> {r}\n"
        f"  %rs = jeet.rsqrt %ve : {r}\n"
        f"  %n = jeet.mul %d, %rs : {t}, {r} -> {t}\n"
        f"  %sc = jeet.mul %n, %g : {t}, {v} -> {t}\n"
        f"  %o = jeet.add %sc, %b : {t}, {v} -> {t}\n"
        f"  return %o : {t}\n}}\n")


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm_ref(x, g, b):
    d = x - x.mean(axis=1, keepdims=True)
    var = (d * d).mean(axis=1, keepdims=True)
    return d / np.sqrt(var + EPS) * g + b


def run_gpu(tmp_path, driver, source, inputs):
    """The outputs and the kernels launched of one jeet-run on the GPU."""
    graph = tmp_path / "graph.mlir"
    graph.write_text(source)
    args = [str(JEET_RUN), str(graph), "--device=gpu", "--print-stats",
            f"--output=@{tmp_path / 'out.npy'}"]
    for i, array in enumerate(inputs):
        np.save(tmp_path / f"in{i}.npy", array)
        args.append(f"--input=@{tmp_path / f'in{i}.npy'}")
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300,
                          env=driver_env(driver))
    assert proc.returncode == 0, proc.stderr
    launched = re.search(r"gpu\.kernels_launched: (\d+)", proc.stdout)
    assert launched, proc.stdout
    return np.load(tmp_path / "out.npy"), int(launched.group(1))


def expected_kernels(rows, cols, dtype):
    # One kernel for rows of any length (before 2026-12-04, rows past 32 KiB
    # were three: a reduction, a row op with the second reduction, the last
    # row ops), but for a single row past 32 KiB, which stays three.
    return 3 if rows == 1 and cols * np.dtype(dtype).itemsize > 32768 else 1


@pytest.mark.parametrize("driver", GPU_DRIVERS)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("rows", ROWS)
@pytest.mark.parametrize("cols", COLUMNS)
def test_softmax_rows(tmp_path, rng, driver, dtype, rows, cols):
    np_type = DTYPES[dtype]
    # A spread of magnitudes, and large values that overflow exp without
    # the row maximum subtracted.
    x = (rng.standard_normal((rows, cols)) * 4 + 60).astype(np_type)
    out, kernels = run_gpu(tmp_path, driver,
                           softmax_graph((rows, cols), np_type), [x])
    assert out.dtype == np_type
    assert kernels == expected_kernels(rows, cols, np_type)
    assert_close(out, softmax_ref(x.astype(np.float64)), rtol=RTOL[dtype],
                 atol=ATOL[dtype], what=f"softmax {rows}x{cols} {dtype}")


@pytest.mark.parametrize("driver", GPU_DRIVERS)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("rows", ROWS)
@pytest.mark.parametrize("cols", COLUMNS)
def test_layernorm_rows(tmp_path, rng, driver, dtype, rows, cols):
    np_type = DTYPES[dtype]
    x = (rng.standard_normal((rows, cols)) * 3 + 2).astype(np_type)
    g = rng.uniform(0.5, 1.5, cols).astype(np_type)
    b = rng.uniform(-1, 1, cols).astype(np_type)
    out, kernels = run_gpu(tmp_path, driver,
                           layernorm_graph((rows, cols), np_type), [x, g, b])
    assert out.dtype == np_type
    assert kernels == expected_kernels(rows, cols, np_type)
    ref = layernorm_ref(*(a.astype(np.float64) for a in (x, g, b)))
    # The normalised values are O(1); scale the absolute tolerance to them.
    atol = ATOL[dtype] * max(1.0, float(np.abs(ref).max()))
    assert_close(out, ref, rtol=RTOL[dtype], atol=atol,
                 what=f"layernorm {rows}x{cols} {dtype}")
