"""Matmuls that read transposes of matrices (folded into the matmul: it reads
the transpose's input through transposed indexing maps), on each device of
the `run` fixture (the CPU, the GPU emulator, a GPU where one answers),
against a float64 numpy reference on fresh random inputs.

The shapes take the CPU kernels' paths (few rows, row blocks with A read in
place or, transposed, packed, full and partial panels of 64 columns of a packed transposed B, its blocks
of 16 x 16 and the steps of k past them, remainder rows, the order where A's
micro-panel stays in L1) and the GPU tiled matmul's (partial tiles of M, N
and K).
"""
import numpy as np
import pytest

from jeetrun import assert_close, mlir_type, run_graph

F32 = np.float32


def t(shape):
    return mlir_type(shape, F32)


def swap(rank):
    """The permutation that swaps the two innermost of `rank` dimensions."""
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return ", ".join(map(str, perm))


def transposed(x):
    return np.swapaxes(x, -1, -2)


def graph(a_shape, b_shape, ta, tb, relu=False):
    """%a and %b hold A and B, transposed where `ta` / `tb` say: the graph
    transposes them back and multiplies."""
    lines, operands = [], []
    for name, shape, flag in (("a", a_shape, ta), ("b", b_shape, tb)):
        if not flag:
            operands.append((f"%{name}", shape))
            continue
        out = shape[:-2] + (shape[-1], shape[-2])
        lines.append(f"  %{name}t = jeet.transpose %{name} {{permutation = "
                     f"array<i64: {swap(len(shape))}>}} : {t(shape)} -> "
                     f"{t(out)}")
        operands.append((f"%{name}t", out))
    (a, la), (b, lb) = operands
    out = np.broadcast_shapes(la[:-2], lb[:-2]) + (la[-2], lb[-1])
    lines.append(f"  %m = jeet.matmul {a}, {b} : {t(la)}, {t(lb)} -> {t(out)}")
    result = "%m"
    if relu:
        lines.append(f"  %r = jeet.relu %m : {t(out)}")
        result = "%r"
    return (f"func.func @main(%a: {t(a_shape)}, %b: {t(b_shape)}) -> "
            f"{t(out)} {{\n" + "\n".join(lines) +
            f"\n  return {result} : {t(out)}\n}}\n")


def check(run, rng, a_logical, b_logical, ta, tb, relu=False):
    a = rng.standard_normal(a_logical).astype(F32)
    b = rng.standard_normal(b_logical).astype(F32)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    if relu:
        ref = np.maximum(ref, 0)
    a_in = np.ascontiguousarray(transposed(a)) if ta else a
    b_in = np.ascontiguousarray(transposed(b)) if tb else b
    (out,) = run(graph(a_in.shape, b_in.shape, ta, tb, relu), [a_in, b_in])
    assert_close(out, ref, rtol=1e-4,
                 what=f"{a_logical} @ {b_logical}, ta={ta} tb={tb}")


LAYOUTS = [(True, False), (False, True), (True, True)]
LAYOUT_IDS = ["At", "Bt", "AtBt"]

MATMUL_SHAPES = [
    (67, 100, 45),   # K past GPU tiles; a partial panel of B only
    (130, 48, 70),   # a full and a partial panel of B, remainder rows
    (5, 1, 7),       # K = 1, few rows
    (3, 17, 200),    # few rows: column panels
    (128, 64, 192),  # exact panels and tiles
    (37, 40, 130),   # a transposed B packed in 16 x 16 blocks: two full
                     # panels, 8 steps of k and a partial panel after them
]


