"""The ONNX graph walk: each node becomes jeet ops through its converter
(_ops.py), added to a graph with Jeet's own graph builder (the lazy tensors
of jeet._tensor over the C++ jeet::Graph), so every op is shape-checked by
the dialect's type inference as it is added.

Values are jeet tensors, or Static values: NumPy arrays known when the model
is loaded (initializers, Constant nodes, shapes of tensors, and integer
shape arithmetic on those). Converters read the attributes that must be
static (a Reshape's shape, a reduction's axes) from Static values; a Static
used as an operand becomes a jeet.constant, or a bound argument (a tensor
created once and passed on every call) when it is large.
"""

import onnx
import numpy as np

from .. import _tensor
from ..errors import JeetError
from . import _types
from ._errors import OnnxImportError, UnsupportedOpsError

from . import OPSET_MAX, OPSET_MIN  # noqa: F401 (the range Jeet imports)

# Integer values known when the model is loaded (shapes and their
# arithmetic, index arrays built from them: Swin's window masks scatter at
# 56 x 56 positions) are folded by the importer up to this many elements;
# every computation on tensor data runs in Jeet.
FOLD_LIMIT = 1 << 16

# An integer graph input that a node needs at load (a shape, indices) is
# compiled by value up to this many elements (each new value compiles the
# model again).
INPUT_BY_VALUE_LIMIT = 1024

# With initializers='auto', a model for the CPU whose initializers hold at
# most this many bytes in all has every one as a jeet.constant of the graph
# (on the GPU they stay bound arguments, device buffers): the compiler
# folds them, packs a matmul's weights in its panels at compile time and
# takes the decompositions of a known filter (1.3x faster calls on
# mobilenet_v2 and mobilenet_v3_small, 1.17x on resnet18's 47 MB, for ~50%
# more compile time on a cold load: docs/Performance.md, "Weights as
# constants by default" and "ResNet-18's last stage"). In a larger
# model, initializers of up to EMBED_LIMIT elements become constants and the
# others bound arguments, so that its IR and compile time stay bounded.
AUTO_CONSTANT_BYTES = 64 << 20
EMBED_LIMIT = 1024

DEFAULT_DOMAINS = ("", "ai.onnx")

# Ops of the default domain first defined after OPSET_MAX that Jeet
# imports, with the opset of the definition it implements (its later
# opsets are read as OPSET_MAX's are: the same definition while a node uses
# no attribute or input added since). A model must declare that opset or a
# newer one to use the op.
LATER_OPS = {"RMSNormalization": 23, "RotaryEmbedding": 23, "Swish": 24,
             "CumProd": 26, "SwiGLU": 28}


def definition_opset(proto):
    """The newest opset whose definition of the node's op Jeet implements."""
    if (proto.domain or "") in DEFAULT_DOMAINS:
        return LATER_OPS.get(proto.op_type, OPSET_MAX)
    return OPSET_MAX


class Static:
    """A value known when the model is loaded: a NumPy array and its ONNX
    element type."""

    __slots__ = ("array", "elem_type")

    def __init__(self, array, elem_type):
        self.array = np.asarray(array)
        self.elem_type = elem_type

    @property
    def shape(self):
        return tuple(self.array.shape)

    @property
    def is_integer(self):
        return self.array.dtype.kind in "iub"


class Untyped:
    """A graph input of an element type Jeet does not compute in (int8,
    float64, ...): usable only where its value is needed when the model is
    loaded (it is then compiled by value); as a tensor it raises `error`."""

    __slots__ = ("shape", "elem_type", "error")

    def __init__(self, shape, elem_type, error):
        self.shape = tuple(shape)
        self.elem_type = elem_type
        self.error = error


class NeedsStatic(Exception):
    """A converter needs the value of a graph input when the model is
    loaded: the model is then compiled for each distinct value of it given
    at call time (see OnnxModel)."""

    def __init__(self, input_name):
        super().__init__(input_name)
        self.input_name = input_name


def attribute_value(attr):
    value = onnx.helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        return [v.decode("utf-8") for v in value]
    return value


