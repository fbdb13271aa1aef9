"""ATen ops (what torch.compile's graphs hold after the core ATen
decompositions) as jeet ops: one converter per op or family.

A converter takes the node's arguments with every tensor replaced by a jeet
tensor (Python numbers, lists and None as they are) and the node itself (for
its result's dtype and shape: node.meta['val']), and returns a jeet tensor,
or a tuple of them for an op with several results. It raises Unsupported
for a use of the op that Jeet does not compile; that node then runs in
torch.
"""

import math
import numbers
import weakref

import torch

from .. import _tensor as jt
from .._numpy_functions import topk, var
from .. import _frontends as built
from . import _dtypes

aten = torch.ops.aten

CONVERTERS = {}


Unsupported = _dtypes.Unsupported


def converter(*ops, needs=()):
    """Registers fn as the converter of the ATen overloads `ops`, when this
    build of jeet has the functions `needs` names."""
    def register(fn):
        if all(hasattr(jt, name) for name in needs):
            for op in ops:
                for overload in (op if isinstance(op, (list, tuple)) else [op]):
                    CONVERTERS[overload] = fn
        return fn
    return register


def _gelu_takes_approximate():
    import inspect
    return "approximate" in inspect.signature(jt.gelu).parameters


def _meta(a):
    """A node's argument as torch sees it: the fake tensor of a node, else
    the Python value."""
    return a.meta.get("val") if isinstance(a, torch.fx.Node) else a


def common_dtype(node):
    """The dtype torch computes a comparison's operands in."""
    return _dtypes.jeet_dtype(torch.result_type(*[_meta(a) for a in node.args[:2]]))


def _val(node):
    return node.meta.get("val")


def result_dtype(node):
    val = _val(node)
    if isinstance(val, (tuple, list)):
        val = val[0]
    return _dtypes.jeet_dtype(val.dtype)


def _is_tensor(x):
    return isinstance(x, jt.Tensor)


def _operand(x, dtype):
    """An operand of an elementwise op, as the node's result dtype (torch
    promotes operands to it)."""
    if _is_tensor(x):
        return x if x._dtype == dtype else jt.cast(x, dtype)
    if isinstance(x, bool):
        x = int(x)
    if isinstance(x, numbers.Number):
        return jt._scalar_constant(x, dtype, "torch")
    raise Unsupported(f"operand of type {type(x).__name__}")


def _dims(dims, rank):
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % rank if rank else 0 for d in dims})


# --------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------

_UNARY = {
    aten.neg.default: jt.neg, aten.abs.default: jt.abs, aten.exp.default: jt.exp,
    aten.log.default: jt.log, aten.sqrt.default: jt.sqrt,
    aten.rsqrt.default: jt.rsqrt, aten.tanh.default: jt.tanh,
    aten.sigmoid.default: jt.sigmoid, aten.relu.default: jt.relu,
}


@converter(list(_UNARY))
def _unary(node, x):
    return _UNARY[node.target](_operand(x, result_dtype(node)))


@converter(aten.reciprocal.default)
def _reciprocal(node, x):
    return jt.div(1.0, _operand(x, result_dtype(node)))


def _alpha(node, y, alpha, dtype):
    if alpha is None or alpha == 1:
        return _operand(y, dtype)
    return jt.mul(_operand(y, dtype), _operand(alpha, dtype))


@converter([aten.add.Tensor, aten.add.Scalar])
def _add(node, x, y, alpha=1):
    dtype = result_dtype(node)
    return jt.add(_operand(x, dtype), _alpha(node, y, alpha, dtype))


@converter([aten.sub.Tensor, aten.sub.Scalar])
def _sub(node, x, y, alpha=1):
    dtype = result_dtype(node)
    return jt.sub(_operand(x, dtype), _alpha(node, y, alpha, dtype))


@converter([aten.rsub.Scalar, aten.rsub.Tensor])
def _rsub(node, x, y, alpha=1):
    dtype = result_dtype(node)
    return jt.sub(_operand(y, dtype), _alpha(node, x, alpha, dtype))


@converter([aten.mul.Tensor, aten.mul.Scalar])
def _mul(node, x, y):
    dtype = result_dtype(node)
    return jt.mul(_operand(x, dtype), _operand(y, dtype))


@converter([aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode,
            aten.div.Scalar_mode])
def _div(node, x, y, rounding_mode=None, dtype=None):
    dtype = dtype or result_dtype(node)
    floats = dtype in ("f32", "f16", "bf16")
    if rounding_mode is None:
        if not floats:
            raise Unsupported("true division to an integer dtype")
        return jt.div(_operand(x, dtype), _operand(y, dtype))
    if rounding_mode not in ("trunc", "floor") or not hasattr(jt, "floor"):
        raise Unsupported(f"division with rounding_mode={rounding_mode!r}")
    if dtype in jt._NARROW_FLOATS:
        # In float32 (a Python scalar too, as PyTorch keeps it), rounded
        # once: x / y rounded to the narrow type may cross an integer (bf16
        # 2.99 is 3.0), and so may x / 3.3 with 3.3 rounded to f16 first
        # (439 / 3.30078 is 132.999): the quotient was off by one.
        x, y = _operand(x, "f32"), _operand(y, "f32")
        return jt.cast(_div(node, x, y, rounding_mode=rounding_mode, dtype="f32"),
                       dtype)
    x, y = _operand(x, dtype), _operand(y, dtype)
    quotient = jt.div(x, y)
    if floats:
        if rounding_mode == "floor":
            return jt._float_floor_quotient(quotient, x, y)
        return jt.where(jt.lt(quotient, 0.0), jt.ceil(quotient), jt.floor(quotient))
    if rounding_mode == "trunc":
        return quotient
    return jt._floor_quotient(quotient, x, y)


