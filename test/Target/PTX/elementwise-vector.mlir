// REQUIRES: ptxas
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_90 > %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_80 > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s < %t.sm80.ptx

// Elementwise kernels whose innermost dimension is a multiple of 4 floats
// read and write 16 bytes per access (`.v4` of 32 bits, printed as b32 or
// f32); other shapes keep scalar accesses.

// A chain of 10 ops on 1024x1024 floats with a broadcast scalar: both inputs
// in vectors of 4, the scalar alone, the result in vectors of 4.
// CHECK-LABEL: .entry chain_kernel(
// CHECK-DAG: ld.global.v4.{{[bf]}}32
// CHECK-DAG: ld.global.v4.{{[bf]}}32
// CHECK-DAG: st.global.v4.{{[bf]}}32
// CHECK-NOT: st.global.{{[bf]}}32
// CHECK: ret;
func.func @chain(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %s: tensor<f32>) -> tensor<1024x1024xf32> {
  %0 = "jeet.add"(%a, %b) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = "jeet.mul"(%0, %a) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %2 = "jeet.exp"(%1) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %3 = "jeet.sub"(%2, %b) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %4 = "jeet.tanh"(%3) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %5 = "jeet.max"(%4, %a) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %6 = "jeet.neg"(%5) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %7 = "jeet.relu"(%6) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %8 = "jeet.add"(%7, %s) : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %9 = "jeet.sigmoid"(%8) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %9 : tensor<1024x1024xf32>
}

// 5 floats per row: scalar accesses only.
// CHECK-LABEL: .entry odd_kernel(
// CHECK-NOT: .v4
// CHECK-DAG: ld.global.{{[bf]}}32
// CHECK-DAG: st.global.{{[bf]}}32
// CHECK-NOT: .v4
// CHECK: ret;
func.func @odd(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "jeet.add"(%a, %b) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %1 = "jeet.exp"(%0) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %1 : tensor<3x5xf32>
}
