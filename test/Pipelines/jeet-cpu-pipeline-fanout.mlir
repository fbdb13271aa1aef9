// RUN: jeet-opt %s --jeet-cpu-pipeline \
// RUN:   --mlir-print-ir-before=jeet-one-shot-bufferize -o /dev/null 2>&1 \
// RUN:   | FileCheck %s
// RUN: jeet-opt %s --canonicalize --cse --jeet-decompose --canonicalize --cse \
// RUN:   --jeet-fuse --jeet-lower-to-linalg --canonicalize \
// RUN:   --jeet-kernel-cse=report-buckets -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CSE
// RUN: jeet-opt %s --jeet-cpu-pipeline --dump-pass-pipeline -o /dev/null \
// RUN:   2>&1 | FileCheck %s --check-prefix=PIPELINE

// A fan-out: 40 kernels read one input and differ only in the constant each
// adds, which their bodies capture. Compile time grew with the square of
// such kernels twice (2,000 of them: 1.6 s of CPU in CSE, 2 s in one-shot
// bufferization's analysis).

// Before one-shot bufferization, each run of 16 readers reads the input
// through a cast of its own (40 readers: three), so the analysis of a reader
// visits 16 uses instead of 40.
// CHECK-LABEL: IR Dump Before JeetOneShotBufferizePass
// CHECK:         func.func @main(%[[X:[^:]*]]: tensor<16xf32>)
// CHECK:         %[[C0:.*]] = tensor.cast %[[X]] : tensor<16xf32> to tensor<16xf32>
// CHECK:         %[[C1:.*]] = tensor.cast %[[X]] : tensor<16xf32> to tensor<16xf32>
// CHECK:         %[[C2:.*]] = tensor.cast %[[X]] : tensor<16xf32> to tensor<16xf32>
// CHECK-NOT:     tensor.cast
// CHECK-COUNT-16: ins(%[[C0]] :
// CHECK-COUNT-16: ins(%[[C1]] :
// CHECK-COUNT-8:  ins(%[[C2]] :
// CHECK-NOT:     ins(%[[X]] :
// CHECK:         return

// After the lowering to linalg the kernels read the same input into the same
// (merged) tensor.empty: CSE's own hash puts all 40 in one bucket, compared
// pairwise, unless the hash of their bodies tells them apart.
// CSE: remark: largest CSE bucket: 1 of 40 ops with regions

// PIPELINE:      jeet-lower-to-linalg
// PIPELINE-NEXT: canonicalize
// PIPELINE-NEXT: jeet-kernel-cse
// PIPELINE-NEXT: func.func(
// PIPELINE-NEXT:   jeet-cpu-maximum-as-unsigned
// PIPELINE-NEXT: ),
// PIPELINE-NEXT: func.func(
// PIPELINE-NEXT:   jeet-group-shared-reads
// PIPELINE:      jeet-one-shot-bufferize

func.func @main(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %c0 = jeet.constant dense<0.0> : tensor<f32>
  %v0 = jeet.add %x, %c0 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c1 = jeet.constant dense<1.0> : tensor<f32>
  %v1 = jeet.add %x, %c1 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c2 = jeet.constant dense<2.0> : tensor<f32>
  %v2 = jeet.add %x, %c2 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c3 = jeet.constant dense<3.0> : tensor<f32>
  %v3 = jeet.add %x, %c3 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c4 = jeet.constant dense<4.0> : tensor<f32>
  %v4 = jeet.add %x, %c4 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c5 = jeet.constant dense<5.0> : tensor<f32>
  %v5 = jeet.add %x, %c5 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c6 = jeet.constant dense<6.0> : tensor<f32>
  %v6 = jeet.add %x, %c6 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c7 = jeet.constant dense<7.0> : tensor<f32>
  %v7 = jeet.add %x, %c7 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c8 = jeet.constant dense<8.0> : tensor<f32>
  %v8 = jeet.add %x, %c8 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c9 = jeet.constant dense<9.0> : tensor<f32>
  %v9 = jeet.add %x, %c9 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c10 = jeet.constant dense<10.0> : tensor<f32>
  %v10 = jeet.add %x, %c10 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c11 = jeet.constant dense<11.0> : tensor<f32>
  %v11 = jeet.add %x, %c11 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c12 = jeet.constant dense<12.0> : tensor<f32>
  %v12 = jeet.add %x, %c12 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c13 = jeet.constant dense<13.0> : tensor<f32>
  %v13 = jeet.add %x, %c13 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c14 = jeet.constant dense<14.0> : tensor<f32>
  %v14 = jeet.add %x, %c14 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c15 = jeet.constant dense<15.0> : tensor<f32>
  %v15 = jeet.add %x, %c15 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c16 = jeet.constant dense<16.0> : tensor<f32>
  %v16 = jeet.add %x, %c16 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c17 = jeet.constant dense<17.0> : tensor<f32>
  %v17 = jeet.add %x, %c17 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c18 = jeet.constant dense<18.0> : tensor<f32>
  %v18 = jeet.add %x, %c18 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c19 = jeet.constant dense<19.0> : tensor<f32>
  %v19 = jeet.add %x, %c19 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c20 = jeet.constant dense<20.0> : tensor<f32>
  %v20 = jeet.add %x, %c20 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c21 = jeet.constant dense<21.0> : tensor<f32>
  %v21 = jeet.add %x, %c21 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c22 = jeet.constant dense<22.0> : tensor<f32>
  %v22 = jeet.add %x, %c22 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c23 = jeet.constant dense<23.0> : tensor<f32>
  %v23 = jeet.add %x, %c23 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c24 = jeet.constant dense<24.0> : tensor<f32>
  %v24 = jeet.add %x, %c24 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c25 = jeet.constant dense<25.0> : tensor<f32>
  %v25 = jeet.add %x, %c25 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c26 = jeet.constant dense<26.0> : tensor<f32>
  %v26 = jeet.add %x, %c26 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c27 = jeet.constant dense<27.0> : tensor<f32>
  %v27 = jeet.add %x, %c27 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c28 = jeet.constant dense<28.0> : tensor<f32>
  %v28 = jeet.add %x, %c28 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c29 = jeet.constant dense<29.0> : tensor<f32>
  %v29 = jeet.add %x, %c29 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c30 = jeet.constant dense<30.0> : tensor<f32>
  %v30 = jeet.add %x, %c30 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c31 = jeet.constant dense<31.0> : tensor<f32>
  %v31 = jeet.add %x, %c31 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c32 = jeet.constant dense<32.0> : tensor<f32>
  %v32 = jeet.add %x, %c32 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c33 = jeet.constant dense<33.0> : tensor<f32>
  %v33 = jeet.add %x, %c33 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c34 = jeet.constant dense<34.0> : tensor<f32>
  %v34 = jeet.add %x, %c34 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c35 = jeet.constant dense<35.0> : tensor<f32>
  %v35 = jeet.add %x, %c35 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c36 = jeet.constant dense<36.0> : tensor<f32>
  %v36 = jeet.add %x, %c36 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c37 = jeet.constant dense<37.0> : tensor<f32>
  %v37 = jeet.add %x, %c37 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c38 = jeet.constant dense<38.0> : tensor<f32>
  %v38 = jeet.add %x, %c38 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  %c39 = jeet.constant dense<39.0> : tensor<f32>
  %v39 = jeet.add %x, %c39 : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
  return %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21, %v22, %v23, %v24, %v25, %v26, %v27, %v28, %v29, %v30, %v31, %v32, %v33, %v34, %v35, %v36, %v37, %v38, %v39
      : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
