//===- Strategies.h - What the GPU code generation files share --*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Codegen/GPU. The passes (FormKernels.cpp, MapKernels.cpp,
// MergeModules.cpp) and the code-generation strategies that
// jeet-gpu-map-kernels picks for the linalg ops of a kernel share:
//
// - the constants that size tiles, blocks, warps and vectors;
// - the loop and indexing helpers of LoopUtils.cpp;
// - the entry point of each strategy, one file each:
//     WorkgroupMemory.cpp  buffers of a tile become workgroup (shared) memory
//     ThreadLoops.cpp      an op's loops shared by the threads of a block
//     VectorAccess.cpp     16-byte loads and stores for elementwise ops
//     WarpReduction.cpp    a warp per row and a shuffle butterfly
//     TiledMatmul.cpp      a block's matmul tile staged in workgroup memory
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_CODEGEN_GPU_STRATEGIES_H
#define JEET_LIB_CODEGEN_GPU_STRATEGIES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace jeet::gpu_codegen {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// Threads of a warp on every supported chip (sm_80 to sm_90): the lanes that
/// `gpu.shuffle` exchanges values between.
inline constexpr int64_t kWarpSize = 32;

/// The block size that jeet-gpu-form-kernels sizes its tiles for: the default
/// of jeet-gpu-map-kernels' `block-size` option (Passes.td) and of the
/// pipelines. Large enough to hide memory latency with 8 warps, small enough
/// that several blocks share a multiprocessor.
inline constexpr int64_t kDefaultBlockSize = 256;

/// The most threads a block may have on every supported chip.
inline constexpr int64_t kMaxBlockSize = 1024;

/// Bytes of one vectorised global access (`ld.global.v4.f32`, `.v4.b32` of
/// halves): the widest load or store one thread can issue.
inline constexpr int64_t kVectorBytes = 16;

/// The most bytes of workgroup memory a kernel may use without opting in to
/// more (static shared memory limit of every supported chip).
inline constexpr int64_t kMaxWorkgroupBytes = 48 * 1024;

/// Tiles of jeet-gpu-form-kernels, for a block of kDefaultBlockSize threads:
///
/// Rows per tile of a row reduction: one per warp of the block.
inline constexpr int64_t kRowsPerTile = kDefaultBlockSize / kWarpSize;
/// Outputs per tile of another reduction: one per thread of the block.
inline constexpr int64_t kReductionOutputsPerTile = kDefaultBlockSize;
/// Elements per tile of an elementwise kernel: one 16-byte vector of f32 per
/// thread of the block, so that each thread makes one vectorised access per
/// buffer.
inline constexpr int64_t kElementwiseTileElements =
    kDefaultBlockSize * (kVectorBytes / int64_t(sizeof(float)));
static_assert(kRowsPerTile == 8 && kReductionOutputsPerTile == 256 &&
                  kElementwiseTileElements == 1024,
              "the tile sizes that the pass descriptions document");

/// The block tile of a matmul: kTileM x kTileN outputs, K-tiles of depth
/// kTileK staged in workgroup memory; kThreadsM x kThreadsN threads, each
/// with a kRegM x kRegN register tile (rows ty + kThreadsM * i, columns
/// kRegN * tx + j: a thread reads its columns of a row of B with one vector
/// load, and a warp's 16 threads of a row read 256 consecutive bytes). A
/// 4x4 register tile reuses each value loaded from workgroup memory four
/// times and keeps 16 accumulators in registers; the two K-tiles take 8 KiB
/// of f32, far below kMaxWorkgroupBytes. jeet-gpu-form-kernels
/// tiles the outputs of a group with a matmul by kTileM x kTileN, which the
/// plan requires.
inline constexpr int64_t kTileM = 64, kTileN = 64, kTileK = 16;
inline constexpr int64_t kThreadsM = 16, kThreadsN = 16;
inline constexpr int64_t kRegM = kTileM / kThreadsM;
inline constexpr int64_t kRegN = kTileN / kThreadsN;
/// The block size that the register-tiled matmul needs: one thread per
/// register tile.
inline constexpr int64_t kMatmulThreads = kThreadsM * kThreadsN;
static_assert(kMatmulThreads == kDefaultBlockSize,
              "the default block runs register-tiled matmuls");

