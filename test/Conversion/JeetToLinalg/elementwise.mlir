// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @add
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : {{.*}}) outs(%[[E]] : {{.*}})
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: return %[[R]]
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.add %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @float_binary
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: math.powf
func.func @float_binary(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.sub %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = jeet.mul %0, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = jeet.div %1, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = jeet.max %2, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %4 = jeet.min %3, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %5 = jeet.pow %4, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %5 : tensor<4xf32>
}

// CHECK-LABEL: func.func @int_binary
// CHECK: arith.addi
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: arith.divsi
// CHECK: arith.maxsi
// CHECK: arith.minsi
func.func @int_binary(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = jeet.add %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %1 = jeet.sub %0, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %2 = jeet.mul %1, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %3 = jeet.div %2, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %4 = jeet.max %3, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %5 = jeet.min %4, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return %5 : tensor<4xi32>
}

// Integer powers square and multiply once per bit of the exponent below its
// sign bit (31 steps of i32, 30 squarings), then choose the negative
// exponents' values: 1 for a base of 1, -1 or 1 for -1, else 0.
// CHECK-LABEL: func.func @int_pow
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-COUNT-30: arith.shrui
// CHECK-NOT: arith.shrui
// CHECK: %[[LOW:.*]] = arith.andi %[[Y]], %{{.*}} : i32
// CHECK-NEXT: %[[ODD:.*]] = arith.cmpi ne, %[[LOW]]
// CHECK: %[[SIGN:.*]] = arith.select %[[ODD]], %{{.*}}, %{{.*}} : i32
// CHECK: %[[MINUS:.*]] = arith.cmpi eq, %[[X]], %{{.*}} : i32
// CHECK: %[[M:.*]] = arith.select %[[MINUS]], %[[SIGN]], %{{.*}} : i32
// CHECK: %[[PLUS:.*]] = arith.cmpi eq, %[[X]], %{{.*}} : i32
// CHECK: %[[R:.*]] = arith.select %[[PLUS]], %{{.*}}, %[[M]] : i32
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[Y]], %{{.*}} : i32
// CHECK: %[[P:.*]] = arith.select %[[NEG]], %[[R]], %{{.*}} : i32
// CHECK-NEXT: linalg.yield %[[P]]
func.func @int_pow(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = jeet.pow %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @float_unary
// CHECK: arith.negf
// CHECK: math.absf
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: math.tanh
func.func @float_unary(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.neg %a : tensor<4xf32>
  %1 = jeet.abs %0 : tensor<4xf32>
  %2 = jeet.exp %1 : tensor<4xf32>
  %3 = jeet.log %2 : tensor<4xf32>
  %4 = jeet.sqrt %3 : tensor<4xf32>
  %5 = jeet.rsqrt %4 : tensor<4xf32>
  %6 = jeet.tanh %5 : tensor<4xf32>
  return %6 : tensor<4xf32>
}

// relu is maximumf with +0.0, so that NaN propagates.
// CHECK-LABEL: func.func @relu
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[X]], %[[Z]] : f32
// CHECK: linalg.yield %[[M]]
func.func @relu(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.relu %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @int_unary
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: arith.subi %[[Z]], %[[X]] : i32
// CHECK: math.absi
// CHECK: ^bb0(%[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[Z2:.*]] = arith.constant 0 : i32
// CHECK: arith.maxsi %[[Y]], %[[Z2]] : i32
func.func @int_unary(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = jeet.neg %a : tensor<4xi32>
  %1 = jeet.abs %0 : tensor<4xi32>
  %2 = jeet.relu %1 : tensor<4xi32>
  return %2 : tensor<4xi32>
}

// CHECK-LABEL: func.func @sigmoid
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[N:.*]] = arith.negf %[[X]]
// CHECK: %[[E:.*]] = math.exp %[[N]]
// CHECK: %[[D:.*]] = arith.addf %[[ONE]], %[[E]]
// CHECK: %[[R:.*]] = arith.divf %[[ONE]], %[[D]]
// CHECK: linalg.yield %[[R]]
func.func @sigmoid(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.sigmoid %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// gelu in its tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK: %[[X3:.*]] = arith.mulf %[[X2]], %[[X]]
// CHECK: %[[C:.*]] = arith.constant 4.471500e-02
// CHECK: %[[CX3:.*]] = arith.mulf %[[C]], %[[X3]]
// CHECK: %[[IN:.*]] = arith.addf %[[X]], %[[CX3]]
// CHECK: %[[K:.*]] = arith.constant 0.797884583
// CHECK: %[[S:.*]] = arith.mulf %[[K]], %[[IN]]
// CHECK: %[[T:.*]] = math.tanh %[[S]]
// CHECK: %[[T1:.*]] = arith.addf %{{.*}}, %[[T]]
// CHECK: %[[H:.*]] = arith.mulf %{{.*}}, %[[X]]
// CHECK: %[[R:.*]] = arith.mulf %[[H]], %[[T1]]
// CHECK: linalg.yield %[[R]]
func.func @gelu_tanh(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.gelu %a {approximate = "tanh"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// gelu in its exact form (the default): 0.5 x (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu_exact
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[K:.*]] = arith.constant 0.707106769
// CHECK: %[[S:.*]] = arith.mulf %[[X]], %[[K]]
// CHECK: %[[E:.*]] = math.erf %[[S]]
// CHECK: %[[E1:.*]] = arith.addf %{{.*}}, %[[E]]
// CHECK: %[[H:.*]] = arith.mulf %{{.*}}, %[[X]]
// CHECK: %[[R:.*]] = arith.mulf %[[H]], %[[E1]]
// CHECK: linalg.yield %[[R]]
func.func @gelu_exact(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.gelu %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A comparison and a select in one loop nest: NaN compares false (ordered
// predicates) except in `ne`; f16 compares in f32; booleans unsigned.
// CHECK-LABEL: func.func @compare_select
// CHECK: linalg.generic
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[H:.*]]: f16, %[[P:.*]]: i1, %{{.*}}: f32, %{{.*}}: i1, %{{.*}}: i1):
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK: %[[S:.*]] = arith.select %[[LT]], %[[A]], %[[B]] : f32
// CHECK: %[[W:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[W2:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[NE:.*]] = arith.cmpf une, %[[W]], %[[W2]] : f32
// CHECK: %[[GT:.*]] = arith.cmpi ugt, %[[P]], %[[NE]] : i1
// CHECK: linalg.yield %[[S]], %[[NE]], %[[GT]]
func.func @compare_select(%a: tensor<4xf32>, %b: tensor<4xf32>, %h: tensor<4xf16>, %p: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xi1>) {
  %f:3 = jeet.fusion (%a, %b, %h, %p) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xi1>) {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf16>, %q: tensor<4xi1>):
    %0 = jeet.lt %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
    %1 = jeet.select %0, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %2 = jeet.ne %z, %z : tensor<4xf16>, tensor<4xf16> -> tensor<4xi1>
    %3 = jeet.gt %q, %2 : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
    jeet.yield %1, %2, %3 : tensor<4xf32>, tensor<4xi1>, tensor<4xi1>
  }
  return %f#0, %f#1, %f#2 : tensor<4xf32>, tensor<4xi1>, tensor<4xi1>
}

