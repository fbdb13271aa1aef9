"""Lazy tensors and the graph builder.

A Tensor is either materialised (it holds a runtime tensor) or a node (a jeet
op applied to input Tensors). Nothing runs until execute(): it collects the
DAG under the tensors asked for, turns materialised leaves into graph inputs
(so new data never recompiles: equal structure prints equal graph text),
builds a jeet::Graph, compiles it through the process-wide cache and runs it.
"""

import atexit
import itertools
import numbers
import threading

import numpy as np

from . import _device, _dtypes, _jeet
from ._dtypes import ArgumentError
from .errors import JeetError, OutOfMemoryError, ShapeError

# DLPack device types (dlpack.h).
_DL_CPU = 1
_DL_CUDA = 2

# Options of the compilations to come (part of the compiled-graph cache key).
_options = {"cuda_graphs": True}


def set_cuda_graphs(enabled):
    """Replays GPU executions as a CUDA graph from the second one on (the
    default) or launches their kernels one by one. Applies to graphs
    compiled from now on; returns the previous setting."""
    previous = _options["cuda_graphs"]
    _options["cuda_graphs"] = bool(enabled)
    return previous


def cuda_graphs_enabled():
    """Whether GPU executions compiled from now on replay CUDA graphs."""
    return _options["cuda_graphs"]


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
        "_key",         # op and constant nodes: what the node adds to a
                        # graph's structural key (see _graph_key)
        "__weakref__",
    )

    # NumPy defers binary operators with a Tensor to the Tensor.
    __array_ufunc__ = None

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "create tensors with jeet.tensor(), jeet.zeros(), jeet.rand(), ..."
        )

    @classmethod
    def _new(cls, shape, dtype, device, rt=None, op=None, inputs=(), attrs=None,
             key=None):
        t = object.__new__(cls)
        t._rt = rt
        t._op = op
        t._inputs = tuple(inputs)
        t._attrs = attrs
        t._shape = tuple(int(d) for d in shape)
        t._dtype = dtype
        t._device = device
        t._source = None
        t._key = key
        return t

    @classmethod
    def _wrap(cls, rt, device):
        return cls._new(rt.shape, rt.dtype, device, rt=rt)

    @classmethod
    def _result(cls, rt, shape, dtype, device, source):
        """A computed tensor whose type is known (the fast path of cached
        executions)."""
        t = object.__new__(cls)
        t._rt = rt
        t._op = None
        t._inputs = ()
        t._attrs = None
        t._shape = shape
        t._dtype = dtype
        t._device = device
        t._source = source
        return t

    # -- properties ---------------------------------------------------------

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return _dtypes.LONG_NAMES[self._dtype]

    @property
    def device(self):
        """'cpu' or 'gpu'. A tensor with no device of its own (computed from
        constants and jeet.iota alone) runs on the default device, 'auto':
        the GPU when usable, else the CPU; that is the device it reports,
        and the one that arrays combined with it go to."""
        if self._device is not None:
            return self._device
        return _device.resolve("auto")

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

    def __format__(self, spec):
        # f"{loss:.4f}": a 0-d tensor formats as its value (computed now),
        # as NumPy's and PyTorch's 0-d values do.
        if spec and not self._shape:
            return format(self.item(), spec)
        return super().__format__(spec)

    def __iter__(self):
        # As NumPy's: the slices along the first axis; a 0-d tensor has none
        # (without this, iter() would stop at the first index error: []).
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    # -- execution ----------------------------------------------------------

    def execute(self):
        """Compiles (through the cache) and runs the graph that computes this
        tensor; returns it, now materialised."""
        execute(self)
        return self

    def numpy(self):
        """The values as a new NumPy array (executes first if needed;
        bfloat16 comes back as float32). For a GPU tensor this is the one
        copy to the host: it waits for the work that computes the tensor."""
        if self._rt is None:
            self.execute()
        return _dtypes.from_storage(self._rt.numpy(), self._dtype)

    def __reduce__(self):
        # Pickling (and multiprocessing) takes the values (computed first
        # for a lazy tensor), the dtype and the device; unpickling makes a
        # materialised tensor on that device again (a GPU tensor needs a
        # usable GPU there: DeviceUnavailableError otherwise).
        return (_unpickle, (self.numpy(), self._dtype, self.device))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        # Tensors never change: a copy would be indistinguishable.
        return self

    def to(self, device):
        """This tensor on `device` ('cpu', 'gpu' or 'auto'): itself when it
        is there already, else a copy (a lazy tensor is computed first).
        Moving between devices is always explicit: an op on tensors of two
        devices is an error."""
        target = _device.resolve(device)
        if self._rt is None:
            self.execute()
        if target == self.device:
            return self
        return Tensor._wrap(self._rt.to(_device.runtime_name(target)), target)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """A DLPack capsule sharing this tensor's memory (computed first when
        lazy). For a GPU tensor, `stream` is the consumer's: it waits (on the
        device, not the host) for the work that computes the tensor. With
        copy=True the capsule holds a copy."""
        if self._rt is None:
            self.execute()
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(
                f"jeet: a tensor on {self.device} cannot be exported to DLPack "
                f"device {tuple(dl_device)}; move it with .to() first")
        rt = self._rt
        if copy:
            rt = rt.to(rt.device)
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        return rt.dlpack(stream, versioned, bool(copy))

    def __dlpack_device__(self):
        if self._rt is not None:
            return tuple(self._rt.dlpack_device())
        return (_DL_CUDA, 0) if self.device == "gpu" else (_DL_CPU, 0)

    def __array__(self, dtype=None, copy=None):
        """np.asarray(t): a read-only view of a CPU tensor's memory (no
        copy; np.array(t) and t.numpy() copy, and are writable); a GPU or
        bfloat16 tensor (NumPy has no bfloat16) is converted into a new
        array, and copy=False is then an error, as NumPy asks."""
        if self._rt is None:
            self.execute()
        if not copy and self.device == "cpu" and self._dtype != "bf16":
            array = np.from_dlpack(self)
            # Jeet tensors are immutable; writes go through a copy.
            array.flags.writeable = False
            if dtype is not None and np.dtype(dtype) != array.dtype:
                if copy is False:
                    raise ValueError(
                        f"jeet: a {self.dtype} tensor cannot be viewed as "
                        f"{np.dtype(dtype)} without a copy")
                array = array.astype(dtype)
            return array
        if copy is False:
            raise ValueError(
                f"jeet: a {self.dtype} tensor on {self.device} cannot be "
                f"converted to a NumPy array without a copy")
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

    def __index__(self):
        # range(n), lst[i], a NumPy index with an integer 0-d tensor, as
        # NumPy's and PyTorch's 0-d integers.
        if self._dtype not in ("i32", "i64") or self._shape:
            raise TypeError(
                "only integer 0-d tensors can be used as an index, got a "
                f"{_dtypes.LONG_NAMES[self._dtype]} tensor of shape "
                f"{_fmt_shape(self._shape)}")
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
        return true_divide(self, other)

    def __rtruediv__(self, other):
        return true_divide(other, self)

    def __floordiv__(self, other):
        return floor_divide(self, other)

    def __rfloordiv__(self, other):
        return floor_divide(other, self)

    def __mod__(self, other):
        return remainder(self, other)

    def __rmod__(self, other):
        return remainder(other, self)

    def __divmod__(self, other):
        return floor_divide(self, other), remainder(self, other)

    def __rdivmod__(self, other):
        return floor_divide(other, self), remainder(other, self)

    def __round__(self, ndigits=None):
        return _round_digits(self, ndigits)

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

    # Comparisons return bool tensors (so tensors hash by identity, as
    # NumPy arrays cannot).
    __hash__ = object.__hash__

    def __eq__(self, other):
        return eq(self, other)

    def __ne__(self, other):
        return ne(self, other)

    def __lt__(self, other):
        return lt(self, other)

    def __le__(self, other):
        return le(self, other)

    def __gt__(self, other):
        return gt(self, other)

    def __ge__(self, other):
        return ge(self, other)

    def __and__(self, other):
        return bitwise_and(self, other)

    def __rand__(self, other):
        return bitwise_and(other, self)

    def __or__(self, other):
        return bitwise_or(self, other)

    def __ror__(self, other):
        return bitwise_or(other, self)

    def __xor__(self, other):
        return bitwise_xor(self, other)

    def __rxor__(self, other):
        return bitwise_xor(other, self)

    def __invert__(self):
        return bitwise_not(self)

    @property
    def nbytes(self):
        """The bytes of the tensor's elements (size times the itemsize)."""
        return self.size * _dtypes.ITEMSIZES[self._dtype]

    def __bool__(self):
        # As NumPy and PyTorch: the truth of one element (computed now);
        # a tensor of several has none.
        if self.size != 1:
            raise ValueError(
                f"the truth value of a tensor of shape {_fmt_shape(self._shape)} "
                "is ambiguous (it has more than one element): use .any(), "
                ".all() or compare elements explicitly"
            )
        return bool(self.item())

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

    def __getitem__(self, key):
        return _getitem(self, key)

    def __setitem__(self, key, value):
        raise TypeError(
            "jeet.Tensor does not support item assignment: tensors are "
            "values of a graph and never change; make a new one instead "
            "(jeet.where(mask, value, x) for x[mask] = value, "
            "jeet.concatenate or jeet.pad for slices)")

    astype = cast

    def matmul(self, other):
        return matmul(self, other)

    # The elementwise ops and reductions are methods too (x.exp(),
    # x.maximum(y), x.sum(axis)): see _FAMILIES below.


# --------------------------------------------------------------------------
# Operands
# --------------------------------------------------------------------------


# What a node adds to a graph's structural key is a number, the same for
# every node of one (op, attributes, result type, operand count) -- or of one
# constant -- so that a key is a flat tuple of small ints, quick to hash and
# compare. Numbers are never reused (the table may be cleared, the counter
# goes on): a number always stands for one thing.
_KEY_IDS = {}
_MAX_KEY_IDS = 65536
_next_key_id = itertools.count(1).__next__
# Constants larger than this keep their bytes in the key instead of a number
# (the table would hold their bytes for good).
_MAX_INTERNED_CONSTANT = 256