class Node:
    """What a converter sees of one ONNX node."""

    def __init__(self, importer, proto, since):
        self._importer = importer
        self.proto = proto
        self.op_type = proto.op_type
        self.name = proto.name or f"{proto.op_type}_{importer.node_index}"
        self.since = since  # the opset version of the op's definition
        self._attrs = {a.name: a for a in proto.attribute}

    # -- inputs --------------------------------------------------------------

    @property
    def num_inputs(self):
        return len(self.proto.input)

    def has(self, i):
        return i < len(self.proto.input) and self.proto.input[i] != ""

    def input_name(self, i):
        return self.proto.input[i]

    def value(self, i):
        return self._importer.lookup(self.proto.input[i])

    def tensor(self, i):
        """Input i as a jeet tensor (a Static one becomes a constant or a
        bound argument)."""
        if not self.has(i):
            raise self.error(f"input {i} is required")
        return self._importer.as_tensor(self.proto.input[i])

    def tensors(self):
        return [self.tensor(i) for i in range(self.num_inputs) if self.has(i)]

    def is_static(self, i):
        return self.has(i) and isinstance(self.value(i), Static)

    def static(self, i, what):
        """Input i as a NumPy array known now, or an error saying that `what`
        must be known when the model is loaded."""
        name = self.proto.input[i]
        value = self.value(i)
        if isinstance(value, Static):
            return value.array
        if name in self._importer.graph_inputs:
            raise NeedsStatic(name)
        upstream = self._importer.shape_inputs(name)
        if upstream:
            raise NeedsStatic(upstream[0])
        producer = self._importer.producers.get(name, "?")
        raise self.error(
            f"{what} (input '{name}') must be known when the model is loaded "
            f"(an initializer, a Constant, or integer arithmetic on shapes), "
            f"but node '{producer}' computes it from tensor data")

    def static_ints(self, i, what):
        return [int(v) for v in np.asarray(self.static(i, what)).reshape(-1)]

    def shape(self, i):
        return tuple(self.value(i).shape)

    def elem_type(self, i):
        value = self.value(i)
        if isinstance(value, (Static, Untyped)):
            return value.elem_type
        return _types.onnx_type(value._dtype)

    def rank(self, i):
        return len(self.shape(i))

    # -- attributes ----------------------------------------------------------

    def has_attr(self, name):
        return name in self._attrs

    def attr(self, name, default=None):
        attr = self._attrs.get(name)
        if attr is None:
            return default
        return attribute_value(attr)

    def ints(self, name, default=None):
        value = self.attr(name, default)
        return None if value is None else [int(v) for v in value]

    # -- results -------------------------------------------------------------

    @property
    def num_outputs(self):
        return len(self.proto.output)

    def output_used(self, i):
        return (i < len(self.proto.output) and self.proto.output[i] != ""
                and self.proto.output[i] in self._importer.used)

    def error(self, message):
        return OnnxImportError(f"{self.op_type} node '{self.name}': {message}")

    def unsupported(self, what):
        return self.error(f"{what} is not supported by Jeet")

    def describe_inputs(self):
        parts = []
        for i, name in enumerate(self.proto.input):
            if not name:
                continue
            value = self._importer.env.get(name)
            if value is None:
                continue
            shape = "x".join(str(d) for d in value.shape) or "scalar"
            parts.append(f"'{name}' {shape} {_types.name(self.elem_type(i))}")
        return ", ".join(parts)


