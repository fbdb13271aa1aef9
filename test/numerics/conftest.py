"""Fixtures of the numerics suite."""
import os

import numpy as np
import pytest

from jeetrun import JEET_RUN


@pytest.fixture
def rng():
    # Fresh inputs every run; the seed is printed so a failure can be replayed.
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"random seed {seed}")
    return np.random.default_rng(seed)


def pytest_collection_modifyitems(config, items):
    if not JEET_RUN.exists():
        raise pytest.UsageError(f"{JEET_RUN} is missing: run `make build`")