def _key_id(part):
    kid = _KEY_IDS.get(part)
    if kid is None:
        if len(_KEY_IDS) >= _MAX_KEY_IDS:
            _KEY_IDS.clear()
        kid = _KEY_IDS[part] = _next_key_id()
    return kid


def _constant_key(storage, dtype):
    """A constant's part of a structural key: its dtype, shape and every
    value (as bytes: -0.0 and 0.0, or two NaNs, are told apart)."""
    part = ("constant", dtype, storage.shape, storage.dtype.str,
            storage.tobytes())
    return _key_id(part) if storage.nbytes <= _MAX_INTERNED_CONSTANT else part


def _takes_operand(other):
    """Whether an operator of a Tensor takes `other`: a tensor, a Python or
    NumPy scalar, or array-like data (a NumPy array, list or tuple). For any
    other operand the operator returns NotImplemented, so that Python asks
    the other operand and then falls back as for any object (x == None is
    False, x + "a" a TypeError naming both types)."""
    return (isinstance(other, (Tensor, np.ndarray, list, tuple))
            or _is_scalar(other))


def _operator(method, op=None):
    """The operator `method` of Tensor, returning NotImplemented for
    operands it does not take. `op`: the jeet op of an operator that is
    _binary's (x + y is _binary("add", x, y)), recorded without the Python
    calls between when both are tensors of one dtype (_record)."""
    if op is None:
        def checked(self, other):
            kind = type(other)
            if kind is not float and kind is not int and not _takes_operand(other):
                return NotImplemented
            return method(self, other)
    else:
        def checked(self, other):
            kind = type(other)
            if kind is Tensor:
                t = _record(op, self, other)
                if t is not None:
                    return t
            elif kind is not float and kind is not int and not _takes_operand(other):
                return NotImplemented
            return method(self, other)
    checked.__name__ = method.__name__
    checked.__doc__ = method.__doc__
    return checked


def _constant(value, dtype):
    """A constant node (no device: it joins the device of its users)."""
    storage = _dtypes.to_storage(value, dtype)
    return Tensor._new(storage.shape, dtype, None, op="constant", attrs=storage,
                       key=_constant_key(storage, dtype))


# Scalar operands recur (x * 2.0 in every call): their read-only storage and
# key, by (dtype, type, repr) -- repr tells -0.0 from 0.0 and NaN from NaN.
_SCALAR_CONSTANTS = {}
_MAX_SCALAR_CONSTANTS = 4096


def _scalar_constant(value, dtype, opname):
    known = _known_scalar(value, type(value), dtype)
    if known is not None:
        return known
    memo = (dtype, type(value), repr(value))
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    # Like NumPy, a scalar that does not fit the tensor's dtype is an error,
    # never a silent wrap-around or infinity.
    _dtypes.check_scalar(value, dtype, opname)
    node = _constant(np.asarray(value), dtype)
    node._attrs.flags.writeable = False
    if len(_SCALAR_CONSTANTS) >= _MAX_SCALAR_CONSTANTS:
        _SCALAR_CONSTANTS.clear()
    _SCALAR_CONSTANTS[memo] = (node._attrs, node._key)
    return node


def _known_scalar(value, kind, dtype):
    """The constant node of Python number `value` (of type `kind`) as
    `dtype`, where _scalar_constant has made it before (its checks passed);
    else None."""
    known = _SCALAR_CONSTANTS.get((dtype, kind, repr(value)))
    if known is None:
        return None
    t = object.__new__(Tensor)
    t._rt = None
    t._op = "constant"
    t._inputs = ()
    t._attrs, t._key = known
    t._shape = ()
    t._dtype = dtype
    t._device = None
    t._source = None
    return t


def _is_scalar(x):
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, Tensor)


def _bool_with_numbers(xs):
    """The dtype bool tensors compute in with the scalars among `xs`, as
    NumPy 2 promotes them (NEP 50): bool with bools; with an int, int64 (a
    NumPy int32 scalar: int32); with a float, float32 (a NumPy float16
    scalar: float16; NumPy's float64, the type of a Python float there, is
    not a Jeet dtype: float32 as in PyTorch and JAX)."""
    dtype = "i1"
    for x in xs:
        if isinstance(x, (bool, np.bool_)) or not _is_scalar(x):
            continue
        if isinstance(x, numbers.Integral):
            kind = "i32" if type(x) is np.int32 else "i64"
        elif isinstance(x, (numbers.Real, np.floating)):
            kind = "f16" if type(x) is np.float16 else "f32"
        else:
            continue  # complex: refused with the scalar's own error
        dtype = kind if dtype == "i1" else _dtypes.promote_types(
            dtype, kind, "jeet")
    return dtype


def _as_operands(opname, *xs, promote=True, device=None):
    """Tensors for the operands of an elementwise op: tensors of different
    dtypes are promoted as numpy promotes them (jeet.cast), Python/NumPy
    scalars become rank-0 constants of the tensors' dtype, arrays and lists
    become tensors on the tensors' device (or on `device`, that of another
    operand of the op, where the tensors are constants and have none)."""
    first = xs[0] if xs else None
    if type(first) is Tensor:
        # The common case: tensors of one dtype are their own operands.
        dtype = first._dtype
        for x in xs:
            if type(x) is not Tensor or x._dtype != dtype:
                break
        else:
            return list(xs)
    tensors = [x for x in xs if isinstance(x, Tensor)]
    if not tensors:
        raise ArgumentError(
            f"{opname}: at least one operand must be a jeet.Tensor "
            f"(got {', '.join(type(x).__name__ for x in xs)})"
        )
    like = tensors[0]
    dtype = like._dtype
    placed = [t._device for t in tensors if t._device is not None]
    if placed:
        device = placed[0]
    elif device is None:
        device = like.device
    if promote:
        for t in tensors[1:]:
            dtype = _dtypes.promote_types(dtype, t._dtype, f"jeet.{opname}")
        if dtype == "i1":
            dtype = _bool_with_numbers(xs)
    out = []
    for x in xs:
        if isinstance(x, Tensor):
            out.append(x if not promote else cast(x, dtype))
        elif _is_scalar(x):
            out.append(_scalar_constant(x, dtype, opname))
        elif isinstance(x, (np.ndarray, list, tuple)):
            out.append(tensor(np.asarray(x), dtype=dtype, device=device))
        else:
            raise TypeError(
                f"{opname}: unsupported operand type {type(x).__name__}"
            )
    return out


def _common_device(opname, inputs):
    if len(inputs) == 2:
        first, second = inputs[0]._device, inputs[1]._device
        if second is None or first == second:
            return first
        if first is None:
            return second
    devices = {t._device for t in inputs if t._device is not None}
    if len(devices) > 1:
        raise JeetError(
            f"{opname}: operands are on different devices "
            f"({', '.join(sorted(devices))}); move them to one device first "
            "(mixing devices in one graph is not supported)"
        )
    return devices.pop() if devices else None


def _freeze(value):
    """An attribute value as a hashable key that tells apart whatever the
    graph would print differently (True from 1, 0.0 from -0.0)."""
    kind = type(value)
    if kind in (list, tuple):
        return (kind.__name__,) + tuple(_freeze(v) for v in value)
    if kind is float:
        return ("float", value.hex())
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.tobytes())
    return (kind.__name__, value)


def _attrs_key(attrs):
    if not attrs:
        return ()
    if type(attrs) is dict:
        return _jeet.attrs_key(attrs, _freeze)  # the same, in C++
    return tuple(sorted((name, _freeze(value)) for name, value in attrs.items()))


# The graph's type inference and the node's key number, by (op, operand
# types, attributes, given result): recording an op the process has seen
# before asks C++ nothing.
_INFERRED = {}
_MAX_INFERRED = 65536
# _record(op, x[, y[, z]]): _node's memo hit for one operand, two of one
# dtype that is not bool, or three (jeet.select), in C++ (None where _node
# has more to do); it reads the memo as globals()["_INFERRED"].
_jeet.register_tensor_type(Tensor, globals())
atexit.register(_jeet.unregister_tensor_type)
_record = _jeet.record
_record_attributed = _jeet.record_attributed  # one operand, attributes


def _node(opname, op, inputs, attrs=None, result=None):
    """A lazy node, shape-checked now by the graph's own type inference."""
    attrs_key = _attrs_key(attrs)
    # The memo's hit, made in C++ where it can be.
    if len(inputs) == 1:
        t = _record_attributed(
            op, inputs[0], attrs_key, attrs,
            None if result is None else (tuple(result[0]), result[1]))
        if t is not None:
            return t
    elif 2 <= len(inputs) <= 3 and attrs is None and result is None:
        t = _record(op, *inputs)
        if t is not None:
            return t
    # The memo of the common cases (one operand; two, no result type given)
    # is a flat tuple; each form has a length of its own.
    arity = len(inputs)
    if arity == 1:
        first = inputs[0]
        device = first._device
        memo = (op, first._shape, first._dtype, attrs_key,
                None if result is None else (tuple(result[0]), result[1]))
    elif arity == 2 and result is None:
        first, second = inputs
        device = first._device
        if device != second._device:
            device = _common_device(opname, inputs)
        memo = (op, first._shape, first._dtype, second._shape, second._dtype,
                attrs_key)
    else:
        device = _common_device(opname, inputs)
        memo = (op, tuple([(t._shape, t._dtype) for t in inputs]), attrs_key,
                None if result is None else (tuple(result[0]), result[1]))
    inferred = _INFERRED.get(memo)
    if inferred is None:
        shape, dtype = _infer(opname, op, inputs, attrs, result)
        inferred = (shape, dtype,
                    _key_id((op, attrs_key, shape, dtype, arity)))
        if len(_INFERRED) >= _MAX_INFERRED:
            _INFERRED.clear()
        _INFERRED[memo] = inferred
    shape, dtype, key = inferred
    t = object.__new__(Tensor)
    t._rt = None
    t._op = op
    t._inputs = tuple(inputs)
    t._attrs = attrs
    t._shape = shape
    t._dtype = dtype
    t._device = device
    t._source = None
    t._key = key
    return t


def _infer(opname, op, inputs, attrs, result):
    """(shape tuple, dtype) of `op` on `inputs`, or a ShapeError naming the
    op and its operands."""
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
    return tuple(int(d) for d in shape), dtype


# NumPy's arithmetic of two bool arrays is logic: + and maximum are or,
# * and minimum are and.
_BOOL_ARITHMETIC = {"add": "bitwise_or", "maximum": "bitwise_or",
                    "mul": "bitwise_and", "minimum": "bitwise_and"}


