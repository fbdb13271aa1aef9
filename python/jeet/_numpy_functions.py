"""NumPy functions that Jeet builds from its ops: each records the ops of
its definition (one graph, fused like any other), with NumPy's names and
semantics. On float16 and bfloat16 the functions of several ops (var, std,
log_softmax, logsumexp, log1p, expm1, log2, log10) compute in float32 and
round once, as NumPy's own float16 functions and PyTorch's do."""

import builtins
import math
import numbers

import numpy as np

from . import _dtypes
from ._dtypes import ArgumentError
from ._tensor import (Tensor, _as_operands, _fmt_shape, _host_values, _materialised,
                      _narrowed, _normalize_axes, _scalar_constant, _widened, abs, acos,
                      acosh, add, asin, asinh, atan, atanh, cast, concatenate, div, eq,
                      exp, full, ge, gt, iota, le, log, lt, matmul, max, maximum, mean,
                      min, minimum, mul, ne, neg, pad, pow, reshape, sqrt, sub, sum,
                      broadcast_to, take, transpose, where, argmax, argmin, logical_and,
                      logical_not, logical_or)
from . import _device
from .errors import ShapeError

def _tensor_arg(opname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.{opname}: expected a jeet.Tensor, got {type(x).__name__}")
    return x


def _float_arg(opname, x):
    x = _tensor_arg(opname, x)
    if x._dtype not in ("f32", "f16", "bf16"):
        numpy_result = "float16" if x._dtype == "i1" else "float64"
        raise ShapeError(
            f"jeet.{opname}: needs a float tensor, got {_dtypes.LONG_NAMES[x._dtype]} "
            f"(NumPy's result would be {numpy_result}: cast to float32 first)")
    return x


# --------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------


def _axis_arg(opname, axis, rank):
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ArgumentError(f"jeet.{opname}: axis must be an int, got {axis!r}")
    if not -rank <= int(axis) < rank:
        raise ShapeError(f"jeet.{opname}: axis {int(axis)} is out of range for "
                         f"rank {rank}")
    return int(axis) % rank


def squeeze(x, axis=None):
    """x without its dimensions of size 1 (all, or those `axis` names; a
    named axis of another size is an error, as NumPy's)."""
    x = _tensor_arg("squeeze", x)
    if axis is None:
        axes = [d for d, n in enumerate(x.shape) if n == 1]
    else:
        axes = _normalize_axes("squeeze", x, axis)
        for a in axes:
            if x.shape[a] != 1:
                raise ShapeError(
                    f"jeet.squeeze: cannot select an axis to squeeze out which "
                    f"has size not equal to one (axis {a} of shape "
                    f"{_fmt_shape(x.shape)})")
    return reshape(x, tuple(n for d, n in enumerate(x.shape) if d not in axes))


def expand_dims(x, axis):
    """x with a dimension of size 1 inserted at `axis` (an int or a tuple,
    positions in the result, as NumPy's)."""
    x = _tensor_arg("expand_dims", x)
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    rank = x.ndim + len(axes)
    where_ = sorted(_axis_arg("expand_dims", a, rank) for a in axes)
    if len(set(where_)) != len(where_):
        raise ShapeError(f"jeet.expand_dims: repeated axis in {axis!r}")
    dims = iter(x.shape)
    return reshape(x, tuple(1 if d in where_ else next(dims) for d in range(rank)))


def flatten(x):
    """x as one dimension (NumPy's ndarray.flatten and ravel)."""
    x = _tensor_arg("flatten", x)
    return reshape(x, (x.size,))


ravel = flatten


def stack(tensors, axis=0):
    """The tensors (one shape) joined along a new `axis`, as numpy.stack."""
    tensors = list(tensors)
    if not tensors:
        raise ArgumentError("jeet.stack: needs at least one tensor")
    shapes = {tuple(t.shape) for t in tensors if isinstance(t, Tensor)}
    if len(shapes) > 1:
        raise ShapeError(
            "jeet.stack: all tensors must have the same shape, got "
            + ", ".join(_fmt_shape(s) for s in sorted(shapes)))
    return concatenate([expand_dims(t, axis) for t in tensors], axis)


def flip(x, axis=None):
    """x with the order of its elements along `axis` (all axes for None)
    reversed, as numpy.flip."""
    x = _tensor_arg("flip", x)
    axes = range(x.ndim) if axis is None else _normalize_axes("flip", x, axis)
    key = tuple(slice(None, None, -1) if d in axes else slice(None)
                for d in range(x.ndim))
    return x[key] if x.ndim else x


def _triangle(opname, x, k, lower):
    x = _tensor_arg(opname, x)
    if x.ndim < 2:
        raise ShapeError(f"jeet.{opname}: needs a tensor of rank >= 2, got "
                         f"shape {_fmt_shape(x.shape)}")
    if not isinstance(k, numbers.Integral) or isinstance(k, bool):
        raise ArgumentError(f"jeet.{opname}: k must be an int, got {k!r}")
    rows, cols = x.shape[-2:]
    i = iota((rows, cols), 0, "int64")
    j = iota((rows, cols), 1, "int64")
    # Kept: j - i <= k (tril) or j - i >= k (triu).
    diagonal = sub(j, i)
    keep = le(diagonal, int(k)) if lower else ge(diagonal, int(k))
    zero = _scalar_constant(0, x._dtype, opname)
    return where(keep, x, zero)


def tril(x, k=0):
    """x with the elements above the k-th diagonal zeroed, as numpy.tril
    (over the last two axes)."""
    return _triangle("tril", x, k, lower=True)


def triu(x, k=0):
    """x with the elements below the k-th diagonal zeroed, as numpy.triu."""
    return _triangle("triu", x, k, lower=False)


# --------------------------------------------------------------------------
# Creation
# --------------------------------------------------------------------------


def zeros_like(x, dtype=None):
    x = _tensor_arg("zeros_like", x)
    return full(x.shape, 0, dtype=dtype or x.dtype, device=x.device)


def ones_like(x, dtype=None):
    x = _tensor_arg("ones_like", x)
    return full(x.shape, 1, dtype=dtype or x.dtype, device=x.device)


def full_like(x, fill_value, dtype=None):
    x = _tensor_arg("full_like", x)
    return full(x.shape, fill_value, dtype=dtype or x.dtype, device=x.device)


def linspace(start, stop, num=50, endpoint=True, dtype="float32", device="auto"):
    """`num` evenly spaced values from start to stop, as numpy.linspace
    (computed in float64, then rounded to dtype)."""
    values = _host_values("jeet.linspace", lambda: np.linspace(
        start, stop, num, endpoint=endpoint, dtype=np.float64))
    return _materialised(values, _dtypes.canonical(dtype), _device.resolve(device))


def eye(n, m=None, k=0, dtype="float32", device="auto"):
    """A 2-D tensor with ones on the k-th diagonal, as numpy.eye."""
    values = _host_values("jeet.eye", lambda: np.eye(n, m, k, dtype=np.float64))
    return _materialised(values, _dtypes.canonical(dtype), _device.resolve(device))


# --------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------


def clip(x, a_min=None, a_max=None):
    """x limited to [a_min, a_max] (either may be None), as numpy.clip: a
    NaN stays NaN."""
    x = _tensor_arg("clip", x)
    if a_min is None and a_max is None:
        raise ArgumentError("jeet.clip: a_min and a_max cannot both be None")
    if a_min is not None:
        x = maximum(x, a_min)
    if a_max is not None:
        x = minimum(x, a_max)
    return x


def square(x):
    """x * x, elementwise."""
    x = _tensor_arg("square", x)
    return mul(x, x)


def sign(x):
    """-1, 0 or 1 by the sign of x (NaN for NaN, zeros as they are), as
    numpy.sign."""
    x = _tensor_arg("sign", x)
    if x._dtype == "i1":
        return x
    one = _scalar_constant(1, x._dtype, "sign")
    minus_one = _scalar_constant(-1, x._dtype, "sign")
    zero = _scalar_constant(0, x._dtype, "sign")
    # Zeros (either sign) give +0, as NumPy's; NaN stays NaN.
    return where(gt(x, zero), one, where(lt(x, zero), minus_one,
                                        where(eq(x, zero), zero, x)))


def isnan(x):
    x = _tensor_arg("isnan", x)
    if x._dtype not in ("f32", "f16", "bf16"):
        return full(x.shape, False, dtype="bool", device=x.device)
    return ne(x, x)


def isinf(x):
    x = _tensor_arg("isinf", x)
    if x._dtype not in ("f32", "f16", "bf16"):
        return full(x.shape, False, dtype="bool", device=x.device)
    return eq(abs(x), math.inf)


def isfinite(x):
    x = _tensor_arg("isfinite", x)
    if x._dtype not in ("f32", "f16", "bf16"):
        return full(x.shape, True, dtype="bool", device=x.device)
    # x - x is 0 for finite x, NaN for infinities and NaN.
    return eq(sub(x, x), 0.0)


def log1p(x):
    """log(1 + x), accurate for small x too (Goldberg: where 1 + x rounds,
    log(w) x / (w - 1) with w = 1 + x; x where w is 1)."""
    x = _float_arg("log1p", x)
    dtype, x = x._dtype, _widened(x)  # float16 and bfloat16 in float32
    w = add(x, 1.0)
    # log(w) * (x / (w - 1)): the ratio first (near 1), so that a large x
    # does not overflow the product.
    scaled = mul(log(w), div(x, sub(w, 1.0)))
    # w = inf (x = inf): log(w) is inf, the quotient NaN; the result is inf.
    return _narrowed(where(eq(w, 1.0), x, where(eq(w, math.inf), w, scaled)), dtype)


def expm1(x):
    """exp(x) - 1, accurate for small x too (Kahan: (u - 1) x / log(u) with
    u = exp(x); x where u rounds to 1, -1 where u - 1 is -1)."""
    x = _float_arg("expm1", x)
    dtype, x = x._dtype, _widened(x)  # float16 and bfloat16 in float32
    u = exp(x)
    um1 = sub(u, 1.0)
    # (u - 1) * (x / log(u)): the ratio first (near 1); (u - 1) x overflowed
    # for x past 86 in float32 (expm1(85.9) = 2.2e37 came out inf).
    scaled = mul(um1, div(x, log(u)))
    result = where(eq(u, 1.0), x, where(eq(um1, -1.0), um1, scaled))
    # x = inf: u is inf and the quotient NaN; the result is inf.
    return _narrowed(where(eq(u, math.inf), u, result), dtype)


def log2(x):
    x = _float_arg("log2", x)
    return _narrowed(div(log(_widened(x)), math.log(2.0)), x._dtype)


def log10(x):
    x = _float_arg("log10", x)
    return _narrowed(div(log(_widened(x)), math.log(10.0)), x._dtype)


def exp2(x):
    x = _float_arg("exp2", x)
    return pow(_scalar_constant(2.0, x._dtype, "exp2"), x)


# --------------------------------------------------------------------------
# Reductions and statistics
# --------------------------------------------------------------------------


def any(x, axis=None, keepdims=False):
    """Whether any element along `axis` is true (x != 0), as numpy.any."""
    x = _tensor_arg("any", x)
    truth = x if x._dtype == "i1" else ne(x, _scalar_constant(0, x._dtype, "any"))
    return max(truth, axis, keepdims)


def all(x, axis=None, keepdims=False):
    """Whether every element along `axis` is true (x != 0), as numpy.all."""
    x = _tensor_arg("all", x)
    truth = x if x._dtype == "i1" else ne(x, _scalar_constant(0, x._dtype, "all"))
    return min(truth, axis, keepdims)


_MAX_TOPK = 64


def topk(x, k, axis=-1, largest=True):
    """The `k` largest (or with largest=False smallest) elements along
    `axis` and their indices (int64), sorted, as torch.topk: (values,
    indices), each with `axis` of size k. Ties go to the lower index; NaN
    ranks above every number (torch's order; among the smallest it ranks as
    +inf, after one at a lower index); bool ranks as 0 and 1, its values
    returned as int32. Built from Jeet's reductions:
    k rounds of an argmax (argmin) over what is not taken yet, so k is at
    most 64."""
    x = _tensor_arg("topk", x)
    if x.ndim == 0:
        raise ShapeError("jeet.topk: needs a tensor of rank >= 1, got a scalar")
    axis = _axis_arg("topk", axis, x.ndim)
    if not isinstance(k, numbers.Integral) or isinstance(k, builtins.bool):
        raise ArgumentError(f"jeet.topk: k must be an int, got {k!r}")
    k = int(k)
    size = x.shape[axis]
    if not 0 <= k <= size:
        raise ShapeError(f"jeet.topk: k = {k} is out of range for axis {axis} of "
                         f"size {size} (shape {_fmt_shape(x.shape)})")
    if k > _MAX_TOPK:
        raise ShapeError(f"jeet.topk: k = {k} is more than {_MAX_TOPK}: topk takes one "
                         f"reduction over the axis per element it returns")
    if x._dtype == "i1":
        x = cast(x, "i32")
    if k == 0:
        raise ShapeError(f"jeet.topk: k = 0 gives empty tensors, which Jeet does not "
                         f"have (shape {_fmt_shape(x.shape)}, axis {axis})")
    if x._dtype in ("f32", "f16", "bf16"):
        fill = -math.inf if largest else math.inf
    else:
        fill = _dtypes._INT_RANGES[x._dtype][0 if largest else 1]
    fill = _scalar_constant(fill, x._dtype, "topk")
    pick = argmax if largest else argmin
    best = max if largest else min
    # argmin, like argmax, picks NaN first: the smallest rank NaN as +inf.
    key = x
    if not largest and x._dtype in ("f32", "f16", "bf16"):
        key = where(ne(x, x), _scalar_constant(math.inf, x._dtype, "topk"), x)
    position = iota(x.shape, axis=axis, dtype="i64")
    taken = None
    values, indices = [], []
    for _ in range(k):
        if taken is None:
            index = pick(key, axis, True)
        else:
            index = pick(where(taken, fill, key), axis, True)
            # Where everything left equals the fill (-inf among the largest),
            # the pick may land on a taken element: the first one not taken.
            landed = max(logical_and(taken, eq(position, index)), axis, True)
            index = where(landed, argmax(logical_not(taken), axis, True), index)
        chosen = eq(position, index)
        values.append(best(where(chosen, x, fill), axis, True))
        indices.append(index)
        taken = chosen if taken is None else logical_or(taken, chosen)
    if k == 1:
        return values[0], indices[0]
    return concatenate(values, axis), concatenate(indices, axis)


def var(x, axis=None, keepdims=False, ddof=0):
    """The variance along `axis`, mean((x - mean(x))^2) with `ddof` as
    numpy.var (two passes; float16 and bfloat16 in float32, rounded once)."""
    x = _float_arg("var", x)
    if not isinstance(ddof, numbers.Real) or isinstance(ddof, bool):
        raise ArgumentError(f"jeet.var: ddof must be a number, got {ddof!r}")
    axes = _normalize_axes("var", x, axis)
    count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    wide = _widened(x)
    centered = sub(wide, mean(wide, axes, True)) if axes else sub(wide, wide)
    squares = sum(mul(centered, centered), axes, keepdims) if axes else \
        mul(centered, centered)
    # count - ddof <= 0: NumPy divides by it anyway (inf or NaN, a warning).
    return _narrowed(div(squares, float(count - ddof)), x._dtype)


def std(x, axis=None, keepdims=False, ddof=0):
    """The standard deviation along `axis`, sqrt(var), as numpy.std."""
    x = _float_arg("std", x)
    return _narrowed(sqrt(var(_widened(x), axis, keepdims, ddof)), x._dtype)


def log_softmax(x, axis=-1):
    """log(softmax(x)) along `axis`, as x - max - log(sum(exp(x - max)))
    (float16 and bfloat16 in float32, rounded once), as
    torch.nn.functional.log_softmax."""
    x = _float_arg("log_softmax", x)
    if x.ndim == 0:
        raise ShapeError("jeet.log_softmax: needs a tensor of rank >= 1, got shape ()")
    axis = _axis_arg("log_softmax", axis, x.ndim)
    wide = _widened(x)
    shifted = sub(wide, max(wide, axis, True))
    result = sub(shifted, log(sum(exp(shifted), axis, True)))
    return _narrowed(result, x._dtype)


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) along `axis`, with the maximum shifted out (float16
    and bfloat16 in float32), as scipy.special.logsumexp."""
    x = _float_arg("logsumexp", x)
    axes = _normalize_axes("logsumexp", x, axis)
    if not axes:
        return x
    wide = _widened(x)
    m = max(wide, axes, True)
    # An infinite maximum is the result itself (-inf for all -inf, inf).
    finite = where(isfinite(m), m, 0.0)
    total = add(log(sum(exp(sub(wide, finite)), axes, True)), finite)
    if not keepdims:
        total = reshape(total, tuple(n for d, n in enumerate(x.shape) if d not in axes))
    return _narrowed(total, x._dtype)


# --------------------------------------------------------------------------
# More of NumPy's namespace
# --------------------------------------------------------------------------

# NumPy's other names of Jeet's ops.
subtract, multiply, power, negative, absolute = sub, mul, pow, neg, abs
amax, amin = max, min
arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh


def swapaxes(x, axis1, axis2):
    """x with two axes exchanged, as numpy.swapaxes."""
    x = _tensor_arg("swapaxes", x)
    a = _axis_arg("swapaxes", axis1, x.ndim)
    b = _axis_arg("swapaxes", axis2, x.ndim)
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def moveaxis(x, source, destination):
    """x with the axes `source` (an int or a sequence) moved to the
    positions `destination`, the others keeping their order, as
    numpy.moveaxis."""
    x = _tensor_arg("moveaxis", x)
    src = [source] if isinstance(source, numbers.Integral) else list(source)
    dst = [destination] if isinstance(destination, numbers.Integral) else list(destination)
    if len(src) != len(dst):
        raise ArgumentError(
            "jeet.moveaxis: `source` and `destination` arguments must have the "
            f"same number of elements, got {len(src)} and {len(dst)}")
    src = [_axis_arg("moveaxis", a, x.ndim) for a in src]
    dst = [_axis_arg("moveaxis", a, x.ndim) for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ShapeError("jeet.moveaxis: repeated axis")
    perm = [d for d in range(x.ndim) if d not in src]
    for d, s_ in sorted(zip(dst, src)):
        perm.insert(d, s_)
    return transpose(x, perm)


def permute_dims(x, axes=None):
    """The Array API's name of jeet.transpose."""
    return transpose(_tensor_arg("permute_dims", x), axes)


