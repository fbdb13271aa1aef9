"""What the frontends (jeet.onnx, jeet.torch) share with the core API."""

import math

from . import _jeet, _tensor


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


def _dependence(order, static_args):
    """For the nodes of `order` (inputs first): the ids of those that depend
    on an input that changes between executions, and of those that read
    data known now (static placeholders, materialised tensors, constants)
    and nothing that changes."""
    static_ids = {id(a) for a in static_args}
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
    return dynamic, reads_data


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
    order = _tensor._topo_order(outputs)
    dynamic, reads_data = _dependence(order, static_args)
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


# --------------------------------------------------------------------------
# Weights bound as arguments: the forms the compiler gives constants
# --------------------------------------------------------------------------

# B in panels (_in_panels): 64 columns a panel, the register tile's width on
# AVX-512 (four of AVX2's). A product of fewer rows than the matmul pass
# packs B for itself (its kPackMinRows, 64) by a B of 256 or more f32
# columns (rows 1 KiB or more apart) reads B prepared in panels (measured:
# narrower ones lose to the transpose back); a convolution only below the
# rows of a transposed epilogue (jeet-fuse's 16), whose tiles store NCHW
# where the batch of panels needs a transpose of its own.
_PANEL_COLUMNS = 64
_PANEL_MAX_ROWS = 64
_PANEL_MAX_CONV_ROWS = 16
_PANEL_MIN_ROW_BYTES = 1024


def _reads_in_panels(rows, columns, max_rows=_PANEL_MAX_ROWS):
    """Whether a product of `rows` rows by a prepared f32 B of `columns`
    columns reads B in panels: the tiles would read B where it lies, one
    row of it (a page further, for 1,024 columns) at each step of k, where
    its panels stream (a bound B gets no compiler panels)."""
    return 0 < rows < max_rows and columns * 4 >= _PANEL_MIN_ROW_BYTES


