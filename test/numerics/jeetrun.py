"""Helpers for the numerics suite: run a jeet graph through jeet-run with .npy inputs and
outputs, on fresh random inputs, and compare with a float64 numpy
reference."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("JEET_BUILD_DIR", ROOT / "build"))
JEET_RUN = BUILD / "bin" / "jeet-run"

MLIR_TYPES = {np.float32: "f32", np.float16: "f16", np.int32: "i32"}


def mlir_type(shape, dtype):
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{MLIR_TYPES[np.dtype(dtype).type]}>"


def run_graph(tmp_path, source, inputs, extra_args=(), device="cpu"):
    """Writes `source` and `inputs`, runs jeet-run, returns the outputs."""
    graph = tmp_path / "graph.mlir"
    graph.write_text(source)
    args = [str(JEET_RUN), str(graph), f"--device={device}", *extra_args]
    for i, array in enumerate(inputs):
        path = tmp_path / f"in{i}.npy"
        np.save(path, np.array(array, order="C"))  # keeps 0-d arrays 0-d
        args.append(f"--input=@{path}")
    signature = source[source.index("func.func"):].split("{", 1)[0]
    n_results = signature.rsplit("->", 1)[-1].count("tensor<")
    out_paths = [tmp_path / f"out{i}.npy" for i in range(n_results)]
    args += [f"--output=@{p}" for p in out_paths]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(
            f"jeet-run failed ({proc.returncode}):\n{proc.stderr}\n{source}")
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


