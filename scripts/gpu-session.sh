#!/usr/bin/env bash
# Every check of a GPU machine in one command, each step with a time limit,
# for a machine lent for minutes (docs/GPU.md):
#
#   scripts/gpu-session.sh CHECKDIR WHEEL OUTDIR
#
# CHECKDIR is what `scripts/gpu-check.sh prepare` wrote; WHEEL a
# self-contained wheel for the GPU machine's Python (`make wheel
# PYTHON=python3.12 WHEEL_BUILD_DIR=build-wheel312`), or - to leave the
# Python package out. Runs, in order:
# nvidia-smi; `gpu-check.sh run` (the ahead-of-time artifacts, their tables,
# compute-sanitizer; 420 s at most); `gpu-python-check.sh` (the JIT path, 180 s);
# bench/gpu_peers.py (PyTorch on the same workloads, 120 s). Writes at most
# seven files to OUTDIR: smi.txt, gpu-check.txt (its console),
# table.txt, run.log and build.log (gpu-check's), python.txt, peers.txt.
# Exit status: gpu-check's.
set -uo pipefail
[ $# -eq 3 ] || {
  sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
  exit 2
}
check=$1
wheel=$2
out=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PYTHONUNBUFFERED=1
mkdir -p "$out"
work=$(mktemp -d)
{
  nvidia-smi
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv
  command -v compute-sanitizer
} >"$out/smi.txt" 2>&1
echo "== gpu-check.sh run =="
timeout 420 bash "$root/scripts/gpu-check.sh" run "$check" "$work/check" 2>&1 |
  tee "$out/gpu-check.txt"
status=${PIPESTATUS[0]}
echo "gpu-check: exit status $status" | tee -a "$out/gpu-check.txt"
for f in table.txt run.log build.log; do
  [ -f "$work/check/$f" ] && cp "$work/check/$f" "$out/$f"
done
if [ "$wheel" != - ]; then
  echo "== gpu-python-check.sh =="
  timeout 180 bash "$root/scripts/gpu-python-check.sh" "$wheel" \
    "$work/python" >"$out/python.txt" 2>&1
  echo "gpu-python-check: exit status $?" | tee -a "$out/python.txt"
  tail -5 "$out/python.txt"
fi
echo "== bench/gpu_peers.py =="
timeout 120 python3 "$root/bench/gpu_peers.py" --compile 2>&1 |
  tee "$out/peers.txt"
rm -rf "$work"
exit "$status"
