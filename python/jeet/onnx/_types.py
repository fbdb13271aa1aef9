"""Element types: ONNX tensor types, their NumPy arrays and Jeet dtypes."""

import numpy as np
import onnx
from onnx import TensorProto

from .. import _dtypes
from ._errors import OnnxImportError

# ONNX element type -> the Jeet dtype that holds it. int64 and bool need
# Jeet's i64 and i1 (looked up at import time, see jeet_dtype()).
_JEET = {
    TensorProto.FLOAT: "f32",
    TensorProto.FLOAT16: "f16",
    TensorProto.BFLOAT16: "bf16",
    TensorProto.INT32: "i32",
    TensorProto.INT64: "i64",
    TensorProto.BOOL: "i1",
}

# Jeet dtype -> ONNX element type (for values the importer computes).
_ONNX = {v: k for k, v in _JEET.items()}

FLOAT64 = TensorProto.DOUBLE


def name(elem_type):
    """'float32', 'int64', ... for an ONNX element type."""
    try:
        return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type)).name
    except (KeyError, ValueError, TypeError):
        return onnx.TensorProto.DataType.Name(elem_type).lower()


def jeet_dtype(elem_type, what, cast_float64=False):
    """The Jeet dtype of an ONNX element type, or an error naming `what`
    (an input, an initializer, a node's output) and the type."""
    if elem_type == FLOAT64 and cast_float64:
        return "f32"
    dtype = _JEET.get(elem_type)
    if dtype is not None and dtype in _dtypes.LONG_NAMES:
        return dtype
    hint = ""
    if elem_type == FLOAT64:
        hint = (" (pass cast_float64=True to jeet.onnx.load to compute in "
                "float32: float64 inputs are then converted to float32 and "
                "float64 results come back as float32)")
    supported = ", ".join(_dtypes.LONG_NAMES[d] for d in _JEET.values()
                          if d in _dtypes.LONG_NAMES)
    raise OnnxImportError(
        f"{what} has element type {name(elem_type)}, which Jeet does not "
        f"support{hint}; supported: {supported}")


def onnx_type(jeet_dtype_name):
    """The ONNX element type of a Jeet dtype."""
    return _ONNX[jeet_dtype_name]


def numpy_dtype(elem_type):
    """The NumPy dtype of an ONNX element type (bfloat16: float32)."""
    if elem_type == TensorProto.BFLOAT16:
        return np.dtype(np.float32)
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))


def onnx_type_of_numpy(dtype):
    """The ONNX element type of a NumPy dtype, or None."""
    try:
        return onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    except (KeyError, ValueError, TypeError):
        return None


def to_array(tensor_proto):
    """The value of an initializer or a Constant as a NumPy array (bfloat16
    as float32, exactly)."""
    array = onnx.numpy_helper.to_array(tensor_proto)
    if tensor_proto.data_type == TensorProto.BFLOAT16:
        array = np.asarray(array).astype(np.float32)
    return np.asarray(array)
