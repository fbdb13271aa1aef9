"""The short run of the Python graph-builder fuzzer (fuzz/python/): random
programs against jeet's API, each call either returning or raising an
expected error, every executed tensor of the declared shape and dtype. It
runs in a process of its own, so that a crash is reported, with the seed of
the program and the command that replays it."""
import os
import pathlib
import signal
import subprocess
import sys
import time
import warnings

import numpy as np

from conftest import requires_gpu, run_python_fuzzer

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUZZER = ROOT / "fuzz" / "python" / "fuzz_graph_builder.py"
PROGRAMS = 150
# Programs that stop after building their graph (C++ graph builder, verifier,
# printer, structural key) are ~40x cheaper than compiled ones.
BUILT_PROGRAMS = 3000
EXECUTE_EVERY = 500
GPU_PROGRAMS = 60


def run_fuzzer(*args):
    return run_python_fuzzer("fuzz_graph_builder.py", *args)


def test_graph_builder_fuzzer_short_run():
    out = run_fuzzer("--seed", "1", "--count", str(PROGRAMS))
    assert f"{PROGRAMS} programs (seeds 1..{PROGRAMS}; {PROGRAMS} compiled" in out


def test_graph_builder_fuzzer_builds_without_compiling():
    out = run_fuzzer("--seed", "200000", "--count", str(BUILT_PROGRAMS),
                     "--execute-every", str(EXECUTE_EVERY))
    executed = BUILT_PROGRAMS // EXECUTE_EVERY
    assert f"{BUILT_PROGRAMS} programs (seeds 200000..{200000 + BUILT_PROGRAMS - 1}; " \
        f"{executed} compiled and run" in out


# Programs that once found a bug, replayed (each compiled and run): 140001
# and 507219 aborted in LLVM's code generation (an f16 softmax of one row of
# 3 or 5 feeding a log; lib/Compiler/OutlineLongBlocks.cpp).
# (seed, --ops, --sizes); 11081094 and 12129564 aborted in LLVM's X86 back
# end on AVX512-FP16 hosts (bf16 comparisons, booleans cast to f16);
# 15566392 never finished compiling (int32 ** of a broadcast base beside a
# bool output: jeet-cpu-freeze-invariant-loads, test_ops.py's bounded
# test).
FINDINGS = [(140001, "basic", "small"), (507219, "basic", "small"),
            (11081094, "all", "mixed"), (12129564, "all", "mixed"),
            (15566392, "all", "mixed")]


def test_graph_builder_fuzzer_findings_replay():
    for seed, ops, sizes in FINDINGS:
        out = run_fuzzer("--seed", str(seed), "--count", "1", "--ops", ops,
                         "--sizes", sizes)
        assert f"1 programs (seeds {seed}..{seed}; 1 compiled" in out


def test_graph_builder_fuzzer_check_key_on_a_graph_too_large_to_run():
    """With --check-key, a program too large to execute is built and its
    structural key made in all three runs, the third (the key set aside in
    jeet) included (seed 15,609,233: the fuzzer reported its own missing
    key)."""
    out = run_fuzzer("--seed", "15609233", "--count", "1", "--ops", "all",
                     "--check-key")
    assert "1 programs (seeds 15609233..15609233; 0 compiled and run, the " \
        "others built, 1 of them too large to run) on the cpu, keyed" in out


@requires_gpu
def test_graph_builder_fuzzer_on_the_gpu():
    """The programs' tensors on the GPU (the emulator under `make test`)."""
    out = run_fuzzer("--seed", "1", "--count", str(GPU_PROGRAMS),
                     "--device", "gpu")
    assert f"{GPU_PROGRAMS} programs (seeds 1..{GPU_PROGRAMS}; " \
        f"{GPU_PROGRAMS} compiled and run, the others built) on the gpu" in out


# On the GPU, 6003959 read a constant at the host's address in a kernel (a
# max over an empty axis, folded, feeding a softmax; jeet-gpu-sink-globals);
# 6005623 crashed jeet-gpu-form-kernels (a softmax over the unit axis of a
# keepdims reduce_sum: its reductions were left a loop with no extent);
# 6012813 failed to compile (a softmax's reductions read a kernel's result
# before the kernel).
GPU_FINDINGS = [6003959, 6005623, 6012813]


@requires_gpu
def test_graph_builder_fuzzer_gpu_findings_replay():
    for seed in GPU_FINDINGS:
        out = run_fuzzer("--seed", str(seed), "--count", "1", "--device", "gpu",
                         "--ops", "basic", "--sizes", "small")
        assert f"1 programs (seeds {seed}..{seed}; 1 compiled and run, the " \
            "others built) on the gpu" in out


def test_graph_builder_fuzzer_needs_a_gpu_for_device_gpu():
    proc = subprocess.run(
        [sys.executable, str(FUZZER), "--count", "1", "--device", "gpu"],
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, JEET_CUDA_DRIVER="/nonexistent/libcuda.so.1"))
    assert proc.returncode == 2
    assert "--device gpu: no GPU answers" in proc.stderr