/// The attribute that names the kernel (the fusion group) a forall belongs
/// to: the foralls of a group with several independent results become one
/// launch.
inline constexpr llvm::StringLiteral kKernelAttr = "jeet.kernel";

//===----------------------------------------------------------------------===//
// Loops and indexing (LoopUtils.cpp)
//===----------------------------------------------------------------------===//

/// `#gpu.block<linear_dim_0>`, ... for `numDims` dimensions of a forall.
mlir::ArrayAttr blockMapping(mlir::MLIRContext *context, unsigned numDims);

/// ceil((ub - lb) / step) for each dimension.
llvm::SmallVector<mlir::Value>
tripCounts(mlir::OpBuilder &b, mlir::Location loc,
           llvm::ArrayRef<mlir::OpFoldResult> lbs,
           llvm::ArrayRef<mlir::OpFoldResult> ubs,
           llvm::ArrayRef<mlir::OpFoldResult> steps);

/// The constant upper bound (inclusive) of the size `size`: its value when
/// constant, else the bound that ValueBoundsConstraintSet derives (a partial
/// tile's affine.min: the tile's size), or nullopt.
std::optional<int64_t> getConstantSizeBound(mlir::OpFoldResult size);

/// The product of `values` (1 when there are none).
mlir::Value product(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::ArrayRef<mlir::Value> values);

/// The induction variables lb + index * step of the linear iteration
/// `linear` of a loop nest with `counts` iterations per dimension.
llvm::SmallVector<mlir::Value>
delinearize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value linear,
            llvm::ArrayRef<mlir::Value> counts,
            llvm::ArrayRef<mlir::OpFoldResult> lbs,
            llvm::ArrayRef<mlir::OpFoldResult> steps);

/// The indices that `map` gives for the loop indices `ivs`.
llvm::SmallVector<mlir::Value>
applyIndexingMap(mlir::OpBuilder &b, mlir::Location loc, mlir::AffineMap map,
                 llvm::ArrayRef<mlir::Value> ivs);

/// Emits the payload of `op` at loop indices `ivs`, reading its inputs from
/// memory and its outputs from `outs`; returns the yielded values.
/// Inputs equal to `replaced` (when given) read `replacement` instead.
llvm::SmallVector<mlir::Value>
emitPayload(mlir::OpBuilder &b, mlir::Location loc, mlir::linalg::LinalgOp op,
            llvm::ArrayRef<mlir::Value> ivs, mlir::ValueRange outs,
            mlir::Value replaced = {}, mlir::Value replacement = {});

//===----------------------------------------------------------------------===//
// Strategies
//===----------------------------------------------------------------------===//

/// WorkgroupMemory.cpp: moves the buffers allocated inside `launch` into its
/// workgroup attributions: shared memory of the bound of their size, viewed
/// with their own (possibly dynamic) shape.
mlir::LogicalResult promoteAllocsToWorkgroup(mlir::RewriterBase &rewriter,
                                             mlir::gpu::LaunchOp launch);

/// LaunchHazards.cpp: splits each launch of `launches` (the foralls of one
/// kernel, in program order) before a forall that may access a buffer that
/// an earlier forall of its launch accesses on another block, one of them
/// writing (see the file).
void splitLaunchesAtHazards(
    llvm::SmallVectorImpl<llvm::SmallVector<mlir::scf::ForallOp>> &launches);

/// ThreadLoops.cpp: replaces the linalg op `op` (on buffers) by loops shared
/// by the block's threads (see the file). `thread` is the thread index,
/// created at the start of the block when null. Returns the op that holds
/// the loops.
mlir::FailureOr<mlir::Operation *> emitThreadLoops(mlir::RewriterBase &rewriter,
                                                   mlir::linalg::LinalgOp op,
                                                   mlir::Value &thread);

/// VectorAccess.cpp: how an op reads or writes one of its buffers along the
/// vectors of one of its loops (an elementwise op's innermost, a row
/// reduction's reduced one).
enum class VectorAccess { Vector, Broadcast };

