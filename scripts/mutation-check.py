#!/usr/bin/env python3
"""Plants faults one at a time and checks that the tests catch each
(make mutation-check; results in docs/Reliability.md).

For each fault: replace one snippet of a source file, rebuild incrementally,
run the tests that guard that code in order until one fails, restore the
file. Prints a table: fault, the test that caught it (or MISSED), seconds.
Exits 1 if any fault was missed. Faults whose tests cannot run on this
machine are listed as pending with the reason.

    scripts/mutation-check.py [--build-dir build] [--only NAME] [--every]
"""
import argparse
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
LIT = "/usr/lib/llvm-22/bin/lit"


def lit(*paths):
    return ("lit " + " ".join(paths),
            [LIT, "-q"] + [f"{{build}}/test/{p}" for p in paths])


def pytest(path, select=None, env=None):
    args = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
            str(ROOT / path)]
    if select:
        args += ["-k", select]
    name = f"pytest {path}" + (f" -k '{select}'" if select else "")
    return (name, args, env or {})


def ctest(regex):
    return (f"ctest -R {regex}",
            ["ctest", "--test-dir", "{build}", "-R", regex, "--output-on-failure"])


# name, file, original snippet, planted fault, tests (cheapest first)
FAULTS = [
    ("fusion legality: no acyclicity check before merging a producer group",
     "lib/Dialect/Jeet/Transforms/Fuse.cpp",
     "  ++visitEpoch;\n  SmallVector<unsigned> worklist;",
     "  return true;\n  ++visitEpoch;\n  SmallVector<unsigned> worklist;",
     [lit("Dialect/Jeet/Transforms"),
      pytest("test/numerics/test_fusion_differential.py")]),
    ("broadcast indexing: operands aligned on the left, not the right",
     "lib/Conversion/JeetToLinalg/JeetToLinalg.cpp",
     "llvm::to_vector(llvm::seq<int64_t>(offset, offset + rank));",
     "llvm::to_vector(llvm::seq<int64_t>(0, rank));",
     [lit("Conversion/JeetToLinalg", "Integration/CPU"),
      pytest("test/numerics/test_jeet_run_ops.py", "binary"),
      pytest("test/numerics/test_fusion_differential.py")]),
    ("matmul remainder kernels: remainder columns written at column 0",
     "lib/Codegen/CPU/Matmul.cpp",
     "emitKernel(mr, n - fullCols, i, cst(fullCols), k0, k1, i0, slot);",
     "emitKernel(mr, n - fullCols, i, cst(0), k0, k1, i0, slot);",
     [lit("Codegen/CPU", "Integration/CPU"),
      pytest("test/numerics/test_jeet_run_ops.py", "matmul"),
      pytest("test/numerics/test_fusion_differential.py")]),
    ("transpose folding: a transpose that another op reads too is folded "
     "into its matmuls",
     "lib/Dialect/Jeet/IR/JeetOps.cpp",
     "  return llvm::all_of(op->getUses(), [](OpOperand &use) {",
     "  return llvm::any_of(op->getUses(), [](OpOperand &use) {",
     [lit("Dialect/Jeet/Transforms"),
      pytest("test/numerics/test_matmul_transposed.py"),
      pytest("test/numerics/test_fusion_differential.py")]),
    ("transposed B packing (CPU): each column of B packed in reverse k order",
     "lib/Codegen/CPU/Matmul.cpp",
     "ValueRange{col, kk});",
     "ValueRange{col, arith::SubIOp::create(\n"
     "                     inner, innerLoc, depth,\n"
     "                     arith::AddIOp::create(inner, innerLoc, kk, one))});",
     [lit("Codegen/CPU", "Integration/CPU"),
      pytest("test/numerics/test_matmul_transposed.py"),
      pytest("test/numerics/test_fusion_differential.py")]),
    ("reduction identity (CPU): vector lanes start from 0 instead of the "
     "combiner's identity",
     "lib/Codegen/CPU/VectorizeReductions.cpp",
     "  return neutral ? *neutral : TypedAttr();",
     "  return neutral ? TypedAttr(OpBuilder(combiner).getZeroAttr(\n"
     "                      neutral->getType()))\n                : TypedAttr();",
     [lit("Codegen/CPU", "Integration/CPU"),
      pytest("test/numerics/test_jeet_run_ops.py", "reduce"),
      pytest("test/numerics/test_fusion_differential.py")]),
    ("allocator block merge: a merged block keeps half its neighbour",
     "lib/Runtime/Allocator.cpp",
     "    pool.erase(next);\n    block->size += next->size;",
     "    pool.erase(next);\n    block->size += next->size / 2;",
     [ctest("Allocator|HostDevice|CudaDevice"),
      pytest("test/python/test_api.py")]),
    ("allocation checks: a null allocation in the function's body is not "
     "checked",
     "lib/Codegen/CPU/CheckAllocations.cpp",
     "  for (BodyCheck &check : bodyChecks)\n"
     "    checkInBody(check.alloc, check.held);",
     "  (void)bodyChecks;",
     [lit("Codegen/CPU"),
      pytest("test/python/test_memory_limits.py")]),
    ("allocation checks: the error path frees nothing it holds",
     "lib/Codegen/CPU/CheckAllocations.cpp",
     "      held.push_back(t.get());",
     "      (void)held;",
     [lit("Codegen/CPU"),
      pytest("test/python/test_memory_limits.py")]),
    ("arena pool: an arena in use is handed to a second execution",
     "lib/Runtime/Execution.cpp",
     "      if (!pool[i].busy && pool[i].stream == stream) {",
     "      if (pool[i].stream == stream) {",
     [ctest("Concurrency"),
      pytest("test/python/test_concurrency.py"),
      pytest("test/python/test_memory_limits.py")]),
]

