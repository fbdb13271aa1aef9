"""Lazy tensors and the graph builder.

A Tensor is either materialised (it holds a runtime tensor) or a node (a jeet
op applied to input Tensors). Nothing runs until execute(): it collects the
DAG under the tensors asked for, turns materialised leaves into graph inputs
(so new data never recompiles: equal structure prints equal graph text),
builds a jeet::Graph, compiles it through the process-wide cache and runs it.
"""

import numbers

import numpy as np

from . import _device, _dtypes, _jeet
from ._dtypes import ArgumentError
from .errors import JeetError, ShapeError

def _fmt_shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


class Tensor:
    """A Jeet tensor: materialised data, or a lazy op on other tensors."""

    __slots__ = (
        "_rt",          # _jeet.RuntimeTensor when materialised
        "_op",          # jeet op name, 'constant', '_arg' (jit) or None
        "_inputs",      # tuple of Tensor
        "_attrs",       # dict of attributes; constant: the storage array
        "_shape",       # tuple of int
        "_dtype",       # canonical dtype name
        "_device",      # 'cpu', 'gpu', or None (constants)
        "_source",      # (graph text, device) that produced a materialised one
        "__weakref__",
    )

    # NumPy defers binary operators with a Tensor to the Tensor.
    __array_ufunc__ = None

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "create tensors with jeet.tensor(), jeet.zeros(), jeet.rand(), ..."
        )

    @classmethod
    def _new(cls, shape, dtype, device, rt=None, op=None, inputs=(), attrs=None):
        t = object.__new__(cls)
        t._rt = rt
        t._op = op
        t._inputs = tuple(inputs)
        t._attrs = attrs
        t._shape = tuple(int(d) for d in shape)
        t._dtype = dtype
        t._device = device
        t._source = None
        return t

    @classmethod
    def _wrap(cls, rt, device):
        return cls._new(rt.shape, rt.dtype, device, rt=rt)

    # -- properties ---------------------------------------------------------

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return _dtypes.LONG_NAMES[self._dtype]

    @property
    def device(self):
        return self._device if self._device is not None else "cpu"

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        return int(np.prod(self._shape, dtype=np.int64))

    @property
    def is_materialized(self):
        return self._rt is not None

    @property
    def T(self):
        return transpose(self)

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    # -- execution ----------------------------------------------------------

    def execute(self):
        """Compiles (through the cache) and runs the graph that computes this
        tensor; returns it, now materialised."""
        execute(self)
        return self

    def numpy(self):
        """The values as a new NumPy array (executes first if needed;
        bfloat16 comes back as float32)."""
        if self._rt is None:
            self.execute()
        return _dtypes.from_storage(self._rt.numpy(), self._dtype)

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array

    def tolist(self):
        return self.numpy().tolist()

    def item(self):
        return self.numpy().item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __repr__(self):
        desc = (
            f"shape={_fmt_shape(self._shape)}, dtype={self.dtype}, "
            f"device={self.device}"
        )
        if self._rt is not None:
            values = np.array2string(self.numpy(), separator=", ", threshold=20)
            return f"jeet.Tensor({values}, {desc})"
        what = "constant" if self._op == "constant" else self._op
        return f"jeet.Tensor(<lazy {what}>, {desc})"

    # -- operators ----------------------------------------------------------

    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return add(other, self)

    def __sub__(self, other):
        return sub(self, other)

    def __rsub__(self, other):
        return sub(other, self)

    def __mul__(self, other):
        return mul(self, other)

    def __rmul__(self, other):
        return mul(other, self)

    def __truediv__(self, other):
        return div(self, other)

    def __rtruediv__(self, other):
        return div(other, self)

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    def __pow__(self, other):
        return pow(self, other)

    def __rpow__(self, other):
        return pow(other, self)

    def __neg__(self):
        return neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return abs(self)

    # -- methods ------------------------------------------------------------

    def reshape(self, *shape):
        return reshape(self, shape[0] if len(shape) == 1 else shape)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], numbers.Integral)):
            axes = axes[0]
        return transpose(self, axes if axes else None)

    def broadcast_to(self, shape):
        return broadcast_to(self, shape)

    def softmax(self, axis=-1):
        return softmax(self, axis)

    def cast(self, dtype):
        return cast(self, dtype)

    astype = cast

    def matmul(self, other):
        return matmul(self, other)

    # The elementwise ops and reductions are methods too (x.exp(),
    # x.maximum(y), x.sum(axis)): see _FAMILIES below.


