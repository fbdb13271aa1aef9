"""pytest setup for Jeet's Python package: run with PYTHONPATH=build/python."""

import numpy as np
import pytest

import jeet


@pytest.fixture
def rng():
    """A fresh generator per test (different data every run: the seed is
    printed on failure through the test id)."""
    return np.random.default_rng()


def pytest_report_header(config):
    status = "usable" if jeet.gpu_available() else "unavailable"
    return f"jeet from {jeet.__file__}; GPU {status}"


requires_gpu = pytest.mark.skipif(
    not jeet.gpu_available(), reason="no usable GPU for Jeet on this machine"
)
no_gpu = pytest.mark.skipif(
    jeet.gpu_available(), reason="a usable GPU exists on this machine"
)
