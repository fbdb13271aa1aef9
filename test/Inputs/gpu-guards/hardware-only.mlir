// REQUIRES: cuda-driver
// Hardware-only: UNSUPPORTED without a GPU, never a vacuous PASS.
// RUN: %if cuda-driver %{ jeet-run %s --device=gpu --benchmark=5 | FileCheck %s %}
// CHECK: benchmark:
