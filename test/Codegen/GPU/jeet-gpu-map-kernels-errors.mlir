// RUN: jeet-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(jeet-gpu-map-kernels))'

// A kernel forall that still has tensor results (the pass runs after
// bufferization).
func.func @forall_not_bufferized(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'scf.forall' op must be bufferized before it becomes a kernel}}
  %r = scf.forall (%i) in (1) shared_outs(%o = %e) -> (tensor<4xf32>) {
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %a into %o[0] [4] [1] : tensor<4xf32> into tensor<4xf32>
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return %r : tensor<4xf32>
}

// -----

// A linalg op on tensors inside a bufferized kernel forall.
func.func @op_not_bufferized(%a: tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    // expected-error @+1 {{'linalg.fill' op in a GPU kernel is not bufferized}}
    %f = linalg.fill ins(%zero : f32) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// An op whose output is indexed by its reduction dimension: the threads,
// which each keep their outputs in registers across the reduction, cannot
// share it.
func.func @write_along_reduction(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  scf.forall (%i) in (1) {
    // expected-error @+1 {{'linalg.generic' op writes along a reduction dimension}}
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A buffer of a tile that is already in another memory space.
func.func @alloc_in_memory_space(%a: memref<4xf32>) {
  scf.forall (%i) in (1) {
    // expected-error @+1 {{'memref.alloc' op cannot be placed in workgroup memory}}
    %t = memref.alloc() : memref<4xf32, #gpu.address_space<private>>
    memref.dealloc %t : memref<4xf32, #gpu.address_space<private>>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A buffer of a tile with a strided layout.
func.func @alloc_with_layout(%a: memref<4xf32>) {
  scf.forall (%i) in (1) {
    // expected-error @+1 {{'memref.alloc' op cannot be placed in workgroup memory}}
    %t = memref.alloc() : memref<4xf32, strided<[2]>>
    memref.dealloc %t : memref<4xf32, strided<[2]>>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A buffer of a tile whose size has no constant upper bound: workgroup
// memory is sized when the kernel is compiled.
func.func @alloc_unbounded(%n: index) {
  scf.forall (%i) in (1) {
    // expected-error @+1 {{'memref.alloc' op in a GPU kernel has a size with no constant bound}}
    %t = memref.alloc(%n) : memref<?xf32>
    memref.dealloc %t : memref<?xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// The buffers of one kernel need more workgroup memory than a block has
// (48 KiB): 32 KiB each, the second one is too many.
func.func @workgroup_overflow() {
  scf.forall (%i) in (1) {
    %t = memref.alloc() : memref<8192xf32>
    // expected-error @+1 {{'memref.alloc' op needs 65536 bytes of workgroup memory in one kernel, more than the 49152 available}}
    %u = memref.alloc() : memref<8192xf32>
    memref.dealloc %t : memref<8192xf32>
    memref.dealloc %u : memref<8192xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