@converter(aten.floor_divide.default, aten.floor_divide.Scalar,
           needs=("fmod", "floor"))
def _floor_divide(node, x, y):
    return _div(node, x, y, rounding_mode="floor")


@converter([aten.remainder.Tensor, aten.remainder.Scalar,
            aten.remainder.Scalar_Tensor], needs=("remainder",))
def _remainder(node, x, y):
    dtype = result_dtype(node)
    # torch's remainder: fmod moved by one divisor where its sign differs
    # from the divisor's; a zero keeps fmod's sign (the dividend's: -0.0 % 1
    # is -0.0 in torch, +0.0 in NumPy, whose rule jeet.remainder follows).
    x, y = _operand(x, dtype), _operand(y, dtype)
    r = jt.fmod(x, y)
    return jt.where(jt._rounded_toward_zero_past(r, y), jt.add(r, y), r)


@converter([aten.fmod.Tensor, aten.fmod.Scalar], needs=("fmod",))
def _fmod(node, x, y):
    dtype = result_dtype(node)
    return jt.fmod(_operand(x, dtype), _operand(y, dtype))


@converter([aten.maximum.default, aten.minimum.default])
def _max_min(node, x, y):
    dtype = result_dtype(node)
    fn = jt.maximum if node.target == aten.maximum.default else jt.minimum
    return fn(_operand(x, dtype), _operand(y, dtype))


@converter([aten.clamp.default, aten.clamp.Tensor])
def _clamp(node, x, lo=None, hi=None):
    dtype = result_dtype(node)
    x = _operand(x, dtype)
    if lo is not None:
        x = jt.maximum(x, _operand(lo, dtype))
    if hi is not None:
        x = jt.minimum(x, _operand(hi, dtype))
    return x


@converter([aten.clamp_min.default, aten.clamp_min.Tensor])
def _clamp_min(node, x, lo):
    return _clamp(node, x, lo, None)


@converter([aten.clamp_max.default, aten.clamp_max.Tensor])
def _clamp_max(node, x, hi):
    return _clamp(node, x, None, hi)


@converter([aten.pow.Tensor_Scalar, aten.pow.Tensor_Tensor, aten.pow.Scalar])
def _pow(node, x, y):
    dtype = result_dtype(node)
    if dtype not in ("f32", "f16", "bf16", "i32", "i64"):
        raise Unsupported(f"pow with a result of dtype {dtype}")
    if isinstance(y, numbers.Number) and y == 2:
        x = _operand(x, dtype)
        return jt.mul(x, x)
    return jt.pow(_operand(x, dtype), _operand(y, dtype))


@converter(aten.gelu.default)
def _gelu(node, x, approximate="none"):
    x = _operand(x, result_dtype(node))
    if _gelu_takes_approximate():
        return jt.gelu(x, approximate=approximate)
    if approximate == "tanh":
        return jt.gelu(x)
    raise Unsupported("the exact (erf) GELU needs erf, which this build of Jeet lacks")


_COMPARE = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}


@converter([getattr(aten, name).Tensor for name in _COMPARE]
           + [getattr(aten, name).Scalar for name in _COMPARE],
           needs=tuple(_COMPARE.values()))
def _compare(node, x, y):
    dtype = common_dtype(node)
    name = node.target.overloadpacket.__name__
    return getattr(jt, _COMPARE[name])(_operand(x, dtype), _operand(y, dtype))


@converter([aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther,
            aten.where.Scalar], needs=("where",))
def _where(node, condition, x, y):
    dtype = result_dtype(node)
    return jt.where(condition, _operand(x, dtype), _operand(y, dtype))


_LOGICAL = {aten.logical_and.default: "logical_and",
            aten.logical_or.default: "logical_or",
            aten.logical_xor.default: "logical_xor"}


@converter(list(_LOGICAL), needs=tuple(_LOGICAL.values()))
def _logical(node, x, y):
    return getattr(jt, _LOGICAL[node.target])(x, y)


@converter(aten.logical_not.default, needs=("logical_not",))
def _logical_not(node, x):
    return jt.logical_not(x)


_BITWISE = {aten.bitwise_and.Tensor: "bitwise_and", aten.bitwise_or.Tensor: "bitwise_or",
            aten.bitwise_xor.Tensor: "bitwise_xor"}


@converter(list(_BITWISE), needs=tuple(_BITWISE.values()))
def _bitwise(node, x, y):
    dtype = result_dtype(node)
    return getattr(jt, _BITWISE[node.target])(_operand(x, dtype), _operand(y, dtype))


@converter(aten.bitwise_not.default, needs=("bitwise_not",))
def _bitwise_not(node, x):
    return jt.bitwise_not(x)


