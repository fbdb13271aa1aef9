// RUN: jeet-opt %s --pass-pipeline='builtin.module(gpu.module(jeet-gpu-align-workgroup-memory))' | FileCheck %s

// Every workgroup attribution of an outlined kernel is 16-byte aligned (the
// 16-byte vector accesses of jeet-gpu-map-kernels need it); one that asks for
// more keeps its alignment, one that asks for less gets 16.
// CHECK-LABEL: gpu.func @rows
// CHECK-SAME: workgroup(%{{.*}} : memref<2x1000xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-LABEL: gpu.func @asks
// CHECK-SAME: workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64}, %{{.*}} : memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-LABEL: gpu.func @none
// CHECK-NOT: llvm.align
gpu.module @kernels {
  gpu.func @rows(%out: memref<2x1000xf32>)
      workgroup(%rows: memref<2x1000xf32, #gpu.address_space<workgroup>>,
                %slots: memref<8xf32, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
  gpu.func @asks(%out: memref<64xf32>)
      workgroup(%a: memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                %b: memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 4 : i64}) kernel {
    gpu.return
  }
  gpu.func @none(%out: memref<64xf32>) kernel {
    gpu.return
  }
}
