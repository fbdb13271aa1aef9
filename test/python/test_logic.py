"""Comparisons, where, the logical and bitwise ops (functions and operators),
truth values, and NumPy's dtype promotion between tensors."""

import numpy as np
import pytest

import jeet
from conftest import requires_gpu


def t(x, dtype=None):
    x = np.asarray(x)
    return jeet.tensor(x, dtype=dtype or x.dtype, device="cpu")


def floats(rng, *shape):
    """Values with ties and NaN."""
    x = rng.integers(-3, 4, shape).astype(np.float32)
    x.reshape(-1)[0] = np.nan
    return x


OPERATORS = {
    "==": (lambda a, b: a == b, np.equal),
    "!=": (lambda a, b: a != b, np.not_equal),
    "<": (lambda a, b: a < b, np.less),
    "<=": (lambda a, b: a <= b, np.less_equal),
    ">": (lambda a, b: a > b, np.greater),
    ">=": (lambda a, b: a >= b, np.greater_equal),
}


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_comparison_operators(op, rng):
    apply, reference = OPERATORS[op]
    a, b = floats(rng, 5, 7), floats(rng, 7)
    got = apply(t(a), t(b))
    assert isinstance(got, jeet.Tensor) and got.dtype == "bool"
    np.testing.assert_array_equal(got.numpy(), reference(a, b))
    # With a scalar on either side.
    np.testing.assert_array_equal(apply(t(a), 1.0).numpy(), reference(a, 1.0))
    np.testing.assert_array_equal(apply(2, t(a)).numpy(), reference(2, a))


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparison_functions(name, rng):
    a = rng.integers(-5, 5, (4, 6)).astype(np.int64)
    b = rng.integers(-5, 5, (6,)).astype(np.int64)
    reference = {"eq": np.equal, "ne": np.not_equal, "lt": np.less,
                 "le": np.less_equal, "gt": np.greater,
                 "ge": np.greater_equal}[name]
    np.testing.assert_array_equal(getattr(jeet, name)(t(a), t(b)).numpy(),
                                  reference(a, b))
    np.testing.assert_array_equal(getattr(t(a), name)(t(b)).numpy(),
                                  reference(a, b))


def test_where(rng):
    x, y = floats(rng, 4, 5), rng.standard_normal(5).astype(np.float32)
    c = x > 0
    np.testing.assert_array_equal(jeet.where(t(x) > 0, t(x), t(y)).numpy(),
                                  np.where(c, x, y))
    # Scalars on either side take the tensor's dtype; a non-bool condition
    # is its truth value (x != 0).
    np.testing.assert_array_equal(jeet.where(t(x) > 0, t(x), 0.0).numpy(),
                                  np.where(c, x, np.float32(0)))
    np.testing.assert_array_equal(jeet.where(t(x), 1.0, t(y)).numpy(),
                                  np.where(x != 0, np.float32(1), y))
    both = jeet.where(t(c), 1, 0)
    assert both.dtype == "int64"
    np.testing.assert_array_equal(both.numpy(), np.where(c, 1, 0))


def test_where_with_arrays_and_lists(rng):
    """Arrays and lists as x or y, like NumPy's where: they take the other
    operand's dtype, or NumPy's promotion of the pair, and the condition's
    device."""
    x = floats(rng, 4, 5)
    c = x > 0
    y = rng.standard_normal(5).astype(np.float32)
    np.testing.assert_array_equal(jeet.where(t(c), -np.inf, y).numpy(),
                                  np.where(c, np.float32(-np.inf), y))
    np.testing.assert_array_equal(jeet.where(t(c), y.tolist(), 2.5).numpy(),
                                  np.where(c, y, np.float32(2.5)))
    ints = jeet.where(t(c), [1, 2, 3, 4, 5], 7)
    assert ints.dtype == "int64"
    np.testing.assert_array_equal(ints.numpy(), np.where(c, [1, 2, 3, 4, 5], 7))
    with pytest.raises(TypeError, match="jeet.where: x must be a jeet.Tensor, "
                       "a scalar, an array or a list, got object"):
        jeet.where(t(c), object(), 1.0)
    with pytest.raises(TypeError, match="y must be .* got dict"):
        jeet.where(t(c), t(x), {})


@requires_gpu
def test_where_with_arrays_on_the_gpu(rng):
    """The condition on the GPU, x a scalar and y an array: y goes to the
    GPU too (it went to the CPU, and the graph mixed devices; found by
    fuzz_graph_builder.py --device gpu --compare-cpu, seed 8001767)."""
    x = floats(rng, 2, 3)
    y = rng.standard_normal(3).astype(np.float32)
    c = jeet.tensor(x > 0, device="gpu")
    got = jeet.where(c, -np.inf, y)
    assert got.device == "gpu"
    np.testing.assert_array_equal(got.numpy(),
                                  np.where(x > 0, np.float32(-np.inf), y))
    got = jeet.where(c, y.tolist(), 0.5)
    assert got.device == "gpu"
    np.testing.assert_array_equal(got.numpy(), np.where(x > 0, y, np.float32(0.5)))