def _in_panels(b):
    """B (K, N) as (ceil(N / 64), K, 64): panel p's row k is B[k, 64p:64p+64],
    the columns past N zero. Returns it and the padded columns."""
    depth, columns = b.shape
    panels = -(-columns // _PANEL_COLUMNS)
    padded = panels * _PANEL_COLUMNS
    if padded != columns:
        b = _tensor.pad(b, [[0, 0], [0, padded - columns]], 0)
    packed = _tensor.transpose(
        _tensor.reshape(b, (depth, panels, _PANEL_COLUMNS)), (1, 0, 2))
    return packed, padded


def _product_in_panels(a, b):
    """a @ b for a (..., K) of few rows and b (K, N) read in panels: the
    product of a's rows by each panel, (panels, rows, 64), moved back."""
    depth, columns = b.shape
    lead = tuple(a.shape[:-1])
    rows = math.prod(lead)
    packed, padded = _in_panels(b)
    product = _tensor.matmul(_tensor.reshape(a, (rows, depth)), packed)
    out = _tensor.reshape(_tensor.transpose(product, (1, 0, 2)), (rows, padded))
    if padded != columns:
        out = out[:, :columns]
    return _tensor.reshape(out, lead + (columns,))


def _conv_transposed(x, w, conv):
    """The convolution `conv` = conv2d(x, w) in the form jeet.conv2d's
    decomposition gives one with a constant filter at few output positions
    (ConvolutionForms.h): (N, positions, C * KH * KW) x w^T, moved back to
    (N, O, OH, OW); with groups, each group's (N, positions, K / g) by its
    filter transposed. w^T depends on the filter alone: work that
    static_frontier then finds and the frontends prepare once. A filter
    read by few rows is prepared in panels (_reads_in_panels), the product
    a batch of panels moved back to NCHW by one transpose."""
    batch, channels = x.shape[0], x.shape[1]
    out_channels, _, kh, kw = w.shape
    oh, ow = conv.shape[2], conv.shape[3]
    strides, dilations = list(conv._attrs["strides"]), list(conv._attrs["dilations"])
    depth = channels * kh * kw
    top, left, bottom, right = conv._attrs["padding"]
    if any((top, left, bottom, right)):
        x = _tensor.pad(x, [[0, 0], [0, 0], [top, bottom], [left, right]], 0)
    if (kh, kw) == (1, 1) and strides == [1, 1]:
        windows = x
    else:
        windows = _tensor._node("im2col", "jeet.im2col", [x], {
            "kernel_shape": [kh, kw], "strides": strides, "dilations": dilations})
    positions = oh * ow
    groups = conv._attrs["groups"]
    if groups > 1:
        # Each group's filter transposed: (N, g, positions, K / g) x
        # (g, K / g, O / g), moved back to (N, O, OH, OW).
        depth //= groups
        rows = _tensor.transpose(
            _tensor.reshape(windows, (batch, groups, depth, positions)), (0, 1, 3, 2))
        prepared = _tensor.transpose(
            _tensor.reshape(w, (groups, out_channels // groups, depth)), (0, 2, 1))
        product = _tensor.matmul(rows, prepared)
        return _tensor.reshape(_tensor.transpose(product, (0, 1, 3, 2)),
                               (batch, out_channels, oh, ow))
    rows = _tensor.transpose(_tensor.reshape(windows, (batch, depth, positions)), (0, 2, 1))
    prepared = _tensor.transpose(_tensor.reshape(w, (out_channels, depth)))
    if not _reads_in_panels(batch * positions, out_channels, _PANEL_MAX_CONV_ROWS):
        product = _tensor.matmul(rows, prepared)
        return _tensor.reshape(_tensor.transpose(product, (0, 2, 1)),
                               (batch, out_channels, oh, ow))
    packed, padded = _in_panels(prepared)
    product = _tensor.matmul(
        _tensor.reshape(rows, (batch, 1, positions, depth)), packed)
    columns = _tensor.reshape(_tensor.transpose(product, (0, 1, 3, 2)),
                              (batch, padded, positions))
    if padded != out_channels:
        columns = columns[:, :out_channels]
    return _tensor.reshape(columns, (batch, out_channels, oh, ow))


def _bound(value, dynamic, reads_data):
    """Whether `value` is known before the calls (depends on static data
    alone) but is no constant of the graph: an initializer or a parameter
    bound as an argument, or work on them."""
    return (id(value) not in dynamic and id(value) in reads_data
            and value._op != "constant")


def _takes_prepared_transposed_form(node, dynamic, reads_data):
    """Whether `node` is a CPU f32 convolution of a changing input by a
    bound filter at output positions that the compiler computes transposed
    for a constant filter (jeet::isComputedTransposed)."""
    if node._op != "jeet.conv2d" or node._device != "cpu":
        return False
    x, w = node._inputs
    groups = node._attrs["groups"]
    # Depthwise convolutions are sums of taps, not matmuls.
    if groups > 1 and groups == x.shape[1] == node.shape[1]:
        return False
    return (x._dtype == w._dtype == node._dtype == "f32"
            and id(x) in dynamic and _bound(w, dynamic, reads_data)
            and _jeet.conv_computed_transposed(node.shape[2] * node.shape[3],
                                               node.shape[1] // groups))


def _takes_panels(node, dynamic, reads_data):
    """Whether `node` is a CPU f32 product of a changing A of few rows by a
    bound matrix B that _reads_in_panels."""
    if node._op != "jeet.matmul" or node._device != "cpu":
        return False
    a, b = node._inputs
    if not (a._dtype == b._dtype == node._dtype == "f32" and len(b.shape) == 2
            and id(a) in dynamic and _bound(b, dynamic, reads_data)):
        return False
    return _reads_in_panels(math.prod(a.shape[:-1]), b.shape[1])


def prepared_weight_forms(outputs, static_args=()):
    """The DAG under `outputs` with the reads of weights bound as arguments
    (not constants: ONNX initializers over the constants budget, torch
    parameters, and work on them) in the forms the compiler gives constant
    ones (CPU): a convolution at few output positions in the transposed
    form, and a product of few rows by a matrix of 256 or more columns
    reading it in panels. The weights' transposes and panels are then work
    on static data alone, which static_frontier finds and the frontends run
    once (at load, or when parameters change), where the compiler would
    redo it at every call or read the weights where they lie."""
    order = _tensor._topo_order(outputs)
    dynamic, reads_data = _dependence(order, static_args)
    new = {}

    def get(node):
        return new.get(id(node), node)

    for node in order:
        if node._op == "_arg" or node._rt is not None or not node._inputs:
            continue
        inputs = tuple(get(i) for i in node._inputs)
        if _takes_prepared_transposed_form(node, dynamic, reads_data):
            new[id(node)] = _conv_transposed(inputs[0], inputs[1], node)
        elif _takes_panels(node, dynamic, reads_data):
            new[id(node)] = _product_in_panels(inputs[0], inputs[1])
        elif any(a is not b for a, b in zip(inputs, node._inputs)):
            new[id(node)] = _tensor.Tensor._new(
                node._shape, node._dtype, node._device, op=node._op,
                inputs=inputs, attrs=node._attrs)
    return [get(o) for o in outputs]


def placeholder_like(t, device=None):
    return _tensor.Tensor._new(t._shape, t._dtype, device or t._device, op="_arg")


# --------------------------------------------------------------------------
# Ops built from other jeet ops (gathers at computed indices, scans)
# --------------------------------------------------------------------------


def _scalar(x, value):
    """A rank-0 constant of x's dtype."""
    return _tensor._scalar_constant(value, x._dtype, "frontend")


def strides(shape):
    """Row-major strides (in elements) of a shape."""
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= d
    return out[::-1]


def index_in_range(index, size):
    """An int64 index tensor along an axis of `size`: a negative index counts
    from the end; one still outside [0, size) is clamped, as jeet.take
    clamps."""
    zero = _scalar(index, 0)
    index = _tensor.where(_tensor.lt(index, zero),
                          _tensor.add(index, _scalar(index, size)), index)
    return _tensor.minimum(_tensor.maximum(index, zero), _scalar(index, size - 1))


def int64(index):
    return index if index._dtype == "i64" else _tensor.cast(index, "int64")


def flat_index(terms):
    """The flat (int64) index of several indices into a row-major block: the
    sum of each index, wrapped and clamped to its size (index_in_range),
    times its step; `terms` is a list of (index, size, step)."""
    flat = None
    for index, size, step in terms:
        term = index_in_range(int64(index), size)
        if step != 1:
            term = _tensor.mul(term, _scalar(term, step))
        flat = term if flat is None else _tensor.add(flat, term)
    return flat


def gather_along(data, index, axis):
    """out[i, j, k] = data[i, index[i, j, k], k] (axis 1): ONNX's
    GatherElements, torch.gather, numpy.take_along_axis without
    broadcasting. index has data's rank and no larger size than data in the
    other dimensions; its values wrap when negative and are clamped to the
    axis. One jeet.take of the flattened data at the flat index: index *
    stride(axis) plus every other coordinate (an iota) times its stride."""
    step = strides(data.shape)
    flat = index_in_range(int64(index), data.shape[axis])
    if step[axis] != 1:
        flat = _tensor.mul(flat, _scalar(flat, step[axis]))
    for d in range(data.ndim):
        if d == axis or index.shape[d] == 1:
            continue
        coordinate = _tensor.iota(index.shape, axis=d, dtype="int64")
        if step[d] != 1:
            coordinate = _tensor.mul(coordinate, _scalar(coordinate, step[d]))
        flat = _tensor.add(flat, coordinate)
    return _tensor.take(_tensor.reshape(data, (data.size,)), flat, 0)


def flip(x, axis):
    slices = [slice(None)] * x.ndim
    slices[axis] = slice(None, None, -1)
    return x[tuple(slices)]


def shifted(x, axis, shift, fill=0):
    """x moved `shift` places toward the end of `axis`, `fill` entering."""
    size = x.shape[axis]
    if shift >= size:
        return _tensor.broadcast_to(_scalar(x, fill), x.shape)
    slices = [slice(None)] * x.ndim
    slices[axis] = slice(0, size - shift)
    widths = [[0, 0] for _ in range(x.ndim)]
    widths[axis] = [shift, 0]
    return _tensor.pad(x[tuple(slices)], widths, fill)


def scan(x, axis, combine, identity, exclusive=False, reverse=False):
    """The inclusive scan of x along `axis` with `combine` (jeet.add: a
    cumulative sum; jeet.mul: a product), as a Hillis-Steele scan: after the
    round of shift s (1, 2, 4, ...) each element holds the combination of
    the 2s elements up to it, so ceil(log2(size)) rounds of a shifted
    combine. `identity` (0 for a sum, 1 for a product) enters at the start.
    reverse scans the flipped axis; exclusive scans the input shifted by
    one. Float results are combined in another order than the sequential
    reference: equal to rounding."""
    size = x.shape[axis]
    if reverse:
        x = flip(x, axis)
    if exclusive:
        x = shifted(x, axis, 1, identity)
    shift = 1
    while shift < size:
        x = combine(x, shifted(x, axis, shift, identity))
        shift *= 2
    return flip(x, axis) if reverse else x
