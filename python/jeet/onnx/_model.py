"""Reading and checking ONNX models, and the compiled callable that
jeet.onnx.load returns."""

import numbers
import os

import numpy as np
import onnx

from .. import _device, _dtypes, _jeet, _tensor
from .._dtypes import ArgumentError
from .._frontends import (explain_graph, prepared_weight_forms,
                          static_frontier, substitute)
from .._tensor import Tensor
from ..errors import JeetError, ShapeError
from . import _importer, _types
from ._errors import OnnxImportError
from ._ops import CONVERTERS, FOLDERS

# The dtypes whose memory jeet.from_dlpack shares (int64 and bool inputs
# are copied).
_DLPACK_DTYPES = ("f32", "f16", "i32")


class Options:
    __slots__ = ("initializers", "cast_float64", "embeds_all")

    def __init__(self, initializers, cast_float64):
        if initializers not in ("auto", "constant", "argument"):
            raise ArgumentError(
                f"initializers must be 'auto', 'constant' or 'argument', got "
                f"{initializers!r}")
        self.initializers = initializers
        self.cast_float64 = bool(cast_float64)
        # initializers='auto' on a model small enough to have every
        # initializer as a constant (_importer.AUTO_CONSTANT_BYTES): see
        # for_model.
        self.embeds_all = False

    @property
    def embeds_constants(self):
        """Whether initializers (and the work on them alone, prepared at
        load) are constants of the graph."""
        return self.initializers == "constant" or self.embeds_all

    def for_model(self, model, device):
        """Decides what 'auto' means for `model` on `device`; returns self.
        On the GPU the weights stay bound arguments (device buffers, uploaded
        once): a kernel reads them as it reads a constant, and a constant
        would be written into the PTX module's text."""
        self.embeds_all = (
            self.initializers == "auto" and device == "cpu" and
            _importer.initializer_bytes(model) <= _importer.AUTO_CONSTANT_BYTES)
        return self


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------


def read_model(source):
    """A ModelProto from a path, bytes or a ModelProto, with a clear error
    for files that are missing, truncated or not ONNX."""
    if isinstance(source, onnx.ModelProto):
        model, where = source, "the ModelProto"
    elif isinstance(source, (bytes, bytearray)):
        model, where = _parse(bytes(source), "the bytes given"), "the bytes given"
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        where = f"'{path}'"
        if not os.path.isfile(path):
            raise OnnxImportError(f"no ONNX file at '{path}'")
        with open(path, "rb") as f:
            data = f.read()
        model = _parse(data, where)
        _load_external_data(model, path)
    else:
        raise ArgumentError(
            "jeet.onnx.load takes a path, bytes or an onnx.ModelProto, got "
            f"{type(source).__name__}")
    check_model(model, where)
    return model


def _parse(data, where):
    if not data:
        raise OnnxImportError(f"{where} is empty: not an ONNX model")
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as error:  # protobuf's DecodeError and friends
        raise OnnxImportError(
            f"{where} is not a valid ONNX model (truncated or not ONNX): "
            f"{error}") from None
    return model


def _load_external_data(model, path):
    if not any(t.data_location == onnx.TensorProto.EXTERNAL
               for t in model.graph.initializer):
        return
    try:
        onnx.external_data_helper.load_external_data_for_model(
            model, os.path.dirname(os.path.abspath(path)))
    except (OSError, ValueError) as error:
        raise OnnxImportError(
            f"'{path}': cannot read the external data of its initializers: "
            f"{error}") from None