def test_bitwise_operators(rng):
    a = rng.integers(-100, 100, (3, 8)).astype(np.int32)
    b = rng.integers(-100, 100, (8,)).astype(np.int32)
    A, B = t(a), t(b)
    np.testing.assert_array_equal((A & B).numpy(), a & b)
    np.testing.assert_array_equal((A | B).numpy(), a | b)
    np.testing.assert_array_equal((A ^ B).numpy(), a ^ b)
    np.testing.assert_array_equal((~A).numpy(), ~a)
    np.testing.assert_array_equal((7 & A).numpy(), 7 & a)
    p, q = a > 0, b < 10
    P, Q = A > 0, B < 10
    np.testing.assert_array_equal((P & Q).numpy(), p & q)
    np.testing.assert_array_equal((P | Q).numpy(), p | q)
    np.testing.assert_array_equal((P ^ Q).numpy(), p ^ q)
    np.testing.assert_array_equal((~P).numpy(), ~p)
    np.testing.assert_array_equal((P & True).numpy(), p)


def test_logical_functions(rng):
    # The logical functions take truth values: integers are not bitwise.
    a = rng.integers(-2, 3, (5, 6)).astype(np.int64)
    b = rng.integers(-2, 3, (6,)).astype(np.int32)
    for name in ("logical_and", "logical_or", "logical_xor"):
        got = getattr(jeet, name)(t(a), t(b))
        assert got.dtype == "bool"
        np.testing.assert_array_equal(got.numpy(), getattr(np, name)(a, b))
    np.testing.assert_array_equal(jeet.logical_not(t(a)).numpy(),
                                  np.logical_not(a))


def test_truth_value():
    assert bool(t(np.array([3.0], np.float32)) > 2)
    assert not bool(t(np.array(0, np.int32)))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t(np.ones(3, np.float32)) > 0)
    # Tensors still hash by identity (sets, dict keys).
    a = t(np.ones(2, np.float32))
    assert a in {a: 1}


def test_promotion(rng):
    # NumPy's promotion between tensors of different dtypes.
    i32 = t(rng.integers(-9, 9, 6).astype(np.int32))
    i64 = t(rng.integers(-9, 9, 6).astype(np.int64))
    f16 = t(rng.standard_normal(6).astype(np.float16))
    f32 = t(rng.standard_normal(6).astype(np.float32))
    b = t(rng.integers(0, 2, 6).astype(np.bool_))
    assert (i32 + i64).dtype == "int64"
    np.testing.assert_array_equal((i32 + i64).numpy(), i32.numpy() + i64.numpy())
    assert (f16 * f32).dtype == "float32"
    np.testing.assert_allclose((f16 * f32).numpy(),
                               f16.numpy().astype(np.float32) * f32.numpy())
    assert (b + i32).dtype == "int32"
    np.testing.assert_array_equal((b + i32).numpy(), b.numpy() + i32.numpy())
    assert (i32 < i64).dtype == "bool"
    # numpy gives float64 for a float with an int32/int64: an error naming
    # both dtypes.
    with pytest.raises(jeet.ShapeError,
                       match="jeet.pow: operands of dtypes float32 and int64: "
                             "NumPy promotes them to float64"):
        jeet.pow(f32, i64)
    with pytest.raises(jeet.ShapeError, match="float16 and int32"):
        f16 + i32
    # Python scalars keep the tensor's dtype, as in NumPy.
    assert (f16 * 2).dtype == "float16" and (i64 + 1).dtype == "int64"
    assert (f32 ** 2).dtype == "float32"


@pytest.mark.parametrize("op,fn", [("add", np.add), ("mul", np.multiply),
                                   ("maximum", np.maximum), ("minimum", np.minimum)])
def test_bool_arithmetic_is_logic_as_numpy(op, fn):
    """+ and maximum of bool tensors are or, * and minimum are and, with a
    bool result, as NumPy's (they were refused by the verifier)."""
    a = np.array([[True, True, False, False]])
    b = np.array([[True], [False]])
    got = getattr(jeet, op)(jeet.tensor(a, dtype="bool"), jeet.tensor(b, dtype="bool"))
    want = fn(a, b)
    assert got.dtype == "bool"
    np.testing.assert_array_equal(got.numpy(), want)
    scalar = getattr(jeet, op)(jeet.tensor(a, dtype="bool"), True).numpy()
    np.testing.assert_array_equal(scalar, fn(a, True))


