"""The seed example (docs: "Implementing a Tensor Multiplication Graph")."""

import numpy as np
import pytest

import jeet
from conftest import no_gpu, requires_gpu


def test_seed_verbatim_cpu():
    # The seed's code, verbatim but for device='cpu'.
    # Define the computation graph
    import jeet

    # Initialize tensors on the GPU device
    # Shape: (rows, cols)
    A = jeet.tensor([1024, 1024], dtype='float32', device='cpu')
    B = jeet.tensor([1024, 1024], dtype='float32', device='cpu')

    # Declarative operation: This defines the intent, not the immediate execution
    C = jeet.matmul(A, B)

    # Execute the graph and retrieve the result
    # The runtime optimizes the memory path here
    result = C.execute()

    assert result.shape == (1024, 1024)
    assert result.dtype == "float32"
    assert result.device == "cpu"
    assert result.is_materialized
    assert np.array_equal(result.numpy(), np.zeros((1024, 1024), np.float32))
    # Zeros in, zeros out would pass a matmul that wrote nothing into a
    # zero-filled buffer: the same tensors, offset, give a product with no
    # zero in it ((0 + 1) @ (0 + 2) = 2048 everywhere).
    shifted = jeet.matmul(A + 1, B + 2).execute()
    assert np.array_equal(shifted.numpy(), np.full((1024, 1024), 2048, np.float32))


def test_seed_declares_without_executing():
    A = jeet.tensor([64, 32], dtype="float32", device="cpu")
    B = jeet.tensor([32, 16], dtype="float32", device="cpu")
    before = jeet.cache_stats()
    C = jeet.matmul(A, B)
    assert not C.is_materialized
    assert C.shape == (64, 16)
    assert jeet.cache_stats()["compilations"] == before["compilations"]
    assert jeet.cache_stats()["cache_hits"] == before["cache_hits"]


def test_seed_matmul_random_cpu(rng):
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 1024)).astype(np.float32)
    A = jeet.tensor(a, dtype="float32", device="cpu")
    B = jeet.tensor(b, dtype="float32", device="cpu")
    result = jeet.matmul(A, B).execute()
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-4, atol=1e-3)


def test_seed_matmul_rand_cpu():
    A = jeet.rand(1024, 1024, device="cpu")
    B = jeet.rand(1024, 1024, device="cpu")
    C = (A @ B).execute()
    expected = A.numpy().astype(np.float64) @ B.numpy().astype(np.float64)
    np.testing.assert_allclose(C.numpy(), expected, rtol=1e-4)


@no_gpu
def test_seed_verbatim_gpu_raises_without_gpu():
    with pytest.raises(jeet.DeviceUnavailableError) as info:
        A = jeet.tensor([1024, 1024], dtype='float32', device='gpu')
        B = jeet.tensor([1024, 1024], dtype='float32', device='gpu')
        C = jeet.matmul(A, B)
        C.execute()
    message = str(info.value)
    assert "'gpu'" in message
    # The runtime's own reason (no driver, old driver, no device), verbatim.
    cuda = [d for d in jeet.devices() if d["kind"] == "cuda"]
    if cuda and not cuda[0]["available"]:
        assert cuda[0]["reason"] in message
    assert isinstance(info.value, jeet.JeetError)


@requires_gpu
def test_seed_verbatim_gpu():
    start = jeet.memory_stats("gpu")
    A = jeet.tensor([1024, 1024], dtype='float32', device='gpu')
    B = jeet.tensor([1024, 1024], dtype='float32', device='gpu')
    C = jeet.matmul(A, B)
    result = C.execute()
    executed = jeet.memory_stats("gpu")
    assert result is C and result.device == "gpu"
    assert result._rt.device == "cuda:0"        # the result on the device
    # Nothing crossed between host and device so far (zeros are set on the
    # device), and the host has not waited.
    for key in ("h2d_bytes", "d2h_bytes", "synchronizations"):
        assert executed[key] == start[key], (key, start, executed)
    values = result.numpy()
    done = jeet.memory_stats("gpu")
    # C.numpy() is the only copy device->host: one wait, C's bytes.
    assert done["d2h_bytes"] - start["d2h_bytes"] == values.nbytes
    assert done["synchronizations"] - executed["synchronizations"] == 1
    assert np.array_equal(values, np.zeros((1024, 1024), np.float32))