_MATH = {aten.erf.default: "erf", aten.sin.default: "sin", aten.cos.default: "cos",
         aten.tan.default: "tan", aten.asin.default: "asin",
         aten.acos.default: "acos", aten.atan.default: "atan",
         aten.sinh.default: "sinh", aten.cosh.default: "cosh",
         aten.asinh.default: "asinh", aten.acosh.default: "acosh",
         aten.atanh.default: "atanh", aten.floor.default: "floor",
         aten.ceil.default: "ceil", aten.round.default: "round"}


@converter(list(_MATH), needs=tuple(_MATH.values()))
def _math(node, x):
    dtype = result_dtype(node)
    name = _MATH[node.target]
    if name in ("floor", "ceil", "round") and dtype not in ("f32", "f16", "bf16"):
        # torch rounds an integer tensor to itself.
        return _operand(x, dtype)
    return getattr(jt, name)(_operand(x, dtype))


@converter(aten.arange.default, aten.arange.start, aten.arange.start_step,
           needs=("iota", "cast"))
def _arange(node, *args, dtype=None):
    # torch.arange with Python numbers for bounds (positions, the rows and
    # columns of tril/triu's masks, which torch decomposes into aranges):
    # start + i * step, computed in int64 for integer results and in float32
    # (i exact) for floating ones.
    if any(not isinstance(a, numbers.Number) for a in args):
        raise Unsupported("arange with tensor bounds")
    if node.target is aten.arange.default:
        start, step = 0, 1
    else:
        start = args[0]
        step = args[2] if node.target is aten.arange.start_step and len(args) > 2 else 1
    out = result_dtype(node)
    length = int(_val(node).shape[0])
    if length == 0:
        raise Unsupported("an empty arange")
    index = jt.iota((length,), axis=0, dtype="int64")
    if out in ("i32", "i64"):
        if not all(float(v).is_integer() for v in (start, step)):
            raise Unsupported("an integer arange with a fractional start or step")
        values = jt.add(jt.mul(index, int(step)), int(start)) if (start, step) != (0, 1) else index
        return values if out == "i64" else jt.cast(values, out)
    if out not in ("f32", "f16", "bf16"):
        raise Unsupported(f"arange of {out}")
    values = jt.cast(index, "f32")
    if step != 1:
        values = jt.mul(values, float(step))
    if start != 0:
        values = jt.add(values, float(start))
    return values if out == "f32" else jt.cast(values, out)


@converter(aten.leaky_relu.default)
def _leaky_relu(node, x, negative_slope=0.01):
    x = _operand(x, result_dtype(node))
    return jt.add(jt.relu(x), jt.mul(jt.minimum(x, 0.0), float(negative_slope)))


@converter(aten.hardtanh.default)
def _hardtanh(node, x, lo=-1.0, hi=1.0):
    return _clamp(node, x, lo, hi)


# --------------------------------------------------------------------------
# Linear algebra
# --------------------------------------------------------------------------


def _batches_of(x):
    """The tensor that a reshape flattened into x's batch dimension (its
    matrices unchanged), or None: the (batch, head, ...) operands that
    torch's decomposition of a batched matmul collapses to (batch * head,
    ...)."""
    if getattr(x, "_op", None) != "jeet.reshape" or x.ndim != 3:
        return None
    (source,) = x._inputs
    if (source.ndim > 3 and source.shape[-2:] == x.shape[-2:]
            and math.prod(source.shape[:-2]) == x.shape[0]):
        return source
    return None


def _rows_of(x):
    """The tensor of rank > 2 that a reshape flattened into x's rows (its
    last dimension unchanged), or None: a linear layer's input, which
    torch's decomposition views as (batch * seq, features)."""
    if getattr(x, "_op", None) != "jeet.reshape" or x.ndim != 2:
        return None
    (source,) = x._inputs
    return source if source.ndim > 2 and source.shape[-1] == x.shape[-1] else None


def _matmul_of_rows(a, b):
    """a @ b for a 2-D b, computed on the tensor that a's rows were
    flattened from when there is one (the matmul takes its batch
    dimensions as they are), then flattened as torch's result is: the view
    back to (batch, seq, features) that follows a linear layer undoes it,
    and no reshape is left on either side of the matmul."""
    source = _rows_of(a) if b.ndim == 2 else None
    if source is None:
        return jt.matmul(a, b)
    y = jt.matmul(source, b)
    return y, (a.shape[0], b.shape[1])


@converter([aten.mm.default, aten.bmm.default])
def _mm(node, a, b):
    # bmm(view(a4, (B*H, m, k)), view(b4, (B*H, k, n))): the matmul of the
    # uncollapsed operands, whose batch dimensions need no copy of a
    # permuted (B, H) view, and where a transpose of b4's matrices folds
    # into the matmul (attention's Q @ K^T); the result is collapsed as
    # torch's is, and the view that follows it undoes that.
    a4, b4 = _batches_of(a), _batches_of(b)
    if a4 is not None and b4 is not None and a4.shape[:-2] == b4.shape[:-2]:
        y = jt.matmul(a4, b4)
        return jt.reshape(y, (a.shape[0],) + y.shape[-2:])
    y = _matmul_of_rows(a, b)
    return jt.reshape(*y) if isinstance(y, tuple) else y


