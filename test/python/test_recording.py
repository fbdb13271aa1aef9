"""Recording an op the process has seen before (_jeet.record, the C++ side of
jeet._tensor._node's memo): the lazy tensor it makes is the one _node makes,
it declines (None) wherever _node has more to do, and recording works the
same without it."""

import numpy as np
import pytest

import jeet
from jeet import _tensor
from jeet.errors import ShapeError
from conftest import requires_gpu

_record = _tensor._jeet.record

SLOTS = ("_rt", "_op", "_inputs", "_attrs", "_shape", "_dtype", "_device",
         "_source", "_key")


def t(array, dtype=None):
    return jeet.tensor(array, dtype=dtype or array.dtype, device="cpu")


def assert_same_node(got, want):
    assert type(got) is _tensor.Tensor
    for name in SLOTS:
        g, w = getattr(got, name), getattr(want, name)
        if name == "_inputs":
            assert [id(x) for x in g] == [id(x) for x in w]
            assert type(g) is tuple
        else:
            assert g == w, name


SHAPES = [((5, 3), (5, 3)), ((5, 3), (3,)), ((1, 3), (4, 1)), ((), (2, 2)),
          ((7,), ())]
DTYPES = ["float32", "float16", "bfloat16", "int32", "int64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_record_makes_the_node_of_node(rng, dtype):
    # Every binary op and operator on random broadcast shapes, every unary op
    # the dtype takes: the second recording (a memo hit) comes from C++ and
    # is slot for slot the node _node makes.
    binary = ["add", "sub", "mul", "maximum", "minimum", "eq", "ne", "lt",
              "le", "gt", "ge"]
    if dtype.startswith("int"):
        binary += ["bitwise_and", "bitwise_or", "bitwise_xor"]
    for xs, ys in SHAPES:
        x = t(rng.standard_normal(xs) * 4, dtype)
        y = t(rng.standard_normal(ys) * 4, dtype)
        for opname in binary:
            op = _tensor._BINARY_OPS.get(opname) or _tensor._COMPARISONS[opname]
            want = _tensor._node(opname, op, (x, y))
            got = _record(op, x, y)
            assert got is not None, opname
            assert_same_node(got, want)
            assert_same_node(getattr(jeet, opname)(x, y), want)
    operators = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
                 "mul": lambda a, b: a * b, "eq": lambda a, b: a == b,
                 "lt": lambda a, b: a < b, "ge": lambda a, b: a >= b}
    for opname, apply in operators.items():
        op = _tensor._BINARY_OPS.get(opname) or _tensor._COMPARISONS[opname]
        want = _tensor._node(opname, op, (x, y))
        assert_same_node(apply(x, y), want)
    unary = ["neg", "abs", "relu"] + ([] if dtype.startswith("int") else
                                      ["exp", "tanh", "sqrt", "sigmoid"])
    for opname in unary:
        op = _tensor._UNARY_OPS[opname]
        want = _tensor._node(opname, op, [x])
        got = _record(op, x)
        assert got is not None, opname
        assert_same_node(got, want)
        assert_same_node(getattr(jeet, opname)(x), want)


def test_record_declines_where_node_has_more_to_do(rng, monkeypatch):
    monkeypatch.setattr(_tensor, "_INFERRED", {})  # no entry from other tests
    a = t(rng.standard_normal((4, 3)).astype(np.float32))
    b = t(rng.standard_normal((4, 3)).astype(np.float32))
    add = _tensor._BINARY_OPS["add"]
    a + b  # the memo knows add on two (4, 3) float32 tensors now
    assert _record(add, a, b) is not None
    # A memo miss: a shape or an op it has not seen.
    c = t(rng.standard_normal((4, 5)).astype(np.float32))
    assert _record(add, c, c) is None
    assert _record("jeet.no_such_op", a, b) is None
    # Operands of two dtypes (promotion), bool operands (logic), a constant
    # anything not a Tensor.
    i = t(np.arange(12, dtype=np.int32).reshape(4, 3))
    assert _record(add, a, i) is None
    p = t(rng.standard_normal((4, 3)) > 0)
    p & p
    assert _record(_tensor._BINARY_OPS["bitwise_and"], p, p) is None
    constant = _tensor._constant(np.ones((4, 3), np.float32), "f32")
    assert constant._device is None
    # A constant (no device) joins its operand's device, as in _node.
    assert_same_node(_record(add, a, constant),
                     _tensor._node("add", add, (a, constant)))
    assert_same_node(_record(add, constant, a),
                     _tensor._node("add", add, (constant, a)))
    assert _record(add, a, constant)._device == "cpu"
    assert _record(add, a, np.ones((4, 3), np.float32)) is None
    # Even where the memo has the op on those operands (_node records what
    # it is given; _binary promotes first, and turns + of bools into |).
    monkeypatch.setitem(_tensor._INFERRED,
                        (add, a._shape, "f32", i._shape, "i32", ()),
                        ((4, 3), "f32", 1))
    monkeypatch.setitem(_tensor._INFERRED,
                        (add, p._shape, "i1", p._shape, "i1", ()),
                        ((4, 3), "i1", 1))
    assert _record(add, a, i) is None
    assert _record(add, p, p) is None
    assert (p + p).numpy().dtype == np.bool_
    assert _record(add, np.ones((4, 3), np.float32), a) is None
    assert _record(add, a, b, a) is None  # add has no three-operand form
    with pytest.raises(TypeError, match="one to three operands"):
        _record(add)
    with pytest.raises(TypeError, match="one to three operands"):
        _record(add, a, a, a, a)


