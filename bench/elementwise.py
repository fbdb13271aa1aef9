#!/usr/bin/env python3
"""Memory-bound elementwise kernels on 2^24 float32 values (--log2-size).

Table 1: a 10-op elementwise chain on three inputs, Jeet fused (one kernel)
vs Jeet unfused (--fuse=false, one kernel per op) vs numpy vs a plain memcpy
(np.copyto) moving the same number of bytes. Bytes = each input read once +
the output written once, whatever each contender really moves.

Table 2: single elementwise ops in GB/s against memcpy.

Table 3: softmax over each axis of a square f32 matrix of the same size
(2^12 x 2^12 by default): Jeet (max, sum of exp, normalise: 3 kernels) vs
numpy (the same formula).

    python3 bench/elementwise.py [--build-dir build] [--threads 2] [--rounds 3]
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import common  # noqa: E402  (sets the BLAS environment before numpy)

ARGS = common.parse_args(
    __doc__.splitlines()[0], default_repeat=10,
    add_arguments=lambda parser: parser.add_argument(
        "--log2-size", type=int, default=24,
        help="elements per array = 2^this (default 24: 64 MiB arrays)"))

import numpy as np  # noqa: E402

N = 1 << ARGS.log2_size
T = f"tensor<{N}xf32>"

# The chain: ten ops, three inputs, one output.
CHAIN = f"""
func.func @main(%a: {T}, %b: {T}, %c: {T}) -> {T} {{
  %0 = jeet.mul %a, %b : {T}, {T} -> {T}
  %1 = jeet.add %0, %c : {T}, {T} -> {T}
  %2 = jeet.sub %1, %a : {T}, {T} -> {T}
  %3 = jeet.max %2, %b : {T}, {T} -> {T}
  %4 = jeet.mul %3, %c : {T}, {T} -> {T}
  %5 = jeet.abs %4 : {T}
  %6 = jeet.add %5, %a : {T}, {T} -> {T}
  %7 = jeet.neg %6 : {T}
  %8 = jeet.min %7, %b : {T}, {T} -> {T}
  %9 = jeet.relu %8 : {T}
  return %9 : {T}
}}
"""


def chain_numpy(a, b, c):
    t = a * b
    t = t + c
    t = t - a
    t = np.maximum(t, b)
    t = t * c
    t = np.abs(t)
    t = t + a
    t = -t
    t = np.minimum(t, b)
    return np.maximum(t, np.float32(0))


def chain_reference(a, b, c):
    return chain_numpy(*(x.astype(np.float64) for x in (a, b, c)))


# Single ops: (name, jeet body, numpy function, number of inputs).
SINGLE = [
    ("add a+b", f"%0 = jeet.add %a, %b : {T}, {T} -> {T}",
     lambda a, b: a + b, 2),
    ("relu a", f"%0 = jeet.relu %a : {T}", lambda a: np.maximum(a, 0), 1),
    ("exp a", f"%0 = jeet.exp %a : {T}", np.exp, 1),
]


def single_source(body, arity):
    params = ", ".join(f"%{n}: {T}" for n in "ab"[:arity])
    return (f"func.func @main({params}) -> {T} {{\n  {body}\n"
            f"  return %0 : {T}\n}}\n")


def memcpy_seconds(nbytes, repeat):
    """np.copyto of a buffer of nbytes/2: reads and writes nbytes in all."""
    count = nbytes // 2 // 4
    src = np.ones(count, dtype=np.float32)
    dst = np.empty_like(src)
    return common.time_python(lambda: np.copyto(dst, src), repeat)


def gbs(nbytes, seconds):
    return nbytes / seconds / 1e9


def main():
    runner = common.JeetRunner(ARGS)
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(N, dtype=np.float32) for _ in range(3))
    paths = runner.save_inputs("chain", [a, b, c])

    # Table 1: the chain.
    nbytes = 4 * N * 4  # three inputs read + one output written
    reference = chain_reference(a, b, c)
    fused_s, fused_out = runner.time("chain", CHAIN, paths)
    unfused_s, unfused_out = runner.time("chain", CHAIN, paths,
                                         extra_args=["--fuse=false"])
    numpy_s = common.time_python(lambda: chain_numpy(a, b, c), ARGS.repeat)
    copy_s = memcpy_seconds(nbytes, ARGS.repeat)
    rows = []
    for name, seconds, err in [
            ("Jeet fused", fused_s, common.max_rel_error(fused_out, reference)),
            ("Jeet unfused", unfused_s,
             common.max_rel_error(unfused_out, reference)),
            ("numpy", numpy_s, None), ("memcpy (np.copyto)", copy_s, None)]:
        rows.append([name, f"{seconds * 1e3:.2f}",
                     f"{gbs(nbytes, seconds):.1f}",
                     f"{seconds / fused_s:.2f}x",
                     "" if err is None else f"{err:.1e}"])

    print(common.describe_machine(ARGS))
    common.print_table(
        f"10-op elementwise chain on 2^{ARGS.log2_size} f32 (3 inputs, {nbytes >> 20} MiB "
        "moved), median times",
        ["", "ms", "GB/s", "time / fused", "max rel err"], rows)
    print(f"fused vs unfused: {unfused_s / fused_s:.1f}x faster; fused vs "
          f"numpy: {numpy_s / fused_s:.1f}x faster; fused takes "
          f"{fused_s / copy_s:.2f}x the time of memcpy")

    # Table 2: single ops.
    rows = []
    for name, body, fn, arity in SINGLE:
        inputs = [a, b][:arity]
        op_bytes = (arity + 1) * N * 4
        jeet_s, out = runner.time(f"single{arity}{name[:3]}",
                                  single_source(body, arity), paths[:arity])
        np_s = common.time_python(lambda: fn(*inputs), ARGS.repeat)
        cp_s = memcpy_seconds(op_bytes, ARGS.repeat)
        ref = fn(*(x.astype(np.float64) for x in inputs))
        rows.append([name, f"{jeet_s * 1e3:.2f}", f"{gbs(op_bytes, jeet_s):.1f}",
                     f"{gbs(op_bytes, np_s):.1f}",
                     f"{gbs(op_bytes, cp_s):.1f}",
                     f"{cp_s / jeet_s:.2f}",
                     f"{common.max_rel_error(out, ref):.1e}"])
    common.print_table(
        f"single elementwise ops on 2^{ARGS.log2_size} f32, GB/s = (inputs + output) bytes / "
        "median time",
        ["op", "Jeet ms", "Jeet GB/s", "numpy GB/s", "memcpy GB/s",
         "Jeet / memcpy", "max rel err"], rows)
    # Table 3: softmax.
    side = 1 << (ARGS.log2_size // 2)
    rows_cols = (side, N // side)
    x = rng.standard_normal(rows_cols, dtype=np.float32)
    (x_path,) = runner.save_inputs("softmax", [x])
    t2 = f"tensor<{rows_cols[0]}x{rows_cols[1]}xf32>"
    rows = []
    for axis in (1, 0):
        source = (f"func.func @main(%x: {t2}) -> {t2} {{\n"
                  f"  %0 = jeet.softmax %x {{axis = {axis} : i64}} : {t2}\n"
                  f"  return %0 : {t2}\n}}\n")

        def softmax_numpy(v, axis=axis):
            e = np.exp(v - v.max(axis=axis, keepdims=True))
            return e / e.sum(axis=axis, keepdims=True)

        jeet_s, out = runner.time(f"softmax{axis}", source, [x_path])
        np_s = common.time_python(lambda: softmax_numpy(x), ARGS.repeat)
        ref = softmax_numpy(x.astype(np.float64))
        rows.append([f"axis {axis}", f"{jeet_s * 1e3:.2f}",
                     f"{np_s * 1e3:.2f}", f"{np_s / jeet_s:.2f}x",
                     f"{common.max_rel_error(out, ref):.1e}"])
    common.print_table(
        f"softmax of a {rows_cols[0]}x{rows_cols[1]} f32 matrix, median times",
        ["", "Jeet ms", "numpy ms", "Jeet speedup", "max rel err"], rows)

    print(f"\nJeet runs on {ARGS.threads} threads (OpenMP); numpy and memcpy "
          "on one.")


if __name__ == "__main__":
    main()