@converter(aten.addmm.default)
def _addmm(node, bias, a, b, beta=1, alpha=1):
    dtype = result_dtype(node)
    # A bias of whole rows (rank 2) is added to the flat product.
    y = (_matmul_of_rows(a, b) if getattr(bias, "ndim", 0) <= 1
         else jt.matmul(a, b))
    y, flat = y if isinstance(y, tuple) else (y, None)
    y = _addmm_terms(y, bias, dtype, beta, alpha)
    return jt.reshape(y, flat) if flat else y


def _addmm_terms(y, bias, dtype, beta, alpha):
    if alpha != 1:
        y = jt.mul(y, _operand(alpha, dtype))
    if beta == 0:
        return y
    if beta != 1:
        bias = jt.mul(_operand(bias, dtype), _operand(beta, dtype))
    return jt.add(y, _operand(bias, dtype))


# --------------------------------------------------------------------------
# Views and copies (values: Jeet has no aliasing)
# --------------------------------------------------------------------------


def _shape_of(node):
    return tuple(int(d) for d in _val(node).shape)


@converter([aten.view.default, aten._unsafe_view.default, aten.reshape.default,
            aten.view_copy.default, aten.expand.default, aten.expand_copy.default,
            aten.unsqueeze.default, aten.unsqueeze_copy.default,
            aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default,
            aten.squeeze_copy.dim, aten.squeeze_copy.dims,
            aten.squeeze_copy.default, aten.flatten.using_ints])
def _reshape_like(node, x, *args):
    shape = _shape_of(node)
    if node.target in (aten.expand.default, aten.expand_copy.default):
        return jt.broadcast_to(x, shape)
    # A view back to the shape before the previous one is that shape's tensor.
    if getattr(x, "_op", None) == "jeet.reshape" and x._inputs[0].shape == shape:
        return x._inputs[0]
    return jt.reshape(x, shape)


@converter([aten.permute.default, aten.permute_copy.default])
def _permute(node, x, dims):
    return jt.transpose(x, [d % x.ndim for d in dims])


@converter([aten.t.default, aten.t_copy.default])
def _t(node, x):
    return jt.transpose(x) if x.ndim == 2 else x


@converter([aten.transpose.int, aten.transpose_copy.int])
def _transpose(node, x, d0, d1):
    perm = list(range(x.ndim))
    d0, d1 = d0 % x.ndim, d1 % x.ndim
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return jt.transpose(x, perm)


@converter([aten.clone.default, aten.alias.default, aten.alias_copy.default,
            aten.detach.default, aten.lift_fresh_copy.default,
            aten.contiguous.default])
def _identity(node, x, *args, **kwargs):
    return x


