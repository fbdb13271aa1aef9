// REQUIRES: ptxas
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_90 > %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=ENTRY < %t.sm90.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_80 > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx

// A transpose alone is a kernel; an elementwise op after it reads through
// it (one kernel for both), and a reshape is a view of its operand (no
// kernel of its own) that its consumer reads through.

// SM80-COUNT-2: .entry
// ENTRY-COUNT-2: .entry
// ENTRY-NOT: .entry

// PTX-LABEL: .entry transpose_kernel(
func.func @transpose(%a: tensor<16x32x8xf32>) -> tensor<8x16x32xf32> {
  %0 = "jeet.transpose"(%a) {permutation = array<i64: 2, 0, 1>} : (tensor<16x32x8xf32>) -> tensor<8x16x32xf32>
  return %0 : tensor<8x16x32xf32>
}

// PTX-LABEL: .entry transpose_exp_kernel(
// PTX: ex2.approx
func.func @transpose_exp(%a: tensor<16x32xf32>) -> tensor<32x16xf32> {
  %0 = "jeet.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<16x32xf32>) -> tensor<32x16xf32>
  %1 = "jeet.exp"(%0) : (tensor<32x16xf32>) -> tensor<32x16xf32>
  return %1 : tensor<32x16xf32>
}

func.func @reshape(%a: tensor<16x32xf32>) -> tensor<512xf32> {
  %0 = "jeet.reshape"(%a) : (tensor<16x32xf32>) -> tensor<512xf32>
  return %0 : tensor<512xf32>
}