def test_record_of_three_operands_makes_the_node_of_node(rng):
    # jeet.where's common case (jeet.select): the memo's general form, slot
    # for slot _node's node; a constant (no device) joins the others' device.
    x = t(rng.standard_normal((5, 3)).astype(np.float32))
    y = t(rng.standard_normal((3,)).astype(np.float32))
    c = x > y
    want = _tensor._node("where", "jeet.select", (c, x, y))
    got = _record("jeet.select", c, x, y)
    assert got is not None
    assert_same_node(got, want)
    assert_same_node(jeet.where(c, x, y), want)
    np.testing.assert_array_equal(
        want.numpy(), np.where(c.numpy(), x.numpy(), y.numpy()))
    half = _tensor._scalar_constant(0.5, "f32", "where")
    assert half._device is None
    want = _tensor._node("where", "jeet.select", (c, half, y))
    assert_same_node(_record("jeet.select", c, half, y), want)
    assert want._device == "cpu"
    # Declines: an operand that is no Tensor, operand types not seen.
    assert _record("jeet.select", c, x.numpy(), y) is None
    assert _record("jeet.select", c, y, x) is None


def test_record_reads_the_memo_the_module_holds_now(rng, monkeypatch):
    # A fresh memo (tests replace it) is what record reads: no hit from the
    # old one.
    a = t(rng.standard_normal((2, 9)).astype(np.float32))
    add = _tensor._BINARY_OPS["add"]
    a + a
    assert _record(add, a, a) is not None
    monkeypatch.setattr(_tensor, "_INFERRED", {})
    assert _record(add, a, a) is None
    a + a
    assert _record(add, a, a) is not None
    monkeypatch.setattr(_tensor, "_INFERRED", None)
    assert _record(add, a, a) is None


def test_results_of_recorded_graphs(rng):
    # The graphs recorded through record (the second definition onwards)
    # compute what float64 NumPy does, operators and functions mixed with
    # the cases record leaves to _node (scalars, promotion of float16, bools).
    for _ in range(3):
        x = rng.standard_normal((6, 5)).astype(np.float32)
        y = rng.standard_normal((5,)).astype(np.float32)
        n = rng.standard_normal((6, 5)).astype(np.float16)
        a, b, i = t(x), t(y), t(n)
        out = jeet.relu(jeet.maximum(a * b - a, -b) + 0.5)
        out = jeet.where((a > b) & (a < 1.0), out, jeet.abs(-out) + i)
        got = out.numpy()
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        ref = np.maximum(np.maximum(x64 * y64 - x64, -y64) + 0.5, 0)
        ref = np.where((x64 > y64) & (x64 < 1.0), ref,
                       np.abs(-ref) + n.astype(np.float64))
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


def test_recording_without_record(rng):
    # Unregistered (as after the interpreter's exit handlers), record
    # declines everything and recording takes _node's path, with the same
    # nodes and results; key_walk reads the slots by name.
    x = rng.standard_normal((3, 4)).astype(np.float32)
    a = t(x)
    with_record = jeet.exp(a * a + a)
    key = _tensor._graph_key([with_record])[0]
    _tensor._jeet.unregister_tensor_type()
    try:
        assert _record(_tensor._BINARY_OPS["add"], a, a) is None
        without = jeet.exp(a * a + a)
        assert _tensor._graph_key([without])[0] == key
        # exp's relative error is its float32 argument's absolute error.
        arg = x.astype(np.float64) ** 2 + x
        np.testing.assert_allclose(
            without.numpy(), np.exp(arg),
            rtol=4 * np.finfo(np.float32).eps * max(1.0, np.abs(arg).max()))
    finally:
        _tensor._jeet.register_tensor_type(_tensor.Tensor, vars(_tensor))
    assert _record(_tensor._BINARY_OPS["add"], a, a) is not None