@converter([aten._to_copy.default])
def _to_copy(node, x, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    if device is not None and torch.device(device).type != "cpu":
        raise Unsupported(f"a copy to device {device}")
    target = result_dtype(node)
    return x if x._dtype == target else jt.cast(x, target)


# --------------------------------------------------------------------------
# Reductions and normalisations
# --------------------------------------------------------------------------


def _reduce(fn, node, x, dims, keepdim, dtype):
    if dtype is not None:
        x = _operand(x, _dtypes.jeet_dtype(dtype))
    dims = _dims(dims if dims not in ([], ()) else None, x.ndim)
    return fn(x, dims, bool(keepdim))


@converter([aten.sum.dim_IntList, aten.sum.default])
def _sum(node, x, dims=None, keepdim=False, dtype=None):
    return _reduce(jt.sum, node, x, dims, keepdim, dtype)


@converter([aten.mean.dim, aten.mean.default])
def _mean(node, x, dims=None, keepdim=False, dtype=None):
    return _reduce(jt.mean, node, x, dims, keepdim, dtype)


_ANY = (aten.any.dim, aten.any.dims, aten.any.default)
_ALL = (aten.all.dim, aten.all.dims, aten.all.default)


@converter(list(_ANY + _ALL))
def _any_all(node, x, dim=None, keepdim=False):
    # Whether any (every) element is non-zero: a max (min) of x != 0.
    from .. import _numpy_functions
    if result_dtype(node) != "i1":
        raise Unsupported("any or all with a uint8 result")
    fn = _numpy_functions.any if node.target in _ANY else _numpy_functions.all
    return fn(x, _dims(dim if dim not in ([], ()) else None, x.ndim), bool(keepdim))


@converter(aten.amax.default)
def _amax(node, x, dims=(), keepdim=False):
    return _reduce(jt.max, node, x, dims, keepdim, None)


@converter([aten.var.correction, aten.var.dim])
def _var(node, x, dims=None, *args, correction=None, keepdim=False, **kwargs):
    if node.target == aten.var.dim:
        unbiased = args[0] if args else kwargs.get("unbiased", True)
        correction = 1 if unbiased else 0
        keepdim = args[1] if len(args) > 1 else keepdim
    correction = 1 if correction is None else correction
    # jeet.var: two passes, float16 and bfloat16 in float32 rounded once (as
    # PyTorch: the sum of squares passes float16's 65504 long before the
    # variance does).
    return var(x, _dims(dims, x.ndim), bool(keepdim), correction)


@converter(aten._softmax.default)
def _softmax(node, x, dim, half_to_float):
    if half_to_float:
        x = jt.cast(x, "f32")
    return jt.softmax(x, dim % x.ndim)


@converter(aten._log_softmax.default)
def _log_softmax(node, x, dim, half_to_float):
    if half_to_float:
        x = jt.cast(x, "f32")
    dim = dim % x.ndim
    shifted = jt.sub(x, jt.max(x, dim, True))
    return jt.sub(shifted, jt.log(jt.sum(jt.exp(shifted), dim, True)))


@converter(aten.native_layer_norm.default)
def _layer_norm(node, x, normalized_shape, weight, bias, eps):
    # float16 and bfloat16 compute in float32 and round the results once, as
    # PyTorch does: squared deviations past 256 overflow float16 (the
    # variance was infinite and every output 0 for values near 300).
    dtype = x._dtype
    x, weight, bias = _widened(x, weight, bias)
    dims = list(range(x.ndim - len(normalized_shape), x.ndim))
    mean = jt.mean(x, dims, True)
    centered = jt.sub(x, mean)
    variance = jt.mean(jt.mul(centered, centered), dims, True)
    rstd = jt.rsqrt(jt.add(variance, float(eps)))
    y = jt.mul(centered, rstd)
    if weight is not None:
        y = jt.mul(y, weight)
    if bias is not None:
        y = jt.add(y, bias)
    return tuple(jt._narrowed(v, dtype) for v in (y, mean, rstd))



def _widened(*values):
    """Tensors of float16 or bfloat16 cast to float32 (None and others as
    they are): PyTorch computes its composite ops on narrow floats in float32
    (its accumulate type) and rounds the result once."""
    return tuple(jt._widened(v) if isinstance(v, jt.Tensor) else v for v in values)

def _per_channel(v, rank):
    return jt.reshape(v, (v.shape[0],) + (1,) * (rank - 2))


def _batch_norm_inference(node, x, weight, bias, mean, var, eps):
    if mean is None or var is None:
        raise Unsupported("batch norm without running statistics")
    # s = weight / sqrt(var + eps); y = x * s + (bias - mean * s): a
    # per-channel scale and shift that jeet-fuse puts into the producer's
    # epilogue (the convolution's), i.e. batch norm folded for inference.
    # float16 and bfloat16 in float32: x * s and mean * s cancel (bf16
    # values near 300 lost three times PyTorch's error).
    weight, bias, mean, var = _widened(weight, bias, mean, var)
    s = jt.rsqrt(jt.add(var, float(eps)))
    if weight is not None:
        s = jt.mul(s, weight)
    shift = jt.neg(jt.mul(mean, s))
    if bias is not None:
        shift = jt.add(shift, bias)
    folded = _fold_into_convolution(node, x, s, shift)
    if folded is not None:
        return (folded, None, None)
    (wide,) = _widened(x)
    y = jt.add(jt.mul(wide, _per_channel(s, x.ndim)), _per_channel(shift, x.ndim))
    if y._dtype != x._dtype:
        y = jt.cast(y, x._dtype)
    return (y, None, None)


def _fold_into_convolution(node, x, scale, shift):
    """A batch norm of a 2-D convolution that nothing else reads, as the
    convolution of the scaled filter with the shifted bias: conv(x, w) * s +
    t = conv(x, w * s) + (b * s + t), per output channel. The filter and the
    bias are parameters: their scaling runs once, in the preparation graph,
    and each call's epilogue is the convolution's bias alone (as an ONNX
    export, which folds batch norm the same way, has it). None otherwise."""
    producer = node.args[0]
    conv = _CONVOLUTIONS.get(producer) if isinstance(producer, torch.fx.Node) else None
    if conv is None or conv[0] is not x or len(producer.users) != 1:
        return None
    _, x2, weight, bias, params = conv
    channels = weight.shape[0]
    dtype = weight._dtype
    weight, bias = _widened(weight, bias)  # scaled in the scale's float32
    weight = jt.mul(weight, jt.reshape(scale, (channels, 1, 1, 1)))
    if bias is not None:
        shift = jt.add(jt.mul(bias, scale), shift)
    if weight._dtype != dtype:
        weight, shift = jt.cast(weight, dtype), jt.cast(shift, dtype)
    return jt.conv2d(x2, weight, shift, **params)


@converter(aten._native_batch_norm_legit_no_training.default)
def _batch_norm_no_training(node, x, weight, bias, mean, var, momentum, eps):
    return _batch_norm_inference(node, x, weight, bias, mean, var, eps)


@converter([aten.native_batch_norm.default,
            aten._native_batch_norm_legit_functional.default])
def _native_batch_norm(node, x, weight, bias, mean, var, training, momentum, eps):
    if training:
        raise Unsupported("batch norm in training mode")
    return _batch_norm_inference(node, x, weight, bias, mean, var, eps)


# --------------------------------------------------------------------------
# Creation
# --------------------------------------------------------------------------


@converter([aten.full.default])
def _full(node, size, fill_value, **kwargs):
    import numpy as np
    dtype = result_dtype(node)
    array = np.full(tuple(size), fill_value, _dtypes.numpy_storage_dtype(dtype))
    return jt._constant(array, dtype)


@converter([aten.full_like.default, aten.new_full.default], needs=("broadcast_to",))
def _full_like(node, x, *args, **kwargs):
    # full_like(x, value) and x.new_full(size, value): a broadcast scalar.
    value = args[-1] if node.target == aten.full_like.default else args[1]
    dtype = result_dtype(node)
    return jt.broadcast_to(jt._scalar_constant(value, dtype, "torch"), _shape_of(node))


@converter([aten.empty.memory_format, aten.empty_strided.default, aten.empty_like.default,
            aten.new_empty.default, aten.new_empty_strided.default],
           needs=("broadcast_to",))
def _empty(node, *args, **kwargs):
    # Uninitialised memory in torch: whatever a program reads of it before
    # writing is unspecified, and Jeet's is zeros (a broadcast scalar, not a
    # constant array).
    dtype = result_dtype(node)
    return jt.broadcast_to(jt._scalar_constant(0, dtype, "torch"), _shape_of(node))


@converter([aten.scalar_tensor.default])
def _scalar_tensor(node, value, **kwargs):
    return jt._scalar_constant(value, result_dtype(node), "torch")


# --------------------------------------------------------------------------
# Indexing and data movement
# --------------------------------------------------------------------------


@converter(aten.embedding.default, needs=("take",))
def _embedding(node, weight, indices, *args, **kwargs):
    # padding_idx only matters for gradients.
    return jt.take(weight, indices, 0)


@converter(aten.index_select.default, needs=("take",))
def _index_select(node, x, dim, index):
    return jt.take(x, index, dim % max(x.ndim, 1))


@converter(aten.flip.default)
def _flip(node, x, dims):
    # Each flipped dimension a slice with step -1.
    flipped = {d % max(x.ndim, 1) for d in dims}
    return x[tuple(slice(None, None, -1) if d in flipped else slice(None)
                   for d in range(x.ndim))]


@converter(aten.index.Tensor, needs=("take", "iota", "where", "lt"))
def _index(node, x, indices):
    # x[idx] (and x[:, idx], ...): one integer index tensor, the other
    # dimensions whole, is numpy.take along that dimension. Several index
    # tensors (x[i, j], x[:, i, j], x[i, :, j]) broadcast together to a
    # shape B and pick elements (or slices) in pairs: their flat index in
    # the indexed dimensions, sum of each (wrapped) index times its stride,
    # and one take of x with those dimensions collapsed into one. Adjacent
    # indexed dimensions are replaced by B where they were (collapsed in
    # place by a reshape); otherwise B comes first (the indexed dimensions
    # transposed to the front), as torch and numpy define it. Boolean masks
    # (a shape that depends on the data) stay in torch.
    given = [(d, i) for d, i in enumerate(indices) if i is not None]
    if not given or any(not _is_tensor(i) for _, i in given):
        raise Unsupported("indexing without an index tensor")
    for _, index in given:
        if index._dtype not in ("i32", "i64"):
            raise Unsupported(f"indexing with a {index._dtype} tensor")
    if len(given) == 1:
        dim, index = given[0]
        return jt.take(x, index, dim)
    if x.size == 0 or any(i.size == 0 for _, i in given):
        raise Unsupported("indexing with an empty tensor")
    dims = [d for d, _ in given]
    sizes = [x.shape[d] for d in dims]
    flat = built.flat_index([(index, size, step) for (_, index), size, step
                             in zip(given, sizes, built.strides(sizes))])
    shape = tuple(int(n) for n in torch.broadcast_shapes(*(tuple(i.shape) for _, i in given)))
    flat = jt.broadcast_to(flat, shape)
    if dims == list(range(dims[0], dims[-1] + 1)):
        first = dims[0]
        collapsed = x.shape[:first] + (math.prod(sizes),) + x.shape[dims[-1] + 1:]
        return jt.take(jt.reshape(x, collapsed), flat, first)
    rest = [d for d in range(x.ndim) if d not in dims]
    front = jt.transpose(x, dims + rest)
    return jt.take(jt.reshape(front, (math.prod(sizes),) + tuple(x.shape[d] for d in rest)),
                   flat, 0)


@converter(aten.gather.default, needs=("take", "iota", "where", "lt"))
def _gather(node, x, dim, index, sparse_grad=False):
    # torch.gather: out[i][j][k] = x[i][index[i][j][k]][k] (dim 1), ONNX's
    # GatherElements: one take of the flattened x at flat indices.
    if x.ndim == 0 or index.ndim != x.ndim:
        raise Unsupported("gather of a scalar or with an index of another rank")
    if x.size == 0 or index.size == 0:
        raise Unsupported("gather with an empty tensor")
    return built.gather_along(x, index, dim % x.ndim)


@converter([aten.cumsum.default, aten.cumprod.default], needs=("pad",))
def _cumulative(node, x, dim, dtype=None):
    # A Hillis-Steele scan (ceil(log2 n) rounds of a shifted add or
    # multiply), in the result's dtype (torch sums and multiplies integers
    # and bools in int64).
    x = _operand(x, result_dtype(node))
    if x.ndim == 0:
        return x
    if x.size == 0:
        raise Unsupported("an empty input")
    # float16 and bfloat16 accumulate in float32, as PyTorch's.
    (wide,) = _widened(x)
    if node.target is aten.cumsum.default:
        scanned = built.scan(wide, dim % x.ndim, jt.add, 0)
    else:
        scanned = built.scan(wide, dim % x.ndim, jt.mul, 1)
    return scanned if scanned._dtype == x._dtype else jt.cast(scanned, x._dtype)


def _sliced(x, dim, piece):
    slices = [slice(None)] * x.ndim
    slices[dim] = piece
    return x[tuple(slices)]


@converter([aten.slice.Tensor, aten.slice_copy.Tensor])
def _slice(node, x, dim=0, start=None, end=None, step=1):
    dim = dim % x.ndim
    piece = slice(start, end, step)
    if len(range(*piece.indices(x.shape[dim]))) == 0:
        raise Unsupported("an empty slice")
    if piece.indices(x.shape[dim]) == (0, x.shape[dim], 1):
        return x
    return _sliced(x, dim, piece)


@converter([aten.select.int, aten.select_copy.int])
def _select(node, x, dim, index):
    dim = dim % x.ndim
    return _sliced(x, dim, index)


@converter([aten.split_with_sizes.default, aten.split.Tensor,
            aten.split_with_sizes_copy.default, aten.split_copy.Tensor])
def _split(node, x, sizes, dim=0):
    dim = dim % x.ndim
    size = x.shape[dim]
    if isinstance(sizes, numbers.Integral):
        sizes = [min(sizes, size - i) for i in range(0, size, sizes)]
    if 0 in sizes:
        raise Unsupported("an empty piece")
    pieces, start = [], 0
    for s in sizes:
        pieces.append(x if s == size else _sliced(x, dim, slice(start, start + s)))
        start += s
    return tuple(pieces)


@converter(aten.cat.default, needs=("concatenate",))
def _cat(node, tensors, dim=0):
    dtype = result_dtype(node)
    tensors = [_operand(t, dtype) for t in tensors if t.size]
    if not tensors:
        raise Unsupported("an empty result")
    return tensors[0] if len(tensors) == 1 else jt.concatenate(tensors, dim % tensors[0].ndim)


@converter([aten.as_strided.default, aten.as_strided_copy.default],
           needs=("take", "reshape"))
def _as_strided(node, x, size, stride, storage_offset=None):
    # A view of the input's storage: element i of the result is the
    # storage's element offset + sum(i_k * stride_k). Of a contiguous input
    # (whose storage is its elements in order) that is a reshape where those
    # positions are 0, 1, 2, ... (strides of size-1 dimensions are free),
    # else one take at those positions (known from the shapes).
    import numpy as np
    meta = _meta(node.args[0])
    if not meta.is_contiguous() or meta.storage_offset() != 0:
        raise Unsupported("as_strided of a tensor that is not contiguous")
    size, stride = [int(v) for v in size], [int(v) for v in stride]
    offset = int(storage_offset or 0)
    count = int(np.prod(size, dtype=np.int64))
    if count == 0:
        raise Unsupported("an empty result")
    if count > 1 << 22:
        raise Unsupported("a strided view of more than 2**22 elements")
    positions = np.full(size, offset, np.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        positions = positions + np.arange(n, dtype=np.int64).reshape(shape) * st
    total = int(np.prod(x.shape, dtype=np.int64))
    if positions.min() < 0 or positions.max() >= total:
        raise Unsupported("a strided view past the tensor's elements")
    if np.array_equal(positions.reshape(-1), np.arange(count)):
        return jt.reshape(x, tuple(size))
    flat = jt.reshape(x, (total,))
    return jt.reshape(jt.take(flat, jt._constant(positions.reshape(-1), "i64")),
                      tuple(size))


@converter(aten.copy.default, needs=("broadcast_to",))
def _copy(node, dst, src, non_blocking=False):
    # The functional copy: src as dst's dtype, broadcast to dst's shape.
    src = _operand(src, dst._dtype)
    return src if src.shape == dst.shape else jt.broadcast_to(src, dst.shape)


def _scattered(x, src, dim, piece):
    """x with x[..., piece, ...] (along dim) replaced by src: with a step of
    1 the pieces before and after and src joined; else one gather of src
    over the whole dimension, selected where the piece's positions are."""
    import numpy as np
    positions = range(*piece.indices(x.shape[dim]))
    if len(positions) == 0:
        return x
    src = _operand(src, x._dtype)
    shape = tuple(x.shape[:dim]) + (len(positions),) + tuple(x.shape[dim + 1:])
    if tuple(src.shape) != shape:
        src = jt.broadcast_to(src, shape)
    if len(positions) == x.shape[dim]:
        return src
    if positions.step == 1:
        parts = []
        if positions.start > 0:
            parts.append(_sliced(x, dim, slice(0, positions.start)))
        parts.append(src)
        if positions.stop < x.shape[dim]:
            parts.append(_sliced(x, dim, slice(positions.stop, None)))
        return jt.concatenate(parts, dim)
    index = np.zeros(x.shape[dim], np.int64)
    index[list(positions)] = np.arange(len(positions))
    mask = np.zeros(x.shape[dim], np.bool_)
    mask[list(positions)] = True
    along = [1] * x.ndim
    along[dim] = x.shape[dim]
    spread = jt.take(src, jt._constant(index, "i64"), dim)
    return jt.where(jt._constant(mask.reshape(along), "i1"), spread, x)


@converter(aten.slice_scatter.default, needs=("concatenate", "take", "where"))
def _slice_scatter(node, x, src, dim=0, start=None, end=None, step=1):
    return _scattered(x, src, dim % x.ndim, slice(start, end, step))


@converter(aten.select_scatter.default, needs=("concatenate", "take", "where"))
def _select_scatter(node, x, src, dim, index):
    dim = dim % x.ndim
    index = index % x.shape[dim]
    src = jt.reshape(src, tuple(x.shape[:dim]) + (1,) + tuple(x.shape[dim + 1:]))
    return _scattered(x, src, dim, slice(index, index + 1))


@converter(aten.constant_pad_nd.default, needs=("pad",))
def _constant_pad(node, x, pad, value=0):
    # pad: (before, after) pairs from the last dimension backwards; a
    # negative entry crops.
    widths = [[0, 0] for _ in range(x.ndim)]
    for i in range(len(pad) // 2):
        dim = x.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if before < 0 or after < 0:
            x = _sliced(x, dim, slice(max(-before, 0), x.shape[dim] - max(-after, 0)))
        widths[dim] = [max(before, 0), max(after, 0)]
    if all(w == [0, 0] for w in widths):
        return x
    return jt.pad(x, widths, value)


# --------------------------------------------------------------------------
# Convolution and pooling (2-D; 1-D as 2-D of height 1)
# --------------------------------------------------------------------------


def _as_2d(x, what):
    if x.ndim == 3:
        return jt.reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2]))
    if x.ndim != 4:
        raise Unsupported(f"a {x.ndim - 2}-D {what}")
    return x


