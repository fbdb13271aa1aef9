#!/usr/bin/env bash
# Installs the optional peers of bench/peers.py with pip: JAX (XLA), torch
# (CPU build: inductor and oneDNN/MKL), onnxruntime with onnx, IREE's
# compiler and runtime, and threadpoolctl. Each one that is present already
# is left as it is; one that fails to install is reported and skipped (the
# benchmark leaves out what it cannot import).
set -u
PYTHON="${1:-python3}"

have() { "$PYTHON" -c "import $1" >/dev/null 2>&1; }

install() {
  local module="$1"; shift
  if have "$module"; then
    return 0
  fi
  echo "bench-setup: installing $*"
  "$PYTHON" -m pip install --quiet "$@" || echo "bench-setup: could not install $* (the benchmark leaves it out)"
}

# torch: the CPU build from PyTorch's own index, else PyPI's default build.
if ! have torch; then
  echo "bench-setup: installing torch (CPU build)"
  "$PYTHON" -m pip install --quiet torch --index-url https://download.pytorch.org/whl/cpu ||
    install torch torch
fi
install jax jax
install onnx onnx
install onnxruntime onnxruntime
install iree.compiler iree-base-compiler
install iree.runtime iree-base-runtime
install threadpoolctl threadpoolctl
exit 0
