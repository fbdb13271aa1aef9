// REQUIRES: ptxas
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_90 > %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=ENTRY < %t.sm90.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_80 > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx

// Every elementwise op family, in f32, f16, bf16 and i32, assembled for
// sm_90 and sm_80: one .entry per function (each is one fusion group).

// ENTRY: .version 8.0
// ENTRY: .target sm_90
// SM80: .target sm_80
// ENTRY-COUNT-6: .entry
// ENTRY-NOT: .entry
// SM80-COUNT-6: .entry

// PTX-LABEL: .entry binary_kernel(
// PTX-DAG: ld.global
// PTX-DAG: st.global
func.func @binary(%a: tensor<33x65xf32>, %b: tensor<65xf32>) -> tensor<33x65xf32> {
  %0 = "jeet.add"(%a, %b) : (tensor<33x65xf32>, tensor<65xf32>) -> tensor<33x65xf32>
  %1 = "jeet.sub"(%0, %a) : (tensor<33x65xf32>, tensor<33x65xf32>) -> tensor<33x65xf32>
  %2 = "jeet.mul"(%1, %b) : (tensor<33x65xf32>, tensor<65xf32>) -> tensor<33x65xf32>
  %3 = "jeet.div"(%2, %a) : (tensor<33x65xf32>, tensor<33x65xf32>) -> tensor<33x65xf32>
  %4 = "jeet.max"(%3, %a) : (tensor<33x65xf32>, tensor<33x65xf32>) -> tensor<33x65xf32>
  %5 = "jeet.min"(%4, %b) : (tensor<33x65xf32>, tensor<65xf32>) -> tensor<33x65xf32>
  %6 = "jeet.pow"(%5, %a) : (tensor<33x65xf32>, tensor<33x65xf32>) -> tensor<33x65xf32>
  return %6 : tensor<33x65xf32>
}

// PTX-LABEL: .entry unary_kernel(
func.func @unary(%a: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = "jeet.neg"(%a) : (tensor<1000xf32>) -> tensor<1000xf32>
  %1 = "jeet.abs"(%0) : (tensor<1000xf32>) -> tensor<1000xf32>
  %2 = "jeet.exp"(%1) : (tensor<1000xf32>) -> tensor<1000xf32>
  %3 = "jeet.log"(%2) : (tensor<1000xf32>) -> tensor<1000xf32>
  %4 = "jeet.sqrt"(%3) : (tensor<1000xf32>) -> tensor<1000xf32>
  %5 = "jeet.rsqrt"(%4) : (tensor<1000xf32>) -> tensor<1000xf32>
  %6 = "jeet.tanh"(%5) : (tensor<1000xf32>) -> tensor<1000xf32>
  %7 = "jeet.sigmoid"(%6) : (tensor<1000xf32>) -> tensor<1000xf32>
  %8 = "jeet.relu"(%7) : (tensor<1000xf32>) -> tensor<1000xf32>
  %9 = "jeet.gelu"(%8) : (tensor<1000xf32>) -> tensor<1000xf32>
  return %9 : tensor<1000xf32>
}

// 256 halves: vectors of 8 (16 bytes) per thread.
// PTX-LABEL: .entry half_kernel(
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: st.global.v4.b32
func.func @half(%a: tensor<256xf16>, %b: tensor<256xf16>) -> tensor<256xf16> {
  %0 = "jeet.mul"(%a, %b) : (tensor<256xf16>, tensor<256xf16>) -> tensor<256xf16>
  %1 = "jeet.exp"(%0) : (tensor<256xf16>) -> tensor<256xf16>
  return %1 : tensor<256xf16>
}

// PTX-LABEL: .entry bfloat_kernel(
func.func @bfloat(%a: tensor<256xbf16>) -> tensor<256xbf16> {
  %0 = "jeet.tanh"(%a) : (tensor<256xbf16>) -> tensor<256xbf16>
  %1 = "jeet.add"(%0, %a) : (tensor<256xbf16>, tensor<256xbf16>) -> tensor<256xbf16>
  return %1 : tensor<256xbf16>
}

// PTX-LABEL: .entry integer_kernel(
func.func @integer(%a: tensor<300xi32>, %b: tensor<300xi32>) -> tensor<300xi32> {
  %0 = "jeet.add"(%a, %b) : (tensor<300xi32>, tensor<300xi32>) -> tensor<300xi32>
  %1 = "jeet.div"(%0, %b) : (tensor<300xi32>, tensor<300xi32>) -> tensor<300xi32>
  %2 = "jeet.abs"(%1) : (tensor<300xi32>) -> tensor<300xi32>
  return %2 : tensor<300xi32>
}

// A cast, a broadcast and a constant in one group.
// PTX-LABEL: .entry cast_broadcast_constant_kernel(
func.func @cast_broadcast_constant(%a: tensor<4xf32>) -> tensor<3x4xf16> {
  %c = "jeet.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "jeet.mul"(%a, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "jeet.broadcast_to"(%0) : (tensor<4xf32>) -> tensor<3x4xf32>
  %2 = "jeet.cast"(%1) : (tensor<3x4xf32>) -> tensor<3x4xf16>
  return %2 : tensor<3x4xf16>
}