# --------------------------------------------------------------------------
# Operands
# --------------------------------------------------------------------------


def _constant(value, dtype):
    """A constant node (no device: it joins the device of its users)."""
    storage = _dtypes.to_storage(value, dtype)
    return Tensor._new(storage.shape, dtype, None, op="constant", attrs=storage)


def _scalar_constant(value, dtype, opname):
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    # Like NumPy, a scalar that does not fit the tensor's dtype is an error,
    # never a silent wrap-around or infinity.
    _dtypes.check_scalar(value, dtype, opname)
    return _constant(np.asarray(value), dtype)


def _is_scalar(x):
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, Tensor)


def _as_operands(opname, *xs):
    """Tensors for the operands of a binary op: Python/NumPy scalars become
    rank-0 constants of the other operand's dtype, arrays and lists become
    tensors on its device."""
    like = next((x for x in xs if isinstance(x, Tensor)), None)
    if like is None:
        raise ArgumentError(
            f"{opname}: at least one operand must be a jeet.Tensor "
            f"(got {', '.join(type(x).__name__ for x in xs)})"
        )
    out = []
    for x in xs:
        if isinstance(x, Tensor):
            out.append(x)
        elif _is_scalar(x):
            out.append(_scalar_constant(x, like._dtype, opname))
        elif isinstance(x, (np.ndarray, list, tuple)):
            out.append(tensor(np.asarray(x), dtype=like._dtype, device=like.device))
        else:
            raise TypeError(
                f"{opname}: unsupported operand type {type(x).__name__}"
            )
    return out


def _common_device(opname, inputs):
    devices = {t._device for t in inputs if t._device is not None}
    if len(devices) > 1:
        raise JeetError(
            f"{opname}: operands are on different devices "
            f"({', '.join(sorted(devices))}); move them to one device first "
            "(mixing devices in one graph is not supported)"
        )
    return devices.pop() if devices else None


def _node(opname, op, inputs, attrs=None, result=None):
    """A lazy node, shape-checked now by the graph's own type inference."""
    device = _common_device(opname, inputs)
    operands = [(list(t._shape), t._dtype) for t in inputs]
    result_shape = list(result[0]) if result is not None else None
    result_dtype = result[1] if result is not None else None
    try:
        shape, dtype = _jeet.infer_type(
            op, operands, attrs or {}, result_shape, result_dtype
        )
    except ShapeError as error:
        shapes = " and ".join(
            f"{_fmt_shape(t._shape)} {_dtypes.LONG_NAMES[t._dtype]}" for t in inputs
        )
        target = ""
        if result is not None:
            target = f" to {_fmt_shape(result[0])} {_dtypes.LONG_NAMES[result[1]]}"
        raise ShapeError(
            f"jeet.{opname}: invalid operand{'s' if len(inputs) > 1 else ''} "
            f"{shapes}{target}: {error}"
        ) from None
    return Tensor._new(shape, dtype, device, op=op, inputs=inputs, attrs=attrs)


def _binary(opname, x, y):
    a, b = _as_operands(opname, x, y)
    return _node(opname, _BINARY_OPS[opname], [a, b])