def check_model(model, where):
    """The structure and opsets Jeet needs, then onnx's own checker."""
    graph = model.graph
    if model.ir_version <= 0 or not graph.output:
        raise OnnxImportError(
            f"{where} is not a valid ONNX model (no IR version or no graph "
            "outputs: truncated or not ONNX)")
    opset = _importer.opset_of(model)
    if opset is None:
        raise OnnxImportError(
            f"{where} imports no opset of the default ONNX domain")
    newest = onnx.defs.onnx_opset_version()
    if opset < _importer.OPSET_MIN:
        raise OnnxImportError(
            f"{where} uses ONNX opset {opset}; Jeet imports opsets "
            f"{_importer.OPSET_MIN} to {_importer.OPSET_MAX}: convert it "
            f"first with onnx.version_converter.convert_version(model, "
            f"{_importer.OPSET_MAX})")
    if opset > newest:
        raise OnnxImportError(
            f"{where} uses ONNX opset {opset}, newer than this onnx package "
            f"knows ({newest}); Jeet imports opsets {_importer.OPSET_MIN} to "
            f"{_importer.OPSET_MAX}")
    try:
        onnx.checker.check_model(model)
    except (onnx.checker.ValidationError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise OnnxImportError(f"{where} is not a valid ONNX model: {first}") from None


# --------------------------------------------------------------------------
# Graph inputs
# --------------------------------------------------------------------------


class InputSpec:
    __slots__ = ("name", "shape", "dtype", "numpy_dtype", "declared", "error",
                 "shared")

    def __str__(self):
        return f"'{self.name}' {_fmt(self.shape)} {_types.name(self.declared)}"


def _fmt(shape):
    return _tensor._fmt_shape(tuple(shape))


def _declared_dims(value_info):
    dims = []
    for d in value_info.type.tensor_type.shape.dim:
        if d.HasField("dim_value") and d.dim_value >= 0:
            dims.append(int(d.dim_value))
        else:
            dims.append(d.dim_param or "?")
    return dims


def input_specs(model, input_shapes, options):
    initializer_names = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializer_names]
    input_shapes = dict(input_shapes or {})
    names = {i.name for i in inputs}
    unknown = sorted(set(input_shapes) - names)
    if unknown:
        raise ArgumentError(
            f"input_shapes names {', '.join(repr(n) for n in unknown)}, not an "
            f"input of the model (inputs: {', '.join(repr(i.name) for i in inputs)})")
    specs = []
    for info in inputs:
        tensor_type = info.type.tensor_type
        if not info.type.HasField("tensor_type"):
            raise OnnxImportError(
                f"input '{info.name}' is not a tensor (sequences, maps and "
                "optionals are not supported)")
        spec = InputSpec()
        spec.name = info.name
        spec.declared = tensor_type.elem_type
        # An input of a type Jeet does not compute in may still decide a
        # shape (compiled by value): its error is raised when it is used as
        # a tensor.
        try:
            spec.dtype = _types.jeet_dtype(tensor_type.elem_type,
                                           f"input '{info.name}'",
                                           options.cast_float64)
            spec.error = None
        except OnnxImportError as error:
            spec.dtype, spec.error = None, error
        try:
            spec.numpy_dtype = _types.numpy_dtype(spec.declared)
        except (KeyError, ValueError, TypeError):
            raise OnnxImportError(
                f"input '{info.name}' has element type "
                f"{_types.name(spec.declared)}, which Jeet does not support") from None
        declared = _declared_dims(info) if tensor_type.HasField("shape") else None
        given = input_shapes.get(info.name)
        spec.shape = _resolve_shape(info.name, declared, given)
        # A C-contiguous NumPy array of exactly this shape and dtype is
        # shared with the graph as it is (the calls' fast path).
        spec.shared = (spec.dtype in _DLPACK_DTYPES
                       and spec.declared != _types.FLOAT64
                       and spec.numpy_dtype == _dtypes.NUMPY_DTYPES[spec.dtype])
        specs.append(spec)
    return specs


def _resolve_shape(name, declared, given):
    if given is not None:
        try:
            given = tuple(int(d) for d in given)
        except (TypeError, ValueError):
            raise ArgumentError(
                f"input_shapes['{name}'] must be a sequence of ints, got "
                f"{given!r}") from None
        if declared is not None:
            if len(declared) != len(given) or any(
                    isinstance(d, int) and d != g for d, g in zip(declared, given)):
                raise ShapeError(
                    f"input_shapes['{name}'] = {_fmt(given)} does not fit the "
                    f"model's shape {_fmt_dims(declared)} for input '{name}'")
        if any(d < 0 for d in given):
            raise ArgumentError(f"input_shapes['{name}'] has a negative dimension")
        return given
    if declared is None:
        raise OnnxImportError(
            f"input '{name}' has no shape in the model: Jeet compiles static "
            f"shapes; give it with jeet.onnx.load(model, input_shapes="
            f"{{'{name}': (...)}}) (jeet-import-onnx: --input-shape "
            f"{name}=2,3)")
    dynamic = [d for d in declared if not isinstance(d, int)]
    if dynamic:
        example = tuple(d if isinstance(d, int) else 1 for d in declared)
        raise OnnxImportError(
            f"input '{name}' has dynamic dimensions {_fmt_dims(declared)} "
            f"({', '.join(repr(d) for d in dynamic)}): Jeet compiles static "
            f"shapes; fix them with jeet.onnx.load(model, input_shapes="
            f"{{'{name}': {example}}}) (jeet-import-onnx: --input-shape "
            f"{name}={','.join(str(d) for d in example)})")
    return tuple(declared)


