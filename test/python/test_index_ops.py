"""jeet.min, jeet.prod, jeet.argmax/argmin and jeet.iota from Python, against
NumPy, and their errors."""

import numpy as np
import pytest

import jeet


def t(x, dtype=None):
    x = np.asarray(x)
    return jeet.tensor(x, dtype=dtype or x.dtype, device="cpu")


def test_min_and_prod(rng):
    x = rng.uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
    for axis, keepdims in [(None, False), (1, True), ((0, 2), False), (-1, False)]:
        np.testing.assert_array_equal(
            jeet.min(t(x), axis=axis, keepdims=keepdims).numpy(),
            np.min(x, axis=axis, keepdims=keepdims))
        np.testing.assert_allclose(
            t(x).prod(axis=axis, keepdims=keepdims).numpy(),
            np.prod(x.astype(np.float64), axis=axis, keepdims=keepdims),
            rtol=1e-5)
    i = rng.integers(-3, 4, (6, 7)).astype(np.int64)
    np.testing.assert_array_equal(jeet.prod(t(i), axis=0).numpy(),
                                  np.prod(i, axis=0))
    assert t(i).min().numpy() == i.min()


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions(name, rng):
    x = rng.integers(-4, 5, (6, 9)).astype(np.float32)
    x[2, 3] = np.nan
    reference = getattr(np, name)
    for axis, keepdims in [(None, False), (0, False), (1, True), (-1, False)]:
        got = getattr(jeet, name)(t(x), axis=axis, keepdims=keepdims)
        assert got.dtype == "int64"
        np.testing.assert_array_equal(
            got.numpy(), reference(x, axis=axis, keepdims=keepdims))
    # A method too; booleans are ranked as numbers.
    b = x > 0
    np.testing.assert_array_equal(getattr(t(b), name)(axis=1).numpy(),
                                  reference(b, axis=1))


def test_iota():
    got = jeet.iota((2, 3, 4), axis=1, dtype="float32")
    assert got.dtype == "float32" and got.shape == (2, 3, 4)
    np.testing.assert_array_equal(
        got.numpy(), np.broadcast_to(np.arange(3.0)[None, :, None], (2, 3, 4)))
    big = jeet.iota((3, 2000), axis=-1)
    assert big.dtype == "int64"
    np.testing.assert_array_equal((big + t(np.int64(1))).numpy()[2],
                                  np.arange(1, 2001))


def test_errors():
    x = t(np.zeros((2, 3), np.float32))
    with pytest.raises(jeet.ShapeError, match=r"jeet.argmax: axis 2 is out of range"):
        jeet.argmax(x, axis=2)
    with pytest.raises(jeet.ShapeError, match=r"jeet.argmin: attempt to get argmin of an empty sequence"):
        jeet.argmin(t(np.zeros((2, 0), np.float32)), axis=1)
    with pytest.raises(jeet.ShapeError, match=r"rank >= 1"):
        jeet.argmax(t(np.float32(1.0)), axis=0)
    with pytest.raises(jeet.ShapeError, match=r"jeet.min: axis 5 is out of range"):
        jeet.min(x, axis=5)
    with pytest.raises(jeet.ShapeError, match=r"jeet.iota: axis 3 is out of range"):
        jeet.iota((2, 3), axis=3)
    with pytest.raises(jeet.ArgumentError, match=r"jeet.iota: dtype must be a number"):
        jeet.iota((2, 3), dtype="bool")
    # A product of bools is NumPy's: int64 (test_logic.py).
    assert jeet.prod(t(np.zeros(3, np.bool_))).dtype == "int64"