def _unary(opname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.{opname}: expected a jeet.Tensor, got {type(x).__name__}")
    return _node(opname, _UNARY_OPS[opname], [x])


# --------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------

# The op families of the API, a table each: the Python name of every
# elementwise op and reduction (a function below and a Tensor method) and the
# jeet op it adds to the graph.
_UNARY_OPS = {
    "neg": "jeet.neg",
    "abs": "jeet.abs",
    "exp": "jeet.exp",
    "log": "jeet.log",
    "sqrt": "jeet.sqrt",
    "rsqrt": "jeet.rsqrt",
    "tanh": "jeet.tanh",
    "sigmoid": "jeet.sigmoid",
    "relu": "jeet.relu",
    "gelu": "jeet.gelu",
}
_BINARY_OPS = {
    "add": "jeet.add",
    "sub": "jeet.sub",
    "mul": "jeet.mul",
    "div": "jeet.div",
    "maximum": "jeet.max",
    "minimum": "jeet.min",
    "pow": "jeet.pow",
}
_REDUCTIONS = {
    "sum": "jeet.reduce_sum",
    "max": "jeet.reduce_max",
    "mean": "jeet.reduce_mean",
}
_FAMILIES = (_UNARY_OPS, _BINARY_OPS, _REDUCTIONS)


def add(x, y):
    """x + y with NumPy broadcasting."""
    return _binary("add", x, y)


def sub(x, y):
    """x - y with NumPy broadcasting."""
    return _binary("sub", x, y)


def mul(x, y):
    """x * y with NumPy broadcasting."""
    return _binary("mul", x, y)


def div(x, y):
    """x / y with NumPy broadcasting (int32 rounds toward zero)."""
    return _binary("div", x, y)


def maximum(x, y):
    """The elementwise maximum with NumPy broadcasting (NaN if either is
    NaN). For the maximum over axes use jeet.max."""
    return _binary("maximum", x, y)


def minimum(x, y):
    """The elementwise minimum with NumPy broadcasting (NaN if either is
    NaN)."""
    return _binary("minimum", x, y)


def pow(x, y):
    """x ** y with NumPy broadcasting (float dtypes)."""
    return _binary("pow", x, y)


def neg(x):
    """-x, elementwise."""
    return _unary("neg", x)


def abs(x):
    """|x|, elementwise."""
    return _unary("abs", x)


def exp(x):
    """e ** x, elementwise."""
    return _unary("exp", x)


def log(x):
    """The natural logarithm, elementwise."""
    return _unary("log", x)


def sqrt(x):
    """The square root, elementwise."""
    return _unary("sqrt", x)


def rsqrt(x):
    """1 / sqrt(x), elementwise."""
    return _unary("rsqrt", x)


def tanh(x):
    """The hyperbolic tangent, elementwise."""
    return _unary("tanh", x)


def sigmoid(x):
    """1 / (1 + exp(-x)), elementwise."""
    return _unary("sigmoid", x)


def relu(x):
    """max(x, 0), elementwise (NaN stays NaN)."""
    return _unary("relu", x)


def gelu(x):
    """GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return _unary("gelu", x)


def matmul(x, y):
    """Matrix product (..., M, K) @ (..., K, N) with broadcast batch dims."""
    a, b = _as_operands("matmul", x, y)
    return _node("matmul", "jeet.matmul", [a, b])


def _normalize_axes(opname, x, axis):
    rank = x.ndim
    if axis is None:
        return list(range(rank))
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        axis = (axis,)
    axes = []
    for a in axis:
        if not isinstance(a, numbers.Integral) or isinstance(a, bool):
            raise ArgumentError(f"jeet.{opname}: axes must be ints, got {axis!r}")
        if not -rank <= int(a) < rank:
            raise ShapeError(
                f"jeet.{opname}: axis {int(a)} is out of range for shape "
                f"{_fmt_shape(x.shape)} (rank {rank})"
            )
        a = int(a) % rank
        if a in axes:
            raise ShapeError(
                f"jeet.{opname}: axis {a} repeated in {tuple(axis)} for shape "
                f"{_fmt_shape(x.shape)}"
            )
        axes.append(a)
    return sorted(axes)


def _reduce(opname, x, axis, keepdims):
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.{opname}: expected a jeet.Tensor, got {type(x).__name__}")
    axes = _normalize_axes(opname, x, axis)
    if not axes:
        # Reducing over no axes (a 0-d tensor) leaves it as it is.
        return x
    return _node(opname, _REDUCTIONS[opname], [x],
                 {"axes": axes, "keepdims": bool(keepdims)})


def sum(x, axis=None, keepdims=False):
    """Sum over `axis` (an int, a tuple of ints, or None for all axes)."""
    return _reduce("sum", x, axis, keepdims)


def max(x, axis=None, keepdims=False):
    """Maximum over `axis` (an int, a tuple of ints, or None for all axes).
    For the elementwise maximum of two tensors use jeet.maximum."""
    return _reduce("max", x, axis, keepdims)


def mean(x, axis=None, keepdims=False):
    """Mean over `axis` (an int, a tuple of ints, or None for all axes)."""
    return _reduce("mean", x, axis, keepdims)


# Each op of the families is a Tensor method as well: x.exp() is jeet.exp(x),
# x.maximum(y) is jeet.maximum(x, y), x.sum(axis) is jeet.sum(x, axis).
for _family in _FAMILIES:
    for _name in _family:
        setattr(Tensor, _name, globals()[_name])
del _family, _name


def softmax(x, axis=-1):
    """exp(x - max) / sum(exp(x - max)) along `axis`."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.softmax: expected a jeet.Tensor, got {type(x).__name__}")
    if x.ndim == 0:
        raise ShapeError("jeet.softmax: needs a tensor of rank >= 1, got shape ()")
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ArgumentError(f"jeet.softmax: axis must be an int, got {axis!r}")
    axis = _normalize_axes("softmax", x, axis)[0]
    return _node("softmax", "jeet.softmax", [x], {"axis": axis})