def test_graph_builder_fuzzer_reports_a_program_that_does_not_end():
    """A program still compiling or running after --stall-seconds is a
    finding named by its seed, with its replay command (seed 15,566,392
    once stalled a run without a word)."""
    proc = subprocess.run(
        [sys.executable, str(FUZZER), "--seed", "7", "--count", "3",
         "--stall-seconds", "0.001", "--sizes", "small"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "FINDING in program seed 7: still running after 0.001 s" in proc.stdout
    assert "fuzz_graph_builder.py --seed 7 --count 1 --sizes small" in proc.stdout


def test_graph_builder_fuzzer_stopped_is_no_stall():
    """A fuzzer stopped (SIGSTOP, as for a benchmark beside it) past
    --stall-seconds and then continued reports nothing: the time it did not
    run is not the program's (it once reported graph builder seed 15,634,641,
    which runs in 0.1 s)."""
    proc = subprocess.Popen(
        [sys.executable, str(FUZZER), "--seed", "7", "--seconds", "6",
         "--stall-seconds", "5", "--sizes", "small"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ))
    try:
        time.sleep(2)
        proc.send_signal(signal.SIGSTOP)
        time.sleep(8)
        proc.send_signal(signal.SIGCONT)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, out
    assert "FINDING" not in out, out


def test_graph_builder_fuzzer_rejects_a_bad_execute_every():
    proc = subprocess.run(
        [sys.executable, str(FUZZER), "--count", "1", "--execute-every", "0"],
        capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert proc.returncode == 2
    assert "--execute-every must be at least 1, got 0" in proc.stderr


COMPARED_PROGRAMS = 40
# Compared with the CPU, (seed, --ops, --sizes): 7002500's f16 sum came back
# mostly 0 from the GPU (two tiles of one kernel raced on a shared
# accumulator); 8001767's jeet.where put an array operand on the CPU beside a
# condition on the GPU; 9040514 aborted in LLVM's X86 back end on the CPU
# (a bf16 comparison cast to f16); 9081213 failed to compile for the GPU (a
# full reduction's block held a large broadcast in workgroup memory);
# 14100428's one-block reduction cloned the forall of a broadcast another
# kernel computes into its tile (the emulation target could not lower it);
# 14110015 was the fuzzer's own: jeet.where of NumPy arrays alone went to the
# default device, the GPU, in the CPU run too ("the graph mixes devices");
# 14318753's fmod(2^40, sigmoid(x)) amplified the devices' last bits
# (REMAINDERS).
COMPARED_FINDINGS = [(7002500, "basic", "small"), (8001767, "all", "small"),
                     (9040514, "all", "mixed"), (9081213, "all", "mixed"),
                     (14100428, "numpy", "mixed"), (14110015, "numpy", "mixed"),
                     (14153356, "numpy", "mixed"), (14318753, "numpy", "mixed")]


@requires_gpu
def test_graph_builder_fuzzer_compared_findings_replay():
    for seed, ops, sizes in COMPARED_FINDINGS:
        out = run_fuzzer("--seed", str(seed), "--count", "1", "--device", "gpu",
                         "--compare-cpu", "--ops", ops, "--sizes", sizes)
        assert f"1 programs (seeds {seed}..{seed}; 1 compiled and run, the " \
            "others built) on the gpu, compared with the cpu" in out


@requires_gpu
def test_graph_builder_fuzzer_gpu_against_cpu():
    """Each program on the CPU and on the GPU, the results compared (the GPU
    emulator under `make test`): it found a CPU softmax of NaNs folded to 0
    (seed 1007)."""
    out = run_fuzzer("--seed", "1000", "--count", str(COMPARED_PROGRAMS),
                     "--device", "gpu", "--compare-cpu")
    assert f"{COMPARED_PROGRAMS} programs (seeds 1000..{999 + COMPARED_PROGRAMS}; " \
        f"{COMPARED_PROGRAMS} compiled and run, the others built) on the gpu, " \
        "compared with the cpu" in out


def test_graph_builder_fuzzer_compare_cpu_needs_device_gpu():
    proc = subprocess.run(
        [sys.executable, str(FUZZER), "--count", "1", "--compare-cpu"],
        capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert proc.returncode == 2
    assert "--compare-cpu needs --device gpu" in proc.stderr


def load_fuzzer():
    sys.path.insert(0, str(FUZZER.parent))
    try:
        import fuzz_graph_builder
    finally:
        sys.path.pop(0)
    return fuzz_graph_builder


def test_compare_outputs_flags_what_differs():
    fuzzer = load_fuzzer()
    f32 = np.array([1.0, np.nan, np.inf, -2.5], np.float32)
    assert fuzzer.compare_outputs(f32, f32.copy(), "float32") is None
    # Within f32's tolerance: the last bits of a transcendental.
    near = f32 * np.float32(1 + 2e-4)
    assert fuzzer.compare_outputs(f32, near, "float32") is None
    nan_for_zero = np.array([0.0, 0.0], np.float32)
    assert "the CPU has 0.0, the GPU nan" in fuzzer.compare_outputs(
        nan_for_zero, np.array([0.0, np.nan], np.float32), "float32")
    assert "1 of 4 float32 values differ" in fuzzer.compare_outputs(
        f32, np.array([1.0, np.nan, -np.inf, -2.5], np.float32), "float32")
    assert fuzzer.compare_outputs(f32, f32 * 1.01, "float32") is not None
    # f16 keeps 11 bits: 1% apart is within its tolerance.
    f16 = np.array([3.0, -0.5], np.float16)
    assert fuzzer.compare_outputs(f16, f16 * np.float16(1.01), "float16") is None
    ints = np.array([7, -3], np.int32)
    assert fuzzer.compare_outputs(ints, ints + np.array([0, 1], np.int32),
                                  "int32") is not None
    assert "the CPU has (2,) int32, the GPU (1, 2) int32" in \
        fuzzer.compare_outputs(ints, ints.reshape(1, 2), "int32")
    # Floats truncated to int32 may land on the integer beside (seed
    # 14,153,356: tanh(8.5) 1.0 on the CPU, 0.99999994 on the GPU), not two.
    assert fuzzer.compare_outputs(ints, ints + np.array([0, 1], np.int32),
                                  "int32", truncated=True) is None
    assert fuzzer.compare_outputs(ints, ints + np.array([0, 2], np.int32),
                                  "int32", truncated=True) is not None
    assert "at (0,) a has 1.0, b nan" in fuzzer.compare_outputs(
        f32, np.array([np.nan, np.nan, np.inf, -2.5], np.float32), "float32",
        ("a", "b"))
    # A program with a float remainder (seed 14,318,753: fmod(2^40, s) of
    # sigmoids 1-2 units of the last place apart): its float results compare
    # by their NaNs and infinities; int32 results stay exact unless floats
    # were truncated too.
    fmods = np.array([0.052, 0.31, np.nan, np.inf], np.float32)
    moved = np.array([0.46, 0.02, np.nan, np.inf], np.float32)
    assert fuzzer.compare_outputs(fmods, moved, "float32") is not None
    assert fuzzer.compare_outputs(fmods, moved, "float32", remainders=True) is None
    assert "the CPU has nan, the GPU 0.5" in fuzzer.compare_outputs(
        fmods, np.array([0.052, 0.31, 0.5, np.inf], np.float32), "float32",
        remainders=True)
    assert fuzzer.compare_outputs(fmods, np.array([0.052, 0.31, np.nan, 1.0],
                                                  np.float32),
                                  "float32", remainders=True) is not None
    assert fuzzer.compare_outputs(ints, ints + np.array([0, 1], np.int32),
                                  "int32", remainders=True) is not None
    assert fuzzer.compare_outputs(ints, ints + np.array([0, 5], np.int32),
                                  "int32", truncated=True,
                                  remainders=True) is None


KEYED_PROGRAMS = 100


def test_graph_builder_fuzzer_structural_key():
    """Each program, then the same graph with other data (run through the
    structural key's cached graph), then that by its text: the two agree."""
    out = run_fuzzer("--seed", "1000", "--count", str(KEYED_PROGRAMS),
                     "--check-key")
    assert f"{KEYED_PROGRAMS} programs (seeds 1000..{999 + KEYED_PROGRAMS}; " \
        f"{KEYED_PROGRAMS} compiled and run, the others built) on the cpu, " \
        "keyed and by text" in out


def test_check_key_finds_a_key_that_confuses_inputs(monkeypatch):
    """The --check-key oracle against a structural key made wrong on
    purpose (its graph's inputs in reverse order): it reports programs."""
    fuzzer = load_fuzzer()
    from jeet import _tensor
    graph_key = _tensor._graph_key

    def reversed_inputs(pending):
        keyed = graph_key(pending)
        return None if keyed is None else (keyed[0], list(reversed(keyed[1])))
    monkeypatch.setattr(_tensor, "_graph_key", reversed_inputs)
    found = 0
    with warnings.catch_warnings():
        # NumPy's warnings about the fuzzer's own casts (NaN to int).
        warnings.simplefilter("ignore", RuntimeWarning)
        for seed in range(1000, 1100):
            try:
                fuzzer.run_keyed(seed, True)
            except fuzzer.Finding:
                found += 1
    assert found > 0
    # The fuzzer's globals back to a plain run's.
    monkeypatch.setattr(fuzzer, "DEVICE", "cpu")


def test_programs_too_large_to_execute_are_built(monkeypatch):
    """A program holding a tensor past MAX_EXECUTED_ELEMENTS is built and
    checked, not executed (seed 14,132,533's 3x8x1000x24000 tensor took
    gigabytes per run): here with the bound below 0, every program."""
    fuzzer = load_fuzzer()
    monkeypatch.setattr(fuzzer, "MAX_EXECUTED_ELEMENTS", -1)
    built = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for seed in range(1000, 1020):
            program = fuzzer.run_on("cpu", seed, True)
            assert not program.outputs
            assert not any(step.startswith("jeet.execute") for step in program.log)
            built += program.too_large
    assert built > 10
