"""Matmuls of random shapes on the CPU against a float64 numpy reference:
the paths of jeet-cpu-matmul that fixed shapes reach one at a time (few
rows, B's packed panels with A read in place or, transposed, packed, the
remainder rows and columns, the next-panel fetch where B outgrows half of
L2, batches, a bias and relu in the tiles of an epilogue), in random
combinations. Each case's shape comes from its own seed (printed with the
case: `pytest test/numerics/test_matmul_random_shapes.py -k case_7`); the
inputs are fresh every run (the `rng` fixture prints their seed)."""
import numpy as np
import pytest

from jeetrun import assert_close, mlir_type, run_graph

NUM_CASES = 40
F32 = np.float32


def draw_shape(case):
    r = np.random.default_rng(case)

    def dim(small, large):
        lo, hi = small if r.random() < 0.3 else large
        return int(r.integers(lo, hi))

    return dict(m=dim((1, 20), (60, 400)), k=dim((1, 40), (100, 900)),
                n=dim((1, 70), (120, 700)),
                batch=() if r.random() < 0.6 else (int(r.integers(2, 5)),),
                ta=bool(r.random() < 0.3), tb=bool(r.random() < 0.3),
                epilogue=bool(r.random() < 0.4))


def graph_text(shape):
    m, k, n, batch = shape["m"], shape["k"], shape["n"], shape["batch"]
    rank = len(batch) + 2
    swap = list(range(len(batch))) + [rank - 1, rank - 2]
    perm = ", ".join(map(str, swap))
    a_in = batch + ((k, m) if shape["ta"] else (m, k))
    b_in = batch + ((n, k) if shape["tb"] else (k, n))
    a, b = mlir_type(a_in, F32), mlir_type(b_in, F32)
    out = mlir_type(batch + (m, n), F32)
    args = [f"%a: {a}", f"%b: {b}"]
    lines, lhs, rhs = [], "%a", "%b"
    if shape["ta"]:
        t = mlir_type(batch + (m, k), F32)
        lines.append(f"  %at = jeet.transpose %a {{permutation = array<i64: "
                     f"{perm}>}} : {a} -> {t}")
        lhs, a = "%at", t
    if shape["tb"]:
        t = mlir_type(batch + (k, n), F32)
        lines.append(f"  %bt = jeet.transpose %b {{permutation = array<i64: "
                     f"{perm}>}} : {b} -> {t}")
        rhs, b = "%bt", t
    lines.append(f"  %c = jeet.matmul {lhs}, {rhs} : {a}, {b} -> {out}")
    result = "%c"
    if shape["epilogue"]:
        bias = mlir_type((n,), F32)
        args.append(f"%bias: {bias}")
        lines.append(f"  %s = jeet.add %c, %bias : {out}, {bias} -> {out}")
        lines.append(f"  %r = jeet.relu %s : {out}")
        result = "%r"
    return (f"func.func @main({', '.join(args)}) -> {out} {{\n"
            + "\n".join(lines) + f"\n  return {result} : {out}\n}}\n",
            a_in, b_in)


@pytest.mark.parametrize("case", range(NUM_CASES), ids=lambda c: f"case_{c}")
def test_matmul_random_shape(tmp_path, rng, case):
    shape = draw_shape(case)
    source, a_in, b_in = graph_text(shape)
    a = rng.standard_normal(a_in).astype(F32)
    b = rng.standard_normal(b_in).astype(F32)
    inputs = [a, b]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if shape["ta"]:
        a64 = np.swapaxes(a64, -1, -2)
    if shape["tb"]:
        b64 = np.swapaxes(b64, -1, -2)
    expected = a64 @ b64
    if shape["epilogue"]:
        bias = rng.standard_normal(shape["n"]).astype(F32)
        inputs.append(bias)
        expected = np.maximum(expected + bias, 0.0)
    (out,) = run_graph(tmp_path, source, inputs)
    # f32 sums of k products of standard normals: the sums and their
    # rounding errors grow like sqrt(k) (observed: up to 1.7e-6 sqrt(k)).
    atol = 8e-6 * (np.sqrt(shape["k"]) + 1.0)
    assert_close(out, expected, rtol=1e-5, atol=atol,
                 what=f"case {case}: {shape}")