def test_bad_operands_still_raise_after_a_hit(rng):
    # A hit never hides the errors of the ops around it: shapes that do not
    # broadcast raise from _node, hit or not.
    a = t(rng.standard_normal((4, 3)).astype(np.float32))
    b = t(rng.standard_normal((4, 5)).astype(np.float32))
    a + a
    for _ in range(2):
        with pytest.raises(ShapeError, match=r"jeet.add: invalid operands "
                           r"\(4, 3\) float32 and \(4, 5\) float32"):
            a + b


class _Axes(list):
    """A list subclass: attrs_key leaves it to _freeze."""


def _python_attrs_key(attrs):
    return tuple(sorted((name, _tensor._freeze(value))
                        for name, value in attrs.items()))


def test_attrs_key_is_the_python_key():
    nan = float("nan")
    values = [0, 1, -7, 2**70, True, False, None, "same", "", 0.0, -0.0, 1.5,
              nan, float("inf"), [], (), [0, 1], (0, 1), [[1, 2], (3,)],
              [True, 1, 1.0], _Axes([1, 2]), np.int64(3), np.float32(-0.0),
              np.arange(6, dtype=np.int32).reshape(2, 3), np.bool_(True),
              [np.int64(1), 2]]
    rng = np.random.default_rng(0)
    for _ in range(300):
        names = rng.choice(["axes", "keepdims", "shape", "value", "b", "a"],
                           size=rng.integers(1, 5), replace=False)
        attrs = {str(n): values[rng.integers(len(values))] for n in names}
        got = _tensor._jeet.attrs_key(attrs, _tensor._freeze)
        assert got == _python_attrs_key(attrs), attrs
        if not any(type(v) is _Axes for v in attrs.values()):
            assert hash(got) == hash(_python_attrs_key(attrs))
    # What the key tells apart: 1 from True from 1.0, 0.0 from -0.0, a list
    # from a tuple.
    key = lambda v: _tensor._jeet.attrs_key({"v": v}, _tensor._freeze)
    distinct = [1, True, 1.0, 0.0, -0.0, [1], (1,), "1", None]
    assert len({key(v) for v in distinct}) == len(distinct)
    assert key(nan) == key(float("nan"))
    with pytest.raises(TypeError, match="attrs_key"):
        _tensor._jeet.attrs_key([("v", 1)], _tensor._freeze)
    with pytest.raises(ZeroDivisionError):
        _tensor._jeet.attrs_key({"v": object()}, lambda v: 1 / 0)


def test_scalar_operands_seen_before(rng):
    # x * 2.0 again takes the known constant and record; the node is the one
    # the first recording made, every value keeps its own constant (-0.0 and
    # 0.0, NaN, ints against floats), and a scalar the dtype cannot hold is
    # refused every time.
    x = rng.standard_normal((3, 5)).astype(np.float32)
    a = t(x)
    for scalar in [2.0, -0.0, 0.0, 3, float("nan"), float("inf")]:
        first = [a * scalar, scalar - a, a < scalar]
        again = [a * scalar, scalar - a, a < scalar]
        for f, g in zip(first, again):
            assert f._key == g._key and f._shape == g._shape
            assert f._dtype == g._dtype and f._device == g._device == "cpu"
            assert f._inputs[0] is g._inputs[0] or f._inputs[1] is g._inputs[1]
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(
                again[0].numpy(), (x.astype(np.float64) * scalar).astype(np.float32))
            np.testing.assert_array_equal(
                again[1].numpy(), (scalar - x.astype(np.float64)).astype(np.float32))
            np.testing.assert_array_equal(again[2].numpy(), x < scalar)
    assert (a * 0.0)._inputs[1]._key != (a * -0.0)._inputs[1]._key
    # 3 and 3.0 on a float32 tensor are one constant (its key is its value).
    assert (a * 3)._inputs[1]._key == (a * 3.0)._inputs[1]._key
    i = t(np.arange(6, dtype=np.int32))
    for _ in range(2):
        with pytest.raises(jeet.ArgumentError, match="not an integer"):
            i * 2.5
        with pytest.raises(jeet.ArgumentError):
            i + 2**40
    np.testing.assert_array_equal((i + 7).numpy(), np.arange(6) + 7)
    p = t(x > 0)
    for _ in range(2):  # bool with an int: int64, as NumPy (not a hit)
        np.testing.assert_array_equal((p + 1).numpy(), (x > 0) + 1)
        assert (p + 1).dtype == "int64" and (p + True).dtype == "bool"


