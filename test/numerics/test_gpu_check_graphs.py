"""The test graphs of scripts/gpu-check.sh (every op family, matmuls,
reductions, the models) on the GPU emulator, and on a GPU where one answers:
the same graphs, inputs (the manifest's seeds) and float64 references and
tolerances as the hardware check. The benchmark graphs stay hardware-only.
Also: `gpu-check.sh run` refuses to report speed from the emulator."""
import json
import pathlib
import platform
import subprocess
import sys
import types

import numpy as np
import pytest

from jeetrun import BUILD, EMULATOR, GPU_DRIVERS, ROOT, driver_env, run_graph

SCRIPT = ROOT / "scripts" / "gpu-check.sh"
MARKER = "# ---- gpu_check.py ----"


def load_gpu_check():
    """The Python half of gpu-check.sh (what `prepare` writes into DIR)."""
    text = SCRIPT.read_text()
    source = text[text.rindex(MARKER) + len(MARKER):]
    module = types.ModuleType("gpu_check")
    module.__file__ = str(SCRIPT)
    exec(compile(source, str(SCRIPT), "exec"), module.__dict__)
    return module


GPU_CHECK = load_gpu_check()
# The seed of each graph is its position in graphs(), as in the manifest.
TEST_GRAPHS = [(seed, g) for seed, g in enumerate(GPU_CHECK.graphs())
               if g["kind"] == "test"]


@pytest.mark.parametrize("gpu", GPU_DRIVERS)
@pytest.mark.parametrize("seed,entry", TEST_GRAPHS,
                         ids=[g["name"] for _, g in TEST_GRAPHS])
def test_gpu_check_graph(tmp_path, gpu, seed, entry):
    inputs = GPU_CHECK.make_inputs(entry, seed)
    refs = GPU_CHECK.references(entry, inputs)
    extra = [] if entry["fuse"] else ["--fuse=false"]
    outs = run_graph(tmp_path, entry["mlir"], inputs, extra, gpu=gpu)
    assert len(outs) == len(refs)
    for i, (out, ref) in enumerate(zip(outs, refs)):
        got = out.astype(np.float64)
        assert got.shape == ref.shape, f"result {i}: {got.shape} != {ref.shape}"
        assert not np.isnan(got).any(), f"result {i} holds NaN"
        # gpu-check's own measure and tolerance.
        err = float(np.max(np.abs(got - ref) / (1.0 + np.abs(ref)),
                           initial=0.0))
        assert err <= entry["tol"], (
            f"{entry['name']} result {i}: max error {err:.2e} > "
            f"{entry['tol']:.0e}")


def test_the_graphs_cover_the_op_families():
    names = {g["name"] for _, g in TEST_GRAPHS}
    for name in ("matmul", "batch_matmul", "mlp", "softmax", "reduce_max",
                 "reduce_sum", "chain10", "cast", "add_broadcast"):
        assert name in names


def test_run_refuses_the_emulator(tmp_path):
    """With the emulator as the CUDA driver, `run` reports no GPU speed: it
    stops with status 2 before running anything."""
    runner = BUILD / "bin" / "jeet-runner"
    manifest = dict(device="gpu", chip="sm_90", arch=platform.machine(),
                    note="", graphs=[])
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "out"
    out.mkdir()
    code = (f"import sys; sys.argv = ['gpu_check', 'run', {str(tmp_path)!r}, "
            f"{str(out)!r}, {str(runner)!r}]\n"
            f"exec(compile(open({str(SCRIPT)!r}).read().rsplit("
            f"{MARKER!r}, 1)[1], 'gpu_check.py', 'exec'))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, env=driver_env("emulator"), timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Jeet GPU emulator" in proc.stderr
    assert "no speed from an emulated one" in proc.stderr
    assert not (out / "table.txt").exists()
