// RUN: jeet-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(jeet-gpu-lower-to-emulator))'

// A gpu op the emulator has no counterpart for is reported, not dropped.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reduce(%out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %out[%c0] : memref<1xf32>
      // expected-error @+1 {{'gpu.subgroup_reduce' op is not supported by the emulation target}}
      %r = gpu.subgroup_reduce add %v : (f32) -> f32
      memref.store %r, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
}

// -----

// Shuffles exchange 32-bit words: 16-bit values have no lowering.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @shuffle16(%out: memref<1xf16>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %v = memref.load %out[%c0] : memref<1xf16>
      // expected-error @+1 {{'gpu.shuffle' op of 'f16' values is not supported by the emulation target}}
      %s, %ok = gpu.shuffle xor %v, %c1, %c32 : f16
      memref.store %s, %out[%c0] : memref<1xf16>
      gpu.return
    }
  }
}

// -----

// Workgroup attributions are laid out statically in the block's shared
// memory: they need static shapes and identity layouts.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{workgroup attribution #0 ('memref<4xf32, strided<[2]>, #gpu.address_space<workgroup>>') needs a static shape and an identity layout on the emulation target}}
    gpu.func @strided() workgroup(%tile: memref<4xf32, strided<[2]>, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}
