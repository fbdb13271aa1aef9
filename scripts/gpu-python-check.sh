#!/usr/bin/env bash
# The Python package on a GPU machine, the JIT path end to end (the
# ahead-of-time path is scripts/gpu-check.sh):
#
#   scripts/gpu-python-check.sh WHEEL OUTDIR
#
# WHEEL is the self-contained wheel (`make wheel PYTHON=...` with a Python of
# the GPU machine's version: LLVM/MLIR are linked into it, so that machine
# needs none). On a machine with an NVIDIA GPU, its driver and a Python with
# numpy and pytest: installs the wheel into OUTDIR/site (no index, no
# dependencies), prints the devices, runs the seed example on the GPU, then
# the GPU tests of test/python (pytest -m gpu: graphs compiled in-process to
# PTX and loaded by the driver's JIT, tensors resident on the device,
# CUDA-graph replay, DLPack, the numeric fuzzer's GPU programs against
# float64) against the real driver. Logs and pytest's XML go to OUTDIR.
# Exit status: pytest's (0 all passed), 2 where no GPU answers (the GPU
# emulator is not used: JEET_CUDA_DRIVER is unset; `make test` runs the same
# tests on it).
#
# Environment: PYTHON (default python3).
set -euo pipefail
[ $# -eq 2 ] || {
  sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
  exit 2
}
wheel=$1
out=$2
python=${PYTHON:-python3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/site"
export PIP_ROOT_USER_ACTION=ignore
"$python" -m pip install -q --no-index --no-deps --no-compile \
  --target "$out/site" "$wheel"
export PYTHONPATH="$out/site"
unset JEET_CUDA_DRIVER
cd "$root"
if ! "$python" - <<'PY'; then
import sys
import jeet
print(f"jeet {jeet.__version__} from {jeet.__file__}")
for d in jeet.devices():
    state = "available" if d["available"] else "unavailable: " + d["reason"]
    print(f"  {d['name']}: {state} ({d['description']})")
if not jeet.gpu_available() or any(d["emulated"] for d in jeet.devices()):
    print("gpu-python-check: error: no usable GPU", file=sys.stderr)
    sys.exit(2)
PY
  exit 2
fi
echo "== the seed example =="
"$python" examples/seed.py 2>&1 | tee "$out/seed.log"
echo "== pytest -m gpu test/python, on the GPU =="
status=0
"$python" -m pytest -q -p no:cacheprovider -m gpu test/python \
  --junitxml="$out/pytest-gpu.xml" 2>&1 | tee "$out/pytest.log" ||
  status=$?
exit $status
