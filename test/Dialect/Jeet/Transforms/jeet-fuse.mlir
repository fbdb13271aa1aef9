// RUN: jeet-opt %s --split-input-file --jeet-fuse | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-fuse=enable=false | FileCheck %s --check-prefix=NOFUSE
// RUN: jeet-opt %s --split-input-file --jeet-fuse=max-ops=3 | FileCheck %s --check-prefix=CAP
// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse | FileCheck %s --check-prefix=SOFTMAX

// A chain of ten elementwise additions is one group; unfused it is ten; with
// max-ops=3 it is split into groups of 3, 3, 3 and 1.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: jeet.fusion
// CHECK-COUNT-10: jeet.add
// CHECK-NOT: jeet.fusion
// CHECK: return
// NOFUSE-LABEL: func.func @chain
// NOFUSE-COUNT-10: jeet.fusion
// NOFUSE-NOT: jeet.fusion
// NOFUSE: return
// CAP-LABEL: func.func @chain
// CAP-COUNT-3: jeet.add
// CAP-NEXT: jeet.yield
// CAP-COUNT-3: jeet.add
// CAP-NEXT: jeet.yield
// CAP-COUNT-3: jeet.add
// CAP-NEXT: jeet.yield
// CAP-NEXT: }
// CAP-NEXT: jeet.fusion
// CAP-NEXT: ^bb0
// CAP-NEXT: jeet.add
// CAP-NEXT: jeet.yield
// CAP-NOT: jeet.fusion
// CAP: return
func.func @chain(%x: tensor<16xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
  %0 = jeet.add %x, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %1 = jeet.add %0, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %2 = jeet.add %1, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %3 = jeet.add %2, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %4 = jeet.add %3, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %5 = jeet.add %4, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %6 = jeet.add %5, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %7 = jeet.add %6, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %8 = jeet.add %7, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %9 = jeet.add %8, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return %9 : tensor<16xf32>
}

// -----

// A 3-layer MLP is three groups: each matmul takes its bias add and relu as an
// epilogue, the bias is a group input, and no group holds two matmuls.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W1:.*]]: tensor<16x16xf32>, %[[B1:.*]]: tensor<16xf32>, %[[W2:.*]]: tensor<16x16xf32>, %[[B2:.*]]: tensor<16xf32>, %[[W3:.*]]: tensor<16x4xf32>, %[[B3:.*]]: tensor<4xf32>)
// CHECK: %[[L1:.*]] = jeet.fusion(%[[X]], %[[W1]], %[[B1]])
// CHECK: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.relu
// CHECK-NEXT: jeet.yield
// CHECK: %[[L2:.*]] = jeet.fusion(%[[L1]], %[[W2]], %[[B2]])
// CHECK: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.relu
// CHECK-NEXT: jeet.yield
// CHECK: %[[L3:.*]] = jeet.fusion(%[[L2]], %[[W3]], %[[B3]])
// CHECK: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.relu
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return %[[L3]]
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>, %b1: tensor<16xf32>,
               %w2: tensor<16x16xf32>, %b2: tensor<16xf32>,
               %w3: tensor<16x4xf32>, %b3: tensor<4xf32>) -> tensor<8x4xf32> {
  %0 = jeet.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %1 = jeet.add %0, %b1 : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %2 = jeet.relu %1 : tensor<8x16xf32>
  %3 = jeet.matmul %2, %w2 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %4 = jeet.add %3, %b2 : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %5 = jeet.relu %4 : tensor<8x16xf32>
  %6 = jeet.matmul %5, %w3 : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %7 = jeet.add %6, %b3 : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
  %8 = jeet.relu %7 : tensor<8x4xf32>
  return %8 : tensor<8x4xf32>
}

// -----

