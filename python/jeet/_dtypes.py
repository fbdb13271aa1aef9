"""Element types: names, NumPy conversions (bfloat16 has no NumPy dtype)."""

import numpy as np

from .errors import JeetError, ShapeError


class ArgumentError(JeetError, ValueError):
    """An invalid argument (unknown dtype or device name, bad axis, ...)."""


# Accepted spellings -> canonical MLIR name.
_ALIASES = {
    "float32": "f32",
    "f32": "f32",
    "float16": "f16",
    "f16": "f16",
    "bfloat16": "bf16",
    "bf16": "bf16",
    "int32": "i32",
    "i32": "i32",
    "int64": "i64",
    "i64": "i64",
    "bool": "i1",
    "i1": "i1",
}

# Canonical -> the name Tensor.dtype reports.
LONG_NAMES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16",
              "i32": "int32", "i64": "int64", "i1": "bool"}

# Canonical -> NumPy dtype of Tensor.numpy() (bfloat16 comes back as float32).
NUMPY_DTYPES = {
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.float32),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "i1": np.dtype(np.bool_),
}

# Bytes per element of each dtype's storage.
ITEMSIZES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "i1": 1}

FLOAT_DTYPES = ("f32", "f16", "bf16")
INTEGER_DTYPES = ("i32", "i64")

# NumPy dtype -> canonical, for data given without a dtype.
_FROM_NUMPY = {
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f32",
    np.dtype(np.float16): "f16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.int16): "i32",
    np.dtype(np.int8): "i32",
    np.dtype(np.uint8): "i32",
    np.dtype(np.uint16): "i32",
    np.dtype(np.bool_): "i1",
}


# The size limits of every Jeet tensor: the same as include/jeet/Limits.h
# (checked again by the runtime and the compiler).
MAX_TENSOR_ELEMENTS = 1 << 40
MAX_TENSOR_RANK = 64

# The largest finite value of each float dtype.
_FLOAT_MAX = {"f32": float(np.finfo(np.float32).max),
              "f16": float(np.finfo(np.float16).max),
              "bf16": 3.3895313892515355e38}
_INT32 = np.iinfo(np.int32)
# The values a Python scalar may take next to a tensor of an integer dtype.
_INT_RANGES = {
    "i32": (int(_INT32.min), int(_INT32.max)),
    "i64": (int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)),
    "i1": (0, 1),
}


def check_scalar(value, dtype, what):
    """Raises ArgumentError unless the Python/NumPy scalar `value` is real and
    fits `dtype` (canonical name): complex numbers are rejected, integers must
    be within the integer dtype's range (0 or 1 for bool), finite floats must
    not overflow to infinity."""
    if isinstance(value, (complex, np.complexfloating)):
        raise ArgumentError(
            f"{what}: complex scalar {value!r}: Jeet tensors hold real numbers")
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if dtype in INTEGER_DTYPES or dtype == "i1":
        name = LONG_NAMES[dtype]
        if not float(value).is_integer():
            raise ArgumentError(
                f"{what}: the scalar {value!r} is not an integer but the tensor "
                f"is {name} (cast the tensor to a float dtype first)")
        low, high = _INT_RANGES[dtype]
        if not low <= int(value) <= high:
            raise ArgumentError(
                f"{what}: the scalar {value!r} does not fit in {name} "
                f"([{low}, {high}])")
        return
    v = float(value)
    limit = _FLOAT_MAX[dtype]
    if np.isfinite(v) and abs(v) > limit:
        # Values up to half an ulp above the maximum round to it; beyond, to
        # infinity.
        with np.errstate(over="ignore"):
            rounded = (np.float16(v) if dtype == "f16" else
                       bf16_bits_to_f32(f32_to_bf16_bits(np.float32(v)))
                       if dtype == "bf16" else np.float32(v))
        if not np.isfinite(rounded):
            raise ArgumentError(
                f"{what}: the scalar {value!r} does not fit in "
                f"{LONG_NAMES[dtype]} (largest finite value {limit:g})")


def check_shape(shape, what, error):
    """Raises `error` unless `shape` is within Jeet's size limits."""
    if len(shape) > MAX_TENSOR_RANK:
        raise error(f"{what}: rank {len(shape)} of shape {tuple(shape)} is beyond "
                    f"Jeet's limit of {MAX_TENSOR_RANK}")
    product = 1
    for d in shape:
        if d < 0:
            raise error(f"{what}: negative dimension in shape {tuple(shape)}")
        if d:
            product *= d
    if product > MAX_TENSOR_ELEMENTS:
        raise error(f"{what}: shape {tuple(shape)} has more elements than Jeet's "
                    f"limit of 2^40 ({MAX_TENSOR_ELEMENTS})")


