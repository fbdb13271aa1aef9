"""What jeet.onnx and jeet.torch share (python/jeet/_frontends.py): the
rewrite that gives a convolution by a bound filter the transposed form the
compiler gives a constant one (prepared_transposed_convolutions), and the
rule it follows."""
import numpy as np
import pytest

import jeet
from jeet import _frontends, _tensor


def _ops(outputs):
    return [node._op for node in _tensor._topo_order(outputs)]


def _conv(rng, hw=6, cin=24, cout=48, k=3, groups=1, filter_kind="bound",
          input_kind="changing"):
    shape = (2, cin, hw, hw)
    if input_kind == "changing":
        x = _tensor.Tensor._new(shape, "f32", "cpu", op="_arg")
    else:
        x = jeet.tensor(rng.standard_normal(shape).astype(np.float32))
    w = rng.standard_normal((cout, cin // groups, k, k)).astype(np.float32)
    w = jeet.tensor(w) if filter_kind == "bound" else _tensor._constant(w, "f32")
    return jeet.conv2d(x, w, padding=k // 2, groups=groups)


@pytest.mark.parametrize("hw, k", [(6, 3), (6, 1), (3, 3), (5, 3)], ids=str)
def test_a_bound_filter_at_few_positions_is_rewritten(rng, hw, k):
    """At 36, 9 and 25 positions (lanes under 80% full) the convolution
    becomes the product of the windows by the filter's (K, O) transpose,
    which then depends on the filter alone: the frontier that the
    frontends prepare once holds it."""
    y = _conv(rng, hw=hw, k=k)
    (z,) = _frontends.prepared_transposed_convolutions([y])
    ops = _ops([z])
    assert "jeet.conv2d" not in ops and "jeet.matmul" in ops, ops
    frontier, _ = _frontends.static_frontier([z])
    assert [f._op for f in frontier] == ["jeet.transpose"], frontier
    assert frontier[0].shape == (24 * k * k, 48)


@pytest.mark.parametrize("case", [
    dict(hw=8), dict(groups=2), dict(filter_kind="constant"),
    dict(input_kind="static"), dict(cout=8),
], ids=str)
def test_other_convolutions_are_left_as_they_are(rng, case):
    """Not at 64 positions (whole vectors), grouped, by a constant filter
    (the compiler's own), of an input known now (all of it prepared), or
    with too few output channels: the same DAG back."""
    y = _conv(rng, **case)
    (z,) = _frontends.prepared_transposed_convolutions([y])
    assert z is y
