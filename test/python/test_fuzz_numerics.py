"""The short run of the numeric fuzzer (fuzz/python/fuzz_numerics.py):
random programs of the Python API whose every executed result must lie
within its bound of a float64 NumPy reference (the bounds follow the ops'
rounding through the program). It runs in a process of its own, so that a
crash is reported with the seed that replays it."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import jeet
from conftest import requires_gpu, run_python_fuzzer

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUZZER = ROOT / "fuzz" / "python" / "fuzz_numerics.py"
sys.path.insert(0, str(FUZZER.parent))
import fuzz_numerics  # noqa: E402

PROGRAMS = 400
GPU_PROGRAMS = 150
# Programs that find a fault, replayed on every device (each checked to
# fail with its fault put back): 641, a bf16 softmax that rounded x - max to
# bf16 before exp; 1638, a bf16 GELU (tanh form) rounded between its ops;
# 2831, jeet.expm1 of 85.9 overflowing inside Kahan's form. Seeds 64 and
# 202 found the first two; the programs a seed draws change when the
# generator does (these are the generator's of 2026-12-04), and
# test_dtypes.py's test_narrow_*_rounds_once and test_numpy_functions.py
# are the lasting guards. 498119 (2026-12-05): a pad along a batch
# dimension fused into the tiles of a batched matmul with an epilogue, which
# jeet-cpu-vectorize-pad rewrote as if it were the whole pad (every batch a
# copy of the input's first; jeet-cpu-vectorize-pad.mlir @pad_in_a_tile and
# test_api_data_movement.py::test_pad_of_a_batch_in_a_matmul_tile are the
# lasting guards). 583273 (2026-12-05): an f16 softmax and its input
# concatenated, both results: the entry's long block had its pointer loads
# moved down past an address computed from one of them (LLVM's verifier
# aborted the process; OutlineLongBlocksTest's
# ChainsUsedInOtherBlocksKeepTheirOperands is the lasting guard). 594268
# (2026-12-05): an int32 row sum of 3 followed by `s - s` (folded to 0):
# jeet-cpu-vectorize-window-reductions took the constant-yielding epilogue
# into its loop and stored a null value (a segmentation fault;
# jeet-cpu-vectorize-window-reductions.mlir @epilogue_yields_a_constant).
# 595217 (2026-12-05): a strided slice reshaped by unit dimensions, read
# in place (this session's slice views): the reshape collapsed the strided
# view, which bufferization copied with a memref.copy, a call of MLIR's
# `memrefCopy` that the JIT does not link (slice-view.mlir
# @moved_unit_dims, jeet-one-shot-bufferize-strided-copy.mlir).
# 1222351 (2026-12-06): a gathered bf16 tensor that a convolution and a
# remainder computed in place in it both read, the remainder's kernel first:
# jeet-cpu-im2col moved the copies of the windows into the convolution's
# tiles, after the remainder had overwritten them (and an unpadded input
# was freed before the tiles read it; jeet-cpu-im2col-tiles.mlir
# @input_written_before_the_tiles and @unpadded_input_freed_after_the_tiles,
# test_api_conv_pool.py's test_convolution_of_an_input_another_result_
# overwrites).
# 1783223 (2026-12-07): a dilated, strided convolution of a strided 1x1
# average pooling to one output column: jeet-cpu-vectorize-elementwise
# folded the windows' copy's trailing loop of one iteration into the loop
# before it, asking linalg::areDimSequencesPreserved about a read that is no
# projected permutation, and every window read one element
# (jeet-cpu-vectorize-elementwise.mlir @im2col_unit_trailing_loop,
# test_api_conv_pool.py's test_dilated_strided_conv_of_a_strided_pool).
FINDINGS = [641, 1638, 2831, 498119, 583273, 594268, 595217, 1222351, 1783223]
# On the GPU (the emulator), seeds of the generator of 2026-12-04's fourth
# session: 109407, a reduction in the same launch as the comparison whose
# tiles wrote the broadcast it read (NaN); 112476, a mean whose tiles held
# 124,000 bytes of workgroup memory (a compilation error); 140402, a
# convolution, a comparison and a select that jeet-sink-reshapes could not
# rewrite to a fixed point (no message); 206043 (a later session), a
# one-block tile whose accumulator CSE merged with the buffer of another
# kernel that the other tiles of its launch read (a race: rows of a maximum
# wrong); 213608, a mean of 17,000 halves a block whose f32 widening took
# 68,000 bytes of workgroup memory (a compilation error). test_gpu.py and
# jeet-gpu-form-kernels-workgroup.mlir have the lasting guards.
# 356637 (2026-12-05, tenth session): a conv2d of an input with no device
# yet (from jeet.iota), a NumPy filter and a GPU bias: the filter went to
# the CPU and the bias's add raised "operands are on different devices"
# (test_gpu.py::test_conv2d_of_a_device_less_input_with_an_array_filter).
# 476425 (2026-12-06): the same without a bias: the filter went to the CPU
# (Tensor.device said "cpu" for a tensor with no device, which runs on the
# default device, the GPU here), and a later op with a GPU tensor raised
# "operands are on different devices"; such a tensor now reports the
# default device (test_gpu.py::test_arrays_with_device_less_tensors_go_to_
# the_default_device).
# 488281 (2026-12-06): a mean of ceil(x) that the graph also returned: the
# reduction, reading the returned ceil since the nineteenth session (computed
# once), was launched before the kernel that writes it (test_gpu.py::
# test_mean_of_a_result_the_graph_also_returns).
GPU_FINDINGS = [109407, 112476, 140402, 206043, 213608, 356637, 476425, 488281]
# The oracle's own: 437279, a bf16 logsumexp of a row holding +inf whose
# float64 reference was NaN (inf - inf in the formula) and then checked as
# an exact NaN through a cast to int32 (0), where Jeet rightly gave inf
# (INT_MAX). The reference of a row with an infinite maximum is now that
# maximum. 834058 (2026-12-05): fmod(0, s) with s an f16 softmax's
# 1.7e-13, 0 in f16 (rightly): NaN, where the reference's bound said 0;
# a divisor whose bound reaches 0 now leaves the result unchecked.
# 1255702 (2026-12-06): argmax over axis 0 of exp(x) with x of 100.3, 903,
# 1002 and 1646: all four +inf in float32 (a tie: index 0, Jeet's answer and
# NumPy's in float32), where the float64 reference was finite for 100.3 and
# gave index 1. The reference now holds the dtype's infinities, and ties
# that a bound may make are unknown. 1851702 (2026-12-07): remainder(0.0007,
# v) of a bf16 grouped convolution's v near -0.033: the result is 0.0007 +
# v, all of v's error, where the bound took |0.0007 / v| = 0.02 of it (the
# divisor's error moves a remainder by |floor(a / b)| of it, fmod by
# |trunc(a / b)|). 2761343 (2026-12-07, fourth session): an f16
# convolution with a bias whose sum, rounded to f16 before the bias is added
# (jeet.conv2d's documented rounding), passed 65504: -inf, where the sum
# with the bias was -65228. Such elements are now unchecked.
ORACLE_FINDINGS = [437279, 834058, 1255702, 1851702, 2761343]


def run_fuzzer(*args):
    return run_python_fuzzer("fuzz_numerics.py", *args)


def test_numeric_fuzzer_short_run():
    out = run_fuzzer("--seed", "1", "--count", str(PROGRAMS))
    assert f"{PROGRAMS} programs (seeds 1..{PROGRAMS};" in out
    assert "on the cpu" in out and "no finding" in out


def test_numeric_fuzzer_findings_replay():
    for seed in FINDINGS + ORACLE_FINDINGS:
        out = run_fuzzer("--seed", str(seed), "--count", "1")
        assert f"1 programs (seeds {seed}..{seed};" in out


@requires_gpu
def test_numeric_fuzzer_on_the_gpu():
    """The same programs on the GPU (the emulator under `make test`)."""
    out = run_fuzzer("--seed", "1", "--count", str(GPU_PROGRAMS), "--device", "gpu")
    assert f"{GPU_PROGRAMS} programs (seeds 1..{GPU_PROGRAMS};" in out
    assert "on the gpu" in out


@requires_gpu
def test_numeric_fuzzer_gpu_findings_replay():
    for seed in FINDINGS + GPU_FINDINGS:
        out = run_fuzzer("--seed", str(seed), "--count", "1", "--device", "gpu")
        assert f"1 programs (seeds {seed}..{seed};" in out


def test_numeric_fuzzer_reports_a_program_that_does_not_end():
    """A program still compiling or running after --stall-seconds is a
    finding named by its seed, with its replay command."""
    proc = subprocess.run(
        [sys.executable, str(FUZZER), "--seed", "5", "--count", "3",
         "--stall-seconds", "0.001"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "FINDING in program seed 5: still running after 0.001 s" in proc.stdout
    assert "fuzz_numerics.py --seed 5 --count 1" in proc.stdout


def test_numeric_fuzzer_needs_a_gpu_for_device_gpu():
    env = dict(os.environ, JEET_CUDA_DRIVER="/nonexistent/libcuda.so")
    proc = subprocess.run(
        [sys.executable, str(FUZZER), "--count", "1", "--device", "gpu"],
        capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert "no GPU answers" in proc.stderr


@pytest.mark.parametrize("table,name", [("UNARY", "exp"), ("BINARY", "add")])
def test_numeric_fuzzer_finds_a_wrong_function(monkeypatch, table, name):
    """The oracle catches an op that computes the wrong function: exp or add
    with its result scaled by 1 + 2^-4 (beyond every dtype's bound; integers
    plus 1) is a finding within 1000 programs."""
    entry = getattr(fuzz_numerics, table)[name]

    def scaled(*xs):
        r = entry[0](*xs)
        return jeet.add(r, 1) if r.dtype.startswith("int") else \
            jeet.mul(r, 1 + 2.0 ** -4)
    wrong = (scaled,) + entry[1:]
    monkeypatch.setitem(getattr(fuzz_numerics, table), name, wrong)
    for seed in range(1, 1001):
        try:
            fuzz_numerics.run_seed(seed)
        except fuzz_numerics.Finding as finding:
            assert f"{name}(" in str(finding)
            return
    raise AssertionError(f"a wrong {name} passed 1000 programs")


def value(ref, err, dtype="float32"):
    t = jeet.tensor(np.zeros(np.shape(ref), np.float32), dtype=dtype)
    return fuzz_numerics.Value(t, dtype, ref, err, "v")


def test_check_flags_what_is_beyond_the_bound():
    check = fuzz_numerics.check
    ref = np.array([1.0, 2.0, np.inf, np.nan, 1e-3])
    v = value(ref, np.array([1e-6, 0.0, 0.0, 0.0, np.inf]))
    ok = np.array([1.0 + 5e-7, 2.0, np.inf, np.nan, 123.0])
    assert check(ok, v) is None
    for i, bad in [(0, 1.0 + 1e-5), (1, 2.0 + 1e-5), (2, 3e38), (3, 0.0),
                   (0, np.nan), (2, -np.inf)]:
        got = ok.copy()
        got[i] = bad
        assert check(got, v) is not None, (i, bad)
    # Integers and booleans: exactly, where known.
    iv = value(np.array([3.0, 4.0]), np.array([0.0, np.inf]), "int32")
    assert check(np.array([3, 9]), iv) is None
    assert "got np.float64(2.0)" in check(np.array([2, 4]), iv)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_check_allows_the_rounding_to_the_dtype(dtype):
    ref = np.array([1.0 / 3.0])
    v = value(ref, np.array([0.0]), dtype)
    rounded = fuzz_numerics.rounded(ref, dtype)
    assert fuzz_numerics.check(rounded, v) is None
    assert fuzz_numerics.check(rounded * 1.05, v) is not None


def test_unknown_values_stay_unknown():
    """A value whose bound is infinite (not checked) leaves every comparison
    and truth test of it unknown: NumPy's nan_to_num turned inf into the
    largest float64, and a comparison of such a value with inf was taken as
    known (two false reports)."""
    inf = np.array([np.inf])
    assert np.isinf(fuzz_numerics.slack(np.array([1e61]), inf, "float16")).all()
    assert np.isinf(fuzz_numerics.slack(np.array([np.nan]), np.array([1.0]), "float32")).all()
    assert fuzz_numerics.may_be_zero(np.array([5.0]), inf, "float32").all()
    assert not fuzz_numerics.may_be_zero(np.array([5.0]), np.array([0.0]), "float32").any()
    x = np.array([2.0])
    assert np.isinf(fuzz_numerics.interval(np.log, x, inf)).all()
