"""A graph of more kernels than jeet-cpu-outline-kernels' threshold (32): on
the CPU each kernel is then a function of its own (the llvm stage calls
them); the answers must not change. Forty independent outputs of different
kinds (elementwise chains, row reductions, a matmul with its epilogue),
against float64 numpy."""
import numpy as np

from jeetrun import assert_close

KERNELS = 40
ROWS, COLS = 8, 24


def kernel(i):
    """(op lines using %a{i} -> %r{i}, reference, result shape) of output i."""
    t = f"tensor<{ROWS}x{COLS}xf32>"
    kind = i % 4
    if kind == 0:
        return ([f"%e{i} = jeet.exp %a{i} : {t}",
                 f"%r{i} = jeet.neg %e{i} : {t}"],
                lambda x: -np.exp(x), t)
    if kind == 1:
        return ([f"%r{i} = jeet.tanh %a{i} : {t}"], np.tanh, t)
    if kind == 2:
        out = f"tensor<{ROWS}xf32>"
        return ([f"%r{i} = jeet.reduce_sum %a{i} {{axes = array<i64: 1>}} : "
                 f"{t} -> {out}"], lambda x: x.sum(axis=1), out)
    square = f"tensor<{COLS}x{COLS}xf32>"
    out = f"tensor<{ROWS}x{COLS}xf32>"
    return ([f"%s{i} = jeet.transpose %a{i} {{permutation = array<i64: 1, 0>}} : "
             f"{t} -> tensor<{COLS}x{ROWS}xf32>",
             f"%w{i} = jeet.matmul %s{i}, %a{i} : tensor<{COLS}x{ROWS}xf32>, {t} "
             f"-> {square}",
             f"%m{i} = jeet.matmul %a{i}, %w{i} : {t}, {square} -> {out}",
             f"%r{i} = jeet.relu %m{i} : {out}"],
            lambda x: np.maximum(x @ (x.T @ x), 0), out)


def graph(count):
    """The graph of the first `count` outputs, and their parts."""
    parts = [kernel(i) for i in range(count)]
    t = f"tensor<{ROWS}x{COLS}xf32>"
    args = ", ".join(f"%a{i}: {t}" for i in range(count))
    results = ", ".join(p[2] for p in parts)
    lines = [f"func.func @main({args}) -> ({results}) {{"]
    for ops, _, _ in parts:
        lines += ["  " + op for op in ops]
    lines.append(f"  return {', '.join(f'%r{i}' for i in range(count))} : "
                 f"{results}\n}}")
    return "\n".join(lines), parts


def outlined_functions(source):
    import jeet._jeet as native
    executable = native.compile(source, device="cpu", keep_ir=True)
    return executable.ir("llvm").count("llvm.func @jeet_kernel")


def test_many_kernels_are_outlined_and_few_are_not():
    assert outlined_functions(graph(KERNELS)[0]) >= KERNELS
    assert outlined_functions(graph(4)[0]) == 0


def test_many_kernels_match_numpy(run, rng):
    source, parts = graph(KERNELS)
    inputs = [rng.uniform(-1, 1, (ROWS, COLS)).astype(np.float32)
              for _ in range(KERNELS)]
    outputs = run(source, inputs)
    assert len(outputs) == KERNELS
    for i, ((_, reference, _), x, actual) in enumerate(zip(parts, inputs, outputs)):
        expected = reference(x.astype(np.float64))
        assert_close(actual, expected, rtol=1e-5, atol=1e-5, what=f"output {i}")
