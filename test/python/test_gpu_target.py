"""The GPU target of a compilation: PTX for NVIDIA GPUs or the emulation
target (kernels compiled for the host, run by the CUDA driver emulator).
Compiling for either needs no GPU."""

import pytest

import jeet
from jeet import _jeet

GRAPH = """
func.func @main(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64xf32> {
  %0 = jeet.matmul %a, %b : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %1 = jeet.reduce_max %0 {axes = array<i64: 1>} : tensor<64x16xf32> -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
"""


@pytest.mark.parametrize("target", ["ptx", "emulator"])
def test_gpu_graph_compiles_for_each_target(target):
    exe = _jeet.compile(GRAPH, device="gpu", gpu_target=target, cached=False)
    assert exe.gpu_target == target
    assert f"gpu-target={target}" in exe.options
    assert exe.num_kernels == 2


def test_only_ptx_graphs_keep_ptx():
    ptx = _jeet.compile(GRAPH, device="gpu", gpu_target="ptx", keep_ir=True,
                        cached=False)
    assert ".entry" in ptx.ir("ptx")
    emulated = _jeet.compile(GRAPH, device="gpu", gpu_target="emulator",
                             keep_ir=True, cached=False)
    assert emulated.ir("ptx") == ""
    assert "#jeet_emu.target" in emulated.ir("llvm")


def test_auto_resolves_before_caching():
    exe = _jeet.compile(GRAPH, device="gpu", cached=False)
    assert exe.gpu_target in ("ptx", "emulator")
    # "auto" is cached under the target it resolved to: asking for that
    # target explicitly hits the same entry.
    _jeet.compile(GRAPH, device="gpu")
    before = jeet.cache_stats()
    _jeet.compile(GRAPH, device="gpu", gpu_target=exe.gpu_target)
    after = jeet.cache_stats()
    assert after["cache_hits"] == before["cache_hits"] + 1
    assert after["compilations"] == before["compilations"]


def test_targets_are_cached_apart():
    _jeet.compile(GRAPH, device="gpu", gpu_target="ptx")
    before = jeet.cache_stats()
    exe = _jeet.compile(GRAPH, device="gpu", gpu_target="emulator")
    assert jeet.cache_stats()["compilations"] == before["compilations"] + 1
    assert exe.gpu_target == "emulator"


def test_unknown_gpu_target_is_named():
    with pytest.raises(jeet.CompilationError,
                       match=r"unknown GPU target 'sass' \(expected auto, ptx "
                             r"or emulator\)"):
        _jeet.compile(GRAPH, device="gpu", gpu_target="sass", cached=False)
    t = jeet.tensor([2.0, 3.0], device="cpu").relu()
    with pytest.raises(jeet.ArgumentError, match="gpu_target must be"):
        jeet.compile(t, gpu_target="sass")
