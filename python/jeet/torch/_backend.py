"""The torch.compile backend: dynamo's FX graph -> ATen ops after the core
decompositions (traced directly for inference graphs, through AOT autograd
where inputs are mutated or aliased by results) -> partitions of the nodes Jeet
compiles, each one jeet graph, compiled through Jeet's cache; the nodes
between them run in torch.

Jeet compiles static shapes: a graph is specialised to the shapes and
dtypes of its inputs and the specialisation cached, so a graph that dynamo
made dynamic compiles once per shape seen.
"""

import atexit
import operator
import weakref

import torch
from torch._decomp import core_aten_decompositions, get_decompositions
from torch._functorch.aot_autograd import aot_module_simplified
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase
from torch.utils.dlpack import to_dlpack as _to_dlpack

from .. import _jeet, _tensor
from .._frontends import (explain_graph, placeholder_like,
                          prepared_weight_forms, static_frontier,
                          substitute)
from .._tensor import Tensor
from ..errors import JeetError
from . import _aten, _dtypes

DECOMPOSITIONS = core_aten_decompositions()
# Bilinear and bicubic upsampling are core ATen ops (no decomposition in
# the core table): their decompositions are gathers at index tensors and
# weighted sums, which Jeet computes.
DECOMPOSITIONS.update(get_decompositions([
    torch.ops.aten.upsample_bilinear2d.default, torch.ops.aten.upsample_bilinear2d.vec,
    torch.ops.aten.upsample_bicubic2d.default, torch.ops.aten.upsample_bicubic2d.vec,
]))

_capsule_to_torch = torch._C._from_dlpack

# Ops that move no data in torch (views) or nothing at all: a partition of
# only these is left to torch (running it in Jeet would copy for nothing).
_NON_COMPUTE = {
    torch.ops.aten.view.default, torch.ops.aten._unsafe_view.default,
    torch.ops.aten.reshape.default, torch.ops.aten.unsqueeze.default,
    torch.ops.aten.squeeze.dim, torch.ops.aten.squeeze.dims,
    torch.ops.aten.squeeze.default, torch.ops.aten.alias.default,
    torch.ops.aten.detach.default, torch.ops.aten.clone.default,
    torch.ops.aten.permute.default, torch.ops.aten.t.default,
    torch.ops.aten.expand.default, torch.ops.aten.flatten.using_ints,
    operator.getitem,
}


class TrainingError(JeetError, RuntimeError):
    """Jeet's torch.compile backend compiles inference only."""


TRAINING_MESSAGE = (
    "the jeet backend of torch.compile compiles inference only, and this "
    "graph would be trained: {what}. Run it under torch.no_grad() or "
    "torch.inference_mode() (or call model.requires_grad_(False)), or "
    "compile training with another backend")


# --------------------------------------------------------------------------
# Tensors across the boundary
# --------------------------------------------------------------------------


def to_runtime(t):
    """A runtime tensor over a CPU torch tensor's memory, shared through
    DLPack (no copy). Jeet tensors are row-major and dense: a tensor with
    other strides (a transposed or sliced view) is first copied into a
    contiguous one, the only copy on the way in. Partitions take only dtypes
    Jeet has (the partitioner checks every input's)."""
    # No detach: torch's to_dlpack takes a tensor that requires grad (only
    # the __dlpack__ protocol refuses one), and Jeet only reads it.
    if not t.is_contiguous():
        t = t.contiguous()  # the explicit copy: DLPack cannot take the strides
    # The capsule functions directly: the __dlpack__ protocol's Python-level
    # checks cost more than copying a small tensor.
    return _jeet.from_dlpack_capsule(_to_dlpack(t))


def from_runtime(rt):
    """A torch tensor over a runtime tensor's memory, shared through DLPack
    (no copy): the torch tensor keeps Jeet's buffer alive, and the buffer
    goes back to Jeet's allocator when torch frees it."""
    # The capsule to torch's converter directly (torch.utils.dlpack's
    # from_dlpack only checks that it is a capsule before calling it).
    return _capsule_to_torch(rt.dlpack(None, False, False))


# --------------------------------------------------------------------------
# Which nodes Jeet compiles
# --------------------------------------------------------------------------


