#!/usr/bin/env python3
"""Random numeric programs of jeet's Python API against a float64 reference.

The graph-builder fuzzer (fuzz_graph_builder.py) checks that every call
returns or raises as it should, and with --compare-cpu that the GPU agrees
with the CPU; it cannot see a wrong answer both devices share. This fuzzer
builds programs whose every value it also computes in float64 NumPy, on the
same inputs, and checks each executed result against that reference.

A program: one or two input tensors of one dtype (float32, float16,
bfloat16 or int32; values drawn per op from the domain that matters to it,
sometimes spread over many binades, sometimes with NaN, infinities, zeros),
then 1 to 6 ops on the values made so far: elementwise functions, binary ops
with broadcasting and Python scalars, comparisons and logic, reductions and
their arg forms, softmax, matmul, conv2d and poolings, casts, and the data
movement between them (transpose, slices, reshape, broadcast, concat, pad,
take, where), which is what fusion, tiling and the GPU's kernels see. Then
1 to 3 of the values are executed together and compared.

Each value carries its float64 reference and a bound on how far a correct
result may be from it: the rounding of each op (a few units of the dtype's
last place of the result, scaled by the function's own condition |x f'(x)|
for the float32 arithmetic under it; n float32 units of sum |x| for a sum of
n terms, of |A| @ |B| for a matmul), carried through later ops by their
derivatives (evaluated over the interval the input may lie in). Where an
interval meets a pole, a branch cut, a rounding boundary or a comparison's
tie, the value is unknown there and not checked. So an ill-conditioned
chain (a cosine of a large exponential) gives a wide bound instead of a
false report, and a wrong element, an overflow in a narrow type, a lost
NaN or a wrong index does not pass. The edges follow docs/Reliability.md
("Defined behaviour at the edges"): float-to-int casts saturate (NaN to 0),
integer division by 0 is -1, integer remainders by 0 are x, reductions over
nothing are the identity, max and min propagate NaN.

  PYTHONPATH=build/python python3 fuzz/python/fuzz_numerics.py --seconds 60
  JEET_CUDA_DRIVER=build/lib/libjeet_cuda_emulator.so \\
    PYTHONPATH=build/python python3 fuzz/python/fuzz_numerics.py --device gpu

A finding prints the program and the command that replays it (--seed N
--count 1 with the same --device).
"""
import argparse
import faulthandler
import math
import random
import sys
import time
import traceback
import warnings

import numpy as np

import jeet

from fuzz_watchdog import Watchdog

DEVICE = "cpu"
INF = math.inf

# float32 units: the arithmetic under every float op (float16 and bfloat16
# compute in float32 and round their results).
EPS32 = 2.0 ** -24
# Half a unit in the last place (relative), the largest finite value and the
# smallest normal of each float dtype.
EPS = {"float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
MAX = {"float32": float(np.finfo(np.float32).max), "float16": 65504.0,
       "bfloat16": 3.3895313892515355e38}
TINY = {"float32": 1.1754944e-38, "float16": 6.103515625e-05,
        "bfloat16": 1.1754944e-38}
# Sums accumulate in float32 (float16 and bfloat16 too): partial sums past
# this overflow there, in any order, where float64 does not.
F32_MAX = float(np.finfo(np.float32).max)
# Units of the dtype and of float32 that an op's own rounding may cost, over
# the correctly rounded result: the functions are polynomials (CPU) or the
# GPU's own, a few float32 units from the truth (test_math_accuracy.py).
OWN_DTYPE_UNITS = 4
OWN_F32_UNITS = 64

DIMS = [1, 1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 33]
MEDIUM_DIMS = [63, 64, 65, 127, 129, 255, 257, 1000]
MAX_ELEMENTS = 1 << 15


class Finding(Exception):
    """A result that is not within its bound of the float64 reference."""


class Value:
    """A jeet tensor with its float64 reference `ref` and the bound `err`
    on a correct result's distance from it (inf: not checked there)."""

    def __init__(self, tensor, dtype, ref, err, name):
        self.t, self.dtype, self.name = tensor, dtype, name
        self.ref = np.asarray(ref, np.float64)
        self.err = np.broadcast_to(np.asarray(err, np.float64),
                                   self.ref.shape).copy()
        assert tuple(tensor.shape) == self.ref.shape, (name, tensor.shape,
                                                       self.ref.shape)

    @property
    def shape(self):
        return self.ref.shape

    @property
    def is_float(self):
        return self.dtype in EPS


def rounded(x, dtype):
    """float64 values rounded to `dtype` (still float64)."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        if dtype == "float32":
            return x.astype(np.float32).astype(np.float64)
        if dtype == "float16":
            return x.astype(np.float16).astype(np.float64)
        if dtype == "bfloat16":
            a = np.atleast_1d(x.astype(np.float32))
            u = a.view(np.uint32).astype(np.uint64)
            r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32)
            out = r.view(np.float32).astype(np.float64)
            out[np.isnan(a)] = np.nan
            return out.reshape(x.shape)
    if dtype == "int32":
        return wrap32(x)
    return x


def wrap32(x):
    """Integers (int64, or float64 holding them exactly) wrapped to int32 as
    two's complement, as float64."""
    x = np.asarray(x)
    if x.dtype.kind in "iu":
        return (x.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(
            np.int32).astype(np.float64) if x.ndim else \
            float(np.int64(x) & 0xFFFFFFFF) - (2.0 ** 32 if int(x) & 0x80000000 else 0)
    x = x.astype(np.float64)
    return ((x + 2.0 ** 31) % 2.0 ** 32) - 2.0 ** 31


def own(dtype, ref, scale=None):
    """An op's own rounding bound: dtype units of the result, float32 units
    of `scale` (the result and its condition)."""
    if dtype not in EPS:
        return np.zeros_like(ref)
    scale = np.abs(ref) if scale is None else scale
    with np.errstate(all="ignore"):
        e = OWN_DTYPE_UNITS * EPS[dtype] * np.abs(ref) + OWN_F32_UNITS * EPS32 * scale
    # Results below the smallest normal may be subnormal or 0 (float64's
    # units of a sigmoid(-740) = 8e-322 are 0 themselves).
    return np.nan_to_num(e, nan=0.0, posinf=INF) + 2 * TINY[dtype]


def slack(ref, err, dtype):
    """How far a value of `dtype` with reference `ref` and bound `err` may
    be from `ref` once rounded to the dtype (0 where it is exact: every
    exact value is one of the dtype's)."""
    if dtype not in EPS:
        return err
    with np.errstate(all="ignore"):
        s = np.where(err > 0, err + EPS[dtype] * np.abs(ref) + 2 * TINY[dtype], 0.0)
    return np.nan_to_num(s, nan=INF, posinf=INF)  # a NaN reference from inexact values


def may_be_zero(ref, err, dtype):
    """Where a value's truth (x != 0) is not known."""
    s = slack(ref, err, dtype)
    return np.isinf(s) | ((s > 0) & (np.abs(ref) <= s))


def interval(f, x, u):
    """How far f may move over [x - u, x + u] (twice the largest move of
    the endpoints, whose f is NaN where the interval leaves f's domain:
    there the bound is inf)."""
    with np.errstate(all="ignore"):
        fx = f(x)
        moves = []
        for end in (x - u, x + u):
            fe = f(end)
            m = np.array(np.abs(fe - fx))
            m[(np.isnan(fe) | np.isinf(fe)) & ~(fe == fx)] = INF
            moves.append(m)
        m = np.array(2 * np.maximum(*moves))
    m[u == 0] = 0
    m[np.isinf(u)] = INF
    return np.nan_to_num(m, nan=INF, posinf=INF)


def condition(f, x):
    """|x f'(x)|, by a central difference in float64 (0 at 0)."""
    h = 2.0 ** -20
    with np.errstate(all="ignore"):
        c = np.abs(f(x * (1 + h)) - f(x * (1 - h))) / (2 * h)
    return np.nan_to_num(c, nan=0.0, posinf=INF)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x) if np.size(x) else \
        np.zeros_like(x)


def _gelu(x):
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _sigmoid(x):
    with np.errstate(all="ignore"):
        return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))