def _hw(rank, value, fill):
    """A 1-D or 2-D op's per-dimension argument as (H, W): the 1-D op's
    single value gets `fill` for the added height."""
    value = list(value) if isinstance(value, (list, tuple)) else [value]
    spatial = rank - 2
    if len(value) == 1:
        value = value * spatial
    return [fill] + value if spatial == 1 else value


def _from_2d(y, rank):
    return jt.reshape(y, (y.shape[0], y.shape[1], y.shape[3])) if rank == 3 else y


# Each 2-D convolution converted, by its node: (its result, its input,
# filter and bias, conv2d's other arguments), for a batch norm after it to
# fold into it (_fold_into_convolution).
_CONVOLUTIONS = weakref.WeakKeyDictionary()


@converter(aten.convolution.default, needs=("conv2d",))
def _convolution(node, x, weight, bias, stride, padding, dilation, transposed,
                 output_padding, groups):
    if transposed:
        raise Unsupported("a transposed convolution")
    rank = x.ndim
    x2, w2 = _as_2d(x, "convolution"), _as_2d(weight, "convolution")
    pad_h, pad_w = _hw(rank, padding, 0)
    params = dict(stride=tuple(_hw(rank, stride, 1)), padding=(pad_h, pad_w),
                  dilation=tuple(_hw(rank, dilation, 1)), groups=int(groups))
    y = jt.conv2d(x2, w2, bias, **params)
    if rank == 4:
        _CONVOLUTIONS[node] = (y, x2, w2, bias, params)
    return _from_2d(y, rank)


