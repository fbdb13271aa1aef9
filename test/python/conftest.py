"""pytest setup for Jeet's Python package: run with PYTHONPATH=build/python."""

import os

import numpy as np
import pytest

import jeet


@pytest.fixture(autouse=True)
def seed(request):
    """A fresh seed per test (different data every run), printed with the
    command that replays it; JEET_TEST_SEED=N fixes it. It seeds jeet.rand
    and jeet.randn too."""
    value = os.environ.get("JEET_TEST_SEED")
    value = int(value) if value else int.from_bytes(os.urandom(4), "little")
    print(f"random seed {value}; replay: JEET_TEST_SEED={value} "
          f"python3 -m pytest '{request.node.nodeid}'")
    jeet.seed(value)
    return value


@pytest.fixture
def rng(seed):
    """NumPy's generator, from the test's seed."""
    return np.random.default_rng(seed)


def pytest_report_header(config):
    status = "usable" if jeet.gpu_available() else "unavailable"
    return f"jeet from {jeet.__file__}; GPU {status}"


requires_gpu = pytest.mark.skipif(
    not jeet.gpu_available(), reason="no usable GPU for Jeet on this machine"
)
no_gpu = pytest.mark.skipif(
    jeet.gpu_available(), reason="a usable GPU exists on this machine"
)
