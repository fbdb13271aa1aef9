"""Fixtures of the numerics suite."""
import os

import numpy as np
import pytest

from jeetrun import JEET_RUN


@pytest.fixture
def rng(request):
    """Fresh inputs every run; the seed is printed with the command that
    replays it (JEET_TEST_SEED=N fixes it)."""
    seed = os.environ.get("JEET_TEST_SEED")
    seed = int(seed) if seed else int.from_bytes(os.urandom(4), "little")
    print(f"random seed {seed}; replay: JEET_TEST_SEED={seed} "
          f"python3 -m pytest '{request.node.nodeid}'")
    return np.random.default_rng(seed)


def pytest_collection_modifyitems(config, items):
    if not JEET_RUN.exists():
        raise pytest.UsageError(f"{JEET_RUN} is missing: run `make build`")
