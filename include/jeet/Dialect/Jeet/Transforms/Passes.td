//===- Passes.td - Passes on the jeet dialect --------------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_TRANSFORMS_PASSES_TD
#define JEET_DIALECT_JEET_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Graph simplification
//===----------------------------------------------------------------------===//

def JeetDecomposePass : Pass<"jeet-decompose"> {
  let summary = "Rewrites composite ops into primitive jeet ops";
  let description = [{
    Rewrites the composite ops (`CompositeOpInterface`: `jeet.softmax`,
    `jeet.gelu`, `jeet.reduce_mean`) into the primitive jeet ops of their
    decomposition, which each op defines, so that fusion and lowering see
    only primitives. Softmax subtracts the maximum along its axis before
    exponentiating, so it does not overflow.

    Before:
    ```mlir
    %s = jeet.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
    ```
    After:
    ```mlir
    %m = jeet.reduce_max %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
    %d = jeet.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    %e = jeet.exp %d : tensor<4x8xf32>
    %z = jeet.reduce_sum %e {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
    %s = jeet.div %e, %z : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::jeet::JeetDialect"];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def JeetCancelTransposesPass
    : Pass<"jeet-cancel-transposes", "::mlir::func::FuncOp"> {
  let summary = "Moves a transpose down through elementwise ops and reshapes "
                "to a transpose that undoes it, and drops both";
  let description = [{
    A convolution with few output positions is computed transposed (the
    positions as the matmul's rows, `(N, OH * OW, O)`) and transposed back to
    NCHW; a depthwise convolution with few positions is computed channels
    last, its input transposed to NHWC first. Between the two are the bias,
    the activation and a reshape: the value goes to NCHW and straight back.

    This pass follows each transpose's readers, and their readers, while
    they are elementwise ops that keep the shape or reshapes; where they all
    end in one transpose that undoes the first (their permutations
    composed, through the reshapes, are the identity), those ops are
    computed on the first transpose's input instead and both transposes are
    gone. No transpose is added: every reader of a value between the two
    must be one of those ops or the inverse (several readers are fine where
    they join again: a hardswish reads its input twice), and every other
    operand of the elementwise ops must have at most one dimension that is
    not 1 (a bias, reshaped to its place, a view). A reshape must only split
    dimensions, or only merge dimensions that the transpose keeps next to
    each other in order. The values computed do not change: the same scalar
    functions of the same elements.

    Before:
    ```mlir
    %t = jeet.transpose %m {permutation = array<i64: 0, 2, 1>} : tensor<1x9x32xf32> -> tensor<1x32x9xf32>
    %a = jeet.add %t, %b : tensor<1x32x9xf32>, tensor<1x32x1xf32> -> tensor<1x32x9xf32>
    %r = jeet.reshape %a : tensor<1x32x9xf32> -> tensor<1x32x3x3xf32>
    %y = jeet.transpose %r {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x32x3x3xf32> -> tensor<1x3x3x32xf32>
    ```
    After:
    ```mlir
    %b2 = jeet.reshape %b : tensor<1x32x1xf32> -> tensor<1x1x32xf32>
    %a = jeet.add %m, %b2 : tensor<1x9x32xf32>, tensor<1x1x32xf32> -> tensor<1x9x32xf32>
    %y = jeet.reshape %a : tensor<1x9x32xf32> -> tensor<1x3x3x32xf32>
    ```
  }];
  let dependentDialects = ["::jeet::JeetDialect"];
}

def JeetSinkReshapesPass
    : Pass<"jeet-sink-reshapes", "::mlir::func::FuncOp"> {
  let summary = "Moves reshapes of matmul results below their elementwise "
                "consumers, so that those join the matmul as its epilogue";
  let description = [{
    A reshape is a group of its own in `jeet-fuse`, so an elementwise op that
    reads a matmul through a reshape cannot be the matmul's epilogue. The
    convolution's decomposition ends in such a reshape (the matmul's
    `(N, O, OH * OW)` to `(N, O, OH, OW)`), as does a matmul on flattened
    rows (`(B * S, D)` to `(B, S, D)`); a bias, a scale or an activation after
    it would be a kernel of its own.

    This pass rewrites `e(reshape(x), y...)`, for an elementwise op `e` whose
    result has the reshape's shape and a reshape that only splits dimensions
    of `x` (an expansion), into `reshape(e(x, y'...))`, where `x` is a matmul
    or an elementwise op (so a chain of epilogue ops follows the reshape
    down). Every other operand `y` must broadcast to the expanded shape in a
    way that the unexpanded shape can express: within each group of
    dimensions split from one dimension of `x`, `y`'s dimensions are all 1
    or all full; `y'` is then `y` reshaped (a view). Other operands must be
    computed from graph arguments and constants by elementwise ops and
    reshapes only (parameters such as a batch norm's scale), be reshapes
    of the same kind, or have the whole expanded shape and other readers (a
    residual connection's input, in memory whoever reads it); a value that
    depends on a reduction or a matmul and is read by this op alone (a
    softmax's row maximum) keeps its reader where it is, so as not to split
    that reader from the reduction's group. The rewrite changes no value: a
    reshape of a row-major tensor moves no element.

    Before:
    ```mlir
    %m = jeet.matmul %w, %cols : tensor<4x27xf32>, tensor<2x27x64xf32> -> tensor<2x4x64xf32>
    %y = jeet.reshape %m : tensor<2x4x64xf32> -> tensor<2x4x8x8xf32>
    %z = jeet.add %y, %b : tensor<2x4x8x8xf32>, tensor<4x1x1xf32> -> tensor<2x4x8x8xf32>
    ```
    After:
    ```mlir
    %m = jeet.matmul %w, %cols : tensor<4x27xf32>, tensor<2x27x64xf32> -> tensor<2x4x64xf32>
    %b2 = jeet.reshape %b : tensor<4x1x1xf32> -> tensor<1x4x1xf32>
    %s = jeet.add %m, %b2 : tensor<2x4x64xf32>, tensor<1x4x1xf32> -> tensor<2x4x64xf32>
    %z = jeet.reshape %s : tensor<2x4x64xf32> -> tensor<2x4x8x8xf32>
    ```
  }];
  let dependentDialects = ["::jeet::JeetDialect"];
}

def JeetFusePass : Pass<"jeet-fuse", "::mlir::func::FuncOp"> {
  let summary = "Groups jeet ops into jeet.fusion regions, one per kernel";
  let description = [{
    Forms fusion groups with these rules, in order: elementwise ops,
    broadcasts and casts chain into one group; a matmul absorbs its
    elementwise consumers as an epilogue; a reduction absorbs its elementwise
    producers as a prologue; a value used by two groups is materialised once,
    unless it is cheap elementwise work on graph inputs that is cheaper to
    recompute; a group never holds two matmuls. Each group is wrapped in a
    `jeet.fusion` region, which later becomes exactly one kernel.

    In detail: a group has at most one anchor (a matmul or a reduction); a
    reduction may also take elementwise ops on its reduced result (mean =
    sum / N). A value computed in another group by a chain of at most three
    elementwise ops whose operands are already in memory (arguments,
    constants, other groups' results, or smaller tensors such as a row
    maximum) is recomputed in the group that reads it; any other value used
    outside its group is yielded once. Splat constants and constants of at
    most 256 elements are cloned into each group that uses them; larger ones
    are group inputs. `max-ops` counts the non-constant ops of a group,
    recomputed copies included. Merges that would create a cycle between
    groups are refused, and the output does not depend on pointer order.

    A transpose of matrices (it swaps the two innermost dimensions and keeps
    the batch dimensions in place) whose every use is an operand of a matmul
    of matrices joins the group of each matmul that reads it (a member of
    the first, recomputed in the others): the lowering reads its input
    through the matmul's indexing maps, and the transpose is never
    materialised, so attention's `Q @ K^T` is one kernel. Where a reader's
    group has no room left (`max-ops`), or any other op reads the transpose,
    it is a group of its own. Any other transpose is a group of its own,
    and where it transposes a value in memory (not computed by the reading
    group) its elementwise readers read it in place: it is copied into their
    groups, and the lowering reads its input through a permuted indexing map
    (a pointwise convolution's NHWC result moved back to NCHW with its bias
    and activation: one kernel). Those whose transpose moves the innermost
    dimension do so up to 65,536 elements (their reads go along a stride);
    the others at any size.

    A slice with positive steps of a value in memory (a graph input or a
    result of another group, not a constant), and such a slice reshaped by
    adding or removing dimensions of size 1 (`x[0]` of stacked tensors), is
    copied into every group that reads it: the lowering reads it as a
    `tensor.extract_slice` of the input (a view once bufferized), so the
    gates of a recurrent cell or the queries, keys and values of a stacked
    projection are read in place. The slice stays a group of its own (a
    copy) only where it is a result or another op reads it.

    With `multi-reduction`, a reduction group also takes row ops: elementwise
    ops with the reduced input's shape that read the group's reductions (or
    their epilogues) broadcast back over the rows, with the group's prologue
    and other row ops; and further reductions of row ops or prologue values
    over the same axes, with the same keepdims. Softmax (max; x - max, exp;
    sum; / sum) and layernorm (mean; x - mean, square; mean; + eps, rsqrt;
    scale) each become one group. With `max-row-bytes`, only groups whose
    rows (the reduced elements of one row of the reduction's input) are its
    trailing axes and at most that many bytes long do: the GPU pipeline
    keeps a block's rows in shared memory.

    With `multi-reduction` and `attention-block-bytes`, attention (a matmul,
    a multi-reduction group over the trailing axis of its result such as a
    softmax, and a matmul whose left operand is that group's row op) is one
    group: the exception to "never two matmuls". Both matmuls are f32
    matmuls of matrices or of batches of them that both operands share
    (one batch dimension, or several as multi-head attention's (batch,
    heads) has them; none broadcast), nothing else reads the
    scores or the softmax, and the rows have blocks that fit the budget
    (scores and softmax together): blocks of the number of rows the budget
    holds, or a divisor of the rows within a factor of two of it, and at
    least 16 rows unless all rows fit. The CPU lowering then computes the
    scores, the softmax and the second matmul block of rows by block of
    rows, in the cache.

    With `transposed-epilogues` (the CPU pipeline's choice), a transpose of
    matrices of a matmul's result of at least 16 rows that nothing else
    reads joins the matmul's group, and the elementwise ops that read it
    join as the epilogue over the transposed shape: a convolution computed
    with its output positions as the matmul's rows (few positions, vectors
    along the output channels) is stored back in NCHW with its bias and
    activation, tile by tile, instead of by a kernel of its own that reads
    the whole result again. With it too, a matmul of fewer than 16 rows
    and 128 columns or more that reads its A through a transpose it folds
    in takes no epilogue: each of the epilogue's tiles of columns would read
    A transposed again (192 -> 1152 channels at 9 positions with its bias
    and ReLU: 1.15x slower with the epilogue).

    Before:
    ```mlir
    %0 = jeet.add %a, %b : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
    %1 = jeet.relu %0 : tensor<16xf32>
    ```
    After:
    ```mlir
    %1 = jeet.fusion (%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> {
    ^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
      %0 = jeet.add %x, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
      %1 = jeet.relu %0 : tensor<16xf32>
      jeet.yield %1 : tensor<16xf32>
    }
    ```
  }];
  let options = [
    Option<"enable", "enable", "bool", /*default=*/"true",
           "Fuse ops into groups; when false every op is a group of its own">,
    Option<"maxOps", "max-ops", "int64_t",
           /*default=*/"::jeet::kDefaultMaxFusionOps",
           "The largest number of ops in one group (at least 1)">,
    Option<"multiReduction", "multi-reduction", "bool", /*default=*/"false",
           "A reduction group also takes the ops that read its reductions "
           "broadcast back over the reduced rows, and further reductions of "
           "those rows over the same axes (softmax, layernorm: one group)">,
    Option<"maxRowBytes", "max-row-bytes", "int64_t", /*default=*/"0",
           "With multi-reduction: the longest row (bytes of the reduced "
           "elements of one row) that a reduction group takes row ops and "
           "further reductions over; longer rows, and rows that are not the "
           "trailing axes, keep a group per reduction (0: no limit)">,
    Option<"attentionBlockBytes", "attention-block-bytes", "int64_t",
           /*default=*/"0",
           "With multi-reduction: attention (matmul; softmax-like "
           "multi-reduction group over its rows; matmul of that) is one group "
           "where blocks of at least 16 rows of the scores and of the softmax "
           "fit this many bytes (0: never; three groups)">,
    Option<"transposedEpilogues", "transposed-epilogues", "bool",
           /*default=*/"false",
           "A transpose of matrices of a matmul's result (16 rows or more) "
           "that nothing else reads joins the matmul's group, whose epilogue "
           "then runs over the transposed shape (the CPU lowering tiles it "
           "with the matmul)">,
  ];
  let dependentDialects = ["::jeet::JeetDialect"];
}

//===----------------------------------------------------------------------===//
// Kernels on tensors
//===----------------------------------------------------------------------===//

def JeetKernelCSEPass : Pass<"jeet-kernel-cse"> {
  let summary = "Common subexpression elimination that tells kernels apart "
                "by their bodies";
  let description = [{
    MLIR's CSE, with the same result, for IR whose ops with regions (the
    `linalg.generic` kernels of a graph) differ only inside their regions.
    CSE hashes an op's name, attributes, operands and result types but not
    its regions, so N kernels that read the same tensors into the same
    (merged) `tensor.empty` and differ only in a constant they capture all
    fall into one bucket and are compared pairwise: N squared comparisons
    (a graph of N outputs `x + c_i`).

    This pass first tags every op with regions with a hash of its regions'
    structure (op names, attributes, types, the values used: inside the op
    by position, outside it by constant value or else by type), then runs
    MLIR's CSE and removes the tags. Equal ops have equal tags, so CSE
    merges exactly what it merged before; ops with different bodies
    usually land in different buckets. Outside values other than constants
    are hashed by type only, so ops that CSE makes equal later are still
    compared.

    With `report-buckets`, a remark on the root op gives the most ops with
    regions that CSE hashed alike (and so compared with each other): 1 when
    their bodies all differ.
  }];
  let options = [
    Option<"reportBuckets", "report-buckets", "bool", /*default=*/"false",
           "Report the largest group of ops with regions that CSE hashed "
           "alike, as a remark">,
  ];
}

//===----------------------------------------------------------------------===//
// Bufferization support
//===----------------------------------------------------------------------===//

def JeetGroupSharedReadsPass
    : Pass<"jeet-group-shared-reads", "::mlir::func::FuncOp"> {
  let summary = "Gives each group of readers of a widely read tensor an "
                "alias of its own";
  let description = [{
    One-shot bufferization's analysis visits, for every use of a tensor,
    the uses of all tensors that alias it. A tensor read by N kernels (one
    input that N ops read: a fan-out) therefore costs N squared before any
    decision is made. This pass gives each group of K readers (operands
    that a linalg op only reads, in the block that defines the tensor) a
    `tensor.cast` to the same type, which bufferization turns into an alias
    of the same buffer (the cast then folds away): no copy, the same
    in-place decisions, and the analysis of a reader visits K uses.

    The casts themselves are analysed after their readers (bottom-up) and
    see the aliases decided so far, up to N uses each; K is the larger of
    `max-reads` and the square root of N, so the whole costs about N times
    the square root of N. Tensors with at most `max-reads` such readers are
    left as they are.

    Before (`max-reads=2`):
    ```mlir
    %0 = linalg.generic ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) ...
    %1 = linalg.generic ins(%x : tensor<4xf32>) outs(%e1 : tensor<4xf32>) ...
    %2 = linalg.generic ins(%x : tensor<4xf32>) outs(%e2 : tensor<4xf32>) ...
    ```
    After:
    ```mlir
    %x0 = tensor.cast %x : tensor<4xf32> to tensor<4xf32>
    %x1 = tensor.cast %x : tensor<4xf32> to tensor<4xf32>
    %0 = linalg.generic ins(%x0 : tensor<4xf32>) outs(%e0 : tensor<4xf32>) ...
    %1 = linalg.generic ins(%x0 : tensor<4xf32>) outs(%e1 : tensor<4xf32>) ...
    %2 = linalg.generic ins(%x1 : tensor<4xf32>) outs(%e2 : tensor<4xf32>) ...
    ```
  }];
  let options = [
    Option<"maxReads", "max-reads", "int64_t", /*default=*/"16",
           "Readers a tensor keeps before its readers are grouped (and the "
           "smallest group)">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def JeetDistinctResultsPass
    : Pass<"jeet-distinct-results", "::mlir::func::FuncOp"> {
  let summary = "Gives every result of a graph its own tensor";
  let description = [{
    A graph may return one value twice (`return %x, %x`), also after CSE
    merges two equal computations. Each result becomes a caller-owned
    out-parameter, so every repeat gets a copy of its own.

    Before:
    ```mlir
    return %0, %0 : tensor<4xf32>, tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %1 = linalg.copy ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    return %0, %1 : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def JeetReshapedResultsInPlacePass
    : Pass<"jeet-reshaped-results-in-place", "::mlir::func::FuncOp"> {
  let summary = "Computes a result that a reshape returns in the caller's "
                "buffer";
  let description = [{
    After `buffer-results-to-out-params`, a result computed in a fresh
    buffer is written into the caller's out-parameter directly, but one
    returned through a `memref.expand_shape` or `memref.collapse_shape` of
    that buffer (a graph ending in `jeet.reshape`) is computed in the
    buffer and then copied whole into the out-parameter: for an
    elementwise graph of 2^22 elements, 1.57 ms against 0.96 without the
    reshape. This pass computes it in the out-parameter itself, seen
    through the inverse reshape, and drops the copy and the buffer.

    It applies where the out-parameter is read or written by the copy
    alone, the buffer is a static `memref.alloc` of the function's entry
    block with an identity layout in the out-parameter's memory space, and
    nothing uses the buffer (or a view of it) after the copy, copies it
    into another argument or returns it.

    Before:
    ```mlir
    func.func @main(%x: memref<4096xf32>, %out: memref<64x64xf32>) {
      %buf = memref.alloc() : memref<4096xf32>
      linalg.copy ins(%x : memref<4096xf32>) outs(%buf : memref<4096xf32>)
      %e = memref.expand_shape %buf [[0, 1]] output_shape [64, 64]
          : memref<4096xf32> into memref<64x64xf32>
      memref.copy %e, %out : memref<64x64xf32> to memref<64x64xf32>
      return
    }
    ```
    After:
    ```mlir
    func.func @main(%x: memref<4096xf32>, %out: memref<64x64xf32>) {
      %c = memref.collapse_shape %out [[0, 1]] : memref<64x64xf32> into memref<4096xf32>
      linalg.copy ins(%x : memref<4096xf32>) outs(%c : memref<4096xf32>)
      return
    }
    ```
  }];
}

def JeetUnshareFillsPass
    : Pass<"jeet-unshare-fills", "::mlir::func::FuncOp"> {
  let summary = "Gives each kernel that accumulates into a filled empty "
                "tensor a fill of its own";
  let description = [{
    The lowering to linalg gives every matmul, convolution and reduction an
    accumulator, a `linalg.fill` of a `tensor.empty`; CSE merges the equal
    ones, so the kernels of equal result shapes (the convolutions of a
    network's stage) share one fill. Each of them writes over its
    accumulator, so one-shot bufferization fills one buffer and copies it
    for every writer but the last: a read and a write of the whole result
    more per kernel, a kernel that adds to loaded zeros (the CPU's matmul
    pass folds only a fill right before it into its tiles) and a buffer of
    zeros kept alive until the last writer.

    This pass gives each op that writes over such a fill (a destination
    operand of a destination-style op) a clone of the fill and its empty
    tensor, created right before that op (or its ancestor in the fill's
    block). Ops that only read the fill keep the original; a fill with a
    single use is left alone.

    Before:
    ```mlir
    func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>)
        -> (tensor<4x4xf32>, tensor<4x4xf32>) {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<4x4xf32>
      %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
      %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
      %1 = linalg.matmul ins(%a, %c : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
      return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>)
        -> (tensor<4x4xf32>, tensor<4x4xf32>) {
      %zero = arith.constant 0.0 : f32
      %e0 = tensor.empty() : tensor<4x4xf32>
      %acc0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
      %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc0 : tensor<4x4xf32>) -> tensor<4x4xf32>
      %e1 = tensor.empty() : tensor<4x4xf32>
      %acc1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x4xf32>) -> tensor<4x4xf32>
      %1 = linalg.matmul ins(%a, %c : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc1 : tensor<4x4xf32>) -> tensor<4x4xf32>
      return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def JeetUnshareEmptyTensorsPass
    : Pass<"jeet-unshare-empty-tensors", "::mlir::func::FuncOp"> {
  let summary = "Gives each chain of users of a tensor.empty an empty tensor "
                "of its own";
  let description = [{
    CSE merges the equal `tensor.empty` ops that the lowering to linalg
    creates, one per kernel: in a graph of N independent outputs, one empty
    tensor becomes the destination of N kernels. One-shot bufferization's
    analysis then looks at every use of that tensor for each of its uses,
    which grows with the square of N (2.6 s of CPU at 2,000 outputs), and
    it gives kernels far apart that share a destination one buffer, live
    from the first of them to the last, out of the memory plan's reach
    (squeezenet's equal convolutions shared one across the network).

    This pass gives each chain of users an empty tensor of its own, created
    just before the first of them: a chain is a run of at most `max-uses`
    consecutive users (in the order of the block) where each reads a result
    of the one before. The analysis becomes linear, and within a chain it
    still finds what a shared destination allows (an unfused chain of
    elementwise kernels writing each result over the one before).

    Before (`max-uses=2`):
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %1 = linalg.copy ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %2 = linalg.copy ins(%1 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %3 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %1 = linalg.copy ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %e1 = tensor.empty() : tensor<4xf32>
    %2 = linalg.copy ins(%1 : tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
    %e2 = tensor.empty() : tensor<4xf32>
    %3 = linalg.copy ins(%x : tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let options = [
    Option<"maxUses", "max-uses", "int64_t", /*default=*/"16",
           "The most users in a chain that share one tensor.empty">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def JeetOneShotBufferizePass
    : Pass<"jeet-one-shot-bufferize", "::mlir::ModuleOp"> {
  let summary = "One-shot bufferization of a module, function boundaries "
                "included, with the boundary analysed in linear time";
  let description = [{
    MLIR's `one-shot-bufferize{bufferize-function-boundaries
    function-boundary-type-conversion=identity-layout-map}`: the same
    analysis of every function body, the same copies and the same
    bufferized IR. What differs is how each function's results are matched
    with its arguments after its body is analysed (which result is
    equivalent to, or may alias, which argument: what a call of the
    function needs). MLIR's module bufferization asks the alias analysis
    about every pair of a returned tensor and a tensor argument, so a graph
    of N inputs and N outputs costs N squared queries (25 million at 5,000
    outputs, most of its bufferization time). This pass visits the
    equivalence class and the alias set of each argument once, marking the
    values in them, and then looks each returned value up: linear in the
    arguments, results and the sizes of their classes.

    Functions are analysed callees first, as MLIR does; a module whose
    calls form a cycle is analysed by MLIR's module analysis instead.

    Before:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
      linalg.copy ins(%x : memref<4xf32>) outs(%alloc : memref<4xf32>)
      return %alloc : memref<4xf32>
    }
    ```

    With `report-visits`, a remark on each function with a body gives its
    tensor results and arguments and the class members visited to match
    them (MLIR's analysis makes one query per pair of them instead).
  }];
  let options = [
    Option<"reportVisits", "report-visits", "bool", /*default=*/"false",
           "Report the values visited to match each function's results "
           "with its arguments, as a remark">,
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // JEET_DIALECT_JEET_TRANSFORMS_PASSES_TD