@pytest.mark.parametrize("m,k,n", [(299, 24, 2064), (601, 24, 4112),
                                   (1000, 40, 2056), (2048, 8, 2048)])
def test_matmul_row_blocks_in_runs(tmp_path, rng, m, k, n):
    """C so wide that a row block holds few register tiles (its rows of C
    in half of L2): more than 8 row blocks, rounded to a multiple of 8, in
    8 runs that each hold their share of the longer blocks (RowBlocks in
    jeet-cpu-matmul). Every row of C is computed once, whatever the runs'
    arithmetic: a row left out or added twice is an error of a whole row's
    magnitude."""
    source, a_in, b_in = graph_text(dict(m=m, k=k, n=n, batch=(), ta=False,
                                         tb=False, epilogue=False))
    a = rng.standard_normal(a_in).astype(F32)
    b = rng.standard_normal(b_in).astype(F32)
    (out,) = run_graph(tmp_path, source, [a, b])
    expected = a.astype(np.float64) @ b.astype(np.float64)
    assert_close(out, expected, rtol=1e-5, atol=8e-6 * (np.sqrt(k) + 1.0),
                 what=f"{m}x{k}x{n}")


@pytest.mark.parametrize("batch,m,k,n,ta,shared_b", [
    (2, 9, 96, 576, True, True),     # a mobile network's pointwise convolution
    (3, 5, 40, 300, False, False),   # panels and the columns left over
    (2, 1, 1024, 200, False, False),  # a batch of matrix-vector products
    (2, 17, 200, 130, True, False),
])
def test_matmul_few_batches_few_rows(tmp_path, rng, batch, m, k, n, ta,
                                     shared_b):
    """Fewer than 4 batches of fewer rows than 4 register tiles: the batches
    and their column panels are one parallel loop, and each batch's columns
    left over a smaller panel after it (jeet-cpu-matmul). A panel computed
    for the wrong batch, or left out, is an error of a whole column's
    magnitude. (Each case has at least 2^17 multiply-adds, the least that
    runs in parallel, and 128 columns or more, two panels of AVX-512's
    register tile.)"""
    a_in = (batch, k, m) if ta else (batch, m, k)
    b_in = (k, n) if shared_b else (batch, k, n)
    a = rng.standard_normal(a_in).astype(F32)
    b = rng.standard_normal(b_in).astype(F32)
    ta_type, b_type = mlir_type(a_in, F32), mlir_type(b_in, F32)
    lhs_type = mlir_type((batch, m, k), F32)
    out = mlir_type((batch, m, n), F32)
    lines = []
    lhs = "%a"
    if ta:
        lines.append(f"  %at = jeet.transpose %a {{permutation = array<i64: "
                     f"0, 2, 1>}} : {ta_type} -> {lhs_type}")
        lhs = "%at"
    lines.append(f"  %c = jeet.matmul {lhs}, %b : {lhs_type}, {b_type} -> {out}")
    source = (f"func.func @main(%a: {ta_type}, %b: {b_type}) -> {out} {{\n"
              + "\n".join(lines) + f"\n  return %c : {out}\n}}\n")
    (got,) = run_graph(tmp_path, source, [a, b])
    a64 = a.astype(np.float64)
    if ta:
        a64 = np.swapaxes(a64, -1, -2)
    expected = a64 @ b.astype(np.float64)
    assert_close(got, expected, rtol=1e-5, atol=8e-6 * (np.sqrt(k) + 1.0),
                 what=f"{batch} x {m}x{k}x{n}")