def _host_values(t):
    """A torch tensor's values as a NumPy array (bfloat16, which NumPy
    lacks, as float32: the constant rounds them back exactly)."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.cpu().contiguous().numpy()


def _fake_val(node):
    return node.meta.get("val") if isinstance(node, torch.fx.Node) else None


def _check_tensor_val(val, what):
    if not isinstance(val, torch.Tensor):
        raise _aten.Unsupported(f"{what} is not a tensor")
    if val.device.type != "cpu":
        raise _aten.Unsupported(f"{what} is on {val.device} (Jeet's torch backend runs on the CPU)")
    if any(not isinstance(d, int) for d in val.shape):
        raise _aten.Unsupported(f"{what} has a symbolic shape")
    _dtypes.jeet_dtype(val.dtype)


def _placeholder(val):
    return Tensor._new(tuple(int(d) for d in val.shape),
                       _dtypes.jeet_dtype(val.dtype), "cpu", op="_arg")


def _convert(node, env):
    """Runs the node's converter on the jeet values of its arguments (env:
    fx node -> jeet value) and checks the result against torch's."""
    def lookup(a):
        return env[a]
    args = torch.fx.node.map_arg(node.args, lookup)
    kwargs = torch.fx.node.map_arg(node.kwargs, lookup)
    if node.target is operator.getitem:
        value = args[0][args[1]]
        if value is None:
            raise _aten.Unsupported("this result of the op is not computed by Jeet")
        return value
    kwargs = {k: v for k, v in kwargs.items()
              if k not in ("layout", "device", "pin_memory", "memory_format")
              or node.target is torch.ops.aten._to_copy.default}
    result = _aten.CONVERTERS[node.target](node, *args, **kwargs)
    _check_result(node, result)
    return result


def _check_result(node, result):
    val = node.meta.get("val")
    vals = val if isinstance(val, (tuple, list)) else (val,)
    results = result if isinstance(result, tuple) else (result,)
    for v, r in zip(vals, results):
        if r is None:
            continue
        shape = tuple(int(d) for d in v.shape)
        if tuple(r.shape) != shape or r._dtype != _dtypes.jeet_dtype(v.dtype):
            raise _aten.Unsupported(
                f"Jeet's result {tuple(r.shape)} {r.dtype} differs from "
                f"torch's {shape} {v.dtype}")


class JeetSupport(OperatorSupportBase):
    """A node is supported when its converter builds it on placeholders of
    its operands' shapes and dtypes and gets torch's result; why the others
    are not is kept in `reasons`."""

    def __init__(self):
        super().__init__()
        self.reasons = {}
        self._results = {}

    def is_node_supported(self, submodules, node):
        if node.op != "call_function":
            return False
        if node in self._results:
            return self._results[node] is not None
        try:
            if node.target not in _aten.CONVERTERS and node.target is not operator.getitem:
                raise _aten.Unsupported("no Jeet converter for this op")
            env = {}
            for arg in node.all_input_nodes:
                if node.target is operator.getitem:
                    # The partitioner asks about users before producers:
                    # decide the producer first, or every getitem (of a
                    # batch norm's tuple, say) would split the graph there.
                    if arg not in self._results:
                        self.is_node_supported(submodules, arg)
                    if self._results.get(arg) is None:
                        raise _aten.Unsupported("its producer runs in torch")
                    env[arg] = self._results[arg]
                    continue
                _check_tensor_val(_fake_val(arg), f"operand '{arg.name}'")
                env[arg] = _placeholder(_fake_val(arg))
            if node.target is not operator.getitem:
                val = node.meta.get("val")
                for v in (val if isinstance(val, (tuple, list)) else (val,)):
                    if isinstance(v, torch.Tensor):
                        _check_tensor_val(v, "the result")
            result = _convert(node, env)
            # The partitioner puts every getitem of a tuple result in its
            # producer's partition: one that is read must have a value.
            for user in node.users if isinstance(result, tuple) else ():
                if (user.target is operator.getitem and user.users
                        and result[user.args[1]] is None):
                    raise _aten.Unsupported(
                        f"its result {user.args[1]}, which '{user.name}' reads, "
                        "is not computed by Jeet")
            self._results[node] = result
        except (_aten.Unsupported, JeetError, TypeError, ValueError,
                IndexError, KeyError) as error:
            self._results[node] = None
            self.reasons[node] = str(error) or type(error).__name__
            return False
        return True