def transpose(x, axes=None):
    """Permutes dimensions: result dim i is input dim axes[i] (default:
    reversed)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.transpose: expected a jeet.Tensor, got {type(x).__name__}")
    rank = x.ndim
    if axes is None:
        perm = list(range(rank))[::-1]
    else:
        perm = []
        for a in axes:
            if not isinstance(a, numbers.Integral) or not -rank <= int(a) < rank:
                raise ShapeError(
                    f"jeet.transpose: invalid permutation {tuple(axes)} for shape "
                    f"{_fmt_shape(x.shape)}"
                )
            perm.append(int(a) % rank)
    if perm == list(range(rank)) and len(perm) == rank:
        return x
    return _node("transpose", "jeet.transpose", [x], {"permutation": perm})


def _shape_arg(opname, shape):
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        return (int(shape),)
    try:
        out = tuple(shape)
    except TypeError:
        raise ArgumentError(f"jeet.{opname}: shape must be a tuple of ints, got {shape!r}") from None
    for d in out:
        if not isinstance(d, numbers.Integral) or isinstance(d, bool):
            raise ArgumentError(f"jeet.{opname}: shape must be a tuple of ints, got {shape!r}")
    return tuple(int(d) for d in out)


def reshape(x, shape):
    """The same elements in row-major order with another shape (one
    dimension may be -1: inferred)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.reshape: expected a jeet.Tensor, got {type(x).__name__}")
    shape = list(_shape_arg("reshape", shape))
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        raise ShapeError(
            f"jeet.reshape: invalid target shape {_fmt_shape(shape)} for a tensor "
            f"of shape {_fmt_shape(x.shape)}"
        )
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or x.size % known:
            raise ShapeError(
                f"jeet.reshape: cannot reshape a tensor of shape {_fmt_shape(x.shape)} "
                f"({x.size} elements) to {_fmt_shape(shape)}"
            )
        shape[shape.index(-1)] = x.size // known
    if tuple(shape) == x.shape:
        return x
    return _node("reshape", "jeet.reshape", [x], result=(shape, x._dtype))


