"""Defined behaviour at the edges (docs/Reliability.md), each case run two
ways: its inputs as graph arguments (computed at run time) and as
jeet.constant (folded at compile time). Both must give the documented values,
bit for bit."""
import numpy as np
import pytest

from jeetrun import mlir_type, run_graph

INT_MIN, INT_MAX = -2**31, 2**31 - 1

# (name, op text with %x/%y, inputs, expected output)
CASES = [
    ("div_i32_by_zero_and_overflow",
     "jeet.div %x, %y : {t0}, {t1} -> {t0}",
     [np.array([7, -7, 0, INT_MIN, INT_MIN, 5, INT_MAX], np.int32),
      np.array([0, 0, 0, -1, 1, -2, -1], np.int32)],
     np.array([-1, -1, -1, INT_MIN, INT_MIN, -2, -INT_MAX], np.int32)),
    ("cast_f32_to_i32_saturates",
     "jeet.cast %x : {t0} -> {out}",
     [np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 2147483520.0,
                2147483648.0, -2147483648.0, 3.7, -3.7, -0.0], np.float32)],
     np.array([0, INT_MAX, INT_MIN, INT_MAX, INT_MIN, 2147483520, INT_MAX,
               INT_MIN, 3, -3, 0], np.int32)),
    ("cast_f16_to_i32_saturates",
     "jeet.cast %x : {t0} -> {out}",
     [np.array([np.nan, np.inf, -np.inf, 65504, -2.5], np.float16)],
     np.array([0, INT_MAX, INT_MIN, 65504, -2], np.int32)),
    ("cast_i32_to_f16_rounds_to_inf",
     "jeet.cast %x : {t0} -> {out}",
     [np.array([100000, -100000, 65519, 3], np.int32)],
     np.array([np.inf, -np.inf, 65504, 3], np.float16)),
    ("neg_abs_int_min_wrap",
     "jeet.abs %x : {t0}",
     [np.array([INT_MIN, -5, INT_MAX], np.int32)],
     np.array([INT_MIN, 5, INT_MAX], np.int32)),
    ("add_i32_wraps",
     "jeet.add %x, %y : {t0}, {t1} -> {t0}",
     [np.array([INT_MAX, INT_MIN], np.int32), np.array([1, -1], np.int32)],
     np.array([INT_MIN, INT_MAX], np.int32)),
    ("relu_nan_and_negative_zero",
     "jeet.relu %x : {t0}",
     [np.array([np.nan, -0.0, -1.0, 2.0], np.float32)],
     np.array([np.nan, 0.0, 0.0, 2.0], np.float32)),
    ("reduce_sum_empty_axis",
     "jeet.reduce_sum %x {{axes = array<i64: 1>}} : {t0} -> {out}",
     [np.zeros((3, 0), np.float32)], np.zeros(3, np.float32)),
    ("reduce_max_empty_axis",
     "jeet.reduce_max %x {{axes = array<i64: 1>}} : {t0} -> {out}",
     [np.zeros((3, 0), np.float32)], np.full(3, -np.inf, np.float32)),
    ("reduce_mean_empty_axis",
     "jeet.reduce_mean %x {{axes = array<i64: 1>}} : {t0} -> {out}",
     [np.zeros((3, 0), np.float32)], np.full(3, np.nan, np.float32)),
    ("reduce_max_i32_empty_axis",
     "jeet.reduce_max %x {{axes = array<i64: 0>}} : {t0} -> {out}",
     [np.zeros((0, 2), np.int32)], np.full(2, INT_MIN, np.int32)),
    ("matmul_over_empty_k",
     "jeet.matmul %x, %y : {t0}, {t1} -> {out}",
     [np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32)],
     np.zeros((2, 3), np.float32)),
    ("elementwise_of_empty",
     "jeet.exp %x : {t0}",
     [np.zeros((0, 5), np.float32)], np.zeros((0, 5), np.float32)),
    ("broadcast_against_empty",
     "jeet.add %x, %y : {t0}, {t1} -> {out}",
     [np.zeros((4, 0), np.float32), np.ones((4, 1), np.float32)],
     np.zeros((4, 0), np.float32)),
]


def literal(array):
    """A dense attribute of exactly these values (bit patterns for floats)."""
    flat = array.reshape(-1)
    if array.dtype.kind == "f":
        bits = flat.view({2: np.uint16, 4: np.uint32}[array.itemsize])
        items = [f"0x{int(b):0{array.itemsize * 2}X}" for b in bits]
    else:
        items = [str(int(v)) for v in flat]
    if array.size == 0:
        return "dense<>"
    nested = np.array(items, dtype=object).reshape(array.shape)
    text = np.array2string(nested, separator=", ", threshold=10**6,
                           formatter={"all": str})
    return f"dense<{text}>" if array.ndim else f"dense<{items[0]}>"