# --------------------------------------------------------------------------
# One partition: one jeet graph
# --------------------------------------------------------------------------


# Every partition alive, so that their compiled graphs and runtime tensors
# are released before the interpreter tears the extension down (torch's
# compiled-code caches keep them until very late otherwise).
_PARTITIONS = weakref.WeakSet()


@atexit.register
def _release_partitions():
    for partition in list(_PARTITIONS):
        partition.release()


class JeetPartition(torch.nn.Module):
    """A fused submodule of supported nodes, compiled as one jeet graph;
    called with the partition's torch tensors, returns its results as torch
    tensors (a tuple when the submodule returned one).

    Inputs marked static (a model's parameters and buffers) feed a second,
    preparation graph: the work that depends on them alone (weights
    transposed for a matmul, batch norm's per-channel scale and shift) runs
    once, and again only when one of them changes.

    With `freeze` (torch.compile's options={"freeze": True}), the static
    inputs and the prepared values are constants of the graph instead of
    arguments, as ONNX initializers are (the compiler packs a matmul's
    weights at compile time, takes a known filter's decompositions): the
    graph is compiled at the first call, when their values are known, and
    again when one of them changes."""

    def __init__(self, submodule, name, static_mask, freeze=False):
        super().__init__()
        self.name = name
        placeholders, env, out_node = [], {}, None
        for node in submodule.graph.nodes:
            if node.op == "placeholder":
                t = _placeholder(node.meta["val"])
                placeholders.append(t)
                env[node] = t
            elif node.op == "call_function":
                if node.target is operator.getitem and not node.users:
                    continue  # a result nothing reads (batch norm's statistics)
                env[node] = _convert(node, env)
            elif node.op == "output":
                out_node = node
            else:
                raise JeetError(f"unexpected {node.op} node in a Jeet partition")
        self.input_dtypes = [p._dtype for p in placeholders]
        outputs = out_node.args[0]
        self.returns_tuple = isinstance(outputs, (tuple, list))
        outputs = list(outputs) if self.returns_tuple else [outputs]
        values = [env[o] for o in outputs]
        self.num_ops = sum(1 for n in submodule.graph.nodes if n.op == "call_function")

        self.static_index = [i for i, s in enumerate(static_mask) if s]
        static_args = [placeholders[i] for i in self.static_index]
        # Parameters read in the forms the compiler gives constants (a
        # convolution at few positions transposed, a product of few rows by
        # a wide weight in panels), their preparation with the rest.
        values = prepared_weight_forms(values, static_args)
        frontier, dynamic = static_frontier(values, static_args)
        self.prep_executable, self.prep_text, self.prep_leaves = None, None, []
        self.prep_index = []
        prepared = []
        if frontier:
            reached = {id(n) for n in _tensor._topo_order(frontier)}
            self.prep_index = [i for i in self.static_index
                               if id(placeholders[i]) in reached]
            prep = _tensor._build(frontier, [placeholders[i] for i in self.prep_index])
            self.prep_text, self.prep_leaves = prep.text, prep.leaves
            self.prep_executable = _tensor._compile(prep.text, prep.device)
            prepared = [placeholder_like(f, "cpu") for f in frontier]
            values = substitute(values, {id(f): p for f, p in zip(frontier, prepared)},
                                dynamic)

        index_of = {id(p): ("arg", i) for i, p in enumerate(placeholders)}
        index_of.update({id(p): ("prep", k) for k, p in enumerate(prepared)})
        self.plan, nodes = [], []
        for v in values:
            kind = index_of.get(id(v))
            if kind is not None:
                self.plan.append((kind[0], kind[1], v._dtype))
            else:
                self.plan.append(("out", len(nodes), v._dtype))
                nodes.append(v)
        self.graph_text, self.leaves, self.executable = None, [], None
        # The graph takes the inputs it reads (a weight read only by the
        # preparation graph is not passed again) and the prepared values.
        reached = {id(n) for n in _tensor._topo_order(nodes)}
        self.main_index = [i for i, p in enumerate(placeholders) if id(p) in reached]
        self.freeze = bool(freeze and self.static_index and nodes)
        self._frozen = None
        if self.freeze:
            # Compiled at the first call (_freeze), on the static inputs'
            # values: the graph's arguments are then the changing inputs.
            static = set(self.static_index)
            self._frozen = (nodes, placeholders, prepared)
            self.main_index = [i for i in self.main_index if i not in static]
        elif nodes:
            built = _tensor._build(nodes, [placeholders[i] for i in self.main_index]
                                   + prepared)
            self.graph_text, self.leaves = built.text, built.leaves
            self.executable = _tensor._compile(built.text, built.device)
        self._prepared = None
        # What every call does, decided once: the inputs some graph reads,
        # static and not, and the bound arguments' runtime tensors.
        read = sorted(set(self.main_index) | set(self.prep_index)
                      | (set(self.static_index) if self.freeze else set()))
        static = set(self.static_index)
        self._static_reads = [i for i in read if i in static]
        self._dynamic_reads = [i for i in read if i not in static]
        self._leaf_rts = [leaf._rt for leaf in self.leaves]
        self._prep_leaf_rts = [leaf._rt for leaf in self.prep_leaves]
        self._forget_static()
        _PARTITIONS.add(self)

    def _forget_static(self):
        # The static inputs last seen (the tensors, their version counters
        # and addresses) and their runtime tensors over the same memory.
        self._static_seen, self._static_versions, self._static_ptrs = None, None, None
        self._static_rts = {}

    def release(self):
        self.executable, self.prep_executable = None, None
        self.leaves, self.prep_leaves = [], []
        self._leaf_rts, self._prep_leaf_rts = [], []
        self._prepared = None
        self._forget_static()

    def _static_unchanged(self, statics):
        # Kept while every static input is the same tensor, unmodified (its
        # version counter) and at the same address; any change rewraps them
        # and reruns the preparation graph.
        return (self._static_seen is not None
                and all(map(operator.is_, statics, self._static_seen))
                and [t._version for t in statics] == self._static_versions
                and [t.data_ptr() for t in statics] == self._static_ptrs)

    def forward(self, *tensors):
        # Inputs returned as they are, or read by no graph, stay None:
        # nothing to wrap.
        inputs = [None] * len(tensors)
        statics = [tensors[i] for i in self._static_reads]
        unchanged = self._static_unchanged(statics)
        if not unchanged:
            self._static_seen = statics
            self._static_versions = [t._version for t in statics]
            self._static_ptrs = [t.data_ptr() for t in statics]
            self._static_rts = {i: to_runtime(t)
                                for i, t in zip(self._static_reads, statics)}
        for i, rt in self._static_rts.items():
            inputs[i] = rt
        for i in self._dynamic_reads:
            inputs[i] = to_runtime(tensors[i])
        if self.prep_executable is not None and (self._prepared is None or not unchanged):
            self._prepared = self.prep_executable.run(
                [inputs[i] for i in self.prep_index] + self._prep_leaf_rts)
        prepared = list(self._prepared or [])
        if self.freeze and (self.executable is None or not unchanged):
            self._freeze(tensors, prepared)
        results = []
        if self.executable is not None:
            results = self.executable.run(
                [inputs[i] for i in self.main_index]
                + ([] if self.freeze else prepared) + self._leaf_rts)
        out = []
        for kind, index, _ in self.plan:
            if kind == "arg":
                out.append(tensors[index])
            elif kind == "prep":
                # Kept for the calls to come: the caller gets its own copy,
                # which it may modify in place.
                out.append(from_runtime(prepared[index]).clone())
            else:
                out.append(from_runtime(results[index]))
        return tuple(out) if self.returns_tuple else out[0]

    def _freeze(self, tensors, prepared):
        """Compiles the graph with the static inputs' values (`tensors`, the
        partition's arguments) and the prepared values as constants."""
        nodes, placeholders, prepared_args = self._frozen
        replacements = {}
        for i in self.static_index:
            p = placeholders[i]
            replacements[id(p)] = _tensor._constant(_host_values(tensors[i]), p._dtype)
        for p, rt in zip(prepared_args, prepared):
            replacements[id(p)] = _tensor._constant(
                _host_values(from_runtime(rt)), p._dtype)
        every = {id(n) for n in _tensor._topo_order(nodes)}
        frozen = substitute(nodes, replacements, every)
        built = _tensor._build(frozen, [placeholders[i] for i in self.main_index])
        self.graph_text, self.leaves = built.text, built.leaves
        self._leaf_rts = [leaf._rt for leaf in self.leaves]
        self.executable = _tensor._compile(built.text, built.device)

    @property
    def num_kernels(self):
        return self.executable.num_kernels if self.executable is not None else 0

    def explain(self):
        """jeet.explain of the partition's graph (its kernels), and of the
        preparation graph when there is one."""
        if self.graph_text:
            text = explain_graph(self.graph_text, "cpu")
        elif self.freeze:
            text = ("not compiled yet: with options={'freeze': True} the graph "
                    "is compiled at the first call, on the weights' values")
        else:
            text = "no graph: every result is an input or prepared"
        if self.prep_text:
            text += ("\nprepared once from parameters and buffers (again when "
                     "one changes):\n" + explain_graph(self.prep_text, "cpu"))
        return text