def _fmt_dims(dims):
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


# --------------------------------------------------------------------------
# Import
# --------------------------------------------------------------------------


class Imported:
    """One import of the graph: the jeet graph's text and how to run it."""

    __slots__ = ("text", "device", "leaves", "plan", "runtime_inputs",
                 "executable", "leaf_rts", "source")


def import_graph(model, specs, statics, options, device, prepare=False,
                 embed_prepared=False):
    """Converts the graph with `statics` (input name -> Static) for the
    inputs compiled by value; returns an Imported whose text is the jeet
    graph (inputs in the order of `specs` less the static ones, then the
    bound arguments). With `prepare`, the work on initializers alone runs
    now; its results are bound arguments, or with `embed_prepared`
    constants of the graph."""
    importer = _importer.Importer(model, CONVERTERS, FOLDERS, options, device)
    placeholders = {}
    runtime_inputs = []
    for index, spec in enumerate(specs):
        if spec.name in statics:
            continue
        if spec.dtype is None:
            placeholders[spec.name] = _importer.Untyped(spec.shape, spec.declared,
                                                        spec.error)
            continue
        placeholders[spec.name] = Tensor._new(spec.shape, spec.dtype, device,
                                              op="_arg")
        runtime_inputs.append(index)
    outputs = importer.run(placeholders, statics)
    _check_declared_outputs(model, outputs)
    if prepare:
        # Work on initializers alone (weights transposed for a MatMul, batch
        # norm's scale, the forms the compiler gives constant weights:
        # prepared_weight_forms) runs once now, in Jeet; the graph then
        # reads its results as bound arguments.
        tensors = prepared_weight_forms(
            [o for o in outputs if isinstance(o, Tensor)])
        frontier, dynamic = static_frontier(tensors)
        if frontier:
            _tensor._execute_once(*frontier)
        if frontier and embed_prepared:
            replacements = {id(f): _tensor._constant(f.numpy(), f._dtype)
                            for f in frontier}
            tensors = substitute(tensors, replacements, dynamic)
        rebuilt = iter(tensors)
        outputs = [next(rebuilt) if isinstance(o, Tensor) else o for o in outputs]

    # Inputs of other types that nothing needed by value are not passed.
    runtime_inputs = [i for i in runtime_inputs
                      if isinstance(placeholders[specs[i].name], Tensor)]
    order = [placeholders[specs[i].name] for i in runtime_inputs]
    index_of = {id(p): i for i, p in enumerate(order)}
    plan, nodes = [], []
    for out, info in zip(outputs, model.graph.output):
        if isinstance(out, _importer.Untyped):
            raise out.error
        if isinstance(out, _importer.Static):
            tensor = importer.static_to_tensor(out, f"output '{info.name}'")
            plan.append(("tensor", tensor))
        elif id(out) in index_of:
            plan.append(("arg", index_of[id(out)]))
        elif out._rt is not None or out._op == "constant":
            plan.append(("tensor", out))
        else:
            # The result's type is known now: calls wrap the runtime tensor
            # without asking it.
            plan.append(("out", len(nodes), out._shape, out._dtype))
            nodes.append(out)
    imported = Imported()
    imported.plan = plan
    imported.runtime_inputs = runtime_inputs
    imported.device = device
    imported.leaves = []
    imported.text = None
    imported.executable = None
    if nodes:
        built = _tensor._build(nodes, order)
        imported.text = built.text
        imported.leaves = built.leaves
    imported.leaf_rts = [leaf._rt for leaf in imported.leaves]
    imported.source = (imported.text, device)
    return imported


def _check_declared_outputs(model, outputs):
    for out, info in zip(outputs, model.graph.output):
        if not info.type.tensor_type.HasField("shape"):
            continue
        declared = _declared_dims(info)
        if any(not isinstance(d, int) for d in declared):
            continue
        if tuple(declared) != tuple(out.shape):
            raise OnnxImportError(
                f"output '{info.name}': the model declares shape "
                f"{_fmt_dims(declared)}, but its graph computes "
                f"{_fmt(out.shape)}")


# --------------------------------------------------------------------------
# The callable
# --------------------------------------------------------------------------


