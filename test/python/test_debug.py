"""Seeing inside a compilation from Python: JEET_DEBUG prints the stages and
the fusion groups, JEET_DUMP_DIR writes the IR after each stage, and a
compiled graph's stages are those of its device's pipeline."""

import re

import numpy as np
import pytest

import jeet
from jeet import _jeet

CPU_STAGES = ["jeet", "fused", "linalg", "bufferized", "llvm"]
GPU_STAGES = ["jeet", "fused", "kernels", "llvm", "ptx"]


def graph(rng):
    """relu(x @ w + 1) summed over rows: two kernels (a matmul with its
    epilogue, a reduction)."""
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w = rng.standard_normal((16, 4)).astype(np.float32)
    y = jeet.relu(jeet.tensor(x, device="cpu") @ jeet.tensor(w, device="cpu") + 1.0)
    expected = np.maximum(x.astype(np.float64) @ w.astype(np.float64) + 1.0, 0.0)
    return y.sum(axis=1), expected.sum(axis=1)


def test_dump_dir_writes_each_stage_of_an_execute(rng, tmp_path, monkeypatch):
    monkeypatch.setenv("JEET_DUMP_DIR", str(tmp_path))
    jeet.clear_cache()  # a cached graph compiles (and dumps) nothing
    y, expected = graph(rng)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-4)

    folders = list(tmp_path.iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("main-cpu-")
    files = sorted(p.name for p in folders[0].iterdir())
    assert files == [f"{i:02d}-{s}.mlir" for i, s in enumerate(CPU_STAGES)]
    text = {s: (folders[0] / f"{i:02d}-{s}.mlir").read_text()
            for i, s in enumerate(CPU_STAGES)}
    assert "jeet.matmul" in text["jeet"] and "jeet.fusion" not in text["jeet"]
    assert text["fused"].count("jeet.fusion") == 2
    assert "linalg." in text["linalg"] and "jeet." not in text["linalg"]
    assert "memref<" in text["bufferized"] and "tensor<" not in text["bufferized"]
    assert "llvm.func @main" in text["llvm"]
    # What was dumped is what the executable keeps for ir(stage).
    compiled = jeet.compile(y)
    assert compiled.ir("fused") == text["fused"]


def test_debug_prints_stages_and_fusion_groups(rng, capfd, monkeypatch):
    monkeypatch.setenv("JEET_DEBUG", "1")
    jeet.clear_cache()
    y, _ = graph(rng)
    y.execute()
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("jeet: ")]
    assert lines[0].startswith("jeet: compiling main-cpu-")
    assert "jeet-cpu-pipeline{" in lines[0]
    stages = [m.group(2) for m in map(re.compile(r"jeet:   (\d\d) (\S+)").match, lines)
              if m]
    assert stages == CPU_STAGES[1:]
    assert any("kernel 0: jeet.matmul + jeet.add + jeet.relu" in line
               for line in lines)
    assert any("kernel 1: jeet.reduce_sum" in line for line in lines)

    monkeypatch.setenv("JEET_DEBUG", "0")
    jeet.clear_cache()
    y, _ = graph(rng)
    y.execute()
    assert "jeet: " not in capfd.readouterr().err


def test_stages_are_the_pipelines(rng):
    y, _ = graph(rng)
    compiled = jeet.compile(y)
    assert compiled.stages == CPU_STAGES
    for stage in CPU_STAGES:
        assert compiled.ir(stage)
    with pytest.raises(jeet.ArgumentError, match="unknown stage 'kernels'"):
        compiled.ir("kernels")
    assert "stages (jeet.compile(t).ir(stage)): " + ", ".join(CPU_STAGES) in \
        jeet.explain(y)

    # The GPU pipeline compiles where there is no GPU (only running needs
    # one): its stages, the 'kernels' stage and the PTX included.
    gpu = _jeet.compile(compiled.graph_text, device="gpu", keep_ir=True,
                        cached=False)
    assert list(gpu.stages) == GPU_STAGES
    assert gpu.ir("kernels").count("gpu.launch_func") == 2
    assert gpu.ir("ptx").count(".entry") == 2