# float16 and bfloat16: ops built from several others compute on them in
# float32 and round the result once (NumPy's and PyTorch's float16
# functions do; rounded op by op, sums of squares pass 65504 long before
# their results, and differences cancel).
_NARROW_FLOATS = ("f16", "bf16")


def _widened(x):
    """x in float32 if it is float16 or bfloat16, else x."""
    return cast(x, "float32") if x._dtype in _NARROW_FLOATS else x


def _narrowed(y, dtype):
    """y rounded back to `dtype` (jeet's short name) if it is not that."""
    return y if y._dtype == dtype else cast(y, dtype)


def _binary(opname, x, y):
    # The common cases, two tensors of one dtype or a tensor and a Python
    # number seen before with its dtype, need no promotion.
    kx, ky = type(x), type(y)
    if kx is Tensor and ky is Tensor and x._dtype == y._dtype:
        if x._dtype != "i1":
            op = _BINARY_OPS.get(opname) or _COMPARISONS[opname]
            t = _record(op, x, y)
            return t if t is not None else _node(opname, op, (x, y))
        a, b = x, y
    else:
        a = b = None
        if kx is Tensor and (ky is float or ky is int) and x._dtype != "i1":
            a, b = x, _known_scalar(y, ky, x._dtype)
        elif ky is Tensor and (kx is float or kx is int) and y._dtype != "i1":
            a, b = _known_scalar(x, kx, y._dtype), y
        if a is not None and b is not None:
            op = _BINARY_OPS.get(opname) or _COMPARISONS[opname]
            t = _record(op, a, b)
            return t if t is not None else _node(opname, op, (a, b))
        a, b = _as_operands(opname, x, y)
    if a._dtype == "i1" and b._dtype == "i1":
        if opname == "sub":
            raise ShapeError(
                "jeet.sub: subtracting bool tensors is not supported (NumPy "
                "refuses it too); use jeet.logical_xor (^) or cast to an "
                "integer dtype first")
        if opname == "pow":
            raise ShapeError(
                "jeet.pow: bool ** bool is not supported (NumPy's result "
                "would be int8, a dtype Jeet lacks); cast to int32 first")
        opname = _BOOL_ARITHMETIC.get(opname, opname)
    op = _BINARY_OPS.get(opname) or _COMPARISONS[opname]
    return _node(opname, op, (a, b))


# Unary ops defined on integers and bools too; the others take floats.
_UNARY_ON_INTEGERS = {"neg", "abs", "relu", "bitwise_not", "floor", "ceil", "round"}


def _unary(opname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.{opname}: expected a jeet.Tensor, got {type(x).__name__}")
    if x._dtype in ("i32", "i64", "i1"):
        if opname not in _UNARY_ON_INTEGERS or (x._dtype == "i1" and opname == "round"):
            numpy_result = "float16" if x._dtype == "i1" else "float64"
            raise ShapeError(
                f"jeet.{opname}: needs a float tensor, got "
                f"{_dtypes.LONG_NAMES[x._dtype]} (NumPy's result would be "
                f"{numpy_result}: cast to float32 first)")
        if x._dtype == "i1" and opname == "neg":
            raise ShapeError(
                "jeet.neg: negating a bool tensor is not supported (NumPy "
                "refuses it too); use jeet.logical_not (~)")
        if opname in ("floor", "ceil", "round") or (
                x._dtype == "i1" and opname in ("abs", "relu")):
            return x  # as NumPy's: integral already; |b| and max(b, 0) are b
    op = _UNARY_OPS[opname]
    t = _record(op, x)
    return t if t is not None else _node(opname, op, [x])


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
    "erf": "jeet.erf",
    "sin": "jeet.sin",
    "cos": "jeet.cos",
    "tan": "jeet.tan",
    "asin": "jeet.asin",
    "acos": "jeet.acos",
    "atan": "jeet.atan",
    "sinh": "jeet.sinh",
    "cosh": "jeet.cosh",
    "asinh": "jeet.asinh",
    "acosh": "jeet.acosh",
    "atanh": "jeet.atanh",
    "floor": "jeet.floor",
    "ceil": "jeet.ceil",
    "round": "jeet.round",
    "bitwise_not": "jeet.not",
}
_BINARY_OPS = {
    "add": "jeet.add",
    "sub": "jeet.sub",
    "mul": "jeet.mul",
    "div": "jeet.div",
    "maximum": "jeet.max",
    "minimum": "jeet.min",
    "pow": "jeet.pow",
    "fmod": "jeet.rem",
    "bitwise_and": "jeet.and",
    "bitwise_or": "jeet.or",
    "bitwise_xor": "jeet.xor",
}
# Comparisons: binary ops whose result is a bool tensor.
_COMPARISONS = {
    "eq": "jeet.eq",
    "ne": "jeet.ne",
    "lt": "jeet.lt",
    "le": "jeet.le",
    "gt": "jeet.gt",
    "ge": "jeet.ge",
}

# The operators that are _binary of their operands in order, by the name
# _binary knows them by.
_BINARY_OPERATORS = {"add": "add", "sub": "sub", "mul": "mul", "eq": "eq",
                     "ne": "ne", "lt": "lt", "le": "le", "gt": "gt",
                     "ge": "ge", "and": "bitwise_and", "or": "bitwise_or",
                     "xor": "bitwise_xor"}
for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv",
              "rtruediv", "floordiv", "rfloordiv", "mod", "rmod", "divmod",
              "rdivmod", "matmul", "rmatmul", "pow", "rpow", "eq", "ne", "lt",
              "le", "gt", "ge", "and", "rand", "or", "ror", "xor", "rxor"):
    _opname = _BINARY_OPERATORS.get(_name)
    _op = (_BINARY_OPS.get(_opname) or _COMPARISONS[_opname]) if _opname else None
    setattr(Tensor, f"__{_name}__", _operator(getattr(Tensor, f"__{_name}__"), _op))
del _name, _opname, _op

_REDUCTIONS = {
    "sum": "jeet.reduce_sum",
    "max": "jeet.reduce_max",
    "mean": "jeet.reduce_mean",
    "min": "jeet.reduce_min",
    "prod": "jeet.reduce_prod",
}
_FAMILIES = (_UNARY_OPS, _BINARY_OPS, _COMPARISONS, _REDUCTIONS)


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


def true_divide(x, y):
    """x / y, true division as NumPy's, PyTorch's and JAX's `/`: integer
    and bool operands are divided in float32 (NumPy's float64 is not a Jeet
    dtype; PyTorch and JAX give float32 too), so 7 / 2 is 3.5. jeet.div
    keeps C's integer division (rounded toward zero)."""
    operands = [cast(v, "f32") if isinstance(v, Tensor) and v._dtype in ("i1", "i32", "i64")
                else v for v in (x, y)]
    return div(*operands)


divide = true_divide


def floor_divide(x, y):
    """x // y, the quotient rounded toward minus infinity, as
    numpy.floor_divide and Python's //: for floats from the exact remainder
    (1 // 0.1 is 9.0, not the 10.0 of floor(1 / 0.1)), with x // 0 being
    x / 0 (inf or NaN); integers exactly (-7 // 2 is -4), x // 0 being 0 as
    NumPy gives it. float16 and bfloat16 are divided in float32 and rounded
    once."""
    a, b = _as_operands("floor_divide", x, y)
    if a._dtype == "i1":
        raise ShapeError(
            "jeet.floor_divide: floor division of bool tensors is not "
            "supported (NumPy refuses it too); cast to an integer dtype first")
    if a._dtype in _NARROW_FLOATS:
        return _narrowed(floor_divide(_widened(a), _widened(b)), a._dtype)
    quotient = div(a, b)
    if a._dtype in ("i32", "i64"):
        zero = _scalar_constant(0, a._dtype, "floor_divide")
        return where(eq(b, zero), zero, _floor_quotient(quotient, a, b))
    return _float_floor_quotient(quotient, a, b)


def _float_floor_quotient(quotient, x, y):
    """Floating floor division as NumPy's, Python's and PyTorch's: from the
    exact remainder, not floor(x / y), which rounds 1 // 0.1 up to 10."""
    mod = fmod(x, y)
    q = div(sub(x, mod), y)
    q = where(_rounded_toward_zero_past(mod, y), sub(q, 1.0), q)
    floored = floor(q)
    floored = where(gt(sub(q, floored), 0.5), add(floored, 1.0), floored)
    # A zero quotient keeps the sign of x / y; y = 0 gives x / y (inf, nan).
    floored = where(ne(q, 0.0), floored, mul(quotient, 0.0))
    return where(eq(y, 0.0), quotient, floored)


def _floor_quotient(quotient, x, y):
    """An integer quotient rounded toward zero, one less where it lies above
    its floor: -7 // 2 = -4."""
    past = _rounded_toward_zero_past(fmod(x, y), y)
    return where(past, sub(quotient, 1), quotient)


def _round_digits(x, ndigits):
    """round(x, ndigits) as numpy.round(x, decimals): halves to even, at
    ndigits decimals (x * 10**ndigits rounded, divided back; for floats)."""
    if ndigits is None or ndigits == 0:
        return round(x)
    if not isinstance(ndigits, numbers.Integral) or isinstance(ndigits, bool):
        raise ArgumentError(f"jeet.round: ndigits must be an int, got {ndigits!r}")
    if x._dtype in ("i1", "i32", "i64"):
        raise ArgumentError(
            f"jeet.round: ndigits={ndigits} of a {_dtypes.LONG_NAMES[x._dtype]} "
            "tensor is not supported; cast to float32 first")
    scale = 10.0 ** int(ndigits)
    return div(round(mul(x, scale)), scale)


def maximum(x, y):
    """The elementwise maximum with NumPy broadcasting (NaN if either is
    NaN). For the maximum over axes use jeet.max."""
    return _binary("maximum", x, y)


def minimum(x, y):
    """The elementwise minimum with NumPy broadcasting (NaN if either is
    NaN)."""
    return _binary("minimum", x, y)