class Importer:
    """Walks one ONNX graph, adding jeet ops; see import_graph()."""

    def __init__(self, model, converters, folders, options, device):
        self.model = model
        self.graph = model.graph
        self.converters = converters
        self.folders = folders
        self.options = options
        self.device = device
        self.env = {}
        self.materialized = {}
        self.producers = {}
        self._producer_protos = None
        self.node_index = 0
        self.opset = opset_of(model)
        initializer_names = {t.name for t in self.graph.initializer}
        self.graph_inputs = [i.name for i in self.graph.input
                             if i.name not in initializer_names]
        self.used = {name for node in self.graph.node for name in node.input}
        self.used.update(o.name for o in self.graph.output)

    def lookup(self, name):
        value = self.env.get(name)
        if value is None:
            raise OnnxImportError(
                f"value '{name}' is used before any node computes it (the "
                "model is malformed: nodes must be in topological order)")
        return value

    def shape_inputs(self, name):
        """The graph inputs that the run-time value `name` is computed from,
        when they are small integer tensors and every node on the way is
        one the importer folds (Cast, Add, Gather, ...): compiled by value,
        they make `name` known when the model is loaded (a window's length
        given as an input, cast to float for a Range). None otherwise."""
        if self._producer_protos is None:
            self._producer_protos = {o: p for p in self.graph.node for o in p.output if o}
        found, stack, seen = [], [name], set()
        while stack:
            value_name = stack.pop()
            if not value_name or value_name in seen:
                continue
            seen.add(value_name)
            value = self.env.get(value_name)
            if isinstance(value, Static):
                continue
            if value_name in self.graph_inputs:
                if (not isinstance(value, _tensor.Tensor)
                        or value._dtype not in ("i32", "i64")
                        or value.size > INPUT_BY_VALUE_LIMIT):
                    return None
                found.append(value_name)
                continue
            proto = self._producer_protos.get(value_name)
            if proto is None or proto.op_type not in self.folders:
                return None
            stack.extend(proto.input)
        return found or None

    def as_tensor(self, name):
        value = self.lookup(name)
        if isinstance(value, Untyped):
            raise value.error
        if not isinstance(value, Static):
            return value
        tensor = self.materialized.get(name)
        if tensor is None:
            tensor = self.static_to_tensor(value, f"value '{name}'")
            self.materialized[name] = tensor
        return tensor

    def static_to_tensor(self, value, what):
        dtype = _types.jeet_dtype(value.elem_type, what,
                                  self.options.cast_float64)
        array = value.array
        mode = self.options.initializers
        if mode == "constant" or (mode == "auto" and (
                self.options.embeds_all or array.size <= EMBED_LIMIT)):
            return _tensor._constant(array, dtype)
        return _tensor._materialised(array, dtype, self.device)

    def run(self, placeholders, statics):
        """Fills env with the graph's inputs (placeholders, or Static values
        for inputs compiled by value) and initializers, then converts every
        node. Returns the values of the graph's outputs."""
        for name, tensor in placeholders.items():
            self.env[name] = tensor
        for name, array in statics.items():
            self.env[name] = array
        for init in self.graph.initializer:
            self.env[init.name] = initializer_value(init, self.options)
        for proto in self.graph.node:
            self.convert(proto)
            self.node_index += 1
        return [self.lookup(o.name) for o in self.graph.output]

    def convert(self, proto):
        node = Node(self, proto, since_version(proto, self.opset))
        outputs = None
        folder = self.folders.get(proto.op_type)
        if folder is not None and self.foldable(node):
            outputs = [Static(np.asarray(a), t) for a, t in folder(node)]
        else:
            converter = self.converters.get(proto.op_type)
            if converter is None:
                # Only a folding op reaches here (scan_unsupported lists the
                # rest before the walk starts).
                raise node.error(
                    "Jeet computes this op only on integer values known when "
                    "the model is loaded (shapes), but its inputs "
                    f"({node.describe_inputs()}) are computed at run time")
            try:
                outputs = converter(node)
            except (OnnxImportError, NeedsStatic):
                raise
            except JeetError as error:
                raise node.error(
                    f"{error} (inputs: {node.describe_inputs()})") from None
        for i, name in enumerate(proto.output):
            if not name:
                continue
            if i >= len(outputs) or outputs[i] is None:
                if name in self.used:
                    raise node.unsupported(f"output {i} ('{name}')")
                continue
            self.env[name] = outputs[i]
            self.producers[name] = node.name

    def foldable(self, node):
        """Whether every input is a small integer Static value (Shape and
        Size need only the shape)."""
        if is_static_producer(node.op_type):
            return True
        if node.op_type == "CastLike":
            # A value known now cast to the type of another, which need not
            # be known: a constant (a Pad's -inf) in a run-time tensor's type.
            value = node.value(0) if node.has(0) else None
            return isinstance(value, Static) and value.array.size <= FOLD_LIMIT
        for i in range(node.num_inputs):
            if not node.has(i):
                continue
            value = node.value(i)
            if not isinstance(value, Static):
                return False
            if not value.is_integer or value.array.size > FOLD_LIMIT:
                return False
        return True


def initializer_value(init, options):
    if init.data_location == onnx.TensorProto.EXTERNAL and not init.raw_data:
        raise OnnxImportError(
            f"initializer '{init.name}' keeps its data in an external file "
            "that was not loaded: pass the model's path to jeet.onnx.load "
            "(its external data is read from beside it)")
    try:
        array = _types.to_array(init)
    except Exception as error:  # onnx raises several types on bad data
        raise OnnxImportError(
            f"initializer '{init.name}' cannot be read: {error}") from None
    elem_type = init.data_type
    if elem_type == _types.FLOAT64 and options.cast_float64:
        array, elem_type = array.astype(np.float32), onnx.TensorProto.FLOAT
    return Static(array, elem_type)


