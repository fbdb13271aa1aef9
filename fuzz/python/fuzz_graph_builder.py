#!/usr/bin/env python3
"""Fuzzer of the Python graph builder: random programs against jeet's API.

Each program creates tensors (random shapes, including 0- and 1-sized and
abusive dimensions, random dtypes and data), applies random ops with random
operands and attributes (scalars that do and do not fit, complex numbers,
numpy scalars, lists, wrong types, bad axes, permutations, shapes and dtypes)
and executes some of the results. Every call must either return or raise one
of the errors a caller can expect (jeet.JeetError and its subclasses,
TypeError, ValueError, OverflowError); an executed tensor must come back with
the shape and dtype the lazy tensor declared. Anything else (another
exception, a CompilationError for a graph whose every op was accepted, a
crash, a program still running after --stall-seconds) is a finding.

Two drivers:
  fuzz_graph_builder.py [--seed S] [--count N | --seconds T] [--execute-every K]
      a seeded random driver: program k of a run uses seed S+k; a failure
      prints the one-line command that replays it. With --execute-every K
      (default 1: every program), only the programs whose seed is a multiple
      of K are compiled and run; the others stop after building their graph
      (the C++ graph builder, MLIR's verifier and printer, the structural
      key), which is about 40 times cheaper than compiling it: long runs
      cover many more programs of the builder that way, and the compiler
      behind it has fuzz targets of its own (jeet-fuzz-mlir-cpu/-gpu).
      With --device gpu the programs run on a GPU, or on the GPU emulator
      (JEET_CUDA_DRIVER=build/lib/libjeet_cuda_emulator.so); with
      --compare-cpu as well, each compiled program also runs on the CPU, and
      a GPU result that differs from the CPU's beyond its dtype's tolerance
      (NaN against a number included) is a finding, as is a call that one
      device accepts and the other rejects. jeet.rand draws from the
      program's seed, so both runs see the same data, and the default
      device ('auto', taken by a tensor made from NumPy data alone) is the
      run's own: the CPU run is the program on a machine without a GPU. With --check-key,
      each compiled program runs again with the structural key set aside
      (its graph printed and compiled by its text, not reused from an earlier
      graph of the same key), and the results must agree.
  fuzz_graph_builder.py --atheris [libFuzzer flags...]
      coverage-guided with atheris (pip install atheris), libFuzzer's flags.

Run with PYTHONPATH=build/python.
"""
import argparse
import contextlib
import faulthandler
import math
import os
import random
import sys
import time

import numpy as np
import warnings

import jeet
from jeet import _device, _tensor

from fuzz_watchdog import Watchdog

ALLOWED = (jeet.JeetError, TypeError, ValueError, OverflowError)
# Where the programs' tensors live (--device): "gpu" needs a CUDA driver,
# a GPU or the emulator (JEET_CUDA_DRIVER=build/lib/libjeet_cuda_emulator.so).
DEVICE = "cpu"

DTYPES = ["float32", "float16", "bfloat16", "int32"]
BAD_DTYPES = ["float64", "int64", "complex64", "bool", "", "f8", None, 3]
SMALL_DIMS = [0, 1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 13, 16, 31, 33]
# Dimensions no tensor can have: negative, over Jeet's size limit, or
# overflowing an int64 element or byte count on their own or together.
ABUSIVE_DIMS = [-1, -2**63, 2**40 + 1, 2**61, 2**62, 2**63 - 1, 2**63, 2**64,
                2**100]
SCALARS = [0, 1, -1, 2, 0.5, -3.25, 2**31 - 1, 2**31, -2**31 - 1, 2**40,
           2**63, 2**70, -2**70, 1e10, -1e10, 1e39, 65504.0, 65520.0,
           float("nan"), float("inf"), float("-inf"), True, False, 1 + 2j,
           complex(3, 0), np.float64(2.5), np.float32(-1.5), np.float16(7),
           np.int64(2**40), np.int32(-7), np.int8(3), np.uint64(2**64 - 1),
           np.bool_(True), np.complex64(1j)]
JUNK = [None, "x", b"\x00", object(), [1, [2]], {"a": 1}, (), slice(1)]

BINARY = [jeet.add, jeet.sub, jeet.mul, jeet.div, jeet.maximum, jeet.minimum,
          jeet.pow, jeet.matmul]
OPERATORS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
             "__rmul__", "__truediv__", "__rtruediv__", "__matmul__",
             "__pow__"]
UNARY = [jeet.neg, jeet.abs, jeet.exp, jeet.log, jeet.sqrt, jeet.rsqrt,
         jeet.tanh, jeet.sigmoid, jeet.relu, jeet.gelu]
REDUCE = [jeet.sum, jeet.max, jeet.mean]
# The rest of the API (--ops all): programs of --ops basic draw none of it,
# so the seeds of earlier findings replay the same programs.
MORE_UNARY = [jeet.sin, jeet.cos, jeet.tan, jeet.asin, jeet.acos, jeet.atan,
              jeet.sinh, jeet.cosh, jeet.asinh, jeet.acosh, jeet.atanh,
              jeet.erf, jeet.floor, jeet.ceil, jeet.round, jeet.logical_not,
              jeet.bitwise_not]
