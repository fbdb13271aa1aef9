"""ONNX ops as jeet ops: one converter per op (or family), and the folders
that compute integer shape arithmetic known when the model is loaded.

A converter takes a Node (_importer.py) and returns the node's outputs as
jeet tensors (None for an optional output it does not produce). Composite
ONNX ops (LayerNormalization, LogSoftmax, Gemm, ...) become several jeet
ops, which jeet-fuse groups into kernels like any other graph.
"""

import numpy as np
from onnx import TensorProto

from .. import _tensor as jt
from .._numpy_functions import log1p, logsumexp, topk
from .._tensor import _narrowed, _widened
from .. import _frontends as built
from ..errors import ShapeError
from . import _types
from ._importer import Static

CONVERTERS = {}
FOLDERS = {}


def converter(*op_types, needs=()):
    """Registers fn as the converter of op_types, when this build of jeet
    has the functions `needs` names."""
    def register(fn):
        if all(hasattr(jt, name) for name in needs):
            for op_type in op_types:
                CONVERTERS[op_type] = fn
        return fn
    return register


def _in_this_onnx(*op_types):
    """The op types the installed onnx package defines (ops newer than some
    onnx versions: their converters register only where onnx knows them)."""
    import onnx
    out = []
    for op_type in op_types:
        try:
            onnx.defs.get_schema(op_type)
        except onnx.defs.SchemaError:
            continue
        out.append(op_type)
    return out


def _gelu_takes_approximate():
    import inspect
    return "approximate" in inspect.signature(jt.gelu).parameters


def folder(*op_types):
    def register(fn):
        for op_type in op_types:
            FOLDERS[op_type] = fn
        return fn
    return register


