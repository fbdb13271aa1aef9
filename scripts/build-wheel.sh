#!/usr/bin/env bash
# `make wheel`: builds dist/jeet-<version>-<tags>.whl, the self-contained
# Python package (LLVM/MLIR linked statically into the extension, with
# libjeet_runtime and libomp next to it), with pip and scikit-build-core from
# python/pyproject.toml. The CMake build tree is kept in BUILD_DIR (at the
# depth of build/, so that ccache serves the objects `make build` compiled).
set -euo pipefail
python=${1:-python3}
build_dir=${2:-build-wheel}
jobs=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

settings=(-C "build-dir=../$build_dir")
if command -v ld.lld >/dev/null; then
  settings+=(-C cmake.define.LLVM_USE_LINKER=lld)
fi
if command -v ccache >/dev/null; then
  # The compilers by the names CMake gives build/ (c++, cc, or CXX and CC):
  # ccache hashes the compiler's name, and scikit-build-core would otherwise
  # take Python's (g++, gcc), the same compiler under another name, and
  # every object would miss.
  settings+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
             -C cmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache)
  cxx=${CXX:-$(command -v c++ || true)}
  cc=${CC:-$(command -v cc || true)}
  if [[ -n $cxx ]]; then settings+=(-C "cmake.define.CMAKE_CXX_COMPILER=$cxx"); fi
  if [[ -n $cc ]]; then settings+=(-C "cmake.define.CMAKE_C_COMPILER=$cc"); fi
fi

mkdir -p dist
rm -f dist/jeet-*.whl
echo "== building the wheel (CMake tree in $build_dir) =="
CMAKE_BUILD_PARALLEL_LEVEL=$jobs "$python" -m pip wheel ./python \
  --no-build-isolation --no-deps --wheel-dir dist "${settings[@]}"
wheel=$(ls dist/jeet-*.whl)
"$python" - "$wheel" <<'PY'
import sys, zipfile
path = sys.argv[1]
with zipfile.ZipFile(path) as wheel:
    files = sorted(wheel.infolist(), key=lambda info: -info.file_size)
    print(f"{path}: {sum(f.compress_size for f in files) / 2**20:.1f} MiB "
          f"({sum(f.file_size for f in files) / 2**20:.1f} MiB installed)")
    for info in files[:4]:
        print(f"  {info.file_size / 2**20:7.1f} MiB  {info.filename}")
PY