MORE_BINARY = [jeet.fmod, jeet.remainder, jeet.eq, jeet.ne, jeet.lt, jeet.le,
               jeet.gt, jeet.ge, jeet.logical_and, jeet.logical_or,
               jeet.logical_xor, jeet.bitwise_and, jeet.bitwise_or,
               jeet.bitwise_xor]
MORE_OPERATORS = ["__mod__", "__rmod__", "__and__", "__rand__", "__or__",
                  "__ror__", "__xor__", "__rxor__", "__rpow__", "__rsub__",
                  "__rmatmul__"]
MORE_REDUCE = [jeet.min, jeet.prod, jeet.argmax, jeet.argmin]


def apply_operator(x, name, y):
    """Tensor x's operator `name` (x.__add__, x.__radd__, ...) applied to y
    as Python applies it: NotImplemented, which a tensor's operator returns
    for an operand no op takes (None, a string, an object), becomes Python's
    TypeError; for anything an op takes it is a finding."""
    result = getattr(x, name)(y)
    if result is NotImplemented:
        if isinstance(y, (jeet.Tensor, np.ndarray, np.generic, list, tuple,
                          int, float, bool)):
            raise Finding(f"Tensor.{name} returned NotImplemented for a "
                          f"{type(y).__name__}")
        raise TypeError(f"unsupported operand type for Tensor.{name}: "
                        f"{type(y).__name__}")
    return result


# The NumPy functions built from Jeet's ops (--ops numpy, the default: the
# whole API; programs of --ops all draw none of them, so the seeds of earlier
# findings replay the same programs).
NUMPY_UNARY = [jeet.square, jeet.sign, jeet.isnan, jeet.isinf, jeet.isfinite,
               jeet.log1p, jeet.expm1, jeet.log2, jeet.log10, jeet.exp2,
               jeet.flatten, jeet.ravel, jeet.zeros_like, jeet.ones_like,
               jeet.nan_to_num, jeet.negative, jeet.arcsinh, jeet.diag,
               jeet.trace]
NUMPY_REDUCE = [jeet.any, jeet.all, jeet.var, jeet.std, jeet.logsumexp]
NUMPY_AXIS = [jeet.squeeze, jeet.expand_dims, jeet.flip, jeet.log_softmax]
NUMPY_BINARY = [jeet.true_divide, jeet.floor_divide, jeet.logaddexp,
                jeet.isclose, jeet.allclose, jeet.outer, jeet.dot,
                jeet.subtract, jeet.power, jeet.hypot]
OPS = "numpy"
# Set by --check-key for the same program with other data.
OTHER_DATA = False
# The structural key, which --check-key's third run sets aside in jeet (its
# graphs compiled by their text); a graph too large to execute is still
# checked to have one (seed 15,609,233 was reported without it).
GRAPH_KEY = _tensor._graph_key
MAX_ELEMENTS = 1 << 12  # data created in full stays small
# --sizes mixed (the default): some dimensions past a GPU block's and a CPU
# vector loop's width (several tiles, partial last ones), and data up to
# 2^15 elements; --sizes small keeps the programs of earlier seeds.
MEDIUM_DIMS = [63, 64, 65, 100, 127, 129, 255, 257, 1000]
SIZES = "mixed"


def max_elements():
    return MAX_ELEMENTS if SIZES == "small" else 1 << 15


# The largest tensor a program may hold and still be executed: broadcasts,
# outer products and concatenations of medium dimensions reach billions of
# elements (3x8x1000x24000 at seed 14,132,533), gigabytes per run on the
# host and again in a compared run, which exhausted the machine. Such a
# program's graph is built and checked, not executed.
MAX_EXECUTED_ELEMENTS = 1 << 26


class Finding(Exception):
    """A failure of the property the fuzzer checks."""