# The NumPy dtypes that are Jeet dtypes (bfloat16 has none).
_FROM_NUMPY_NAMES = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
                     np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
                     np.dtype(np.bool_): "i1"}


def canonical(dtype):
    """The canonical name ('f32', 'f16', 'bf16', 'i32', 'i64', 'i1') of a
    dtype given as a string (Jeet's names, or NumPy's: 'f4', '<i8'), a
    NumPy dtype or scalar type, or a torch dtype (torch.float32)."""
    if type(dtype).__module__ == "torch" and str(dtype).startswith("torch."):
        dtype = str(dtype)[len("torch."):]
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype)
        if name is None:
            try:
                np_dtype = np.dtype(dtype)
            except TypeError:
                np_dtype = None
            if np_dtype is not None and np_dtype in _FROM_NUMPY_NAMES:
                return _FROM_NUMPY_NAMES[np_dtype]
        if name is None:
            raise ArgumentError(
                f"unknown dtype {dtype!r}: expected one of 'float32'/'f32', "
                "'float16'/'f16', 'bfloat16'/'bf16', 'int32'/'i32', "
                "'int64'/'i64', 'bool'/'i1'"
            )
        return name
    if dtype is bool:
        return "i1"
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        raise ArgumentError(f"unknown dtype {dtype!r}") from None
    name = _FROM_NUMPY_NAMES.get(np_dtype)
    if name is None:
        raise ArgumentError(
            f"unsupported dtype {np_dtype}: Jeet tensors are float32, float16, "
            "bfloat16, int32, int64 or bool"
        )
    return name


def from_numpy_dtype(np_dtype):
    """The canonical dtype for NumPy data given without an explicit dtype."""
    name = _FROM_NUMPY.get(np.dtype(np_dtype))
    if name is None:
        raise ArgumentError(
            f"cannot make a Jeet tensor from NumPy dtype {np.dtype(np_dtype)}"
        )
    return name


def f32_to_bf16_bits(values):
    """float32 values -> bfloat16 bit patterns (uint16), rounding to nearest
    even; NaN stays NaN. Any shape, 0-d included."""
    a = np.asarray(values, dtype=np.float32, order="C")
    # Flat, so that the arithmetic stays on arrays (on 0-d arrays it gives
    # NumPy scalars, which cannot be assigned to).
    u = a.reshape(-1).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    rounded[np.isnan(a.reshape(-1))] = 0x7FC0
    return rounded.reshape(a.shape)


def bf16_bits_to_f32(bits):
    """bfloat16 bit patterns (uint16) -> float32 values (exact), in one new
    array (shifted in place: a large tensor's values take no second copy)."""
    words = np.asarray(bits, dtype=np.uint16).astype(np.uint32)
    words <<= 16
    return words.view(np.float32)


def to_storage(data, dtype):
    """C-contiguous array holding `data` as the runtime stores `dtype`
    (bfloat16 as its uint16 bits)."""
    if dtype == "bf16":
        return f32_to_bf16_bits(np.asarray(data, np.float32))
    return np.asarray(data, dtype=NUMPY_DTYPES[dtype], order="C")


def from_storage(array, dtype):
    """Inverse of to_storage: the values as a NumPy array."""
    if dtype == "bf16":
        return bf16_bits_to_f32(array)
    return array


# The kinds numpy promotes between: booleans, then integers, then floats.
_KINDS = {"i1": 0, "i32": 1, "i64": 1, "f16": 2, "bf16": 2, "f32": 2}


def promote_types(a, b, what):
    """The dtype that values of dtypes `a` and `b` are computed in, as numpy
    promotes them (bfloat16, which numpy lacks, as PyTorch does: with
    float16 it gives float32). Where numpy's answer is float64 (a float32 or
    float16 with an int32 or int64), which Jeet does not have, a ShapeError
    (the error of invalid operands) names both dtypes and how to fix it."""
    if a == b:
        return a
    ka, kb = _KINDS[a], _KINDS[b]
    if ka != kb:
        if min(ka, kb) == 0:
            return a if ka > kb else b
        raise ShapeError(
            f"{what}: operands of dtypes {LONG_NAMES[a]} and {LONG_NAMES[b]}: "
            "NumPy promotes them to float64, which Jeet does not have; cast "
            "one operand first (e.g. x.astype('float32'))"
        )
    # Same kind, different widths: the wider; two 16-bit floats give f32.
    return "i64" if ka == 1 else "f32"