def outer(a, b):
    """The outer product of the flattened a and b, as numpy.outer."""
    a, b = _as_operands("outer", a, b)
    return mul(reshape(a, (a.size, 1)), reshape(b, (1, b.size)))


def dot(a, b):
    """numpy.dot for operands of rank 0 to 2 (a product, an inner product,
    a matrix-vector or matrix product) and an N-d a with a 1-d or 2-d b (a
    sum over a's last axis and b's first). For a stack of matrices as b use
    jeet.matmul, whose batching differs from numpy.dot's."""
    a, b = _as_operands("dot", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return mul(a, b)
    if b.ndim > 2 and a.ndim >= 2:
        raise ShapeError(
            f"jeet.dot: a of shape {_fmt_shape(a.shape)} and b of shape "
            f"{_fmt_shape(b.shape)} (rank 3 or more): numpy.dot's outer "
            "batching is not supported; use jeet.matmul (batches broadcast) "
            "or move the axes first")
    return matmul(a, b)


def _atleast_2d(x):
    return reshape(x, (1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x


def vstack(tensors):
    """The tensors stacked along their first axis (1-d ones as rows), as
    numpy.vstack."""
    tensors = [_tensor_arg("vstack", t) for t in tensors]
    return concatenate([_atleast_2d(t) for t in tensors], axis=0)


def hstack(tensors):
    """The tensors joined along their second axis (their first if they are
    1-d), as numpy.hstack."""
    tensors = [_tensor_arg("hstack", t) for t in tensors]
    tensors = [reshape(t, (1,)) if t.ndim == 0 else t for t in tensors]
    return concatenate(tensors, axis=0 if tensors and tensors[0].ndim == 1 else 1)


def roll(x, shift, axis=None):
    """x's elements shifted by `shift` along `axis` (None: the flattened
    tensor, shape kept), those past the end coming back at the start, as
    numpy.roll with an int shift and axis."""
    x = _tensor_arg("roll", x)
    if not isinstance(shift, numbers.Integral) or isinstance(shift, bool):
        raise ArgumentError(f"jeet.roll: shift must be an int, got {shift!r}")
    if axis is None:
        return reshape(roll(reshape(x, (x.size,)), shift, 0), x.shape)
    axis = _axis_arg("roll", axis, x.ndim)
    n = x.shape[axis]
    k = int(shift) % n if n else 0
    if k == 0:
        return x
    before = (slice(None),) * axis
    return concatenate([x[before + (slice(n - k, None),)],
                        x[before + (slice(0, n - k),)]], axis=axis)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| elementwise, as numpy.isclose: equal
    infinities are close, NaN is close to NaN only with equal_nan (integers
    compared in float32)."""
    a, b = _as_operands("isclose", a, b)
    if a._dtype not in ("f32", "f16", "bf16"):
        a, b = cast(a, "f32"), cast(b, "f32")
    a, b = _widened(a), _widened(b)
    close = le(abs(sub(a, b)), add(mul(abs(b), float(rtol)), float(atol)))
    finite = mul(isfinite(a), isfinite(b))
    result = where(finite, close, eq(a, b))
    if equal_nan:
        result = where(mul(isnan(a), isnan(b)), True, result)
    return result


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of a is close to b's (jeet.isclose), as
    numpy.allclose: a 0-d bool tensor (its truth computed when read)."""
    return all(isclose(a, b, rtol, atol, equal_nan))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """x with NaN replaced by `nan` and the infinities by `posinf` and
    `neginf` (the dtype's largest and lowest finite values by default), as
    numpy.nan_to_num."""
    x = _tensor_arg("nan_to_num", x)
    if x._dtype not in ("f32", "f16", "bf16"):
        return x
    big = float(_dtypes._FLOAT_MAX[x._dtype])
    x = where(isnan(x), float(nan), x)
    x = where(eq(x, math.inf), big if posinf is None else float(posinf), x)
    return where(eq(x, -math.inf), -big if neginf is None else float(neginf), x)


def logaddexp(x, y):
    """log(exp(x) + exp(y)) without overflow, as numpy.logaddexp: the
    larger plus log1p(exp(-|x - y|)); x + log(2) where x == y (infinities
    too); float16 and bfloat16 in float32, rounded once."""
    x, y = _as_operands("logaddexp", x, y)
    x = _float_arg("logaddexp", x)
    dtype = x._dtype
    x, y = _widened(x), _widened(y)
    d = sub(x, y)
    r = where(gt(d, 0.0), add(x, log1p(exp(neg(d)))), add(y, log1p(exp(d))))
    return _narrowed(where(eq(x, y), add(x, math.log(2.0)), r), dtype)


builtins_abs, builtins_max, builtins_min = builtins.abs, builtins.max, builtins.min


def _host_indices(values):
    return np.asarray(values, dtype=np.int64)


def repeat(x, repeats, axis=None):
    """Each element (axis None: of the flattened x) or each slice along
    `axis` repeated `repeats` times (an int, or one count per slice), as
    numpy.repeat."""
    x = _tensor_arg("repeat", x)
    if axis is None:
        x, axis = reshape(x, (x.size,)), 0
    axis = _axis_arg("repeat", axis, x.ndim)
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1:
        raise ArgumentError(f"jeet.repeat: repeats must be an int or a 1-d "
                            f"sequence of ints, got {repeats!r}")
    if (counts < 0).any():
        raise ArgumentError("jeet.repeat: negative dimensions are not allowed")
    if counts.ndim == 1 and counts.size != x.shape[axis]:
        raise ShapeError(
            f"jeet.repeat: {counts.size} repeats for axis {axis} of size "
            f"{x.shape[axis]}")
    return take(x, _host_indices(np.repeat(np.arange(x.shape[axis]), counts)), axis)


def tile(x, reps):
    """x repeated `reps` times along each axis (an int or a tuple; x gains
    leading axes of 1 where reps is longer), as numpy.tile."""
    x = _tensor_arg("tile", x)
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    if builtins.any(not isinstance(r, numbers.Integral) or isinstance(r, bool) or r < 0
           for r in reps):
        raise ArgumentError(f"jeet.tile: reps must be non-negative ints, got {reps!r}")
    rank = builtins_max(len(reps), x.ndim)
    shape = (1,) * (rank - x.ndim) + x.shape
    reps = (1,) * (rank - len(reps)) + tuple(int(r) for r in reps)
    interleaved = reshape(x, tuple(n for d in shape for n in (1, d)))
    spread = broadcast_to(interleaved, tuple(n for r, d in zip(reps, shape) for n in (r, d)))
    return reshape(spread, tuple(r * d for r, d in zip(reps, shape)))


def split(x, indices_or_sections, axis=0):
    """x cut along `axis` into equal sections (an int that divides the
    axis) or at the given indices, as numpy.split: a list of tensors."""
    x = _tensor_arg("split", x)
    axis = _axis_arg("split", axis, x.ndim)
    n = x.shape[axis]
    if isinstance(indices_or_sections, numbers.Integral):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ArgumentError("jeet.split: number sections must be larger than 0")
        if n % sections:
            raise ShapeError("jeet.split: array split does not result in an "
                             f"equal division ({n} into {sections})")
        bounds = [i * (n // sections) for i in range(sections + 1)]
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    before = (slice(None),) * axis
    return [x[before + (slice(lo, hi),)] for lo, hi in zip(bounds[:-1], bounds[1:])]


def diag(v, k=0):
    """The k-th diagonal of a 2-d v, or a 2-d tensor with the 1-d v on its
    k-th diagonal, as numpy.diag."""
    v = _tensor_arg("diag", v)
    if not isinstance(k, numbers.Integral) or isinstance(k, bool):
        raise ArgumentError(f"jeet.diag: k must be an int, got {k!r}")
    k = int(k)
    if v.ndim == 1:
        size = v.shape[0] + builtins_abs(k)
        mask = _materialised(np.eye(size, k=k, dtype=bool), "i1", v.device)
        line = pad(v, [(0, builtins_abs(k))])
        line = reshape(line, (size, 1) if k >= 0 else (1, size))
        return where(mask, line, 0)
    if v.ndim != 2:
        raise ShapeError(f"jeet.diag: input must be 1- or 2-d, got shape {_fmt_shape(v.shape)}")
    rows, cols = v.shape
    starts = range(builtins_max(0, -k), builtins_min(rows, cols - k))
    return take(reshape(v, (v.size,)), _host_indices([i * cols + i + k for i in starts]))


def trace(x, offset=0):
    """The sum of a 2-d x's diagonal `offset`, as numpy.trace."""
    x = _tensor_arg("trace", x)
    if x.ndim != 2:
        raise ShapeError(f"jeet.trace: needs a 2-d tensor, got shape {_fmt_shape(x.shape)}")
    return sum(diag(x, offset))


def hypot(x, y):
    """sqrt(x^2 + y^2) without overflow or underflow, as numpy.hypot: the
    larger magnitude times sqrt(1 + (smaller / larger)^2); infinite where
    either is (even with a NaN); float16 and bfloat16 in float32."""
    x, y = _as_operands("hypot", x, y)
    x = _float_arg("hypot", x)
    dtype = x._dtype
    ax, ay = abs(_widened(x)), abs(_widened(y))
    big, small = maximum(ax, ay), minimum(ax, ay)
    ratio = div(small, where(eq(big, 0.0), 1.0, big))
    r = mul(big, sqrt(add(mul(ratio, ratio), 1.0)))
    r = where(eq(big, 0.0), 0.0, r)
    return _narrowed(where(add(isinf(ax), isinf(ay)), math.inf, r), dtype)


# Tensor methods (NumPy's ndarray has these).
for _name in ("squeeze", "flatten", "ravel", "clip", "var", "std", "any", "all",
              "swapaxes", "dot", "repeat", "trace"):
    setattr(Tensor, _name, globals()[_name])
Tensor.astype = lambda self, dtype: cast(self, dtype)


def _numpy_reduction_method(name, function):
    """Tensor.<name> as ndarray's method: NumPy's functions (np.sum(x),
    np.mean(x, axis=0), np.std(x)) call it with `dtype` and `out` too. dtype
    casts first (as NumPy accumulates in it); out must be None: a tensor
    never changes, the result is a new one."""
    def method(self, axis=None, keepdims=False, *, dtype=None, out=None, **kwargs):
        if out is not None:
            raise ArgumentError(
                f"jeet.{name}: out= is not supported (tensors never change): "
                "use the returned tensor")
        for unsupported in ("where", "initial"):
            if unsupported in kwargs:
                raise ArgumentError(
                    f"jeet.{name}: {unsupported}= is not supported (reduce "
                    "jeet.where(mask, x, identity) instead)")
        if dtype is not None:
            self = cast(self, dtype)
        return function(self, axis, keepdims, **kwargs)
    method.__name__ = name
    method.__doc__ = function.__doc__
    return method


for _name in ("sum", "max", "min", "mean", "prod", "argmax", "argmin", "var",
              "std", "any", "all"):
    setattr(Tensor, _name, _numpy_reduction_method(_name, getattr(Tensor, _name)))
del _name