class RandomSource:
    """Choices from a seeded generator."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def int(self, lo, hi):
        return self.rng.randint(lo, hi)

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p):
        return self.rng.random() < p

    def float(self):
        return self.rng.uniform(-4, 4)


class AtherisSource:
    """Choices from the bytes atheris mutates."""

    def __init__(self, data):
        import atheris
        self.fdp = atheris.FuzzedDataProvider(data)

    def int(self, lo, hi):
        return self.fdp.ConsumeIntInRange(lo, hi)

    def pick(self, seq):
        return seq[self.fdp.ConsumeIntInRange(0, len(seq) - 1)]

    def chance(self, p):
        return self.fdp.ConsumeIntInRange(0, 999) < p * 1000

    def float(self):
        return self.fdp.ConsumeFloatInRange(-4, 4)


class Program:
    """One random program; `log` records each call for the report."""

    def __init__(self, src):
        self.src = src
        self.tensors = []
        self.log = []
        self.outputs = []  # (dtype, array) of each executed tensor
        self.too_large = False  # built, not executed (MAX_EXECUTED_ELEMENTS)

    # -- random arguments ----------------------------------------------------

    def shape(self, allow_abusive=True):
        rank = self.src.int(0, 4)
        dims = [self.src.pick(SMALL_DIMS) for _ in range(rank)]
        if SIZES == "mixed" and dims and self.src.chance(0.15):
            i, medium = self.src.int(0, rank - 1), self.src.pick(MEDIUM_DIMS)
            if int(np.prod(dims)) // max(dims[i], 1) * medium <= 1 << 16:
                dims[i] = medium
        if allow_abusive and dims and self.src.chance(0.05):
            dims[self.src.int(0, rank - 1)] = self.src.pick(ABUSIVE_DIMS)
        return dims

    def dtype(self):
        return self.src.pick(BAD_DTYPES) if self.src.chance(0.03) else \
            self.src.pick(DTYPES)

    def data(self, shape, dtype):
        values = np.array([self.src.float() for _ in range(8)])
        if self.src.chance(0.1):
            values[self.src.int(0, 7)] = self.src.pick(
                [np.nan, np.inf, -np.inf, 1e6, -1e6, 0.0])
        size = int(np.prod(shape)) if shape else 1
        flat = np.resize(values, size)
        if OTHER_DATA:  # --check-key's second program: same graph, new data
            flat = flat[::-1] * np.float64(-1.5)
        if dtype == "int32":
            flat = np.round(flat * 10)
        return flat.reshape(shape)

    def tensor_or_other(self):
        if self.tensors and self.src.chance(0.85):
            return self.src.pick(self.tensors)
        kind = self.src.int(0, 2)
        if kind == 0:
            return self.src.pick(SCALARS)
        if kind == 1:
            shape = self.shape(allow_abusive=False)
            if int(np.prod(shape)) > max_elements():
                shape = [2]
            return self.data(shape, "float32").tolist() if self.src.chance(0.5) \
                else self.data(shape, "float32")
        return self.src.pick(JUNK)

    def axis(self, t):
        rank = t.ndim if isinstance(t, jeet.Tensor) else 2
        kind = self.src.int(0, 5)
        if kind == 0:
            return None
        if kind <= 2:
            return self.src.int(-rank - 1, rank)
        if kind == 3:
            return tuple(self.src.int(-rank, rank) for _ in range(self.src.int(0, 3)))
        return self.src.pick([True, 1.5, "0", [0, 0], 2**70, -2**63])

    # -- actions -------------------------------------------------------------

    def create(self):
        src = self.src
        how = src.int(0, 6)
        dtype = self.dtype()
        if how == 0:
            return "jeet.tensor(shape)", lambda: jeet.tensor(self.shape(), dtype=dtype, device=DEVICE)
        if how == 1:
            shape = self.shape(allow_abusive=False)
            if int(np.prod(shape)) > max_elements():
                shape = shape[:1]
            array = self.data(shape, dtype)
            return "jeet.tensor(data)", lambda: jeet.tensor(array, dtype=dtype, device=DEVICE)
        if how == 2:
            shape = self.shape()
            return "jeet.zeros", lambda: jeet.zeros(*shape, dtype=dtype, device=DEVICE)
        if how == 3:
            shape = self.shape(allow_abusive=False)
            fill = src.pick(SCALARS)
            if int(np.prod(shape)) > max_elements():
                shape = [3]
            return "jeet.full", lambda: jeet.full(shape, fill, dtype=dtype, device=DEVICE)
        if how == 4:
            array = np.asarray(self.data([src.int(0, 5), src.int(1, 3)], "float32"))
            cast_to = src.pick([np.float32, np.float64, np.float16, np.int32,
                                np.int64, np.uint64, np.complex128, np.bool_])
            return "jeet.from_numpy", lambda: jeet.from_numpy(array.astype(cast_to), device=DEVICE)
        if how == 5:
            shape = self.shape(allow_abusive=False)
            if int(np.prod(shape)) > max_elements():
                shape = [4]
            return "jeet.rand", lambda: jeet.rand(*shape, dtype=dtype, device=DEVICE)
        stop = src.pick([0, 1, 5, 17, -3, 2.5])
        return "jeet.arange", lambda: jeet.arange(stop, dtype=dtype, device=DEVICE)

    def index_tensor(self, extent):
        """Indices into an axis of `extent`: mostly in range, some negative
        or out of range; an int32 tensor, a list or a bad value."""
        src = self.src
        count = src.pick([0, 1, 2, 3, 5])
        hi = max(extent - 1, 0)
        values = [src.int(-extent, hi) if src.chance(0.9) else
                  src.pick([extent, -extent - 1, 2**31 - 1, -2**31])
                  for _ in range(count)]
        # The fuzzer's own tensor: its values fit int32 (an axis may not).
        values = [min(max(v, -2**31), 2**31 - 1) for v in values]
        kind = src.int(0, 5)
        if kind <= 3:
            shape = [count, 1] if kind == 0 else [count]
            return jeet.tensor(np.array(values, np.int32).reshape(shape),
                               dtype="int32", device=DEVICE)
        if kind == 4:
            return values
        return self.tensor_or_other()

    def item(self, t):
        """An index for t[...]: ints, slices (steps, negative bounds, past
        the end), tuples of them, Ellipsis, None, or a bad value."""
        src = self.src
        rank = t.ndim if isinstance(t, jeet.Tensor) else 2

        def one():
            k = src.int(0, 5)
            if k == 0:
                return src.int(-4, 4)
            if k <= 3:
                return slice(src.pick([None, 0, 1, -1, -3, 5, 40]),
                             src.pick([None, 0, 2, -1, 3, 40, -40]),
                             src.pick([None, None, 1, 2, 3, -1, 0]))
            if k == 4:
                return src.pick([Ellipsis, None])
            return src.pick(JUNK + [1.5, True])
        if src.chance(0.3):
            return one()
        return tuple(one() for _ in range(src.int(0, rank + 1)))

    def numpy_op(self, x):
        """A NumPy function of jeet's (--ops numpy), with arguments that
        mostly fit."""
        src = self.src
        kind = src.int(0, 8)
        if kind <= 1:
            fn = src.pick(NUMPY_UNARY)
            return f"jeet.{fn.__name__}", lambda: fn(x)
        if kind == 2:
            fn = src.pick(NUMPY_REDUCE)
            axis, keepdims = self.axis(x), src.chance(0.5)
            if fn in (jeet.var, jeet.std) and src.chance(0.5):
                ddof = src.pick([0, 1, 2, -1, 0.5, 10**6, "x"])
                return f"jeet.{fn.__name__}", lambda: fn(x, axis, keepdims,
                                                         ddof)
            return f"jeet.{fn.__name__}", lambda: fn(x, axis, keepdims)
        if kind == 3:
            fn = src.pick(NUMPY_AXIS)
            axis = self.axis(x)
            return f"jeet.{fn.__name__}", lambda: fn(x, axis)
        if kind == 4:
            fn = src.pick([jeet.tril, jeet.triu])
            k = src.pick([0, 1, -1, 3, -100, 2**40, 0.5])
            return f"jeet.{fn.__name__}", lambda: fn(x, k)
        if kind == 5:
            lo = src.pick([None, 0, -1, 0.5, -3.25, self.tensor_or_other()])
            hi = src.pick([None, 1, 2, 0.25, self.tensor_or_other()])
            return "jeet.clip", lambda: jeet.clip(x, lo, hi)
        if kind == 7:
            # Python's division operators and their functions.
            y = self.tensor_or_other()
            if src.chance(0.5) and isinstance(x, jeet.Tensor):
                name = src.pick(["__truediv__", "__rtruediv__", "__floordiv__",
                                 "__rfloordiv__"])
                return f"Tensor.{name}", lambda: apply_operator(x, name, y)
            fn = src.pick(NUMPY_BINARY)
            return f"jeet.{fn.__name__}", lambda: fn(x, y)
        if kind == 8 and isinstance(x, jeet.Tensor) and x.ndim:
            # One index array among full slices: a list, NumPy integers or a
            # bool mask (over leading axes, or of a wrong length), an index
            # tensor; or two arrays, or an int beside one (errors).
            axis = src.int(0, x.ndim - 1)
            how = src.int(0, 3)
            if how == 0:
                span = src.int(1, x.ndim - axis)
                shape = list(x.shape[axis:axis + span])
                if src.chance(0.1):
                    shape[-1] += 1
                index = np.array([src.chance(0.5) for _ in range(int(np.prod(shape)))],
                                 bool).reshape(shape)
            elif how == 1:
                index = self.index_tensor(x.shape[axis])
            else:
                extent = x.shape[axis]
                index = [src.int(-extent, max(extent - 1, 0)) if src.chance(0.95)
                         else src.pick([extent, -extent - 1])
                         for _ in range(src.pick([0, 1, 4]))]
                if how == 2:
                    index = np.array(index, np.int64)
            key = (slice(None),) * axis + (index,)
            if src.chance(0.2):
                key = (Ellipsis,) + key[axis:] if src.chance(0.5) else \
                    key + (src.pick([0, [0], None, slice(1, None)]),)
            return "Tensor.__getitem__", lambda: x[key]
        others = [self.tensor_or_other() for _ in range(src.int(0, 2))]
        axis = self.axis(x)
        if axis is None or isinstance(axis, tuple):
            axis = 0
        return "jeet.stack", lambda: jeet.stack([x] + others, axis)

    def more_op(self, x):
        """An op of the rest of the API (--ops all, numpy)."""
        src = self.src
        if OPS == "numpy" and src.chance(0.3):
            return self.numpy_op(x)
        kind = src.int(0, 11)
        if kind <= 1:
            fn = src.pick(MORE_UNARY)
            return f"jeet.{fn.__name__}", lambda: fn(x)
        if kind <= 3:
            fn = src.pick(MORE_BINARY)
            y = self.tensor_or_other()
            return f"jeet.{fn.__name__}", lambda: fn(x, y)
        if kind == 4 and isinstance(x, jeet.Tensor):
            name = src.pick(MORE_OPERATORS + ["__invert__", "__abs__",
                                              "__neg__", "__pos__"])
            if name in ("__invert__", "__abs__", "__neg__", "__pos__"):
                return f"Tensor.{name}", lambda: getattr(x, name)()
            y = self.tensor_or_other()
            return f"Tensor.{name}", lambda: apply_operator(x, name, y)
        if kind <= 5:
            fn = src.pick(MORE_REDUCE)
            axis = self.axis(x)
            keepdims = src.chance(0.5)
            return f"jeet.{fn.__name__}", lambda: fn(x, axis, keepdims)
        if kind == 6:
            condition, y = self.tensor_or_other(), self.tensor_or_other()
            return "jeet.where", lambda: jeet.where(condition, x, y)
        if kind == 7:
            others = [self.tensor_or_other() for _ in range(src.int(0, 2))]
            axis = self.axis(x)
            if axis is None or isinstance(axis, tuple):
                axis = 0
            return "jeet.concat", lambda: jeet.concat([x] + others, axis)
        if kind == 8:
            rank = x.ndim if isinstance(x, jeet.Tensor) else 2
            k = src.int(0, 3)
            if k == 0:
                width = src.pick([0, 1, 2, -1])
            elif k <= 2:
                width = [(src.pick([0, 0, 1, 2, 3, -1]), src.pick([0, 1, 2, 5]))
                         for _ in range(rank if src.chance(0.9) else rank + 1)]
            else:
                width = src.pick(JUNK)
            value = src.pick(SCALARS) if src.chance(0.3) else 0
            return "jeet.pad", lambda: jeet.pad(x, width, value)
        if kind == 9:
            axis = self.axis(x)
            if axis is None or isinstance(axis, tuple):
                axis = 0
            extent = x.shape[axis] if isinstance(x, jeet.Tensor) and \
                isinstance(axis, int) and -x.ndim <= axis < x.ndim else 3
            indices = self.index_tensor(extent)
            fn = src.pick([jeet.gather, jeet.take])
            return f"jeet.{fn.__name__}", lambda: fn(x, indices, axis)
        if kind == 10 and isinstance(x, jeet.Tensor):
            item = self.item(x)
            return "Tensor.__getitem__", lambda: x[item]
        return self.window_op(x)

    def window_op(self, x):
        """conv2d, max_pool2d or avg_pool2d over x (NCHW), mostly on shapes
        that fit, with strides, padding, dilation and groups."""
        src = self.src
        if not isinstance(x, jeet.Tensor) or x.ndim != 4 or src.chance(0.3):
            n, c = src.pick([1, 2]), src.pick([1, 2, 3, 4])
            h, w = src.pick([1, 3, 5, 8]), src.pick([1, 4, 7])
            x = jeet.tensor(self.data([n, c, h, w], "float32"),
                            dtype=src.pick(["float32", "float32", "float16"]),
                            device=DEVICE)
        kernel = src.pick([1, 2, 3, (1, 2), (3, 1), 0, -1])
        stride = src.pick([1, 1, 2, (1, 2), 0])
        padding = src.pick([0, 0, 1, (0, 1), 2, -1])
        k = src.int(0, 2)
        if k == 0:
            channels = x.shape[1]
            groups = src.pick([1, 1, channels, 2])
            out = src.pick([1, 2, 4])
            kh, kw = kernel if isinstance(kernel, tuple) else (kernel, kernel)
            wshape = [out, max(channels // max(groups, 1), 1), kh, kw]
            if any(d < 0 for d in wshape):
                wshape = [1, 1, 1, 1]
            # Float weights (the data may hold NaN and infinities); an
            # integer x then meets them in conv2d, which decides.
            wtype = x.dtype if x.dtype in ("float32", "float16", "bfloat16") \
                else "float32"
            weight = jeet.tensor(self.data(wshape, "float32"), dtype=wtype,
                                 device=DEVICE)
            bias = jeet.tensor(self.data([out], "float32"), dtype=wtype,
                               device=DEVICE) if src.chance(0.5) else None
            dilation = src.pick([1, 1, 2])
            return "jeet.conv2d", lambda: jeet.conv2d(
                x, weight, bias, stride, padding, dilation, groups)
        if k == 1:
            dilation = src.pick([1, 1, 2])
            return "jeet.max_pool2d", lambda: jeet.max_pool2d(
                x, kernel, stride, padding, dilation)
        include = src.chance(0.5)
        return "jeet.avg_pool2d", lambda: jeet.avg_pool2d(
            x, kernel, stride, padding, include)

    def op(self):
        src = self.src
        x = self.tensor_or_other()
        if OPS in ("all", "numpy") and src.chance(0.35):
            return self.more_op(x)
        kind = src.int(0, 10)
        if kind <= 2:
            fn = src.pick(BINARY)
            y = self.tensor_or_other()
            return f"jeet.{fn.__name__}", lambda: fn(x, y)
        if kind == 3 and isinstance(x, jeet.Tensor):
            name = src.pick(OPERATORS)
            y = self.tensor_or_other()
            return f"Tensor.{name}", lambda: apply_operator(x, name, y)
        if kind <= 5:
            fn = src.pick(UNARY)
            return f"jeet.{fn.__name__}", lambda: fn(x)
        if kind == 6:
            fn = src.pick(REDUCE)
            axis = self.axis(x)
            keepdims = src.chance(0.5)
            return f"jeet.{fn.__name__}", lambda: fn(x, axis, keepdims)
        if kind == 7:
            axis = self.axis(x)
            if axis is None or isinstance(axis, tuple):
                axis = -1
            return "jeet.softmax", lambda: jeet.softmax(x, axis)
        if kind == 8:
            rank = x.ndim if isinstance(x, jeet.Tensor) else 2
            perm = list(range(rank))
            for i in range(rank - 1, 0, -1):  # Fisher-Yates
                j = src.int(0, i)
                perm[i], perm[j] = perm[j], perm[i]
            if src.chance(0.2) and perm:
                perm[0] = src.pick([rank, -rank - 1, perm[-1]])
            axes = None if src.chance(0.3) else perm
            return "jeet.transpose", lambda: jeet.transpose(x, axes)
        if kind == 9:
            shape = self.shape()
            if isinstance(x, jeet.Tensor) and src.chance(0.5):
                shape = [-1] + shape[1:] if shape else [-1]
            fn = src.pick([jeet.reshape, jeet.broadcast_to])
            if isinstance(x, jeet.Tensor) and fn is jeet.broadcast_to and src.chance(0.5):
                shape = [src.pick(SMALL_DIMS)] + [d if d != 1 else src.pick(SMALL_DIMS)
                                                  for d in x.shape]
            return f"jeet.{fn.__name__}", lambda: fn(x, shape)
        dtype = self.dtype()
        if isinstance(x, jeet.Tensor) and x.dtype in TOLERANCES and \
                dtype == "int32":
            # Truncation: floats within their tolerance may cross an integer.
            return TRUNCATING_CAST, lambda: jeet.cast(x, dtype)
        return "jeet.cast", lambda: jeet.cast(x, dtype)

    def step(self):
        name, call = self.create() if not self.tensors or self.src.chance(0.3) \
            else self.op()
        self.log.append(name)
        # A bad index is an IndexError, as in NumPy.
        allowed = ALLOWED + (IndexError,) if name == "Tensor.__getitem__" \
            else ALLOWED
        try:
            result = call()
        except allowed as error:
            if not str(error):
                raise Finding(f"{name} raised {type(error).__name__} with no message")
            # What the call raised: with --compare-cpu, a call that one
            # device accepts and the other rejects shows in the logs.
            self.log[-1] += f" [{type(error).__name__}]"
            return
        if not isinstance(result, jeet.Tensor):
            raise Finding(f"{name} returned {type(result).__name__}, not a jeet.Tensor")
        self.tensors.append(result)

    def check_executes(self, execute=True):
        lazy = [t for t in self.tensors if not t.is_materialized]
        if not lazy:
            return
        chosen = [self.src.pick(lazy) for _ in range(self.src.int(1, 3))]
        declared = [(t.shape, t.dtype) for t in chosen]
        largest = max(math.prod(t.shape) for t in self.tensors)
        self.too_large = execute and largest > MAX_EXECUTED_ELEMENTS
        if not execute or self.too_large:
            self.check_builds(chosen)
            return
        self.log.append(f"jeet.execute({len(chosen)} tensors)")
        try:
            jeet.execute(*chosen)
        except jeet.CompilationError as error:
            raise Finding(
                "a graph whose every op was accepted failed to compile: "
                f"{error}") from None
        except ALLOWED as error:
            self.log[-1] += f" [{type(error).__name__}]"
            return
        for t, (shape, dtype) in zip(chosen, declared):
            array = t.numpy()
            self.outputs.append((dtype, array))
            expected = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
            if array.shape != tuple(shape) or array.dtype != expected:
                raise Finding(
                    f"declared {shape} {dtype}, executed {array.shape} {array.dtype}")
            if t.device != DEVICE:
                raise Finding(f"a tensor of the {DEVICE} executed on {t.device}")


    def check_builds(self, chosen):
        """The graph computing `chosen`, built and printed but not compiled:
        every op the Python API accepted must be accepted by the C++ graph
        builder and the verifier, and the structural key must be made."""
        self.log.append(f"build({len(chosen)} tensors)")
        unique = list({id(t): t for t in chosen}.values())
        try:
            built = _tensor._build(unique)
        except ALLOWED as error:
            raise Finding("a graph whose every op was accepted failed to "
                          f"build: {type(error).__name__}: {error}") from None
        if "func.func" not in built.text:
            raise Finding(f"the built graph has no function:\n{built.text}")
        if GRAPH_KEY(unique) is None:
            raise Finding("no structural key for a graph that builds")


# (rtol, atol relative to the largest finite magnitude of the CPU's result)
# per dtype: the devices' exp, log, tanh and erf differ in their last bits
# (polynomials on the CPU, the GPU's own on the GPU), and chains of up to 14
# ops carry that on; int32 results must agree exactly.
TOLERANCES = {"float32": (1e-3, 1e-4), "float16": (3e-2, 3e-3),
              "bfloat16": (6e-2, 1e-2)}


# A float cast to int32: the program's int32 results may carry the floats'
# differences (float32's tolerance), and a value within it may truncate to
# the integer beside (1 more). Found by seed 14,153,356: tanh(8.5) is 1.0 on
# the CPU (MLIR's polynomial saturates from 7.9988, 3.8 units of the last
# place at most) and 0.99999994 on the GPU and in NumPy, cast to 1 and 0.
TRUNCATING_CAST = "jeet.cast(float -> int32)"


# Remainders of floats: where the quotient is large, the result moves by up
# to the divisor when the divisor moves by a unit of its last place. Found
# by seed 14,318,753: fmod(2^40, sigmoid(x)) for x in [0, 1), quotients near
# 1.8e12, where the devices' sigmoids differ by 1-2 units of the last place
# in 41 of 1,400 values (both within 1.13 units of the exact value). A
# program with one of these compares its float results' NaNs and
# infinities alone (and, with TRUNCATING_CAST, not its int32 results).
REMAINDERS = {"jeet.fmod", "jeet.remainder", "jeet.floor_divide",
              "Tensor.__mod__", "Tensor.__rmod__"}


def compare_outputs(cpu, gpu, dtype, names=("the CPU", "the GPU"),
                    truncated=False, remainders=False):
    """None if `gpu` matches `cpu` (numpy arrays of one executed tensor) to
    `dtype`'s tolerance, else what differs, the two called `names`; int32
    results of a program that truncated floats (`truncated`) to float32's
    tolerance and one more; the float results of a program with a remainder
    (`remainders`, see REMAINDERS) by their NaNs and infinities alone, and
    its int32 results not at all if it also truncated floats."""
    if cpu.shape != gpu.shape or cpu.dtype != gpu.dtype:
        return (f"{names[0]} has {cpu.shape} {cpu.dtype}, {names[1]} "
                f"{gpu.shape} {gpu.dtype}")
    a, b = cpu.astype(np.float64), gpu.astype(np.float64)
    rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0))
    slack = 0.0
    if truncated and dtype == "int32":
        (rtol, atol), slack = TOLERANCES["float32"], 1.0
    if remainders and (dtype in TOLERANCES or (truncated and dtype == "int32")):
        rtol, atol, slack = 0.0, 0.0, np.inf
    finite = np.abs(a[np.isfinite(a)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    with np.errstate(invalid="ignore"):
        same = (np.isnan(a) & np.isnan(b)) | (a == b) | \
            (np.isfinite(a) & np.isfinite(b) &
             (np.abs(a - b) <= slack + atol * scale + rtol * np.abs(a)))
    if same.all():
        return None
    where = tuple(int(i) for i in np.argwhere(~same)[0])
    return (f"{int((~same).sum())} of {same.size} {dtype} values differ; at "
            f"{where} {names[0]} has {float(a[where])}, {names[1]} "
            f"{float(b[where])}")


@contextlib.contextmanager
def default_device(device):
    """'auto' names `device` inside the block. A tensor that no operand places
    (jeet.where of NumPy arrays alone) goes to the default device: the GPU
    whenever one answers, so without this the CPU run of a compared program
    would mix devices where the same program on a CPU-only machine does not."""
    resolve = _device.resolve

    def resolve_auto_as_device(name):
        if isinstance(name, str) and name.lower() == "auto":
            return device
        return resolve(name)

    _device.resolve = resolve_auto_as_device
    try:
        yield
    finally:
        _device.resolve = resolve


def run_on(device, seed, execute, program_seed=None):
    """Program `seed` with its tensors on `device`, which is also the default
    device (jeet.rand seeded with `seed`; the program's choices drawn from
    `program_seed`, by default the same)."""
    global DEVICE
    DEVICE = device
    jeet.seed(seed)
    with default_device(device):
        return run_program(RandomSource(seed if program_seed is None
                                        else program_seed), execute)


def run_compared(seed, execute):
    """Program `seed` on the CPU, then on the GPU; a difference is a finding."""
    cpu = run_on("cpu", seed, execute)
    gpu = run_on("gpu", seed, execute)
    if cpu.log != gpu.log:
        step = next((i for i, (c, g) in enumerate(zip(cpu.log, gpu.log))
                     if c != g), min(len(cpu.log), len(gpu.log)))
        raise Finding(f"the CPU and the GPU differ at step {step}:\n  CPU: "
                      + " -> ".join(cpu.log) + "\n  GPU: " + " -> ".join(gpu.log))
    truncated = TRUNCATING_CAST in cpu.log
    remainders = not REMAINDERS.isdisjoint(cpu.log)
    for i, ((dtype, a), (_, b)) in enumerate(zip(cpu.outputs, gpu.outputs)):
        difference = compare_outputs(a, b, dtype, truncated=truncated,
                                     remainders=remainders)
        if difference:
            raise Finding(f"executed tensor {i}: {difference}\nafter: "
                          + " -> ".join(cpu.log))
    return gpu


def run_keyed(seed, execute):
    """Program `seed` on its device, then the same program with other data
    (the same graph: the structural key finds the graph compiled for the
    first and runs it on the new inputs), then that again with the key set
    aside (the graph printed and compiled by its text). The last two must
    agree, or the key confused two graphs or their inputs."""
    global OTHER_DATA
    device = DEVICE
    run_on(device, seed, execute)
    graph_key = _tensor._graph_key
    OTHER_DATA = True
    try:
        keyed = run_on(device, seed + 10**12, execute, program_seed=seed)
        _tensor._graph_key = lambda pending: None
        unkeyed = run_on(device, seed + 10**12, execute, program_seed=seed)
    finally:
        OTHER_DATA = False
        _tensor._graph_key = graph_key
    if keyed.log != unkeyed.log:
        raise Finding("the structural key changed what the calls did:\n  with: "
                      + " -> ".join(keyed.log) + "\n  without: "
                      + " -> ".join(unkeyed.log))
    for i, ((dtype, a), (_, b)) in enumerate(zip(keyed.outputs, unkeyed.outputs)):
        difference = compare_outputs(b, a, dtype,
                                     ("the graph by its text", "the keyed graph"))
        if difference:
            raise Finding(f"executed tensor {i}: {difference}\nafter: "
                          + " -> ".join(keyed.log))
    return keyed


def run_program(src, execute=True):
    program = Program(src)
    try:
        for _ in range(src.int(1, 14)):
            program.step()
        program.check_executes(execute)
    except Finding:
        raise
    except Exception as error:  # anything a caller could not expect
        raise Finding(f"{type(error).__name__}: {error}\nafter: "
                      + " -> ".join(program.log)) from error
    return program


def replay_command(args, seed, execute):
    """The command that runs program `seed` alone, as this run ran it."""
    mode = "" if execute else f" --execute-every {args.execute_every}"
    if args.device != "cpu":
        mode += f" --device {args.device}"
    if args.compare_cpu:
        mode += " --compare-cpu"
    if args.check_key:
        mode += " --check-key"
    if args.ops != "numpy":
        mode += f" --ops {args.ops}"
    if args.sizes != "mixed":
        mode += f" --sizes {args.sizes}"
    return ("replay: PYTHONPATH=build/python python3 "
            f"fuzz/python/fuzz_graph_builder.py --seed {seed} --count 1" + mode)


def seeded_main(args):
    start = time.monotonic()
    watchdog = Watchdog(args.stall_seconds)
    count = executed = too_large = 0
    while True:
        if args.count is not None and count >= args.count:
            break
        if args.count is None and time.monotonic() - start > args.seconds:
            break
        seed = args.seed + count
        # A crash ends the process: the last line printed names its seed.
        if args.verbose:
            print(f"program seed {seed}", flush=True)
        execute = seed % args.execute_every == 0
        watchdog.start(seed, replay_command(args, seed, execute))
        try:
            if args.compare_cpu and execute:
                program = run_compared(seed, execute)
            elif args.check_key and execute:
                program = run_keyed(seed, execute)
            else:
                program = run_on(args.device, seed, execute)
        except Finding as finding:
            print(f"FINDING in program seed {seed}: {finding}")
            print(replay_command(args, seed, execute))
            return 1
        finally:
            watchdog.stop()
        executed += execute and not program.too_large
        too_large += program.too_large
        count += 1
    where = f"the {args.device}" + (", compared with the cpu" if args.compare_cpu else "") \
        + (", keyed and by text" if args.check_key else "")
    print(f"fuzz_graph_builder: {count} programs (seeds {args.seed}.."
          f"{args.seed + count - 1}; {executed} compiled and run, the others "
          f"built{f', {too_large} of them too large to run' if too_large else ''}"
          f") on {where} in {time.monotonic() - start:.1f} s, "
          "no finding")
    return 0


def atheris_main(argv):
    import atheris

    def one_input(data):
        run_program(AtherisSource(data))

    atheris.instrument_all()
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


def main():
    faulthandler.enable()
    # NumPy's warnings about the fuzzer's own casts (NaN to int) are noise.
    warnings.simplefilter("ignore", RuntimeWarning)
    if "--atheris" in sys.argv:
        argv = [a for a in sys.argv if a != "--atheris"]
        return atheris_main(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--execute-every", type=int, default=1, metavar="K",
                        help="compile and run only the programs whose seed "
                        "is a multiple of K; build the others' graphs")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                        help="where the programs' tensors live and run (gpu: "
                        "a GPU or the emulator, JEET_CUDA_DRIVER)")
    parser.add_argument("--ops", choices=["basic", "all", "numpy"],
                        default="numpy",
                        help="the ops programs draw from: the whole API "
                        "(numpy); the API without the NumPy functions built "
                        "from jeet's ops (all); or the first set "
                        "(elementwise, sum/max/mean, softmax, matmul, "
                        "reshapes, casts) (basic). The seeds of earlier "
                        "findings replay their programs with their set")
    parser.add_argument("--sizes", choices=["small", "mixed"], default="mixed",
                        help="small: dimensions up to 33 and data up to 4096 "
                        "elements, whose seeds replay the programs of earlier "
                        "findings; mixed: some dimensions of 63 to 1000")
    parser.add_argument("--check-key", action="store_true",
                        help="run each compiled program again with the "
                        "structural key set aside (the graph compiled by its "
                        "text) and compare the results")
    parser.add_argument("--stall-seconds", type=float, default=300,
                        help="report a program still running after this "
                        "many seconds as a finding (exit status 3)")
    parser.add_argument("--compare-cpu", action="store_true",
                        help="with --device gpu: run each compiled program "
                        "on the CPU too and compare the results")
    args = parser.parse_args()
    global DEVICE, OPS, SIZES
    DEVICE = args.device
    OPS = args.ops
    SIZES = args.sizes
    if DEVICE == "gpu" and not jeet.gpu_available():
        parser.error("--device gpu: no GPU answers (set JEET_CUDA_DRIVER to "
                     "build/lib/libjeet_cuda_emulator.so for the emulator)")
    if args.compare_cpu and DEVICE != "gpu":
        parser.error("--compare-cpu needs --device gpu")
    if args.execute_every < 1:
        parser.error(f"--execute-every must be at least 1, got {args.execute_every}")
    return seeded_main(args)


if __name__ == "__main__":
    sys.exit(main())
