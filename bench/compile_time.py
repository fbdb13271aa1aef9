#!/usr/bin/env python3
"""Compile time against graph size: how long the compiler takes for graphs of
100 to 5,000 ops, as one long chain, as many independent outputs, and as
many outputs sharing one input; each split into the MLIR pipeline and
everything else (parsing the text, the JIT's LLVM code generation).

    PYTHONPATH=build/python python3 bench/compile_time.py [--sizes 100,500,...]

Prints a table: shape, ops, outputs, seconds, seconds per 1,000 ops. A
compiler that scales linearly keeps the last column flat.
"""
import argparse
import time

import jeet


def chain(n):
    """x -> n elementwise ops -> one output."""
    lines = ["func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {"]
    prev = "%x"
    for i in range(n):
        op = ("jeet.neg", "jeet.abs", "jeet.relu", "jeet.tanh")[i % 4]
        lines.append(f"  %v{i} = {op} {prev} : tensor<64xf32>")
        prev = f"%v{i}"
    lines.append(f"  return {prev} : tensor<64xf32>\n}}")
    return "\n".join(lines), n, 1


def outputs(n):
    """n independent inputs, each through one op to its own output."""
    args = ", ".join(f"%a{i}: tensor<16xf32>" for i in range(n))
    types = ", ".join("tensor<16xf32>" for _ in range(n))
    lines = [f"func.func @main({args}) -> ({types}) {{"]
    for i in range(n):
        lines.append(f"  %v{i} = jeet.neg %a{i} : tensor<16xf32>")
    lines.append(f"  return {', '.join(f'%v{i}' for i in range(n))} : {types}\n}}")
    return "\n".join(lines), n, n


def fanout(n):
    """One input, n different ops on it, n outputs."""
    types = ", ".join("tensor<16xf32>" for _ in range(n))
    lines = [f"func.func @main(%x: tensor<16xf32>) -> ({types}) {{"]
    for i in range(n):
        lines.append(f"  %c{i} = jeet.constant dense<{i}.0> : tensor<f32>")
        lines.append(f"  %v{i} = jeet.add %x, %c{i} : tensor<16xf32>, tensor<f32> "
                     "-> tensor<16xf32>")
    lines.append(f"  return {', '.join(f'%v{i}' for i in range(n))} : {types}\n}}")
    return "\n".join(lines), n, n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,250,500,1000,2000,5000")
    parser.add_argument("--shapes", default="chain,outputs,fanout")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    builders = {"chain": chain, "outputs": outputs, "fanout": fanout}
    print(f"{'graph':8} {'ops':>6} {'outputs':>8} {'seconds':>9} {'s / 1000 ops':>13}")
    for name in args.shapes.split(","):
        for n in sizes:
            text, ops, outs = builders[name](n)
            start = time.perf_counter()
            jeet._jeet.compile(text, device="cpu", cached=False)
            seconds = time.perf_counter() - start
            print(f"{name:8} {ops:6d} {outs:8d} {seconds:9.2f} "
                  f"{seconds / ops * 1000:13.2f}", flush=True)


if __name__ == "__main__":
    main()
