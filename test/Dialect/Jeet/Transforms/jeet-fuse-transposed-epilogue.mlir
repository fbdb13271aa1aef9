// RUN: jeet-opt %s --split-input-file --jeet-sink-reshapes --jeet-fuse=transposed-epilogues=true | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-sink-reshapes --jeet-fuse="transposed-epilogues=true max-ops=3" | FileCheck %s --check-prefix=CAP
// RUN: jeet-opt %s --split-input-file --jeet-sink-reshapes --jeet-fuse | FileCheck %s --check-prefix=OFF
// RUN: jeet-opt %s --split-input-file --jeet-sink-reshapes --jeet-fuse=transposed-epilogues=true --jeet-lower-to-linalg | FileCheck %s --check-prefix=TILES

// A convolution computed transposed (its 36 positions as the matmul's rows)
// moved back to NCHW: the reshape sinks below the bias and relu, and the
// transpose of the matmul's matrices joins the matmul's group with them, an
// epilogue over the transposed shape. Capped at three ops, the relu is a
// group of its own. Without the option the transpose goes with its readers
// (read in place), the matmul alone in its group. Lowered, the epilogue's
// tiles (64 channels x 36 positions) compute the matmul's tile (36 x 64)
// and read it through the transposed map.
// CHECK-LABEL: func.func @conv_transposed
// CHECK: jeet.fusion({{.*}}) -> tensor<1x64x36xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.relu
// CHECK-NEXT: jeet.yield
// CHECK: jeet.reshape %{{.*}} : tensor<1x64x36xf32> -> tensor<1x64x6x6xf32>
// CAP-LABEL: func.func @conv_transposed
// CAP: jeet.matmul
// CAP-NEXT: jeet.transpose
// CAP-NEXT: jeet.add
// CAP-NEXT: jeet.yield
// CAP: jeet.relu
// OFF-LABEL: func.func @conv_transposed
// OFF: jeet.matmul
// OFF-NEXT: jeet.yield
// OFF: jeet.transpose
// OFF-NEXT: jeet.add
// OFF-NEXT: jeet.relu
// TILES-LABEL: func.func @conv_transposed
// TILES: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (1, 64, 36) step (1, 64, 36)
// TILES: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x36x64xf32>)
// TILES: linalg.generic {indexing_maps = [#[[T:map[0-9]*]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x36x64xf32>, tensor<1x64xf32>) outs(%{{.*}} : tensor<1x64x36xf32>)
// TILES-NOT: linalg.generic
// TILES: scf.forall.in_parallel
func.func @conv_transposed(%x: tensor<1x36x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64x1x1xf32>) -> tensor<1x64x6x6xf32> {
  %m = jeet.matmul %x, %w : tensor<1x36x32xf32>, tensor<32x64xf32> -> tensor<1x36x64xf32>
  %t = jeet.transpose %m {permutation = array<i64: 0, 2, 1>} : tensor<1x36x64xf32> -> tensor<1x64x36xf32>
  %r = jeet.reshape %t : tensor<1x64x36xf32> -> tensor<1x64x6x6xf32>
  %a = jeet.add %r, %b : tensor<1x64x6x6xf32>, tensor<64x1x1xf32> -> tensor<1x64x6x6xf32>
  %y = jeet.relu %a : tensor<1x64x6x6xf32>
  return %y : tensor<1x64x6x6xf32>
}

// -----

// The matmul's result read by another op too: the transpose stays out of the
// matmul's group (the result is in memory anyway), read in place by the
// relu's group.
// CHECK-LABEL: func.func @result_read_twice
// CHECK: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: jeet.transpose
// CHECK-NEXT: jeet.relu
func.func @result_read_twice(%x: tensor<1x36x32xf32>, %w: tensor<32x64xf32>) -> (tensor<1x64x36xf32>, tensor<1x36x64xf32>) {
  %m = jeet.matmul %x, %w : tensor<1x36x32xf32>, tensor<32x64xf32> -> tensor<1x36x64xf32>
  %t = jeet.transpose %m {permutation = array<i64: 0, 2, 1>} : tensor<1x36x64xf32> -> tensor<1x64x36xf32>
  %y = jeet.relu %t : tensor<1x64x36xf32>
  return %y, %m : tensor<1x64x36xf32>, tensor<1x36x64xf32>
}

// -----

// A transpose that moves the batch dimension is not one of matrices: the
// matmul is alone in its group.
// CHECK-LABEL: func.func @batch_moved
// CHECK: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: jeet.transpose
// CHECK-NEXT: jeet.relu
func.func @batch_moved(%x: tensor<2x36x32xf32>, %w: tensor<32x64xf32>) -> tensor<36x2x64xf32> {
  %m = jeet.matmul %x, %w : tensor<2x36x32xf32>, tensor<32x64xf32> -> tensor<2x36x64xf32>
  %t = jeet.transpose %m {permutation = array<i64: 1, 0, 2>} : tensor<2x36x64xf32> -> tensor<36x2x64xf32>
  %y = jeet.relu %t : tensor<36x2x64xf32>
  return %y : tensor<36x2x64xf32>
}

// -----

// A matmul of fewer than 16 rows (a convolution at 3x3 positions) keeps its
// transpose out of its group: read in place by the group of its readers.
// CHECK-LABEL: func.func @few_rows
// CHECK: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: jeet.transpose
// CHECK-NEXT: jeet.relu
func.func @few_rows(%x: tensor<1x9x32xf32>, %w: tensor<32x64xf32>) -> tensor<1x64x9xf32> {
  %m = jeet.matmul %x, %w : tensor<1x9x32xf32>, tensor<32x64xf32> -> tensor<1x9x64xf32>
  %t = jeet.transpose %m {permutation = array<i64: 0, 2, 1>} : tensor<1x9x64xf32> -> tensor<1x64x9xf32>
  %y = jeet.relu %t : tensor<1x64x9xf32>
  return %y : tensor<1x64x9xf32>
}
