// RUN: jeet-opt %s --jeet-cpu-pipeline="matmul-register-cols=16" --mlir-print-ir-after=jeet-cpu-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: jeet-opt %s --jeet-cpu-pipeline="matmul-register-cols=64" --mlir-print-ir-after=jeet-cpu-matmul -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512

// matmul-register-cols sets the columns of jeet-cpu-matmul's 6-row register
// tile (by default from the host: 64 with AVX-512's 32 vector registers,
// 16 with AVX2's 16). With 16, B's panels are 16 columns wide and the full
// tile carries 6 accumulators of 16 f32 (12 AVX2 registers) over k; with
// 64, 4 panels fewer and 24 accumulators (24 AVX-512 registers). (128
// rows: a product of fewer, yielded alone, is tiled over its columns, each
// tile reading B in place.)
// AVX2:       memref.alloc() {{.*}} : memref<8x32x16xf32>
// AVX2:       %{{.*}}:6 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// AVX2-NOT:   %{{.*}}:24 = scf.for
// AVX512:     memref.alloc() {{.*}} : memref<2x32x64xf32>
// AVX512:     %{{.*}}:24 = scf.for {{.*}} -> (vector<16xf32>,
func.func @main(%a: tensor<128x32xf32>, %b: tensor<32x128xf32>) -> tensor<128x128xf32> {
  %0 = jeet.matmul %a, %b : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}
