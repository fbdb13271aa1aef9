"""What jeet.onnx and jeet.torch share (python/jeet/_frontends.py): the
rewrite that gives a convolution by a bound filter the transposed form the
compiler gives a constant one (prepared_weight_forms), and the
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
    (z,) = _frontends.prepared_weight_forms([y])
    ops = _ops([z])
    assert "jeet.conv2d" not in ops and "jeet.matmul" in ops, ops
    frontier, _ = _frontends.static_frontier([z])
    assert [f._op for f in frontier] == ["jeet.transpose"], frontier
    assert frontier[0].shape == (24 * k * k, 48)


@pytest.mark.parametrize("groups", [2, 3])
def test_a_grouped_bound_filter_at_few_positions_is_rewritten(rng, groups):
    """Grouped (ResNeXt's, RegNet's) with 16 or more output channels a
    group: each group's product of its windows by its filter's transpose,
    (g, K / g, O / g), which depends on the filter alone."""
    y = _conv(rng, groups=groups)
    (z,) = _frontends.prepared_weight_forms([y])
    ops = _ops([z])
    assert "jeet.conv2d" not in ops and "jeet.matmul" in ops, ops
    frontier, _ = _frontends.static_frontier([z])
    assert [f._op for f in frontier] == ["jeet.transpose"], frontier
    assert frontier[0].shape == (groups, 24 // groups * 9, 48 // groups)


@pytest.mark.parametrize("case", [
    dict(hw=8), dict(groups=4), dict(groups=24, cout=24), dict(filter_kind="constant"),
    dict(input_kind="static"), dict(cout=8),
], ids=str)
def test_other_convolutions_are_left_as_they_are(rng, case):
    """Not at 64 positions (whole vectors), grouped with 12 output channels
    a group, depthwise, by a constant filter (the compiler's own), of an
    input known now (all of it prepared), or with too few output channels:
    the same DAG back."""
    y = _conv(rng, **case)
    (z,) = _frontends.prepared_weight_forms([y])
    assert z is y


@pytest.mark.parametrize("cout, batch, hw", [
    (1024, 1, 3), (1100, 1, 3), (1024, 2, 3), (1024, 2, 2),
], ids=str)
def test_a_filter_read_by_few_rows_is_prepared_in_panels(rng, cout, batch, hw):
    """At 9 positions of one image (or 4 of two) by a filter of 256 or more
    output channels (its transpose's rows 1 KiB or more apart), the
    prepared value is the filter in panels of 64 columns, (ceil(O / 64), K,
    64), the last one padded with zeros, and the product a batch of panels;
    two images at 9 positions are 18 rows, which read the transpose."""
    y = _conv(rng, hw=hw, cin=16, cout=cout, k=3, batch=batch)
    (z,) = _frontends.prepared_weight_forms([y])
    assert z.shape == y.shape
    frontier, _ = _frontends.static_frontier([z])
    (prepared,) = frontier
    ops = _ops([z])
    assert "jeet.conv2d" not in ops and ops.count("jeet.matmul") == 1, ops
    if batch * hw * hw >= 16:
        assert prepared.shape == (16 * 9, cout), prepared.shape
        return
    assert prepared.shape == (-(-cout // 64), 16 * 9, 64), prepared.shape
    # The filter's columns padded to whole panels where O needs it.
    assert ("jeet.pad" in _ops([prepared])) == (cout % 64 != 0), _ops([prepared])


def _placeholder(shape):
    return _tensor.Tensor._new(shape, "f32", "cpu", op="_arg")


@pytest.mark.parametrize("a_shape, n", [
    ((1, 512), 1024), ((3, 5, 256), 1100), ((768,), 3072), ((63, 128), 1024),
], ids=str)
def test_a_bound_matrix_read_by_few_rows_is_prepared_in_panels(rng, a_shape, n):
    """x @ W for x of fewer than 64 rows (a vector, a batch of them) and a
    bound W of 256 or more columns: W prepared in panels, the product a
    batch of panels moved back to x's rows."""
    x = _placeholder(a_shape)
    w = jeet.tensor(rng.standard_normal((a_shape[-1], n)).astype(np.float32))
    y = jeet.matmul(x, w)
    (z,) = _frontends.prepared_weight_forms([y])
    assert z.shape == y.shape
    (prepared,) = _frontends.static_frontier([z])[0]
    assert prepared.shape == (-(-n // 64), a_shape[-1], 64), prepared.shape


@pytest.mark.parametrize("case", ["64 rows", "no rows", "narrow", "constant", "changing B"])
def test_other_products_are_left_as_they_are(rng, case):
    """64 rows or more (the matmul pass packs B itself), none, a B of fewer
    than 256 columns, a constant B (the compiler's panels) or a B that
    changes: the same DAG back."""
    rows = {"64 rows": 64, "no rows": 0}.get(case, 4)
    n = 200 if case == "narrow" else 1024
    x = _placeholder((rows, 128))
    w = rng.standard_normal((128, n)).astype(np.float32)
    w = {"constant": lambda: _tensor._constant(w, "f32"),
         "changing B": lambda: _placeholder((128, n))}.get(case, lambda: jeet.tensor(w))()
    y = jeet.matmul(x, w)
    (z,) = _frontends.prepared_weight_forms([y])
    assert z is y
