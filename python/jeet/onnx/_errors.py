"""The errors of the ONNX importer: each names the model, the node or the
input that is wrong, and says what to do about it."""

from ..errors import JeetError


class OnnxImportError(JeetError, ValueError):
    """An ONNX model that Jeet cannot import: unreadable or malformed, an
    opset out of range, a dynamic dimension, an unsupported dtype, an op
    applied in a way Jeet does not support. The message names the node or
    the input."""


class UnsupportedOpsError(OnnxImportError):
    """The model uses ops that Jeet does not import. `ops` maps each
    (domain-qualified) op type to the names of the nodes that use it; the
    message lists them all."""

    def __init__(self, message, ops):
        super().__init__(message)
        self.ops = ops
