//===- TileSizes.h - Tile sizes shared by fusion and lowering ---*- C++ -*-===//
//
// Part of the Jeet project.
//
// The sizes of the blocks that the lowering tiles fusion groups into, in a
// header of their own (no MLIR): jeet-fuse forms a group only where the
// lowering will find blocks that fit, so both compute them here. And the
// longest chain of elementwise ops that both recompute rather than read.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_TRANSFORMS_TILESIZES_H
#define JEET_DIALECT_JEET_TRANSFORMS_TILESIZES_H

#include <cstdint>
#include <cstdlib>

namespace jeet {

/// The size of the tiles of a dimension of `range` (static) iterations:
/// `tileSize` if it divides the range, else the divisor of the range closest
/// to it within [tileSize / 2, 2 * tileSize], else the whole range. Every
/// tile then has the same static shape: a partial tile would have a dynamic
/// one, which the CPU matmul kernels (static shapes only) could not take.
inline int64_t chooseDividingTileSize(int64_t range, int64_t tileSize) {
  if (range <= tileSize)
    return range;
  int64_t best = range;
  for (int64_t candidate = tileSize / 2; candidate <= 2 * tileSize;
       ++candidate) {
    if (candidate < 1 || range % candidate != 0)
      continue;
    if (best == range ||
        std::abs(candidate - tileSize) <= std::abs(best - tileSize))
      best = candidate;
  }
  return best;
}

/// The lanes of the vectors that the CPU matmul's register tiles hold a
/// row of C in (f32 on AVX-512; two vectors of 8 on AVX2).
inline constexpr int64_t kMatmulColumnLanes = 16;

/// The share of the lanes of a row of `cols` columns in vectors of
/// kMatmulColumnLanes that hold a column (the last vector partial).
inline double matmulLaneShare(int64_t cols) {
  int64_t vectors = (cols + kMatmulColumnLanes - 1) / kMatmulColumnLanes;
  return static_cast<double>(cols) /
         static_cast<double>(vectors * kMatmulColumnLanes);
}

/// The columns of a matmul epilogue's tiles, of `range` (static) in all:
/// like chooseDividingTileSize, among the divisors of `range` within
/// [tileSize / 2, 2 * tileSize] (and `range` itself up to 4 * tileSize),
/// the one whose rows fill the most of their vectors' lanes, the closest to
/// `tileSize` of those. The register tiles of a tile's columns past the
/// last whole vector hold few accumulators: 144 columns (a 12 x 12
/// convolution) in tiles of 72 were 64 + 8, the 8 a register tile of six
/// 8-lane accumulators whose FMAs waited on each other (a fifth of the
/// time for a ninth of the work); tiles of 48 are three whole vectors
/// (resnet50's 12 x 12 convolutions 1.25-1.3x faster).
inline int64_t chooseColumnTileSize(int64_t range, int64_t tileSize) {
  if (range <= tileSize)
    return range;
  int64_t best = chooseDividingTileSize(range, tileSize);
  double bestShare = matmulLaneShare(best);
  auto consider = [&](int64_t candidate) {
    double share = matmulLaneShare(candidate);
    if (share > bestShare ||
        (share == bestShare &&
         std::abs(candidate - tileSize) < std::abs(best - tileSize))) {
      best = candidate;
      bestShare = share;
    }
  };
  for (int64_t candidate = tileSize / 2; candidate <= 2 * tileSize; ++candidate)
    if (candidate >= 1 && range % candidate == 0)
      consider(candidate);
  if (range <= 4 * tileSize)
    consider(range);
  return best;
}

/// The longest chain of elementwise ops that a kernel computes again from
/// the tensors it reads rather than reading the chain's result from memory,
/// which costs about as much: jeet-fuse clones such chains into the groups
/// that read them, and jeet-lower-to-linalg computes a reduction's operand
/// or a broadcast operand in the loop nest that reads it when it costs at
/// most this many Jeet_CheapScalar ops.
inline constexpr unsigned kMaxRecomputedOps = 3;

/// The most rows of a matmul epilogue's tiles (see chooseEpilogueTileRows).
inline constexpr int64_t kMaxEpilogueTileRows = 256;
/// The fewest tiles a matmul epilogue keeps (for the threads to share) when
/// its tiles take more rows than `tileSize`.
inline constexpr int64_t kMinEpilogueTiles = 16;

/// The rows of a matmul epilogue's tiles, of `rows` (static) in all, where
/// the other dimensions make `otherTiles` tiles: the most rows, up to
/// kMaxEpilogueTileRows, that divide `rows` and leave at least
/// kMinEpilogueTiles tiles, or chooseDividingTileSize(rows, tileSize) if
/// that is more. A tile's matmul reads each cache block of its B panel
/// into L1 once for all its rows: the 256 x 1024 MLP's 64-row tiles read
/// their panels 4 times as often as 256-row ones, which ran its three layers
/// 1.2x faster (docs/Performance.md, "The MLP's tiles").
inline int64_t chooseEpilogueTileRows(int64_t rows, int64_t otherTiles,
                                      int64_t tileSize) {
  int64_t best = chooseDividingTileSize(rows, tileSize);
  for (int64_t candidate = best + 1;
       candidate <= kMaxEpilogueTileRows && candidate <= rows; ++candidate)
    if (rows % candidate == 0 &&
        rows / candidate * otherTiles >= kMinEpilogueTiles)
      best = candidate;
  return best;
}

/// The rows of one block of an attention group: its scores and its softmax,
/// `rowBytes` each per row, together about `blockBytes`.
inline int64_t attentionBlockRows(int64_t blockBytes, int64_t rowBytes) {
  int64_t rows = blockBytes / (2 * (rowBytes > 0 ? rowBytes : 1));
  return rows > 1 ? rows : 1;
}

} // namespace jeet

#endif // JEET_DIALECT_JEET_TRANSFORMS_TILESIZES_H
