"""Helpers for the numerics suite: run a jeet graph through jeet-run with .npy inputs and
outputs, on fresh random inputs, and compare with a float64 numpy
reference. GPU graphs run on the GPU emulator (libjeet_cuda_emulator.so),
and on a GPU too where a real CUDA driver answers (see GPU_DRIVERS)."""
import ctypes
import os
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("JEET_BUILD_DIR", ROOT / "build"))
JEET_RUN = BUILD / "bin" / "jeet-run"
EMULATOR = BUILD / "lib" / "libjeet_cuda_emulator.so"


def real_gpu_answers():
    """Whether a real CUDA driver reports a device (never the emulator, which
    exports jeetEmulatorVersion besides the driver's entry points)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    if hasattr(cuda, "jeetEmulatorVersion"):
        return False
    count = ctypes.c_int(0)
    return (cuda.cuInit(0) == 0 and
            cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0)


# The drivers GPU graphs run on: the emulator everywhere, the GPU where one
# answers. Parametrize GPU tests with them (ids "emulator", "hardware").
GPU_DRIVERS = ["emulator"] + (["hardware"] if real_gpu_answers() else [])


def driver_env(driver):
    """The environment of a jeet-run on `driver` (None: the CPU, as is)."""
    env = dict(os.environ)
    env.pop("JEET_CUDA_DRIVER", None)
    if driver == "emulator":
        env["JEET_CUDA_DRIVER"] = str(EMULATOR)
    return env

MLIR_TYPES = {np.float32: "f32", np.float16: "f16", np.int32: "i32",
              np.int64: "i64", np.bool_: "i1"}


def mlir_type(shape, dtype):
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{MLIR_TYPES[np.dtype(dtype).type]}>"


def run_graph(tmp_path, source, inputs, extra_args=(), gpu=None):
    """Writes `source` and `inputs`, runs jeet-run, returns the outputs. On
    the CPU, or with `gpu` ("emulator" or "hardware", see GPU_DRIVERS) on the
    GPU."""
    graph = tmp_path / "graph.mlir"
    graph.write_text(source)
    device = "gpu" if gpu else "cpu"
    args = [str(JEET_RUN), str(graph), f"--device={device}", *extra_args]
    for i, array in enumerate(inputs):
        path = tmp_path / f"in{i}.npy"
        np.save(path, np.array(array, order="C"))  # keeps 0-d arrays 0-d
        args.append(f"--input=@{path}")
    signature = source[source.index("func.func"):].split("{", 1)[0]
    n_results = signature.rsplit("->", 1)[-1].count("tensor<")
    out_paths = [tmp_path / f"out{i}.npy" for i in range(n_results)]
    args += [f"--output=@{p}" for p in out_paths]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300,
                          env=driver_env(gpu))
    if proc.returncode != 0:
        raise AssertionError(
            f"jeet-run --device={device} failed ({proc.returncode}):\n"
            f"{proc.stderr}\n{source}")
    return [np.load(p) for p in out_paths]


def assert_close(actual, expected, rtol, atol=None, what=""):
    expected = np.asarray(expected, dtype=np.float64)
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, (
        f"{what}: shape {actual.shape} != {expected.shape}")
    if atol is None:
        finite = np.abs(expected[np.isfinite(expected)])
        atol = rtol * max(1.0, float(np.max(finite, initial=0.0)))
    err = np.abs(actual.astype(np.float64) - expected)
    # Written as "not within": a NaN fails every comparison and so counts as
    # wrong, unless the reference is NaN there too; equal infinities agree.
    with np.errstate(invalid="ignore"):
        close = err <= atol + rtol * np.abs(expected)
    same = (actual.astype(np.float64) == expected) | (
        np.isnan(actual.astype(np.float64)) & np.isnan(expected))
    bad = ~(close | same)
    assert not bad.any(), (
        f"{what}: {bad.sum()} of {bad.size} elements differ; max abs error "
        f"{np.nanmax(err, initial=0.0):.3g}, first at {np.argwhere(bad)[0].tolist()}: "
        f"{actual[tuple(np.argwhere(bad)[0])]} vs "
        f"{expected[tuple(np.argwhere(bad)[0])]}")


