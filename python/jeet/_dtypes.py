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


def canonical(dtype):
    """The canonical name ('f32', 'f16', 'bf16', 'i32', 'i64', 'i1') of a
    dtype given as a string, a NumPy dtype or a NumPy scalar type."""
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype)
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
    name = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
            np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
            np.dtype(np.bool_): "i1"}.get(np_dtype)
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
    even; NaN stays NaN."""
    a = np.asarray(values, dtype=np.float32, order="C")
    u = a.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    # np.where, not item assignment: a 0-d input gives a NumPy scalar here.
    return np.where(np.isnan(a), np.uint16(0x7FC0), rounded).astype(np.uint16)


def bf16_bits_to_f32(bits):
    """bfloat16 bit patterns (uint16) -> float32 values (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(
        np.float32
    )


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
