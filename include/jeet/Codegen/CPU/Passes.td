//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Passes of jeet-cpu-pipeline's code generation stage: they run on bufferized
// linalg (memrefs) and turn the kernels into vectorised loop nests whose
// outermost loop is the only parallel one.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_CPU_PASSES_TD
#define JEET_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def JeetCpuMatmulPass : Pass<"jeet-cpu-matmul", "::mlir::ModuleOp"> {
  let summary = "Rewrites matmuls with an f32 accumulator on buffers into "
                "cache- and register-tiled vector loop nests";
  let description = [{
    Rewrites every `linalg.matmul` and `linalg.batch_matmul` on memrefs with
    static shapes, an f32 result and f32, f16 or bf16 operands (widened to
    f32 as they are loaded) into a loop nest that blocks the rows and the
    reduction for the caches (`row-block`, `k-block`; by default sized from
    the host's L1 and L2 caches, or from `l1-cache-bytes` and
    `l2-cache-bytes`) and computes each `register-rows` x
    `register-cols` tile of the result in vector registers: per step of the
    reduction, one row of B is loaded as vectors, each element of the A
    column is broadcast, and one `vector.fma` per row and vector
    accumulates. Per reduction block, each panel of B meets every register
    tile of the row block's rows while it is in L1. The reduction is split
    into blocks of equal depth (K = 1024 in blocks of at most 336: four of
    256). Each register tile accumulates a reduction block from zeros (the
    first from the folded fill's value, see below) and is then added to
    the result, whose rows the kernel prefetches before its loop. Where B's
    packed panels outgrow half of L2 (so that a row block finds them in L3
    or memory), each tile fetches its share of the next panel's rows of B
    into L2 as it runs, a few lines per step of the reduction (the tiles of
    a row block split the k-block's rows), so that the first tile to meet a
    panel does not wait for it. Sizes that the
    tiles do not divide are computed by kernels of the remainder's (static)
    size, and each row of a tile is split into vectors of power-of-two
    widths (28 columns are 16 + 8 + 4), so every shape is exact and maps
    onto whole registers.

    A matmul of 64 rows or more first copies B's full panels of
    `register-cols` columns into one contiguous `(panel, k, column)` buffer
    (in parallel over chunks of B's rows, each row read whole; freed after
    the last kernel), so that each kernel streams
    its panel of B instead of reading rows a whole B row apart (which alias
    in L1 when that stride is a multiple of 4 KiB); when B has two panels or
    more, each row block also copies its block of A per reduction block into
    `(tile, k, row)` order, so that a kernel reads the A values of one step
    from one cache line. A matmul in a parallel loop whose B is a column
    slice, aligned to the panels, of a buffer defined outside the loop (the
    tiles of a matmul with an epilogue) reads its panels from one copy of
    the whole buffer made before the loop, instead of copying its own; so
    does a batch_matmul tile whose B is one matrix of such a buffer, from a
    copy of the panels of every batch. A buffer that already has the
    panels' layout (exactly `register-cols` columns, rows contiguous, such
    as attention's V) is read in place, not copied. A B that is the whole
    of a constant `memref.global` (a model's weights) is packed by the pass
    itself: its panels become a constant global of their own
    (`<global>_panels<register-cols>`, `_transposed` for a B held as
    (n, k)), which the kernels read whatever the matmul's rows, and nothing
    is copied at run time; for the tiles of an epilogue whose width
    `register-cols` does not divide, it is laid out in blocks of the tiles'
    columns instead (`<global>_blocks<width>`), each block's rows
    contiguous. B's global goes when nothing reads it any more. Where the
    module's constant globals together outgrow L2 (a network's weights,
    every one of them read at each call), the kernels reading such panels
    meet them in L3 or memory: each step of the reduction prefetches the
    panel's row 32 steps ahead into L1 (past the panel's end the next
    panel's first rows, clamped to the buffer's last row). The tiles of
    an epilogue call a private function
    `jeet_matmul_tile` (marked `noinline`), one per combination of operand
    types and layouts, so that matmuls of the same shape (the layers of an
    MLP) share one kernel that is compiled once.

    A `linalg.generic` that is a batched f32 contraction whose batch
    dimensions broadcast (loops `(batch..., m, n, k)`, A indexed by some of
    the batch loops then `(m, k)`, B likewise then `(k, n)`, C by all of
    them then `(m, n)`, body `C + A * B`; jeet-lower-to-linalg writes
    `x[b, m, k] @ w[k, n]` this way) runs the same kernel once per batch on
    rank-reduced views.

    Either operand may be transposed: indexing maps (of a `linalg.matmul`,
    `linalg.batch_matmul` or such a generic) that read A as `(k, m)` or B as
    `(n, k)`, as jeet-lower-to-linalg writes a matmul that folds in a
    transpose. A transposed A is read one element at a time like any A (by
    its packing or the kernels); a transposed B is always packed, its
    partial last panel too, each of its columns (a row of the buffer) read
    contiguously, so the kernels read the same panels as for any B. Full
    panels of f32 are packed in blocks of 16 columns by 16 steps of k: 16
    rows of the buffer loaded as vectors, transposed in registers and
    stored as 16 rows of the panel. A tile's
    B that is a row slice of a transposed buffer is packed once before the
    tile loop, as a column slice is.

    With `parallel`, the row blocks of a matmul that is not already inside a
    parallel loop form an `scf.parallel` (with fewer than 4 register tiles
    of rows, as in a matrix-vector product, column panels do instead); a
    batch_matmul (or a broadcast contraction) with at least 4 batches runs
    its batches in parallel. A matmul of fewer than `min-parallel-work`
    multiply-adds runs on one thread (no `scf.parallel`, its packing of B
    included).

    The tiles of a matmul with an epilogue whose parallel loop runs over
    the columns alone (every tile reads panels of B no other tile reads, as
    when the rows fit in one tile) do not read a copy made before the loop
    (the same work, but a parallel loop of its own: one more start and join
    of the threads per call). Such a tile of 128 rows or more, or whose B
    rows lie a multiple of 4 KiB apart, packs its own panels; a smaller one
    reads B as it is (the copy would cost more than streaming the panel
    from L2). So does a matmul outside tiles whose B is one matrix per
    batch (a convolution's windows, `(1, K, N)`) when C has fewer than 128
    rows and B's rows do not lie a multiple of 4 KiB apart (or are few):
    each panel is read by few row tiles, and its copy would be one more
    pass over all of B. The tile of a batch of one image by a matrix B (a
    convolution at few positions computed transposed) is taken as the
    product of matrices, reading B's panels, when B's rows lie a multiple
    of 4 KiB apart, or when B is a constant of 256 to 1,024 rows 1 KiB or
    more apart (the compiler's panels, where B's rows in place would cross
    a page every few rows); otherwise it reads B where it lies.

    The tile and block sizes the pass chose (from the options, or from the
    host's vector registers and cache sizes where an option is 0) are
    recorded on each function whose matmuls it rewrote, as
    `jeet.matmul_blocking = {col_block, k_block, panel_k_block,
    register_cols, register_rows, row_block}`: `panel_k_block` is the
    k-block of the order where B's micro-panel stays in L1 (the largest
    power of two of steps whose micro-panels of B and A take three quarters
    of L1), `k_block` and `col_block` those of the order where A's
    micro-panel stays in L1 when `col_block` is set (a C too wide for four
    register tiles of its rows to fit half of L2 takes that order).

    A `linalg.fill` of all of C with a constant just before the matmul (the
    zeros of a matmul's or a tile's accumulator) is folded into it: the
    register tiles of the first reduction block start as splats of the
    constant and are stored over C instead of added to it, and the fill is
    erased. A matmul with an epilogue then neither clears each tile's
    accumulator (a memset per tile) nor reads it back. The first block is a
    flag (`k0 == 0`) of the one loop over the blocks, not a copy of it: each
    matmul's kernels are emitted, optimised and compiled once.

    Before:
    ```mlir
    linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>)
                  outs(%c : memref<64x64xf32>)
    ```
    After (one register tile):
    ```mlir
    %c0 = vector.load %c[%i, %j] : memref<64x64xf32>, vector<16xf32>
    %r:24 = scf.for %k = %k0 to %k1 step %c1 iter_args(%acc0 = %c0, ...) {
      %b0 = vector.load %b[%k, %j] : memref<32x64xf32>, vector<16xf32>
      ...
      %a0 = memref.load %a[%i, %k] : memref<64x32xf32>
      %s0 = vector.broadcast %a0 : f32 to vector<16xf32>
      %f0 = vector.fma %s0, %b0, %acc0 : vector<16xf32>
      ...
    }
    vector.store %r#0, %c[%i, %j] : memref<64x64xf32>, vector<16xf32>
    ```
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Run the row blocks in an scf.parallel (unless already nested in "
           "one)">,
    Option<"registerRows", "register-rows", "int64_t", /*default=*/"6",
           "Rows of the result tile kept in registers">,
    Option<"registerCols", "register-cols", "int64_t", /*default=*/"0",
           "Columns of the result tile kept in registers; 0: from the "
           "host's vector registers (64 with AVX-512: 6 x 64 f32 are 24 of "
           "its 32 registers; 16 with AVX: 6 x 16 are 12 of AVX2's 16; 8 "
           "with SSE alone)">,
    Option<"rowBlock", "row-block", "int64_t", /*default=*/"0",
           "Rows of A per cache block (rounded to register-rows); 0: the "
           "most whose block of A takes a quarter of the L2 cache">,
    Option<"kBlock", "k-block", "int64_t", /*default=*/"0",
           "Reduction steps per cache block, at most (a matmul's depth is "
           "split into blocks of equal depth); 0: the most, rounded down "
           "to a power of two, whose micro-panels of B and A take three "
           "quarters of the L1 data cache, or, in the order of col-block, "
           "whose micro-panel of A takes a quarter of it (at most 384)">,
    Option<"colBlock", "col-block", "int64_t", /*default=*/"0",
           "Columns of B per L2 block (rounded to register-cols) in the "
           "order where each tile's micro-panel of A stays in L1 and B's "
           "panels stream from L2, which a matmul takes when it is deeper "
           "than a k-block of the other order and 4 register tiles of its "
           "rows of C outgrow half of L2; 0: blocks taking half of L2 when a "
           "register-cols-wide micro-panel of B fits fewer than 128 steps "
           "in half of L1 (64 columns in 48 KiB: 96), else always the "
           "order where B's micro-panel stays in L1 (also whenever k-block "
           "is given and col-block is not)">,
    Option<"l1CacheBytes", "l1-cache-bytes", "int64_t", /*default=*/"0",
           "L1 data cache size that the block sizes are chosen for; 0: "
           "the host's">,
    Option<"l2CacheBytes", "l2-cache-bytes", "int64_t", /*default=*/"0",
           "L2 cache size (per core) that the row block is chosen for; 0: "
           "the host's">,
    Option<"minParallelWork", "min-parallel-work", "int64_t",
           /*default=*/"0",
           "Multiply-adds (m x n x k, times the batches) below which a "
           "matmul runs on one thread: starting and joining the threads "
           "would cost more than they save">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::affine::AffineDialect",
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def JeetCpuIm2colPass
    : Pass<"jeet-cpu-im2col", "::mlir::func::FuncOp"> {
  let summary = "Rewrites the linalg.generic of a jeet.im2col on buffers, and "
                "the jeet.pad before it, into one parallel loop of row copies";
  let description = [{
    `jeet-lower-to-linalg` lowers `jeet.im2col` to a generic that copies
    its (N, C, H, W) input at (n, c, oh * sh + kh * dh, ow * sw + kw * dw)
    into an (N, C, KH, KW, OH, OW) result; before a convolution that input
    is a `jeet.pad`'s result, a generic marked `jeet.pad_low`. Left alone,
    the two are a fill and a copy (`jeet-cpu-vectorize-pad`) and the im2col
    copy, three parallel regions and two passes over memory, the im2col's
    indices computed element by element.

    This pass rewrites each such im2col generic into one loop over (n, c),
    an `scf.parallel` unless the `parallel` option is off or the generic is
    already inside a parallel loop, that for each kernel offset (kh, kw)
    (unrolled; kernels of more than 64 offsets keep the generic) writes
    whole output rows: rows whose input row lies in the padding get the
    padding value, the others are copied from the unpadded input, with the
    padding value in the columns outside it. Those rows and columns depend
    on kh and kw alone, so every bound is static. With a stride of 1 along
    W a row's copy is a run of `vector.load`s and `vector.store`s (64-byte
    vectors, then narrower ones for the rest); with a stride s of 2 to 4,
    each run loads s times its width and keeps every s-th element (a
    `vector.shuffle`), as far as every element loaded lies in the input
    row, the rest of the row one element at a time; with a larger stride,
    one element at a time. The pad is absorbed (its generic erased, the im2col
    reading the pad's input) when the im2col is the only reader of the
    padded buffer, the pad pads H and W only and the pad's body is only its
    select (see `jeet-cpu-vectorize-pad`); otherwise the im2col copies from
    the padded buffer.

    When the tiles of the convolution's matmul (an `scf.forall`, as the
    epilogue's fusion makes it) are the only readers of the result, seen as
    `(N, C * KH * KW, OH * OW)` by a `memref.collapse_shape`, and each tile
    reads the slice `[n, 0, p] [1, K, T]` at a loop index `p` that starts at
    0 and steps by T, a multiple of OW, the copies move into the tiles
    instead: each tile allocates a `(1, C, KH, KW, T / OW, OW)` buffer for
    the windows of its own output rows (at most 64 KiB, which
    `jeet-cpu-hoist-tile-buffers` later puts on the stack; larger windows
    are copied before the tiles), copies them as above, for its rows only
    (the row loops' bounds clamped to them), in a loop over the channels,
    and its matmul reads that buffer. The windows are never written out whole
    (the example CNN's were 1.8 and 2.4 MiB), a tile reads them from its
    cache, and the loop of copies before the tiles, with its start and join
    of the threads, goes.

    Before (a 3x3 window, stride 1, a pad of 1):
    ```mlir
    linalg.generic {..., jeet.pad_low = array<i64: 0, 0, 1, 1>}
        outs(%padded : memref<1x1x6x6xf32>) { ... arith.select ... }
    linalg.generic {indexing_maps = [
        affine_map<(n, c, kh, kw, oh, ow) -> (n, c, oh + kh, ow + kw)>,
        affine_map<(n, c, kh, kw, oh, ow) -> (n, c, kh, kw, oh, ow)>], ...}
        ins(%padded : memref<1x1x6x6xf32>)
        outs(%windows : memref<1x1x3x3x4x4xf32>) { linalg.yield %in : f32 }
    ```
    After, for (kh, kw) = (0, 0): output row 0 is padding, rows 1 to 3 have
    padding in column 0 and input row oh - 1, columns 0 to 2, in columns 1
    to 3:
    ```mlir
    scf.parallel (%n, %c) = (%c0, %c0) to (%c1, %c1) step (%c1, %c1) {
      scf.for %oh = %c0 to %c1 step %c1 {
        vector.store %pad4, %windows[%n, %c, %c0, %c0, %oh, %c0]
      }
      scf.for %oh = %c1 to %c4 step %c1 {
        memref.store %pad, %windows[%n, %c, %c0, %c0, %oh, %c0]
        %ih = ... %oh - 1
        %row = vector.load %x[%n, %c, %ih, %c0] : memref<1x1x4x4xf32>,
                                                  vector<2xf32>
        vector.store %row, %windows[%n, %c, %c0, %c0, %oh, %c1]
        ...
      }
      ...
    }
    ```
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Make the loop over (n, c) an scf.parallel">,
  ];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def JeetCpuPoolInTilesPass
    : Pass<"jeet-cpu-pool-in-tiles", "::mlir::func::FuncOp"> {
  let summary = "Moves a pooling of a convolution's output into the tiles "
                "of the convolution's matmul";
  let description = [{
    The tiles of a convolution's matmul with its epilogue (an `scf.forall`)
    each write one image's `T` output pixels, every channel, into the
    `(N, C, OH * OW)` result: the slice `[n, 0, p] [1, C, T]` at a loop
    index `p` that starts at 0 and steps by `T`. A pooling whose windows
    tile that result (a 2x2 `jeet.max_pool2d` or `jeet.avg_pool2d`, say)
    is a generic over `(n, c, ph, kh, pw, kw)`, reduction over `kh` and
    `kw`, that reads the result seen as `(N, C, PH, KH, PW, KW)` by a
    `memref.expand_shape` and writes `(N, C, PH, PW)`, in a loop of its own
    after the tiles: the whole result goes to memory and comes back, and on
    several threads the pooling is one more start and join of the threads.

    When the pooling is the only reader of the result, `T` is a multiple of
    `KH * OW` (each tile whole rows of windows) and the tile's pixels take
    at most 64 KiB, the pooling moves into the tiles: the tile's epilogue
    writes a `(1, C, T)` buffer of the tile's own (which
    `jeet-cpu-hoist-tile-buffers` later puts on the stack), and the tile
    pools that buffer into its `T / (KH * OW)` rows of the pooling's output.
    A `linalg.fill` of the pooling's output just before it, and a generic
    just after it that rewrites the output in place elementwise (an average
    pooling's division), come along, on the tile's rows. Ops between the
    tiles and the pooling must touch no memory (views, constants,
    allocations and frees of other buffers); the pooling's output, when
    allocated after the tiles, is allocated before them. The convolution's
    result is not allocated any more.

    Before (2x2 max pooling, tiles of 64 pixels = 2 rows of 32):
    ```mlir
    %conv = memref.alloc() : memref<16x16x1024xf32>
    scf.forall (%n, %p) = (0, 0) to (16, 1024) step (1, 64) {
      ...
      %slice = memref.subview %conv[%n, 0, %p] [1, 16, 64] [1, 1, 1]
      linalg.generic ... ins(%acc, %bias ...) outs(%slice ...)
    }
    %windows = memref.expand_shape %conv [[0], [1], [2, 3, 4, 5]]
        : memref<16x16x1024xf32> into memref<16x16x16x2x16x2xf32>
    linalg.fill ins(%minus_inf : f32) outs(%pooled : memref<16x16x16x16xf32>)
    linalg.generic {... reduction over d3, d5 ...}
        ins(%windows ...) outs(%pooled ...) { arith.maximumf ... }
    ```
    After:
    ```mlir
    scf.forall (%n, %p) = (0, 0) to (16, 1024) step (1, 64) {
      ...
      %tile = memref.alloc() {alignment = 64 : i64} : memref<1x16x64xf32>
      linalg.generic ... ins(%acc, %bias ...) outs(%tile ...)
      %tile_windows = memref.expand_shape %tile [[0], [1], [2, 3, 4, 5]]
          : memref<1x16x64xf32> into memref<1x16x1x2x16x2xf32>
      %row = arith.divui %p, %c64 : index
      %rows = memref.subview %pooled[%n, 0, %row, 0] [1, 16, 1, 16] [1, 1, 1, 1]
      linalg.fill ins(%minus_inf : f32) outs(%rows ...)
      linalg.generic {...} ins(%tile_windows ...) outs(%rows ...)
      memref.dealloc %tile
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def JeetCpuVectorizePadPass
    : Pass<"jeet-cpu-vectorize-pad", "::mlir::func::FuncOp"> {
  let summary = "Rewrites the linalg.generic of a jeet.pad on buffers into a "
                "fill and a copy of the input into the interior";
  let description = [{
    `jeet-lower-to-linalg` lowers `jeet.pad` to one generic over the result
    that reads the input at indices clamped into it and selects the padding
    value outside it (marked with `jeet.pad_low`, the padding before each
    dimension). Its index arithmetic and loads at computed indices keep it
    scalar: before a convolution it cost as much as the convolution's
    matmul. This pass rewrites each such generic whose body is still only
    that select into two elementwise generics that
    `jeet-cpu-vectorize-elementwise` then turns into parallel vector loops:
    one that fills the result with the padding value, and one that copies
    the input into the result's interior (a `memref.subview` at the low
    padding). Generics whose body holds more (an epilogue) are left alone.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [#id], iterator_types = [...],
                    jeet.pad_low = array<i64: 0, 1>}
        outs(%o : memref<4x6xf32>) {
      ... %e = memref.load %x[%i, %j] : memref<4x4xf32>
      %r = arith.select %inside, %e, %cst : f32
      linalg.yield %r : f32
    }
    ```
    After:
    ```mlir
    linalg.generic {indexing_maps = [#id], ...} outs(%o : memref<4x6xf32>) {
      linalg.yield %cst : f32
    }
    %interior = memref.subview %o[0, 1] [4, 4] [1, 1]
    linalg.generic {indexing_maps = [#id, #id], ...}
        ins(%x : memref<4x4xf32>) outs(%interior : memref<4x4xf32, ...>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect"
  ];
}

def JeetCpuMinMaxByRangePass
    : Pass<"jeet-cpu-minmax-by-range", "::mlir::func::FuncOp"> {
  let summary = "Computes vector maximumf and minimumf trees with AVX-512DQ's "
                "vrangeps and one NaN test";
  let description = [{
    `arith.maximumf` and `arith.minimumf` (IEEE 754 maximum and minimum: a
    NaN if either operand is one, -0 below +0) have no x86 instruction;
    LLVM lowers each to six (a sign test, two blends, a NaN test, `vmaxps`
    and a blend). AVX-512DQ's `vrangeps` with immediate 5 (4 for the
    minimum) orders -0 below +0 but, given a quiet NaN, returns the other
    operand. On vectors of 4, 8 or 16 f32, this pass takes each tree of
    such ops of one kind (interior nodes used once, by the next node)
    apart: the tree's nodes become `vrangeps` (`llvm.call_intrinsic` of
    `llvm.x86.avx512.mask.range.ps.128/256/512`), the tree's leaves are
    tested for NaN two at a time (`arith.cmpf uno`, or-ed), and a `select`
    gives the NaN where any leaf held one: a single maximum is three
    instructions, a max pooling's window of nine leaves about fourteen
    where it was 48. A single node with a constant operand (a relu's
    maximum with 0, a clip's bounds, the constant as it is or broadcast)
    is left to LLVM, whose lowering is three instructions already (in a
    matmul tile's epilogue the select's NaN would hold one more register).
    A NaN result is the default quiet NaN, not one of the operands' (IEEE
    leaves the payload open).

    `target`: `avx512` (vrangeps on 16 lanes needs AVX-512DQ, on 4 and 8
    also AVX-512VL), `none` (the pass does nothing), or `host` (`avx512`
    where this machine has both, else `none`); jeet-compile sets it from
    `--target-cpu`. It runs after the CPU vectorization passes, on vector
    ops, before the conversion to LLVM.

    Before:
    ```mlir
    func.func @max3(%a: vector<16xf32>, %b: vector<16xf32>, %c: vector<16xf32>) -> vector<16xf32> {
      %m = arith.maximumf %a, %b : vector<16xf32>
      %n = arith.maximumf %m, %c : vector<16xf32>
      return %n : vector<16xf32>
    }
    ```
    After (`target=avx512`):
    ```mlir
    func.func @max3(%a: vector<16xf32>, %b: vector<16xf32>, %c: vector<16xf32>) -> vector<16xf32> {
      %imm = llvm.mlir.constant(5 : i32) : i32
      %all = llvm.mlir.constant(-1 : i16) : i16
      %sae = llvm.mlir.constant(4 : i32) : i32
      %poison = llvm.mlir.poison : vector<16xf32>
      %m = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%a, %b, %imm, %poison, %all, %sae)
          : (vector<16xf32>, vector<16xf32>, i32, vector<16xf32>, i16, i32) -> vector<16xf32>
      %n = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%m, %c, %imm, %poison, %all, %sae)
          : (vector<16xf32>, vector<16xf32>, i32, vector<16xf32>, i16, i32) -> vector<16xf32>
      %ab = arith.cmpf uno, %a, %b : vector<16xf32>
      %cc = arith.cmpf uno, %c, %c : vector<16xf32>
      %any = arith.ori %ab, %cc : vector<16xi1>
      %nan = arith.constant dense<0x7FC00000> : vector<16xf32>
      %r = arith.select %any, %nan, %n : vector<16xi1>, vector<16xf32>
      return %r : vector<16xf32>
    }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "avx512 (vrangeps), none (leave the ops), or host (avx512 where "
           "this machine has AVX-512DQ and AVX-512VL)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def JeetCpuMaximumAsUnsignedPass
    : Pass<"jeet-cpu-maximum-as-unsigned", "::mlir::func::FuncOp"> {
  let summary = "Takes the maximum of a relu's values on their bits as "
                "unsigned integers";
  let description = [{
    A max pooling with overlapping windows is, after `jeet-decompose`, an
    elementwise maximum of the input's strided views: a `linalg.generic`
    whose body is a tree of `arith.maximumf` over its inputs. x86 has no
    instruction for `maximumf` (`vmaxps` returns its second operand when
    either is NaN), so each one is a max, a NaN test and a blend. When every
    input the tree reads is, through `tensor.extract_slice`,
    `tensor.expand_shape` and `tensor.collapse_shape`, a result of an
    all-parallel generic whose yielded value is +0 or more, or NaN (a relu:
    `maximumf(x, c)` with a constant c >= +0, or `minimumf`, `minnumf`,
    `maxnumf`, `select` of such values), or such results inserted into an
    empty tensor (or one holding such values) by an `scf.forall`'s
    `tensor.parallel_insert_slice`s (a convolution's tiles with their relu
    epilogue) or by `tensor.insert_slice`s (a concat), this pass rewrites
    the tree as
    `arith.maxui` of the values' bits (`arith.bitcast`), one instruction
    each: for such values the unsigned order of the bits is `maximumf`'s
    (NaNs of either sign above +inf, no -0). A padded pooling reads views
    of a `jeet.pad`'s generic (marked `jeet.pad_low`) that pads such values
    with -inf: when those views are all the pad's uses and every window
    reads at least one element of the pad's source (checked position by
    position from the views' static offsets and strides), the pad value
    becomes +0, which never exceeds such a value, and the tree is rewritten
    too. A maximum the pass has rewritten holds such values itself (a
    pooling of a pooling), and so does a max reduction (`maximumf` of its
    init and one input) of such values over non-empty reduced dimensions,
    whatever its init (a pooling whose windows do not overlap, a reduction
    over a reshape). The generic may have other results computed from the
    tree's root (the next layer's batch norm and relu fused in): the tree
    is then the one yielded value that is a tree of maxima over inputs,
    its unsigned form goes right after the root, every reader of the root
    reads its bits as a float, and a pad's views must be read by the tree
    alone. It runs on tensors, after the lowering to
    linalg, where each input's producer is its SSA definition.
    `jeet-cpu-vectorize-window-reductions` does the same for poolings whose
    windows tile the input.

    Before:
    ```mlir
    func.func @main(%x: tensor<8xf32>) -> tensor<4xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<8xf32>
      %relu = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
          iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %r = arith.maximumf %in, %zero : f32
        linalg.yield %r : f32
      } -> tensor<8xf32>
      %even = tensor.extract_slice %relu[0] [4] [2] : tensor<8xf32> to tensor<4xf32>
      %odd = tensor.extract_slice %relu[1] [4] [2] : tensor<8xf32> to tensor<4xf32>
      %e4 = tensor.empty() : tensor<4xf32>
      %max = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
          iterator_types = ["parallel"]} ins(%even, %odd : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
      ^bb0(%a: f32, %b: f32, %out: f32):
        %m = arith.maximumf %a, %b : f32
        linalg.yield %m : f32
      } -> tensor<4xf32>
      return %max : tensor<4xf32>
    }
    ```
    After (the second generic's body):
    ```mlir
      ^bb0(%a: f32, %b: f32, %out: f32):
        %ia = arith.bitcast %a : f32 to i32
        %ib = arith.bitcast %b : f32 to i32
        %m = arith.maxui %ia, %ib : i32
        %f = arith.bitcast %m : i32 to f32
        linalg.yield %f : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def JeetCpuVectorizeWindowReductionsPass
    : Pass<"jeet-cpu-vectorize-window-reductions", "::mlir::func::FuncOp"> {
  let summary = "Rewrites reductions over a short innermost window row "
                "(poolings) into vector loops along the outputs";
  let description = [{
    A pooling whose windows tile its input reduces the input reshaped to
    (..., OH, KH, OW, KW) over KH and KW: a `linalg.generic` whose innermost
    loop reduces the KW (2 to 8) contiguous columns of a window, after the
    parallel loop over the OW outputs of a row. Vectorised along its
    innermost loop it would combine vectors of KW lanes and end with a
    horizontal reduction per output. This pass matches such generics (an
    identity input map on a contiguous buffer, the output indexed by the
    parallel loops in order, a body of one combining op: `maximumf`,
    `minimumf`, `addf`, `addi`, `maxsi`, `minsi`; OW a multiple of 4) and
    emits, for each `width` outputs (16, 8 or 4, whichever divides OW
    first), one `vector.load` of their `width * KW` contiguous inputs, KW
    `vector.shuffle`s that take every KW-th lane, and the combining op on
    vectors, accumulated across the outer reduction loops (KH) in the scalar
    loop's order, so the result is the same. The outer parallel loops form
    an `scf.parallel`.

    A `linalg.fill` of all of the output just before the reduction starts
    every accumulator as a splat of its value (no load of the output), and
    an elementwise generic just after it that rewrites the output in place
    from its own values and constants (an average pooling's division by the
    window's size: one input and one init, both the output, identity maps,
    a body of pure arith ops that does not read the init) is applied, cloned
    on vectors, to each accumulator before its store. Both are erased: each
    was a pass over the output and a parallel loop of its own.

    A `maximumf` pooling, with a fill of -inf or +0, of a buffer allocated
    in the function and last written whole, just before it in the same
    block (only views, pure ops and fills of other buffers between), by an
    all-parallel generic whose result is non-negative or NaN (a relu:
    `maximumf(x, c)` with a constant c >= +0, or `minimumf`, `minnumf`,
    `maxnumf`, `select` of such values) combines the values' bits as
    unsigned integers (`arith.maxui` between bitcasts) from +0: for such
    values that order is `maximumf`'s (NaNs of either sign above +inf, no
    -0), and it is one instruction where `maximumf` is a max with NaN and
    signed-zero fix-ups. A convolution's tile with a relu epilogue and a
    max pooling (jeet-cpu-pool-in-tiles) has this form.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [#id6, #out],
        iterator_types = ["parallel", "parallel", "parallel", "reduction",
                          "parallel", "reduction"]}
        ins(%x : memref<16x16x16x2x16x2xf32>)
        outs(%o : memref<16x16x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %out, %in : f32
      linalg.yield %m : f32
    }
    ```
    After:
    ```mlir
    %rows = memref.collapse_shape %x [[0], [1], [2], [3], [4, 5]]
    scf.parallel (%n, %c, %h) = ... {
      scf.for %j = %c0 to %c16 step %c16 {
        %acc = vector.load %o[%n, %c, %h, %j] : ..., vector<16xf32>
        %r = scf.for %kh = %c0 to %c2 step %c1 iter_args(%a = %acc) {
          %v = vector.load %rows[%n, %c, %h, %kh, %j2] : ..., vector<32xf32>
          %even = vector.shuffle %v, %v [0, 2, ..., 30]
          %odd = vector.shuffle %v, %v [1, 3, ..., 31]
          %m0 = arith.maximumf %a, %even : vector<16xf32>
          %m1 = arith.maximumf %m0, %odd : vector<16xf32>
          scf.yield %m1 : vector<16xf32>
        }
        vector.store %r, %o[%n, %c, %h, %j]
      }
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def JeetCpuVectorizeTransposePass
    : Pass<"jeet-cpu-vectorize-transpose", "::mlir::func::FuncOp"> {
  let summary = "Rewrites transposes, and elementwise generics that read "
                "an input transposed, into blocks transposed in vector "
                "registers";
  let description = [{
    An elementwise `linalg.generic` on buffers of static shape (all loops
    parallel, projected-permutation maps) that reads an input transposed,
    its innermost loop stepping a dimension of the input other than the
    innermost one, reads each vector of its output along a column of that
    input: `jeet-cpu-vectorize-elementwise` gathers such vectors element by
    element (a load and an insert per element). A `linalg.transpose` whose
    output's innermost dimension is not the input's is such a generic (this
    pass makes it one first), and so is an op that jeet-fuse made read a
    transpose in place (`x.T + y`).

    This pass rewrites such a generic into loops over square blocks of
    `block` x `block` iterations of the two loops that trade places (the
    innermost one, and the one the transposed input's innermost dimension
    follows, the "rows"): per block, each transposed input is `block` vector
    loads of contiguous rows, transposed in registers by log2(`block`)
    rounds of `vector.shuffle` on pairs of vectors; then the body is cloned
    for each of the block's rows on vectors along the innermost loop (the
    other inputs read as `jeet-cpu-vectorize-elementwise` reads them, the
    transposed ones the block's columns) and stored as contiguous rows of
    the output. The rounds are the x86 ones (LLVM selects those instructions
    for their masks): interleaves within each 16-byte lane first
    (`vunpcklps`, `vunpcklpd`, ...), then moves of whole 16-byte lanes across
    the vector (`vshuff32x4`); the pass follows every element through them at
    compile time to know which column each vector ends with. Every cache line
    read or written is used whole.

    The blocks go in square tiles of 512 bytes of the widest transposed
    element a side (128 f32: their rows in at most 128 pages, reused by
    every block of the tile), which form an `scf.parallel` with the other
    loops when `parallel` is set and the op is not already inside a parallel
    loop; a tile's blocks run in order inside. What the blocks leave
    at the two loops' ends (ranges not a multiple of `block`) stays the same
    generic on subviews of its operands, which
    `jeet-cpu-vectorize-elementwise` gathers. The block is halved, down to 4,
    for loops shorter than it and for elements of 8 bytes (a row of a block
    is at most 64 bytes); a generic whose two loops are shorter than 4, or
    whose transposed input's innermost stride is not one or whose elements
    are not whole bytes (i1), is left alone.

    A generic whose innermost loop is shorter than `block` but whose trailing
    loops (after the rows) every operand reads as one contiguous run has
    those loops folded into one first (`linalg::collapseOpIterationDims`, its
    buffers by `memref.collapse_shape`): a 1 x 1 convolution with a constant
    filter at 3 x 3 positions is a matmul of positions by channels, and its
    epilogue (bias, activation, residual) writes the result back channel by
    channel in rows of 3, which fold into rows of 9, blocks of 8 and the
    last position of each channel on subviews. On one 320 x 1280 such
    convolution with SiLU (EfficientNet-B0's last at 96 x 96) the call took
    49 us against 67 gathered on rows of 3, on a Zen 5 core.

    Before:
    ```mlir
    linalg.transpose ins(%x : memref<64x32xf32>) outs(%y : memref<32x64xf32>)
        permutation = [1, 0]
    ```
    After (`block` 16; one tile, so no parallel loop):
    ```mlir
    scf.for %i = %c0 to %c32 step %c16 {
      scf.for %j = %c0 to %c64 step %c16 {
        %r0 = vector.load %x[%j, %i] : memref<64x32xf32>, vector<16xf32>
        ...                       // 16 rows, then 4 rounds of 16 shuffles
        %t0 = vector.shuffle %r0, %r1 [0, 16, 1, 17, 4, 20, 5, 21, ...]
            : vector<16xf32>, vector<16xf32>
        ...
        vector.store %col0, %y[%i, %j] : memref<32x64xf32>, vector<16xf32>
        ...
      }
    }
    ```
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Run the outer dimensions and the blocks of rows in an "
           "scf.parallel (unless already nested in one)">,
    Option<"block", "block", "int64_t", /*default=*/"0",
           "Elements of a block's side (a power of two, at least 4); 0: from "
           "the host's vector registers, 16 with AVX-512 (16 rows of f32 in "
           "16 of its 32 registers), 8 otherwise (8 of AVX2's 16)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def JeetCpuVectorizeElementwisePass
    : Pass<"jeet-cpu-vectorize-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Rewrites elementwise linalg.generic ops (and reductions "
                "over outer loops) on buffers into vector loops";
  let description = [{
    Rewrites every `linalg.generic` on memrefs whose iterators are all
    parallel, whose indexing maps are projected permutations, and whose body
    is made of elementwise-mappable scalar ops (arith, math) into a loop nest
    whose innermost loop computes `vector-width` elements per step: outputs
    are written with `vector.store` along their innermost dimension (unit
    stride); inputs that vary along the innermost loop are read with
    `vector.load` where it steps their innermost dimension with unit stride,
    as two loads that end at the last lane's element (the span's first
    `(spacing - 1) x width` elements and its last `width`) and a shuffle
    where they are 2 to 4 elements apart (a stride-2 slice or window; one
    masked load where the span is shorter than the two), and element
    by element into a vector otherwise (a transposed read, lanes further
    apart), the arithmetic on vectors either way; the others (broadcasts)
    are read once and splat. The body is cloned with
    vector types, op for op, so results are the same as the scalar loop's.
    A remainder narrower than the vector width is computed by vectors of
    power-of-two widths (7 elements are 4 + 2 + 1).

    The outer dimensions and chunks of `chunk-size` elements of the
    innermost one form an `scf.parallel` when `parallel` is set and the op
    is not already inside a parallel loop. Where inputs indexed by the
    innermost loop alone (read again by every outer iteration: a
    channels-last depthwise convolution's taps, one row of channels each)
    together take more than 8 KiB a row, the chunks are the outermost
    dimension instead, each of as many vectors as keep its part of those
    inputs within 8 KiB, so that it stays in L1 while the outer loops run
    over it (1152 channels at 3x3 positions with 5x5 taps: 2.8x).

    Outer loops may be reductions (column sums: the innermost loop is
    parallel): they run in order inside each parallel chunk, whose chunk
    of the output (at most 1024 elements, so it stays in L1) is read,
    combined and written back as vectors at every step, in the scalar loop's
    order.

    A `linalg.transpose` becomes the equivalent generic first and is
    vectorised like any other: one that keeps the innermost dimension in
    place (attention's heads split from the rows of the QKV projection and
    merged back) copies contiguous rows; another gathers each vector of its
    output.

    Trailing loops of one iteration that every operand reads as one run
    with the loop before them are folded into it first (a
    squeeze-and-excitation block's (N, C, 1, 1) gate: vectors along the
    channels, not one-lane vectors along a dimension of one); where an
    operand leaves out that loop (a softmax over those channels reads each
    row's sum by (N, 1, 1)) or it is a reduction's (the sum itself), the
    trailing loops are dropped instead (`linalg::dropUnitDims`, operands
    collapsed), and a reduction along its innermost loop then is
    jeet-cpu-vectorize-reductions' to take.

    Rows shorter than a vector (a depthwise convolution's rows of 6 at the
    end of a mobile network: a vector of 4, one of 2, for every row) are
    joined when `join-rows` is set: the two innermost loops are read as one
    grid, each vector a run of consecutive positions across rows. An
    operand whose rows are some distance apart in memory (a window of a
    padded input: rows of the padded width) is read with one load per
    vector, its lanes between rows reading the elements there (never stored
    or reduced); one whose rows are packed with one load of the elements on
    rows and a shuffle spreading them to their lanes. A vector that would
    run past the operand's last row is the vector that ends there, its lanes
    moved up by a shuffle (a masked load only where the rows together are
    shorter than a vector: nothing past them is read). A packed output is
    stored as whole vectors, each gathered by shuffles from the vectors that
    computed its positions once they all are (the last the vector that ends
    at its last position; a masked store where it is shorter than a
    vector); an output whose rows are apart takes a masked store of the
    lanes on rows. An input
    whose elements are 2 to 4 apart along a row (a stride-2 window) is a
    load of each vector's span and a shuffle. Every operand's rows must be
    packed or the same distance apart (in positions), and an output's
    elements consecutive; masks and shuffles are constants (the vectors are
    unrolled, 32 at most per outer iteration), and the lanes between rows
    compute on whatever lies there (bodies with integer division are left to
    the row by row loop). It is
    chosen where it takes fewer vector instructions, counting a 512-bit one
    as two 256-bit halves: 6 x 6 positions 10 apart are 7 vectors of 8
    against 12 for the rows.

    Generics with an output whose innermost stride is not one, or whose
    innermost loop reduces (`jeet-cpu-vectorize-reductions`), are left
    alone.

    Streaming: kernels on buffers of at least `stream-min-bytes` are bound
    by memory bandwidth. Each such input that is read as vectors and that
    no other operation of the function reads or writes (so it is unlikely to
    be in a cache) is prefetched `prefetch-distance` bytes ahead of the
    loads (the index clamped to the last element, so the prefetch never
    leaves the buffer); prefetching a buffer that another kernel has just
    brought into the cache only costs issue slots.
    An output of at least that size that leaves the function (an argument of
    the function that nothing after the kernel reads or writes, such as a
    result's out-parameter) is written with non-temporal vector stores,
    which skip the read-for-ownership of each cache line and do not evict
    the inputs from the caches. Those stores need vector-aligned addresses,
    so the kernel checks the buffers' alignment at run time and runs the
    plain loop when they are not aligned (`jeet-cpu-fence-nontemporal-stores`
    later puts a fence after each loop of non-temporal stores).

    Before:
    ```mlir
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<1000xf32>) outs(%o : memref<1000xf32>) {
    ^bb0(%x: f32, %y: f32):
      %r = arith.maximumf %x, %zero : f32
      linalg.yield %r : f32
    }
    ```
    After:
    ```mlir
    scf.parallel (%c) = (%c0) to (%c1) step (%c1) {
      scf.for %i = ... step %c16 {
        %x = vector.load %a[%i] : memref<1000xf32>, vector<16xf32>
        %r = arith.maximumf %x, %zeros : vector<16xf32>
        vector.store %r, %o[%i] : memref<1000xf32>, vector<16xf32>
      }
      scf.if %last { ... vector<8xf32> ... }  // 1000 = 62 * 16 + 8
    }
    ```
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Run the outer dimensions and chunks in an scf.parallel (unless "
           "already nested in one)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"16",
           "Elements per vector">,
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"8192",
           "Elements of the innermost dimension per parallel iteration "
           "(rounded to vector-width)">,
    Option<"streamMinBytes", "stream-min-bytes", "int64_t",
           /*default=*/"16777216",
           "Buffers of at least this many bytes are streamed: their vector "
           "loads are prefetched and, for outputs that leave the function, "
           "the stores are non-temporal (0 streams every buffer, a negative "
           "value none)">,
    Option<"prefetchDistance", "prefetch-distance", "int64_t",
           /*default=*/"1024",
           "How many bytes ahead of the loads streamed inputs are "
           "prefetched (0: no prefetches)">,
    Option<"joinRows", "join-rows", "bool", /*default=*/"true",
           "Vectors across rows shorter than a vector where that takes "
           "fewer vectors than the row by row loop">,
    Option<"datapathBits", "datapath-bits", "int64_t", /*default=*/"0",
           "The bits one vector instruction works on at once in the joined "
           "rows' cost model (a wider vector costs one per slice); 0: the "
           "host's (512 with AVX-512 executed whole, 256 on Zen 4 and "
           "without AVX-512)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def JeetCpuVectorizeReductionsPass
    : Pass<"jeet-cpu-vectorize-reductions", "::mlir::func::FuncOp"> {
  let summary = "Rewrites linalg.generic reductions along the innermost "
                "dimension into vector loops";
  let description = [{
    Rewrites every `linalg.generic` on memrefs whose loops are parallel
    followed by one or more reductions (the innermost loop reduces), whose
    single output is indexed by the parallel loops only, and whose body is
    an elementwise prologue followed by one combining op of the output with
    the prologue's value (`arith.addf`, `mulf`, `maximumf`, `minimumf`,
    `addi`, `muli`, `maxsi`, `minsi`). Per output element, the innermost loop
    runs `vector-width` lanes at a time, the prologue cloned with vector
    types (as in `jeet-cpu-vectorize-elementwise`), into a vector of partial
    results that starts at the combiner's identity (-0.0 for a float sum, -inf
    for a maximum); a remainder narrower than the vector is folded in with
    vectors of power-of-two widths, and one `vector.reduction` combines the
    lanes with the output's initial value. The default width of 64 f32 keeps
    four AVX-512 accumulators in flight.

    The lanes are combined in a different order than the scalar loop's:
    float sums and products are reassociated (maximum and minimum are
    exact). With `parallel`, the parallel loops form an `scf.parallel`
    unless the op is already inside a parallel loop.

    A reduction over the two innermost loops whose rows are shorter than a
    vector (the global average pooling of a squeeze-and-excitation block
    fused with the depthwise convolution before it, over 6 x 6 positions)
    reads them as one grid across rows when `join-rows` is set and that takes
    fewer vector instructions, as `jeet-cpu-vectorize-elementwise` does
    (its description): the lanes between rows combine the identity.

    Before (a row maximum):
    ```mlir
    linalg.generic {indexing_maps = [#id, #rows],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<64x4096xf32>) outs(%m : memref<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maximumf %out, %in : f32
      linalg.yield %0 : f32
    }
    ```
    After:
    ```mlir
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %init = memref.load %m[%i] : memref<64xf32>
      %acc = scf.for %j = %c0 to %c4096 step %c64
          iter_args(%a = %neg_inf) -> (vector<64xf32>) {
        %v = vector.load %x[%i, %j] : memref<64x4096xf32>, vector<64xf32>
        %r = arith.maximumf %a, %v : vector<64xf32>
        scf.yield %r : vector<64xf32>
      }
      %max = vector.reduction <maximumf>, %acc, %init : vector<64xf32> into f32
      memref.store %max, %m[%i] : memref<64xf32>
    }
    ```
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Run the parallel loops in an scf.parallel (unless already "
           "nested in one)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"64",
           "Lanes of the partial-result vector">,
    Option<"joinRows", "join-rows", "bool", /*default=*/"true",
           "Reduce rows shorter than a vector across rows (as "
           "jeet-cpu-vectorize-elementwise joins them) where that takes fewer "
           "vector instructions">,
    Option<"datapathBits", "datapath-bits", "int64_t", /*default=*/"0",
           "As jeet-cpu-vectorize-elementwise's: the bits one vector "
           "instruction works on at once in the joined rows' cost model; 0: "
           "the host's">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def JeetCpuApproximateMathPass
    : Pass<"jeet-cpu-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Computes f32 exp, log, tanh and erf with MLIR's "
                "vectorisable polynomial approximations instead of libm calls";
  let description = [{
    On the CPU, `math.exp`, `math.log`, `math.tanh` and `math.erf` on vectors
    otherwise become one libm call per lane, which makes every kernel that
    uses them (softmax, gelu, exp) compute-bound. This pass rewrites them, on scalars
    and vectors of f32 alike (so a kernel's vector loop and its scalar
    remainder agree), into MLIR's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`): range reduction and a
    polynomial in plain arithmetic that vectorises like any other
    elementwise op.

    The approximations alone flush at the edges of the range, so each op is
    first wrapped in a fix-up: exp(x) below -87 is computed as exp(x / 2)^2
    (subnormal results), log of a subnormal x as log(x * 2^23) - 23 ln 2,
    and tanh(x) and erf(x) take the sign of x (tanh(-0) = erf(-0) = -0).

    Accuracy against float64, in units in the last place of the f32 result,
    over every exponent (test/numerics/test_math_accuracy.py): exp 1 ULP
    below x = 80, 5.3 next to the overflow threshold and 1.8 for subnormal
    results, log 0.8, tanh 4.7, erf 4.6.
    Special values follow IEEE: exp(-inf) = 0, exp(+inf) = +inf, exp
    overflows to +inf, log(±0) = -inf, log(x < 0) = NaN, tanh(±inf) =
    erf(±inf) = ±1, and NaN stays NaN.

    `functions` chooses which functions are rewritten (default: exp, log,
    tanh, erf).
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "The math functions to approximate (default: exp,log,tanh,erf)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def JeetCpuFenceNontemporalStoresPass
    : Pass<"jeet-cpu-fence-nontemporal-stores", "::mlir::func::FuncOp"> {
  let summary = "Puts a memory fence after every loop that stores "
                "non-temporally";
  let description = [{
    Non-temporal stores (`vector.store` or `memref.store` with
    `nontemporal = true`) are weakly ordered: on x86 they sit in
    write-combining buffers that ordinary synchronisation does not flush.
    Each `scf.for` whose body issues such stores is followed by a
    sequentially consistent `llvm.fence` (an `mfence` on x86), so the values
    are visible to every thread before the loop's parallel region ends and
    another thread or the caller reads them.

    It runs after the parallel loops have become OpenMP regions and their
    `memref.alloca_scope`s have been inlined: a fence inside a scope would
    keep it from being inlined.

    Before:
    ```mlir
    scf.for %i = %lb to %ub step %c16 {
      vector.store %v, %o[%i] {alignment = 64 : i64, nontemporal = true}
          : memref<4194304xf32>, vector<16xf32>
    }
    ```
    After:
    ```mlir
    scf.for %i = %lb to %ub step %c16 { ... }
    llvm.fence seq_cst
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Compile time
//===----------------------------------------------------------------------===//

def JeetCpuSeparateEntryBlockPass
    : Pass<"jeet-cpu-separate-entry-block", "::mlir::func::FuncOp"> {
  let summary = "Moves a function's body out of its entry block before the "
                "conversion of its signature";
  let description = [{
    The conversion of a function to the LLVM dialect replaces each memref
    argument with a value built at the top of the entry block, and then
    asks, for every use of the argument in that block, whether the use
    comes after the new value; each answer renumbers the block after an
    insertion, so a graph of N outputs (N memref arguments, one block of N
    kernels) took time growing with N squared: 0.9 s of CPU at 2,000
    outputs. With the body in a block of its own, every use is in another
    block and no order is asked. The entry block then only branches to the
    body; canonicalization and LLVM merge the two again.

    Before:
    ```mlir
    func.func @main(%a: memref<16xf32>, %out: memref<16xf32>) {
      ... kernels ...
      return
    }
    ```
    After:
    ```mlir
    func.func @main(%a: memref<16xf32>, %out: memref<16xf32>) {
      cf.br ^bb1
    ^bb1:
      ... kernels ...
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

def JeetCpuFreezeInvariantLoadsPass
    : Pass<"jeet-cpu-freeze-invariant-loads", "::mlir::func::FuncOp"> {
  let summary = "Freezes every scalar a loop loads from the same place on "
                "each iteration, so that LLVM's loop vectorizer stops there";
  let description = [{
    A scalar loop that loads a value from the same element on every
    iteration (a broadcast operand: a base of shape (1,) or one per row)
    keeps the load inside the loop when LLVM cannot prove that the loop's
    stores miss it. LLVM 22's loop vectorizer then takes the load, and
    everything computed from it alone, as one scalar for all lanes, and
    decides that of each such value by asking it of every operand, without
    remembering the answers: a value reached by two paths is asked twice,
    so a chain of n steps that each use the one before twice (integer `**`
    squares its base 31 times for int32; `x = x * x` or `x = x * 2 + x`
    repeated in a graph) costs 2^n questions. Graphs of 24 such steps took
    4-5 s to compile; 31 never finished.

    `llvm.freeze` is not taken as such a scalar, so the questions stop at
    it. This pass freezes the result of every scalar `memref.load` that
    reads the same element on each iteration of the innermost loop around
    it: its buffer and indices defined outside the loop, or computed inside
    it from such values, and from such loads, by ops without memory
    effects. Left alone: loads of a buffer the loop writes (an accumulator,
    which LLVM must still see as a reduction) and loads in loops that
    compute on vectors (which LLVM's loop vectorizer does not take; a
    freeze there would only keep instruction selection from folding a load
    into its broadcast). A freeze changes no value that is not poison and
    costs no instruction; the loops still vectorize.

    Before:
    ```mlir
    scf.for %i = %c0 to %c165 step %c1 {
      %x = memref.load %base[] : memref<i32>
      %e = memref.load %exponent[%i] : memref<165xi32>
      ...
    }
    ```
    After:
    ```mlir
    scf.for %i = %c0 to %c165 step %c1 {
      %0 = memref.load %base[] : memref<i32>
      %x = llvm.freeze %0 : i32
      %e = memref.load %exponent[%i] : memref<165xi32>
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Allocation failures
//===----------------------------------------------------------------------===//

def JeetCpuCheckAllocationsPass
    : Pass<"jeet-cpu-check-allocations", "::mlir::ModuleOp"> {
  let summary = "Makes host code stop cleanly when an allocation returns "
                "null instead of writing through it";
  let description = [{
    Runs on the LLVM dialect of host code (the CPU kernels, or the host side
    of a GPU graph), after everything else. The allocation functions that
    MLIR's lowerings call (`_mlir_memref_to_llvm_alloc`,
    `_mlir_memref_to_llvm_aligned_alloc`, `malloc`, `aligned_alloc`,
    `mgpuMemAlloc`) return null when memory runs out (Jeet's runtime records
    an `OutOfMemory` error naming the size first); the generated code used to
    write through that null pointer. After every such call this pass
    branches, when the result is null, to an error block that

    - frees every buffer allocated earlier in the same region and not yet
      freed on the way there (`free`, `_mlir_memref_to_llvm_free`,
      `mgpuMemFree`), then synchronises and destroys the streams and
      destroys the events created there, so nothing leaks;
    - in the function's own body, returns (the caller reads the runtime's
      error);
    - inside a region (an iteration of an OpenMP loop, which may run on
      another thread and cannot return), stores the size it asked for in a
      slot of the function's frame and ends the iteration; after the
      top-level op holding that region, a non-zero slot calls
      `jeetAllocationFailed(size)` (the runtime records the error on the
      calling thread) and returns as above.

    Only pointers freed through the allocation's own result are tracked;
    a buffer passed through a block argument or stored is left to leak on
    the error path rather than risk a double free (Jeet's code has none).

    Before:
    ```mlir
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%size) : (i64) -> !llvm.ptr
    %q = llvm.call @_mlir_memref_to_llvm_alloc(%size) : (i64) -> !llvm.ptr
    ```
    After:
    ```mlir
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%size) : (i64) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %0 = llvm.icmp "eq" %p, %null : !llvm.ptr
    llvm.cond_br %0 weights([1, 1048576]), ^error, ^next
  ^error:
    llvm.return
  ^next:
    %q = llvm.call @_mlir_memref_to_llvm_alloc(%size) : (i64) -> !llvm.ptr
    ...
  ^error2:
    llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
    llvm.return
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Parallelism
//===----------------------------------------------------------------------===//

def JeetCpuSequentializeNestedParallelPass
    : Pass<"jeet-cpu-sequentialize-nested-parallel", "::mlir::func::FuncOp"> {
  let summary = "Turns every scf.parallel nested in another into scf.for "
                "loops";
  let description = [{
    Only the outermost parallel loop of a kernel should become an OpenMP
    region: a nested one would open a parallel region per iteration of its
    parent and run on one thread anyway. Every `scf.parallel` without
    reductions that is nested inside another `scf.parallel` becomes a nest of
    `scf.for` loops, outermost dimension first.

    Before:
    ```mlir
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      scf.parallel (%j, %k) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
        "some.op"(%i, %j, %k) : (index, index, index) -> ()
      }
    }
    ```
    After:
    ```mlir
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      scf.for %j = %c0 to %c8 step %c1 {
        scf.for %k = %c0 to %c8 step %c1 {
          "some.op"(%i, %j, %k) : (index, index, index) -> ()
        }
      }
    }
    ```
  
    An outermost loop whose static work is below `min-parallel-iterations`
    is sequentialized as well: an OpenMP region costs more than such a loop
    saves, and every region adds to the compile time of the whole graph
    (LLVM outlines each with an analysis of the whole function). The work
    is the trip count times that of one iteration: the loads and stores of
    its body outside inner loops (at least 1) plus each inner loop's work,
    counted the same way. A body of straight-line vector code (a depthwise
    convolution on a 6 x 6 image: one iteration per image and channel, a
    vector load per tap) weighs what it reads and writes, not 1.
  }];
  let options = [
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t",
           /*default=*/"1024",
           "Outermost parallel loops with less work (iterations, inner "
           "loops counted, each weighed by its loads and stores) run "
           "sequentially">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def JeetCpuMergeParallelRegionsPass
    : Pass<"jeet-cpu-merge-parallel-regions", "::mlir::func::FuncOp"> {
  let summary = "Runs adjacent OpenMP regions as one, with barriers between "
                "their loops";
  let description = [{
    Every kernel's outermost parallel loop becomes an `omp.parallel` region
    of its own, and each region starts (wakes) and joins the threads. Two
    regions of the same block with only effect-free ops between them (each
    region holding worksharing loops and effect-free ops only, no clauses)
    become one: the second region's loops follow the first's, after the
    barrier that ends the first's last loop. With `nowait-last-loop`, the
    last loop of each region gets `nowait` (the region's end joins the
    threads anyway); it is off by default: with it, LeakSanitizer's scan at
    the exit of a process that ran such a loop through libomp (loaded with
    dlopen) crashes on a thread-local block, and the barrier it saves is
    cheap next to the region's start. A
    loop of at most `dynamic-schedule-iterations` iterations (the tiles of a
    matmul with an epilogue) gets `schedule(dynamic)`: a thread that starts
    late takes fewer of them instead of holding the others up.

    Before:
    ```mlir
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
          "layer.one"(%i) : (index) -> ()
          omp.yield
        }
      }
      omp.terminator
    }
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
          "layer.two"(%i) : (index) -> ()
          omp.yield
        }
      }
      omp.terminator
    }
    ```
    After:
    ```mlir
    omp.parallel {
      omp.wsloop schedule(dynamic) {
        omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
          "layer.one"(%i) : (index) -> ()
          omp.yield
        }
      }
      omp.wsloop schedule(dynamic) {
        omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
          "layer.two"(%i) : (index) -> ()
          omp.yield
        }
      }
      omp.terminator
    }
    ```
  }];
  let options = [
    Option<"merge", "merge", "bool", /*default=*/"true",
           "Merge adjacent regions (otherwise only the schedules and the "
           "last loops' barriers change)">,
    Option<"nowaitLastLoop", "nowait-last-loop", "bool", /*default=*/"false",
           "Give the last loop of each region `nowait` (no barrier before "
           "the region's join)">,
    Option<"dynamicScheduleIterations", "dynamic-schedule-iterations",
           "int64_t", /*default=*/"64",
           "Loops of at most this many iterations hand them out one at a "
           "time (schedule(dynamic))">
  ];
  let dependentDialects = ["::mlir::omp::OpenMPDialect"];
}

def JeetCpuHoistTileBuffersPass
    : Pass<"jeet-cpu-hoist-tile-buffers", "::mlir::func::FuncOp"> {
  let summary = "Gives each thread of an OpenMP region one stack copy of "
                "the small buffers its loop iterations allocate and free";
  let description = [{
    A matmul tile with an epilogue accumulates into a buffer of its own
    (64x64 f32), allocated at the start of each iteration of the tile loop
    and freed at its end: every tile of every call went through the
    runtime's allocator, whose lock the threads of the region take in turn.
    An allocation at the top level of a worksharing loop's body, of a static
    shape of at most `max-bytes` bytes, freed in the same body, lives within
    one iteration, and a thread runs its iterations one after another: one
    buffer per thread serves them all. It becomes a `memref.alloca` at the
    start of the enclosing `omp.parallel` region (which every thread of the
    team runs once), and its free goes. The loops of one region run one
    after another on each thread, so buffers of the same type in different
    loops share a slot; at most `max-region-bytes` bytes are hoisted per
    region (the stack of an OpenMP worker is a few MiB).

    Before:
    ```mlir
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
          %acc = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
          "tile.compute"(%i, %acc) : (index, memref<64x64xf32>) -> ()
          memref.dealloc %acc : memref<64x64xf32>
          omp.yield
        }
      }
      omp.terminator
    }
    ```
    After:
    ```mlir
    omp.parallel {
      %acc = memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
          "tile.compute"(%i, %acc) : (index, memref<64x64xf32>) -> ()
          omp.yield
        }
      }
      omp.terminator
    }
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"65536",
           "Largest buffer (bytes) moved to the stack">,
    Option<"maxRegionBytes", "max-region-bytes", "int64_t",
           /*default=*/"262144",
           "Most bytes of stack buffers per OpenMP region">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def JeetCpuLowerWorksharingLoopsPass
    : Pass<"jeet-cpu-lower-worksharing-loops", "::mlir::ModuleOp"> {
  let summary = "Hands out the iterations of OpenMP worksharing loops in the "
                "generated code instead of through libomp's loop calls";
  let description = [{
    A worksharing loop (`omp.wsloop`) becomes calls into the OpenMP runtime
    when lowered to LLVM IR: `__kmpc_for_static_init` once per thread for a
    static schedule, `__kmpc_dispatch_init` and then `__kmpc_dispatch_next`
    per chunk for a dynamic one. The libomp of LLVM's packages (the one
    Jeet's wheel carries) is built with its debug code in, and these calls
    format trace messages into fresh strings whether tracing is on or not:
    about a microsecond each (0.8 us per chunk handed out, measured).

    Each worksharing loop directly in an `omp.parallel` region, without
    clauses other than a static or dynamic schedule without chunk and
    `nowait`, becomes the calling thread's share of its iterations (numbered
    row-major over the nest's dimensions): with the thread number and team
    size read once at the region's start (`omp_get_thread_num`,
    `omp_get_num_threads`), a static schedule runs the thread's contiguous
    block of `ceil(iterations / threads)` iterations (libomp's static
    schedule without chunk), a dynamic one takes the next iteration from a
    counter in the function's frame (zeroed before the region, an atomic
    add per iteration taken) until none is left. A loop without `nowait`
    ends with `omp.barrier`, as it did. Other loops are left to libomp, and
    so are loops whose body allocates on the heap (`memref.alloc`):
    `jeet-cpu-check-allocations` ends an iteration whose allocation fails
    at the terminator of the region it is in, which for a loop handed out
    here would be the region's end, past the barrier the other threads
    wait at.

    Before:
    ```mlir
    omp.parallel {
      omp.wsloop schedule(dynamic) {
        omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
          "tile"(%i) : (index) -> ()
          omp.yield
        }
      }
      omp.terminator
    }
    ```
    After:
    ```mlir
    %counter = memref.alloca() : memref<i64>
    memref.store %c0_i64, %counter[] : memref<i64>
    omp.parallel {
      scf.while : () -> () {
        %taken = memref.atomic_rmw addi %c1_i64, %counter[] : (i64, memref<i64>) -> i64
        %n = arith.index_cast %taken : i64 to index
        %more = arith.cmpi slt, %n, %c4 : index
        scf.condition(%more) %n : index
      } do {
      ^bb0(%n: index):
        %offset = arith.muli %n, %c64 : index
        %i = arith.addi %c0, %offset : index
        "tile"(%i) : (index) -> ()
        scf.yield
      }
      omp.barrier
      omp.terminator
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

#endif // JEET_CODEGEN_CPU_PASSES_TD
