"""Redefined graphs found by their structural key: a graph recorded again
(the same ops on new data) reuses its compiled graph without building or
printing MLIR, and graphs that differ in any op, shape, dtype, attribute,
constant value, wiring or output order never share a key."""

import numpy as np
import pytest

import jeet
from jeet import _tensor
from jeet.errors import ShapeError


def t(array):
    return jeet.tensor(array, dtype=array.dtype if array.dtype != np.float64
                       else np.float32, device="cpu")


def data(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def key_of(*outputs):
    keyed = _tensor._graph_key(list(outputs))
    assert keyed is not None
    return keyed[0]


def test_redefined_graph_hits_by_key_and_builds_no_mlir(rng, monkeypatch):
    def define(a, b):
        return jeet.relu(jeet.tanh(t(a) * t(b) + 1.5) - t(a)).sum(axis=1)

    def reference(a, b):
        a, b = a.astype(np.float64), b.astype(np.float64)
        return np.maximum(np.tanh(a * b + 1.5) - a, 0).sum(axis=1)

    a, b = data(rng, 7, 33), data(rng, 7, 33)
    define(a, b).execute()
    before = jeet.cache_stats()

    # A hit never makes a jeet.Graph (no MLIR built, printed or parsed).
    def no_graph():
        raise AssertionError("a redefined graph was built again")

    monkeypatch.setattr(_tensor._jeet, "Graph", no_graph)
    for _ in range(3):
        a, b = data(rng, 7, 33), data(rng, 7, 33)
        out = define(a, b).execute()
        np.testing.assert_allclose(out.numpy(), reference(a, b), rtol=1e-5,
                                   atol=1e-5)
    after = jeet.cache_stats()
    assert after["key_hits"] == before["key_hits"] + 3
    assert after["cache_hits"] == before["cache_hits"] + 3
    assert after["compilations"] == before["compilations"]
    # The result still knows its graph (compile/explain of a computed tensor).
    assert "jeet.tanh" in jeet.compile(out).graph_text


def test_clear_cache_forgets_keys(rng):
    x = data(rng, 5, 3)
    (t(x) * 4.0 - 1.0).execute()
    before = jeet.cache_stats()
    jeet.clear_cache()
    out = (t(x) * 4.0 - 1.0).execute()
    np.testing.assert_allclose(out.numpy(), x * 4.0 - 1.0, rtol=1e-6)
    after = jeet.cache_stats()
    assert after["compilations"] == before["compilations"] + 1
    assert after["key_hits"] == before["key_hits"]


# Pairs of graphs that differ in exactly one thing. Each builder takes a
# generator and returns (lazy outputs, float64 references).
def _binary(op, ref):
    def build(rng):
        a, b = data(rng, 4, 6), data(rng, 4, 6)
        return [op(t(a), t(b))], [ref(a.astype(np.float64), b)]
    return build


def _shaped(shape):
    def build(rng):
        a = data(rng, *shape)
        return [jeet.exp(t(a)) * 2.0], [np.exp(a.astype(np.float64)) * 2.0]
    return build


def _broadcast(rows):
    def build(rng):
        a, b = data(rng, 4, 6), data(rng, rows, 6)
        return [t(a) + t(b)], [a.astype(np.float64) + b]
    return build


def _typed(dtype):
    def build(rng):
        a = data(rng, 4, 6)
        x = jeet.tensor(a, dtype=dtype, device="cpu")
        stored = x.numpy().astype(np.float64)
        return [(x + x).cast("float32")], [stored + stored]
    return build


def _reduced(axis, keepdims):
    def build(rng):
        a = data(rng, 5, 5)  # square: the result's shape is no clue
        return ([jeet.sum(t(a) * 1.0, axis=axis, keepdims=keepdims)],
                [a.astype(np.float64).sum(axis=axis, keepdims=keepdims)])
    return build


def _transposed(perm):
    def build(rng):
        a = data(rng, 4, 4, 4)
        return ([jeet.transpose(t(a), perm) + 1.0],
                [np.transpose(a.astype(np.float64), perm) + 1.0])
    return build


def _scaled(value, dtype="float32"):
    def build(rng):
        a = data(rng, 4, 6)
        x = jeet.tensor(a, dtype=dtype, device="cpu")
        stored = x.numpy().astype(np.float64)
        return [(x * value).cast("float32")], [stored * value]
    return build


def _divided_by(value):
    def build(rng):
        a = np.abs(data(rng, 4, 6)) + 0.5
        return [t(a) / value], [a.astype(np.float64) / value]
    return build


def _shared(same):
    def build(rng):
        a, b = data(rng, 4, 6), data(rng, 4, 6)
        x, y = t(a), t(b)
        second, ref = (x, a) if same else (y, b)
        return [x * second + 1.0], [a.astype(np.float64) * ref + 1.0]
    return build


def _wired(first):
    def build(rng):
        a, b = data(rng, 4, 6), data(rng, 4, 6)
        x, y = t(a), t(b)
        p = x * y
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        if first:
            return [p - x], [a64 * b64 - a64]
        return [p - y], [a64 * b64 - b64]
    return build


def _outputs(order):
    def build(rng):
        # v reads u: either order visits x, u, v; only the outputs differ.
        a = data(rng, 4, 6)
        x = t(a)
        u = jeet.exp(x)
        v = jeet.neg(u)
        a64 = a.astype(np.float64)
        pairs = [(u, np.exp(a64)), (v, -np.exp(a64))]
        if order:
            pairs.reverse()
        return [p[0] for p in pairs], [p[1] for p in pairs]
    return build


def _reshaped(shape):
    def build(rng):
        a = data(rng, 4, 6)
        return ([jeet.reshape(t(a) + 2.0, shape)],
                [(a.astype(np.float64) + 2.0).reshape(shape)])
    return build


PAIRS = {
    "op": (_binary(jeet.add, np.add), _binary(jeet.sub, np.subtract)),
    "op-max-min": (_binary(jeet.maximum, np.maximum),
                   _binary(jeet.minimum, np.minimum)),
    "shape": (_shaped((4, 6)), _shaped((6, 4))),
    "rank": (_shaped((24,)), _shaped((4, 6))),
    "input-shape": (_broadcast(1), _broadcast(4)),
    "dtype": (_typed("float16"), _typed("bfloat16")),
    "axis": (_reduced(0, False), _reduced(1, False)),
    "keepdims": (_reduced(1, False), _reduced(1, True)),
    "permutation": (_transposed((1, 0, 2)), _transposed((2, 1, 0))),
    "constant": (_scaled(2.0), _scaled(3.0)),
    "constant-sign-of-zero": (_divided_by(0.0), _divided_by(-0.0)),
    "constant-dtype": (_scaled(3.0, "float16"), _scaled(3.0, "bfloat16")),
    "reshape-target": (_reshaped((24,)), _reshaped((6, 4))),
    "shared-input": (_shared(True), _shared(False)),
    "wiring": (_wired(True), _wired(False)),
    "output-order": (_outputs(False), _outputs(True)),
}


def _run(build, rng):
    outputs, refs = build(rng)
    key = key_of(*outputs)
    jeet.execute(*outputs)
    for out, ref in zip(outputs, refs):
        np.testing.assert_allclose(out.numpy().astype(np.float64), ref,
                                   rtol=1e-2, atol=1e-2)
    return key


@pytest.mark.filterwarnings("ignore:divide by zero")
@pytest.mark.parametrize("what", list(PAIRS))
def test_graphs_that_differ_have_different_keys(rng, what):
    first, second = PAIRS[what]
    # The same definition twice: one key.
    assert key_of(*first(rng)[0]) == key_of(*first(rng)[0])
    assert key_of(*second(rng)[0]) == key_of(*second(rng)[0])
    # Executed in turn (each found by its key after the first time), each
    # gives its own answer: a shared key would give one of them the other's
    # compiled graph.
    keys = [_run(build, rng) for build in (first, second, first, second)]
    assert keys[0] != keys[1]
    assert keys[0] == keys[2] and keys[1] == keys[3]


def test_bad_input_is_reported_every_time(rng):
    # Type inference is remembered; its errors are not.
    x, y = t(data(rng, 3, 4)), t(data(rng, 5, 4))
    for _ in range(2):
        with pytest.raises(ShapeError, match="jeet.add"):
            x + y
    i = jeet.tensor(np.arange(6, dtype=np.int32), dtype="int32", device="cpu")
    for _ in range(2):
        with pytest.raises(jeet.ArgumentError, match="not an integer"):
            i * 2.5
    assert ((i * 2).numpy() == np.arange(6) * 2).all()


def _reference_walk(outputs):
    """What _jeet.key_walk computes, written plainly: post order, operands
    first and in order, each node once, materialised tensors as leaves."""
    tokens, index, leaves, devices = [], {}, [], set()

    def visit(node):
        if id(node) in index:
            return True
        if node._rt is not None:
            index[id(node)] = len(index)
            tokens.append((node._shape, node._dtype))
            leaves.append(node)
            devices.add(node._device)
            return True
        for inp in node._inputs:
            if not visit(inp):
                return False
        if node._key is None:
            return False
        index[id(node)] = len(index)
        tokens.append(node._key)
        tokens.extend(index[id(i)] for i in node._inputs)
        if not node._inputs and node._device is not None:
            devices.add(node._device)
        return True

    for out in outputs:
        if not visit(out):
            return None
    return (tuple(tokens), tuple(index[id(o)] for o in outputs), leaves,
            devices - {None})


def _random_dag(rng, leaves, ops):
    """A random DAG over `leaves`: each op reads earlier nodes (shared, and
    the same node twice at times), some with constants and iota."""
    nodes = list(leaves)
    for _ in range(ops):
        kind = rng.integers(6)
        x = nodes[rng.integers(len(nodes))]
        y = nodes[rng.integers(len(nodes))]
        if kind == 0:
            nodes.append(x + y)
        elif kind == 1:
            nodes.append(x * y - x)
        elif kind == 2:
            nodes.append(jeet.exp(x))
        elif kind == 3:
            nodes.append(x * float(rng.integers(3)))
        elif kind == 4:
            nodes.append(jeet.where(x > y, x, y))
        else:
            nodes.append(x + jeet.iota((4, 6), axis=1, dtype="float32"))
    return nodes


def test_key_walk_is_the_reference_walk(rng):
    # Random DAGs, several outputs (some shared, some leaves), and a chain
    # deeper than any recursion limit.
    for trial in range(20):
        leaves = [t(data(rng, 4, 6)) for _ in range(3)]
        nodes = _random_dag(rng, leaves, 30)
        picks = rng.integers(len(nodes), size=rng.integers(1, 4))
        outputs = [nodes[i] for i in picks]
        got = _tensor._jeet.key_walk(outputs)
        want = _reference_walk(outputs)
        assert got[0] == want[0] and got[1] == want[1]
        assert [id(x) for x in got[2]] == [id(x) for x in want[2]]
        assert got[3] == want[3]
    x = t(data(rng, 4, 6))
    y = x
    for _ in range(20000):
        y = y + x
    tokens, numbers, leaves, devices = _tensor._jeet.key_walk([y])
    want = [(x._shape, x._dtype)]
    for i in range(20000):
        want += [y._key, i, 0]
    assert tokens == tuple(want)
    assert numbers == (20000,) and leaves == [x] and devices == {"cpu"}


def test_key_numbers_are_never_reused(rng, monkeypatch):
    # The table of key numbers is cleared when full (here: at every new
    # entry); a number made after that must still be new, else two graphs
    # would share a key.
    monkeypatch.setattr(_tensor, "_MAX_KEY_IDS", 1)
    monkeypatch.setattr(_tensor, "_KEY_IDS", {})
    monkeypatch.setattr(_tensor, "_INFERRED", {})
    monkeypatch.setattr(_tensor, "_BY_KEY", {})
    a, b = data(rng, 4, 6), data(rng, 4, 6)
    for _ in range(2):
        added = t(a) + t(b)
        subtracted = t(a) - t(b)
        assert added._key != subtracted._key
        np.testing.assert_allclose(added.execute().numpy(), a.astype(np.float64) + b,
                                   rtol=1e-6)
        np.testing.assert_allclose(subtracted.execute().numpy(),
                                   a.astype(np.float64) - b, rtol=1e-6)
        _tensor._INFERRED.clear()


def test_large_constants_are_keyed_by_their_values(rng):
    # A constant over _MAX_INTERNED_CONSTANT bytes keeps its values in the
    # key: equal values share a key, one value changed does not.
    a = data(rng, 16, 16)
    c = data(rng, 16, 16)
    assert c.nbytes > _tensor._MAX_INTERNED_CONSTANT
    d = c.copy()
    d[7, 3] += 1.0

    def graph(values):
        return t(a) * _tensor._constant(values, "f32")

    assert key_of(graph(c)) == key_of(graph(c.copy()))
    assert key_of(graph(c)) != key_of(graph(d))
    for values in (c, d, c, d):
        np.testing.assert_allclose(graph(values).execute().numpy(),
                                   a.astype(np.float64) * values, rtol=1e-6)


def test_nodes_without_a_key_are_built_every_time(rng):
    # A node made without its key part (as a frontend's rewrite makes them)
    # gives no key: the graph is built and found by its text, never by a key
    # it would share with another such graph.
    a = data(rng, 4, 6)
    x = t(a)

    def node(op):
        return _tensor.Tensor._new(x._shape, x._dtype, "cpu", op=op, inputs=(x,))

    assert _tensor._graph_key([node("jeet.exp")]) is None
    for op, ref in [("jeet.exp", np.exp), ("jeet.neg", np.negative)] * 2:
        np.testing.assert_allclose(node(op).execute().numpy(),
                                   ref(a.astype(np.float64)), rtol=1e-6)