PENDING = [
    ("reduction identity (GPU) and GPU tile staging (shared-memory copies "
     "of the tiled matmul)",
     "the GPU tests do not run on this machine: they wait for the GPU "
     "emulator (JEET_CUDA_DRIVER) to run test/Integration/GPU and the "
     "differential test on device 'gpu'"),
]


def run(cmd, build, env=None):
    cmd = [c.replace("{build}", str(build)) for c in cmd]
    full_env = dict(os.environ, JEET_BUILD_DIR=str(build),
                    PYTHONPATH=str(build / "python"), **(env or {}))
    return subprocess.run(cmd, cwd=ROOT, env=full_env, capture_output=True,
                          text=True).returncode


def check(fault, build, every=False):
    name, path, original, planted, tests = fault
    source = ROOT / path
    text = source.read_text()
    if text.count(original) != 1:
        return "NOT PLANTED (snippet not found once: update the fault)"
    source.write_text(text.replace(original, planted))
    try:
        if run(["ninja", "-C", str(build)], build) != 0:
            return "caught by the build (does not compile)"
        caught = []
        for test in tests:
            label, cmd = test[0], test[1]
            env = test[2] if len(test) > 2 else None
            if run(cmd, build, env) != 0:
                caught.append(label)
                if not every:
                    break
        return "; ".join(caught) if caught else "MISSED"
    finally:
        source.write_text(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--only")
    parser.add_argument("--every", action="store_true",
                        help="run every guarding test, not only up to the "
                             "first that catches the fault")
    args = parser.parse_args()
    build = (ROOT / args.build_dir).resolve()
    missed = 0
    print(f"{'fault':75} {'caught by':45} {'s':>5}")
    for fault in FAULTS:
        if args.only and args.only not in fault[0]:
            continue
        start = time.monotonic()
        result = check(fault, build, args.every)
        missed += result.startswith(("MISSED", "NOT PLANTED"))
        print(f"{fault[0]:75.75} {result:45} {time.monotonic() - start:5.0f}",
              flush=True)
    for name, reason in PENDING:
        print(f"{name:75.75} pending: {reason}")
    # Leave the build as the sources are.
    subprocess.run(["ninja", "-C", str(build)], capture_output=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
