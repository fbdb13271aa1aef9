#!/usr/bin/env bash
# The main job: the seed's Python example (when the Python package is built),
# then an MLP graph through jeet-run, on the CPU where there is no GPU.
set -euo pipefail
build=${1:-build}
python=${2:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)

if [ -f "$build/python/jeet/__init__.py" ]; then
  echo "== examples/seed.py =="
  PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" "$python" "$root/examples/seed.py"
  echo
fi

echo "== jeet-run examples/mlp.mlir =="
"$build/bin/jeet-run" "$root/examples/mlp.mlir" --device=auto --print-stats \
  --input=2x4xf32=0.5,-1,2,0.25,1,0,-0.5,3 \
  --input=4x8xf32=0.1,0.2,-0.3,0.4,0.5,-0.6,0.7,0.8,-0.1,0.2,0.3,-0.4,0.5,0.6,-0.7,0.8,0.1,-0.2,0.3,0.4,-0.5,0.6,0.7,-0.8,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8 \
  --input=8xf32=0.1,0,-0.1,0.2,0,0.1,-0.2,0 \
  --input=8x3xf32=0.3,-0.1,0.2,0.1,0.4,-0.3,-0.2,0.1,0.5,0.6,-0.4,0.1,0.2,0.2,0.2,-0.5,0.3,0.1,0.4,-0.2,0.3,0.1,0.1,-0.1 \
  --input=3xf32=0.01,0.02,0.03
