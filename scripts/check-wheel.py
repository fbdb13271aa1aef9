"""Run by check-wheel.sh in the wheel's virtual environment: imports jeet
from the installed package, checks its version against the wheel's metadata,
runs a graph on the CPU against a float64 NumPy reference, compiles one for
the GPU to PTX (no GPU needed), and fails if any LLVM or MLIR library from
outside the package is mapped into the process."""

import importlib.metadata
import os
import sys

import numpy as np

import jeet
from jeet import _jeet

TOLERANCE = 1e-4

package = os.path.realpath(sys.argv[1])
assert os.path.dirname(os.path.realpath(jeet.__file__)) == package, jeet.__file__
assert jeet.__version__ == importlib.metadata.version("jeet"), (
    jeet.__version__, importlib.metadata.version("jeet"))
print(f"jeet {jeet.__version__} from {package}")

rng = np.random.default_rng(2024)
x = rng.standard_normal((64, 32), dtype=np.float32)
w = rng.standard_normal((32, 16), dtype=np.float32)
b = rng.standard_normal(16, dtype=np.float32)
y = jeet.relu(jeet.from_numpy(x, device="cpu") @ jeet.from_numpy(w, device="cpu")
              + jeet.from_numpy(b, device="cpu"))
reference = np.maximum(x.astype(np.float64) @ w + b, 0)
error = np.abs(y.numpy() - reference).max()
print(f"matmul + bias + relu on the CPU: max error vs float64 {error:.2e}")
assert error < TOLERANCE, error

graph = ("func.func @main(%a: tensor<256xf32>) -> tensor<256xf32> {\n"
         "  %0 = jeet.exp %a : tensor<256xf32>\n"
         "  return %0 : tensor<256xf32>\n}\n")
ptx = _jeet.compile(graph, device="gpu", keep_ir=True).ir("ptx")
assert ".entry" in ptx, ptx[:500]
print(f"GPU compilation: {ptx.count('.entry')} PTX kernel(s)")

# The shared objects mapped into this process (not data files such as the
# JIT's perf dumps).
with open("/proc/self/maps") as maps:
    mapped = {line.split()[-1] for line in maps
              if ".so" in os.path.basename(line.split()[-1])}
foreign = [path for path in mapped
           if ("llvm" in path.lower() or "libmlir" in path.lower())
           and not os.path.realpath(path).startswith(package)]
libraries = sorted(os.path.basename(p) for p in mapped)
print("mapped:", ", ".join(libraries))
assert not foreign, f"LLVM/MLIR libraries from outside the package: {foreign}"
print("no LLVM/MLIR library from outside the package is loaded")