def _round(x):
    return np.round(x)  # halves to even, as jeet.round


# name -> (jeet function, float64 reference, domain of x, exact?)
# Domains: ("u", lo, hi) uniform; ("pos",) positive over many binades.
UNARY = {
    "neg": (jeet.neg, np.negative, ("u", -4, 4), True),
    "abs": (jeet.abs, np.abs, ("u", -4, 4), True),
    "relu": (jeet.relu, lambda x: np.where(np.isnan(x), x, np.maximum(x, 0.0)),
             ("u", -4, 4), True),
    "floor": (jeet.floor, np.floor, ("u", -40, 40), True),
    "ceil": (jeet.ceil, np.ceil, ("u", -40, 40), True),
    "round": (jeet.round, _round, ("u", -40, 40), True),
    "exp": (jeet.exp, np.exp, ("u", -12, 12), False),
    "log": (jeet.log, np.log, ("pos",), False),
    "sqrt": (jeet.sqrt, np.sqrt, ("pos",), False),
    "rsqrt": (jeet.rsqrt, lambda x: 1 / np.sqrt(x), ("pos",), False),
    "tanh": (jeet.tanh, np.tanh, ("u", -6, 6), False),
    "sigmoid": (jeet.sigmoid, _sigmoid, ("u", -20, 20), False),
    "gelu": (jeet.gelu, _gelu, ("u", -6, 6), False),
    "gelu_tanh": (lambda x: jeet.gelu(x, approximate="tanh"), _gelu_tanh,
                  ("u", -6, 6), False),
    "erf": (jeet.erf, _erf, ("u", -4, 4), False),
    "sin": (jeet.sin, np.sin, ("u", -20, 20), False),
    "cos": (jeet.cos, np.cos, ("u", -20, 20), False),
    "tan": (jeet.tan, np.tan, ("u", -1.5, 1.5), False),
    "asin": (jeet.asin, np.arcsin, ("u", -1, 1), False),
    "acos": (jeet.acos, np.arccos, ("u", -1, 1), False),
    "atan": (jeet.atan, np.arctan, ("u", -20, 20), False),
    "sinh": (jeet.sinh, np.sinh, ("u", -10, 10), False),
    "cosh": (jeet.cosh, np.cosh, ("u", -10, 10), False),
    "asinh": (jeet.asinh, np.arcsinh, ("u", -50, 50), False),
    "acosh": (jeet.acosh, np.arccosh, ("u", 1, 50), False),
    "atanh": (jeet.atanh, np.arctanh, ("u", -1, 1), False),
    # NumPy functions built from Jeet's ops (python/jeet/_numpy_functions.py).
    "log1p": (jeet.log1p, np.log1p, ("u", -0.999, 3), False),
    "expm1": (jeet.expm1, np.expm1, ("u", -12, 12), False),
    "log2": (jeet.log2, np.log2, ("pos",), False),
    "log10": (jeet.log10, np.log10, ("pos",), False),
    "exp2": (jeet.exp2, np.exp2, ("u", -16, 16), False),
    "square": (jeet.square, np.square, ("u", -4, 4), False),
    "sign": (jeet.sign, np.sign, ("u", -4, 4), True),
}
# Where an op's definition cancels: GELU is 0.5 x (1 + erf(x / sqrt(2)))
# computed as written (torch's formula), whose 1 + erf(...) loses the result
# for x below about -5 in float32, as torch's does: float32 units of |x|.
CANCELS = {"gelu": np.abs, "gelu_tanh": np.abs}
INT_UNARY = ["neg", "abs", "relu", "bitwise_not"]

# name -> (jeet function, domain of x, of y)
BINARY = {
    "add": (jeet.add, ("u", -4, 4), ("u", -4, 4)),
    "sub": (jeet.sub, ("u", -4, 4), ("u", -4, 4)),
    "mul": (jeet.mul, ("u", -4, 4), ("u", -4, 4)),
    "div": (jeet.div, ("u", -4, 4), ("u", -4, 4)),
    "maximum": (jeet.maximum, ("u", -4, 4), ("u", -4, 4)),
    "minimum": (jeet.minimum, ("u", -4, 4), ("u", -4, 4)),
    "pow": (jeet.pow, ("pos",), ("u", -3, 3)),
    "fmod": (jeet.fmod, ("u", -40, 40), ("u", -6, 6)),
    "remainder": (jeet.remainder, ("u", -40, 40), ("u", -6, 6)),
}
COMPARE = {"eq": (jeet.eq, np.equal), "ne": (jeet.ne, np.not_equal),
           "lt": (jeet.lt, np.less), "le": (jeet.le, np.less_equal),
           "gt": (jeet.gt, np.greater), "ge": (jeet.ge, np.greater_equal)}
BITWISE = {"bitwise_and": (jeet.bitwise_and, np.bitwise_and),
           "bitwise_or": (jeet.bitwise_or, np.bitwise_or),
           "bitwise_xor": (jeet.bitwise_xor, np.bitwise_xor)}
LOGICAL = {"logical_and": (jeet.logical_and, np.logical_and),
           "logical_or": (jeet.logical_or, np.logical_or),
           "logical_xor": (jeet.logical_xor, np.logical_xor)}
REDUCE = ["sum", "mean", "max", "min", "prod", "argmax", "argmin"]


