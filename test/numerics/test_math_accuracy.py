"""Accuracy of exp, log, tanh and erf on the CPU, over their whole f32 range.

jeet-cpu-approximate-math computes them with polynomial approximations (so
they vectorise) instead of libm. These tests bound the error in units in the
last place (ULP) of the correctly rounded f32 result, computed from a float64
reference, on fresh random inputs spread over every exponent, and check the
IEEE special values exactly. Measured maxima over 2 million points per
range: exp 1.0 ULP on [-87, 80], 5.3 on [80, 88.72] (next to the overflow
threshold), 1.8 on [-103.9, -87] (computed as exp(x / 2)^2); log 0.8; tanh
4.7; erf 4.6 (near x = 1.85). The bounds leave room for the points a random
sample has not met.
"""
import math

import numpy as np
import pytest

from jeetrun import run_graph

F32 = np.float32
SMALLEST_SUBNORMAL = float(np.finfo(F32).smallest_subnormal)


def graph(op, n):
    t = f"tensor<{n}xf32>"
    return (f"func.func @main(%x: {t}) -> {t} {{\n"
            f"  %0 = jeet.{op} %x : {t}\n  return %0 : {t}\n}}\n")


def ulp_error(actual, reference):
    """|actual - reference| in ULPs of the f32 nearest the reference."""
    nearest = np.abs(reference.astype(F32))
    spacing = np.spacing(nearest).astype(np.float64)
    spacing = np.maximum(spacing, SMALLEST_SUBNORMAL)
    return np.abs(actual.astype(np.float64) - reference) / spacing


def run(tmp_path, op, x):
    (out,) = run_graph(tmp_path, graph(op, x.size), [x])
    assert out.dtype == F32
    return out


def check_ulps(out, x, reference, bound, what):
    err = ulp_error(out, reference)
    worst = int(np.argmax(err))
    assert err[worst] <= bound, (
        f"{what}: {err[worst]:.1f} ULP at x = {x[worst]!r}: got {out[worst]!r}, "
        f"float64 reference {reference[worst]!r}")


# (op, float64 reference, ranges of x as (kind, low, high), ULP bound)
CASES = {
    "exp": (np.exp, [("uniform", -87.0, 80.0), ("uniform", 80.0, 88.72),
                     # Results below 2^-126 are subnormal.
                     ("uniform", -103.9, -87.0)], {0: 2, 1: 8, 2: 3}),
    "log": (np.log, [("log10", -45.0, 38.5),  # subnormal to the largest
                     ("uniform", 0.5, 2.0)], {0: 2, 1: 2}),
    "tanh": (np.tanh, [("uniform", -10.0, 10.0), ("log10", -40.0, 1.3),
                       ("uniform", -1.0, 1.0)], {0: 8, 1: 8, 2: 8}),
    "erf": (np.vectorize(math.erf), [("uniform", -6.0, 6.0),
                                     ("log10", -40.0, 0.7),
                                     ("uniform", -1.0, 1.0)],
            {0: 8, 1: 8, 2: 6}),
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_ulp_error_over_the_range(tmp_path, rng, op):
    reference, ranges, bounds = CASES[op]
    for i, (kind, low, high) in enumerate(ranges):
        if kind == "uniform":
            x = rng.uniform(low, high, 50000)
        else:
            x = 10.0 ** rng.uniform(low, high, 50000)
            if op in ("tanh", "erf"):
                x *= rng.choice([-1.0, 1.0], x.size)
        x = x.astype(F32)
        out = run(tmp_path, op, x)
        check_ulps(out, x, reference(x.astype(np.float64)), bounds[i],
                   f"{op} on {kind} [{low}, {high}]")


SPECIAL = {
    "exp": [(0.0, 1.0), (-0.0, 1.0), (np.inf, np.inf), (-np.inf, 0.0),
            (np.nan, np.nan), (89.0, np.inf), (-104.0, 0.0), (-200.0, 0.0)],
    "log": [(0.0, -np.inf), (-0.0, -np.inf), (1.0, 0.0), (np.inf, np.inf),
            (-1.0, np.nan), (-1e-45, np.nan), (-np.inf, np.nan),
            (np.nan, np.nan)],
    "tanh": [(0.0, 0.0), (-0.0, -0.0), (np.inf, 1.0), (-np.inf, -1.0),
             (np.nan, np.nan), (20.0, 1.0), (-20.0, -1.0), (1e-30, 1e-30),
             (-1e-45, -1e-45)],
    "erf": [(0.0, 0.0), (-0.0, -0.0), (np.inf, 1.0), (-np.inf, -1.0),
            (np.nan, np.nan), (10.0, 1.0), (-10.0, -1.0),
            (1e-30, math.erf(1e-30)), (-1e-30, -math.erf(1e-30))],
}


@pytest.mark.parametrize("op", sorted(SPECIAL))
def test_special_values(tmp_path, op):
    x = np.array([v for v, _ in SPECIAL[op]], dtype=F32)
    want = np.array([w for _, w in SPECIAL[op]], dtype=F32)
    out = run(tmp_path, op, x)
    for xi, got, expected in zip(x, out, want):
        if np.isnan(expected):
            assert np.isnan(got), f"{op}({xi!r}) = {got!r}, expected NaN"
        else:
            assert got == expected and np.signbit(got) == np.signbit(expected), (
                f"{op}({xi!r}) = {got!r}, expected {expected!r}")


def test_vector_loop_and_scalar_remainder_agree(tmp_path, rng):
    # 37 elements: two vectors of 16 and a remainder of 4 + 1, all through
    # the same approximation, so equal inputs give equal results anywhere.
    value = rng.uniform(-5, 5)
    x = np.full(37, value, dtype=F32)
    for op in ("exp", "tanh"):
        out = run(tmp_path, op, x)
        assert np.all(out == out[0]), f"{op}: {np.unique(out)}"
    out = run(tmp_path, "log", np.abs(x))
    assert np.all(out == out[0]), f"log: {np.unique(out)}"
