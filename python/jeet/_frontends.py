"""What the frontends (jeet.onnx, jeet.torch) share with the core API."""

from . import _tensor


class _Computed:
    """Stands for the runtime tensor of a graph's result that is not kept:
    jeet.explain needs only the graph that computed it."""


def explain_graph(text, device):
    """jeet.explain for a graph given as its MLIR text: its kernels, the ops
    each fuses, the peak bytes of intermediates, the stages."""
    t = _tensor.Tensor._new((), "f32", device, rt=_Computed())
    t._source = (text, device)
    return _tensor.explain(t)


# --------------------------------------------------------------------------
# Work that does not depend on a graph's inputs
# --------------------------------------------------------------------------


def _is_computed(node):
    return node._rt is None and node._op not in ("_arg", "constant")


def static_frontier(outputs, static_args=()):
    """The values of the DAG under `outputs` that depend on no input that
    changes between executions (the `_arg` placeholders not in
    `static_args`), that compute something (an op on materialised tensors,
    static placeholders or constants), and that a changing value or an
    output uses: computing them once (a model's weights transposed, batch
    norm's scale) and passing the results saves that work on every
    execution.

    Returns (frontier, dynamic): the frontier nodes in topological order and
    the ids of the nodes that depend on a changing input."""
    static_ids = {id(a) for a in static_args}
    order = _tensor._topo_order(outputs)
    dynamic, reads_data = set(), set()
    for node in order:
        if node._op == "_arg":
            if id(node) in static_ids:
                reads_data.add(id(node))
            else:
                dynamic.add(id(node))
            continue
        if node._rt is not None or node._op == "constant":
            reads_data.add(id(node))
            continue
        if any(id(i) in dynamic for i in node._inputs):
            dynamic.add(id(node))
        elif any(id(i) in reads_data for i in node._inputs):
            reads_data.add(id(node))
    frontier, seen = [], set()

    def take(node):
        if (id(node) not in seen and id(node) not in dynamic
                and id(node) in reads_data and _is_computed(node)):
            seen.add(id(node))
            frontier.append(node)

    for node in order:
        if id(node) in dynamic:
            for i in node._inputs:
                take(i)
    for out in outputs:
        take(out)
    position = {id(n): k for k, n in enumerate(order)}
    frontier.sort(key=lambda n: position[id(n)])
    return frontier, dynamic


def substitute(outputs, replacements, dynamic):
    """The DAG under `outputs` with the nodes in `replacements` (id -> new
    tensor) replaced: every node in `dynamic` above a replaced one is
    rebuilt on the new inputs; the rest is shared."""
    new = {}

    def get(node):
        return new.get(id(node), replacements.get(id(node), node))

    for node in _tensor._topo_order(outputs):
        if id(node) in replacements or id(node) not in dynamic or node._op == "_arg":
            continue
        inputs = tuple(get(i) for i in node._inputs)
        if all(a is b for a, b in zip(inputs, node._inputs)):
            continue
        new[id(node)] = _tensor.Tensor._new(
            node._shape, node._dtype, node._device, op=node._op,
            inputs=inputs, attrs=node._attrs)
    return [get(o) for o in outputs]


def placeholder_like(t, device=None):
    return _tensor.Tensor._new(t._shape, t._dtype, device or t._device, op="_arg")
