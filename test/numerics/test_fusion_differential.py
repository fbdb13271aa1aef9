"""Differential test of fusion: random graphs (graphgen.py) run fused and
unfused through jeet-run; both agree with each other and with a float64
numpy reference.

JEET_DIFFERENTIAL_GRAPHS sets the number of graphs (200 in `make test`,
10,000 in `make soak`); JEET_DIFFERENTIAL_SEED the first seed. Graph k has
seed first+k; a failure prints it and the one-line command that replays it.
The first NUM_GPU_GRAPHS f32 graphs also run fused and unfused on the GPU
(the emulator everywhere, and a GPU where one answers) against the CPU and
numpy.
"""
import os

import numpy as np
import pytest

from graphgen import GraphGen
from jeetrun import GPU_DRIVERS, assert_close, run_graph

NUM_GRAPHS = int(os.environ.get("JEET_DIFFERENTIAL_GRAPHS", "200"))
FIRST_SEED = int(os.environ.get("JEET_DIFFERENTIAL_SEED", "20261129"))
NUM_GPU_GRAPHS = 40


def replay_command(seed, test):
    return (f"JEET_DIFFERENTIAL_SEED={seed} JEET_DIFFERENTIAL_GRAPHS=1 "
            "python3 -m pytest test/numerics/test_fusion_differential.py "
            f"-k '{test} and graph_0'")


def check_outputs(outputs, graph, what):
    for i, (out, ref) in enumerate(zip(outputs, graph.refs)):
        rtol = graph.tolerance(i)
        label = f"{what}, result {i}"
        if graph.dtype == "i32":
            assert out.dtype == np.int32, label
            np.testing.assert_array_equal(out, ref, err_msg=label)
        else:
            assert_close(out, ref, rtol=rtol, what=label)


@pytest.mark.parametrize("index", range(NUM_GRAPHS),
                         ids=lambda k: f"graph_{k}")
def test_fused_matches_unfused_and_numpy(tmp_path, index):
    seed = FIRST_SEED + index
    graph = GraphGen(seed).build()
    where = (f"seed {seed} ({graph.dtype}); replay: "
             f"{replay_command(seed, 'numpy')}\n{graph.source}")
    try:
        # Fused with the default (parallel) kernels, unfused sequential: both
        # code paths of the CPU back end.
        fused = run_graph(tmp_path, graph.source, graph.inputs, ["--fuse=true"])
        unfused = run_graph(tmp_path, graph.source, graph.inputs,
                            ["--fuse=false", "--parallel=false"])
    except AssertionError as error:
        raise AssertionError(f"{error}\n{where}") from None
    check_outputs(fused, graph, "fused vs numpy, " + where)
    check_outputs(unfused, graph, "unfused vs numpy, " + where)


@pytest.mark.parametrize("gpu", GPU_DRIVERS)
@pytest.mark.parametrize("index", range(NUM_GPU_GRAPHS),
                         ids=lambda k: f"graph_{k}")
def test_gpu_matches_cpu_and_numpy(tmp_path, index, gpu):
    seed = FIRST_SEED + index
    graph = GraphGen(seed, dtypes=["f32"]).build()
    where = (f"seed {seed} on {gpu}; replay: "
             f"{replay_command(seed, 'gpu')}\n{graph.source}")
    try:
        cpu = run_graph(tmp_path, graph.source, graph.inputs)
        for fuse in ("true", "false"):
            outs = run_graph(tmp_path, graph.source, graph.inputs,
                             [f"--fuse={fuse}"], gpu=gpu)
            check_outputs(outs, graph, f"gpu fuse={fuse} vs numpy, " + where)
            for i, (g, c) in enumerate(zip(outs, cpu)):
                assert_close(g, c.astype(np.float64), rtol=graph.tolerance(i),
                             what=f"gpu fuse={fuse} vs cpu, result {i}, {where}")
    except AssertionError as error:
        raise AssertionError(f"{error}\n{where}") from None
