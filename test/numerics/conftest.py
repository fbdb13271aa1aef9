"""Fixtures of the numerics suite."""
import os

import numpy as np
import pytest

from jeetrun import EMULATOR, GPU_DRIVERS, JEET_RUN, run_graph


@pytest.fixture
def rng(request):
    """Fresh inputs every run; the seed is printed with the command that
    replays it (JEET_TEST_SEED=N fixes it)."""
    seed = os.environ.get("JEET_TEST_SEED")
    seed = int(seed) if seed else int.from_bytes(os.urandom(4), "little")
    print(f"random seed {seed}; replay: JEET_TEST_SEED={seed} "
          f"python3 -m pytest '{request.node.nodeid}'")
    return np.random.default_rng(seed)


# Where the `run` fixture runs graphs: the CPU, the GPU emulator, and a GPU
# where a real CUDA driver answers.
DEVICES = ["cpu"] + [f"gpu-{driver}" for driver in GPU_DRIVERS]


@pytest.fixture(params=DEVICES)
def run(request, tmp_path):
    """run(source, inputs, extra_args=()): the graph's outputs through
    jeet-run on each device of DEVICES."""
    device = request.param
    gpu = device.split("-", 1)[1] if device.startswith("gpu-") else None

    def run(source, inputs, extra_args=()):
        return run_graph(tmp_path, source, inputs, extra_args, gpu=gpu)
    return run


def pytest_collection_modifyitems(config, items):
    if not JEET_RUN.exists():
        raise pytest.UsageError(f"{JEET_RUN} is missing: run `make build`")
    if not EMULATOR.exists():
        raise pytest.UsageError(f"{EMULATOR} is missing: run `make build`")