def test_shapes_and_axes_fast_and_slow(rng):
    # Python ints take the short paths; NumPy ints, -1 and bad values the
    # checked ones, with the same results and errors.
    x = rng.standard_normal((4, 6)).astype(np.float32)
    a = t(x)
    for shape in [(6, 4), [3, 8], (np.int64(2), 12), (-1, 3), 24]:
        np.testing.assert_array_equal(a.reshape(shape).numpy(),
                                      x.reshape(shape))
    for bad in [(5, 5), (True, 24), (2.0, 12), (-1, -1)]:
        with pytest.raises((jeet.ArgumentError, ShapeError)):
            a.reshape(bad)
    for axis in [0, 1, -1, -2, np.int64(1), (0, 1), [1]]:
        np.testing.assert_allclose(
            a.sum(axis=axis).numpy(),
            x.astype(np.float64).sum(axis=tuple(np.atleast_1d(axis))),
            rtol=1e-5, atol=1e-5)
    for bad in [2, -3, True]:
        with pytest.raises((jeet.ArgumentError, ShapeError),
                           match="out of range|axes must be ints"):
            a.sum(axis=bad)


def test_record_attributed_makes_the_node_of_node(rng, monkeypatch):
    # One operand with attributes (reductions, transposes) or a result type
    # (reshapes, casts): the second
    # recording comes from C++ and is slot for slot _node's node, its
    # attributes the dict given. A memo of its own: no entry from other
    # tests.
    monkeypatch.setattr(_tensor, "_INFERRED", {})
    _record_attributed = _tensor._jeet.record_attributed
    x = t(rng.standard_normal((3, 4, 5)).astype(np.float32))
    cases = [("sum", "jeet.reduce_sum", {"axes": [1], "keepdims": False}),
             ("max", "jeet.reduce_max", {"axes": [0, 2], "keepdims": True}),
             ("transpose", "jeet.transpose", {"permutation": [2, 0, 1]})]
    for opname, op, attrs in cases:
        want = _tensor._node(opname, op, [x], dict(attrs))
        key = _tensor._attrs_key(attrs)
        got = _record_attributed(op, x, key, attrs, None)
        assert got is not None, opname
        assert_same_node(got, want)
        assert got._attrs is attrs
        # Another attribute value is another memo entry: a miss first.
        other = dict(attrs, keepdims=not attrs.get("keepdims", True))
        assert _record_attributed(op, x, _tensor._attrs_key(other),
                                  other, None) is None
    np.testing.assert_allclose(
        x.sum(axis=1).numpy(), x.numpy().astype(np.float64).sum(axis=1),
        rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(jeet.transpose(x, (2, 0, 1)).numpy(),
                                  x.numpy().transpose(2, 0, 1))
    # A result type: a reshape's and a cast's nodes, attributes None.
    for opname, op, result in [("reshape", "jeet.reshape", ((12, 5), "f32")),
                               ("cast", "jeet.cast", ((3, 4, 5), "f16"))]:
        want = _tensor._node(opname, op, [x], result=result)
        got = _record_attributed(op, x, (), None, result)
        assert got is not None, opname
        assert_same_node(got, want)
        assert _record_attributed(op, x, (), None, ((60,), "f32")) is None
    np.testing.assert_array_equal(x.reshape(12, 5).numpy(),
                                  x.numpy().reshape(12, 5))
    with pytest.raises(TypeError, match="record_attributed"):
        _record_attributed("jeet.transpose", x, (), None)


ONE_OPERAND = [
    ("x.sum(axis=1)", lambda x: x.sum(axis=1)),
    ("x.max(axis=-1, keepdims=True)", lambda x: x.max(axis=-1, keepdims=True)),
    ("jeet.mean(x)", lambda x: jeet.mean(x)),
    ("jeet.min(x, 0)", lambda x: jeet.min(x, 0)),
    ("x.T", lambda x: x.T),
    ("x.reshape(6, 4)", lambda x: x.reshape(6, 4)),
    ("x.reshape(-1)", lambda x: x.reshape(-1)),
    ("jeet.reshape(x, (2, -1, 3))", lambda x: jeet.reshape(x, (2, -1, 3))),
    ("x[1]", lambda x: x[1]),
    ("x[:, 1:3]", lambda x: x[:, 1:3]),
    ("x[..., ::-2]", lambda x: x[..., ::-2]),
    ("x[-1, 2:]", lambda x: x[-1, 2:]),
    ("jeet.softmax(x, axis=0)", lambda x: jeet.softmax(x, axis=0)),
]


def assert_same_graph(got, want):
    """Slot for slot, down to the inputs the two share (x[1] is a reshape of
    a slice made anew each time)."""
    for name in SLOTS:
        g, w = getattr(got, name), getattr(want, name)
        if name == "_inputs":
            assert len(g) == len(w) and type(g) is tuple
            for gi, wi in zip(g, w):
                if gi is not wi:
                    assert_same_graph(gi, wi)
        else:
            assert g == w, name


@pytest.mark.parametrize("text,fn", ONE_OPERAND, ids=[c[0] for c in ONE_OPERAND])
def test_memo_of_attributes_makes_the_slow_paths_node(rng, text, fn):
    # Reductions, transposes, reshapes and basic indexing seen before take
    # their attributes from a memo (_ATTRIBUTED, _BASIC_KEYS): the node is
    # slot for slot the one the argument checks build, and computes NumPy's.
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x = t(a)
    _tensor._ATTRIBUTED.clear()
    _tensor._BASIC_KEYS.clear()
    slow = fn(x)
    assert _tensor._ATTRIBUTED or _tensor._BASIC_KEYS, text
    for _ in range(2):
        assert_same_graph(fn(x), slow)
    # Without the C++ recorder the memo's fallback builds the same node.
    record = _tensor._record_attributed
    try:
        _tensor._record_attributed = lambda *args: None
        assert_same_graph(fn(x), slow)
    finally:
        _tensor._record_attributed = record
    np.testing.assert_allclose(slow.numpy(), eval(text, {"x": a, "jeet": _NumPy}),
                               rtol=1e-6, atol=1e-6)


class _NumPy:
    """numpy, and the jeet functions NumPy lacks, for the references."""
    mean = staticmethod(np.mean)
    min = staticmethod(np.min)
    reshape = staticmethod(np.reshape)

    @staticmethod
    def softmax(x, axis):
        e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)