def broadcast_to(x, shape):
    """Expands x to `shape` with NumPy's broadcasting rules."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.broadcast_to: expected a jeet.Tensor, got {type(x).__name__}")
    shape = _shape_arg("broadcast_to", shape)
    if shape == x.shape:
        return x
    return _node("broadcast_to", "jeet.broadcast_to", [x], result=(shape, x._dtype))


def cast(x, dtype):
    """Converts the element type ('float32', 'float16', 'bfloat16', 'int32')."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.cast: expected a jeet.Tensor, got {type(x).__name__}")
    dtype = _dtypes.canonical(dtype)
    if dtype == x._dtype:
        return x
    return _node("cast", "jeet.cast", [x], result=(x.shape, dtype))


# --------------------------------------------------------------------------
# Creation
# --------------------------------------------------------------------------


def _materialised(array, dtype, device):
    """A materialised tensor from host data."""
    storage = _dtypes.to_storage(array, dtype)
    rt = _jeet.RuntimeTensor.from_array(storage, dtype, _device.runtime_name(device))
    return Tensor._wrap(rt, device)


def _is_shape(value):
    return isinstance(value, (list, tuple)) and all(
        isinstance(d, numbers.Integral) and not isinstance(d, (bool, np.bool_))
        for d in value
    ) and not isinstance(value, np.ndarray)


def tensor(shape_or_data, dtype="float32", device="auto"):
    """A materialised tensor.

    A list or tuple of ints is a shape (the tensor is zero-filled); a NumPy
    array, a nested list or a scalar is data, converted to `dtype`."""
    dtype = _dtypes.canonical(dtype)
    device = _device.resolve(device)
    if isinstance(shape_or_data, Tensor):
        return _materialised(shape_or_data.numpy(), dtype, device)
    if _is_shape(shape_or_data):
        shape = tuple(int(d) for d in shape_or_data)
        if any(d < 0 for d in shape):
            raise ArgumentError(f"jeet.tensor: negative dimension in shape {shape}")
        _dtypes.check_shape(shape, "jeet.tensor", ShapeError)
        rt = _jeet.RuntimeTensor.zeros(list(shape), dtype, _device.runtime_name(device))
        return Tensor._wrap(rt, device)
    try:
        array = np.asarray(shape_or_data)
    except (ValueError, TypeError) as error:
        raise ArgumentError(f"jeet.tensor: cannot make a tensor of {shape_or_data!r}: {error}") from None
    if array.dtype == object:
        raise ArgumentError(f"jeet.tensor: ragged or non-numeric data {shape_or_data!r}")
    _check_data(array, dtype, "jeet.tensor")
    return _materialised(array, dtype, device)


def _check_data(array, dtype, what):
    """Data that would lose its imaginary part or wrap around is an error."""
    if array.dtype.kind == "c":
        raise ArgumentError(f"{what}: complex data: Jeet tensors hold real numbers")
    if dtype == "i32" and array.size and array.dtype.kind in "iuf":
        finite = array[np.isfinite(array)] if array.dtype.kind == "f" else array
        if finite.size != array.size or (finite.size and (
                finite.max() > np.iinfo(np.int32).max
                or finite.min() < np.iinfo(np.int32).min)):
            raise ArgumentError(f"{what}: values do not fit in int32")


def from_numpy(array, device="auto"):
    """A tensor with a copy of a NumPy array's data; the dtype follows the
    array's (float64 -> float32, int64 -> int32)."""
    array = np.asarray(array)
    dtype = _dtypes.from_numpy_dtype(array.dtype)
    if dtype == "i32" and array.dtype.kind in "iu" and array.size:
        if array.max() > np.iinfo(np.int32).max or array.min() < np.iinfo(np.int32).min:
            raise ArgumentError("jeet.from_numpy: integer values do not fit in int32")
    return _materialised(array, dtype, _device.resolve(device))


def _shape_from_args(opname, args):
    if len(args) == 1 and not isinstance(args[0], numbers.Integral):
        return _shape_arg(opname, args[0])
    return _shape_arg(opname, args)


def zeros(*shape, dtype="float32", device="auto"):
    return tensor(list(_shape_from_args("zeros", shape)), dtype=dtype, device=device)


