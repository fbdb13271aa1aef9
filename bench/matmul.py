#!/usr/bin/env python3
"""f32 matmul on the CPU: Jeet (jeet-run) vs numpy (OpenBLAS), same threads.

Prints one table: time and GFLOP/s of each at 256^3, 1024^3 and 2048^3, and of
a matmul with a fused bias + relu epilogue, with the ratio Jeet / numpy and
the largest error of Jeet's result relative to numpy's (float64 reference).

    python3 bench/matmul.py [--build-dir build] [--threads 2] [--rounds 3]
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import common  # noqa: E402  (sets the BLAS environment before numpy)

ARGS = common.parse_args(__doc__.splitlines()[0], default_repeat=0)

import numpy as np  # noqa: E402

MATMUL = """
func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = jeet.matmul %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}
"""

MATMUL_BIAS_RELU = """
func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>, %bias: tensor<{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = jeet.matmul %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{m}x{n}xf32>
  %1 = jeet.add %0, %bias : tensor<{m}x{n}xf32>, tensor<{n}xf32> -> tensor<{m}x{n}xf32>
  %2 = jeet.relu %1 : tensor<{m}x{n}xf32>
  return %2 : tensor<{m}x{n}xf32>
}}
"""

# (label, m, n, k, epilogue, timed runs per measurement)
CASES = [
    ("256^3", 256, 256, 256, False, 200),
    ("1024^3", 1024, 1024, 1024, False, 20),
    ("2048^3", 2048, 2048, 2048, False, 5),
    ("1024^3 +bias+relu", 1024, 1024, 1024, True, 20),
    ("1000x1000x1000", 1000, 1000, 1000, False, 20),
    ("1000^3 +bias+relu", 1000, 1000, 1000, True, 20),
]


def main():
    runner = common.JeetRunner(ARGS)
    rng = np.random.default_rng(0)
    rows = []
    for label, m, n, k, epilogue, runs in CASES:
        repeat = ARGS.repeat or runs
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        bias = rng.standard_normal(n, dtype=np.float32)
        inputs = [a, b, bias] if epilogue else [a, b]
        source = (MATMUL_BIAS_RELU if epilogue else MATMUL).format(m=m, n=n,
                                                                    k=k)
        paths = runner.save_inputs(f"mm{m}x{n}x{k}{epilogue}", inputs)
        jeet_s, out = runner.time(f"mm{m}x{n}x{k}{epilogue}", source, paths,
                                  repeat=repeat)
        jeet_best = runner.best

        if epilogue:
            def numpy_fn():
                return np.maximum(a @ b + bias, np.float32(0))
        else:
            def numpy_fn():
                return a @ b
        numpy_s = common.time_python(numpy_fn, repeat)
        numpy_best = common.BEST["python"]
        reference = a.astype(np.float64) @ b.astype(np.float64)
        if epilogue:
            reference = np.maximum(reference + bias, 0)
        flops = 2.0 * m * n * k
        rows.append([label, f"{jeet_s * 1e3:.2f}", f"{flops / jeet_s / 1e9:.1f}",
                     f"{numpy_s * 1e3:.2f}", f"{flops / numpy_s / 1e9:.1f}",
                     f"{numpy_s / jeet_s:.2f}x",
                     f"{flops / jeet_best / 1e9:.0f} / "
                     f"{flops / numpy_best / 1e9:.0f}",
                     f"{common.max_rel_error(out, reference):.1e}"])

    print(common.describe_machine(ARGS))
    print(common.blas_description())
    common.print_table(
        "f32 matmul, median times (Jeet: median of "
        f"{ARGS.rounds} jeet-run --benchmark medians)",
        ["shape", "Jeet ms", "Jeet GFLOP/s", "numpy ms", "numpy GFLOP/s",
         "Jeet/numpy", "best GFLOP/s Jeet / numpy", "max rel err"], rows)
    print("\nJeet/numpy is numpy's median time over Jeet's: above 1 Jeet is "
          "faster. 'best' is the fastest single run of each, a steadier\n"
          "measure of what the code can do when other work shares the cores.")


if __name__ == "__main__":
    main()