@pytest.mark.parametrize("batch,m,k,n,tb,epilogue", [
    ((), 9, 320, 100, False, False),   # few rows: column panels
    ((), 9, 96, 70, True, False),      # held transposed, a partial panel
    ((), 130, 200, 150, False, False),  # row blocks
    ((), 70, 64, 90, True, False),
    ((2,), 9, 96, 200, False, False),  # a pointwise convolution at 3 x 3
    ((3,), 2, 40, 130, True, False),
    ((), 64, 128, 256, False, True),   # epilogue tiles, one panel each
    ((), 20, 100, 1000, False, True),  # tiles of 50 columns
    ((), 4, 64, 1000, True, True),
    ((), 32, 64, 192, True, True),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float16],
                         ids=["f32", "f16"])
def test_matmul_constant_rhs(tmp_path, rng, batch, m, k, n, tb, epilogue,
                             dtype):
    """A B that is a constant of the graph (a model's weights): its panels
    are packed by the compiler into a constant of their own (jeet-cpu-matmul,
    ConstantPanels.cpp), which the kernels read in every path: few rows, row
    blocks, a batch by one B, the tiles of an epilogue, B held transposed;
    tiles of 50 columns, which panels of 16 do not divide, read a copy laid
    out tile by tile (a transposed B's tiles pack their rows, as before).
    A panel laid out wrong, or read at the wrong offset, is an error of a
    whole column's magnitude. In f16 (two bytes an element in the panels;
    the products summed in f32, the result rounded to f16)."""
    a_in = batch + (m, k)
    w = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    a = rng.standard_normal(a_in).astype(dtype)
    out = mlir_type(batch + (m, n), dtype)
    w_type = mlir_type(w.shape, dtype)
    lines = [f'  %w = jeet.constant dense<"0x{w.tobytes().hex().upper()}"> '
             f": {w_type}"]
    rhs, rhs_type = "%w", w_type
    if tb:
        rhs_type = mlir_type((k, n), dtype)
        lines.append(f"  %wt = jeet.transpose %w {{permutation = array<i64: "
                     f"1, 0>}} : {w_type} -> {rhs_type}")
        rhs = "%wt"
    a_type = mlir_type(a_in, dtype)
    lines.append(f"  %c = jeet.matmul %a, {rhs} : {a_type}, {rhs_type} -> {out}")
    args, inputs, result = [f"%a: {a_type}"], [a], "%c"
    w64 = w.astype(np.float64).T if tb else w.astype(np.float64)
    expected = a.astype(np.float64) @ w64
    if epilogue:
        bias = rng.standard_normal(n).astype(dtype)
        args.append(f"%bias: {mlir_type((n,), dtype)}")
        inputs.append(bias)
        lines.append(f"  %s = jeet.add %c, %bias : {out}, "
                     f"{mlir_type((n,), dtype)} -> {out}")
        lines.append(f"  %r = jeet.relu %s : {out}")
        result = "%r"
        expected = np.maximum(expected + bias, 0.0)
    source = (f"func.func @main({', '.join(args)}) -> {out} {{\n"
              + "\n".join(lines) + f"\n  return {result} : {out}\n}}\n")
    (got,) = run_graph(tmp_path, source, inputs)
    rtol, atol = 1e-5, 8e-6 * (np.sqrt(k) + 1.0)
    if dtype == np.float16:
        # The f32 sum rounded to f16 (2^-11 of it), then the bias added in
        # f16 and rounded again: bounded by the product's and the bias's
        # magnitudes, not the result's (a sum near 0 after the bias).
        scale = np.abs(a.astype(np.float64) @ w64)
        if epilogue:
            scale = scale + np.abs(bias)
        rtol, atol = 0.0, atol + 2 * 2.0**-11 * scale
    assert_close(got, expected, rtol=rtol, atol=atol,
                 what=f"{batch} x {m}x{k}x{n}, transposed {tb}, {dtype.__name__}")