def pow(x, y):
    """x ** y with NumPy broadcasting. Integer powers wrap on overflow, as
    NumPy's do. A negative number as the exponent of an integer tensor is
    refused, as NumPy refuses it; where an exponent tensor holds negative
    integers, the result is 1 / x ** -y rounded toward zero, as PyTorch
    defines it (1 for x = 1, 1 or -1 for x = -1, 0 otherwise)."""
    if isinstance(x, Tensor) and x._dtype in _INTEGRAL and _is_scalar(y) \
            and _negative_number(y):
        raise ArgumentError(
            f"jeet.pow: a tensor of {_dtypes.LONG_NAMES[x._dtype]} to the "
            f"negative power {y!r} (NumPy refuses an integer one and "
            "computes a float one in float64); cast the tensor to a float "
            "dtype first")
    return _binary("pow", x, y)


_INTEGRAL = ("i32", "i64", "i1")


def _negative_number(value):
    # Integral floats are integers to an integer tensor: 2 ** -1.0 would be
    # 0 where NumPy gives 0.5.
    return isinstance(value, (numbers.Real, np.number)) \
        and not isinstance(value, (bool, np.bool_)) and value < 0


def fmod(x, y):
    """The remainder of x / y rounded toward zero, with NumPy broadcasting,
    as numpy.fmod (C's fmod): its sign is x's. For integers, fmod(x, 0) is x
    (numpy gives 0 and warns)."""
    return _binary("fmod", x, y)


def remainder(x, y):
    """The remainder of x / y rounded toward minus infinity, with NumPy
    broadcasting, as numpy.remainder and the % operator (Python's): its sign
    is y's. For integers, remainder(x, 0) is x (numpy gives 0 and warns)."""
    x, divisor = _as_operands("remainder", x, y)
    r = fmod(x, divisor)
    r = where(_rounded_toward_zero_past(r, divisor), add(r, divisor), r)
    if r._dtype in ("f32", "f16", "bf16"):
        # A zero remainder takes the divisor's sign too (NumPy: -0.0 for
        # 0 % -1, +0.0 for -0.0 % 1); fmod gave it the dividend's.
        zero = _scalar_constant(0.0, r._dtype, "remainder")
        signed = where(lt(divisor, zero), _scalar_constant(-0.0, r._dtype, "remainder"), zero)
        r = where(eq(r, zero), signed, r)
    return r


def _rounded_toward_zero_past(r, divisor):
    """Where the quotient whose remainder (rounded toward zero) is `r` lies
    one above its floor: r is nonzero and its sign differs from the
    divisor's (-7 fmod 3 = -1: -7 / 3 rounds to -2, its floor is -3). There
    the remainder moves by one divisor (-7 % 3 = 2) and floor division
    subtracts one."""
    zero = _scalar_constant(0, r._dtype, "remainder")
    return logical_and(ne(r, zero), ne(lt(r, zero), lt(divisor, zero)))


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


def erf(x):
    """The error function, elementwise."""
    return _unary("erf", x)


def sin(x):
    """The sine, elementwise."""
    return _unary("sin", x)


def cos(x):
    """The cosine, elementwise."""
    return _unary("cos", x)


def tan(x):
    """The tangent, elementwise."""
    return _unary("tan", x)


def asin(x):
    """The inverse sine (NaN outside [-1, 1]), elementwise."""
    return _unary("asin", x)


def acos(x):
    """The inverse cosine (NaN outside [-1, 1]), elementwise."""
    return _unary("acos", x)


def atan(x):
    """The inverse tangent, elementwise."""
    return _unary("atan", x)


def sinh(x):
    """The hyperbolic sine, elementwise."""
    return _unary("sinh", x)


def cosh(x):
    """The hyperbolic cosine, elementwise."""
    return _unary("cosh", x)


def asinh(x):
    """The inverse hyperbolic sine, elementwise."""
    return _unary("asinh", x)


def acosh(x):
    """The inverse hyperbolic cosine (NaN below 1), elementwise."""
    return _unary("acosh", x)


def atanh(x):
    """The inverse hyperbolic tangent (NaN outside [-1, 1]), elementwise."""
    return _unary("atanh", x)


def floor(x):
    """The largest integral value not greater than x, elementwise."""
    return _unary("floor", x)


def ceil(x):
    """The smallest integral value not less than x, elementwise."""
    return _unary("ceil", x)


def round(x):
    """The nearest integral value, halves to the even one (numpy's round), elementwise."""
    return _unary("round", x)


