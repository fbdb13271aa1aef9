// REQUIRES: ptxas
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_90 > %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_80 > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin

// The math ops, in f32 and f16 (computed in f32): the rounding ops are
// one conversion each (floor rounds to minus infinity, ceil to plus infinity,
// round to the nearest even), the trigonometric and hyperbolic functions
// libdevice's code, inlined: no calls are left.

// CHECK-LABEL: .entry rounding_kernel(
// CHECK-DAG: cvt.rmi.f32.f32
// CHECK-DAG: cvt.rpi.f32.f32
// CHECK-DAG: cvt.rni.f32.f32
func.func @rounding(%x: tensor<8x256xf32>, %h: tensor<8x256xf16>) -> (tensor<8x256xf32>, tensor<8x256xf16>) {
  %0 = jeet.floor %x : tensor<8x256xf32>
  %1 = jeet.ceil %x : tensor<8x256xf32>
  %2 = jeet.round %x : tensor<8x256xf32>
  %s = jeet.add %0, %1 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %3 = jeet.add %s, %2 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %4 = jeet.round %h : tensor<8x256xf16>
  return %3, %4 : tensor<8x256xf32>, tensor<8x256xf16>
}

// CHECK-LABEL: .entry transcendental_kernel(
// CHECK-NOT: call
// CHECK: ret;
func.func @transcendental(%x: tensor<8x256xf32>, %u: tensor<8x256xf32>, %h: tensor<8x256xf16>) -> (tensor<8x256xf32>, tensor<8x256xf16>) {
  %0 = jeet.tan %u : tensor<8x256xf32>
  %1 = jeet.asin %u : tensor<8x256xf32>
  %2 = jeet.acos %u : tensor<8x256xf32>
  %3 = jeet.atan %x : tensor<8x256xf32>
  %4 = jeet.sinh %x : tensor<8x256xf32>
  %5 = jeet.cosh %x : tensor<8x256xf32>
  %6 = jeet.asinh %x : tensor<8x256xf32>
  %7 = jeet.acosh %x : tensor<8x256xf32>
  %8 = jeet.atanh %u : tensor<8x256xf32>
  %a = jeet.add %0, %1 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %b = jeet.add %a, %2 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %c = jeet.add %b, %3 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %d = jeet.add %c, %4 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %e = jeet.add %d, %5 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %f = jeet.add %e, %6 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %g = jeet.add %f, %7 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %r = jeet.add %g, %8 : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  %s = jeet.tan %h : tensor<8x256xf16>
  return %r, %s : tensor<8x256xf32>, tensor<8x256xf16>
}

// Remainders: floats libdevice's fmodf, inlined (no frem, which PTX
// lacks, and no call), integers a rem (their divisor made safe by selects).
// CHECK-LABEL: .entry remainder_kernel(
// CHECK-NOT: call
// CHECK: rem.s32
func.func @remainder(%a: tensor<8x256xf32>, %b: tensor<256xf32>, %i: tensor<8x256xi32>, %j: tensor<256xi32>) -> (tensor<8x256xf32>, tensor<8x256xi32>) {
  %0 = jeet.rem %a, %b : tensor<8x256xf32>, tensor<256xf32> -> tensor<8x256xf32>
  %1 = jeet.rem %i, %j : tensor<8x256xi32>, tensor<256xi32> -> tensor<8x256xi32>
  return %0, %1 : tensor<8x256xf32>, tensor<8x256xi32>
}