// A matmul whose consumer adds another matmul's result: the add is the first
// matmul's epilogue and the second matmul stays in a group of its own.
// CHECK-LABEL: func.func @two_matmuls
// CHECK: %[[M:.*]] = jeet.fusion
// CHECK-COUNT-1: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}, %{{.*}}, %[[M]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
func.func @two_matmuls(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = jeet.matmul %b, %a : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %1 = jeet.matmul %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %2 = jeet.add %1, %0 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----

// Sum of squares is one group: the reduction takes the mul as a prologue.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.mul
// CHECK-NEXT: jeet.reduce_sum
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
func.func @sum_of_squares(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = jeet.mul %x, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = jeet.reduce_sum %0 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A mean (sum / N) is one group: an elementwise op with the reduced shape that
// reads the reduction joins it as an epilogue; the splat N is cloned in.
// CHECK-LABEL: func.func @mean
// CHECK: jeet.fusion(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.constant
// CHECK-NEXT: jeet.reduce_sum
// CHECK-NEXT: jeet.div
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK-NOT: jeet.constant
func.func @mean(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %n = jeet.constant dense<8.0> : tensor<f32>
  %0 = jeet.reduce_sum %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %1 = jeet.div %0, %n : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Two reductions in a row are two groups.
// CHECK-LABEL: func.func @two_reductions
// CHECK: %[[S:.*]] = jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.reduce_sum
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%[[S]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.reduce_max
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
func.func @two_reductions(%x: tensor<4x8xf32>) -> tensor<f32> {
  %0 = jeet.reduce_sum %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %1 = jeet.reduce_max %0 {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// Softmax after jeet-decompose is three groups, and only the input and the
// output are full-size tensors between groups: the row max, then the row sum
// of exp(x - max), then exp(x - max) / sum, recomputing x - max and the exp
// rather than reading them back from memory.
// SOFTMAX-LABEL: func.func @softmax
// SOFTMAX-SAME: (%[[X:.*]]: tensor<64x128xf32>)
// SOFTMAX: %[[MAX:.*]] = jeet.fusion(%[[X]]) : (tensor<64x128xf32>) -> tensor<64x1xf32>
// SOFTMAX-NEXT: ^bb0
// SOFTMAX-NEXT: jeet.reduce_max
// SOFTMAX-NEXT: jeet.yield
// SOFTMAX: %[[SUM:.*]] = jeet.fusion(%[[X]], %[[MAX]]) : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
// SOFTMAX-NEXT: ^bb0
// SOFTMAX-NEXT: jeet.sub
// SOFTMAX-NEXT: jeet.exp
// SOFTMAX-NEXT: jeet.reduce_sum
// SOFTMAX-NEXT: jeet.yield
// SOFTMAX: %[[OUT:.*]] = jeet.fusion(%[[X]], %[[MAX]], %[[SUM]]) : (tensor<64x128xf32>, tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
// SOFTMAX-NEXT: ^bb0
// SOFTMAX-NEXT: jeet.sub
// SOFTMAX-NEXT: jeet.exp
// SOFTMAX-NEXT: jeet.div
// SOFTMAX-NEXT: jeet.yield
// SOFTMAX-NOT: jeet.fusion
// SOFTMAX: return %[[OUT]]
// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// Recompute: a broadcast of a function argument read by two matmul epilogues
// is cloned into both groups instead of being a group of its own.
// CHECK-LABEL: func.func @recompute
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.broadcast_to
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.broadcast_to
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
func.func @recompute(%a: tensor<8x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>,
                     %b: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %bb = jeet.broadcast_to %b : tensor<16xf32> -> tensor<8x16xf32>
  %0 = jeet.matmul %a, %w1 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %1 = jeet.add %0, %bb : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %2 = jeet.matmul %a, %w2 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %3 = jeet.add %2, %bb : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %1, %3 : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Materialise: a matmul result read by its relu epilogue and by another matmul
// is yielded once by its group, which has two results.
// CHECK-LABEL: func.func @materialise_matmul
// CHECK: %[[G:.*]]:2 = jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[MM:.*]] = jeet.matmul
// CHECK-NEXT: %[[R:.*]] = jeet.relu %[[MM]]
// CHECK-NEXT: jeet.yield %[[MM]], %[[R]]
// CHECK: %[[H:.*]] = jeet.fusion(%[[G]]#0, %{{.*}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return %[[G]]#1, %[[H]]
func.func @materialise_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = jeet.matmul %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %1 = jeet.relu %0 : tensor<8x8xf32>
  %2 = jeet.matmul %0, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %1, %2 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Materialise: a chain of four elementwise ops read by two matmul epilogues is
// too long to recompute; its group yields it once and both epilogues read it.
// CHECK-LABEL: func.func @materialise_chain
// CHECK: %[[C:.*]] = jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.neg
// CHECK-NEXT: jeet.tanh
// CHECK-NEXT: jeet.abs
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}, %{{.*}}, %[[C]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}, %{{.*}}, %[[C]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
func.func @materialise_chain(%a: tensor<8x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>,
                             %b: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %c0 = jeet.exp %b : tensor<8x16xf32>
  %c1 = jeet.neg %c0 : tensor<8x16xf32>
  %c2 = jeet.tanh %c1 : tensor<8x16xf32>
  %c3 = jeet.abs %c2 : tensor<8x16xf32>
  %0 = jeet.matmul %a, %w1 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %1 = jeet.add %0, %c3 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %2 = jeet.matmul %a, %w2 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %3 = jeet.add %2, %c3 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %1, %3 : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A diamond (a -> b, a -> c, b + c -> d) is one group.
// CHECK-LABEL: func.func @diamond
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.neg
// CHECK-NEXT: jeet.abs
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = jeet.exp %x : tensor<16xf32>
  %b = jeet.neg %a : tensor<16xf32>
  %c = jeet.abs %a : tensor<16xf32>
  %d = jeet.add %b, %c : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return %d : tensor<16xf32>
}

// -----

// The add cannot join the matmul's epilogue: the path matmul -> transpose ->
// add would leave the group and come back. It reads the matmul's result in
// memory twice, once through the transpose (cloned into its group: no group
// of its own). Two groups, in a valid order.
// CHECK-LABEL: func.func @cycle
// CHECK: %[[M:.*]] = jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%[[M]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
func.func @cycle(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = jeet.matmul %x, %w : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %1 = jeet.transpose %0 {permutation = array<i64: 1, 0>} : tensor<8x8xf32> -> tensor<8x8xf32>
  %2 = jeet.add %0, %1 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----

// Constants: a splat is cloned into the group, a large constant (more than
// 256 elements) is an input; unfused, each op is alone and still clones it.
// CHECK-LABEL: func.func @constants
// CHECK: %[[BIG:.*]] = jeet.constant dense<{{.*}}> : tensor<300xf32>
// CHECK: jeet.fusion(%{{.*}}, %[[BIG]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: jeet.mul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// NOFUSE-LABEL: func.func @constants
// NOFUSE: jeet.fusion
// NOFUSE-NEXT: ^bb0
// NOFUSE-NEXT: jeet.constant dense<2.000000e+00> : tensor<f32>
// NOFUSE-NEXT: jeet.mul
// NOFUSE: jeet.fusion
// NOFUSE-NEXT: ^bb0
// NOFUSE-NEXT: jeet.add
// NOFUSE-NOT: jeet.fusion
func.func @constants(%x: tensor<300xf32>) -> tensor<300xf32> {
  %two = jeet.constant dense<2.0> : tensor<f32>
  %big = jeet.constant dense<"0x000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E420000A0420000A2420000A4420000A6420000A8420000AA420000AC420000AE420000B0420000B2420000B4420000B6420000B8420000BA420000BC420000BE420000C0420000C2420000C4420000C6420000C8420000CA420000CC420000CE420000D0420000D2420000D4420000D6420000D8420000DA420000DC420000DE420000E0420000E2420000E4420000E6420000E8420000EA420000EC420000EE420000F0420000F2420000F4420000F6420000F8420000FA420000FC420000FE420000004300000143000002430000034300000443000005430000064300000743000008430000094300000A4300000B4300000C4300000D4300000E4300000F430000104300001143000012430000134300001443000015430000164300001743000018430000194300001A4300001B4300001C4300001D4300001E4300001F430000204300002143000022430000234300002443000025430000264300002743000028430000294300002A4300002B4300002C4300002D4300002E4300002F430000304300003143000032430000334300003443000035430000364300003743000038430000394300003A4300003B4300003C4300003D4300003E4300003F430000404300004143000042430000434300004443000045430000464300004743000048430000494300004A4300004B4300004C4300004D4300004E4300004F430000504300005143000052430000534300005443000055430000564300005743000058430000594300005A4300005B4300005C4300005D4300005E4300005F430000604300006143000062430000634300006443000065430000664300006743000068430000694300006A4300006B4300006C4300006D4300006E4300006F430000704300007143000072430000734300007443000075430000764300007743000078430000794300007A4300007B4300007C4300007D4300007E4300007F43000080430080804300008143008081430000824300808243000083430080834300008443008084430000854300808543000086430080864300008743008087430000884300808843000089430080894300008A4300808A4300008B4300808B4300008C4300808C4300008D4300808D4300008E4300808E4300008F4300808F43000090430080904300009143008091430000924300809243000093430080934300009443008094430000954300809543"> : tensor<300xf32>
  %0 = jeet.mul %x, %two : tensor<300xf32>, tensor<f32> -> tensor<300xf32>
  %1 = jeet.add %0, %big : tensor<300xf32>, tensor<300xf32> -> tensor<300xf32>
  return %1 : tensor<300xf32>
}

// -----

// Softmax of a matmul result: x - max and exp are recomputed from the matmul's
// result, which is in memory anyway, so the row-sum group yields only the sum.
// SOFTMAX-LABEL: func.func @softmax_of_matmul
// SOFTMAX: %[[MM:.*]] = jeet.fusion
// SOFTMAX: %[[MAX:.*]] = jeet.fusion(%[[MM]])
// SOFTMAX: %[[SUM:.*]] = jeet.fusion(%[[MM]], %[[MAX]]) : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
// SOFTMAX: jeet.fusion(%[[MM]], %[[MAX]], %[[SUM]]) : (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
// SOFTMAX-NOT: jeet.fusion
// CHECK-LABEL: func.func @softmax_of_matmul
// NOFUSE-LABEL: func.func @softmax_of_matmul
func.func @softmax_of_matmul(%a: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %0 = jeet.matmul %a, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %1 = jeet.softmax %0 {axis = 1 : i64} : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// Comparisons, selects and the logical ops are elementwise: a matmul takes a
// leaky relu written with them (and a mask combined with `and`) as its
// epilogue, one group.
// CHECK-LABEL: func.func @compare_select_epilogue
// SOFTMAX-LABEL: func.func @compare_select_epilogue
// CHECK: jeet.fusion
// CHECK: jeet.matmul
// CHECK-NEXT: jeet.gt
// CHECK-NEXT: jeet.mul
// CHECK-NEXT: jeet.select
// CHECK-NEXT: jeet.lt
// CHECK-NEXT: jeet.and
// CHECK-NEXT: jeet.select
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @compare_select_epilogue(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %m: tensor<4xi1>) -> tensor<8x4xf32> {
  %z = jeet.constant dense<0.0> : tensor<f32>
  %s = jeet.constant dense<0.1> : tensor<f32>
  %0 = jeet.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = jeet.gt %0, %z : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xi1>
  %2 = jeet.mul %0, %s : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
  %3 = jeet.select %1, %0, %2 : tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  %4 = jeet.lt %3, %s : tensor<8x4xf32>, tensor<f32> -> tensor<8x4xi1>
  %5 = jeet.and %4, %m : tensor<8x4xi1>, tensor<4xi1> -> tensor<8x4xi1>
  %6 = jeet.select %5, %z, %3 : tensor<8x4xi1>, tensor<f32>, tensor<8x4xf32> -> tensor<8x4xf32>
  return %6 : tensor<8x4xf32>
}