/// The bytes one element of `elementType` (an integer or float) takes in
/// memory: an i1 takes a byte.
inline int64_t getElementBytes(mlir::Type elementType) {
  return llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8);
}

/// The alignment of an access of `numElements` consecutive elements of
/// `elementType` (its size): kVectorBytes for the widest elements of an op's
/// vectors, less for narrower ones beside them.
inline llvm::Align getVectorAlignment(mlir::Type elementType,
                                      int64_t numElements) {
  return llvm::Align(numElements * elementType.getIntOrFloatBitWidth() / 8);
}

/// VectorAccess.cpp: the number of elements per access (kVectorBytes) with
/// which `operands` of `op` (on buffers) can be read or written along its
/// loop `dim` of size `size`, each as a vector or a broadcast (`accesses`,
/// one per operand), or nullopt.
std::optional<int64_t>
getVectorWidthAlong(mlir::linalg::LinalgOp op,
                    llvm::ArrayRef<mlir::OpOperand *> operands, unsigned dim,
                    mlir::Value size,
                    llvm::SmallVectorImpl<VectorAccess> &accesses);

/// VectorAccess.cpp: the number of elements per thread and per access
/// (kVectorBytes) with which the elementwise `op` (on buffers, loop sizes
/// `sizes`) can be vectorised, with the access of each of its operands, or
/// nullopt.
std::optional<int64_t>
getVectorWidth(mlir::linalg::LinalgOp op, llvm::ArrayRef<mlir::Value> sizes,
               llvm::SmallVectorImpl<VectorAccess> &accesses);

/// VectorAccess.cpp: emits the payload of the elementwise `op` for the
/// `numElements` consecutive elements of its innermost loop from loop
/// indices `ivs`, with one vector load or store per buffer.
void emitVectorPayload(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::linalg::LinalgOp op,
                       llvm::ArrayRef<mlir::Value> ivs, int64_t numElements,
                       llvm::ArrayRef<VectorAccess> accesses);

/// WarpReduction.cpp: whether `op` reduces one dimension that is the
/// innermost one of every input that it indexes (a reduction of rows, which
/// a warp can share).
bool isRowReduction(mlir::linalg::LinalgOp op);

/// WarpReduction.cpp: replaces `op` by a reduction of each row by one warp
/// when it is a row reduction with a combiner on 32-bit values. Returns the
/// op that holds the loops, or null (nothing done) otherwise.
mlir::Operation *emitWarpReduction(mlir::RewriterBase &rewriter,
                                   mlir::linalg::LinalgOp op,
                                   mlir::Value &thread);

/// TiledMatmul.cpp: whether `op` is a contraction (a matmul).
bool isContraction(mlir::Operation *op);

/// TiledMatmul.cpp: a contraction of one tile, the fill that initializes its
/// accumulator and the elementwise epilogue that is its only reader (when
/// there is one).
struct TiledMatmul {
  mlir::linalg::LinalgOp matmul;
  mlir::linalg::FillOp fill;
  mlir::linalg::GenericOp epilogue;
  /// The dimensions of the register tiles and of the K-tiles, and the
  /// others (batch, outer M and N dimensions), looped over around them.
  unsigned mDim, nDim, kDim;
  llvm::SmallVector<unsigned> outerDims;
  mlir::Type accType;
};

/// TiledMatmul.cpp: the plan for `op` when one block of kMatmulThreads
/// threads can compute it with register tiles, or nullopt.
std::optional<TiledMatmul> planTiledMatmul(mlir::linalg::LinalgOp op);

/// TiledMatmul.cpp: emits `plan` as one block's register-tiled matmul in
/// `launch`. Returns the op that holds the loops.
mlir::Operation *emitTiledMatmul(mlir::RewriterBase &rewriter,
                                 mlir::gpu::LaunchOp launch,
                                 const TiledMatmul &plan);

} // namespace jeet::gpu_codegen

#endif // JEET_LIB_CODEGEN_GPU_STRATEGIES_H