@converter([aten.max_pool2d_with_indices.default, aten.max_pool2d.default],
           needs=("max_pool2d",))
def _max_pool2d(node, x, kernel_size, stride=(), padding=0, dilation=1,
                ceil_mode=False):
    kernel = _hw(4, kernel_size, 1)
    stride = _hw(4, stride, 1) if stride not in ((), [], None) else kernel
    padding, dilation = _hw(4, padding, 0), _hw(4, dilation, 1)
    y = jt.max_pool2d(x, tuple(kernel), tuple(stride), tuple(padding), tuple(dilation),
                      ceil_mode=bool(ceil_mode))
    if node.target == aten.max_pool2d.default:
        return y
    return (y, None)  # the indices: only for gradients


@converter(aten.avg_pool2d.default, needs=("avg_pool2d",))
def _avg_pool2d(node, x, kernel_size, stride=(), padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    if divisor_override is not None:
        raise Unsupported("divisor_override")
    kernel = _hw(4, kernel_size, 1)
    stride = _hw(4, stride, 1) if stride not in ((), [], None) else kernel
    padding = _hw(4, padding, 0)
    return jt.avg_pool2d(x, tuple(kernel), tuple(stride), tuple(padding),
                         bool(count_include_pad), ceil_mode=bool(ceil_mode))


# --------------------------------------------------------------------------
# More reductions
# --------------------------------------------------------------------------


@converter(aten.amin.default)
def _amin(node, x, dims=(), keepdim=False):
    return _reduce(jt.min, node, x, dims, keepdim, None)


@converter([aten.prod.dim_int, aten.prod.default])
def _prod(node, x, dim=None, keepdim=False, dtype=None):
    # torch multiplies bool and int32 in int64: the result's dtype.
    x = _operand(x, result_dtype(node))
    return _reduce(jt.prod, node, x, dim, keepdim, None)


@converter([aten.topk.default])
def _topk(node, x, k, dim=-1, largest=True, sorted=True):
    # Sorted either way; among equal values the lower index first (torch
    # leaves their order open).
    if x.ndim == 0:
        return x, jt.zeros(dtype="int64")
    return tuple(topk(x, k, dim % x.ndim, largest=bool(largest)))


@converter([aten.argmax.default, aten.argmin.default], needs=("argmax", "argmin"))
def _argmax(node, x, dim=None, keepdim=False):
    fn = jt.argmax if node.target == aten.argmax.default else jt.argmin
    if dim is None:
        y = fn(x, None, False)
        return jt.reshape(y, (1,) * x.ndim) if keepdim else y
    return fn(x, dim % max(x.ndim, 1), bool(keepdim))