# --------------------------------------------------------------------------
# One graph specialised to its inputs' shapes
# --------------------------------------------------------------------------


class Specialization:
    """An ATen graph with static shapes, its Jeet partitions and the nodes
    left to torch."""

    def __init__(self, graph_module, static_positions=(), freeze=False):
        support = JeetSupport()
        partitioner = CapabilityBasedPartitioner(
            graph_module, support, allows_single_node_partition=True)
        partitions = [
            p for p in partitioner.propose_partitions()
            if any(n.target not in _NON_COMPUTE for n in p.nodes)]
        self.fallbacks = [
            (str(n.target), n.name, support.reasons.get(n, "a view left to torch"))
            for n in graph_module.graph.nodes
            if n.op == "call_function" and not any(n in p.nodes for p in partitions)]
        self.num_aten_ops = sum(1 for n in graph_module.graph.nodes
                                if n.op == "call_function")
        fused = partitioner.fuse_partitions(partitions, prefix="jeet_partition_")
        # Which inputs of each partition stay the same from call to call:
        # graph inputs that are parameters or buffers, and constants.
        static_nodes = {n for i, n in enumerate(
            n for n in fused.graph.nodes if n.op == "placeholder")
            if i in static_positions}
        static_nodes.update(n for n in fused.graph.nodes if n.op == "get_attr")
        calls = {n.target: n for n in fused.graph.nodes if n.op == "call_module"}
        self.partitions = []
        for name, module in list(fused.named_children()):
            if name.startswith("jeet_partition_"):
                mask = [a in static_nodes for a in calls[name].args]
                partition = JeetPartition(module, name, mask, freeze)
                setattr(fused, name, partition)
                self.partitions.append(partition)
        self.module = fused
        self._direct = _direct_call(fused, self.partitions)

    def __call__(self, *args):
        if self._direct is not None:
            # The whole graph is one partition: called without the FX
            # module's interpreter frame and nn.Module dispatch.
            partition, positions, picks, container = self._direct
            result = partition.forward(*[args[i] for i in positions])
            return container([result if pick is None else result[pick]
                              for pick in picks])
        return self.module(*args)