def _axis(n, axis, rank, what="axis"):
    if not -rank <= axis < max(rank, 1):
        raise n.error(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def _axes(n, axes, rank):
    out = []
    for a in axes:
        a = _axis(n, int(a), rank, "axis")
        if a in out:
            raise n.error(f"axis {a} repeated in {list(axes)}")
        out.append(a)
    return out


def _scalar(x, value):
    """A rank-0 constant of x's dtype."""
    return jt._scalar_constant(value, x._dtype, "onnx")


# --------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------

_UNARY = {
    "Abs": jt.abs, "Neg": jt.neg, "Exp": jt.exp, "Log": jt.log,
    "Sqrt": jt.sqrt, "Tanh": jt.tanh, "Sigmoid": jt.sigmoid, "Relu": jt.relu,
}


@converter(*_UNARY)
def _unary(n):
    return [_UNARY[n.op_type](n.tensor(0))]


_BINARY = {"Add": jt.add, "Sub": jt.sub, "Mul": jt.mul, "Div": jt.div}


@converter(*_BINARY)
def _binary(n):
    return [_BINARY[n.op_type](n.tensor(0), n.tensor(1))]


@converter("Mod", needs=("fmod", "remainder"))
def _mod(n):
    # fmod=1: C's fmod (the dividend's sign); fmod=0: Python's %, the
    # divisor's sign (numpy.remainder).
    x, y = n.tensor(0), n.tensor(1)
    fmod = int(n.attr("fmod", 0))
    return [jt.fmod(x, y) if fmod else jt.remainder(x, y)]


@converter("Pow")
def _pow(n):
    base, exponent = n.tensor(0), n.tensor(1)
    floats = ("f32", "f16", "bf16")
    if base._dtype not in floats and exponent._dtype in floats:
        # The float power of an integer, rounded back to the base's type:
        # computed in floats it rounds above 2**24, a wrong answer rather
        # than an error, so it is refused.
        raise n.unsupported(
            f"an integer base ({_types.name(n.elem_type(0))}) with a float "
            f"exponent ({_types.name(n.elem_type(1))}); cast the base to a "
            "float type first")
    if exponent._dtype != base._dtype:
        # ONNX lets the exponent have another type; the result has the
        # base's.
        exponent = jt.cast(exponent, base._dtype)
    return [jt.pow(base, exponent)]


_VARIADIC = {"Max": jt.maximum, "Min": jt.minimum, "Sum": jt.add, "Mean": jt.add}


@converter(*_VARIADIC)
def _variadic(n):
    operands = n.tensors()
    result = operands[0]
    for other in operands[1:]:
        result = _VARIADIC[n.op_type](result, other)
    if n.op_type == "Mean" and len(operands) > 1:
        result = jt.div(result, float(len(operands)))
    return [result]


@converter("Reciprocal")
def _reciprocal(n):
    return [jt.div(1.0, n.tensor(0))]


@converter("Identity")
def _identity(n):
    return [n.value(0) if n.is_static(0) else n.tensor(0)]


@converter("Dropout")
def _dropout(n):
    if n.has(2) and n.is_static(2) and bool(np.asarray(n.static(2, "training_mode")).item()):
        raise n.unsupported("training_mode=true")
    if n.has(2) and not n.is_static(2):
        raise n.error("training_mode must be known when the model is loaded")
    x = n.tensor(0)
    if not n.output_used(1):
        return [x]
    # Outside training nothing is dropped: the mask is all true.
    return [x, Static(np.ones(x.shape, np.bool_), TensorProto.BOOL)]


def _negative_part(x):
    return jt.minimum(x, 0.0)


@converter("LeakyRelu")
def _leaky_relu(n):
    x = n.tensor(0)
    alpha = float(n.attr("alpha", 0.01))
    # As ONNX defines it: alpha x where x < 0, else x (-0.0 stays -0.0).
    return [jt.where(jt.lt(x, 0.0), jt.mul(x, alpha), x)]


@converter("PRelu")
def _prelu(n):
    # slope x where x < 0, else x: relu(x) + slope min(x, 0) was NaN at x = 0
    # for an infinite slope (inf * 0) and +0.0 at x = -0.0.
    x, slope = n.tensor(0), n.tensor(1)
    return [jt.where(jt.lt(x, 0.0), jt.mul(x, slope), x)]


def _elu_core(x, alpha):
    # relu(x) + alpha (exp(min(x, 0)) - 1): exactly x for x > 0.
    return jt.add(jt.relu(x), jt.mul(jt.sub(jt.exp(_negative_part(x)), 1.0), alpha))


@converter("Elu")
def _elu(n):
    return [_elu_core(n.tensor(0), float(n.attr("alpha", 1.0)))]


@converter("Selu")
def _selu(n):
    alpha = float(n.attr("alpha", 1.67326319217681884765625))
    gamma = float(n.attr("gamma", 1.05070102214813232421875))
    return [jt.mul(_elu_core(n.tensor(0), alpha), gamma)]


@converter("Celu")
def _celu(n):
    x = n.tensor(0)
    alpha = float(n.attr("alpha", 1.0))
    negative = jt.mul(jt.sub(jt.exp(jt.div(x, alpha)), 1.0), alpha)
    return [jt.add(jt.relu(x), jt.minimum(negative, 0.0))]


def _hard_sigmoid(x, alpha, beta):
    return jt.minimum(jt.maximum(jt.add(jt.mul(x, alpha), beta), 0.0), 1.0)


@converter("HardSigmoid")
def _hard_sigmoid_op(n):
    return [_hard_sigmoid(n.tensor(0), float(n.attr("alpha", 0.2)),
                          float(n.attr("beta", 0.5)))]


@converter("HardSwish")
def _hard_swish(n):
    x = n.tensor(0)
    return [jt.mul(x, _hard_sigmoid(x, 1.0 / 6.0, 0.5))]


def _softplus(x):
    # log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): exp(x) overflows
    # past x = 88 in float32 and 11 in float16 (softplus(300) was inf), and
    # log(1 + exp(x)) is 0 for x below -17 where the result is exp(x).
    return jt.add(jt.relu(x), log1p(jt.exp(jt.neg(jt.abs(x)))))


@converter("Softplus")
def _softplus_op(n):
    return [_softplus(n.tensor(0))]


@converter("Softsign")
def _softsign(n):
    x = n.tensor(0)
    return [jt.div(x, jt.add(jt.abs(x), 1.0))]


@converter("Mish")
def _mish(n):
    x = n.tensor(0)
    return [jt.mul(x, jt.tanh(_softplus(x)))]


@converter(*_in_this_onnx("Swish"))
def _swish(n):
    # x * sigmoid(alpha * x) (opset 24; SiLU when alpha is 1).
    x = n.tensor(0)
    alpha = float(n.attr("alpha", 1.0))
    return [jt.mul(x, jt.sigmoid(x if alpha == 1.0 else jt.mul(x, _scalar(x, alpha))))]


@converter(*_in_this_onnx("SwiGLU"))
def _swiglu(n):
    # Swish_alpha(A) * B (opset 28): A and B of one shape, no broadcasting.
    a, b = n.tensor(0), n.tensor(1)
    if tuple(a.shape) != tuple(b.shape):
        raise n.error(f"A {a.shape} and B {b.shape} must have the same shape "
                      "(SwiGLU does not broadcast)")
    alpha = float(n.attr("alpha", 1.0))
    gate = jt.sigmoid(a if alpha == 1.0 else jt.mul(a, _scalar(a, alpha)))
    return [jt.mul(jt.mul(a, gate), b)]


@converter("Clip")
def _clip(n):
    x = n.tensor(0)
    if n.has(1):
        x = jt.maximum(x, n.tensor(1))
    if n.has(2):
        x = jt.minimum(x, n.tensor(2))
    return [x]


@converter("Gelu")
def _gelu(n):
    approximate = n.attr("approximate", "none")
    if approximate not in ("none", "tanh"):
        raise n.error(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    x = n.tensor(0)
    if _gelu_takes_approximate():
        return [jt.gelu(x, approximate=approximate)]
    if approximate == "tanh":
        return [jt.gelu(x)]
    raise n.unsupported("approximate='none' (the exact, erf form of GELU)")


# --------------------------------------------------------------------------
# Comparisons, logic, selection
# --------------------------------------------------------------------------

_COMPARE = {"Equal": "eq", "Less": "lt", "LessOrEqual": "le", "Greater": "gt",
            "GreaterOrEqual": "ge"}


@converter(*_COMPARE, needs=tuple(_COMPARE.values()))
def _compare(n):
    return [getattr(jt, _COMPARE[n.op_type])(n.tensor(0), n.tensor(1))]


_LOGICAL = {"And": "logical_and", "Or": "logical_or", "Xor": "logical_xor"}


@converter(*_LOGICAL, needs=tuple(_LOGICAL.values()))
def _logical(n):
    return [getattr(jt, _LOGICAL[n.op_type])(n.tensor(0), n.tensor(1))]


@converter("Not", needs=("logical_not",))
def _not(n):
    return [jt.logical_not(n.tensor(0))]


_BITWISE = {"BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or",
            "BitwiseXor": "bitwise_xor"}


@converter(*_BITWISE, needs=tuple(_BITWISE.values()))
def _bitwise(n):
    return [getattr(jt, _BITWISE[n.op_type])(n.tensor(0), n.tensor(1))]


@converter("BitwiseNot", needs=("bitwise_not",))
def _bitwise_not(n):
    return [jt.bitwise_not(n.tensor(0))]


@converter("Where", needs=("where",))
def _where(n):
    return [jt.where(n.tensor(0), n.tensor(1), n.tensor(2))]


# ONNX's unary math ops that are one jeet op each (Round rounds halves to
# even, as jeet.round does), each registered when this build has its op.
_UNARY_MATH = {
    "Erf": "erf", "Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "asin",
    "Acos": "acos", "Atan": "atan", "Sinh": "sinh", "Cosh": "cosh",
    "Asinh": "asinh", "Acosh": "acosh", "Atanh": "atanh", "Floor": "floor",
    "Ceil": "ceil", "Round": "round",
}


def _unary_math(n):
    return [getattr(jt, _UNARY_MATH[n.op_type])(n.tensor(0))]


for _op_type, _name in _UNARY_MATH.items():
    converter(_op_type, needs=(_name,))(_unary_math)


@converter("ThresholdedRelu", needs=("where", "gt"))
def _thresholded_relu(n):
    x = n.tensor(0)
    alpha = float(n.attr("alpha", 1.0))
    return [jt.where(jt.gt(x, _scalar(x, alpha)), x, _scalar(x, 0.0))]


@converter("Shrink", needs=("where", "gt", "lt"))
def _shrink(n):
    x = n.tensor(0)
    bias, lambd = float(n.attr("bias", 0.0)), float(n.attr("lambd", 0.5))
    shrunk = jt.where(jt.gt(x, _scalar(x, lambd)), jt.sub(x, _scalar(x, bias)),
                      _scalar(x, 0))
    return [jt.where(jt.lt(x, _scalar(x, -lambd)), jt.add(x, _scalar(x, bias)), shrunk)]


@converter("IsNaN", needs=("ne",))
def _isnan(n):
    x = n.tensor(0)
    return [jt.ne(x, x)]


@converter("IsInf", needs=("eq", "logical_or"))
def _isinf(n):
    x = n.tensor(0)
    positive = jt.eq(x, _scalar(x, np.inf))
    negative = jt.eq(x, _scalar(x, -np.inf))
    detect_positive = n.attr("detect_positive", 1)
    detect_negative = n.attr("detect_negative", 1)
    if detect_positive and detect_negative:
        return [jt.logical_or(positive, negative)]
    if detect_positive:
        return [positive]
    if detect_negative:
        return [negative]
    # Neither: all false (no value is both infinities).
    return [jt.logical_and(positive, negative)]


@converter("Sign", needs=("where", "gt", "lt"))
def _sign(n):
    x = n.tensor(0)
    # where(x > 0, 1, where(x < 0, -1, x)): zeros (and NaN) stay as they are.
    return [jt.where(jt.gt(x, _scalar(x, 0)), _scalar(x, 1),
                     jt.where(jt.lt(x, _scalar(x, 0)), _scalar(x, -1), x))]


# --------------------------------------------------------------------------
# Linear algebra
# --------------------------------------------------------------------------


def matmul(a, b):
    """numpy.matmul: 1-D operands are promoted (and the added dimension
    removed from the result)."""
    squeeze = []
    if a.ndim == 1:
        a = jt.reshape(a, (1, a.shape[0]))
        squeeze.append(-2)
    if b.ndim == 1:
        b = jt.reshape(b, (b.shape[0], 1))
        squeeze.append(-1)
    result = jt.matmul(a, b)
    if squeeze:
        shape = list(result.shape)
        for axis in sorted((len(shape) + s for s in squeeze), reverse=True):
            del shape[axis]
        result = jt.reshape(result, tuple(shape))
    return result


@converter("MatMul")
def _matmul(n):
    return [matmul(n.tensor(0), n.tensor(1))]


@converter("Gemm")
def _gemm(n):
    a, b = n.tensor(0), n.tensor(1)
    if a.ndim != 2 or b.ndim != 2:
        raise n.error(f"A and B must be 2-D, got {a.shape} and {b.shape}")
    if n.attr("transA", 0):
        a = jt.transpose(a)
    if n.attr("transB", 0):
        b = jt.transpose(b)
    alpha, beta = float(n.attr("alpha", 1.0)), float(n.attr("beta", 1.0))
    y = jt.matmul(a, b)
    if alpha != 1.0:
        y = jt.mul(y, alpha)
    if n.has(2) and beta != 0.0:
        c = n.tensor(2)
        if beta != 1.0:
            c = jt.mul(c, beta)
        y = jt.add(y, c)
    return [y]


def _einsum_terms(n, equation, operands):
    """The letters of each operand and of the output (lists of one-character
    labels; an ellipsis becomes labels outside ASCII, right-aligned across
    the operands as they broadcast), or an error naming the equation."""
    def bad(why):
        return n.error(f"equation '{equation}': {why}")

    text = equation.replace(" ", "")
    if text.count("->") > 1:
        raise bad("more than one '->'")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise bad(f"{len(terms)} input terms for {len(operands)} inputs")
    for term in terms + [rhs]:
        rest = term.replace("...", "", 1)
        if any(not (c.isascii() and c.isalpha()) for c in rest):
            raise bad(f"term '{term}' holds other than letters and one '...'")
    ellipsis_rank = 0
    for term, x in zip(terms, operands):
        letters = len(term.replace("...", ""))
        if "..." in term and x.ndim >= letters:
            ellipsis_rank = max(ellipsis_rank, x.ndim - letters)
        elif letters != x.ndim:
            raise bad(f"term '{term}' has {letters} letters for an input of "
                      f"rank {x.ndim} {x.shape}")
    extra = [chr(0x3b1 + i) for i in range(ellipsis_rank)]

    def labels(term, rank):
        if "..." not in term:
            return list(term)
        head, _, tail = term.partition("...")
        k = rank - len(head) - len(tail)
        return list(head) + extra[ellipsis_rank - k:] + list(tail)

    inputs = [labels(t, x.ndim) for t, x in zip(terms, operands)]
    if not arrow:
        # Implicit output: the ellipsis' dims, then the letters that occur
        # once, in ASCII order.
        counts = {}
        for term in inputs:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        output = extra + sorted(c for c in counts if counts[c] == 1 and c not in extra)
    else:
        if ellipsis_rank and "..." not in rhs:
            raise bad("the inputs' '...' stands for dimensions that the "
                      "output has no '...' for")
        output = labels(rhs, len(rhs.replace("...", "")) + ellipsis_rank)
        if len(set(output)) != len(output):
            raise bad(f"the output '{rhs}' repeats a letter")
        known = {c for term in inputs for c in term}
        missing = [c for c in output if c not in known]
        if missing:
            raise bad(f"output letters {''.join(missing)} occur in no input")
    return inputs, output


def _einsum_sizes(n, equation, inputs, operands):
    """The size of each label (a size 1 broadcasts, as in numpy.einsum)."""
    sizes = {}
    for term, x in zip(inputs, operands):
        for c, d in zip(term, x.shape):
            if sizes.get(c, 1) not in (1, d) and d != 1:
                raise n.error(f"equation '{equation}': '{c}' stands for sizes "
                              f"{sizes[c]} and {d}")
            sizes[c] = max(sizes.get(c, 1), d)
    return sizes


def _einsum_diagonal(n, equation, x, term):
    """x with each label repeated in `term` kept once (the diagonal: the
    elements off it are zeroed and the second occurrence summed away)."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        p = term.index(c)
        q = term.index(c, p + 1)
        if x.shape[p] != x.shape[q]:
            raise n.error(f"equation '{equation}': the diagonal '{c}{c}' of "
                          f"an input of shape {x.shape} is not square")
        shape = [1] * x.ndim
        shape[p] = shape[q] = x.shape[p]
        on_diagonal = jt.eq(jt.iota(shape, axis=p, dtype="int64"),
                            jt.iota(shape, axis=q, dtype="int64"))
        x = jt.sum(jt.where(on_diagonal, x, _scalar(x, 0)), q)
        term = term[:q] + term[q + 1:]
    return x, term


def _einsum_pair(a, ta, b, tb, keep, sizes):
    """a (labels ta) times b (labels tb), summed over the labels they share
    that are not in `keep`, as one batched matmul; returns it and its
    labels (batch, a's own, b's own)."""
    batch = [c for c in ta if c in tb and c in keep]
    contracted = [c for c in ta if c in tb and c not in keep]
    a_own = [c for c in ta if c not in tb]
    b_own = [c for c in tb if c not in ta]

    def size(labels):
        return int(np.prod([sizes[c] for c in labels], dtype=np.int64))

    def arranged(x, term, order, shape):
        x = jt.transpose(x, [term.index(c) for c in order])
        x = jt.broadcast_to(x, tuple(sizes[c] for c in order))
        return jt.reshape(x, shape)

    lead = (size(batch),) if batch else ()
    a = arranged(a, ta, batch + a_own + contracted, lead + (size(a_own), size(contracted)))
    b = arranged(b, tb, batch + contracted + b_own, lead + (size(contracted), size(b_own)))
    labels = batch + a_own + b_own
    return jt.reshape(jt.matmul(a, b), tuple(sizes[c] for c in labels)), labels


@converter("Einsum", needs=("iota", "eq", "where"))
def _einsum(n):
    # Each operand: its diagonals taken, then the labels that occur nowhere
    # else summed; then the operands multiplied pairwise from the left, a
    # batched matmul each (shared labels still needed: batch; shared labels
    # not needed: contracted); last, the output's order.
    equation = n.attr("equation")
    if equation is None:
        raise n.error("the equation attribute is required")
    operands = n.tensors()
    if not operands:
        raise n.error("Einsum needs at least one input")
    if any(x.size == 0 for x in operands):
        raise n.unsupported("an empty input")
    inputs, output = _einsum_terms(n, equation, operands)
    sizes = _einsum_sizes(n, equation, inputs, operands)
    prepared = []
    for i, (x, term) in enumerate(zip(operands, inputs)):
        x, term = _einsum_diagonal(n, equation, x, term)
        elsewhere = set(output).union(*(inputs[j] for j in range(len(inputs)) if j != i))
        summed = [k for k, c in enumerate(term) if c not in elsewhere]
        if summed:
            x = jt.sum(x, summed)
            term = [c for k, c in enumerate(term) if k not in summed]
        prepared.append((x, term))
    x, term = prepared[0]
    for i in range(1, len(prepared)):
        keep = set(output).union(*(t for _, t in prepared[i + 1:]))
        x, term = _einsum_pair(x, term, *prepared[i], keep, sizes)
    x = jt.transpose(x, [term.index(c) for c in output])
    shape = tuple(sizes[c] for c in output)
    return [jt.broadcast_to(x, shape) if x.shape != shape else x]


# --------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------


def _reshape_target(n, shape, target, allowzero):
    out = []
    for i, d in enumerate(target):
        if d == 0 and not allowzero:
            if i >= len(shape):
                raise n.error(f"shape {list(target)} copies dimension {i}, "
                              f"but the input {tuple(shape)} has rank {len(shape)}")
            d = shape[i]
        out.append(int(d))
    if out.count(-1) > 1:
        raise n.error(f"shape {list(target)} has more than one -1")
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1], dtype=np.int64))
        total = int(np.prod(shape, dtype=np.int64))
        if known == 0 or total % known:
            raise n.error(f"cannot reshape {tuple(shape)} to {list(target)}")
        out[out.index(-1)] = total // known
    return tuple(out)


@converter("Reshape")
def _reshape(n):
    x = n.tensor(0)
    target = _reshape_target(n, x.shape, n.static_ints(1, "the shape"),
                             n.attr("allowzero", 0))
    return [jt.reshape(x, target)]


@folder("Reshape")
def _fold_reshape(n):
    x = n.static(0, "data")
    target = _reshape_target(n, x.shape, n.static_ints(1, "the shape"),
                             n.attr("allowzero", 0))
    return [(x.reshape(target), n.elem_type(0))]


@converter("Flatten")
def _flatten(n):
    x = n.tensor(0)
    axis = int(n.attr("axis", 1))
    if not -x.ndim <= axis <= x.ndim:
        raise n.error(f"axis {axis} is out of range for rank {x.ndim}")
    if axis < 0:
        axis += x.ndim
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    return [jt.reshape(x, (outer, int(np.prod(x.shape[axis:], dtype=np.int64))))]


@converter("Transpose")
def _transpose(n):
    x = n.tensor(0)
    perm = n.ints("perm")
    return [jt.transpose(x, perm)]


def _squeezed_shape(n, shape, axes):
    if axes is None:
        return tuple(d for d in shape if d != 1)
    axes = _axes(n, axes, len(shape))
    for a in axes:
        if shape[a] != 1:
            raise n.error(f"cannot squeeze axis {a} of size {shape[a]} (shape {tuple(shape)})")
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _squeeze_axes(n):
    if n.since >= 13:
        return n.static_ints(1, "the axes") if n.has(1) else None
    return n.ints("axes")


@converter("Squeeze")
def _squeeze(n):
    x = n.tensor(0)
    return [jt.reshape(x, _squeezed_shape(n, x.shape, _squeeze_axes(n)))]


@folder("Transpose")
def _fold_transpose(n):
    x = n.static(0, "data")
    perm = n.ints("perm", list(range(x.ndim))[::-1])
    if sorted(perm) != list(range(x.ndim)):
        raise n.error(f"perm {perm} is not a permutation of the {x.ndim} axes")
    return [(np.transpose(x, perm), n.elem_type(0))]


@folder("Squeeze")
def _fold_squeeze(n):
    x = n.static(0, "data")
    return [(x.reshape(_squeezed_shape(n, x.shape, _squeeze_axes(n))), n.elem_type(0))]


def _unsqueezed_shape(n, shape, axes):
    rank = len(shape) + len(axes)
    axes = _axes(n, axes, rank)
    out, it = [], iter(shape)
    for i in range(rank):
        out.append(1 if i in axes else next(it))
    return tuple(out)


def _unsqueeze_axes(n):
    return n.static_ints(1, "the axes") if n.since >= 13 else n.ints("axes")


@converter("Unsqueeze")
def _unsqueeze(n):
    x = n.tensor(0)
    return [jt.reshape(x, _unsqueezed_shape(n, x.shape, _unsqueeze_axes(n)))]


@folder("Unsqueeze")
def _fold_unsqueeze(n):
    x = n.static(0, "data")
    return [(x.reshape(_unsqueezed_shape(n, x.shape, _unsqueeze_axes(n))), n.elem_type(0))]


def _broadcast_shapes(n, a, b):
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise n.error(f"shapes {tuple(a)} and {tuple(b)} do not broadcast") from None


@converter("Expand")
def _expand(n):
    x = n.tensor(0)
    shape = _broadcast_shapes(n, x.shape, n.static_ints(1, "the shape"))
    return [jt.broadcast_to(x, shape)]


@folder("Expand")
def _fold_expand(n):
    x = n.static(0, "data")
    shape = _broadcast_shapes(n, x.shape, n.static_ints(1, "the shape"))
    return [(np.broadcast_to(x, shape).copy(), n.elem_type(0))]


def _cast_target(n, elem_type):
    return _types.jeet_dtype(elem_type, f"{n.op_type} node '{n.name}' (its target type)",
                             n._importer.options.cast_float64)


@converter("Cast")
def _cast(n):
    return [jt.cast(n.tensor(0), _cast_target(n, n.attr("to")))]


@converter("CastLike")
def _cast_like(n):
    return [jt.cast(n.tensor(0), _cast_target(n, n.elem_type(1)))]


def _fold_cast_to(n, elem_type):
    x = n.static(0, "input")
    if elem_type == _types.FLOAT64 and n._importer.options.cast_float64:
        elem_type = TensorProto.FLOAT
    return [(x.astype(_types.numpy_dtype(elem_type)), elem_type)]


@folder("Cast")
def _fold_cast(n):
    return _fold_cast_to(n, n.attr("to"))


@folder("CastLike")
def _fold_cast_like(n):
    return _fold_cast_to(n, n.elem_type(1))


@folder("Identity")
def _fold_identity(n):
    return [(n.static(0, "input"), n.elem_type(0))]


@converter("Tile")
def _tile(n):
    x = n.tensor(0)
    repeats = n.static_ints(1, "the repeats")
    if len(repeats) != x.ndim or any(r < 0 for r in repeats):
        raise n.error(f"repeats {repeats} do not fit an input of rank {x.ndim}")
    # Tile as a broadcast: (d0, d1, ...) -> (1, d0, 1, d1, ...) expanded to
    # (r0, d0, r1, d1, ...), then merged into (r0 d0, r1 d1, ...).
    spread = tuple(v for d in x.shape for v in (1, d))
    expanded = tuple(v for r, d in zip(repeats, x.shape) for v in (r, d))
    y = jt.broadcast_to(jt.reshape(x, spread), expanded)
    return [jt.reshape(y, tuple(r * d for r, d in zip(repeats, x.shape)))]


@converter("DepthToSpace")
def _depth_to_space(n):
    x = n.tensor(0)
    if x.ndim != 4:
        raise n.error(f"the input must be 4-D, got {x.shape}")
    bs = int(n.attr("blocksize"))
    b, c, h, w = x.shape
    if c % (bs * bs):
        raise n.error(f"{c} channels are not a multiple of blocksize^2 = {bs * bs}")
    if n.attr("mode", "DCR") == "DCR":
        y = jt.transpose(jt.reshape(x, (b, bs, bs, c // (bs * bs), h, w)), [0, 3, 4, 1, 5, 2])
    else:
        y = jt.transpose(jt.reshape(x, (b, c // (bs * bs), bs, bs, h, w)), [0, 1, 4, 2, 5, 3])
    return [jt.reshape(y, (b, c // (bs * bs), h * bs, w * bs))]


@converter("SpaceToDepth")
def _space_to_depth(n):
    x = n.tensor(0)
    if x.ndim != 4:
        raise n.error(f"the input must be 4-D, got {x.shape}")
    bs = int(n.attr("blocksize"))
    b, c, h, w = x.shape
    if h % bs or w % bs:
        raise n.error(f"height {h} and width {w} must be multiples of blocksize {bs}")
    y = jt.transpose(jt.reshape(x, (b, c, h // bs, bs, w // bs, bs)), [0, 3, 5, 1, 2, 4])
    return [jt.reshape(y, (b, c * bs * bs, h // bs, w // bs))]


# --------------------------------------------------------------------------
# Reductions and normalisations
# --------------------------------------------------------------------------


def _lp_norm(n, x, axes, p):
    if p not in (1, 2):
        raise n.error(f"p must be 1 or 2, got {p}")
    wide = _widened(x)
    if p == 1:
        return _narrowed(jt.sum(jt.abs(wide), axes, True), x._dtype)
    return _narrowed(jt.sqrt(jt.sum(jt.mul(wide, wide), axes, True)), x._dtype)


# The smallest positive (subnormal) value of each float dtype: the least
# non-zero norm there is.
_SMALLEST = {"f32": float(np.finfo(np.float32).smallest_subnormal),
             "f16": float(np.finfo(np.float16).smallest_subnormal),
             "bf16": 2.0 ** -133}


@converter("LpNormalization")
def _lp_normalization(n):
    x = n.tensor(0)
    if x._dtype not in _SMALLEST:
        raise n.unsupported(f"LpNormalization of {x.dtype}")
    axis = _axis(n, int(n.attr("axis", -1)), x.ndim)
    wide = _widened(x)
    norm = _lp_norm(n, wide, [axis], int(n.attr("p", 2)))
    # A zero norm (x all zeros along the axis) gives 0, as ONNX's reference
    # does: it is raised to the smallest subnormal, every other norm is at
    # least that already.
    return [_narrowed(jt.div(wide, jt.maximum(norm, _SMALLEST[x._dtype])), x._dtype)]


@converter("GlobalLpPool")
def _global_lp_pool(n):
    x = n.tensor(0)
    return [_lp_norm(n, x, list(range(2, x.ndim)), int(n.attr("p", 2)))]


def _reduce_axes(n, rank):
    """The axes of a Reduce* node (an input from opset 18, and for ReduceSum
    from 13; an attribute before), or None for all axes."""
    if n.op_type == "ReduceSum" or n.since >= 18:
        axes = n.static_ints(1, "the axes") if n.has(1) else []
    else:
        axes = n.ints("axes", [])
    if not axes:
        return "noop" if n.attr("noop_with_empty_axes", 0) else None
    return _axes(n, axes, rank)


_REDUCE = {
    "ReduceSum": lambda x, a, k: jt.sum(x, a, k),
    "ReduceMean": lambda x, a, k: jt.mean(x, a, k),
    "ReduceMax": lambda x, a, k: jt.max(x, a, k),
    "ReduceMin": lambda x, a, k: jt.min(x, a, k),
    "ReduceProd": lambda x, a, k: jt.prod(x, a, k),
    # float16 and bfloat16 in float32 (jeet._tensor._widened), rounded once:
    # sums of squares pass float16's 65504 long before their norms do.
    "ReduceL1": lambda x, a, k: _narrowed(jt.sum(jt.abs(_widened(x)), a, k), x._dtype),
    "ReduceL2": lambda x, a, k: _narrowed(
        jt.sqrt(jt.sum(jt.mul(_widened(x), _widened(x)), a, k)), x._dtype),
    "ReduceSumSquare": lambda x, a, k: _narrowed(
        jt.sum(jt.mul(_widened(x), _widened(x)), a, k), x._dtype),
    "ReduceLogSum": lambda x, a, k: _narrowed(jt.log(jt.sum(_widened(x), a, k)), x._dtype),
    "ReduceLogSumExp": lambda x, a, k: logsumexp(x, a, k),
}


# Reductions of bool tensors (computed on int32 0/1 values), and their
# value over no elements.
_BOOL_REDUCE = {"ReduceMax": False, "ReduceMin": True}

# The value of a reduction over no elements.
_EMPTY_REDUCTION = {
    "ReduceSum": 0.0, "ReduceL1": 0.0, "ReduceL2": 0.0, "ReduceSumSquare": 0.0,
    "ReduceMean": np.nan, "ReduceMax": -np.inf, "ReduceLogSum": -np.inf,
    "ReduceMin": np.inf, "ReduceProd": 1.0,
    "ReduceLogSumExp": -np.inf,
}


@converter(*_REDUCE)
def _reduce(n):
    x = n.tensor(0)
    axes = _reduce_axes(n, x.ndim)
    if axes == "noop":
        return [x]
    keepdims = bool(n.attr("keepdims", 1))
    reduced = axes if axes is not None else range(x.ndim)
    if any(x.shape[a] == 0 for a in reduced):
        # No element is read: the result is the reduction's identity.
        shape = [1 if i in reduced else d for i, d in enumerate(x.shape)
                 if keepdims or i not in reduced]
        value = _EMPTY_REDUCTION[n.op_type]
        if x._dtype == "i1" and n.op_type in _BOOL_REDUCE:
            value = _BOOL_REDUCE[n.op_type]
        if x._dtype in ("i32", "i64") and not np.isfinite(value):
            raise n.unsupported("an integer reduction over no elements")
        return [Static(np.full(shape, value, _types.numpy_dtype(n.elem_type(0))),
                       n.elem_type(0))]
    if x._dtype == "i1":
        if n.op_type not in _BOOL_REDUCE:
            raise n.unsupported(f"{n.op_type} of a bool tensor")
        counts = _REDUCE[n.op_type](jt.cast(x, "int32"), axes, keepdims)
        return [jt.cast(counts, "bool")]
    return [_REDUCE[n.op_type](x, axes, keepdims)]


@converter("Softmax")
def _softmax(n):
    x = n.tensor(0)
    return [jt.softmax(x, _axis(n, int(n.attr("axis", -1)), x.ndim))]


@converter("LogSoftmax")
def _log_softmax(n):
    x = n.tensor(0)
    axis = _axis(n, int(n.attr("axis", -1)), x.ndim)
    shifted = jt.sub(x, jt.max(x, axis, True))
    return [jt.sub(shifted, jt.log(jt.sum(jt.exp(shifted), axis, True)))]


def _normalize(x, axes, epsilon):
    """(x - mean) / sqrt(var + epsilon) over `axes`, with the mean and
    1/sqrt(var + epsilon) (keepdims)."""
    mean = jt.mean(x, axes, True)
    centered = jt.sub(x, mean)
    variance = jt.mean(jt.mul(centered, centered), axes, True)
    inv_std = jt.rsqrt(jt.add(variance, float(epsilon)))
    return jt.mul(centered, inv_std), mean, inv_std


@converter("LayerNormalization")
def _layer_norm(n):
    x = n.tensor(0)
    axis = _axis(n, int(n.attr("axis", -1)), x.ndim)
    dtype = x._dtype
    stash = int(n.attr("stash_type", 1))
    if stash == 1 and dtype in ("f16", "bf16"):
        x = jt.cast(x, "f32")
    y, mean, inv_std = _normalize(x, list(range(axis, x.ndim)),
                                  n.attr("epsilon", 1e-5))
    if y._dtype != dtype:
        y = jt.cast(y, dtype)
    y = jt.mul(y, n.tensor(1))
    if n.has(2):
        y = jt.add(y, n.tensor(2))
    return [y, mean, inv_std]


@converter(*_in_this_onnx("RMSNormalization"))
def _rms_norm(n):
    # x / sqrt(mean(x^2 over axis..rank-1) + epsilon), cast back to x's
    # type, times scale (which broadcasts to x; the result has scale's
    # type). stash_type 1 (the default) computes float16 and bfloat16 in
    # float32, as LayerNormalization does.
    x, scale = n.tensor(0), n.tensor(1)
    if x.ndim == 0:
        raise n.error("the input must have rank 1 or more")
    axis = _axis(n, int(n.attr("axis", -1)), x.ndim)
    if scale.ndim > x.ndim or any(s not in (1, d) for s, d in
                                  zip(scale.shape[::-1], x.shape[::-1])):
        raise n.error(f"scale {scale.shape} does not broadcast to the input "
                      f"{x.shape}")
    if x.size == 0:
        raise n.unsupported("an empty input")
    dtype = x._dtype
    if int(n.attr("stash_type", 1)) == 1 and dtype in ("f16", "bf16"):
        x = jt.cast(x, "f32")
    axes = list(range(axis, x.ndim))
    mean_square = jt.mean(jt.mul(x, x), axes, True)
    epsilon = _scalar(mean_square, float(n.attr("epsilon", 1e-5)))
    y = jt.mul(x, jt.rsqrt(jt.add(mean_square, epsilon)))
    if y._dtype != dtype:
        y = jt.cast(y, dtype)
    if scale._dtype != dtype:
        y = jt.cast(y, scale._dtype)
    return [jt.mul(y, scale)]


@converter(*_in_this_onnx("RotaryEmbedding"), needs=("take", "concatenate"))
def _rotary_embedding(n):
    # RoPE (opset 23) on X (batch, heads, seq, head_size), or (batch, seq,
    # hidden) with num_heads: the first rotary_embedding_dim features of
    # each head (halves, or even and odd features when interleaved) turn
    # by the angles whose cos and sin the caches hold, (max_position,
    # dim/2) rows taken at position_ids (batch, seq), or (batch, seq, dim/2)
    # without position_ids.
    x, cos, sin = n.tensor(0), n.tensor(1), n.tensor(2)
    interleaved = bool(n.attr("interleaved", 0))
    if x.ndim == 4:
        batch, heads, seq, head_size = x.shape
        x4 = x
    elif x.ndim == 3:
        batch, seq, hidden = x.shape
        heads = int(n.attr("num_heads", 0))
        if heads <= 0 or hidden % heads:
            raise n.error(f"a rank-3 input {x.shape} needs num_heads dividing "
                          f"its hidden size, got num_heads={heads}")
        head_size = hidden // heads
        x4 = jt.transpose(jt.reshape(x, (batch, seq, heads, head_size)), (0, 2, 1, 3))
    else:
        raise n.error(f"the input must have rank 3 or 4, got {x.shape}")
    dim = int(n.attr("rotary_embedding_dim", 0)) or head_size
    if dim > head_size or dim % 2:
        raise n.error(f"rotary_embedding_dim {dim} must be even and at most "
                      f"the head size {head_size}")
    half = dim // 2
    if n.has(3):
        positions = n.tensor(3)
        if tuple(positions.shape) != (batch, seq):
            raise n.error(f"position_ids {positions.shape} must be (batch, "
                          f"sequence) = {(batch, seq)}")
        want = lambda c: c.ndim == 2 and c.shape[1] == half
        expected = f"(max_position, {half})"
    else:
        want = lambda c: tuple(c.shape) == (batch, seq, half)
        expected = f"{(batch, seq, half)}"
    for name, cache in (("cos_cache", cos), ("sin_cache", sin)):
        if not want(cache):
            raise n.error(f"{name} {cache.shape} must be {expected}")
    if x.size == 0:
        raise n.unsupported("an empty input")
    if n.has(3):
        index = built.index_in_range(built.int64(positions), cos.shape[0])
        cos, sin = jt.take(cos, index, 0), jt.take(sin, index, 0)
    # (batch, 1, seq, dim/2): one angle per position for every head.
    cos = jt.reshape(cos, (batch, 1, seq, half))
    sin = jt.reshape(sin, (batch, 1, seq, half))
    if interleaved:
        x1, x2 = x4[:, :, :, 0:dim:2], x4[:, :, :, 1:dim:2]
    else:
        x1, x2 = x4[:, :, :, 0:half], x4[:, :, :, half:dim]
    real = jt.sub(jt.mul(cos, x1), jt.mul(sin, x2))
    imag = jt.add(jt.mul(sin, x1), jt.mul(cos, x2))
    if interleaved:
        shape = (batch, heads, seq, half, 1)
        rotated = jt.reshape(jt.concatenate(
            [jt.reshape(real, shape), jt.reshape(imag, shape)], 4),
            (batch, heads, seq, dim))
    else:
        rotated = jt.concatenate([real, imag], 3)
    if dim < head_size:
        rotated = jt.concatenate([rotated, x4[:, :, :, dim:head_size]], 3)
    if x.ndim == 3:
        rotated = jt.reshape(jt.transpose(rotated, (0, 2, 1, 3)), x.shape)
    return [rotated]


def _per_channel(param, rank):
    """A (C,) parameter shaped to broadcast along axis 1 of a rank-`rank`
    tensor."""
    return jt.reshape(param, (param.shape[0],) + (1,) * (rank - 2))


@converter("BatchNormalization")
def _batch_norm(n):
    if n.attr("training_mode", 0):
        raise n.unsupported("training_mode=1 (Jeet imports inference graphs)")
    for i in (1, 2):
        if n.output_used(i):
            raise n.unsupported(f"output {i} (running statistics of training)")
    x = n.tensor(0)
    if x.ndim < 2:
        raise n.error(f"the input must have rank >= 2, got {x.shape}")
    scale, bias, mean, var = (n.tensor(i) for i in range(1, 5))
    # Inference: y = x * s + (b - mean * s) with s = scale / sqrt(var + eps),
    # a per-channel scale and shift computed once per call from the
    # parameters, which jeet-fuse folds into the producer's epilogue.
    s = jt.mul(scale, jt.rsqrt(jt.add(var, float(n.attr("epsilon", 1e-5)))))
    shift = jt.sub(bias, jt.mul(mean, s))
    return [jt.add(jt.mul(x, _per_channel(s, x.ndim)), _per_channel(shift, x.ndim))]


@converter("InstanceNormalization")
def _instance_norm(n):
    x = n.tensor(0)
    if x.ndim < 3:
        raise n.error(f"the input must have rank >= 3, got {x.shape}")
    # float16 and bfloat16 statistics in float32 (as GroupNormalization's
    # stash_type): squared deviations past 256 overflow float16.
    y, _, _ = _normalize(_widened(x), list(range(2, x.ndim)), n.attr("epsilon", 1e-5))
    y = _narrowed(y, x._dtype)
    y = jt.mul(y, _per_channel(n.tensor(1), x.ndim))
    return [jt.add(y, _per_channel(n.tensor(2), x.ndim))]


@converter("MeanVarianceNormalization")
def _mvn(n):
    x = n.tensor(0)
    axes = _axes(n, n.ints("axes", [0, 2, 3]), x.ndim)
    dtype, x = x._dtype, _widened(x)  # E[x^2] passes float16's range
    mean = jt.mean(x, axes, True)
    centered = jt.sub(x, mean)
    # ONNX defines it as (x - E[x]) / sqrt(E[x^2] - E[x]^2) with epsilon 1e-9.
    variance = jt.sub(jt.mean(jt.mul(x, x), axes, True), jt.mul(mean, mean))
    return [_narrowed(jt.div(centered, jt.add(jt.sqrt(variance), 1e-9)), dtype)]


@converter("GroupNormalization")
def _group_norm(n):
    # The mean and variance of each group of channels of each instance (x
    # as (N, groups, rest)). The scale and bias are one per group in opset
    # 18's definition and one per channel from opset 21 (which adds
    # stash_type: the statistics of float16 and bfloat16 in float32, as is
    # done here for opset 18 too).
    x = n.tensor(0)
    if x.ndim < 2:
        raise n.error(f"the input must have rank >= 2, got {x.shape}")
    if not n.has_attr("num_groups"):
        raise n.error("the num_groups attribute is required")
    groups = int(n.attr("num_groups"))
    channels = x.shape[1]
    if groups < 1 or channels % groups:
        raise n.error(f"num_groups {groups} does not divide the {channels} "
                      "channels")
    if x.size == 0:
        raise n.unsupported("an empty input")
    per_group = n.since < 21
    scale, bias = n.tensor(1), n.tensor(2)
    want = (groups,) if per_group else (channels,)
    for name, param in (("scale", scale), ("bias", bias)):
        if param.shape != want:
            raise n.error(
                f"{name} must have shape {want} (one value per "
                f"{'group' if per_group else 'channel'} in opset "
                f"{n.since}'s GroupNormalization), got {param.shape}")
    dtype = x._dtype
    grouped = jt.reshape(x, (x.shape[0], groups, x.size // (x.shape[0] * groups)))
    if dtype in ("f16", "bf16") and (per_group or int(n.attr("stash_type", 1)) == 1):
        grouped = jt.cast(grouped, "f32")
    y, _, _ = _normalize(grouped, [2], n.attr("epsilon", 1e-5))
    if y._dtype != dtype:
        y = jt.cast(y, dtype)
    if per_group:
        y = jt.add(jt.mul(y, jt.reshape(scale, (groups, 1))), jt.reshape(bias, (groups, 1)))
        return [jt.reshape(y, x.shape)]
    y = jt.mul(jt.reshape(y, x.shape), _per_channel(scale, x.ndim))
    return [jt.add(y, _per_channel(bias, x.ndim))]


@converter("LRN", needs=("pad", "concatenate"))
def _lrn(n):
    # x / (bias + alpha / size * s)^beta, s the sum of squares over the
    # channels c - floor((size-1)/2) .. c + ceil((size-1)/2) (those that
    # exist): the squares padded with zeros along axis 1 and `size` slices
    # added. float16 and bfloat16 compute in float32.
    x = n.tensor(0)
    if x.ndim < 2:
        raise n.error(f"the input must have rank >= 2 (N x C x ...), got {x.shape}")
    if not n.has_attr("size"):
        raise n.error("the size attribute is required")
    size = int(n.attr("size"))
    if size < 1:
        raise n.error(f"size must be 1 or more, got {size}")
    if x.size == 0:
        raise n.unsupported("an empty input")
    alpha = float(n.attr("alpha", 1e-4))
    beta = float(n.attr("beta", 0.75))
    bias = float(n.attr("bias", 1.0))
    dtype = x._dtype
    xf = jt.cast(x, "f32") if dtype in ("f16", "bf16") else x
    channels = x.shape[1]
    # Channels more than channels - 1 away from c are never there.
    before = min((size - 1) // 2, channels - 1)
    after = min(size - 1 - (size - 1) // 2, channels - 1)
    squares = jt.mul(xf, xf)
    widths = [[0, 0] for _ in range(x.ndim)]
    widths[1] = [before, after]
    padded = jt.pad(squares, widths, 0) if before or after else squares
    total = None
    for start in range(before + after + 1):
        slices = [slice(None)] * x.ndim
        slices[1] = slice(start, start + channels)
        part = _sliced(padded, slices) if before or after else padded
        total = part if total is None else jt.add(total, part)
    scale = jt.add(jt.mul(total, _scalar(total, alpha / size)), _scalar(total, bias))
    y = jt.div(xf, jt.pow(scale, _scalar(scale, beta)))
    return [jt.cast(y, dtype) if dtype != y._dtype else y]


@converter("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(n):
    x = n.tensor(0)
    axes = list(range(2, x.ndim))
    if n.op_type == "GlobalAveragePool":
        return [jt.mean(x, axes, True)]
    return [jt.max(x, axes, True)]


# --------------------------------------------------------------------------
# Data movement: gather, slice, split, concat, pad
# --------------------------------------------------------------------------


@converter("Gather", needs=("take",))
def _gather(n):
    x = n.tensor(0)
    axis = _axis(n, int(n.attr("axis", 0)), x.ndim)
    # Out-of-range indices (an error in ONNX) are clamped, as jeet.take does.
    return [jt.take(x, n.tensor(1), axis)]


_SCATTER_REDUCTIONS = {
    "none": None, "add": jt.add, "mul": jt.mul, "max": jt.maximum, "min": jt.minimum,
}


@converter("ScatterND", needs=("take", "where"))
def _scatter_nd(n):
    # data with the slices at `indices` (known at load: each a position in
    # data's first k dimensions) replaced by, or combined with, `updates`:
    # viewed as rows (data's first k dimensions flattened), the rows written
    # are one gather of the update rows, selected where a row is written.
    data, updates = n.tensor(0), n.tensor(2)
    indices = np.asarray(n.static(1, "the indices"), np.int64)
    reduction = _text_attr(n, "reduction", "none")
    if reduction not in _SCATTER_REDUCTIONS:
        raise n.error(f"reduction '{reduction}' is not one of "
                      f"{', '.join(_SCATTER_REDUCTIONS)}")
    if indices.ndim < 1 or not 1 <= indices.shape[-1] <= data.ndim:
        raise n.error(f"indices {list(indices.shape)} must end in a dimension of 1 "
                      f"to {data.ndim} (data {list(data.shape)})")
    k = indices.shape[-1]
    rest = tuple(data.shape[k:])
    expected = tuple(indices.shape[:-1]) + rest
    if tuple(updates.shape) != expected:
        raise n.error(f"updates {list(updates.shape)} should be {list(expected)} "
                      f"for indices {list(indices.shape)} and data {list(data.shape)}")
    lead = np.array(data.shape[:k], np.int64)
    tuples = indices.reshape(-1, k)
    if np.any(tuples < -lead) or np.any(tuples >= lead):
        raise n.error(f"indices {tuples.tolist()[:8]} out of range for data "
                      f"{list(data.shape)}")
    tuples = np.where(tuples < 0, tuples + lead, tuples)
    rows = int(np.prod(lead))
    if rows == 0 or tuples.shape[0] == 0:
        return [data]
    positions = np.ravel_multi_index(tuples.T, tuple(lead))
    data_rows = jt.reshape(data, (rows,) + rest)
    update_rows = jt.reshape(updates, (len(positions),) + rest)
    combine = _SCATTER_REDUCTIONS[reduction]
    # Round j combines each row with its j-th update (in the order of the
    # indices); with no reduction only the last update of a row counts.
    order = np.argsort(positions, kind="stable")
    first = np.searchsorted(positions[order], np.arange(rows))
    counts = np.bincount(positions, minlength=rows)
    rounds = [counts.max() - 1] if combine is None else range(counts.max())
    out = data_rows
    for j in rounds:
        takes = counts > j if combine is not None else counts > 0
        pick = j if combine is not None else counts - 1
        owner = np.zeros(rows, np.int64)
        owner[takes] = order[(first + pick)[takes]]
        spread = jt.take(update_rows, jt._constant(owner, "i64"), 0)
        if combine is not None:
            spread = combine(out, spread)
        if takes.all():
            out = spread
        else:
            mask = jt._constant(takes.reshape((rows,) + (1,) * len(rest)), "i1")
            out = jt.where(mask, spread, out)
    return [jt.reshape(out, tuple(data.shape))]


@converter("GatherElements", needs=("take", "iota", "where", "lt"))
def _gather_elements(n):
    # out[i, j, k] = data[i, index[i, j, k], k] (axis 1) as one gather from
    # the flattened data: the flat index is index * stride(axis) plus every
    # other coordinate (an iota) times its stride.
    data, indices = n.tensor(0), n.tensor(1)
    rank = data.ndim
    if rank == 0 or indices.ndim != rank:
        raise n.error(f"data {data.shape} and indices {indices.shape} must have "
                      "the same rank, 1 or more")
    axis = _axis(n, int(n.attr("axis", 0)), rank)
    for d in range(rank):
        if d != axis and indices.shape[d] > data.shape[d]:
            raise n.error(f"indices {indices.shape} exceed data {data.shape} "
                          f"in dimension {d}")
    if data.size == 0 or indices.size == 0:
        raise n.unsupported("an empty data or indices tensor")
    return [built.gather_along(data, indices, axis)]


def _picked_loss(n, log_prob, target, weight_index):
    """NegativeLogLikelihoodLoss of log_prob (N, C, d1, ...) at target
    (N, d1, ...): -log_prob[n, target[n, d], d] times the target's weight
    (input `weight_index`, (C,), when present), 0 where target equals
    ignore_index, then summed or averaged (over the weights) by
    `reduction`."""
    reduction = n.attr("reduction", "mean")
    if reduction not in ("none", "sum", "mean"):
        raise n.error(f"reduction must be 'none', 'sum' or 'mean', got {reduction!r}")
    if log_prob.ndim < 2:
        raise n.error(f"the input must have rank 2 or more (N, C, ...), got "
                      f"{log_prob.shape}")
    batch, classes = log_prob.shape[:2]
    expected = (batch,) + tuple(log_prob.shape[2:])
    if tuple(target.shape) != expected:
        raise n.error(f"target {target.shape} must be {expected} for the input "
                      f"{log_prob.shape}")
    weight = n.tensor(weight_index) if n.has(weight_index) else None
    if weight is not None and tuple(weight.shape) != (classes,):
        raise n.error(f"weight {weight.shape} must be ({classes},), one per class")
    if log_prob.size == 0:
        raise n.unsupported("an empty input")
    target = built.int64(target)
    ignore_index = n.attr("ignore_index")
    keep = None
    if ignore_index is not None:
        keep = jt.ne(target, _scalar(target, int(ignore_index)))
        target = jt.where(keep, target, _scalar(target, 0))
    picked = built.gather_along(log_prob, jt.reshape(target, (batch, 1) + expected[1:]), 1)
    loss = jt.neg(jt.reshape(picked, expected))
    scale = None
    if weight is not None:
        scale = jt.take(weight, built.index_in_range(target, classes), 0)
        if keep is not None:
            scale = jt.where(keep, scale, _scalar(scale, 0.0))
    elif keep is not None:
        scale = jt.where(keep, jt.broadcast_to(_scalar(loss, 1.0), expected),
                         _scalar(loss, 0.0))
    if scale is not None:
        loss = jt.mul(loss, scale)
    if reduction == "none":
        return loss
    total = jt.sum(loss)
    if reduction == "sum":
        return total
    if scale is None:
        return jt.div(total, _scalar(total, float(loss.size)))
    return jt.div(total, jt.sum(scale))


@converter("NegativeLogLikelihoodLoss", needs=("take", "iota", "where", "lt", "ne"))
def _nll_loss(n):
    return [_picked_loss(n, n.tensor(0), n.tensor(1), 2)]


@converter("SoftmaxCrossEntropyLoss", needs=("take", "iota", "where", "lt", "ne"))
def _softmax_cross_entropy_loss(n):
    # The NegativeLogLikelihoodLoss of the log-softmax over the classes
    # (axis 1), which is the optional second output.
    x = n.tensor(0)
    if x.ndim < 2:
        raise n.error(f"the input must have rank 2 or more (N, C, ...), got {x.shape}")
    shifted = jt.sub(x, jt.max(x, 1, True))
    log_prob = jt.sub(shifted, jt.log(jt.sum(jt.exp(shifted), 1, True)))
    return [_picked_loss(n, log_prob, n.tensor(1), 2), log_prob]


@converter("GatherND", needs=("take", "iota", "where", "lt"))
def _gather_nd(n):
    # Each index tuple (the last axis of indices) selects a slice of data
    # after the batch dims: one gather along the leading axis of data
    # reshaped to (batch dims x indexed dims, rest...), at the flat index of
    # the tuple (plus the batch's offset, from iotas).
    data, indices = n.tensor(0), n.tensor(1)
    batch = int(n.attr("batch_dims", 0))
    r, q = data.ndim, indices.ndim
    if r < 1 or q < 1:
        raise n.error(f"data {data.shape} and indices {indices.shape} must have "
                      "rank 1 or more")
    if not 0 <= batch < min(r, q):
        raise n.error(f"batch_dims {batch} must be at least 0 and less than the "
                      f"ranks of data ({r}) and indices ({q})")
    depth = indices.shape[-1]
    if not 1 <= depth <= r - batch:
        raise n.error(f"the last dimension of indices {indices.shape} must be "
                      f"between 1 and rank(data) - batch_dims = {r - batch}")
    if indices.shape[:batch] != data.shape[:batch]:
        raise n.error(f"the batch dims of data {data.shape} and indices "
                      f"{indices.shape} differ")
    if data.size == 0 or indices.size == 0:
        raise n.unsupported("an empty data or indices tensor")
    lead = data.shape[:batch + depth]
    strides = built.strides(lead)
    indices = built.int64(indices)
    flat = built.flat_index([(indices[..., j], lead[batch + j], strides[batch + j])
                             for j in range(depth)])
    for d in range(batch):
        if indices.shape[d] == 1:
            continue
        offset = jt.iota(indices.shape[:-1], axis=d, dtype="int64")
        flat = jt.add(flat, jt.mul(offset, _scalar(offset, strides[d])))
    table = jt.reshape(data, (int(np.prod(lead)),) + data.shape[batch + depth:])
    return [jt.take(table, flat, 0)]


@converter("ReverseSequence", needs=("take", "iota", "where", "lt"))
def _reverse_sequence(n):
    # The batch and time axes are 0 and 1 (either way round): out[b, t] is
    # x[b, len[b] - 1 - t] for t < len[b], else x[b, t]; one gather of the
    # rows of x viewed as (d0 * d1, rest...) at the flat indices of those
    # positions.
    x, lengths = n.tensor(0), n.tensor(1)
    batch_axis, time_axis = int(n.attr("batch_axis", 1)), int(n.attr("time_axis", 0))
    if x.ndim < 2:
        raise n.error(f"the input must have rank 2 or more, got {x.shape}")
    if {batch_axis, time_axis} != {0, 1}:
        raise n.error(f"batch_axis ({batch_axis}) and time_axis ({time_axis}) "
                      "must be 0 and 1, one each")
    batch, steps = x.shape[batch_axis], x.shape[time_axis]
    if lengths.shape != (batch,):
        raise n.error(f"sequence_lens must have shape ({batch},) (one length "
                      f"per batch entry), got {lengths.shape}")
    if x.size == 0:
        raise n.unsupported("an empty input")
    # (d0, d1) grids of each position's batch entry and time step; a length
    # outside [0, steps] (an error in ONNX) is clamped to it.
    grid = x.shape[:2]
    b = jt.iota(grid, axis=batch_axis, dtype="int64")
    t = jt.iota(grid, axis=time_axis, dtype="int64")
    length = jt.take(jt.minimum(jt.maximum(built.int64(lengths), _scalar(b, 0)),
                                _scalar(b, steps)), b, 0)
    source = jt.where(jt.lt(t, length), jt.sub(jt.sub(length, _scalar(t, 1)), t), t)
    first, second = (b, source) if batch_axis == 0 else (source, b)
    flat = jt.add(jt.mul(first, _scalar(b, x.shape[1])), second)
    rows = jt.reshape(x, (grid[0] * grid[1],) + x.shape[2:])
    return [jt.take(rows, flat, 0)]


def _sliced(x, slices):
    """x[slices] (a slice per axis, Python's clamping, as ONNX's)."""
    if all(s == slice(None) for s in slices):
        return x
    return x[tuple(slices)]


@converter("Slice", needs=("concatenate",))
def _slice(n):
    x = n.tensor(0)
    starts = n.static_ints(1, "the starts")
    ends = n.static_ints(2, "the ends")
    axes = (n.static_ints(3, "the axes") if n.has(3) else list(range(len(starts))))
    steps = n.static_ints(4, "the steps") if n.has(4) else [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise n.error(f"starts {starts}, ends {ends}, axes {axes} and steps "
                      f"{steps} differ in length")
    slices = [slice(None)] * x.ndim
    for start, end, axis, step in zip(starts, ends, _axes(n, axes, x.ndim), steps):
        if step == 0:
            raise n.error("a step is 0")
        slices[axis] = slice(start, end, step)
    if any(len(range(*s.indices(d))) == 0 for s, d in zip(slices, x.shape)):
        raise n.unsupported("an empty slice")
    return [_sliced(x, slices)]


@converter("Split", needs=("concatenate",))
def _split(n):
    x = n.tensor(0)
    axis = _axis(n, int(n.attr("axis", 0)), x.ndim)
    size = x.shape[axis]
    if n.has(1):
        sizes = n.static_ints(1, "the split")
    elif n.has_attr("split"):
        sizes = n.ints("split")
    else:
        parts = int(n.attr("num_outputs", n.num_outputs))
        chunk = -(-size // parts)  # the last part is smaller
        sizes = [min(chunk, size - i * chunk) for i in range(parts)]
    if sum(sizes) != size or len(sizes) != n.num_outputs or min(sizes) < 0:
        raise n.error(f"split sizes {sizes} do not divide axis {axis} of size "
                      f"{size} into {n.num_outputs} outputs")
    if min(sizes) == 0:
        raise n.unsupported("an empty output")
    outputs, start = [], 0
    for s in sizes:
        slices = [slice(None)] * x.ndim
        slices[axis] = slice(start, start + s)
        outputs.append(_sliced(x, slices) if s != size else x)
        start += s
    return outputs


@converter("Concat", needs=("concatenate",))
def _concat(n):
    operands = [t for t in n.tensors()]
    rank = operands[0].ndim
    axis = _axis(n, int(n.attr("axis")), rank)
    # ONNX allows empty inputs; they add nothing.
    operands = [t for t in operands if t.shape[axis] != 0]
    if not operands:
        raise n.unsupported("an empty result")
    return [operands[0] if len(operands) == 1 else jt.concatenate(operands, axis)]


@converter("Pad", needs=("pad",))
def _pad(n):
    mode = n.attr("mode", "constant")
    if isinstance(mode, bytes):
        mode = mode.decode()
    if mode not in ("constant", "edge", "reflect", "wrap"):
        raise n.error(f"mode '{mode}' is not one of constant, edge, reflect, wrap")
    x = n.tensor(0)
    pads = n.static_ints(1, "the pads")
    axes = (_axes(n, n.static_ints(3, "the axes"), x.ndim) if n.has(3)
            else list(range(x.ndim)))
    if len(pads) != 2 * len(axes):
        raise n.error(f"pads {pads} do not have two entries per axis {axes}")
    value = 0
    if mode == "constant" and n.has(2):
        value = np.asarray(n.static(2, "the constant value")).reshape(-1)
        value = value[0].item() if value.size else 0
    widths = [[0, 0] for _ in range(x.ndim)]
    slices = [slice(None)] * x.ndim
    for k, axis in enumerate(axes):
        before, after = pads[k], pads[k + len(axes)]
        # A negative pad removes elements.
        slices[axis] = slice(max(-before, 0), x.shape[axis] - max(-after, 0))
        widths[axis] = [max(before, 0), max(after, 0)]
    x = _sliced(x, slices)
    if not any(w != [0, 0] for w in widths):
        return [x]
    if mode != "constant":
        for axis, w in enumerate(widths):
            if w != [0, 0] and x.shape[axis] == 0:
                raise n.error(f"mode '{mode}' cannot pad axis {axis} of {list(x.shape)}: "
                              "it has no elements")
        return [jt.pad(x, widths, mode=mode)]
    return [jt.pad(x, widths, value)]


def _scan_input(n):
    """The input of CumSum or CumProd and its axis (input 1, known at
    load)."""
    x = n.tensor(0)
    if x.ndim == 0:
        raise n.error("the input must have rank 1 or more")
    axis = n.static_ints(1, "the axis")
    if len(axis) != 1:
        raise n.error(f"axis must hold one value, got {len(axis)}")
    axis = _axis(n, axis[0], x.ndim)
    if x.size == 0:
        raise n.unsupported("an empty input")
    return x, axis


@converter("CumSum", needs=("pad", "concatenate"))
def _cumsum(n):
    # A Hillis-Steele scan (jeet._frontends.scan): ceil(log2(size)) rounds
    # of a shifted add; reverse scans the flipped axis, exclusive the input
    # shifted by one.
    x, axis = _scan_input(n)
    return [built.scan(x, axis, jt.add, 0, exclusive=bool(n.attr("exclusive", 0)),
                       reverse=bool(n.attr("reverse", 0)))]


@converter(*_in_this_onnx("CumProd"), needs=("pad", "concatenate"))
def _cumprod(n):
    # CumSum's scan with a multiply, ones entering where CumSum's zeros do.
    # Integer products wrap around as the multiplies do.
    x, axis = _scan_input(n)
    return [built.scan(x, axis, jt.mul, 1, exclusive=bool(n.attr("exclusive", 0)),
                       reverse=bool(n.attr("reverse", 0)))]


# --------------------------------------------------------------------------
# Convolution and pooling (2-D; 1-D as 2-D of height 1)
# --------------------------------------------------------------------------


def _window_attrs(n, x, kernel):
    """strides, dilations and [top, left, bottom, right] padding of a Conv
    or pooling node over the spatial dims of x, for `kernel` (kh, kw)."""
    spatial = x.ndim - 2
    strides = n.ints("strides", [1] * spatial)
    dilations = n.ints("dilations", [1] * spatial)
    pads = n.ints("pads", [0] * (2 * spatial))
    auto_pad = n.attr("auto_pad", "NOTSET")
    if isinstance(auto_pad, bytes):
        auto_pad = auto_pad.decode()
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * (2 * spatial)
        for i in range(spatial):
            size = x.shape[2 + i]
            out = -(-size // strides[i])
            extent = (kernel[-spatial + i] - 1) * dilations[i] + 1
            total = max((out - 1) * strides[i] + extent - size, 0)
            small = total // 2
            big = total - small
            pads[i], pads[i + spatial] = ((small, big) if auto_pad == "SAME_UPPER"
                                          else (big, small))
    elif auto_pad == "VALID":
        pads = [0] * (2 * spatial)
    elif auto_pad != "NOTSET":
        raise n.error(f"auto_pad '{auto_pad}' is not NOTSET, SAME_UPPER, "
                      "SAME_LOWER or VALID")
    if spatial == 1:
        return [1] + strides, [1] + dilations, [0, pads[0], 0, pads[1]]
    return strides, dilations, pads


def _as_2d(n, x, what):
    if x.ndim == 3:
        return jt.reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2]))
    if x.ndim != 4:
        raise n.unsupported(f"a {x.ndim - 2}-D {what} (1-D and 2-D are)")
    return x


def _from_2d(y, rank):
    return jt.reshape(y, (y.shape[0], y.shape[1], y.shape[3])) if rank == 3 else y


@converter("Conv", needs=("conv2d",))
def _conv(n):
    x, w = n.tensor(0), n.tensor(1)
    rank = x.ndim
    x2, w2 = _as_2d(n, x, "convolution"), _as_2d(n, w, "convolution")
    strides, dilations, pads = _window_attrs(n, x, w2.shape[2:])
    groups = int(n.attr("group", 1))
    y = jt._node("conv2d", "jeet.conv2d", [x2, w2], {
        "strides": strides, "padding": pads, "dilations": dilations,
        "groups": groups})
    if n.has(2):
        y = jt.add(y, jt.reshape(n.tensor(2), (y.shape[1], 1, 1)))
    return [_from_2d(y, rank)]


def _pad_or_crop(x, widths):
    """x with [before, after] widths per axis added as zeros (positive) or
    removed (negative)."""
    slices = [slice(max(-b, 0), d - max(-a, 0)) for (b, a), d in zip(widths, x.shape)]
    x = _sliced(x, slices)
    widths = [[max(b, 0), max(a, 0)] for b, a in widths]
    if any(w != [0, 0] for w in widths):
        x = jt.pad(x, widths, 0)
    return x


@converter("ConvTranspose", needs=("conv2d", "pad"))
def _conv_transpose(n):
    # The transposed convolution as a convolution: the input with stride-1
    # zeros between its elements, padded by dilation*(k-1)-pad each side
    # (output_padding more after), convolved at stride 1 with the filter
    # flipped spatially and its in/out channel axes swapped per group.
    x, w = n.tensor(0), n.tensor(1)
    rank = x.ndim
    x2, w2 = _as_2d(n, x, "transposed convolution"), _as_2d(n, w, "transposed convolution")
    spatial = rank - 2
    group = int(n.attr("group", 1))
    c_in, c_out_g, kh, kw = w2.shape
    if x2.shape[1] != c_in or c_in % group:
        raise n.error(f"the filter's {c_in} input channels do not match the "
                      f"input's {x2.shape[1]} channels in {group} groups")
    kernel = n.ints("kernel_shape", list(w.shape[2:]))
    if kernel != list(w.shape[2:]):
        raise n.error(f"kernel_shape {kernel} is not the filter's {list(w.shape[2:])}")
    strides = n.ints("strides", [1] * spatial)
    dilations = n.ints("dilations", [1] * spatial)
    out_pad = n.ints("output_padding", [0] * spatial)
    for name, v in (("strides", strides), ("dilations", dilations),
                    ("output_padding", out_pad)):
        if len(v) != spatial:
            raise n.error(f"{name} {v} does not have one entry per spatial axis")
    auto_pad = n.attr("auto_pad", "NOTSET")
    if isinstance(auto_pad, bytes):
        auto_pad = auto_pad.decode()
    if auto_pad not in ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"):
        raise n.error(f"auto_pad '{auto_pad}' is not NOTSET, SAME_UPPER, "
                      "SAME_LOWER or VALID")
    sizes = list(x.shape[2:])
    extents = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], dilations)]
    full = [s * (i - 1) + p + e for s, i, p, e in zip(strides, sizes, out_pad, extents)]
    output_shape = n.ints("output_shape")
    if output_shape is not None and n.has_attr("pads"):
        raise n.unsupported("output_shape together with pads")
    if output_shape is None and auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        output_shape = [i * s for i, s in zip(sizes, strides)]
    if output_shape is not None and auto_pad != "VALID":
        if len(output_shape) != spatial:
            raise n.error(f"output_shape {output_shape} does not have one entry "
                          "per spatial axis")
        total = [f - o for f, o in zip(full, output_shape)]
        if auto_pad == "SAME_UPPER":
            pads = [t // 2 for t in total] + [t - t // 2 for t in total]
        else:
            pads = [t - t // 2 for t in total] + [t // 2 for t in total]
    elif auto_pad == "VALID":
        pads = [0] * (2 * spatial)
    else:
        pads = n.ints("pads", [0] * (2 * spatial))
    if len(pads) != 2 * spatial:
        raise n.error(f"pads {pads} do not have two entries per spatial axis")
    if spatial == 1:
        strides, dilations, out_pad = [1] + strides, [1] + dilations, [0] + out_pad
        pads = [0, pads[0], 0, pads[1]]
    # Zeros between the elements: (N, C, H, 1, W, 1) padded to
    # (N, C, H, sh, W, sw), read as (N, C, H*sh, W*sw); the sh-1 and sw-1
    # zeros after the last row and column come off the padding after.
    sh, sw = strides
    n_, c, h, wd = x2.shape
    if (sh, sw) != (1, 1):
        x2 = jt.reshape(x2, (n_, c, h, 1, wd, 1))
        x2 = jt.pad(x2, [[0, 0], [0, 0], [0, 0], [0, sh - 1], [0, 0], [0, sw - 1]], 0)
        x2 = jt.reshape(x2, (n_, c, h * sh, wd * sw))
    widths = [[0, 0], [0, 0]]
    for i, (k, d, s, op) in enumerate(zip((kh, kw), dilations, strides, out_pad)):
        widths.append([d * (k - 1) - pads[i], d * (k - 1) - pads[i + 2] + op - (s - 1)])
    x2 = _pad_or_crop(x2, widths)
    # (C_in, C_out/g, kh, kw) -> (g, C_in/g, C_out/g, kh, kw) -> swap the
    # channel axes -> (C_out, C_in/g, kh, kw), flipped in kh and kw.
    c_in_g = c_in // group
    f = jt.reshape(w2, (group, c_in_g, c_out_g, kh, kw))
    f = jt.transpose(f, (0, 2, 1, 3, 4))
    f = jt.reshape(f, (group * c_out_g, c_in_g, kh, kw))
    f = f[:, :, ::-1, ::-1]
    y = jt._node("conv2d", "jeet.conv2d", [x2, f], {
        "strides": [1, 1], "padding": [0, 0, 0, 0], "dilations": dilations,
        "groups": group})
    if n.has(2):
        y = jt.add(y, jt.reshape(n.tensor(2), (y.shape[1], 1, 1)))
    return [_from_2d(y, rank)]


def _text_attr(n, name, default):
    value = n.attr(name, default)
    return value.decode() if isinstance(value, bytes) else value


_RESIZE_TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "half_pixel_symmetric",
                      "asymmetric", "align_corners", "tf_crop_and_resize")
_NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _resize_sources(transform, size, out, scale, roi):
    """The input coordinate of each of the `out` output elements along an
    axis of `size` elements, by coordinate_transformation_mode (in float64,
    as the ONNX reference computes them), and for tf_crop_and_resize which
    of them fall outside the input (else None)."""
    y = np.arange(out, dtype=np.float64)
    width = scale * size  # the output's length before it is rounded down
    if transform == "half_pixel":
        return (y + 0.5) / scale - 0.5, None
    if transform == "pytorch_half_pixel":
        return (np.full(out, -0.5) if width == 1 else (y + 0.5) / scale - 0.5), None
    if transform == "half_pixel_symmetric":
        offset = size / 2 * (1 - out / width)
        return offset + (y + 0.5) / scale - 0.5, None
    if transform == "asymmetric":
        return y / scale, None
    if transform == "align_corners":
        return (np.zeros(out) if width == 1 else y * (size - 1) / (width - 1)), None
    start, end = roi
    if width == 1:
        x = np.full(out, (end - start) * (size - 1) / 2)
    else:
        x = y * (end - start) * (size - 1) / (width - 1)
    x = x + start * (size - 1)
    return x, (x < 0) | (x > size - 1)


def _cubic(x, a):
    """The cubic convolution kernel (Keys, coefficient a) at |x|."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def _resize_coefficients(mode, ratio, scale, rounding, cubic_a, antialias):
    """The weights of the neighbours of each output element, one row each,
    from the distance `ratio` in (0, 1] of its source coordinate past the
    neighbour before it (the ONNX reference's coefficients)."""
    r = ratio[:, None]
    if mode == "nearest":
        second = {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5,
                  "floor": np.zeros(ratio.shape, bool),
                  "ceil": np.ones(ratio.shape, bool)}[rounding] | (ratio == 1)
        return np.stack([~second, second], axis=1).astype(np.float64)
    if not antialias:
        if mode == "linear":
            return np.concatenate([1 - r, r], axis=1)
        return _cubic(np.concatenate([r + 1, r, 1 - r, 2 - r], axis=1), cubic_a)
    # Antialiasing widens the kernel by 1 / scale when the axis shrinks.
    s = min(scale, 1.0)
    if mode == "linear":
        start = int(np.floor(-1 / s) + 1)
        taps = np.arange(start, start + 2 - 2 * start)
        weights = np.clip(1 - np.abs((taps - r) * s), 0, 1)
    else:
        start = int(np.floor(-2 / s) + 1)
        weights = _cubic(s * (np.arange(start, 2 - start) - r), cubic_a)
    return weights / weights.sum(axis=1, keepdims=True)


def _resize_taps(mode, transform, size, out, scale, roi, rounding, cubic_a,
                 antialias, exclude_outside):
    """One axis of a Resize: (indices, weights, outside): element i of the
    output is the sum over k of input[indices[i, k]] * weights[i, k], or the
    extrapolation value where outside[i] (tf_crop_and_resize; else None)."""
    x, outside = _resize_sources(transform, size, out, scale, roi)
    floor = np.floor(x)
    ratio = np.where(x == floor, 1.0, x - floor)
    weights = _resize_coefficients(mode, ratio, scale, rounding, cubic_a, antialias)
    n = weights.shape[1]
    # The n neighbours nearest the source coordinate (the earlier ones on a
    # tie), as the reference finds them on the input padded by its edges.
    pad = (n + 1) // 2
    padded = x + pad
    p = np.floor(padded)
    frac = padded - p
    if n % 2 == 0:
        first = p + np.where(frac == 0, -(n // 2), -(n // 2) + 1)
    else:
        first = p - (n - 1) // 2 + (frac > 0.5)
    indices = first.astype(np.int64)[:, None] + np.arange(n) - pad
    if exclude_outside:
        weights = np.where((indices < 0) | (indices >= size), 0.0, weights)
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    return np.clip(indices, 0, size - 1), weights, outside


def _resize_axis(x, axis, indices, weights, outside, extrapolation):
    """x resized along `axis` by _resize_taps's taps: one gather per tap
    whose weights are not all zero (none where a tap reads each element in
    place), weighted and summed."""
    out = indices.shape[0]
    shape = [1] * x.ndim
    shape[axis] = out
    if weights.shape[1] == 2 and np.all((weights == 0) | (weights == 1)) \
            and np.all(weights.sum(axis=1) == 1):
        # Nearest: the one neighbour whose weight is 1.
        indices = indices[np.arange(out), np.argmax(weights, axis=1)][:, None]
        weights = np.ones((out, 1))
    y = None
    for k in range(weights.shape[1]):
        w = weights[:, k]
        if not w.any():
            continue
        index = indices[:, k]
        term = (x if out == x.shape[axis] and np.array_equal(index, np.arange(out))
                else jt.take(x, jt._constant(index, "i64"), axis))
        if not np.all(w == 1):
            term = term * jt._constant(w.reshape(shape), x._dtype)
        y = term if y is None else y + term
    if y is None:
        y = jt.take(x, jt._constant(indices[:, 0], "i64"), axis) * _scalar(x, 0)
    if outside is not None and outside.any():
        y = jt.where(jt._constant(outside.reshape(shape), "i1"), _scalar(y, extrapolation), y)
    return y


def _repeats(indices, weights, size):
    """The whole factor by which a nearest resize repeats each element of
    an axis of `size` elements, if that is what its taps do, else None."""
    out = indices.shape[0]
    if out % size or out < size:
        return None
    chosen = indices[np.arange(out), np.argmax(weights, axis=1)]
    if not np.array_equal(chosen, np.arange(out) // (out // size)):
        return None
    return out // size


@converter("Resize", needs=("broadcast_to", "take", "where"))
def _resize(n):
    # Resizing is separable: each resized axis in turn, by the taps the
    # ONNX reference computes (the neighbours of each output element's
    # source coordinate and their weights), known from the shapes when the
    # model is loaded. A nearest resize by whole factors is a broadcast over
    # a new axis after each resized one and a reshape (no gather); the
    # others gather their taps along each axis and sum them, weighted.
    x = n.tensor(0)
    mode = _text_attr(n, "mode", "nearest")
    if mode not in ("nearest", "linear", "cubic"):
        raise n.error(f"mode '{mode}' is not one of nearest, linear, cubic")
    transform = _text_attr(n, "coordinate_transformation_mode", "half_pixel")
    if transform not in _RESIZE_TRANSFORMS:
        raise n.error(f"coordinate_transformation_mode '{transform}' is not one of "
                      f"{', '.join(_RESIZE_TRANSFORMS)}")
    rounding = _text_attr(n, "nearest_mode", "round_prefer_floor")
    if rounding not in _NEAREST_MODES:
        raise n.error(f"nearest_mode '{rounding}' is not one of "
                      f"{', '.join(_NEAREST_MODES)}")
    antialias = bool(n.attr("antialias", 0))
    if antialias and mode == "nearest":
        raise n.error("antialias applies to modes linear and cubic, not nearest")
    if mode != "nearest" and x._dtype not in ("f32", "f16", "bf16"):
        raise n.error(f"mode '{mode}' needs a floating-point input, got "
                      f"{jt._dtypes.LONG_NAMES[x._dtype]}")
    axes = _axes(n, n.ints("axes", list(range(x.ndim))), x.ndim)
    scales = (np.asarray(n.static(2, "the scales"), np.float64).reshape(-1)
              if n.has(2) else np.zeros(0))
    if scales.size:
        if n.has(3):
            raise n.error("both scales and sizes are given")
        if scales.size != len(axes):
            raise n.error(f"scales has {scales.size} entries for {len(axes)} axes")
        if np.any(scales <= 0):
            raise n.error(f"scales {scales.tolist()} must be positive")
        outs = [int(x.shape[a] * s) for a, s in zip(axes, scales)]
    elif n.has(3):
        sizes = n.static_ints(3, "the sizes")
        if len(sizes) != len(axes):
            raise n.error(f"sizes has {len(sizes)} entries for {len(axes)} axes")
        if any(x.shape[a] == 0 for a in axes):
            raise n.unsupported(f"resizing an axis of no elements ({list(x.shape)})")
        scales = np.array([o / x.shape[a] for o, a in zip(sizes, axes)])
        policy = _text_attr(n, "keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            if policy not in ("not_larger", "not_smaller"):
                raise n.error(f"keep_aspect_ratio_policy '{policy}' is not "
                              "stretch, not_larger or not_smaller")
            scale = scales.min() if policy == "not_larger" else scales.max()
            scales = np.full(len(axes), scale)
            sizes = [int(x.shape[a] * scale + 0.5) for a in axes]
        outs = sizes
    else:
        raise n.error("neither scales nor sizes is given")
    if any(o <= 0 for o in outs):
        raise n.unsupported(f"an empty result (output sizes {outs} on axes {axes})")
    rois = [None] * len(axes)
    if transform == "tf_crop_and_resize":
        if not n.has(1):
            raise n.error("coordinate_transformation_mode 'tf_crop_and_resize' needs roi")
        roi = np.asarray(n.static(1, "the roi"), np.float64).reshape(-1)
        if roi.size != 2 * len(axes):
            raise n.error(f"roi has {roi.size} entries for {len(axes)} axes (two each)")
        rois = [(roi[k], roi[k + len(axes)]) for k in range(len(axes))]
    extrapolation = float(n.attr("extrapolation_value", 0.0))
    cubic_a = float(n.attr("cubic_coeff_a", -0.75))
    exclude_outside = bool(n.attr("exclude_outside", 0))
    taps = {}
    for a, scale, out, roi in zip(axes, scales, outs, rois):
        size = x.shape[a]
        if out == size and np.isclose(scale, 1.0) and (
                roi is None or (np.isclose(roi[0], 0.0) and np.isclose(roi[1], 1.0))):
            continue  # as the reference: the identity along this axis
        taps[a] = _resize_taps(mode, transform, size, out, float(scale), roi, rounding,
                               cubic_a, antialias, exclude_outside)
    if not taps:
        return [x]
    if mode == "nearest":
        factors = {a: _repeats(t[0], t[1], x.shape[a]) for a, t in taps.items()
                   if t[2] is None or not t[2].any()}
        if len(factors) == len(taps) and None not in factors.values():
            expanded, broadcast, result = [], [], []
            for a, d in enumerate(x.shape):
                f = factors.get(a, 1)
                expanded += [d, 1] if f > 1 else [d]
                broadcast += [d, f] if f > 1 else [d]
                result.append(d * f)
            y = jt.broadcast_to(jt.reshape(x, tuple(expanded)), tuple(broadcast))
            return [jt.reshape(y, tuple(result))]
        y = x
    else:
        y = _widened(x)
    for a, (indices, weights, outside) in taps.items():
        y = _resize_axis(y, a, indices, weights, outside, extrapolation)
    return [_narrowed(y, x._dtype)]


# --------------------------------------------------------------------------
# Recurrent layers (RNN, GRU, LSTM), unrolled over the sequence
# --------------------------------------------------------------------------

# The activations ONNX names for the recurrent ops, with their defaults of
# alpha and beta (None: the function takes none).
_RECURRENT_ACTIVATIONS = {
    "Sigmoid": (None, None), "Tanh": (None, None), "Relu": (None, None),
    "Softsign": (None, None), "Softplus": (None, None),
    "Affine": (1.0, 0.0), "LeakyRelu": (0.01, None), "ThresholdedRelu": (1.0, None),
    "ScaledTanh": (1.0, 1.0), "HardSigmoid": (0.2, 0.5), "Elu": (1.0, None),
}
_RECURRENT_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_RECURRENT_DEFAULTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
                       "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


# Each activation's canonical name by its lower-case spelling (ONNX's
# names are matched in any case).
_RECURRENT_ACTIVATION_NAMES = {k.lower(): k for k in _RECURRENT_ACTIVATIONS}


def _recurrent_activation(name, alpha, beta):
    """The activation `name` (canonical) with its alpha and beta as a
    function of a jeet tensor."""
    return {
        "Sigmoid": jt.sigmoid, "Tanh": jt.tanh, "Relu": jt.relu,
        "Softsign": lambda x: jt.div(x, jt.add(jt.abs(x), 1.0)),
        "Softplus": _softplus,
        "Affine": lambda x: jt.add(jt.mul(x, alpha), beta),
        "LeakyRelu": lambda x: jt.where(jt.lt(x, 0.0), jt.mul(x, alpha), x),
        "ThresholdedRelu": lambda x: jt.where(jt.gt(x, alpha), x, jt.mul(x, 0.0)),
        "ScaledTanh": lambda x: jt.mul(jt.tanh(jt.mul(x, beta)), alpha),
        "HardSigmoid": lambda x: _hard_sigmoid(x, alpha, beta),
        "Elu": lambda x: _elu_core(x, alpha),
    }[name]


def _recurrent_activations(n, count, directions):
    """`count` activation functions per direction, from the node's
    activations, activation_alpha and activation_beta."""
    names = n.attr("activations")
    names = ([v.decode() if isinstance(v, bytes) else v for v in names]
             if names is not None else _RECURRENT_DEFAULTS[n.op_type] * directions)
    if len(names) == count:
        names = names * directions
    if len(names) != count * directions:
        raise n.error(f"activations {names} should name {count} function(s) per "
                      f"direction ({count * directions} in all)")
    # activation_alpha and activation_beta list the values of the functions
    # that take them, in order; the others take their defaults.
    alphas = iter(n.attr("activation_alpha", []) or [])
    betas = iter(n.attr("activation_beta", []) or [])
    functions = []
    for name in names:
        canonical = _RECURRENT_ACTIVATION_NAMES.get(name.lower())
        if canonical is None:
            raise n.error(f"activation '{name}' is not one of "
                          f"{', '.join(_RECURRENT_ACTIVATIONS)}")
        alpha, beta = _RECURRENT_ACTIVATIONS[canonical]
        if alpha is not None:
            alpha = float(next(alphas, alpha))
        if beta is not None:
            beta = float(next(betas, beta))
        functions.append(_recurrent_activation(canonical, alpha, beta))
    return [functions[d * count:(d + 1) * count] for d in range(directions)]


def _rows(x, start, size):
    """Columns [start, start + size) of a matrix (a gate's part of the
    gates' pre-activations)."""
    return x[:, start:start + size]


@converter("RNN", "GRU", "LSTM", needs=("matmul", "concatenate", "sigmoid", "tanh"))
def _recurrent(n):
    # Unrolled over the sequence (its length is the input's static shape):
    # the input's product with W for every step at once (one matmul), then
    # per step the hidden state's product with R and the gates' activations,
    # which read their parts of the pre-activations in place (slices). ONNX
    # gate orders: LSTM i, o, f, c; GRU z, r, h.
    op = n.op_type
    gates = _RECURRENT_GATES[op]
    x = n.tensor(0)
    if x.ndim != 3:
        raise n.error(f"X must have rank 3, got shape {list(x.shape)}")
    layout = int(n.attr("layout", 0))
    if layout not in (0, 1):
        raise n.error(f"layout must be 0 or 1, got {layout}")
    if layout:
        x = jt.transpose(x, (1, 0, 2))
    steps, batch, features = x.shape
    w, r = n.tensor(1), n.tensor(2)
    directions, rows, hidden = r.shape if r.ndim == 3 else (0, 0, 0)
    direction = _text_attr(n, "direction", "forward")
    expected = {"forward": 1, "reverse": 1, "bidirectional": 2}.get(direction)
    if expected is None:
        raise n.error(f"direction '{direction}' is not one of forward, reverse, "
                      "bidirectional")
    if (w.ndim != 3 or tuple(w.shape) != (expected, gates * hidden, features)
            or rows != gates * hidden or directions != expected):
        raise n.error(f"W {list(w.shape)} and R {list(r.shape)} do not fit X "
                      f"{list(x.shape)} with {expected} direction(s) of {gates} "
                      "gate(s)")
    size = n.attr("hidden_size")
    if size is not None and int(size) != hidden:
        raise n.error(f"hidden_size {size} does not match R's {hidden}")
    if steps == 0 or batch == 0:
        raise n.unsupported("an empty sequence or batch")
    if n.has(4):
        lengths = np.asarray(n.static(4, "sequence_lens")).reshape(-1)
        if lengths.size != batch or np.any(lengths != steps):
            raise n.unsupported(
                f"sequence_lens {lengths.tolist()} other than the whole sequence "
                f"({steps}) for every batch entry")
    clip = n.attr("clip")
    clip = None if clip is None else float(clip)
    input_forget = int(n.attr("input_forget", 0))
    linear_before_reset = int(n.attr("linear_before_reset", 0))
    activations = _recurrent_activations(n, {"RNN": 1, "GRU": 2, "LSTM": 3}[op], expected)

    def state(i, what):
        if not n.has(i):
            return None
        s = n.tensor(i)
        if layout:
            s = jt.transpose(s, (1, 0, 2))
        if tuple(s.shape) != (expected, batch, hidden):
            raise n.error(f"{what} {list(s.shape)} should be "
                          f"{[expected, batch, hidden] if not layout else [batch, expected, hidden]}")
        return s

    h0, c0 = state(5, "initial_h"), (state(6, "initial_c") if op == "LSTM" else None)
    bias = n.tensor(3) if n.has(3) else None
    if bias is not None and tuple(bias.shape) != (expected, 2 * gates * hidden):
        raise n.error(f"B {list(bias.shape)} should be {[expected, 2 * gates * hidden]}")
    peepholes = n.tensor(7) if op == "LSTM" and n.has(7) else None
    if peepholes is not None and tuple(peepholes.shape) != (expected, 3 * hidden):
        raise n.error(f"P {list(peepholes.shape)} should be {[expected, 3 * hidden]}")
    zero = jt.broadcast_to(_scalar(x, 0), (batch, hidden))

    def clipped(v):
        return v if clip is None else jt.minimum(jt.maximum(v, -clip), clip)

    ys, last_h, last_c = [], [], []
    for d in range(expected):
        f = activations[d]
        wd = jt.reshape(w[d:d + 1], (gates * hidden, features))
        rd = jt.reshape(r[d:d + 1], (gates * hidden, hidden))
        # X W^T (+ Wb) for every step: (steps * batch, gates * hidden).
        xw = jt.matmul(jt.reshape(x, (steps * batch, features)), jt.transpose(wd, (1, 0)))
        wb = rb = None
        if bias is not None:
            wb = jt.reshape(bias[d:d + 1, :gates * hidden], (gates * hidden,))
            rb = jt.reshape(bias[d:d + 1, gates * hidden:], (gates * hidden,))
            if op != "GRU":
                xw = jt.add(xw, jt.add(wb, rb))
            else:
                xw = jt.add(xw, wb)
        rt = jt.transpose(rd, (1, 0))
        h = zero if h0 is None else jt.reshape(h0[d:d + 1], (batch, hidden))
        c = (zero if c0 is None else jt.reshape(c0[d:d + 1], (batch, hidden))) \
            if op == "LSTM" else None
        if peepholes is not None:
            p = [jt.reshape(peepholes[d:d + 1, k * hidden:(k + 1) * hidden], (hidden,))
                 for k in range(3)]
        outputs = [None] * steps
        backwards = direction == "reverse" or d == 1
        order = range(steps - 1, -1, -1) if backwards else range(steps)
        for t in order:
            xt = xw[t * batch:(t + 1) * batch]
            if op == "RNN":
                h = f[0](clipped(jt.add(xt, jt.matmul(h, rt))))
            elif op == "LSTM":
                g = jt.add(xt, jt.matmul(h, rt))
                i_, o_, f_, c_ = (_rows(g, k * hidden, hidden) for k in range(4))
                if peepholes is not None:
                    i_ = jt.add(i_, jt.mul(p[0], c))
                    f_ = jt.add(f_, jt.mul(p[2], c))
                i_ = f[0](clipped(i_))
                f_ = jt.sub(1.0, i_) if input_forget else f[0](clipped(f_))
                c = jt.add(jt.mul(f_, c), jt.mul(i_, f[1](clipped(c_))))
                if peepholes is not None:
                    o_ = jt.add(o_, jt.mul(p[1], c))
                h = jt.mul(f[0](clipped(o_)), f[2](c))
            else:
                # z and r from X W^T + H R^T (+ biases), h from its own parts.
                hr = jt.matmul(h, rt)
                if rb is not None:
                    hr = jt.add(hr, rb)
                z = f[0](clipped(jt.add(_rows(xt, 0, hidden), _rows(hr, 0, hidden))))
                reset = f[0](clipped(jt.add(_rows(xt, hidden, hidden),
                                            _rows(hr, hidden, hidden))))
                if linear_before_reset:
                    candidate = jt.add(_rows(xt, 2 * hidden, hidden),
                                       jt.mul(reset, _rows(hr, 2 * hidden, hidden)))
                else:
                    rh = jt.transpose(rd[2 * hidden:], (1, 0))
                    candidate = jt.add(_rows(xt, 2 * hidden, hidden),
                                       jt.matmul(jt.mul(reset, h), rh))
                    if rb is not None:
                        candidate = jt.add(candidate, _rows(jt.reshape(rb, (1, gates * hidden)),
                                                            2 * hidden, hidden))
                candidate = f[1](clipped(candidate))
                h = jt.add(jt.mul(jt.sub(1.0, z), candidate), jt.mul(z, h))
            outputs[t] = h
        ys.append(jt.concatenate([jt.reshape(o, (1, 1, batch, hidden)) for o in outputs], 0))
        last_h.append(jt.reshape(h, (1, batch, hidden)))
        if op == "LSTM":
            last_c.append(jt.reshape(c, (1, batch, hidden)))

    def joined(parts, axis):
        return parts[0] if len(parts) == 1 else jt.concatenate(parts, axis)

    y, y_h = joined(ys, 1), joined(last_h, 0)
    y_c = joined(last_c, 0) if op == "LSTM" else None
    if layout:
        y = jt.transpose(y, (2, 0, 1, 3))
        y_h = jt.transpose(y_h, (1, 0, 2))
        y_c = None if y_c is None else jt.transpose(y_c, (1, 0, 2))
    return ([y, y_h] + ([y_c] if op == "LSTM" else []))[:max(n.num_outputs, 1)]


@converter("MaxPool", "AveragePool", needs=("max_pool2d", "avg_pool2d"))
def _pool(n):
    x = n.tensor(0)
    rank = x.ndim
    x2 = _as_2d(n, x, "pooling")
    kernel = n.ints("kernel_shape")
    if rank == 3:
        kernel = [1] + kernel
    strides, dilations, pads = _window_attrs(n, x, kernel)
    ceil_mode = bool(n.attr("ceil_mode", 0))
    if n.output_used(1):
        raise n.unsupported("the Indices output")
    if n.op_type == "AveragePool":
        if dilations != [1, 1]:
            raise n.unsupported("dilations in AveragePool")
        y = jt._pool_node("avg_pool2d", x2, kernel, strides, pads, dilations,
                          {"count_include_pad": bool(n.attr("count_include_pad", 0))},
                          ceil_mode)
    else:
        y = jt._pool_node("max_pool2d", x2, kernel, strides, pads, dilations,
                          ceil_mode=ceil_mode)
    return [_from_2d(y, rank)]


# --------------------------------------------------------------------------
# Index of the extremum
# --------------------------------------------------------------------------


@converter("ArgMax", "ArgMin", needs=("argmax", "argmin"))
def _arg_extremum(n):
    x = n.tensor(0)
    axis = _axis(n, int(n.attr("axis", 0)), x.ndim)
    fn = jt.argmax if n.op_type == "ArgMax" else jt.argmin
    keepdims = bool(n.attr("keepdims", 1))
    if not n.attr("select_last_index", 0):
        return [fn(x, axis, keepdims)]
    # The last extremum: the first one of the reversed axis, counted back.
    slices = [slice(None)] * x.ndim
    slices[axis] = slice(None, None, -1)
    first = fn(_sliced(x, slices), axis, keepdims)
    return [jt.sub(_scalar(first, x.shape[axis] - 1), first)]


@converter("TopK")
def _top_k(n):
    # The K largest (smallest) along the axis, sorted either way (sorted=0
    # allows any order), the lower index first among equal values.
    x = n.tensor(0)
    if x.ndim == 0:
        raise n.error("the input must have rank 1 or more")
    axis = _axis(n, int(n.attr("axis", -1)), x.ndim)
    ks = n.static_ints(1, "K")
    if len(ks) != 1:
        raise n.error(f"K must hold one value, got {ks}")
    k = ks[0]
    if not 0 <= k <= x.shape[axis]:
        raise n.error(f"K = {k} is out of range for axis {axis} of size {x.shape[axis]}")
    try:
        values, indices = topk(x, k, axis, largest=bool(n.attr("largest", 1)))
    except ShapeError as e:
        raise n.error(str(e).replace("jeet.topk: ", "")) from None
    return [values, indices]


@converter("Hardmax", needs=("argmax", "iota", "eq", "cast"))
def _hardmax(n):
    # 1 at the first maximum along the axis, 0 elsewhere.
    x = n.tensor(0)
    if x.ndim == 0:
        raise n.error("the input must have rank 1 or more")
    axis = _axis(n, int(n.attr("axis", -1)), x.ndim)
    first = jt.argmax(x, axis, True)
    index = jt.iota(x.shape, axis=axis, dtype="int64")
    return [jt.cast(jt.eq(index, first), x._dtype)]


@converter("Trilu", needs=("iota", "ge", "le", "where"))
def _trilu(n):
    # Keeps the elements on and above (upper=1) or on and below (upper=0)
    # the k-th diagonal of the last two dimensions, zeros the rest; k may be
    # a run-time value.
    x = n.tensor(0)
    if x.ndim < 2:
        raise n.error(f"the input must have rank 2 or more, got rank {x.ndim}")
    upper = bool(n.attr("upper", 1))
    rows = jt.iota(x.shape[-2:], axis=0, dtype="int64")
    cols = jt.iota(x.shape[-2:], axis=1, dtype="int64")
    if not n.has(1):
        shifted = rows
    elif n.is_static(1):
        k = n.static_ints(1, "k")
        if len(k) != 1:
            raise n.error(f"k must hold one value, got {len(k)}")
        shifted = jt.add(rows, k[0]) if k[0] else rows
    else:
        k = n.tensor(1)
        if k.size != 1 or k._dtype != "i64":
            raise n.error(f"k must be one int64, got shape {k.shape} {k._dtype}")
        shifted = jt.add(rows, jt.reshape(k, ()))
    keep = jt.ge(cols, shifted) if upper else jt.le(cols, shifted)
    return [jt.where(keep, x, _scalar(x, 0))]


@converter("OneHot", needs=("iota", "eq", "where", "lt"))
def _one_hot(n):
    # values[1] where an index equals its position along the new axis (an
    # iota), values[0] elsewhere. depth decides the shape: it must be known
    # when the model is loaded.
    depth = np.asarray(n.static(1, "the depth")).reshape(-1)
    if depth.size != 1:
        raise n.error(f"depth must hold one value, got {depth.size}")
    depth = depth[0].item()
    if depth != int(depth) or int(depth) < 1:
        raise n.error(f"depth must be a positive integer, got {depth}")
    depth = int(depth)
    indices, values = n.tensor(0), n.tensor(2)
    if values.shape != (2,):
        raise n.error(f"values must be [off_value, on_value] (shape (2,)), "
                      f"got shape {values.shape}")
    if indices.size == 0:
        raise n.unsupported("an empty indices tensor")
    if indices._dtype not in ("i32", "i64"):
        # ONNX casts non-integer indices to int64 (toward zero).
        indices = jt.cast(indices, "int64")
    rank = indices.ndim
    axis = int(n.attr("axis", -1))
    if not -rank - 1 <= axis <= rank:
        raise n.error(f"axis {axis} is out of range for indices of rank {rank} "
                      f"(the output has rank {rank + 1})")
    axis %= rank + 1
    shape = indices.shape
    index = jt.reshape(indices, shape[:axis] + (1,) + shape[axis:])
    # A negative index counts from the end; one outside [-depth, depth)
    # matches no position (all off_value).
    index = jt.where(jt.lt(index, _scalar(index, 0)),
                     jt.add(index, _scalar(index, depth)), index)
    positions = jt.iota((1,) * axis + (depth,) + (1,) * (rank - axis),
                        axis=axis, dtype=indices.dtype)
    return [jt.where(jt.eq(index, positions), values[1], values[0])]


# --------------------------------------------------------------------------
# Values known when the model is loaded
# --------------------------------------------------------------------------


@folder("Constant")
def _constant(n):
    for name, elem_type in (("value_float", TensorProto.FLOAT),
                            ("value_int", TensorProto.INT64)):
        if n.has_attr(name):
            return [(np.asarray(n.attr(name), _types.numpy_dtype(elem_type)), elem_type)]
    for name, elem_type in (("value_floats", TensorProto.FLOAT),
                            ("value_ints", TensorProto.INT64)):
        if n.has_attr(name):
            return [(np.asarray(n.attr(name), _types.numpy_dtype(elem_type)), elem_type)]
    if n.has_attr("value"):
        proto = n.attr("value")
        array = _types.to_array(proto)
        elem_type = proto.data_type
        if elem_type == _types.FLOAT64 and n._importer.options.cast_float64:
            array, elem_type = array.astype(np.float32), TensorProto.FLOAT
        return [(array, elem_type)]
    raise n.unsupported("a Constant without a tensor, float or int value "
                        "(sparse and string constants)")


@folder("ConstantOfShape")
def _constant_of_shape(n):
    shape = n.static_ints(0, "the shape")
    if n.has_attr("value"):
        proto = n.attr("value")
        value, elem_type = _types.to_array(proto).reshape(-1)[0], proto.data_type
    else:
        value, elem_type = 0.0, TensorProto.FLOAT
    return [(np.full(shape, value, _types.numpy_dtype(elem_type)), elem_type)]


@folder("EyeLike")
def _eye_like(n):
    shape = n.shape(0)
    if len(shape) != 2:
        raise n.error(f"the input must be 2-D, got {shape}")
    elem_type = n.attr("dtype", n.elem_type(0))
    eye = np.eye(shape[0], shape[1], k=int(n.attr("k", 0)))
    return [(eye.astype(_types.numpy_dtype(elem_type)), elem_type)]


@folder("Shape")
def _shape(n):
    shape = list(n.shape(0))
    start, end = int(n.attr("start", 0)), n.attr("end")
    rank = len(shape)
    start = min(max(start + rank if start < 0 else start, 0), rank)
    end = rank if end is None else int(end)
    end = min(max(end + rank if end < 0 else end, 0), rank)
    return [(np.asarray(shape[start:end], np.int64), TensorProto.INT64)]


@folder("Size")
def _size(n):
    return [(np.asarray(int(np.prod(n.shape(0), dtype=np.int64)), np.int64),
             TensorProto.INT64)]


def _fold_elementwise(fn):
    def fold(n):
        arrays = [n.static(i, f"input {i}") for i in range(n.num_inputs) if n.has(i)]
        return [(np.asarray(fn(*arrays)).astype(arrays[0].dtype), n.elem_type(0))]
    return fold


def _int_div(a, b):
    # Integer division of ONNX (C's): rounds toward zero.
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


for _op, _fn in {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
                 "Div": _int_div, "Neg": np.negative, "Abs": np.abs}.items():
    FOLDERS[_op] = _fold_elementwise(_fn)


@folder("Mod")
def _fold_mod(n):
    # Shape arithmetic (the expanded Attention function's heads per group):
    # the values jeet.fmod and jeet.remainder compute at run time.
    a, b = n.static(0, "A"), n.static(1, "B")
    with np.errstate(all="ignore"):
        if int(n.attr("fmod", 0)):
            r = np.fmod(a, b)
        else:
            r = np.remainder(a, b)
    if np.issubdtype(r.dtype, np.integer):
        r = np.where(b == 0, a, r)  # x mod 0 = x, as at run time
    return [(np.asarray(r).astype(a.dtype), n.elem_type(0))]


@folder("Max", "Min")
def _fold_max_min(n):
    arrays = [n.static(i, f"input {i}") for i in range(n.num_inputs) if n.has(i)]
    fn = np.maximum if n.op_type == "Max" else np.minimum
    result = arrays[0]
    for a in arrays[1:]:
        result = fn(result, a)
    return [(result, n.elem_type(0))]


@folder("Equal", "Less", "Greater")
def _fold_compare(n):
    fn = {"Equal": np.equal, "Less": np.less, "Greater": np.greater}[n.op_type]
    return [(fn(n.static(0, "A"), n.static(1, "B")), TensorProto.BOOL)]


@folder("And", "Or", "Xor")
def _fold_logical(n):
    fn = {"And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor}[n.op_type]
    return [(fn(n.static(0, "A"), n.static(1, "B")), TensorProto.BOOL)]


@folder("Not")
def _fold_not(n):
    return [(np.logical_not(n.static(0, "X")), TensorProto.BOOL)]


@folder("Where")
def _fold_where(n):
    return [(np.where(n.static(0, "condition"), n.static(1, "X"), n.static(2, "Y")),
             n.elem_type(1))]


@folder("Concat")
def _fold_concat(n):
    arrays = [n.static(i, f"input {i}") for i in range(n.num_inputs) if n.has(i)]
    axis = _axis(n, int(n.attr("axis")), arrays[0].ndim)
    return [(np.concatenate(arrays, axis=axis), n.elem_type(0))]


@folder("Gather")
def _fold_gather(n):
    data, indices = n.static(0, "data"), n.static(1, "indices")
    axis = _axis(n, int(n.attr("axis", 0)), data.ndim)
    size = data.shape[axis]
    if np.any(indices < -size) or np.any(indices >= size):
        raise n.error(f"indices {indices.tolist()} out of range for axis {axis} of size {size}")
    return [(np.take(data, indices, axis=axis), n.elem_type(0))]


@folder("Slice")
def _fold_slice(n):
    data = n.static(0, "data")
    starts = n.static_ints(1, "starts")
    ends = n.static_ints(2, "ends")
    axes = n.static_ints(3, "axes") if n.has(3) else list(range(len(starts)))
    steps = n.static_ints(4, "steps") if n.has(4) else [1] * len(starts)
    index = [slice(None)] * data.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[_axis(n, a, data.ndim)] = slice(s, e, st)
    return [(data[tuple(index)], n.elem_type(0))]


def _range_bound(n, i, what):
    """Range's input i as a Python number known at load, or an error: the
    output's length would depend on run-time values. A graph input, or a
    value the importer folds from small integer graph inputs, compiles by
    value."""
    name = n.input_name(i) if n.has(i) else ""
    importer = n._importer
    if (n.has(i) and not n.is_static(i) and name not in importer.graph_inputs
            and not importer.shape_inputs(name)):
        raise n.error(
            f"{what} (input '{name}') is computed at run time by node "
            f"'{importer.producers.get(name, '?')}': the output's length, "
            "ceil((limit - start) / delta), would depend on run-time values "
            "(Jeet compiles static shapes); start, limit and delta must be "
            "known when the model is loaded")
    array = np.asarray(n.static(i, what))
    if array.size != 1:
        raise n.error(f"{what} must be a scalar, got shape {array.shape}")
    return array.reshape(-1)[0].item()


def _range_values(n):
    """Range's output, computed at load: start + i * delta for i below
    max(ceil((limit - start) / delta), 0); exact for integers, float
    values from float64 (as ONNX's reference), float16 and bfloat16 from
    float32 (stash_type 1, the default since opset 27)."""
    start, limit, delta = (_range_bound(n, i, what) for i, what in
                           enumerate(("start", "limit", "delta")))
    elem_type = n.elem_type(0)
    if delta == 0:
        raise n.error("delta must not be 0")
    dtype = _types.numpy_dtype(elem_type)
    if dtype.kind in "iu":
        start, limit, delta = int(start), int(limit), int(delta)
        count = max(-((start - limit) // delta), 0)  # ceil((limit - start) / delta)
        values = start + np.arange(count, dtype=np.int64) * delta
        return values.astype(dtype), elem_type
    if elem_type in (TensorProto.FLOAT16, TensorProto.BFLOAT16):
        start, limit, delta = (float(np.float32(v)) for v in (start, limit, delta))
    count = max(int(np.ceil((limit - start) / delta)), 0)
    values = start + np.arange(count, dtype=np.float64) * delta
    if elem_type == TensorProto.BFLOAT16:
        import ml_dtypes  # onnx's dependency: bfloat16 rounding
        return values.astype(ml_dtypes.bfloat16).astype(np.float32), elem_type
    return values.astype(dtype), elem_type


@folder("Range")
def _fold_range(n):
    return [_range_values(n)]


@converter("Range")
def _range(n):
    # The values are known when the model is loaded (they decide the
    # output's shape): a Static result, which a consumer reads as a
    # constant or a bound argument.
    array, elem_type = _range_values(n)
    if array.size == 0:
        raise n.unsupported("an empty range")
    return [Static(array, elem_type)]


_WINDOWS = {
    # w[i] for i in 0..size-1 over N = size (periodic) or size - 1.
    "HannWindow": lambda i, N: np.sin(np.pi * i / N) ** 2,
    "HammingWindow": lambda i, N: 25 / 46 - 21 / 46 * np.cos(2 * np.pi * i / N),
    "BlackmanWindow": lambda i, N: (0.42 - 0.5 * np.cos(2 * np.pi * i / N)
                                    + 0.08 * np.cos(4 * np.pi * i / N)),
}


@converter(*_WINDOWS)
def _window(n):
    # Computed at load (the size decides the shape: a graph input compiles
    # by value), in float64 and then in output_datatype (float32 by
    # default), as ONNX's reference computes. A Static result.
    name = n.input_name(0)
    importer = n._importer
    if (not n.is_static(0) and name not in importer.graph_inputs
            and not importer.shape_inputs(name)):
        raise n.error(
            f"size (input '{name}') is computed at run time by node "
            f"'{importer.producers.get(name, '?')}': it decides the output's "
            "length (Jeet compiles static shapes), so it must be known when "
            "the model is loaded")
    size = np.asarray(n.static(0, "size"))
    if size.size != 1:
        raise n.error(f"size must be a scalar, got shape {size.shape}")
    size = int(size.reshape(-1)[0])
    if size <= 0:
        raise n.unsupported(f"an empty window (size {size})")
    elem_type = int(n.attr("output_datatype", TensorProto.FLOAT))
    _types.jeet_dtype(elem_type, f"{n.op_type} node '{n.name}' output_datatype",
                      n._importer.options.cast_float64)
    periodic = int(n.attr("periodic", 1))
    N = size if periodic else size - 1
    i = np.arange(size, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = _WINDOWS[n.op_type](i, N) if N else np.ones(1)
    dtype = _types.numpy_dtype(elem_type)
    if elem_type == TensorProto.BFLOAT16:
        import ml_dtypes  # onnx's dependency: bfloat16 rounding
        return [Static(values.astype(ml_dtypes.bfloat16).astype(np.float32), elem_type)]
    return [Static(values.astype(dtype), elem_type)]


@folder("ReduceProd")
def _fold_reduce_prod(n):
    data = n.static(0, "data")
    if n.since >= 18:
        axes = n.static_ints(1, "axes") if n.has(1) else None
    else:
        axes = n.ints("axes")
    keepdims = bool(n.attr("keepdims", 1))
    axis = None if not axes else tuple(_axes(n, axes, data.ndim))
    return [(np.prod(data, axis=axis, keepdims=keepdims).astype(data.dtype), n.elem_type(0))]


# Every folder's op that has no converter works only on values known when
# the model is loaded; the importer says so when it meets one on run-time
# data.
SUPPORTED = sorted(CONVERTERS)
