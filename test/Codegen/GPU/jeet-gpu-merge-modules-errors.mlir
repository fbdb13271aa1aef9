// RUN: jeet-opt %s -split-input-file -verify-diagnostics --jeet-gpu-merge-modules

// Kernels compiled for different chips cannot share one PTX module.
module attributes {gpu.container_module} {
  gpu.module @first [#nvvm.target<chip = "sm_90">] {
    gpu.func @first() kernel {
      gpu.return
    }
  }
  // expected-error @+1 {{has other targets than @first}}
  gpu.module @second [#nvvm.target<chip = "sm_80">] {
    gpu.func @second() kernel {
      gpu.return
    }
  }
}
