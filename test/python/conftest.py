"""pytest setup for Jeet's Python package: run with PYTHONPATH=build/python."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

# No compiled graph from the user's disk cache or an earlier run: every test
# compiles what it executes (test_disk_cache.py gives its child processes a
# cache directory of their own).
os.environ["JEET_CACHE_DIR"] = ""

import jeet  # noqa: E402


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


def gpu_is_emulated():
    """Whether the usable GPU is the Jeet GPU emulator (JEET_CUDA_DRIVER)."""
    return any(d["kind"] == "cuda" and d["available"] and d["emulated"]
               for d in jeet.devices())


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: runs on the GPU; `make test` runs these tests again "
        "with JEET_CUDA_DRIVER set to the GPU emulator (-m gpu)")


def pytest_terminal_summary(terminalreporter):
    # The frontends' counts (test/python/frontends/frontends_summary.py),
    # when their tests ran.
    summary = sys.modules.get("frontends_summary")
    if summary is not None:
        summary.write(terminalreporter)


def pytest_report_header(config):
    status = "unavailable"
    if jeet.gpu_available():
        status = "emulated" if gpu_is_emulated() else "usable"
    return f"jeet from {jeet.__file__}; GPU {status}"


def requires_gpu(test):
    """A GPU test: runs where a GPU is usable, the emulated one included."""
    return pytest.mark.gpu(pytest.mark.skipif(
        not jeet.gpu_available(),
        reason="no usable GPU for Jeet here (make test runs GPU tests on "
               "the emulator)")(test))


def requires_gpu_hardware(test):
    """A test of what only a real GPU gives (timing, hardware behaviour)."""
    return pytest.mark.gpu(pytest.mark.skipif(
        not jeet.gpu_available() or gpu_is_emulated(),
        reason="needs a real GPU, not the emulator")(test))


no_gpu = pytest.mark.skipif(
    jeet.gpu_available(), reason="a usable GPU exists on this machine"
)


ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_python_fuzzer(script, *args):
    """stdout of fuzz/python/<script> run with `args` and --verbose in a
    process of its own (a crash is reported, not taken down with the test
    run); a failure names the program's seed and the command that replays
    it."""
    path = ROOT / "fuzz" / "python" / script
    proc = subprocess.run(
        [sys.executable, str(path), *args, "--verbose"], capture_output=True,
        text=True, env=dict(os.environ), timeout=900)
    if proc.returncode != 0:
        seeds = [line for line in proc.stdout.splitlines()
                 if line.startswith("program seed")]
        last = seeds[-1].split()[-1] if seeds else "?"
        raise AssertionError(
            f"the fuzzer failed (exit {proc.returncode}) in program seed {last}; "
            f"replay: PYTHONPATH=build/python python3 {path.relative_to(ROOT)} "
            f"--seed {last} --count 1 {' '.join(args[4:])}\n{proc.stdout[-3000:]}\n"
            f"{proc.stderr[-3000:]}")
    return proc.stdout


def integer_power(base, exponent, dtype):
    """base ** exponent elementwise in exact Python integers, wrapped to
    `dtype` as NumPy wraps; a negative exponent gives 1 / base ** -exponent
    rounded toward zero (jeet.pow's rule): 1, -1 or 1 for base -1, else 0."""
    bits = np.dtype(dtype).itemsize * 8

    def one(b, e):
        b, e = int(b), int(e)
        if e < 0:
            return 1 if b == 1 else (-1 if e % 2 else 1) if b == -1 else 0
        r = pow(b, e, 1 << bits)
        return r - (1 << bits) if r >= 1 << (bits - 1) else r

    base, exponent = np.broadcast_arrays(base, exponent)
    return np.array([one(b, e) for b, e in zip(base.ravel(), exponent.ravel())],
                    dtype=dtype).reshape(base.shape)