def initializer_bytes(model):
    """The bytes of the main graph's initializers and Constant nodes' values
    (from their shapes and types, without reading their data)."""
    def size(tensor):
        try:
            itemsize = onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
        except (KeyError, TypeError, ValueError):
            itemsize = 8
        return int(np.prod(tensor.dims, dtype=np.int64)) * itemsize
    total = sum(size(init) for init in model.graph.initializer)
    for node in model.graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value" and attr.HasField("t"):
                    total += size(attr.t)
    return total


def opset_of(model):
    for imp in model.opset_import:
        if imp.domain in DEFAULT_DOMAINS:
            return imp.version
    return None


def schema_of(proto, opset):
    """The definition of a node's op that Jeet applies: the one in effect at
    the model's opset, or at OPSET_MAX (an op of LATER_OPS: at its opset)
    for newer models (see newer_than_supported)."""
    try:
        return onnx.defs.get_schema(proto.op_type,
                                    min(opset, definition_opset(proto)),
                                    proto.domain or "")
    except onnx.defs.SchemaError:
        return None


def since_version(proto, opset):
    schema = schema_of(proto, opset)
    return None if schema is None else schema.since_version


def newer_than_supported(proto, opset, schema):
    """Why a node of a model whose opset is newer than OPSET_MAX cannot be
    read with the op's OPSET_MAX definition, or None when it can. The later
    definitions of the ops Jeet imports extend only their element types
    (which the importer checks on their own) or add attributes and inputs;
    a node that uses none of those means what it meant in OPSET_MAX (an op
    of LATER_OPS: in its opset there)."""
    defined = definition_opset(proto)
    if opset <= defined:
        return None
    try:
        onnx.defs.get_schema(proto.op_type, opset, proto.domain or "")
    except onnx.defs.SchemaError:
        return f"not an op of ONNX opset {opset}"
    newer = sorted(a.name for a in proto.attribute if a.name not in schema.attributes)
    if newer:
        return (f"attribute {', '.join(repr(a) for a in newer)} is newer than "
                f"opset {defined}")
    if schema.max_input < len(proto.input):
        return f"input {schema.max_input} is newer than opset {defined}"
    return None


def is_static_producer(op_type):
    """Ops whose results are known from their inputs' shapes and their
    attributes alone."""
    return op_type in ("Shape", "Size", "Constant", "ConstantOfShape", "EyeLike")


def scan_unsupported(model, converters, folders):
    """Every node Jeet cannot import, in one error: ops without a converter
    (or in another domain), ops whose definition is newer than OPSET_MAX,
    and folding-only ops applied to run-time values."""
    graph = model.graph
    opset = opset_of(model)
    static = {t.name for t in graph.initializer}
    problems = {}

    def note(key, node_name):
        problems.setdefault(key, []).append(node_name)

    for index, proto in enumerate(graph.node):
        name = proto.name or f"{proto.op_type}_{index}"
        op = proto.op_type
        inputs_static = all(not i or i in static for i in proto.input)
        if proto.domain not in DEFAULT_DOMAINS:
            note(f"{proto.domain}.{op}", name)
            continue
        schema = schema_of(proto, opset)
        if schema is None:
            note(f"{op} (not an op of ONNX opset {min(opset, definition_opset(proto))})",
                 name)
            continue
        newer = newer_than_supported(proto, opset, schema)
        if newer is not None:
            note(f"{op} ({newer})", name)
            continue
        folds = op in folders and (is_static_producer(op) or inputs_static)
        if op not in converters and not folds:
            if op in folders:
                note(f"{op} (on values computed at run time)", name)
            else:
                note(op, name)
            continue
        if folds:
            static.update(o for o in proto.output if o)
    if problems:
        lines = [f"  {op}: {', '.join(names)}" for op, names in sorted(problems.items())]
        total = sum(len(v) for v in problems.values())
        raise UnsupportedOpsError(
            f"the model uses {len(problems)} op(s) that Jeet does not import "
            f"({total} node(s)):\n" + "\n".join(lines), problems)