def gelu(x, approximate="none"):
    """GELU as torch.nn.functional.gelu computes it: approximate='none' (the
    default) is the exact 0.5 x (1 + erf(x / sqrt(2))), 'tanh' the
    approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.gelu: expected a jeet.Tensor, got {type(x).__name__}")
    if approximate not in ("none", "tanh"):
        raise ArgumentError(
            f"jeet.gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    attrs = {"approximate": approximate} if approximate != "none" else None
    return _node("gelu", "jeet.gelu", [x], attrs)


# Comparisons (bool results; operands promoted as numpy promotes them).


def eq(x, y):
    """x == y, elementwise, with NumPy broadcasting (a bool tensor)."""
    return _binary("eq", x, y)


def ne(x, y):
    """x != y, elementwise (NaN != NaN is True)."""
    return _binary("ne", x, y)


def lt(x, y):
    """x < y, elementwise."""
    return _binary("lt", x, y)


def le(x, y):
    """x <= y, elementwise."""
    return _binary("le", x, y)


def gt(x, y):
    """x > y, elementwise."""
    return _binary("gt", x, y)


def ge(x, y):
    """x >= y, elementwise."""
    return _binary("ge", x, y)


# Bitwise ops (the operators & | ^ ~): logical on bool tensors, bitwise on
# integers, like NumPy's.


def bitwise_and(x, y):
    """x & y: logical and of bool tensors, bitwise and of integers."""
    return _binary("bitwise_and", x, y)


def bitwise_or(x, y):
    """x | y: logical or of bool tensors, bitwise or of integers."""
    return _binary("bitwise_or", x, y)


def bitwise_xor(x, y):
    """x ^ y: exclusive or, logical or bitwise."""
    return _binary("bitwise_xor", x, y)


def bitwise_not(x):
    """~x: logical not of a bool tensor, bitwise not of integers."""
    return _unary("bitwise_not", x)


def _as_bool(opname, x):
    """x as a bool tensor (x != 0, as NumPy's truth values)."""
    if not isinstance(x, Tensor):
        if _is_scalar(x):
            return bool(x)
        raise TypeError(f"jeet.{opname}: expected a jeet.Tensor, got {type(x).__name__}")
    return x if x._dtype == "i1" else cast(x, "bool")


def logical_and(x, y):
    """The truth values of x and y (x != 0) combined with and: a bool
    tensor, as numpy.logical_and."""
    return bitwise_and(_as_bool("logical_and", x), _as_bool("logical_and", y))


def logical_or(x, y):
    """The truth values of x and y combined with or (numpy.logical_or)."""
    return bitwise_or(_as_bool("logical_or", x), _as_bool("logical_or", y))


def logical_xor(x, y):
    """The truth values of x and y combined with xor (numpy.logical_xor)."""
    return bitwise_xor(_as_bool("logical_xor", x), _as_bool("logical_xor", y))


def logical_not(x):
    """The negated truth values of x (numpy.logical_not)."""
    return bitwise_not(_as_bool("logical_not", x))


def where(condition, x, y):
    """x where `condition` (a tensor, array or list: its truth values)
    holds, else y,
    elementwise, with NumPy broadcasting of all three; x and y are tensors
    or scalars, promoted as NumPy promotes them."""
    if (type(condition) is Tensor and type(x) is Tensor and type(y) is Tensor
            and condition._dtype == "i1" and x._dtype == y._dtype):
        # The common case: nothing to convert or promote.
        t = _record("jeet.select", condition, x, y)
        return t if t is not None else _node("where", "jeet.select", (condition, x, y))
    if isinstance(condition, (np.ndarray, list, tuple)):
        # Host truth values: a bool tensor on the device of the tensors.
        device = next((v._device for v in (x, y)
                       if isinstance(v, Tensor) and v._device), None)
        condition = tensor(np.asarray(condition).astype(bool), dtype="bool",
                           device=device or "auto")
    condition = _as_bool("where", condition)
    if not isinstance(condition, Tensor):
        raise TypeError("jeet.where: the condition must be a jeet.Tensor, an "
                        "array or a list")
    for name, v in (("x", x), ("y", y)):
        if not isinstance(v, (Tensor, np.ndarray, list, tuple)) and \
                not _is_scalar(v):
            raise TypeError(f"jeet.where: {name} must be a jeet.Tensor, a "
                            f"scalar, an array or a list, got {type(v).__name__}")
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        # Neither a tensor: the dtype NumPy gives the pair.
        dtype = _dtypes.from_numpy_dtype(np.result_type(
            *(np.asarray(v) if isinstance(v, (list, tuple)) else v
              for v in (x, y))))
        if _is_scalar(x):
            x = _scalar_constant(x, dtype, "where")
        elif isinstance(x, (np.ndarray, list, tuple)):
            x = tensor(np.asarray(x), dtype=dtype, device=condition.device)
    a, b = _as_operands("where", x, y, device=condition._device)
    return _node("where", "jeet.select", [condition, a, b])


def matmul(x, y):
    """Matrix product (..., M, K) @ (..., K, N) with broadcast batch dims;
    a 1-D operand is promoted as numpy.matmul promotes it (vector @ matrix,
    matrix @ vector, vector @ vector, vector against a batch)."""
    a, b = _as_operands("matmul", x, y)
    return _node("matmul", "jeet.matmul", [a, b])


def _normalize_axes(opname, x, axis):
    rank = x.ndim
    if axis is None:
        return list(range(rank))
    if type(axis) is int and -rank <= axis < rank:
        return [axis % rank]  # the common case: one axis, a Python int
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        axis = (axis,)
    elif not isinstance(axis, (list, tuple)):
        raise ArgumentError(f"jeet.{opname}: axes must be ints, got {axis!r}")
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


# The attributes of one-operand ops (reductions, transposes, reshapes) by
# the op, the operand's shape and dtype and the arguments as given, where
# those are Python ints, bools and None (whose hashes do not confuse one
# another, as True and 1 would): a call seen before skips the argument
# checks and records its node in C++ (_recorded).
_ATTRIBUTED = {}


def _remember(memo, op, attrs, result=None):
    if len(_ATTRIBUTED) >= _MAX_INFERRED:
        _ATTRIBUTED.clear()
    _ATTRIBUTED[memo] = (op, attrs, _attrs_key(attrs), result)


def _recorded(opname, x, known):
    op, attrs, attrs_key, result = known
    t = _record_attributed(op, x, attrs_key, attrs, result)
    return t if t is not None else _node(opname, op, [x], attrs, result)


def _reduce(opname, x, axis, keepdims):
    memo = None
    if type(x) is Tensor and (axis is None or type(axis) is int) and \
            (keepdims is False or keepdims is True):
        memo = (opname, x._shape, x._dtype, axis, keepdims)
        known = _ATTRIBUTED.get(memo)
        if known is not None:
            return _recorded(opname, x, known)
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.{opname}: expected a jeet.Tensor, got {type(x).__name__}")
    axes = _normalize_axes(opname, x, axis)
    if opname == "mean" and x._dtype not in ("f32", "f16", "bf16"):
        raise ShapeError(
            f"jeet.mean: needs a float tensor, got {_dtypes.LONG_NAMES[x._dtype]} "
            "(NumPy's mean of integers or bools is float64, which Jeet does "
            "not have: cast to float32 first)")
    if x._dtype == "i1":
        # As NumPy: a sum or product of bools counts in int64; their max and
        # min are any and all (bool; over nothing, the int32 identities
        # INT_MIN and INT_MAX give False and True).
        if opname in ("sum", "prod"):
            return _reduce(opname, cast(x, "int64"), axis, keepdims)
        return gt(_reduce(opname, cast(x, "int32"), axis, keepdims), 0)
    if not axes:
        # Reducing over no axes (a 0-d tensor) leaves it as it is.
        return x
    attrs = {"axes": axes, "keepdims": bool(keepdims)}
    if memo is not None:
        _remember(memo, _REDUCTIONS[opname], attrs)
    return _node(opname, _REDUCTIONS[opname], [x], attrs)


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


def min(x, axis=None, keepdims=False):
    """Minimum over `axis` (an int, a tuple of ints, or None for all axes).
    For the elementwise minimum of two tensors use jeet.minimum."""
    return _reduce("min", x, axis, keepdims)


def prod(x, axis=None, keepdims=False):
    """Product over `axis` (an int, a tuple of ints, or None for all axes);
    float16 and bfloat16 multiply in float32."""
    return _reduce("prod", x, axis, keepdims)


def _arg_reduce(opname, x, axis, keepdims):
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.{opname}: expected a jeet.Tensor, got {type(x).__name__}")
    if x._dtype == "i1":
        x = cast(x, "int32")
    if axis is None:
        # As numpy: the index into the flattened tensor.
        x = reshape(x, (x.size,))
        axis = 0
        if keepdims:
            raise ArgumentError(f"jeet.{opname}: keepdims needs an axis")
    if x.ndim == 0:
        raise ShapeError(f"jeet.{opname}: needs a tensor of rank >= 1, got shape ()")
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ArgumentError(f"jeet.{opname}: axis must be an int, got {axis!r}")
    (axis,) = _normalize_axes(opname, x, axis)
    if x.shape[axis] == 0:
        raise ShapeError(
            f"jeet.{opname}: attempt to get {opname} of an empty sequence "
            f"(axis {axis} of shape {_fmt_shape(x.shape)} has size 0)")
    return _node(opname, f"jeet.{opname}", [x],
                 {"axis": axis, "keepdims": bool(keepdims)})


def argmax(x, axis=None, keepdims=False):
    """Index (int64) of the maximum along `axis` (None: of the flattened
    tensor), as numpy.argmax: the first one on ties, the first NaN if any."""
    return _arg_reduce("argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """Index (int64) of the minimum along `axis`, as numpy.argmin."""
    return _arg_reduce("argmin", x, axis, keepdims)


def iota(shape, axis=0, dtype="int64"):
    """A tensor of `shape` whose elements are their index along `axis`,
    computed in the graph (jeet.iota) on the device of the ops that use it."""
    shape = tuple(int(d) for d in shape)
    if not shape:
        raise ShapeError("jeet.iota: needs a shape of rank >= 1, got ()")
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ArgumentError(f"jeet.iota: axis must be an int, got {axis!r}")
    if not -len(shape) <= axis < len(shape):
        raise ShapeError(
            f"jeet.iota: axis {axis} is out of range for shape "
            f"{_fmt_shape(shape)} (rank {len(shape)})")
    dtype = _dtypes.canonical(dtype)
    if dtype == "i1":
        raise ArgumentError("jeet.iota: dtype must be a number type, not bool")
    return _node("iota", "jeet.iota", [], {"axis": int(axis) % len(shape)},
                 result=(shape, dtype))


# Each op of the families is a Tensor method as well: x.exp() is jeet.exp(x),
# x.maximum(y) is jeet.maximum(x, y), x.sum(axis) is jeet.sum(x, axis).
for _family in _FAMILIES:
    for _name in _family:
        setattr(Tensor, _name, globals()[_name])
# Ops outside the tables that are methods too.
for _name in ("gelu", "logical_and", "logical_or", "logical_xor",
              "logical_not", "argmax", "argmin"):
    setattr(Tensor, _name, globals()[_name])
del _family, _name


def softmax(x, axis=-1):
    """exp(x - max) / sum(exp(x - max)) along `axis`."""
    memo = None
    if type(x) is Tensor and type(axis) is int:
        memo = ("softmax", x._shape, x._dtype, axis)
        known = _ATTRIBUTED.get(memo)
        if known is not None:
            return _recorded("softmax", x, known)
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.softmax: expected a jeet.Tensor, got {type(x).__name__}")
    if x.ndim == 0:
        raise ShapeError("jeet.softmax: needs a tensor of rank >= 1, got shape ()")
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ArgumentError(f"jeet.softmax: axis must be an int, got {axis!r}")
    axis = _normalize_axes("softmax", x, axis)[0]
    attrs = {"axis": axis}
    if memo is not None:
        _remember(memo, "jeet.softmax", attrs)
    return _node("softmax", "jeet.softmax", [x], attrs)


def transpose(x, axes=None):
    """Permutes dimensions: result dim i is input dim axes[i] (default:
    reversed)."""
    memo = None
    if type(x) is Tensor and axes is None:
        memo = ("transpose", x._shape)
        known = _ATTRIBUTED.get(memo)
        if known is not None:
            return _recorded("transpose", x, known)
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
    attrs = {"permutation": perm}
    if memo is not None:
        _remember(memo, "jeet.transpose", attrs)
    return _node("transpose", "jeet.transpose", [x], attrs)


def _shape_arg(opname, shape):
    kind = type(shape)
    if kind is tuple or kind is list:
        for d in shape:
            if type(d) is not int:
                break
        else:
            return tuple(shape)  # the common case: Python ints
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
    memo = None
    if type(shape) is int:
        shape = (shape,)
    if type(x) is Tensor and type(shape) is tuple:
        for d in shape:
            if type(d) is not int:
                break
        else:
            memo = ("reshape", x._shape, x._dtype, shape)
            known = _ATTRIBUTED.get(memo)
            if known is not None:
                return _recorded("reshape", x, known)
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
    if memo is not None:
        _remember(memo, "jeet.reshape", None, (tuple(shape), x._dtype))
    return _node("reshape", "jeet.reshape", [x], result=(shape, x._dtype))


def broadcast_to(x, shape):
    """Expands x to `shape` with NumPy's broadcasting rules."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.broadcast_to: expected a jeet.Tensor, got {type(x).__name__}")
    shape = _shape_arg("broadcast_to", shape)
    if shape == x.shape:
        return x
    return _node("broadcast_to", "jeet.broadcast_to", [x], result=(shape, x._dtype))


_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)


def _is_array_index(k):
    """Whether `k` is an index array (NumPy's advanced indexing): a jeet
    tensor, a list or a NumPy array that is not a 0-d integer."""
    if isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu":
        return False
    return isinstance(k, (Tensor, np.ndarray, list))


_FULL_SLICE = slice(None)


def _getitem(x, key):
    """Indexing as numpy's: ints, slices (any start, stop and step), None
    (numpy.newaxis: a new dimension of 1) and one Ellipsis, an int dropping
    its dimension; or one index array among full slices (see
    _getitem_array)."""
    if not isinstance(key, tuple):
        key = (key,)
    # The keys model code writes most (Python ints, slices of ints, one
    # '...') need none of the rewriting below, and once seen with a shape,
    # none of the work either (_BASIC_KEYS).
    basic = True
    seen = []
    for k in key:
        kind = type(k)
        if kind is slice:
            start, stop, step = k.start, k.stop, k.step
            if seen is not None and (start is None or type(start) is int) and \
                    (stop is None or type(stop) is int) and \
                    (step is None or type(step) is int):
                seen.append((start, stop, step))
            else:
                seen = None  # NumPy ints in a slice: not memoized
        elif kind is int or k is Ellipsis:
            if seen is not None:
                seen.append(k)
        else:
            basic = False
            break
    if basic and seen is not None:
        seen = (x._shape, x._dtype, tuple(seen))
        known = _BASIC_KEYS.get(seen)
        if known is not None:
            sliced, reshaped = known
            t = _recorded("slice", x, sliced)
            return t if reshaped is None else _recorded("reshape", t, reshaped)
    # Identity, not ==: a tensor or array in the key compares elementwise.
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("jeet.Tensor: an index can only have a single ellipsis ('...')")
    if not basic:
        key = tuple(int(k) if isinstance(k, np.ndarray) and not _is_array_index(k)
                    else k for k in key)
        if any(_is_array_index(k) for k in key):
            return _getitem_array(x, key)
    rank = len(x._shape)
    indexing = len(key) - len(ellipses)
    if not basic:
        indexing -= len([k for k in key if k is None])
    if ellipses:
        at = ellipses[0]
        fill = rank - indexing
        key = key[:at] + (_FULL_SLICE,) * (fill if fill > 0 else 0) + key[at + 1:]
    if indexing > rank:
        raise IndexError(
            f"jeet.Tensor: too many indices for a tensor of rank {rank}: "
            f"{indexing} were given")
    # The result's dimensions in order: a slice's, a new one for each None
    # (an int has none); the dimensions no index names follow.
    newaxes = [] if basic else [i for i, k in enumerate(key) if k is None]
    if newaxes:
        key = tuple(k for k in key if k is not None)
    key = key + (_FULL_SLICE,) * (rank - len(key))
    starts, stops, steps, shape = [], [], [], []
    for d, k in enumerate(key):
        size = x._shape[d]
        if type(k) is slice:
            step = 1 if k.step is None else int(k.step)
            if step == 0:
                raise ValueError("jeet.Tensor: slice step cannot be zero")
            starts.append((0 if step > 0 else -1) if k.start is None else int(k.start))
            stops.append((_INT64_MAX if step > 0 else _INT64_MIN)
                         if k.stop is None else int(k.stop))
            steps.append(step)
            shape.append(len(range(*k.indices(size))))
        elif type(k) is int or (isinstance(k, numbers.Integral)
                                and not isinstance(k, bool)):
            if not -size <= int(k) < size:
                raise IndexError(
                    f"jeet.Tensor: index {int(k)} is out of bounds for axis {d} "
                    f"with size {size}")
            i = int(k) % size
            starts.append(i)
            stops.append(i + 1)
            steps.append(1)
        else:
            raise IndexError(
                "jeet.Tensor: only integers, slices, '...', None and one "
                f"index array are valid indices, got {k!r}")
    attrs = {"starts": starts, "stops": stops, "steps": steps}
    sliced = _node("slice", "jeet.slice", [x], attrs)
    if newaxes:
        # Each None's place among the result's dimensions: the slices before
        # it in the key (ints dropped theirs), the Nones before it.
        dims = []
        seen = 0  # entries of the key without Nones, before this None
        with_none = []
        for i in range(len(key) + len(newaxes)):
            with_none.append(None if i in newaxes else key[seen])
            seen += i not in newaxes
        for k in with_none:
            if k is None:
                dims.append(1)
            elif isinstance(k, slice):
                dims.append(shape.pop(0))
        shape = dims + shape
    shape = tuple(shape)
    if basic and seen is not None:
        if len(_BASIC_KEYS) >= _MAX_INFERRED:
            _BASIC_KEYS.clear()
        _BASIC_KEYS[seen] = (
            ("jeet.slice", attrs, _attrs_key(attrs), None),
            None if shape == sliced.shape
            else ("jeet.reshape", None, (), (shape, x._dtype)))
    if shape != sliced.shape:
        sliced = reshape(sliced, shape)
    return sliced


# The basic keys (Python ints, slices of ints and None, one '...') indexed
# before, by the indexed tensor's shape and dtype and the key: the slice and
# the reshape dropping its int-indexed dimensions (None where there are
# none) as _ATTRIBUTED's entries, for _recorded.
_BASIC_KEYS = {}


def _getitem_array(x, key):
    """x[..., indices, ...]: one index array (a list, a NumPy array or an
    integer jeet tensor) whose other indices are full slices (':') or one
    '...', as NumPy's advanced indexing: jeet.take along the array's axis,
    the result having x.shape[:axis] + indices.shape + x.shape[axis + 1:].
    Indices given on the host are checked against the axis as NumPy checks
    them; an integer jeet tensor's are clamped, as jeet.take clamps them. A
    NumPy bool mask over axes axis.. selects their elements where it is True
    (its True positions are known on the host); a bool jeet tensor cannot:
    the result's shape would depend on values not computed yet."""
    arrays = [k for k in key if _is_array_index(k)]
    if len(arrays) > 1:
        raise IndexError(
            "jeet.Tensor: one index array at most (several index arrays "
            "are NumPy's pointwise gather, which Jeet does not have): index "
            "one axis at a time with jeet.take")
    for k in key:
        if not (_is_array_index(k) or k is Ellipsis
                or (isinstance(k, slice) and k == slice(None))):
            raise IndexError(
                "jeet.Tensor: an index array combines only with full slices "
                f"(':') and '...', got {k!r} beside it: index in two steps "
                "(x[0][indices] for x[0, indices])")
    (index,) = arrays
    values = None
    if isinstance(index, Tensor):
        if index._dtype == "i1":
            raise IndexError(
                "jeet.Tensor: indexing with a bool jeet tensor (x[mask]) is not "
                "supported: the result's shape would depend on the mask's "
                "values, and Jeet compiles graphs of static shapes; use "
                "jeet.where(mask, x, 0) to keep the shape, or a NumPy mask "
                "(x[mask.numpy()])")
        if index._dtype not in ("i32", "i64"):
            raise IndexError(
                "jeet.Tensor: an index tensor must be of integer or bool type, "
                f"got {_dtypes.LONG_NAMES[index._dtype]}")
    else:
        values = np.asarray(index)
        if isinstance(index, list) and values.size == 0:
            values = values.astype(np.int64)
        if values.dtype != np.bool_ and values.dtype.kind not in "iu":
            raise IndexError(
                "jeet.Tensor: arrays used as indices must be of integer (or "
                f"boolean) type, got {values.dtype}")
    # The axes the index array takes: a mask's rank, else one.
    span = values.ndim if values is not None and values.dtype == np.bool_ else 1
    named = span + len([k for k in key if isinstance(k, slice)])
    if Ellipsis in [k for k in key if not _is_array_index(k)]:
        at = next(d for d, k in enumerate(key) if k is Ellipsis)
        key = (key[:at] + (slice(None),) * (x.ndim - named)
               + key[at + 1:])
    if named > x.ndim:
        raise IndexError(
            f"jeet.Tensor: too many indices for a tensor of rank {x.ndim}: "
            f"{named} were given")
    axis = next(d for d, k in enumerate(key) if _is_array_index(k))
    if values is None:
        return take(x, index, axis=axis)
    if values.dtype == np.bool_:
        return _getitem_mask(x, axis, values)
    size = x.shape[axis]
    bad = values[(values < -size) | (values >= size)]
    if bad.size:
        raise IndexError(
            f"jeet.Tensor: index {int(bad.flat[0])} is out of bounds for "
            f"axis {axis} with size {size}")
    return take(x, values, axis=axis)


def _getitem_mask(x, at, mask):
    """x[..., mask, ...] for a NumPy bool `mask` over axes at..at+mask.ndim:
    those axes become one, of the mask's True positions (in C order)."""
    span = x.shape[at:at + mask.ndim]
    if mask.ndim == 0 or len(span) != mask.ndim:
        raise IndexError(
            f"jeet.Tensor: a bool mask of shape {mask.shape} does not index "
            f"axes {at}.. of a tensor of shape {x.shape}")
    for d, (size, masked) in enumerate(zip(span, mask.shape)):
        if size != masked:
            raise IndexError(
                f"jeet.Tensor: boolean index did not match indexed tensor "
                f"along axis {at + d}; size of axis is {size} but size of "
                f"corresponding boolean axis is {masked}")
    if mask.ndim > 1:
        x = reshape(x, x.shape[:at] + (mask.size,) + x.shape[at + mask.ndim:])
    return take(x, np.flatnonzero(mask), axis=at)


def concatenate(tensors, axis=0):
    """The tensors joined along `axis`, as numpy.concatenate (one dtype,
    promoted as numpy promotes them; equal sizes in the other dimensions)."""
    tensors = list(tensors)
    if not tensors:
        raise ArgumentError("jeet.concatenate: needs at least one tensor")
    tensors = _as_operands("concatenate", *tensors)
    rank = tensors[0].ndim
    if rank == 0:
        raise ShapeError("jeet.concatenate: zero-dimensional tensors cannot be concatenated")
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ArgumentError(f"jeet.concatenate: axis must be an int, got {axis!r}")
    (axis,) = _normalize_axes("concatenate", tensors[0], axis)
    return _node("concatenate", "jeet.concat", tensors, {"axis": axis})


concat = concatenate


def take(x, indices, axis=0):
    """Elements or slices of `x` along `axis` at `indices` (an int tensor,
    array or list), as numpy.take: the result has the shape
    x.shape[:axis] + indices.shape + x.shape[axis+1:]. Negative indices count
    from the end; indices outside [-n, n) are clamped to the nearest valid
    index (numpy raises instead: check them first if that matters)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.take: expected a jeet.Tensor, got {type(x).__name__}")
    if not isinstance(indices, Tensor):
        values = np.asarray(indices)
        if values.dtype.kind not in "iu":
            raise ArgumentError(
                f"jeet.take: indices must be integers, got dtype {values.dtype}")
        indices = tensor(values.astype(np.int64), dtype="int64", device=x.device)
    elif indices._dtype not in ("i32", "i64"):
        raise ArgumentError(
            "jeet.take: indices must be an int32 or int64 tensor, got "
            f"{_dtypes.LONG_NAMES[indices._dtype]}")
    if x.ndim == 0:
        raise ShapeError("jeet.take: needs a tensor of rank >= 1, got shape ()")
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ArgumentError(f"jeet.take: axis must be an int, got {axis!r}")
    (axis,) = _normalize_axes("take", x, axis)
    return _node("take", "jeet.gather", [x, indices], {"axis": axis})


gather = take


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def pad(x, pad_width, constant_values=0, *, mode="constant"):
    """`x` padded as numpy.pad: pad_width is an int, a (before, after) pair
    for every dimension, or one pair per dimension. `mode` is 'constant'
    (`constant_values`, the default), or 'edge', 'reflect', 'symmetric' or
    'wrap', whose padding repeats elements of `x` as numpy's modes of those
    names do (one gather along each padded dimension); numpy's spelling
    `pad(x, w, 'reflect')` works too."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.pad: expected a jeet.Tensor, got {type(x).__name__}")
    if isinstance(constant_values, str):
        mode, constant_values = constant_values, 0
    if mode not in _PAD_MODES:
        raise ArgumentError(f"jeet.pad: mode {mode!r} is not one of "
                            f"{', '.join(_PAD_MODES)}")
    try:
        widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64),
                                 (x.ndim, 2))
    except ValueError:
        raise ArgumentError(
            f"jeet.pad: pad_width {pad_width!r} does not fit a tensor of rank "
            f"{x.ndim} (give an int, a (before, after) pair, or one pair per "
            "dimension)") from None
    if (widths < 0).any():
        raise ArgumentError(f"jeet.pad: pad_width {pad_width!r} has a negative entry")
    if mode != "constant":
        return _pad_by_gathers(x, widths, mode)
    if not _is_scalar(constant_values):
        raise ArgumentError("jeet.pad: constant_values must be a scalar")
    value = _scalar_constant(constant_values, x._dtype, "pad")
    return _node("pad", "jeet.pad", [x, value],
                 {"low": [int(w) for w in widths[:, 0]],
                  "high": [int(w) for w in widths[:, 1]]})


