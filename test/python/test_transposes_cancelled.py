"""Transposes that meet their inverse through elementwise ops and reshapes
(jeet-cancel-transposes): both go, and the values stay what numpy computes
in float64; a path the pass must leave alone keeps its transposes."""

import numpy as np
import pytest

import jeet


def t(x):
    return jeet.tensor(x, device="cpu")


def transposes_in(value):
    return jeet.compile(value).ir("fused").count("jeet.transpose")


@pytest.mark.parametrize("case", range(12))
def test_random_paths_cancel(rng, case):
    """x (rank 3 or 4) transposed by a random permutation, plus a bias along
    one random dimension, exp or relu, then one dimension split in two
    (every other case, where one is 4 or 6), and the transpose that puts
    the dimensions back in x's order: no transpose is left and the result
    is numpy's."""
    rank = 3 + case % 2
    shape = [int(v) for v in rng.choice([2, 3, 4, 6], size=rank)]
    perm = [int(v) for v in rng.permutation(rank)]
    while perm == list(range(rank)):
        perm = [int(v) for v in rng.permutation(rank)]
    x = rng.standard_normal(shape).astype(np.float32)
    tshape = [shape[p] for p in perm]
    axis = int(rng.integers(rank))
    bshape = [1] * rank
    bshape[axis] = tshape[axis]
    b = rng.standard_normal(bshape).astype(np.float32)

    y = jeet.transpose(t(x), perm) + t(b)
    want = np.transpose(x.astype(np.float64), perm) + b
    if case % 3 == 0:
        y, want = jeet.exp(y), np.exp(want)
    else:
        y, want = jeet.relu(y), np.maximum(want, 0)
    # Each dimension of the result labelled by the x dimension it comes
    # from (and its part, after a split); the inverse orders the labels.
    labels = [(p, 0) for p in perm]
    # (Not into a 1: a unit dimension belongs to either neighbour, and the
    # pass groups it as MLIR's reassociation does, which the labels here
    # need not.)
    splittable = [i for i, d in enumerate(tshape) if d % 2 == 0 and d > 2]
    if case % 2 == 0 and splittable:
        i = splittable[int(rng.integers(len(splittable)))]
        split = tshape[:i] + [2, tshape[i] // 2] + tshape[i + 1:]
        y, want = jeet.reshape(y, split), want.reshape(split)
        labels = labels[:i] + [(labels[i][0], 0), (labels[i][0], 1)] + labels[i + 1:]
    inverse = sorted(range(len(labels)), key=lambda k: labels[k])
    out = jeet.transpose(y, inverse)
    want = np.transpose(want, inverse)
    assert transposes_in(out) == 0, jeet.compile(out).ir("fused")
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-6, atol=1e-6)


def test_merged_dimensions_cancel(rng):
    """(N, positions, C) transposed to (N, C, positions), split into
    (N, C, H, W), a bias per channel, merged back after the transpose to
    (N, H, W, C): the path of a convolution computed transposed into a
    channels-last one and back; no transpose left, numpy's values."""
    x = rng.standard_normal((2, 12, 8)).astype(np.float32)
    b = rng.standard_normal((8, 1, 1)).astype(np.float32)
    y = jeet.reshape(jeet.transpose(t(x), [0, 2, 1]), (2, 8, 3, 4)) + t(b)
    out = jeet.reshape(jeet.transpose(jeet.relu(y), [0, 2, 3, 1]), (2, 12, 8))
    want = np.maximum(x.astype(np.float64) + b.reshape(1, 1, 8), 0)
    assert transposes_in(out) == 0, jeet.compile(out).ir("fused")
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-6, atol=1e-6)


def test_readers_that_join_cancel(rng):
    """A hardswish after the bias (x * relu6(x + 3) / 6 reads x twice) and
    a square: the readers join again before the inverse transpose, so both
    transposes go; numpy's values."""
    x = rng.standard_normal((2, 9, 16)).astype(np.float32) * 4
    b = rng.standard_normal((16, 1)).astype(np.float32)
    y = jeet.transpose(t(x), [0, 2, 1]) + t(b)
    h = y * jeet.minimum(jeet.relu(y + 3.0), 6.0) / 6.0
    out = jeet.reshape(jeet.transpose(jeet.reshape(h * h, (2, 16, 3, 3)), [0, 2, 3, 1]),
                       (2, 9, 16))
    y64 = x.astype(np.float64) + b.reshape(1, 1, 16)
    h64 = y64 * np.minimum(np.maximum(y64 + 3, 0), 6) / 6
    assert transposes_in(out) == 0, jeet.compile(out).ir("fused")
    np.testing.assert_allclose(out.numpy(), h64 * h64, rtol=1e-5, atol=1e-6)


def test_paths_left_alone(rng):
    """A second reader of the biased value, and an operand with two
    dimensions that are not 1: the transposes stay (two each), and the
    values are numpy's."""
    x = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal((5, 1)).astype(np.float32)
    r = rng.standard_normal((5, 3)).astype(np.float32)
    biased = jeet.transpose(t(x), [1, 0]) + t(b)
    back = jeet.transpose(jeet.exp(biased), [1, 0])
    out, also = jeet.execute(back, biased)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(out.numpy(), np.exp(x64 + b.T), rtol=2e-6)
    np.testing.assert_allclose(also.numpy(), x64.T + b, rtol=2e-6)
    mixed = jeet.transpose(jeet.transpose(t(x), [1, 0]) * t(r), [1, 0])
    assert transposes_in(mixed) == 2
    np.testing.assert_allclose(mixed.numpy(), x64 * r.T, rtol=2e-6)
