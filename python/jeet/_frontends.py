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