def _pad_by_gathers(x, widths, mode):
    """x padded in one of numpy's modes that repeat x's elements: along each
    padded dimension, a gather at the indices numpy's mode gives the
    positions of that dimension (a constant, known from the shape)."""
    for axis, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        size = x.shape[axis]
        if size == 0:
            raise ShapeError(
                f"jeet.pad: mode '{mode}' cannot pad dimension {axis} of shape "
                f"{_fmt_shape(x.shape)}: it has no elements to repeat")
        index = np.pad(np.arange(size, dtype=np.int64), (int(before), int(after)),
                       mode=mode)
        x = take(x, _constant(index, "i64"), axis)
    return x


def _pair(name, opname, value, minimum):
    """An int or a pair of ints (H, W), each at least `minimum`."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value, value)
    value = tuple(value)
    if len(value) != 2 or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool)
            and v >= minimum for v in value):
        raise ArgumentError(
            f"jeet.{opname}: {name} must be an int or a pair of ints of at "
            f"least {minimum}, got {value!r}")
    return [int(v) for v in value]


def _window_padding(opname, padding):
    """PyTorch's padding (an int or (pad_h, pad_w), the same on both sides)
    as jeet's [top, left, bottom, right]."""
    pad_h, pad_w = _pair("padding", opname, padding, 0)
    return [pad_h, pad_w, pad_h, pad_w]


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution as torch.nn.functional.conv2d: x (N, C, H, W), weight
    (O, C / groups, KH, KW), an optional bias (O,); stride, padding and
    dilation are ints or (H, W) pairs (padding on both sides). The bias is
    added to the convolution's result (an add of its own: for float16 and
    bfloat16 the sums, accumulated in float32, are rounded to the dtype
    before the bias is added, where PyTorch rounds once)."""
    # An array weight goes where the tensors are; where x and weight have no
    # device yet (computed from jeet.iota, constants), the bias's.
    x, weight = _as_operands(
        "conv2d", x, weight,
        device=bias._device if isinstance(bias, Tensor) else None)
    if not isinstance(groups, numbers.Integral) or isinstance(groups, bool):
        raise ArgumentError(f"jeet.conv2d: groups must be an int, got {groups!r}")
    y = _node("conv2d", "jeet.conv2d", [x, weight], {
        "strides": _pair("stride", "conv2d", stride, 1),
        "padding": _window_padding("conv2d", padding),
        "dilations": _pair("dilation", "conv2d", dilation, 1),
        "groups": int(groups)})
    if bias is not None:
        bias = _as_operands("conv2d", bias, y)[0]
        if bias.ndim != 1 or bias.shape[0] != y.shape[1]:
            raise ShapeError(
                f"jeet.conv2d: bias of shape {_fmt_shape(bias.shape)} does not "
                f"match the {y.shape[1]} output channels")
        y = add(y, reshape(bias, (y.shape[1], 1, 1)))
    return y


def _ceil_mode_extra(size, before, after, extent, stride):
    """The padding after the input that the window ceil_mode adds needs, as
    PyTorch and ONNX define it: the output size rounded up, less the last
    window if it would start past the input and its padding before."""
    span = size + before + after - extent
    if span < 0:
        return 0
    out = -(-span // stride) + 1
    if (out - 1) * stride >= size + before:
        out -= 1
    extra = (out - 1) * stride + extent - (size + before + after)
    return extra if extra > 0 else 0


def _pool_node(opname, x, kernel, strides, pads, dilations, attrs=None,
               ceil_mode=False):
    """jeet.max_pool2d or jeet.avg_pool2d with padding [top, left, bottom,
    right]. ceil_mode's extra window pads the end more: nothing for a max,
    and, averaging with count_include_pad, a mean that still divides by the
    window clipped to the input and its given padding (PyTorch's and
    onnxruntime's divisor), as a per-position factor."""
    extra = [0, 0]
    if ceil_mode:
        for i in range(2):
            extent = (kernel[i] - 1) * dilations[i] + 1
            extra[i] = _ceil_mode_extra(x.shape[2 + i], pads[i], pads[i + 2],
                                        extent, strides[i])
    padded = [pads[0], pads[1], pads[2] + extra[0], pads[3] + extra[1]]
    y = _node(opname, f"jeet.{opname}", [x], {
        "kernel_shape": list(kernel), "strides": list(strides), "padding": padded,
        "dilations": list(dilations), **(attrs or {})})
    if opname == "avg_pool2d" and (attrs or {}).get("count_include_pad") and extra != [0, 0]:
        counts = []
        for i in range(2):
            start = np.arange(y.shape[2 + i]) * strides[i] - pads[i]
            end = np.minimum(start + kernel[i], x.shape[2 + i] + pads[i + 2])
            counts.append(end - start)
        factor = kernel[0] * kernel[1] / np.outer(counts[0], counts[1])
        y = y * _constant(factor.astype(np.float32), y._dtype)
    return y


def _pool(opname, x, kernel_size, stride, padding, dilation, attrs=None,
          ceil_mode=False):
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.{opname}: expected a jeet.Tensor, got {type(x).__name__}")
    kernel = _pair("kernel_size", opname, kernel_size, 1)
    strides = kernel if stride is None else _pair("stride", opname, stride, 1)
    if ceil_mode and x.ndim != 4:
        raise ShapeError(f"jeet.{opname}: expected an (N, C, H, W) tensor, got "
                         f"shape {_fmt_shape(x.shape)}")
    return _pool_node(opname, x, kernel, strides, _window_padding(opname, padding),
                      _pair("dilation", opname, dilation, 1), attrs, bool(ceil_mode))


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling of (N, C, H, W) as torch.nn.functional.max_pool2d
    (stride defaults to the kernel size; ceil_mode rounds the output size
    up, adding a window that starts inside the input or its padding)."""
    return _pool("max_pool2d", x, kernel_size, stride, padding, dilation,
                 ceil_mode=ceil_mode)


def avg_pool2d(x, kernel_size, stride=None, padding=0, count_include_pad=True,
               ceil_mode=False):
    """2-D average pooling of (N, C, H, W) as
    torch.nn.functional.avg_pool2d (stride defaults to the kernel size;
    ceil_mode as max_pool2d's, the added window's cells past the padding
    never counted)."""
    return _pool("avg_pool2d", x, kernel_size, stride, padding, 1,
                 {"count_include_pad": bool(count_include_pad)}, ceil_mode=ceil_mode)


def cast(x, dtype):
    """Converts the element type ('float32', 'float16', 'bfloat16', 'int32',
    'int64', 'bool'): floats to integers truncate toward zero, numbers to
    bool are `x != 0`, bool to numbers 0 or 1."""
    if not isinstance(x, Tensor):
        raise TypeError(f"jeet.cast: expected a jeet.Tensor, got {type(x).__name__}")
    dtype = _dtypes.canonical(dtype)
    if dtype == x._dtype:
        return x
    return _node("cast", "jeet.cast", [x], result=(x.shape, dtype))


# --------------------------------------------------------------------------
# Creation
# --------------------------------------------------------------------------


def _unpickle(array, dtype, device):
    """The tensor a pickle of Tensor.__reduce__ holds."""
    return _materialised(array, dtype, _device.resolve(device))


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
    array, a nested list or a scalar is data, converted to `dtype`. For a
    list of ints as data, use jeet.asarray."""
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
    array's (float64 -> float32; int8, int16, uint8, uint16 -> int32)."""
    array = np.asarray(array)
    dtype = _dtypes.from_numpy_dtype(array.dtype)
    if dtype == "i32" and array.dtype.kind in "iu" and array.size:
        if array.max() > np.iinfo(np.int32).max or array.min() < np.iinfo(np.int32).min:
            raise ArgumentError("jeet.from_numpy: integer values do not fit in int32")
    return _materialised(array, dtype, _device.resolve(device))


def asarray(data, dtype=None, device="auto"):
    """`data` as a tensor, as numpy.asarray: lists and tuples (of ints too,
    which jeet.tensor takes as a shape), scalars, NumPy arrays and tensors
    are data. The dtype is the data's unless given (as jeet.from_numpy:
    float64 becomes float32, the narrow integers int32; Python ints int64),
    the device `device` ('auto': a tensor's own, else the default). A tensor
    already of that dtype and on that device is returned as it is."""
    if isinstance(data, Tensor):
        result = data
        if dtype is not None and _dtypes.canonical(dtype) != result._dtype:
            result = cast(result, dtype)
        if device != "auto" and _device.resolve(device) != result.device:
            result = result.to(device)
        return result
    try:
        array = np.asarray(data)
    except ValueError as error:  # ragged nested lists
        raise ArgumentError(f"jeet.asarray: the data is not a rectangular "
                            f"array of numbers: {error}") from None
    if array.dtype == object:
        raise ArgumentError(
            "jeet.asarray: the data is not a rectangular array of numbers "
            f"(it holds {type(array.flat[0]).__name__ if array.size else 'objects'})")
    if dtype is None:
        return from_numpy(array, device)
    return tensor(array, dtype=dtype, device=device)


array = asarray


def from_dlpack(x):
    """A tensor sharing the memory of `x` without copying it: a NumPy,
    PyTorch, CuPy or JAX array (anything with __dlpack__), or a DLPack
    capsule. `x` stays alive as long as the tensor does, and writes to it are
    seen by the tensor. A CUDA array becomes a GPU tensor; its producer
    orders its pending work before Jeet's stream. Jeet takes C-contiguous
    float32, float16, bfloat16 and int32 data; anything else is an error
    that says how to convert it (no hidden copy). A capsule can be imported
    once."""
    if hasattr(x, "__dlpack__"):
        kwargs = {}
        if hasattr(x, "__dlpack_device__"):
            dev_type, dev_id = x.__dlpack_device__()
            if int(dev_type) == _DL_CUDA:
                # The producer makes its work visible on Jeet's stream.
                kwargs["stream"] = _jeet.cuda_stream(int(dev_id))
        try:
            capsule = x.__dlpack__(max_version=(1, 0), **kwargs)
        except TypeError:
            # A producer older than DLPack 1.0 (no max_version).
            capsule = x.__dlpack__(**kwargs)
    else:
        capsule = x
    rt = _jeet.from_dlpack_capsule(capsule)
    return Tensor._wrap(rt, "gpu" if rt.device.startswith("cuda") else "cpu")


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
    values = _host_values("jeet.full", lambda: np.full(
        shape, fill_value, dtype=_dtypes.NUMPY_DTYPES[dtype]))
    return _materialised(values, dtype, _device.resolve(device))


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
    if dtype not in _dtypes.FLOAT_DTYPES:
        raise ArgumentError("jeet.rand: dtype must be a float type")
    return _materialised(_rng.random(shape, dtype=np.float32), dtype, _device.resolve(device))


def randn(*shape, dtype="float32", device="auto"):
    """Standard normal random values (input data, drawn by NumPy)."""
    shape = _shape_from_args("randn", shape)
    dtype = _dtypes.canonical(dtype)
    _dtypes.check_shape(shape, "jeet.randn", ShapeError)
    if dtype not in _dtypes.FLOAT_DTYPES:
        raise ArgumentError("jeet.randn: dtype must be a float type")
    return _materialised(
        _rng.standard_normal(shape, dtype=np.float32), dtype, _device.resolve(device))


def _host_values(what, make):
    """make() (NumPy values computed on the host, to be copied into a
    tensor), NumPy's MemoryError as Jeet's OutOfMemoryError naming `what`."""
    try:
        return make()
    except MemoryError as error:
        raise OutOfMemoryError(f"{what}: the host has no memory for its values "
                               f"({error})") from None


def arange(start, stop=None, step=1, dtype="float32", device="auto"):
    """Evenly spaced values in [start, stop), like numpy.arange."""
    if stop is None:
        start, stop = 0, start
    dtype = _dtypes.canonical(dtype)
    values = _host_values("jeet.arange",
                          lambda: np.arange(start, stop, step, dtype=np.float64))
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


class _Tracing(threading.local):
    """The names of the functions jeet.jit is tracing now in this thread,
    innermost last."""

    def __init__(self):
        self.names = []


_TRACING = _Tracing()
# How many traces run now in all threads: jeet.jit's calls read this one
# global first, and the thread's own names only while some trace runs.
_traces_running = 0
_traces_lock = threading.Lock()


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
            if _TRACING.names:
                raise JeetError(
                    f"jeet.jit: the values of {_TRACING.names[-1]}'s tensors are not "
                    "known while it is traced, so they cannot decide Python "
                    "control flow or be read (bool(x), if x > 0, float(x), "
                    "x.numpy(), x.execute()): use jeet.where to choose per "
                    "element, pass the deciding value as a static argument, "
                    "or call the function without jeet.jit")
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


def _graph_key(outputs):
    """The structural key of the graph computing `outputs` (lazy nodes), with
    the tensors that feed its inputs in _build's order -- or None when only
    _build can say what is wrong with the graph.

    Each node's key number was made when it was recorded (for its op,
    attributes, result shape and dtype, operand count; a constant's values);
    the walk (_jeet.key_walk, in _topo_order's order) only numbers the nodes
    and adds which node feeds which, so equal keys mean equal graph text and
    no MLIR is built or printed to find a graph compiled before. The key's
    tokens are, per node in the walk's order, a leaf's (shape, dtype), or the
    node's key number (or a large constant's values) followed by the numbers
    of its operands (as many as the key number says)."""
    found = _jeet.key_walk(outputs)
    if found is None:
        return None
    tokens, numbers, leaves, devices = found
    if len(devices) > 1:
        return None
    device = devices.pop() if devices else _device.resolve("auto")
    # The compile options that change the executable are part of the key.
    return (device, _options["cuda_graphs"], tokens, numbers), leaves


# Compiled graphs by structural key: (executable, (graph text, device)).
_BY_KEY = {}
_MAX_BY_KEY = 1024
key_hits = 0  # executions that found their graph by its structural key


def clear_graph_keys():
    """Forgets every graph found by structural key (jeet.clear_cache; the
    counters go on, as the compiler's do)."""
    _BY_KEY.clear()


def _compile(text, device, keep_ir=False, gpu_target="auto", vectorize=True):
    return _jeet.compile(text, device=device, keep_ir=keep_ir,
                         gpu_target=gpu_target,
                         cuda_graphs=_options["cuda_graphs"],
                         vectorize=vectorize)


def execute(*tensors):
    """Materialises every tensor given, computing all of them in one graph
    (shared work is done once). Returns the tensors (one, or a tuple)."""
    if len(tensors) == 1 and type(tensors[0]) is Tensor:
        # The common case: one tensor.
        t = tensors[0]
        if t._rt is not None:
            return t
        if t._op != "constant":
            _execute_pending([t])
            return t
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
        _execute_pending(pending)
    return tensors[0] if len(tensors) == 1 else tensors


def _execute_once(*tensors):
    """Materialises lazy nodes (no constants) computed once and never again,
    such as the work a model's loader prepares from its weights: one graph
    compiled without vectorizing (far less code to compile; run once, its
    scalar loops cost less than the vectorized code's compilation)."""
    _execute_pending([t for t in tensors if t._rt is None], vectorize=False)


def _execute_pending(pending, vectorize=True):
    """Computes `pending` (distinct lazy nodes, no constants) in one graph."""
    global key_hits
    # A graph compiled to run once is not kept for the next one.
    keyed = _graph_key(pending) if vectorize else None
    found = _BY_KEY.get(keyed[0]) if keyed is not None else None
    if found is not None:
        key_hits += 1
        executable, source = found
        leaves = keyed[1]
    else:
        built = _build(pending)
        source, leaves = (built.text, built.device), built.leaves
        executable = _compile(built.text, built.device, vectorize=vectorize)
        if keyed is not None:
            if len(_BY_KEY) >= _MAX_BY_KEY:
                _BY_KEY.pop(next(iter(_BY_KEY)))
            _BY_KEY[keyed[0]] = (executable, source)
    results = executable.run([leaf._rt for leaf in leaves])
    device = source[1]
    for t, rt in zip(pending, results):
        t._rt = rt
        t._device = device
        t._source = source
        # The inputs are no longer needed: let them go.
        t._op, t._inputs, t._attrs = None, (), None


# --------------------------------------------------------------------------
# Compiled graphs, explain
# --------------------------------------------------------------------------


class CompiledGraph:
    """A compiled graph: the executable jeet.compile(*tensors) returns."""

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
    def memory_plan(self):
        """The arena of intermediates an execution uses: arena_bytes,
        intermediate_bytes (their sizes added up), live_bytes_bound (the
        most alive at once) and buffers."""
        return dict(self._executable.memory_plan)

    @property
    def cuda_graphs(self):
        """GPU graphs: 'on' when executions replay a CUDA graph (from the
        second one on), 'off: <why>', or 'not run yet'."""
        return self._executable.cuda_graphs

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


def _graph_of(tensors, what):
    """The graph (text, device) that `what` (jeet.compile, jeet.explain)
    shows for `tensors`: the one execute(*tensors) runs when none is
    computed yet (shared work once, one output per distinct tensor), or the
    one that computed them all."""
    if not tensors:
        raise ArgumentError(f"{what}: expected at least one jeet.Tensor")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{what}: expected jeet.Tensor, got {type(t).__name__}"
                + (f" (argument {i})" if len(tensors) > 1 else ""))
    where = (lambda i: f" (argument {i})") if len(tensors) > 1 else (lambda i: "")
    lazy = [t._rt is None for t in tensors]
    if all(lazy):
        pending, seen = [], set()
        for i, t in enumerate(tensors):
            if t._op == "constant":
                raise JeetError(f"a constant has no graph to compile{where(i)}")
            if id(t) not in seen:
                seen.add(id(t))
                pending.append(t)
        built = _build(pending)
        return built.text, built.device
    if any(lazy):
        raise JeetError(
            f"{what}: argument {lazy.index(False)} is computed already and "
            f"argument {lazy.index(True)} is not: give the tensors of one "
            "graph, all before they are executed or all after")
    sources = []
    for i, t in enumerate(tensors):
        if t._source is None:
            raise JeetError(
                "this tensor holds data that no graph computed (it was "
                f"created, not computed){where(i)}: there is nothing to compile")
        sources.append(t._source)
    if any(src != sources[0] for src in sources):
        raise JeetError(
            f"{what}: the tensors were computed by different graphs; give "
            "the tensors that one execute() computed together")
    return sources[0]