def full(shape, fill_value, dtype="float32", device="auto"):
    shape = _shape_arg("full", shape)
    dtype = _dtypes.canonical(dtype)
    _dtypes.check_shape(shape, "jeet.full", ShapeError)
    if isinstance(fill_value, (bool, np.bool_)):
        fill_value = int(fill_value)
    _dtypes.check_scalar(fill_value, dtype, "jeet.full")
    return _materialised(
        np.full(shape, fill_value, dtype=_dtypes.NUMPY_DTYPES[dtype]), dtype,
        _device.resolve(device))


def ones(*shape, dtype="float32", device="auto"):
    return full(_shape_from_args("ones", shape), 1, dtype=dtype, device=device)


_rng = np.random.default_rng()


def seed(value):
    """Seeds the generator of jeet.rand and jeet.randn."""
    global _rng
    _rng = np.random.default_rng(value)


def rand(*shape, dtype="float32", device="auto"):
    """Uniform random values in [0, 1) (input data, drawn by NumPy)."""
    shape = _shape_from_args("rand", shape)
    dtype = _dtypes.canonical(dtype)
    _dtypes.check_shape(shape, "jeet.rand", ShapeError)
    if dtype == "i32":
        raise ArgumentError("jeet.rand: dtype must be a float type")
    return _materialised(_rng.random(shape, dtype=np.float32), dtype, _device.resolve(device))


def randn(*shape, dtype="float32", device="auto"):
    """Standard normal random values (input data, drawn by NumPy)."""
    shape = _shape_from_args("randn", shape)
    dtype = _dtypes.canonical(dtype)
    _dtypes.check_shape(shape, "jeet.randn", ShapeError)
    if dtype == "i32":
        raise ArgumentError("jeet.randn: dtype must be a float type")
    return _materialised(
        _rng.standard_normal(shape, dtype=np.float32), dtype, _device.resolve(device))


def arange(start, stop=None, step=1, dtype="float32", device="auto"):
    """Evenly spaced values in [start, stop), like numpy.arange."""
    if stop is None:
        start, stop = 0, start
    dtype = _dtypes.canonical(dtype)
    values = np.arange(start, stop, step, dtype=np.float64)
    return _materialised(values, dtype, _device.resolve(device))


# --------------------------------------------------------------------------
# Graphs
# --------------------------------------------------------------------------


def _topo_order(roots, stop_at_materialised=True):
    """Post-order of the DAG under `roots` (each node once, inputs first)."""
    order, seen = [], set()
    for root in roots:
        if id(root) in seen:
            continue
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            if node._rt is None or not stop_at_materialised:
                for inp in reversed(node._inputs):
                    if id(inp) not in seen:
                        stack.append((inp, False))
    return order


class _Built:
    """A graph printed from a DAG: its text, its device, and the tensors that
    feed its inputs (in order)."""

    __slots__ = ("text", "device", "leaves", "placeholders")

    def __init__(self, text, device, leaves, placeholders):
        self.text = text
        self.device = device
        self.leaves = leaves
        self.placeholders = placeholders


def _build(outputs, placeholders=()):
    """Builds and prints the graph computing `outputs` (lazy nodes).

    `placeholders` (jit arguments) become the first inputs, in order; then
    every materialised tensor reached, in a deterministic order."""
    graph = _jeet.Graph()
    ids = {}
    leaves = []
    devices = set()
    for p in placeholders:
        ids[id(p)] = graph.add_input(list(p._shape), p._dtype)
        if p._device is not None:
            devices.add(p._device)
    for node in _topo_order(outputs):
        if id(node) in ids:
            continue
        if node._device is not None:
            devices.add(node._device)
        if node._rt is not None:
            ids[id(node)] = graph.add_input(list(node._shape), node._dtype)
            leaves.append(node)
        elif node._op == "constant":
            ids[id(node)] = graph.add_constant(node._attrs, node._dtype)
        elif node._op == "_arg":
            raise JeetError(
                "a jeet.jit argument escaped its trace: tensors computed inside "
                "a jit function cannot be used outside it unless returned"
            )
        else:
            # The result type is given for every op: ops that infer theirs
            # check that it agrees, the others (reshape, broadcast_to, cast)
            # need it.
            ids[id(node)] = graph.add_op(
                node._op, [ids[id(i)] for i in node._inputs], node._attrs or {},
                list(node._shape), node._dtype)
    for out in outputs:
        graph.mark_output(ids[id(out)])
    if len(devices) > 1:
        raise JeetError(
            f"the graph mixes devices ({', '.join(sorted(devices))}); move "
            "tensors to one device first"
        )
    device = devices.pop() if devices else _device.resolve("auto")
    return _Built(graph.print(), device, leaves, list(placeholders))


