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
          input_kind="changing", batch=2):
    shape = (batch, cin, hw, hw)
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


@pytest.mark.parametrize("cout, batch", [(1024, 1), (1100, 1), (1024, 2)], ids=str)
def test_a_filter_read_by_few_rows_is_prepared_in_panels(rng, cout, batch):
    """At 9 positions by a filter of 1,024 or more output channels (its
    transpose's rows a page apart), the prepared value is the filter in
    panels of 64 columns, (ceil(O / 64), K, 64), the last one padded with
    zeros, and the product a batch of panels."""
    y = _conv(rng, hw=3, cin=16, cout=cout, k=3, batch=batch)
    (z,) = _frontends.prepared_transposed_convolutions([y])
    assert z.shape == y.shape
    frontier, _ = _frontends.static_frontier([z])
    (packed,) = frontier
    assert packed.shape == (-(-cout // 64), 16 * 9, 64), packed.shape
    ops = _ops([z])
    assert "jeet.conv2d" not in ops and ops.count("jeet.matmul") == 1, ops
    # The filter's columns padded to whole panels where O needs it.
    assert ("jeet.pad" in _ops([packed])) == (cout % 64 != 0), _ops([packed])