def test_memo_of_attributes_refuses_what_the_checks_refuse(rng):
    # An entry is made only by a call whose checks passed, and is keyed so
    # that no other call finds it: True is no axis 1, another dtype or shape
    # is another entry.
    x = t(rng.standard_normal((4, 6)).astype(np.float32))
    x.sum(axis=1)
    with pytest.raises(jeet.ArgumentError, match="axes must be ints"):
        x.sum(axis=True)
    b = t(np.ones((4, 6), bool))
    assert b.sum(axis=1).dtype == "int64"  # NumPy's count, not the f32 entry
    np.testing.assert_array_equal(b.sum(axis=1).numpy(), np.full(4, 6))
    with pytest.raises(ShapeError, match="needs a float tensor"):
        t(np.ones((4, 6), np.int32)).mean(axis=1)
    x.reshape(6, 4)
    with pytest.raises(ShapeError, match="cannot reshape|invalid"):
        t(np.ones((5, 6), np.float32)).reshape(6, 4)
    with pytest.raises(jeet.ArgumentError):
        x.reshape(6.0, 4)
    x.reshape(-1)
    assert t(np.ones((5, 6), np.float32)).reshape(-1).shape == (30,)
    x.T
    y = t(rng.standard_normal((2, 3, 4)).astype(np.float32))
    assert y.T.shape == (4, 3, 2)
    jeet.softmax(x, axis=1)
    with pytest.raises(jeet.ArgumentError, match="axis must be an int"):
        jeet.softmax(x, axis=True)
    with pytest.raises(ShapeError, match="out of range"):
        jeet.softmax(t(np.ones(6, np.float32)), axis=1)
    x[1]
    with pytest.raises(IndexError, match="out of bounds"):
        t(np.ones((1, 6), np.float32))[1]
    assert t(np.ones((4, 6), bool))[1].dtype == "bool"  # dtype is in the key


@requires_gpu
def test_record_declines_operands_on_different_devices():
    # _node says why (three operands here, as two above): record leaves it.
    g = jeet.tensor(np.ones(4, np.float32), device="gpu")
    h = jeet.tensor(np.ones(4, np.float32), device="cpu")
    c = h > 0
    jeet.where(c, h, h)  # the memo has the types (not the devices)
    h + h
    with pytest.raises(jeet.JeetError, match="operands are on different devices"):
        jeet.where(c, g, h)
    assert _record("jeet.select", c, g, h) is None
    assert _record(_tensor._BINARY_OPS["add"], g, h) is None