// A boolean becomes f16 as the bits of 1.0 or 0: arith.uitofp of 16 lanes
// of a bf16 comparison aborts LLVM 22's X86 back end on AVX512-FP16 hosts.
// CHECK-LABEL: func.func @bool_to_f16
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %{{.*}}: f16):
// CHECK: %[[C:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 15360 : i16
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i16
// CHECK: %[[B:.*]] = arith.select %[[C]], %[[ONE]], %[[ZERO]] : i16
// CHECK: %[[H:.*]] = arith.bitcast %[[B]] : i16 to f16
// CHECK-NOT: arith.uitofp
// CHECK: linalg.yield %[[H]]
func.func @bool_to_f16(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xf16> {
  %f = jeet.fusion (%a, %b) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xbf16>, %y: tensor<4xbf16>):
    %0 = jeet.le %x, %y : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xi1>
    %1 = jeet.cast %0 : tensor<4xi1> -> tensor<4xf16>
    jeet.yield %1 : tensor<4xf16>
  }
  return %f : tensor<4xf16>
}

// not is xor with all ones.
// CHECK-LABEL: func.func @not
// CHECK: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: arith.xori %{{.*}}, %[[ONES]] : i32
func.func @not(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = jeet.not %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// Transcendental functions of f16/bf16 are computed in f32; plain arithmetic
// stays in the element type.
// CHECK-LABEL: func.func @half
// CHECK: ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[W]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[E]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[N]] : bf16
// CHECK: ^bb0(%[[Y:.*]]: bf16, %[[Z:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: arith.addf %[[Y]], %[[Z]] : bf16
// CHECK: ^bb0(%[[H:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[HW:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT: math.tanh %[[HW]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @half(%a: tensor<4xbf16>, %b: tensor<4xf16>) -> (tensor<4xbf16>, tensor<4xf16>) {
  %0 = jeet.exp %a : tensor<4xbf16>
  %1 = jeet.add %0, %a : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xbf16>
  %2 = jeet.tanh %b : tensor<4xf16>
  return %1, %2 : tensor<4xbf16>, tensor<4xf16>
}

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]]
func.func @constant() -> tensor<2xf32> {
  %0 = jeet.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
