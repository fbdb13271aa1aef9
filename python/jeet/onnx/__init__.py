"""jeet.onnx: ONNX models compiled by Jeet.

    import jeet.onnx
    model = jeet.onnx.load("model.onnx")       # imports and compiles
    (y,) = model(x)                            # NumPy arrays, torch or jeet tensors in,
    print(np.asarray(y))                       # jeet tensors out (no copies on the CPU)

The importer reads the model with the `onnx` package (parsing only) and
builds the jeet graph op by op with Jeet's graph builder; `jeet-import-onnx
model.onnx -o model.mlir` (or `python -m jeet.onnx`) writes that graph as
MLIR. It imports the op definitions of ONNX opsets 13 to 21 (a model that
declares a newer opset is accepted when every op it uses is defined as in
opset 21 or earlier), and of five later ops: RMSNormalization and
RotaryEmbedding (opset 23), Swish (24), CumProd (26) and SwiGLU (28).
Needs the `onnx` package; `import jeet` does not.
"""

from ._errors import OnnxImportError, UnsupportedOpsError

# The opsets of the default ONNX domain whose op definitions Jeet imports.
OPSET_MIN = 13
OPSET_MAX = 21


def _require_onnx():
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise ImportError(
            "jeet.onnx needs the onnx package: pip install onnx") from None


def load(model, *, device="auto", input_shapes=None, initializers="auto",
         cast_float64=False, static_inputs=None):
    """Imports an ONNX model and compiles it; returns a callable.

    model: a path, the file's bytes, or an onnx.ModelProto.
    device: 'cpu', 'gpu' or 'auto'.
    input_shapes: {input name: shape} for inputs with dynamic dimensions
        (Jeet compiles static shapes).
    initializers: 'auto' (on the CPU every initializer becomes a constant
        of the graph in a model whose initializers hold at most 64 MiB; in a
        larger one, and on the GPU, the small ones do and the others are
        bound arguments: tensors created once and passed to every
        execution), 'constant' or 'argument'.
    cast_float64: float64 is not a Jeet dtype: False raises an error naming
        the float64 value; True computes it in float32 (float64 inputs are
        converted, float64 initializers and casts become float32, results
        come back as float32).
    static_inputs: {input name: value} for inputs that decide shapes or
        attributes (a Reshape's target shape given as a graph input). Such
        inputs not given here are compiled for each value seen in calls.

    The callable takes the graph's inputs positionally or by ONNX input name
    (NumPy arrays of the declared dtype and shape, torch or other DLPack
    tensors, or jeet tensors; read in place on the CPU when C-contiguous)
    and returns the list of the graph's outputs as jeet tensors
    (np.asarray views them without a copy). It has
    input_names, output_names, inputs, compiled() (a jeet.CompiledGraph)
    and explain(); jeet.explain(output) shows the kernels too.
    """
    _require_onnx()
    from ._model import load as _load
    return _load(model, device=device, input_shapes=input_shapes,
                 initializers=initializers, cast_float64=cast_float64,
                 static_inputs=static_inputs)


def import_model(model, *, input_shapes=None, initializers="constant",
                 cast_float64=False, static_inputs=None):
    """The jeet graph of an ONNX model as MLIR text (a module holding
    func.func @main), and the arrays of its bound arguments (with
    initializers='argument' or 'auto': @main's trailing arguments, in
    order). initializers='constant' (the default) embeds every initializer,
    so the text runs alone (jeet-run, jeet-compile)."""
    _require_onnx()
    from ._model import import_text
    return import_text(model, input_shapes=input_shapes,
                       initializers=initializers, cast_float64=cast_float64,
                       static_inputs=static_inputs)


def supported_ops():
    """The ONNX op types Jeet imports (on any values), sorted."""
    _require_onnx()
    from ._ops import CONVERTERS
    return sorted(CONVERTERS)


__all__ = ["load", "import_model", "supported_ops", "OnnxImportError",
           "UnsupportedOpsError", "OPSET_MIN", "OPSET_MAX"]