class OnnxModel:
    """An imported ONNX model, compiled for its input shapes: call it with
    the graph's inputs (positionally, or by ONNX input name as keywords; NumPy
    arrays or jeet tensors); it returns the list of the graph's outputs as
    jeet tensors (np.asarray converts them)."""

    def __init__(self, model, specs, options, device, static_inputs):
        self._model = model
        self._specs = specs
        self._options = options
        self.device = device
        self._by_name = {s.name: i for i, s in enumerate(specs)}
        self._imports = {}
        # Inputs that decide a shape or an attribute (a Reshape's shape
        # given as a graph input): the graph is compiled for each value.
        self._static_names = []
        self._preset = {}
        for name, value in (static_inputs or {}).items():
            if name not in self._by_name:
                raise ArgumentError(f"static_inputs names '{name}', not an input of the model")
            spec = specs[self._by_name[name]]
            self._preset[name] = self._static_value(spec, value)
        self._default = self._import(self._preset)
        if self._default is not None:
            self._ensure_compiled(self._default)

    # -- introspection -------------------------------------------------------

    @property
    def input_names(self):
        return [s.name for s in self._specs]

    @property
    def output_names(self):
        return [o.name for o in self._model.graph.output]

    @property
    def inputs(self):
        """(name, shape, dtype) of each input the callable takes."""
        return [(s.name, s.shape, _types.name(s.declared)) for s in self._specs]

    @property
    def static_inputs(self):
        """Inputs the graph is compiled for by value (each distinct value
        compiles once): inputs that decide shapes or attributes."""
        return list(self._static_names)

    @property
    def graph_text(self):
        """The jeet graph (MLIR) of the import (for inputs compiled by value:
        of the last value seen)."""
        imported = self._default or self._last
        return imported.text if imported is not None else None

    def compiled(self):
        """The jeet.CompiledGraph of the model (num_kernels, kernel_ops,
        ir(stage))."""
        imported = self._default or self._last
        if imported is None or imported.text is None:
            raise OnnxImportError("the model computes nothing in Jeet (its "
                                  "outputs are inputs or constants)")
        self._ensure_compiled(imported)
        return _tensor.CompiledGraph(imported.executable, imported.text,
                                     imported.device)

    @property
    def num_kernels(self):
        return self.compiled().num_kernels

    # -- import and compile --------------------------------------------------

    _last = None

    def _import(self, statics):
        """The import for these values of the inputs compiled by value, or
        None when it needs the value of another input (whose name is then
        in _static_names)."""
        key = tuple(sorted((n, v.array.tobytes(), v.array.shape)
                           for n, v in statics.items()))
        imported = self._imports.get(key)
        if imported is not None:
            return imported
        try:
            imported = import_graph(self._model, self._specs, statics,
                                    self._options, self.device, prepare=True,
                                    embed_prepared=self._options.embeds_constants)
        except _importer.NeedsStatic as need:
            if need.input_name in statics:
                raise
            self._static_names.append(need.input_name)
            return None
        self._imports[key] = imported
        self._last = imported
        return imported

    def _ensure_compiled(self, imported):
        if imported.executable is None and imported.text is not None:
            imported.executable = _tensor._compile(imported.text, imported.device)

    def _static_value(self, spec, value):
        if isinstance(value, Tensor):
            value = value.numpy()
        array = np.asarray(value)
        if array.shape != tuple(spec.shape):
            raise ShapeError(
                f"input {spec}: expected shape {_fmt(spec.shape)}, got "
                f"{_fmt(array.shape)}")
        return _importer.Static(array.astype(spec.numpy_dtype, copy=False),
                                spec.declared)

    # -- calls ---------------------------------------------------------------

    def _bind(self, args, kwargs):
        if len(args) > len(self._specs):
            raise ArgumentError(
                f"the model takes {len(self._specs)} input(s) "
                f"({', '.join(repr(s.name) for s in self._specs)}), got "
                f"{len(args)} positional arguments")
        values = list(args) + [None] * (len(self._specs) - len(args))
        given = [True] * len(args) + [False] * (len(self._specs) - len(args))
        for name, value in kwargs.items():
            index = self._by_name.get(name)
            if index is None:
                raise ArgumentError(
                    f"the model has no input named '{name}' (inputs: "
                    f"{', '.join(repr(s.name) for s in self._specs)})")
            if given[index]:
                raise ArgumentError(f"input '{name}' given twice")
            values[index], given[index] = value, True
        missing = [s.name for s, g in zip(self._specs, given)
                   if not g and s.name not in self._preset]
        if missing:
            raise ArgumentError(
                f"missing input(s) {', '.join(repr(n) for n in missing)} "
                f"(the model takes {', '.join(repr(s.name) for s in self._specs)})")
        return values

    def _runtime_tensor(self, spec, value):
        """The runtime tensor of one input. Jeet tensors, and NumPy arrays or
        other DLPack producers (a torch tensor) that are C-contiguous, of the
        input's dtype and on the model's device, are passed as they are (no
        copy). Otherwise one explicit copy: other strides, a CPU array for a
        GPU model, bfloat16 from NumPy (which has none), float64 cast to
        float32 with cast_float64=True."""
        if isinstance(value, Tensor):
            if tuple(value.shape) != tuple(spec.shape) or value._dtype != spec.dtype:
                raise ShapeError(
                    f"input {spec}: expected shape {_fmt(spec.shape)} "
                    f"{_dtypes.LONG_NAMES[spec.dtype]}, got a jeet tensor of "
                    f"shape {_fmt(value.shape)} {value.dtype}")
            if value._rt is None:
                value.execute()
            if value.device != self.device:
                raise ArgumentError(
                    f"input '{spec.name}' is on {value.device}, the model on "
                    f"{self.device}")
            return value._rt
        if isinstance(value, np.ndarray):
            array = value
        elif isinstance(value, (numbers.Number, np.generic, list, tuple)):
            array = np.asarray(value, dtype=spec.numpy_dtype)
        elif hasattr(value, "__dlpack__") and (
                spec.dtype in _DLPACK_DTYPES or not hasattr(value, "numpy")):
            return self._dlpack_input(spec, value)
        elif hasattr(value, "__dlpack__"):
            # int64 and bool do not cross by DLPack: a copy through NumPy.
            array = value.detach().cpu().numpy()
        else:
            raise ArgumentError(
                f"input '{spec.name}': expected a NumPy array, a jeet tensor "
                f"or a DLPack tensor (torch), got {type(value).__name__}")
        self._check_shape(spec, array.shape)
        if spec.dtype == "bf16" and array.dtype.name == "bfloat16":
            # ml_dtypes' bfloat16 (what onnx gives): exact in float32.
            array = array.astype(np.float32)
        if array.dtype != spec.numpy_dtype:
            raise ArgumentError(
                f"input {spec}: expected dtype {spec.numpy_dtype}, got "
                f"{array.dtype} (convert with .astype(np.{spec.numpy_dtype}))")
        if spec.declared == _types.FLOAT64:
            array = array.astype(np.float32)
        if (self.device == "cpu" and spec.dtype in _DLPACK_DTYPES
                and array.flags.c_contiguous):
            return _tensor.from_dlpack(array)._rt
        storage = _dtypes.to_storage(array, spec.dtype)
        return _jeet.RuntimeTensor.from_array(storage, spec.dtype,
                                              _device.runtime_name(self.device))

    def _check_shape(self, spec, shape):
        if tuple(shape) != tuple(spec.shape):
            raise ShapeError(
                f"input {spec}: expected shape {_fmt(spec.shape)}, got "
                f"{_fmt(shape)}")

    def _dlpack_input(self, spec, value):
        """A torch (or other DLPack) tensor's memory as the input, shared;
        a non-contiguous torch tensor is copied into a contiguous one and
        float64 (with cast_float64=True) cast to float32 first."""
        self._check_shape(spec, getattr(value, "shape", ()))
        if hasattr(value, "detach"):  # torch
            value = value.detach()
            if spec.declared == _types.FLOAT64 and str(value.dtype) == "torch.float64":
                value = value.float()  # the explicit cast
            if not value.is_contiguous():
                value = value.contiguous()  # the explicit copy
        try:
            tensor = _tensor.from_dlpack(value)
        except JeetError as error:
            raise ArgumentError(
                f"input {spec}: {getattr(value, 'dtype', '')} "
                f"{type(value).__name__} cannot be passed to the model: "
                f"{error}") from None
        if tensor._dtype != spec.dtype:
            raise ArgumentError(
                f"input {spec}: expected dtype {_dtypes.LONG_NAMES[spec.dtype]}, "
                f"got {tensor.dtype}")
        if tensor.device != self.device:
            if self.device == "cpu":
                raise ArgumentError(
                    f"input '{spec.name}' is on {tensor.device}, the model on "
                    f"the cpu (move it to the host first)")
            return tensor.to(self.device)._rt  # host to GPU: the one copy
        return tensor._rt

    def _shared_inputs(self, imported, args):
        """The runtime tensors of the inputs when every argument is a NumPy
        array that is passed as it is (C-contiguous, the input's shape and
        dtype, a CPU model): the path of repeated calls, with no checks
        beyond those. None otherwise: the general path then converts or
        rejects them with its errors."""
        if self.device != "cpu":
            return None
        specs = self._specs
        inputs = []
        for i in imported.runtime_inputs:
            value, spec = args[i], specs[i]
            if (type(value) is not np.ndarray or not spec.shared
                    or value.shape != spec.shape
                    or value.dtype != spec.numpy_dtype
                    or not value.flags.c_contiguous):
                return None
            inputs.append(_jeet.from_dlpack_capsule(
                value.__dlpack__(max_version=(1, 0))))
        return inputs

    def __call__(self, *args, **kwargs):
        imported = self._default
        if (imported is not None and not kwargs and len(args) == len(self._specs)
                and imported.executable is not None):
            inputs = self._shared_inputs(imported, args)
            if inputs is not None:
                return self._run(imported, inputs)
        values = self._bind(args, kwargs)
        while imported is None:
            # Compiled for the values of the inputs that decide shapes or
            # attributes (once per distinct value).
            statics = dict(self._preset)
            for name in self._static_names:
                if name not in statics:
                    index = self._by_name[name]
                    statics[name] = self._static_value(self._specs[index],
                                                       values[index])
            imported = self._import(statics)
        inputs = [self._runtime_tensor(self._specs[i], values[i])
                  for i in imported.runtime_inputs]
        if imported.text is not None:
            self._ensure_compiled(imported)
        return self._run(imported, inputs)

    @staticmethod
    def _run(imported, inputs):
        results = []
        if imported.executable is not None:
            results = imported.executable.run(inputs + imported.leaf_rts)
        outputs = []
        for step in imported.plan:
            kind = step[0]
            if kind == "out":
                t = Tensor._result(results[step[1]], step[2], step[3],
                                   imported.device, imported.source)
            elif kind == "arg":
                t = Tensor._wrap(inputs[step[1]], imported.device)
            else:
                t = step[1]
            outputs.append(t)
        return outputs

    def explain(self):
        """jeet.explain of the compiled graph: its kernels and stages."""
        imported = self._default or self._last
        if imported is None or imported.text is None:
            return "the model computes nothing in Jeet (outputs are inputs or constants)"
        return explain_graph(imported.text, imported.device)

    def __repr__(self):
        inputs = ", ".join(f"{n}: {_fmt(s)} {d}" for n, s, d in self.inputs)
        return (f"<jeet.onnx model on {self.device}: ({inputs}) -> "
                f"{len(self.output_names)} output(s)>")