class Program:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        # Choices added after seeds were recorded (test_fuzz_numerics.py's
        # FINDINGS) draw from a stream of their own, so that the main
        # stream's choices stay where they were: a recorded seed builds the
        # program it found unless one of these choices changes it (none of
        # the recorded seeds' do: their convolutions keep their filters).
        self.later_rng = random.Random(seed ^ 0x5EED)
        self.values = []
        self.log = []

    # -- random choices --------------------------------------------------

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p):
        return self.rng.random() < p

    def shape(self, rank=None):
        rank = self.rng.randint(0, 4) if rank is None else rank
        dims = [self.pick(DIMS) for _ in range(rank)]
        if dims and self.chance(0.3):
            dims[self.rng.randrange(rank)] = self.pick(MEDIUM_DIMS)
        while dims and int(np.prod(dims)) > MAX_ELEMENTS:
            dims[int(np.argmax(dims))] //= 2
        if dims and self.chance(0.03):
            dims[self.rng.randrange(rank)] = 0
        return dims

    def data(self, shape, dtype, domain=("u", -4, 4)):
        """Values of `dtype` (float64 holding them) from `domain`."""
        size = int(np.prod(shape)) if shape else 1
        r = self.np_rng
        if dtype == "bool":
            return r.integers(0, 2, size=size).astype(np.float64).reshape(shape)
        if dtype == "int32":
            hi = self.pick([3, 10, 100, 1000, 2 ** 31 - 1])
            x = r.integers(-hi, hi, size=size, endpoint=True).astype(np.float64)
            if hi == 2 ** 31 - 1 and size:
                x[r.integers(0, size)] = -2.0 ** 31
            return x.reshape(shape)
        if domain[0] == "pos":
            x = np.exp2(r.uniform(-12, 12, size))
        elif domain[0] == "int":
            x = r.integers(domain[1], domain[2], size, endpoint=True).astype(np.float64)
            return rounded(x, dtype).reshape(shape)
        else:
            x = r.uniform(domain[1], domain[2], size)
        if self.chance(0.2):  # many binades
            x = x * np.exp2(r.integers(-10, 11, size))
        if self.chance(0.15):  # integers and halves (ties of round, fmod)
            x = np.round(x * 2) / 2
        if size and self.chance(0.15):
            k = max(1, size // 50)
            spots = r.integers(0, size, k)
            x[spots] = r.choice([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30,
                                 -1e30, 1e-30, 65504.0, 70000.0], k)
        return rounded(x, dtype).reshape(shape)

    def leaf(self, shape, dtype, domain=("u", -4, 4)):
        ref = self.data(shape, dtype, domain)
        if dtype in ("int32", "bool"):
            array = ref.astype(np.int32 if dtype == "int32" else np.bool_)
        else:
            array = ref.astype(np.float32)  # bf16 values are float32's too
        t = jeet.tensor(array, dtype=dtype, device=DEVICE)
        self.log.append(f"v{len(self.values)} = tensor({list(shape)}, {dtype})")
        return self.add(t, dtype, ref, 0.0)

    def iota(self, shape, dtype):
        """jeet.iota: computed in the graph (and folded where small), not
        an argument."""
        axis = self.rng.randint(0, len(shape) - 1)
        ref = np.indices(shape)[axis].astype(np.float64)
        t = jeet.iota(shape, axis, dtype)
        self.add(t, dtype, rounded(ref, dtype), 0.0)
        self.note(f"iota({shape}, axis={axis}, {dtype})")
        return self.values[-1]

    def add(self, t, dtype, ref, err):
        v = Value(t, dtype, ref, err, f"v{len(self.values)}")
        v.err[np.isnan(v.err)] = INF  # a bound of inf - inf: unknown
        if v.is_float:
            # A value past the dtype's largest may be infinite (rounded to
            # the dtype) or not (kept wider inside a kernel): either.
            with np.errstate(all="ignore"):
                v.err[np.isfinite(v.ref) & (np.abs(v.ref) + v.err >= MAX[dtype])] = INF
                v.err[v.err >= MAX[dtype]] = INF
                # An infinity from values that were not exact: inf - inf
                # may have met inside (NaN).
                v.err[np.isinf(v.ref) & (v.err > 0)] = INF
                # Below the smallest normal, a rounded value may be a
                # subnormal or 0 (flushed, or under the smallest subnormal).
                v.err[v.err > 0] += 2 * TINY[dtype]
        self.values.append(v)
        return v

    def note(self, text):
        self.log.append(f"{self.values[-1].name} = {text}")

    # -- ops -------------------------------------------------------------

    def unary(self, x):
        if x.dtype == "int32":
            name = self.pick(INT_UNARY)
            fn = getattr(jeet, name)
            with np.errstate(all="ignore"):
                ref = {"neg": lambda a: wrap32(-a), "abs": lambda a: wrap32(np.abs(a)),
                       "relu": lambda a: np.maximum(a, 0),
                       "bitwise_not": lambda a: -a - 1}[name](x.ref)
            self.add(fn(x.t), "int32", ref, np.where(np.isinf(x.err), INF, 0))
            self.note(f"{name}({x.name})")
            return
        name = self.pick(list(UNARY))
        fn, f, _, exact = UNARY[name]
        with np.errstate(all="ignore"):
            ref = f(x.ref)
        err = np.array(interval(f, x.ref, x.err))
        if name == "tan":  # a pole inside the interval: anything
            lo, hi = (x.ref - x.err - np.pi / 2) / np.pi, (x.ref + x.err - np.pi / 2) / np.pi
            with np.errstate(all="ignore"):
                err[np.floor(lo) != np.floor(hi)] = INF
        if name in ("sin", "cos"):
            err[x.err >= 1] = INF
        if not exact:
            scale = np.abs(ref) + condition(f, x.ref)
            if name in CANCELS:
                scale = scale + CANCELS[name](x.ref)
            err = np.array(err + own(x.dtype, ref, scale))
        self.add(fn(x.t), x.dtype, ref, err)
        self.note(f"{name}({x.name})")

    def operand(self, x, domain):
        """A second operand for x: a tensor of x's dtype broadcasting against
        it (x itself, another value, a new leaf) or a Python scalar."""
        k = self.rng.randint(0, 9) if x.dtype != "int64" else 0
        if k <= 1:
            if x.dtype in ("int32", "int64"):
                s = self.pick([0, 1, -1, 2, 7, -3, 100])
            elif x.dtype == "bool":
                s = self.pick([True, False])
            else:
                s = float(rounded(self.data([], x.dtype, domain), x.dtype))
                if self.chance(0.2):
                    s = self.pick([0.0, 1.0, -1.0, 0.5, 2.0, INF, math.nan])
            return s, float(rounded(s, x.dtype)), 0.0, repr(s)
        if k == 2:
            same = [v for v in self.values if v.dtype == x.dtype and
                    _broadcasts(v.shape, x.shape)]
            if same:
                v = self.pick(same)
                return v.t, v.ref, v.err, v.name
        shape = list(x.shape)
        for i in range(len(shape)):
            if self.chance(0.25):
                shape[i] = 1
            elif shape[i] == 1 and self.chance(0.3):  # both sides broadcast
                shape[i] = self.pick(DIMS)
        if shape and self.chance(0.2):
            shape = shape[self.rng.randint(0, len(shape)):]
        elif len(shape) < 4 and self.chance(0.1):
            shape = [self.pick(DIMS)] + shape
        out = np.broadcast_shapes(tuple(shape), x.shape)
        if int(np.prod(out)) > MAX_ELEMENTS:
            shape = [1] * len(shape)
        v = self.leaf(shape, x.dtype, domain)
        return v.t, v.ref, v.err, v.name

    def binary(self, x):
        name = self.pick(list(BINARY))
        fn, _, ydomain = BINARY[name]
        if name == "pow" and self.chance(0.3):  # negative bases: integral
            ydomain = ("int", -4, 4)                # exponents are defined
        yt, yr, yu, yname = self.operand(x, ydomain)
        if self.chance(0.15) and not isinstance(yt, jeet.Tensor):
            t = fn(yt, x.t)
            a, au, b, bu = yr, yu, x.ref, x.err
            text = f"{name}({yname}, {x.name})"
        else:
            if name == "pow" and x.dtype == "int32" and \
                    not isinstance(yt, jeet.Tensor) and yt < 0:
                # A negative number as an integer tensor's exponent is
                # refused (as NumPy refuses it); a tensor's negative
                # exponents are computed.
                yt, yr, yname = -yt, -yr, repr(-yt)
            t = fn(x.t, yt)
            a, au, b, bu = x.ref, x.err, yr, yu
            text = f"{name}({x.name}, {yname})"
        a, au, b, bu = np.broadcast_arrays(*(np.asarray(v, np.float64)
                                             for v in (a, au, b, bu)))
        ref, err = binary_reference(name, x.dtype, a, au, b, bu)
        self.add(t, x.dtype, ref, err)
        self.note(text)

    def compare(self, x):
        if self.chance(0.3) and x.dtype == "int32":
            name = self.pick(list(BITWISE))
            fn, f = BITWISE[name]
        else:
            name = self.pick(list(COMPARE))
            fn, f = COMPARE[name]
        yt, yr, yu, yname = self.operand(x, ("u", -4, 4))
        a, au, b, bu = np.broadcast_arrays(*(np.asarray(v, np.float64)
                                             for v in (x.ref, x.err, yr, yu)))
        if name in BITWISE:
            ref = f(a.astype(np.int64), b.astype(np.int64)).astype(np.float64)
            ref = wrap32(ref)
            dtype = "int32"
            unknown = np.isinf(au) | np.isinf(bu)
        else:
            with np.errstate(all="ignore"):
                ref = f(a, b).astype(np.float64)
                # A tie within the bounds: either answer.
                au, bu = slack(a, au, x.dtype), slack(b, bu, x.dtype)
                unknown = (np.abs(a - b) <= au + bu) & ((au > 0) | (bu > 0))
                unknown |= (np.isnan(a) | np.isnan(b)) & ((au > 0) | (bu > 0))
                # An operand not known at all (an infinite reference of
                # inexact inputs: -inf - -inf is no distance).
                unknown |= np.isinf(au) | np.isinf(bu)
            dtype = "bool"
        self.add(fn(x.t, yt), dtype, ref, np.where(unknown, INF, 0.0))
        self.note(f"{name}({x.name}, {yname})")

    def logical(self, x):
        name = self.pick(list(LOGICAL) + ["logical_not"])
        xb, xu = x.ref != 0, may_be_zero(x.ref, x.err, x.dtype)
        if name == "logical_not":
            self.add(jeet.logical_not(x.t), "bool", ~xb, np.where(xu, INF, 0))
            self.note(f"logical_not({x.name})")
            return
        fn, f = LOGICAL[name]
        others = [v for v in self.values if _broadcasts(v.shape, x.shape)]
        y = self.pick(others)
        if x.dtype == "bool" and y.dtype == "bool" and self.chance(0.4):
            # NumPy's arithmetic of bools: + and maximum are or, * and
            # minimum are and.
            name = self.pick(["add", "maximum", "mul", "minimum"])
            fn = getattr(jeet, name)
            f = np.logical_or if name in ("add", "maximum") else np.logical_and
        yb, yu = y.ref != 0, may_be_zero(y.ref, y.err, y.dtype)
        ref = f(xb, yb).astype(np.float64)
        unknown = np.broadcast_to(xu, ref.shape) | np.broadcast_to(yu, ref.shape)
        self.add(fn(x.t, y.t), "bool", ref, np.where(unknown, INF, 0))
        self.note(f"{name}({x.name}, {y.name})")

    def where(self, x):
        conds = [v for v in self.values if v.dtype == "bool" and
                 _broadcasts(v.shape, x.shape)]
        if not conds:
            return self.compare(x)
        c = self.pick(conds)
        yt, yr, yu, yname = self.operand(x, ("u", -4, 4))
        cond, cu, a, au, b, bu = np.broadcast_arrays(
            *(np.asarray(v, np.float64) for v in (c.ref, c.err, x.ref, x.err, yr, yu)))
        ref = np.where(cond != 0, a, b)
        err = np.where(cond != 0, au, bu)
        err = np.where(np.isinf(cu), INF, err)
        self.add(jeet.where(c.t, x.t, yt), x.dtype, ref, err)
        self.note(f"where({c.name}, {x.name}, {yname})")

    def reduce(self, x):
        name = self.pick(REDUCE)
        if name == "mean" and x.dtype == "int32":  # float dtypes only
            name = "sum"
        if x.dtype == "bool":
            # NumPy's: sum and prod count in int64, max and min are any, all.
            name = self.pick(["sum", "prod", "max", "min"])
            rank = len(x.shape)
            axis = None if rank == 0 or self.chance(0.3) else self.rng.randint(-rank, rank - 1)
            keepdims = self.chance(0.4)
            t = getattr(jeet, name)(x.t, axis, keepdims)
            f = {"sum": np.sum, "prod": np.prod, "max": np.any, "min": np.all}[name]
            with np.errstate(all="ignore"):
                ref = f(x.ref != 0, axis=axis, keepdims=keepdims).astype(np.float64)
                unknown = np.any(np.isinf(x.err), axis=axis, keepdims=keepdims)
            self.add(t, "int64" if name in ("sum", "prod") else "bool", ref,
                     np.where(unknown, INF, 0.0))
            self.note(f"{name}({x.name}, axis={axis}, keepdims={keepdims})")
            return
        rank = len(x.shape)
        if name in ("argmax", "argmin"):
            if rank == 0 or 0 in x.shape:
                return self.unary(x) if x.dtype != "bool" else None
            axis = None if self.chance(0.3) else self.rng.randint(-rank, rank - 1)
            keepdims = axis is not None and self.chance(0.4)
            t = getattr(jeet, name)(x.t, axis, keepdims)
            ref, err = arg_reference(name, x.ref, x.err, axis, keepdims, x.dtype)
            self.add(t, "int64", ref, err)
            self.note(f"{name}({x.name}, axis={axis}, keepdims={keepdims})")
            return
        if rank == 0 or self.chance(0.2):
            axis = None
        elif self.chance(0.7):
            axis = self.rng.randint(-rank, rank - 1)
        else:
            axis = tuple(sorted(self.rng.sample(range(rank), self.rng.randint(1, rank))))
        keepdims = self.chance(0.4)
        t = getattr(jeet, name)(x.t, axis, keepdims)
        ref, err = reduce_reference(name, x.dtype, x.ref, x.err, axis, keepdims)
        self.add(t, x.dtype, ref, err)
        self.note(f"{name}({x.name}, axis={axis}, keepdims={keepdims})")

    def softmax(self, x):
        if not x.is_float or not x.shape:
            return self.unary(x) if x.dtype != "bool" else None
        axis = self.rng.randint(-len(x.shape), len(x.shape) - 1)
        ax = axis % len(x.shape)
        with np.errstate(all="ignore"):
            m = np.max(x.ref, axis=ax, keepdims=True, initial=-INF)
            e = np.exp(x.ref - m)
            s = np.sum(e, axis=ax, keepdims=True)
            ref = e / s
            umax = np.max(x.err, axis=ax, keepdims=True, initial=0.0)
            prop = np.minimum(1.0, ref * (np.exp(4 * umax) - 1) + (umax > 0) *
                              (np.exp(4 * umax) - 1))
            spread = np.abs(x.ref - m)
            weighted = np.where(ref > 0, ref * spread, 0.0)  # exp(-inf) = 0
            scale = ref * (4 + np.where(ref > 0, spread, 0.0) +
                           np.sum(weighted, axis=ax, keepdims=True)) \
                + np.sum(ref, axis=ax, keepdims=True) * EPS32 * x.shape[ax]
        err = np.nan_to_num(prop, nan=INF, posinf=INF) + own(x.dtype, ref, scale)
        err = np.where(np.isinf(umax), INF, err)  # a row may hold an inf
        kind = self.pick(["softmax", "softmax", "log_softmax", "logsumexp"])
        if kind == "softmax":
            # A row holding an infinity or NaN: NaN in NumPy's formula; checked.
            self.add(jeet.softmax(x.t, axis), x.dtype, ref, err)
            self.note(f"softmax({x.name}, axis={axis})")
            return
        with np.errstate(all="ignore"):
            lse = np.log(s)
            # Each is 2-Lipschitz in the largest input's move; the sum's and
            # the logarithm's rounding are float32 units of |x - max| and
            # of log(sum) (n terms).
            prop = np.where(umax > 0, 2 * umax, 0.0)
            rows_scale = np.max(np.where(np.isfinite(spread), spread, 0.0), axis=ax,
                                keepdims=True, initial=0.0) + np.abs(lse) + 1
        if kind == "log_softmax":
            with np.errstate(all="ignore"):
                ref = x.ref - m - lse
                scale = np.abs(ref) + np.where(np.isfinite(spread), spread, 0.0) \
                    + rows_scale * (x.shape[ax] + 8)
            t = jeet.log_softmax(x.t, axis)
        else:
            with np.errstate(all="ignore"):
                # A row whose maximum is infinite sums to it (+inf with an
                # +inf, -inf when all are -inf); the formula gives NaN there
                # (inf - inf), which would be checked as an exact NaN.
                ref = np.squeeze(np.where(np.isinf(m), m, m + lse), ax)
                scale = np.squeeze(np.abs(m) + rows_scale * (x.shape[ax] + 8), ax)
                prop = np.squeeze(prop, ax)
            umax = np.squeeze(umax, ax)
            t = jeet.logsumexp(x.t, axis)
        err = np.nan_to_num(prop, nan=INF, posinf=INF) + own(x.dtype, ref, scale)
        err = np.where(np.isinf(umax), INF, err)
        self.add(t, x.dtype, ref, err)
        self.note(f"{kind}({x.name}, axis={axis})")

    def matmul(self, x):
        if x.dtype == "bool":
            return self.cast(x)
        if len(x.shape) == 0:
            return self.binary(x)
        k = x.shape[-1]
        n = self.pick(DIMS + MEDIUM_DIMS[:3])
        if self.chance(0.2):
            yshape = [k]
        else:
            batch = list(x.shape[:-2])
            if batch and self.chance(0.3):
                batch = [1] * len(batch)
            yshape = batch + [k, n] if len(x.shape) >= 2 else [k, n]
        if int(np.prod(yshape)) > MAX_ELEMENTS:
            yshape = [k]
        y = self.leaf(yshape, x.dtype, ("u", -2, 2))
        if self.chance(0.3) and len(x.shape) >= 2 and len(yshape) >= 2:
            # B through a transpose that matmul may fold.
            perm = list(range(len(yshape)))
            perm[-1], perm[-2] = perm[-2], perm[-1]
            yt = self.leaf([*yshape[:-2], yshape[-1], yshape[-2]], x.dtype, ("u", -2, 2))
            y = self.add(jeet.transpose(yt.t, perm), x.dtype,
                         np.transpose(yt.ref, perm), np.transpose(yt.err, perm))
            self.note(f"transpose({yt.name}, {perm})")
        t = jeet.matmul(x.t, y.t)
        with np.errstate(all="ignore"):
            ref = np.matmul(x.ref, y.ref)
            scale = np.matmul(np.abs(x.ref), np.abs(y.ref))
            prop = np.matmul(x.err, np.abs(y.ref)) + np.matmul(np.abs(x.ref), y.err) \
                + np.matmul(x.err, y.err)
        prop = np.nan_to_num(prop, nan=INF, posinf=INF)
        if x.dtype == "int32":  # in int64, wrapping as int32 does
            ref = wrap32(np.matmul(x.ref.astype(np.int64), y.ref.astype(np.int64)))
            err = np.where(prop > 0, INF, 0.0)
        else:
            err = np.array(prop + own(x.dtype, ref, scale * (k + 8)))
            # inf * 0 in the sum: NaN in float64 where the inputs hold
            # infinities; the order of the terms decides: not checked.
            err[np.isnan(scale) | (scale >= F32_MAX)] = INF
        self.add(t, x.dtype, ref, np.asarray(err))
        self.note(f"matmul({x.name}, {y.name})")

    def window(self, x):
        if not x.is_float:
            return self.unary(x) if x.dtype == "int32" else self.cast(x)
        if len(x.shape) != 4 or 0 in x.shape or self.chance(0.3):
            shape = [self.pick([1, 2]), self.pick([1, 2, 3, 4]),
                     self.pick([1, 3, 5, 8, 17, 33]), self.pick([1, 4, 7, 16, 31])]
            x = self.leaf(shape, x.dtype)
        n, c, h, w = x.shape
        kh, kw = self.pick([1, 2, 3]), self.pick([1, 2, 3])
        sh, sw = self.pick([1, 1, 2]), self.pick([1, 2])
        dh, dw = self.pick([1, 1, 2]), 1
        ph, pw = self.pick([0, 0, 1]), self.pick([0, 1])
        kind = self.rng.randint(0, 2)
        if kind == 1:  # padding at most half the window (torch's rule)
            ph, pw = min(ph, kh // 2), min(pw, kw // 2)
        if kind == 2:
            ph, pw, dh = min(ph, kh // 2), min(pw, kw // 2), 1
        oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
        ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
        if oh < 1 or ow < 1:
            return self.unary(x)
        if kind == 0:
            groups = self.pick([1, 1, c])
            out = self.pick([1, 2, 4]) * groups
            wgt = self.leaf([out, c // groups, kh, kw], x.dtype, ("u", -1, 1))
            bias = self.leaf([out], x.dtype, ("u", -1, 1)) if self.chance(0.5) else None
            # A filter known at compile time (an ONNX initialiser's) takes
            # other decompositions: depthwise taps as constants, a pointwise
            # convolution of few positions transposed.
            if groups == 1 and self.later_rng.random() < 0.2:
                out = self.later_rng.choice([16, 24])
                wgt = self.leaf([out, c, kh, kw], x.dtype, ("u", -1, 1))
                bias = self.leaf([out], x.dtype, ("u", -1, 1)) if bias else None
            constant = x.dtype in ("float32", "float16") and self.later_rng.random() < 0.4
            filt = np.asarray(wgt.t.numpy()) if constant else wgt.t
            t = jeet.conv2d(x.t, filt, bias.t if bias else None, (sh, sw),
                            (ph, pw), (dh, dw), groups)
            win = windows(x.ref, kh, kw, sh, sw, ph, pw, dh, dw, 0.0)
            uwin = windows(x.err, kh, kw, sh, sw, ph, pw, dh, dw, 0.0)
            ref, scale, prop = conv_reference(win, uwin, wgt.ref, wgt.err, groups)
            depth = (c // groups) * kh * kw + 8
            if bias:
                # jeet.conv2d adds the bias as an op of its own: the sum is
                # rounded to the dtype first, and may pass its largest value
                # there (an infinity the bias does not bring back, where
                # the sum with the bias is finite: not checked).
                rounding = 2 * EPS[x.dtype] * np.abs(ref)
                pre_err = prop + own(x.dtype, ref, scale * depth)
                with np.errstate(invalid="ignore"):
                    overflows = np.abs(ref) + pre_err + rounding >= MAX[x.dtype]
                ref = ref + bias.ref[None, :, None, None]
                scale = scale + np.abs(bias.ref)[None, :, None, None]
                prop = prop + bias.err[None, :, None, None]
            err = prop + own(x.dtype, ref, scale * depth) + (rounding if bias else 0)
            err[np.isnan(scale) | (scale >= F32_MAX)] = INF
            if bias:
                err[overflows] = INF
            self.add(t, x.dtype, ref, err)
            self.note(f"conv2d({x.name}, {'constant ' if constant else ''}{wgt.name}, "
                      f"{bias.name if bias else None}, "
                      f"stride=({sh}, {sw}), padding=({ph}, {pw}), "
                      f"dilation=({dh}, {dw}), groups={groups})")
            return
        if kind == 1:
            t = jeet.max_pool2d(x.t, (kh, kw), (sh, sw), (ph, pw), (dh, dw))
            win = windows(x.ref, kh, kw, sh, sw, ph, pw, dh, dw, -INF)
            uwin = windows(x.err, kh, kw, sh, sw, ph, pw, dh, dw, 0.0)
            with np.errstate(all="ignore"):
                ref = np.max(win, axis=(-2, -1))
                ref[np.any(np.isnan(win), axis=(-2, -1))] = np.nan
            err = np.max(uwin, axis=(-2, -1))
            self.add(t, x.dtype, ref, err)
            self.note(f"max_pool2d({x.name}, ({kh}, {kw}), ({sh}, {sw}), "
                      f"({ph}, {pw}), ({dh}, {dw}))")
            return
        include = self.chance(0.5)
        t = jeet.avg_pool2d(x.t, (kh, kw), (sh, sw), (ph, pw), include)
        win = windows(x.ref, kh, kw, sh, sw, ph, pw, 1, 1, 0.0)
        uwin = windows(x.err, kh, kw, sh, sw, ph, pw, 1, 1, 0.0)
        if include:
            count = kh * kw
        else:
            ones = windows(np.ones((1, 1, h, w)), kh, kw, sh, sw, ph, pw, 1, 1, 0.0)
            count = np.sum(ones, axis=(-2, -1))
        with np.errstate(all="ignore"):
            ref = np.sum(win, axis=(-2, -1)) / count
            scale = np.sum(np.abs(win), axis=(-2, -1)) / count
            prop = np.sum(uwin, axis=(-2, -1)) / count
        err = prop + own(x.dtype, ref, scale * (kh * kw + 8))
        err[np.isnan(scale) | (scale * count >= F32_MAX)] = INF  # the window's sum
        self.add(t, x.dtype, ref, err)
        self.note(f"avg_pool2d({x.name}, ({kh}, {kw}), ({sh}, {sw}), ({ph}, {pw}), "
                  f"count_include_pad={include})")

    def cast(self, x):
        to = self.pick(["float32", "float16", "bfloat16", "int32", "bool"])
        if to == x.dtype or x.dtype == "int64":
            return self.move(x)
        a, u = x.ref, x.err
        with np.errstate(all="ignore"):
            if to == "bool":
                ref = (a != 0).astype(np.float64)
                err = np.where(may_be_zero(a, u, x.dtype), INF, 0.0)
            elif to == "int32":
                def conv(v):
                    r = np.trunc(v)
                    r = np.clip(r, -2.0 ** 31, 2.0 ** 31 - 1)
                    return np.where(np.isnan(v), 0.0, r)
                ref = conv(a)
                err = np.where(conv(a - u) != conv(a + u), INF, 0.0)
                err[np.isinf(u)] = INF
            else:
                ref = rounded(a, to) if x.dtype != "bool" else a
                # Rounding moves a value half a unit of the new dtype; a
                # bound carried over widens by as much (double rounding
                # through float32 too).
                err = np.array(u + 2 * EPS[to] * np.abs(a))
                err[(u == 0)] = 0.0
        self.add(jeet.cast(x.t, to), to, ref, err)
        self.note(f"cast({x.name}, {to})")

    def move(self, x):
        """Data movement: exact ops, the values' bounds moved with them."""
        rank = len(x.shape)
        k = self.rng.randint(0, 6)
        if k == 0 and rank >= 2:
            perm = list(range(rank))
            self.rng.shuffle(perm)
            self.add(jeet.transpose(x.t, perm), x.dtype,
                     np.transpose(x.ref, perm), np.transpose(x.err, perm))
            self.note(f"transpose({x.name}, {perm})")
        elif k == 1 and rank >= 1:
            key = []
            for d in x.shape:
                if d > 0 and self.chance(0.2):
                    key.append(self.rng.randint(-d, d - 1))
                else:
                    key.append(slice(self.pick([None, 0, 1, -3]), self.pick([None, -1, 40]),
                                     self.pick([None, 1, 2, 3, -1])))
                if self.chance(0.1):
                    key.append(None)
            if self.chance(0.2):
                at = self.rng.randint(0, len(key))
                key = key[:at] + [Ellipsis] + key[at + self.rng.randint(0, 1):]
            key = tuple(key)
            self.add(x.t[key], x.dtype, x.ref[key], x.err[key])
            self.note(f"{x.name}[{key}]")
        elif k == 2:
            shape = [self.pick([1, 2, 3])] + list(x.shape)
            self.add(jeet.broadcast_to(x.t, shape), x.dtype,
                     np.broadcast_to(x.ref, shape), np.broadcast_to(x.err, shape))
            self.note(f"broadcast_to({x.name}, {shape})")
        elif k == 3 and rank >= 1 and x.ref.size:  # -1 of no elements: ambiguous
            shape = [-1] if self.chance(0.5) else list(x.shape[:-2]) + [-1]
            self.add(jeet.reshape(x.t, shape), x.dtype,
                     x.ref.reshape(shape), x.err.reshape(shape))
            self.note(f"reshape({x.name}, {shape})")
        elif k == 4 and rank >= 1:
            axis = self.rng.randint(0, rank - 1)
            others = [v for v in self.values if v.dtype == x.dtype and
                      len(v.shape) == rank and all(
                          a == b for i, (a, b) in enumerate(zip(v.shape, x.shape))
                          if i != axis)]
            y = self.pick(others)
            self.add(jeet.concatenate([x.t, y.t], axis), x.dtype,
                     np.concatenate([x.ref, y.ref], axis),
                     np.concatenate([x.err, y.err], axis))
            self.note(f"concatenate([{x.name}, {y.name}], {axis})")
        elif k == 5 and rank >= 1:
            width = [(self.pick([0, 1, 2]), self.pick([0, 1, 3])) for _ in range(rank)]
            value = 0 if x.dtype in ("int32", "int64", "bool") else \
                self.pick([0.0, -1.5, 2.0])
            self.add(jeet.pad(x.t, width, value), x.dtype,
                     np.pad(x.ref, width, constant_values=value),
                     np.pad(x.err, width, constant_values=0.0))
            self.note(f"pad({x.name}, {width}, {value})")
        elif k == 6 and rank >= 1:
            axis = self.rng.randint(0, rank - 1)
            n = x.shape[axis]
            if n == 0:
                return self.move(x)
            ishape = self.pick([[1], [2], [5], [3, 2], [2, 1]])
            idx = np.array([self.rng.randint(-n, n - 1) for _ in range(int(np.prod(ishape)))],
                           np.int32).reshape(ishape)
            it = jeet.tensor(idx, dtype=self.pick(["int32", "int64"]), device=DEVICE)
            self.add(jeet.take(x.t, it, axis), x.dtype,
                     np.take(x.ref, idx, axis), np.take(x.err, idx, axis))
            self.note(f"take({x.name}, {idx.tolist()}, {axis})")
        else:
            self.add(jeet.neg(x.t) if x.dtype != "bool" else jeet.logical_not(x.t),
                     x.dtype, wrap32(-x.ref) if x.dtype == "int32" else
                     (1 - x.ref if x.dtype == "bool" else -x.ref), x.err)
            self.note(f"neg({x.name})")

    # -- the program -----------------------------------------------------

    def step(self):
        recent = self.values[-3:]
        x = self.pick(recent) if self.chance(0.8) else self.pick(self.values)
        if x.dtype == "int64":  # an argmax: only moved or compared
            return self.move(x) if self.chance(0.5) else self.compare(x)
        if x.dtype == "bool":
            k = self.rng.randint(0, 4)
            return [self.logical, self.where, self.cast, self.move, self.reduce][k](x)
        ops = [self.unary, self.unary, self.binary, self.binary, self.reduce,
               self.softmax, self.matmul, self.window, self.compare,
               self.logical, self.where, self.cast, self.move, self.move]
        self.pick(ops)(x)

    def build(self):
        dtype = self.pick(["float32", "float32", "float16", "bfloat16", "int32"])
        domain = self.pick([UNARY[n][2] for n in UNARY] + [("u", -4, 4)] * 4)
        shape = self.shape()
        if shape and 0 not in shape and self.chance(0.1):
            self.iota(shape, dtype)
        else:
            self.leaf(shape, dtype, domain)
        for _ in range(self.rng.randint(1, 6)):
            self.step()

    def run(self):
        self.build()
        lazy = [v for v in self.values if not v.t.is_materialized]
        if not lazy:
            return 0
        chosen = list({id(v): v for v in
                       [lazy[-1]] + [self.pick(lazy) for _ in range(self.rng.randint(0, 2))]
                       }.values())
        self.log.append(f"execute({', '.join(v.name for v in chosen)})")
        jeet.execute(*(v.t for v in chosen))
        for v in chosen:
            problem = check(v.t.numpy(), v)
            if problem:
                raise Finding(f"{v.name} ({v.dtype}{list(v.shape)}): {problem}")
        return len(chosen)


def _broadcasts(a, b):
    """Whether shape a broadcasts to shape b."""
    if len(a) > len(b):
        return False
    return all(x == y or x == 1 for x, y in zip(a[::-1], b[::-1]))


def integer_power32(a, b):
    """a ** b of int32 values (int64 arrays) wrapped to 32 bits, by squaring
    in uint64 (whose wrapping keeps the low 32 bits exact); b < 0 gives
    1 / a ** -b rounded toward zero (1, -1 or 1 for a = -1, else 0)."""
    square = a.astype(np.uint64)
    exponent = np.where(b < 0, 0, b).astype(np.uint64)
    result = np.ones_like(square)
    for _ in range(31):
        result = np.where(exponent & np.uint64(1), result * square, result)
        square = square * square
        exponent = exponent >> np.uint64(1)
    result = (result & np.uint64(0xFFFFFFFF)).astype(np.int64)
    negative = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 1, -1, 1), 0))
    return np.where(b < 0, negative, result)


def binary_reference(name, dtype, a, au, b, bu):
    """The float64 result of a binary op and its bound."""
    if dtype == "int32":
        ai, bi = a.astype(np.int64), b.astype(np.int64)
        unknown = np.isinf(au) | np.isinf(bu)
        with np.errstate(all="ignore"):
            if name == "div":
                q = np.where(bi == 0, -1, np.trunc(a / np.where(bi == 0, 1, b)))
                ref = np.where((ai == -2 ** 31) & (bi == -1), -2.0 ** 31, q)
            elif name in ("fmod", "remainder"):
                safe = np.where(bi == 0, 1, bi)
                r = np.fmod(ai, safe) if name == "fmod" else np.remainder(ai, safe)
                ref = np.where(bi == 0, ai, r).astype(np.float64)
            elif name == "pow":
                ref = integer_power32(ai, bi)
            else:
                ref = {"add": a + b, "sub": a - b, "mul": ai * bi,
                       "maximum": np.maximum(a, b), "minimum": np.minimum(a, b)}[name]
        return wrap32(ref), np.where(unknown, INF, 0.0)
    with np.errstate(all="ignore"):
        if name in ("add", "sub"):
            ref = a + b if name == "add" else a - b
            err = au + bu + own(dtype, ref, np.abs(a) + np.abs(b))
        elif name == "mul":
            ref = a * b
            err = np.abs(a) * bu + np.abs(b) * au + au * bu + own(dtype, ref)
        elif name == "div":
            ref = a / b
            err = np.array((np.abs(a) * bu + np.abs(b) * au) /
                           (np.abs(b) * (np.abs(b) - bu)))
            err[(bu == 0) & (au == 0)] = 0
            err[bu >= np.abs(b)] = INF
            err = err + own(dtype, ref)
        elif name in ("maximum", "minimum"):
            f = np.maximum if name == "maximum" else np.minimum
            ref = f(a, b)
            err = np.maximum(au, bu)
        elif name == "pow":
            ref = np.power(a, b)
            moves = [np.abs(np.power(a + sa * au, b + sb * bu) - ref)
                     for sa in (-1, 1) for sb in (-1, 1)]
            err = np.array(2 * np.maximum.reduce(moves))
            err[(au == 0) & (bu == 0)] = 0
            err[(au > 0) & (np.abs(a) <= au)] = INF  # the base may cross 0
            err = np.nan_to_num(err, nan=INF, posinf=INF)
            cond = np.abs(ref) * (np.abs(b) + np.abs(b * np.log(np.abs(a))) + 1)
            err = err + own(dtype, ref, cond)
        else:  # fmod, remainder
            f = np.fmod if name == "fmod" else np.remainder
            ref = f(a, b)
            # A quotient near an integer: the remainder may wrap by |b|.
            q = a / b
            near = (au > 0) | (bu > 0)
            width = (au + np.abs(q) * bu) / np.abs(b)
            jumps = np.floor(q - width) != np.floor(q + width)
            # Away from a jump, a - k * b with k = floor(q) (remainder) or
            # trunc(q) (fmod) fixed: b's bound moves the result by |k| of it
            # (|q| + 1 for a negative q's floor: remainder(0.0007, -0.033)
            # is 0.0007 + b, all of b's error).
            k = np.floor(q) if name == "remainder" else np.trunc(q)
            err = np.where(near, au + np.abs(k) * bu + 4 * np.abs(b) * EPS32, 0.0)
            err[near & jumps] = INF
            # A divisor whose bound reaches 0 (an f16 softmax's 1e-13,
            # flushed to 0) may be 0 in the dtype: the result may be NaN.
            err[(bu > 0) & (bu >= np.abs(b))] = INF
            # fmod is exact in IEEE arithmetic; allow the float32 units of
            # x for implementations that divide (x - trunc(x / y) * y).
            err = np.array(err + own(dtype, ref, np.abs(a) + np.abs(b)))
            # Halfway cases of the dtype's rounding of a remainder equal to
            # b (remainder's r + b rounding to b): either side.
            err[(name == "remainder") & (np.abs(ref) >= np.abs(b) * (1 - 4 * EPS[dtype]))] = INF
    err = np.nan_to_num(err, nan=INF, posinf=INF)
    return np.asarray(ref), np.asarray(err)


def reduce_reference(name, dtype, x, u, axis, keepdims):
    ax = axis
    n = x.size if axis is None else int(np.prod([x.shape[a] for a in
                                                  (axis if isinstance(axis, tuple) else (axis,))]))
    with np.errstate(all="ignore"):
        if name in ("sum", "mean"):
            ref = np.sum(x, axis=ax, keepdims=keepdims)
            scale = np.sum(np.abs(x), axis=ax, keepdims=keepdims)
            prop = np.sum(u, axis=ax, keepdims=keepdims)
            if name == "mean":
                ref, scale, prop = ref / n, scale / n, prop / n
            if dtype == "int32":
                ref = wrap32(ref)
                return ref, np.where(prop > 0, INF, 0.0)
            err = prop + own(dtype, ref, scale * (n + 8))
            total = scale * n if name == "mean" else scale
            err = np.where(np.isnan(scale) | (total >= F32_MAX), INF, err)
            return ref, err
        if name in ("max", "min"):
            f = np.max if name == "max" else np.min
            identity = -INF if name == "max" else INF
            if dtype == "int32":
                identity = -2.0 ** 31 if name == "max" else 2.0 ** 31 - 1
            ref = f(x, axis=ax, keepdims=keepdims, initial=identity)
            err = np.max(u, axis=ax, keepdims=keepdims, initial=0.0)
            if dtype == "int32":
                err = np.where(err > 0, INF, 0.0)
            return ref, err
        # prod
        ref = np.prod(x, axis=ax, keepdims=keepdims)
        if dtype == "int32":
            ref = _prod_wrapped(x, ax, keepdims)
            prop = np.max(u, axis=ax, keepdims=keepdims, initial=0.0)
            return ref, np.where(prop > 0, INF, 0.0)
        rel = np.sum(u / np.abs(x), axis=ax, keepdims=keepdims)
        prop = np.abs(ref) * (np.exp(2 * rel) - 1)
        prop = np.where(np.sum(u >= np.abs(x), axis=ax, keepdims=keepdims) > 0, INF,
                        np.nan_to_num(prop, nan=0.0, posinf=INF))
        err = prop + own(dtype, ref, np.abs(ref) * (n + 8))
        # Partial products that may leave the range in some order: the
        # order decides between +-inf, 0 and NaN (docs/Reliability.md).
        a = np.abs(x)
        big = np.prod(np.maximum(a, 1.0), axis=ax, keepdims=keepdims)
        small = np.prod(np.where(a > 0, np.minimum(a, 1.0), 1.0), axis=ax,
                        keepdims=keepdims)
        leaves = (big >= MAX[dtype]) | (small <= TINY[dtype])
        return ref, np.where(leaves, INF, err)


def _prod_wrapped(x, axis, keepdims):
    """The product of int32 values over `axis`, wrapping as int32 does."""
    axes = tuple(range(x.ndim)) if axis is None else \
        tuple(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    kept = tuple(d for d in range(x.ndim) if d not in axes)
    xi = np.transpose(x.astype(np.int64), kept + axes)
    lead = tuple(x.shape[d] for d in kept)
    count = int(np.prod([x.shape[d] for d in axes]))
    flat = xi.reshape(lead + (count,))
    acc = np.ones(lead, np.int64)
    for j in range(count):
        acc = (acc * (flat[..., j] & 0xFFFFFFFF)) & 0xFFFFFFFF
    out = wrap32(acc)
    if keepdims:
        out = np.reshape(out, tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
    return np.asarray(out, np.float64)


def arg_reference(name, x, u, axis, keepdims, dtype):
    """numpy's argmax/argmin (first on ties, first NaN); unknown where
    another element is within the bounds of the extreme one. Values past the
    dtype's largest finite one are infinite in it (exp(100.3) and exp(903)
    are both +inf in float32, a tie, where float64 orders them), and values
    whose bound reaches it may be."""
    flat = axis is None
    xs, us = (x.reshape(-1), u.reshape(-1)) if flat else (x, u)
    ax = 0 if flat else axis % x.ndim
    big = MAX.get(dtype)
    with np.errstate(all="ignore"):
        maybe_inf = np.zeros(xs.shape, bool)
        if big is not None:
            xs = np.where(np.abs(xs) > big, np.copysign(np.inf, xs), xs)
            maybe_inf = np.abs(xs) + us >= big
    f = np.argmax if name == "argmax" else np.argmin
    ref = f(xs, axis=ax)
    extreme = np.take_along_axis(xs, np.expand_dims(ref, ax), ax)
    uext = np.take_along_axis(us, np.expand_dims(ref, ax), ax)
    inf_ext = np.take_along_axis(maybe_inf, np.expand_dims(ref, ax), ax)
    with np.errstate(all="ignore"):
        close = (np.abs(xs - extreme) <= us + uext) | (xs == extreme) | \
            (maybe_inf & inf_ext & (np.sign(xs) == np.sign(extreme)))
        rivals = np.sum(close & ~np.isnan(xs), axis=ax) > 1
        anynan = np.any(np.isnan(xs), axis=ax)
        moved = np.any(us > 0, axis=ax)
    err = np.where((rivals & moved) | (anynan & moved), INF, 0.0)
    if keepdims:
        ref, err = np.expand_dims(ref, ax), np.expand_dims(err, ax)
    return ref.astype(np.float64), err


def windows(x, kh, kw, sh, sw, ph, pw, dh, dw, fill):
    """(N, C, OH, OW, kh, kw): each output position's window of x padded
    with `fill`."""
    n, c, h, w = x.shape
    xp = np.full((n, c, h + 2 * ph, w + 2 * pw), fill, np.float64)
    xp[:, :, ph:ph + h, pw:pw + w] = x
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.empty((n, c, oh, ow, kh, kw))
    for i in range(kh):
        for j in range(kw):
            out[..., i, j] = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                                j * dw:j * dw + sw * (ow - 1) + 1:sw]
    return out


def conv_reference(win, uwin, w, uw, groups):
    n, c, oh, ow, kh, kw = win.shape
    out = w.shape[0]
    cg, og = c // groups, out // groups
    ref = np.empty((n, out, oh, ow))
    scale, prop = np.empty_like(ref), np.empty_like(ref)
    with np.errstate(all="ignore"):
        for g in range(groups):
            xs = win[:, g * cg:(g + 1) * cg]
            us = uwin[:, g * cg:(g + 1) * cg]
            ws, uws = w[g * og:(g + 1) * og], uw[g * og:(g + 1) * og]
            sl = slice(g * og, (g + 1) * og)
            ref[:, sl] = np.einsum("ncyxij,ocij->noyx", xs, ws)
            scale[:, sl] = np.einsum("ncyxij,ocij->noyx", np.abs(xs), np.abs(ws))
            prop[:, sl] = np.einsum("ncyxij,ocij->noyx", us, np.abs(ws)) + \
                np.einsum("ncyxij,ocij->noyx", np.abs(xs), uws) + \
                np.einsum("ncyxij,ocij->noyx", us, uws)
    return ref, scale, np.nan_to_num(prop, nan=INF, posinf=INF)


def check(out, v):
    """None if the executed `out` is within v's bounds of its reference,
    else what differs where."""
    ref, err = v.ref, v.err
    if out.shape != ref.shape:
        return f"shape {out.shape}, expected {ref.shape}"
    got = out.astype(np.float64)
    checked = ~np.isinf(err)
    if not v.is_float:
        bad = checked & (got != ref)
    else:
        big = MAX[v.dtype]
        with np.errstate(all="ignore"):
            dist = np.abs(got - ref)
            # The result's own rounding to the dtype, and values under the
            # smallest normal (flushed to zero on some targets).
            allowed = err + np.where(np.isfinite(ref), EPS[v.dtype] * np.abs(ref), 0.0) \
                + 2 * TINY[v.dtype]
            ok = dist <= allowed
            ok |= (got == ref)  # infinities
            ok |= np.isnan(got) & np.isnan(ref)
            # Past the largest finite value within the bound: infinity.
            ok |= np.isinf(got) & (np.sign(got) == np.sign(ref)) & \
                (np.abs(ref) + allowed >= big)
            # A reference overflowing where the inputs were not exact.
            ok |= np.isinf(ref) & ~np.isnan(got) & (err > 0) & \
                (np.sign(got) == np.sign(ref))
            ok |= np.isnan(ref) & (err > 0)
        bad = checked & ~ok
    if not bad.any():
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    count = int(bad.sum())
    return (f"{count} of {ref.size} elements beyond their bound; at {where}: "
            f"got {got[where]!r}, float64 reference {ref[where]!r} "
            f"(bound {err[where]:.3g})")


def run_seed(seed):
    program = Program(seed)
    try:
        return program.run()
    except Finding as finding:
        raise Finding(f"{finding}\nprogram:\n  " + "\n  ".join(program.log)) from None
    except Exception as error:  # Jeet's or the fuzzer's: the trace says
        raise Finding(f"{type(error).__name__}: {error}\n"
                      + "".join(traceback.format_exception(error)[-6:])
                      + "program:\n  " + "\n  ".join(program.log)) from error


def main():
    faulthandler.enable()
    warnings.simplefilter("ignore", RuntimeWarning)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                        help="where the programs run (gpu: a GPU or the "
                        "emulator, JEET_CUDA_DRIVER)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--stall-seconds", type=float, default=300,
                        help="report a program still running after this "
                        "many seconds as a finding (exit status 3)")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device
    if DEVICE == "gpu" and not jeet.gpu_available():
        parser.error("--device gpu: no GPU answers (set JEET_CUDA_DRIVER to "
                     "build/lib/libjeet_cuda_emulator.so for the emulator)")
    start = time.monotonic()
    watchdog = Watchdog(args.stall_seconds)
    count = results = 0
    while (count < args.count) if args.count is not None else \
            (time.monotonic() - start < args.seconds):
        seed = args.seed + count
        if args.verbose:
            print(f"program seed {seed}", flush=True)
        jeet.seed(seed)
        replay = ("replay: PYTHONPATH=build/python python3 "
                  f"fuzz/python/fuzz_numerics.py --seed {seed} --count 1"
                  + (" --device gpu" if DEVICE == "gpu" else ""))
        watchdog.start(seed, replay)
        try:
            results += run_seed(seed)
        except Finding as finding:
            print(f"FINDING in program seed {seed}: {finding}")
            print(replay)
            return 1
        finally:
            watchdog.stop()
        count += 1
    print(f"fuzz_numerics: {count} programs (seeds {args.seed}.."
          f"{args.seed + count - 1}; {results} results checked against "
          f"float64) on the {DEVICE} in {time.monotonic() - start:.1f} s, "
          "no finding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