def test_bool_with_numbers_promotes_as_numpy(rng):
    """A bool tensor with a number that is not a bool computes in NumPy 2's
    dtype (NEP 50): an int gives int64 (a NumPy int32 scalar int32), a float
    float32 (NumPy's float64 is not a Jeet dtype; a NumPy float16 scalar
    float16). It was computed as bool: p + 1 was p | True, p * 0 False,
    p + 2 and p - 1 refused."""
    a = rng.integers(0, 2, (3, 4)).astype(bool)
    p = jeet.tensor(a, dtype="bool")
    cases = {
        "p + 1": (lambda x: x + 1), "p + 2": (lambda x: x + 2),
        "p * 0": (lambda x: x * 0), "3 * p": (lambda x: 3 * x),
        "p - 1": (lambda x: x - 1), "1 - p": (lambda x: 1 - x),
        "p & 1": (lambda x: x & 1), "p | 6": (lambda x: x | 6),
        "p == 2": (lambda x: x == 2), "p < 1": (lambda x: x < 1),
        "p + 1.5": (lambda x: x + 1.5), "p / 2": (lambda x: x / 2),
        "p // 2": (lambda x: x // 2), "p % 2": (lambda x: x % 2),
        "maximum(p, 2)": (lambda x: (jeet if x is p else np).maximum(x, 2)),
        "where(p, p, 5)": (lambda x: (jeet if x is p else np).where(x, x, 5)),
        "p + int32(3)": (lambda x: x + np.int32(3)),
        "p * float16(1.5)": (lambda x: x * np.float16(1.5)),
        "p + True": (lambda x: x + True), "p & True": (lambda x: x & True),
    }
    for name, f in cases.items():
        got, want = f(p).numpy(), f(a)
        dtype = np.float32 if want.dtype == np.float64 else want.dtype
        assert got.dtype == dtype, name
        np.testing.assert_array_equal(got, want.astype(dtype), err_msg=name)
    with pytest.raises(jeet.ArgumentError, match="complex scalar"):
        p + 1j


def test_bool_subtraction_is_refused_as_numpy_does():
    t = jeet.tensor(np.array([True, False]), dtype="bool")
    with pytest.raises(jeet.ShapeError, match="subtracting bool tensors.*logical_xor"):
        t - t


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_bool_reductions_as_numpy(op, rng):
    """A sum of bools counts them (int64), as NumPy's; max and min are any
    and all. They were refused by the verifier."""
    a = rng.integers(0, 2, (4, 6)).astype(bool)
    t = jeet.tensor(a, dtype="bool")
    for axis in (None, 0, -1, (0, 1)):
        got = getattr(jeet, op)(t, axis).numpy()
        want = getattr(np, op)(a, axis)
        assert got.dtype == want.dtype, (op, axis)
        np.testing.assert_array_equal(got, want)
    # Over nothing: any of nothing is False, all of nothing is True.
    empty = jeet.tensor(np.zeros((0, 3), bool), dtype="bool")
    if op in ("max", "min"):
        want = np.zeros(3, bool) if op == "max" else np.ones(3, bool)
        np.testing.assert_array_equal(getattr(jeet, op)(empty, 0).numpy(), want)


def test_mean_of_integers_names_the_cast():
    for dtype in ("int32", "bool"):
        t = jeet.tensor(np.ones(3), dtype=dtype)
        with pytest.raises(jeet.ShapeError, match="needs a float tensor.*cast to float32"):
            jeet.mean(t)


def test_unary_ops_on_integers_and_bools_as_numpy():
    """floor, ceil and round of integers are the integers (NumPy's); abs,
    floor, ceil and relu of bools are the bools; float functions of them
    name the cast (NumPy's results would be float64 or float16), and -bool
    is refused with NumPy's advice. They were refused by the verifier."""
    i = jeet.tensor(np.array([-3, 0, 7], np.int32), dtype="int32")
    for op in ("floor", "ceil", "round"):
        got = getattr(jeet, op)(i)
        assert got.dtype == "int32"
        np.testing.assert_array_equal(got.numpy(), [-3, 0, 7])
    b = jeet.tensor(np.array([True, False]), dtype="bool")
    for op in ("abs", "floor", "ceil", "relu"):
        np.testing.assert_array_equal(getattr(jeet, op)(b).numpy(), [True, False])
    with pytest.raises(jeet.ShapeError, match=r"jeet.exp: needs a float tensor, got int32.*float64: cast to float32"):
        jeet.exp(i)
    with pytest.raises(jeet.ShapeError, match=r"jeet.sin: needs a float tensor, got bool.*float16"):
        jeet.sin(b)
    with pytest.raises(jeet.ShapeError, match="negating a bool tensor.*logical_not"):
        -b
