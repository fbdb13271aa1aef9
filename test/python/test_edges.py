"""Defined behaviour at the edges from Python (docs/Reliability.md): scalars
that do not fit the dtype, complex values, bf16 with Python scalars, shapes
beyond Jeet's limits, tensors with no elements."""
import numpy as np
import pytest

import jeet

LIMIT = 1 << 40


def cpu(data, dtype="float32"):
    return jeet.tensor(np.asarray(data), dtype=dtype, device="cpu")


@pytest.mark.parametrize("scalar", [2**31, -2**31 - 1, 2**40, np.int64(2**40),
                                    np.uint64(2**64 - 1)])
def test_int32_scalar_that_does_not_fit_raises(scalar):
    x = cpu([1, 2, 3], "int32")
    with pytest.raises(jeet.ArgumentError, match="does not fit in int32"):
        x + scalar
    with pytest.raises(jeet.ArgumentError, match="does not fit in int32"):
        scalar * x


def test_int32_scalars_at_the_bounds_work():
    x = cpu([1, 2, 3], "int32")
    assert (x + (2**31 - 1)).numpy().tolist() == [-2**31, -2**31 + 1, -2**31 + 2]
    assert (x * -2**31).numpy().tolist() == [-2**31, 0, -2**31]


@pytest.mark.parametrize("dtype,scalar", [("float16", 1e6), ("float16", -70000.0),
                                          ("bfloat16", 1e39), ("float32", 1e39)])
def test_float_scalar_that_overflows_raises(dtype, scalar):
    with pytest.raises(jeet.ArgumentError, match="does not fit in"):
        cpu([1.0, 2.0], dtype) + scalar


def test_float_scalars_that_round_to_the_maximum_work():
    out = (cpu([0.0], "float16") + 65519.0).numpy()
    assert out.tolist() == [65504.0]
    assert np.isinf((cpu([1.0], "float16") * float("inf")).numpy()).all()


@pytest.mark.parametrize("value", [1 + 2j, 3 + 0j, np.complex64(1j)])
def test_complex_scalars_and_data_are_rejected(value):
    with pytest.raises(jeet.ArgumentError, match="complex"):
        cpu([1.0, 2.0]) + value
    with pytest.raises(jeet.ArgumentError, match="complex"):
        jeet.tensor(np.array([value]), device="cpu")


def test_bf16_with_python_scalars(rng):
    a = rng.standard_normal(5).astype(np.float32)
    x = cpu(a, "bfloat16")
    ref = jeet._dtypes.bf16_bits_to_f32(jeet._dtypes.f32_to_bf16_bits(a))
    np.testing.assert_allclose((x + 1).numpy(), ref + 1, rtol=1e-2)
    np.testing.assert_allclose((2.5 * x).numpy(), ref * 2.5, rtol=1e-2)
    np.testing.assert_allclose((x - np.float32(0.5)).numpy(), ref - 0.5, rtol=1e-2,
                               atol=1e-2)


def test_int32_data_that_does_not_fit_raises():
    with pytest.raises(jeet.ArgumentError, match="do not fit in int32"):
        jeet.tensor(np.array([2**40]), dtype="int32", device="cpu")
    with pytest.raises(jeet.ArgumentError, match="do not fit in int32"):
        jeet.tensor(np.array([np.nan]), dtype="int32", device="cpu")


@pytest.mark.parametrize("shape", [[LIMIT + 1], [2**62], [2**31, 2**31],
                                   [0, 2**63 - 1], [1] * 65])
def test_shapes_beyond_the_limit_raise_shape_error(shape):
    with pytest.raises(jeet.ShapeError, match="limit"):
        jeet.zeros(shape, device="cpu")
    with pytest.raises(jeet.ShapeError):
        jeet.full(shape, 1.0, device="cpu")


def test_lazy_shapes_beyond_the_limit_raise_shape_error():
    x = jeet.zeros(2, 3, device="cpu")
    with pytest.raises(jeet.ShapeError, match="limit"):
        x.reshape((2**62, 0))
    with pytest.raises(jeet.ShapeError, match="limit"):
        jeet.broadcast_to(x, (2**40, 2, 3))


def test_ops_on_tensors_with_no_elements(rng):
    a = jeet.zeros(0, 4, device="cpu")
    w = cpu(rng.standard_normal((4, 3)).astype(np.float32))
    b = cpu(rng.standard_normal(3).astype(np.float32))
    # A 0-sized matmul with an epilogue crashed the compiler.
    assert (jeet.relu(a @ w + b)).numpy().shape == (0, 3)
    k0 = jeet.zeros(2, 0, device="cpu") @ jeet.zeros(0, 3, device="cpu")
    np.testing.assert_array_equal((k0 + b).numpy(), np.broadcast_to(b.numpy(), (2, 3)))
    assert a.sum(axis=0).numpy().tolist() == [0.0] * 4
    assert a.max(axis=0).numpy().tolist() == [-np.inf] * 4
    assert np.isnan(a.mean(axis=0).numpy()).all()
    assert a.exp().numpy().shape == (0, 4)


def test_int32_division_is_defined():
    x = cpu([7, -7, -2**31, -2**31], "int32")
    y = cpu([0, 0, -1, 2], "int32")
    assert jeet.div(x, y).numpy().tolist() == [-1, -1, -2**31, -2**30]
    # The / operator is true division (in float32), as PyTorch's and JAX's.
    assert (x / y).numpy().tolist() == [np.inf, -np.inf, 2.0**31, -2.0**30]