@pytest.mark.parametrize("m,k,n", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=LAYOUT_IDS)
def test_matmul_2d(run, rng, m, k, n, ta, tb):
    check(run, rng, (m, k), (k, n), ta, tb)


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=LAYOUT_IDS)
def test_matmul_epilogue_tiles(run, rng, ta, tb):
    """A matmul with an epilogue is computed per output tile on the CPU: a
    transposed B is sliced by rows, and packed once before the tiles. With
    1024 columns (16 tiles of 64) the 512 rows are tiled by 256."""
    check(run, rng, (256, 96), (96, 384), ta, tb, relu=True)
    check(run, rng, (512, 96), (96, 1024), ta, tb, relu=True)


@pytest.mark.parametrize("n", [16, 64])
@pytest.mark.parametrize("ta,tb", [(False, False)] + LAYOUTS,
                         ids=["AB"] + LAYOUT_IDS)
def test_matmul_epilogue_tiles_one_panel(run, rng, n, ta, tb):
    """B exactly one register tile wide (16 columns for AVX2's tiles, 64 for
    AVX-512's), as attention's V with head size 64: its rows contiguous, B
    already has the packed panels' layout and the tiles read it in place."""
    check(run, rng, (256, 96), (96, n), ta, tb, relu=True)
    check(run, rng, (3, 128, 96), (3, 96, n), ta, tb, relu=True)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((3, 37, 50), (3, 50, 29)),      # batch_matmul
    ((8, 70, 16), (8, 16, 70)),      # attention's Q @ K^T, small
    ((4, 37, 50), (50, 29)),         # B broadcast over the batch
    ((2, 1, 20, 33), (3, 33, 18)),   # both broadcast
], ids=str)
@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=LAYOUT_IDS)
def test_matmul_batched(run, rng, a_shape, b_shape, ta, tb):
    check(run, rng, a_shape, b_shape, ta, tb)


def test_transpose_read_by_two_matmuls_and_an_add(run, rng):
    """One transpose read by two matmuls (folded into both) and, in a second
    graph, also by an add (materialised): the same numbers either way."""
    x = rng.standard_normal((40, 24)).astype(F32)
    y = rng.standard_normal((33, 24)).astype(F32)
    w = rng.standard_normal((30, 24)).astype(F32)
    wt = w.astype(np.float64).T
    ref = x.astype(np.float64) @ wt
    ref2 = y.astype(np.float64) @ wt
    tx, ty, tw = t(x.shape), t(y.shape), t(w.shape)
    twt, to, to2 = t((24, 30)), t((40, 30)), t((33, 30))
    body = (f"  %wt = jeet.transpose %w {{permutation = array<i64: 1, 0>}} "
            f": {tw} -> {twt}\n"
            f"  %0 = jeet.matmul %x, %wt : {tx}, {twt} -> {to}\n"
            f"  %1 = jeet.matmul %y, %wt : {ty}, {twt} -> {to2}\n")
    params = f"%x: {tx}, %y: {ty}, %w: {tw}"
    src = (f"func.func @main({params}) -> ({to}, {to2}) {{\n{body}"
           f"  return %0, %1 : {to}, {to2}\n}}\n")
    out0, out1 = run(src, [x, y, w])
    assert_close(out0, ref, rtol=1e-4, what="first reader")
    assert_close(out1, ref2, rtol=1e-4, what="second reader")
    src = (f"func.func @main({params}) -> ({to}, {to2}, {twt}) {{\n{body}"
           f"  %2 = jeet.add %wt, %wt : {twt}, {twt} -> {twt}\n"
           f"  return %0, %1, %2 : {to}, {to2}, {twt}\n}}\n")
    out0, out1, out2 = run(src, [x, y, w])
    assert_close(out0, ref, rtol=1e-4, what="first reader, materialised")
    assert_close(out1, ref2, rtol=1e-4, what="second reader, materialised")
    assert_close(out2, 2 * wt, rtol=1e-6, what="the add")