def graph(op, inputs, expected, constant):
    types = {f"t{i}": mlir_type(a.shape, a.dtype) for i, a in enumerate(inputs)}
    types["out"] = mlir_type(expected.shape, expected.dtype)
    body = op.format(**types)
    names = ["%x", "%y"][:len(inputs)]
    if constant:
        lines = [f"  {n} = jeet.constant {literal(a)} : {types[f't{i}']}"
                 for i, (n, a) in enumerate(zip(names, inputs))]
        params = ""
    else:
        lines = []
        params = ", ".join(f"{n}: {types[f't{i}']}" for i, n in enumerate(names))
    return (f"func.func @main({params}) -> {types['out']} {{\n" + "\n".join(lines)
            + f"\n  %r = {body}\n  return %r : {types['out']}\n}}\n")


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        # NaN payloads aside, every bit.
        both_nan = np.isnan(a) & np.isnan(b)
        return bool(np.all(both_nan | (a.view(f"u{a.itemsize}") ==
                                       b.view(f"u{b.itemsize}"))))
    return bool(np.array_equal(a, b))


@pytest.mark.parametrize("name,op,inputs,expected", CASES,
                         ids=[c[0] for c in CASES])
@pytest.mark.parametrize("fuse", ["--fuse=true", "--fuse=false"])
def test_edge_case_folded_and_at_run_time(tmp_path, name, op, inputs, expected,
                                          fuse):
    (runtime,) = run_graph(tmp_path, graph(op, inputs, expected, False),
                           inputs, [fuse])
    (folded,) = run_graph(tmp_path, graph(op, inputs, expected, True), [],
                          [fuse])
    assert same_bits(runtime, expected), f"{name} at run time: {runtime}"
    assert same_bits(folded, expected), f"{name} folded: {folded}"


def test_constant_read_by_a_kernel_and_returned(run):
    """A reduction over an empty axis folds to a constant (-inf for a max);
    here a kernel reads it (the softmax) and the graph also returns it. On
    the GPU the kernel read the host's copy of the constant (an illegal
    address, which the emulator reported) until jeet-gpu-sink-globals gave
    each launch its own (found by fuzz_graph_builder.py --device gpu)."""
    t, r = mlir_type((0, 2, 4), np.float32), mlir_type((1, 1, 1), np.float32)
    source = (f"func.func @main(%x: {t}) -> ({r}, {r}) {{\n"
              f"  %0 = jeet.reduce_max %x {{axes = array<i64: 0, 1, 2>, "
              f"keepdims = true}} : {t} -> {r}\n"
              f"  %1 = jeet.softmax %0 {{axis = 0 : i64}} : {r}\n"
              f"  return %1, %0 : {r}, {r}\n}}\n")
    softmax, maximum = run(source, [np.zeros((0, 2, 4), np.float32)])
    # exp(-inf - -inf) / exp(-inf - -inf): NaN, as numpy's softmax gives.
    np.testing.assert_array_equal(maximum, np.full((1, 1, 1), -np.inf, np.float32))
    np.testing.assert_array_equal(softmax, np.full((1, 1, 1), np.nan, np.float32))


# Unary ops whose CPU code is a polynomial approximation (or built on one):
# a NaN in must be a NaN out, whether it comes at run time or from a
# constant that only LLVM's folding sees (max(NaN, x) is NaN for any x).
NAN_OPS = ["exp", "log", "tanh", "erf", "sigmoid", "gelu"]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", NAN_OPS + ["softmax"])
def test_nan_through_approximated_functions(run, rng, op, dtype):
    """exp's approximation converts its scaled input to an integer exponent
    (arith.fptosi), which LLVM takes as poison for a NaN: where a NaN
    constant reached it, the whole softmax folded to 0 on the CPU (found by
    comparing the GPU emulator's results with the CPU's on the graph-builder
    fuzzer's programs)."""
    t = mlir_type((2, 13), dtype)
    s = mlir_type((), dtype)
    apply = (f"jeet.softmax %m {{axis = 1 : i64}} : {t}" if op == "softmax"
             else f"jeet.{op} %m : {t}")
    source = (f"func.func @main(%x: {t}, %y: {t}) -> ({t}, {t}) {{\n"
              f"  %nan = jeet.constant dense<0x{'7FC00000' if dtype == np.float32 else '7E00'}> : {s}\n"
              f"  %m = jeet.max %nan, %x : {s}, {t} -> {t}\n"
              f"  %r = {apply}\n"
              f"  %q = {apply.replace('%m', '%y')}\n"
              f"  return %r, %q : {t}, {t}\n}}\n")
    x = rng.uniform(0.5, 2, size=(2, 13)).astype(dtype)
    y = x.copy()
    y[0, 3] = np.nan  # at run time: one NaN (its row, for the softmax)
    from_constant, at_run_time = run(source, [x, y])
    assert np.isnan(from_constant).all(), f"{op}(max(NaN, x)): {from_constant}"
    nan_at = np.zeros((2, 13), bool)
    if op == "softmax":
        nan_at[0, :] = True
    else:
        nan_at[0, 3] = True
    np.testing.assert_array_equal(np.isnan(at_run_time), nan_at,
                                  err_msg=f"{op} of a NaN at run time")
