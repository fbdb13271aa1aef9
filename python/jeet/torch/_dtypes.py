"""torch dtypes and Jeet dtypes."""

import numpy as np
import torch

from .. import _dtypes

_JEET = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.bool: "i1",
}


class Unsupported(Exception):
    """A node that Jeet does not compile (the message says why): it runs in
    torch."""


class UnsupportedDType(Unsupported):
    pass


def jeet_dtype(dtype):
    """The Jeet dtype of a torch dtype (this build's), or UnsupportedDType."""
    name = _JEET.get(dtype)
    if name is None or name not in _dtypes.LONG_NAMES:
        raise UnsupportedDType(f"dtype {dtype} is not a Jeet dtype")
    return name


def supported(dtype):
    try:
        jeet_dtype(dtype)
        return True
    except UnsupportedDType:
        return False


def numpy_storage_dtype(dtype):
    """The NumPy dtype of the runtime's storage of a Jeet dtype."""
    if dtype == "bf16":
        return np.dtype(np.float32)
    return _dtypes.NUMPY_DTYPES[dtype]