def load(source, *, device="auto", input_shapes=None, initializers="auto",
         cast_float64=False, static_inputs=None):
    options = Options(initializers, cast_float64)
    model = read_model(source)
    _importer.scan_unsupported(model, CONVERTERS, FOLDERS)
    device = _device.resolve(device)
    options.for_model(model, device)
    specs = input_specs(model, input_shapes, options)
    return OnnxModel(model, specs, options, device, static_inputs)


def import_text(source, *, input_shapes=None, initializers="constant",
                cast_float64=False, static_inputs=None, device="cpu"):
    """The jeet IR of a model (MLIR text) and the bound arguments' arrays
    (initializers='argument')."""
    options = Options(initializers, cast_float64)
    model = read_model(source)
    options.for_model(model, device)
    _importer.scan_unsupported(model, CONVERTERS, FOLDERS)
    specs = input_specs(model, input_shapes, options)
    statics = {}
    by_name = {s.name: s for s in specs}
    for name, value in (static_inputs or {}).items():
        spec = by_name.get(name)
        if spec is None:
            raise ArgumentError(f"static_inputs names '{name}', not an input of the model")
        statics[name] = _importer.Static(
            np.asarray(value).astype(spec.numpy_dtype), spec.declared)
    try:
        # The written IR holds the initializers' prepared forms (a Gemm's
        # transposed weight, a batch norm's scale), not the work that makes
        # them, which jeet-run would redo at every run.
        imported = import_graph(model, specs, statics, options, device,
                                prepare=True,
                                embed_prepared=options.embeds_constants)
    except _importer.NeedsStatic as need:
        raise OnnxImportError(
            f"input '{need.input_name}' decides a shape or an attribute of the "
            f"graph: give its value (jeet-import-onnx: --static-input "
            f"{need.input_name}=1,2,3)") from None
    if imported.text is None:
        raise OnnxImportError("the model computes nothing in Jeet (its "
                              "outputs are inputs or constants)")
    return imported.text, [leaf.numpy() for leaf in imported.leaves]