def compile(*tensors, gpu_target="auto"):
    """Compiles the graph that computes the tensors given (through the cache:
    the same executable execute(*tensors) uses) without running it; returns a
    CompiledGraph with num_kernels, kernel_ops, ir(stage), ptx(). Several
    tensors make one graph with an output for each (shared work once), as
    jeet.execute(*tensors) does.

    gpu_target (GPU graphs): 'ptx', 'emulator' (kernels for the host, run by
    the CUDA driver emulator) or 'auto' (the emulator when the CUDA device is
    the emulator, PTX otherwise)."""
    if gpu_target not in ("auto", "ptx", "emulator"):
        raise ArgumentError(
            f"gpu_target must be 'auto', 'ptx' or 'emulator', got {gpu_target!r}")
    text, device = _graph_of(tensors, "jeet.compile")
    return CompiledGraph(_compile(text, device, gpu_target=gpu_target), text,
                         device)


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0


def explain(*tensors):
    """What executing the tensors given does (one graph, as
    jeet.execute(*tensors)): the kernels, the ops each fuses, the peak bytes
    of intermediates, the stages of its pipeline. Returns the text."""
    text, device = _graph_of(tensors, "jeet.explain")
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
    plan = exe.memory_plan
    lines.append(
        f"arena: {plan['arena_bytes']} bytes for {plan['buffers']} "
        f"intermediate(s) of {plan['intermediate_bytes']} bytes "
        f"(liveness lower bound {plan['live_bytes_bound']} bytes)")
    if device == "gpu":
        lines.append(f"CUDA graphs: {exe.cuda_graphs}")
    lines.append(f"stages (jeet.compile(t).ir(stage)): {', '.join(exe.stages)}")
    return "\n".join(lines)