@pytest.mark.parametrize("b,s,d", [
    ((3,), 70, 24),    # sizes that fit no tile; one block of rows (CPU)
    ((2,), 1000, 24),  # blocks of 25 rows: 1000 is not a multiple of 64
    ((1,), 300, 40),   # blocks of 100 rows
    ((4,), 512, 64),   # blocks of 64 rows, as bench/peers.py's attention
    ((1,), 1031, 8),   # a prime number of rows over the budget: three kernels
    ((8, 4), 64, 32),  # (batch, heads): the example transformer's attention
    ((2, 3), 70, 24),  # two batch dimensions, sizes that fit no tile
])
def test_attention(run, rng, b, s, d):
    """softmax(Q @ K^T * scale) @ V with one or two batch dimensions; on the
    CPU one kernel that computes the scores and the softmax block of rows by
    block of rows, where the rows allow (see
    test/Dialect/Jeet/Transforms/jeet-fuse-attention.mlir)."""
    scale = 0.25  # exact in f32
    q, k, v = (rng.standard_normal(b + (s, d)).astype(F32) for _ in range(3))
    tq, ts = t(b + (s, d)), t(b + (s, s))
    tkt = t(b + (d, s))
    rank = len(b) + 2
    src = (f"func.func @main(%q: {tq}, %k: {tq}, %v: {tq}) -> {tq} {{\n"
           f"  %kt = jeet.transpose %k {{permutation = array<i64: {swap(rank)}>}} "
           f": {tq} -> {tkt}\n"
           f"  %s = jeet.matmul %q, %kt : {tq}, {tkt} -> {ts}\n"
           f"  %c = jeet.constant dense<{scale}> : tensor<f32>\n"
           f"  %ss = jeet.mul %s, %c : {ts}, tensor<f32> -> {ts}\n"
           f"  %p = jeet.softmax %ss {{axis = {rank - 1} : i64}} : {ts}\n"
           f"  %o = jeet.matmul %p, %v : {ts}, {tq} -> {tq}\n"
           f"  return %o : {tq}\n}}\n")
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    scores = q64 @ transposed(k64) * scale
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    (out,) = run(src, [q, k, v])
    assert_close(out, p @ v64, rtol=1e-4, what="attention")


@pytest.mark.parametrize("ta,tb", [(False, False)] + LAYOUTS,
                         ids=["AB"] + LAYOUT_IDS)
def test_matmul_a_panel_in_l1(tmp_path, rng, ta, tb):
    """On the CPU only (the emulator would take minutes): a matmul whose C
    is too wide for 4 register tiles of its rows to fit half of a 2 MiB L2
    (11100 columns) takes, with AVX-512's 64-column panels, the order where
    each tile's micro-panel of A stays in L1 and B streams past in column
    blocks (640 columns, k-blocks of at most 384 steps): 70 rows in blocks
    of 2 tiles (and 4 remainder rows), 777 steps in 3 blocks of 259, 11072 full columns in 17
    blocks of 640 and one of 192, and 28 remainder columns. Elsewhere the
    other order runs the same shape."""
    check(lambda source, inputs: run_graph(tmp_path, source, inputs), rng,
          (70, 777), (777, 11100), ta, tb)


@pytest.mark.parametrize("ta,tb", [(False, False)] + LAYOUTS,
                         ids=["AB"] + LAYOUT_IDS)
def test_matmul_fetching_next_panels(tmp_path, rng, ta, tb):
    """On the CPU only: a matmul whose packed panels of B (1000 x 640
    floats, 2.5 MiB) outgrow half of L2 while a row block's rows of C fit,
    so that each tile fetches its share of the next panel into L2 as its
    kernel runs: 526 rows (87 tiles of 6 and 4 remainder rows, whose one
    tile fetches a whole panel's rows), 1000 steps in k-blocks of at most
    96 (the last panel of each fetching the next k-block's first), 10 full
    panels of 64 and 40 remainder columns. The kernels' loops carry the
    fetches; the result is the matmul's."""
    check(lambda source, inputs: run_graph(tmp_path, source, inputs), rng,
          (526, 1000), (1000, 680), ta, tb)