def _compile(text, device, keep_ir=False, gpu_target="auto"):
    return _jeet.compile(text, device=device, keep_ir=keep_ir,
                         gpu_target=gpu_target)


def execute(*tensors):
    """Materialises every tensor given, computing all of them in one graph
    (shared work is done once). Returns the tensors (one, or a tuple)."""
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"jeet.execute: expected jeet.Tensor, got {type(t).__name__}")
    pending = []
    seen = set()
    for t in tensors:
        if t._rt is not None or id(t) in seen:
            continue
        seen.add(id(t))
        if t._op == "constant":
            device = _device.resolve("auto")
            t._rt = _jeet.RuntimeTensor.from_array(
                t._attrs, t._dtype, _device.runtime_name(device))
            t._device = device
            continue
        pending.append(t)
    if pending:
        built = _build(pending)
        executable = _compile(built.text, built.device)
        results = executable.run([leaf._rt for leaf in built.leaves])
        for t, rt in zip(pending, results):
            t._rt = rt
            t._device = built.device
            t._source = (built.text, built.device)
            # The inputs are no longer needed: let them go.
            t._op, t._inputs, t._attrs = None, (), None
    return tensors[0] if len(tensors) == 1 else tensors


# --------------------------------------------------------------------------
# Compiled graphs, explain
# --------------------------------------------------------------------------


class CompiledGraph:
    """A compiled graph: the executable jeet.compile(t) returns."""

    def __init__(self, executable, text, device):
        self._executable = executable
        self._ir_executable = None
        self._text = text
        self.device = device

    @property
    def gpu_target(self):
        """What the kernels were compiled for on the GPU: 'ptx', or
        'emulator' (the host, for the CUDA driver emulator)."""
        return self._executable.gpu_target

    @property
    def num_kernels(self):
        """Kernels one execution launches (one per fusion group)."""
        return self._executable.num_kernels

    @property
    def kernel_ops(self):
        """For each kernel, the jeet ops it fuses."""
        return [list(ops) for ops in self._executable.kernel_ops]

    @property
    def peak_intermediate_bytes(self):
        return self._executable.peak_intermediate_bytes

    @property
    def inputs(self):
        return [(tuple(s), _dtypes.LONG_NAMES[d]) for s, d in self._executable.inputs]

    @property
    def outputs(self):
        return [(tuple(s), _dtypes.LONG_NAMES[d]) for s, d in self._executable.outputs]

    @property
    def stages(self):
        """The stages of the pipeline that compiled the graph, in order: 'jeet'
        (the graph as given), then on the CPU 'fused', 'linalg',
        'bufferized', 'llvm'; on the GPU 'fused', 'kernels', 'llvm', 'ptx'."""
        return list(self._executable.stages)

    @property
    def graph_text(self):
        """The graph as given to the compiler (MLIR, jeet dialect)."""
        return self._text

    def ir(self, stage="jeet"):
        """The IR after `stage`, one of `stages` (the GPU's 'ptx' is the PTX
        text)."""
        if stage not in self.stages and stage != "ptx":
            raise ArgumentError(
                f"unknown stage {stage!r}: expected one of {', '.join(self.stages)}"
            )
        if stage == "ptx":
            return self.ptx()
        return self._with_ir().ir(stage)

    def _with_ir(self):
        # The IR of every stage is kept only when asked for: a compilation of
        # its own (the executables execute() uses keep none), and not cached,
        # so that the process-wide cache does not hold every stage's text.
        if self._ir_executable is None:
            self._ir_executable = _jeet.compile(
                self._text, device=self.device, keep_ir=True, cached=False,
                gpu_target=self._executable.gpu_target)
        return self._ir_executable

    def ptx(self):
        """The PTX of the kernels (GPU graphs only)."""
        if self.device != "gpu":
            raise JeetError(
                "no PTX for the CPU backend: this graph was compiled for the "
                "CPU (compile a tensor on device='gpu' to get PTX)"
            )
        if self.gpu_target == "emulator":
            raise JeetError(
                "no PTX for the GPU emulation target: this graph's kernels "
                "were compiled for the host, to run on the CUDA driver emulator"
            )
        text = self._with_ir().ir("ptx")
        if not text:
            raise JeetError("the GPU backend kept no PTX for this graph")
        return text

    def __repr__(self):
        return (
            f"<jeet.CompiledGraph on {self.device}: {self.num_kernels} kernel(s), "
            f"{len(self.inputs)} input(s) -> {len(self.outputs)} output(s)>"
        )


