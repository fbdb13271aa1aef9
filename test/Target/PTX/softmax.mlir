// REQUIRES: ptxas
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_90 > %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=ENTRY < %t.sm90.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_80 > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx

// Softmax along the last axis: one kernel (a multi-reduction group: a block
// per 8 rows, the rows staged in shared memory (16-byte aligned, copied and
// read back by 16-byte accesses), a warp per row), also for
// rows of 32 KiB (a block per row, all 32 KiB staged); along the first
// axis, three kernels (max; exp and its sum; divide).

// ENTRY-COUNT-5: .entry
// ENTRY-NOT: .entry
// SM80-COUNT-5: .entry

// PTX-LABEL: .entry rows_kernel(
// PTX: .shared .align 16 .b8 __wg_rows_kernel_0[32000];
// PTX: ld.global.v4.b32
// PTX: st.shared.v4.b32
// PTX: bar.sync 0;
// PTX: max.NaN.f32
// PTX: shfl.sync.bfly.b32
// PTX: ex2.approx
// PTX: ld.shared.v4.b32
// PTX: div.rn.f32
// PTX: st.global.v4.b32
// PTX-LABEL: .entry columns_kernel(
func.func @rows(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %0 : tensor<64x1000xf32>
}

func.func @columns(%x: tensor<100x37xf32>) -> tensor<100x37xf32> {
  %0 = "jeet.softmax"(%x) {axis = 0 : i64} : (tensor<100x37xf32>) -> tensor<100x37xf32>
  return %0 : tensor<100x37xf32>
}

// PTX-LABEL: .entry long_rows_kernel(
// PTX: .shared .align 16 .b8 __wg_long_rows_kernel_0[32768];
// PTX: shfl.sync.bfly.b32
// PTX: div.rn.f32
func.func @long_rows(%x: tensor<3x8192xf32>) -> tensor<3x8192xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<3x8192xf32>) -> tensor<3x8192xf32>
  return %0 : tensor<3x8192xf32>
}