def _direct_call(module, partitions):
    """For a graph that is one partition called on graph inputs, whose
    outputs are the partition's results: (partition, the position of each of
    its arguments among the graph's inputs, per output None (the result) or
    the index of a result in the partition's tuple, the output container
    type). None for any other graph."""
    if len(partitions) != 1:
        return None
    nodes = list(module.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    calls = [n for n in nodes if n.op == "call_module"]
    if len(calls) != 1 or nodes[-1].op != "output":
        return None
    call = calls[0]
    if getattr(module, call.target, None) is not partitions[0]:
        return None
    position = {n: i for i, n in enumerate(placeholders)}
    if call.kwargs or any(a not in position for a in call.args):
        return None
    picks_of = {call: None}
    for n in nodes:
        if n.op in ("placeholder", "output") or n is call:
            continue
        if not (n.op == "call_function" and n.target is operator.getitem
                and n.args[0] is call and isinstance(n.args[1], int)):
            return None
        picks_of[n] = n.args[1]
    outputs = nodes[-1].args[0]
    if type(outputs) not in (tuple, list) or any(o not in picks_of for o in outputs):
        return None
    picks = [picks_of[o] for o in outputs]
    # A tuple result is read through getitems, any other as it is.
    if partitions[0].returns_tuple:
        if any(p is None for p in picks):
            return None
    elif any(p is not None for p in picks):
        return None
    return (partitions[0], [position[a] for a in call.args], picks,
            type(outputs))


def _has_symbolic_shapes(graph_module):
    for node in graph_module.graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and any(
                not isinstance(d, int) for d in val.shape):
            return True
        if isinstance(val, torch.SymInt):
            return True
    return False


def _key(args):
    return tuple((tuple(a.shape), a.dtype, a.device.type)
                 if isinstance(a, torch.Tensor) else ("value", int(a))
                 for a in args)


def _specialize(graph_module, args, decompose=False):
    """The graph re-traced on fake tensors of these concrete shapes (a
    dynamic graph becomes a static one); with `decompose`, dynamo's graph
    becomes ATen ops after the core decompositions on the way, and results
    nothing reads (a decomposed batch norm's saved statistics) are
    dropped."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    mode = FakeTensorMode(allow_non_fake_inputs=False)
    fake = [mode.from_tensor(a) if isinstance(a, torch.Tensor) else _concrete(a)
            for a in args]
    with mode:
        traced = make_fx(graph_module, tracing_mode="real",
                         decomposition_table=DECOMPOSITIONS if decompose else None)(*fake)
    if decompose:
        traced.graph.eliminate_dead_code()
        traced.recompile()
    return traced


def _concrete(value):
    # A size dynamo passes as a symbol (its example value), or an int.
    if isinstance(value, torch.SymInt):
        return value.node.hint
    return int(value)


class CompiledGraph:
    """What the backend returns (to dynamo, or to AOT autograd): the ATen graph, compiled
    once per (shapes, dtypes) of its inputs."""

    def __init__(self, graph_module, example_inputs, static_positions=(),
                 on_compile=None, dynamic=None, decompose=False, traced_example=None,
                 freeze=False):
        self.graph_module = graph_module
        self.static_positions = set(static_positions)
        self.freeze = freeze
        self.dynamic = _has_symbolic_shapes(graph_module) if dynamic is None else dynamic
        # Dynamo's own graph, decomposed as each shape is traced.
        self._decompose = decompose
        self.specializations = {}
        self._on_compile = on_compile
        if not self.dynamic:
            self._static = self._add(_key(example_inputs), graph_module)
        elif traced_example is not None:
            # The example's shape, already traced (the sizes at their values).
            self._add(_key([a if isinstance(a, torch.Tensor) else _concrete(a)
                            for a in example_inputs]), traced_example)

    def _add(self, key, graph_module):
        spec = Specialization(graph_module, self.static_positions, self.freeze)
        self.specializations[key] = spec
        if self._on_compile is not None:
            self._on_compile(spec)
        return spec

    def __call__(self, *args):
        if not self.dynamic:
            # Dynamo's guards hold the shapes, dtypes and devices of a static
            # graph's inputs (another shape compiles another graph).
            return self._static(*args)
        key = _key(args)
        spec = self.specializations.get(key)
        if spec is None:
            spec = self._add(key, _specialize(self.graph_module, args, self._decompose))
        return spec(*args)


# --------------------------------------------------------------------------
# The backend
# --------------------------------------------------------------------------


def _check_inference(gm, example_inputs):
    if not torch.is_grad_enabled():
        return
    for i, t in enumerate(example_inputs):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            raise TrainingError(TRAINING_MESSAGE.format(
                what=f"input {i} of shape {tuple(t.shape)} requires grad"))
    for name, p in gm.named_parameters():
        if p.requires_grad:
            raise TrainingError(TRAINING_MESSAGE.format(
                what=f"parameter '{name}' requires grad"))


def _no_backward(graph_module, example_inputs):
    raise TrainingError(TRAINING_MESSAGE.format(what="a backward graph was requested"))


def _trace_inference(gm, example_inputs):
    """Dynamo's graph as ATen ops after the core decompositions, traced
    directly (make_fx on fake tensors) where AOT autograd has nothing to
    add: nothing requires grad (or grad is off, which dynamo's guards hold),
    and the traced graph neither mutates an input nor returns a view of one
    (AOT autograd's runtime wrapper writes mutations back and regenerates
    such views). Returns (the traced graph, whether dynamo made the shapes
    dynamic): a dynamic graph is traced here at its example sizes to check
    it, and then per shape as calls come. None otherwise: the graph then
    goes through AOT autograd."""
    tensors = [t for t in example_inputs if isinstance(t, torch.Tensor)]
    sizes = [t for t in example_inputs if not isinstance(t, torch.Tensor)]
    if not all(isinstance(t, (int, torch.SymInt)) for t in sizes):
        return None
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        return None
    dynamic = bool(sizes)
    for node in gm.graph.nodes:
        value = node.meta.get("example_value", node.meta.get("val"))
        if isinstance(value, torch.Tensor) and not all(
                isinstance(d, int) for d in value.shape):
            dynamic = True
        if isinstance(value, torch.SymInt):
            dynamic = True
    try:
        traced = _specialize(gm, example_inputs, decompose=True)
    except Exception:  # noqa: BLE001 - AOT autograd gets to say what is wrong
        return None
    placeholders = set()
    views_of_inputs = set()
    for node in traced.graph.nodes:
        if node.op == "placeholder":
            placeholders.add(node)
        elif node.op == "call_function":
            target = node.target
            if isinstance(target, torch._ops.OpOverload) and target._schema.is_mutable:
                return None
            if not isinstance(target, torch._ops.OpOverload):
                if target is not operator.getitem:
                    return None  # a higher-order op: AOT autograd's to handle
            elif target.is_view and node.args and (
                    node.args[0] in placeholders or node.args[0] in views_of_inputs):
                views_of_inputs.add(node)
        elif node.op == "output":
            outputs = node.args[0]
            outputs = outputs if isinstance(outputs, (tuple, list)) else [outputs]
            if any(o in views_of_inputs for o in outputs):
                return None
            if not all(isinstance(o, torch.fx.Node)
                       and isinstance(o.meta.get("val"), torch.Tensor) for o in outputs):
                return None  # a size or a constant among the results
    if len(placeholders) != len(example_inputs):
        return None
    return traced, dynamic


def backend(gm, example_inputs, on_compile=None, options=None, **unknown):
    """torch.compile(model, backend="jeet"): the backend function.

    Inference only (a graph that would be trained raises TrainingError).
    Every FX graph becomes ATen ops with the core ATen decompositions
    (traced directly where AOT autograd has nothing to add, see
    _trace_inference); the nodes Jeet compiles form partitions, each compiled
    into one jeet graph (fused into kernels), and the rest runs in torch.
    `on_compile` (optional) is called with each Specialization compiled
    (jeet.torch.explain uses it).

    Options (torch.compile(..., options={...})): `freeze` (default False):
    the model's parameters and buffers become constants of the compiled
    graphs, compiled at the first call and again when one changes, as
    inductor's freezing does: faster calls for inference with fixed
    weights, a longer first call."""
    # torch.compile(..., options={...}) arrives as `options`.
    options = dict(options or {})
    freeze = options.pop("freeze", False)
    names = sorted(set(options) | set(unknown))
    if names:
        raise JeetError(f"the jeet backend takes one option, 'freeze'; got "
                        f"{', '.join(repr(n) for n in names)}")
    if not isinstance(freeze, bool):
        raise JeetError(f"the jeet backend's option 'freeze' is True or False, "
                        f"got {freeze!r}")
    _check_inference(gm, example_inputs)

    # Parameters and buffers (dynamo marks them) are the same tensors call
    # after call: work on them alone is prepared once.
    static_positions = [
        i for i, t in enumerate(example_inputs)
        if getattr(t, "_dynamo_static_input_type", None) is not None
        or isinstance(t, torch.nn.Parameter)]

    def compile_forward(graph_module, inputs):
        placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
        # AOT autograd passes an inference graph dynamo's inputs in order.
        same = len(placeholders) == len(example_inputs)
        return CompiledGraph(graph_module, inputs,
                             static_positions if same else (), on_compile,
                             freeze=freeze)

    direct = _trace_inference(gm, example_inputs)
    if direct is not None:
        # Called by dynamo directly: no AOT autograd runtime wrapper around
        # each call (~50 us of a 0.3 ms MLP call on this host).
        traced, dynamic = direct
        if dynamic:
            return CompiledGraph(gm, example_inputs, static_positions, on_compile,
                                 dynamic=True, decompose=True, traced_example=traced,
                                 freeze=freeze)
        return CompiledGraph(traced, example_inputs, static_positions, on_compile,
                             freeze=freeze)
    return aot_module_simplified(
        gm, example_inputs, fw_compiler=compile_forward,
        bw_compiler=_no_backward, decompositions=DECOMPOSITIONS)
