#!/usr/bin/env bash
# `make wheel-check`: installs dist/jeet-<VERSION>-*.whl into a fresh virtual
# environment and proves that it needs no LLVM/MLIR installation: every shared
# object of the package has a RUNPATH inside the package ($ORIGIN) and
# resolves (ldd) nothing into
# LLVM's folders; the package imports with every symbol bound at load time;
# a graph compiles and runs, the GPU path compiles to PTX, and no LLVM/MLIR
# library is mapped into the process; then examples/seed.py runs from outside
# the source tree. Prints the wheel's size. Exit status 0 when all hold.
set -euo pipefail
python=${1:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/VERSION")
shopt -s nullglob
wheels=("$root"/dist/jeet-"$version"-*.whl)
if [ ${#wheels[@]} -ne 1 ]; then
  echo "wheel-check: expected one dist/jeet-$version-*.whl (make wheel), found ${#wheels[@]}" >&2
  exit 1
fi
wheel=${wheels[0]}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== $(basename "$wheel"): $(du -h "$wheel" | cut -f1) =="
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
# Nothing of the source or build tree is visible from here on.
unset PYTHONPATH LD_LIBRARY_PATH JEET_BUILD_DIR
"$venv_python" -m pip install -q "$wheel"
package=$("$venv_python" -c "import importlib.util as u; print(u.find_spec('jeet').submodule_search_locations[0])" 2>/dev/null ||
          ls -d "$work"/venv/lib/python*/site-packages/jeet)

echo "== shared objects of the package =="
status=0
for so in "$package"/*.so*; do
  runpath=$(readelf -d "$so" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  resolved=$(ldd "$so")
  echo "$(basename "$so"): RUNPATH [${runpath}]"
  for entry in ${runpath//:/ }; do
    if [ "${entry#\$ORIGIN}" = "$entry" ]; then
      echo "  FAIL: RUNPATH entry $entry is not inside the package" >&2; status=1
    fi
  done
  if grep -E "not found|/llvm-[0-9]+/|libLLVM|libMLIR" <<<"$resolved" >&2; then
    echo "  FAIL: resolves into LLVM or leaves a library unresolved" >&2; status=1
  fi
done
[ $status -eq 0 ] || exit 1

# Runs a command with LLVM's and MLIR's files hidden (empty folders over
# /usr/lib/llvm-*, /dev/null over libLLVM*/libMLIR*), as on a machine without
# them, where a private mount namespace is allowed; elsewhere as it is.
without_llvm() {
  if unshare -m --propagation private true 2>/dev/null; then
    unshare -m --propagation private bash -c '
      set -e
      empty=$(mktemp -d)
      for dir in /usr/lib/llvm-*; do mount --bind "$empty" "$dir"; done
      for file in /usr/lib/*/libLLVM* /usr/lib/*/libMLIR*; do
        [ ! -e "$file" ] || mount --bind /dev/null "$file"
      done
      exec "$@"' without-llvm "$@"
  else
    echo "(no private mount namespace here: LLVM stays visible to this run;" \
         "the ldd and mapped-library checks still apply)"
    "$@"
  fi
}

cd "$work"
echo "== with LLVM hidden: import, compile, run (CPU), compile for the GPU, mapped libraries =="
without_llvm env LD_BIND_NOW=1 "$venv_python" "$root/scripts/check-wheel.py" "$package"

echo "== with LLVM hidden: examples/seed.py, from $work =="
cp "$root/examples/seed.py" "$work/seed.py"
without_llvm "$venv_python" "$work/seed.py"
echo "== with LLVM hidden: scripts/gpu-python-check.sh on this wheel =="
# Its GPU tests need a GPU: without one it installs the wheel, lists the
# devices and stops with status 2, saying so.
set +e
without_llvm env PYTHON="$python" bash "$root/scripts/gpu-python-check.sh" \
  "$wheel" "$work/gpu-python-check" >"$work/gpc.log" 2>&1
gpc=$?
set -e
cat "$work/gpc.log"
if [ $gpc -eq 2 ] && grep -q "gpu-python-check: error: no usable GPU" "$work/gpc.log"; then
  echo "(no GPU here: its tests wait for a GPU machine)"
elif [ $gpc -ne 0 ]; then
  echo "wheel-check: FAIL: gpu-python-check.sh exited with $gpc" >&2
  exit 1
fi
echo "wheel-check: PASS ($(basename "$wheel"), $(du -h "$wheel" | cut -f1))"