def _graph_of(t):
    if not isinstance(t, Tensor):
        raise TypeError(f"expected a jeet.Tensor, got {type(t).__name__}")
    if t._rt is None:
        if t._op == "constant":
            raise JeetError("a constant has no graph to compile")
        built = _build([t])
        return built.text, built.device
    if t._source is not None:
        return t._source
    raise JeetError(
        "this tensor holds data that no graph computed (it was created, not "
        "computed): there is nothing to compile"
    )


def compile(t, gpu_target="auto"):
    """Compiles the graph that computes `t` (through the cache: the same
    executable execute() uses) without running it; returns a CompiledGraph
    with num_kernels, kernel_ops, ir(stage), ptx().

    gpu_target (GPU graphs): 'ptx', 'emulator' (kernels for the host, run by
    the CUDA driver emulator) or 'auto' (the emulator when the CUDA device is
    the emulator, PTX otherwise)."""
    if gpu_target not in ("auto", "ptx", "emulator"):
        raise ArgumentError(
            f"gpu_target must be 'auto', 'ptx' or 'emulator', got {gpu_target!r}")
    text, device = _graph_of(t)
    return CompiledGraph(_compile(text, device, gpu_target=gpu_target), text,
                         device)


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0


def explain(t):
    """What executing `t` does: the kernels, the ops each fuses, the peak
    bytes of intermediates, the stages of its pipeline. Returns the text."""
    text, device = _graph_of(t)
    exe = _compile(text, device)

    def spec(s, d):
        return "x".join(str(x) for x in s) + ("x" if s else "") + d

    lines = [
        f"graph on {device}: {len(exe.inputs)} input(s) "
        f"[{', '.join(spec(s, d) for s, d in exe.inputs)}] -> "
        f"{len(exe.outputs)} output(s) [{', '.join(spec(s, d) for s, d in exe.outputs)}]",
        f"{exe.num_kernels} kernel(s):",
    ]
    for i, ops in enumerate(exe.kernel_ops):
        lines.append(f"  kernel {i}: {' + '.join(ops) if ops else '(copy)'}"
                     f"  ({len(ops)} op{'s' if len(ops) != 1 else ''} fused)")
    if device == "gpu":
        lines.append(f"gpu target: {exe.gpu_target}" + (
            " (kernels compiled for the host CPU, run by the Jeet GPU "
            "emulator: no GPU speed)" if exe.gpu_target == "emulator" else ""))
    peak = exe.peak_intermediate_bytes
    lines.append(f"peak intermediate memory: {peak} bytes ({_fmt_bytes(peak)})")
    lines.append(f"stages (jeet.compile(t).ir(stage)): {', '.join(exe.stages)}")
    return "\n".join(lines)
