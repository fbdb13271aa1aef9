//===- ConvolutionForms.h - Which form a convolution takes ------*- C++ -*-===//
//
// Part of the Jeet project.
//
// jeet.conv2d's decomposition chooses between two matmuls, in a header of
// its own (no MLIR): the ONNX frontend gives a convolution whose filter is a
// bound argument the same form, with the filter's transpose prepared once
// at load, where the decomposition transposes a constant filter at compile
// time.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_CONVOLUTIONFORMS_H
#define JEET_DIALECT_JEET_IR_CONVOLUTIONFORMS_H

#include "jeet/Dialect/Jeet/Transforms/TileSizes.h"

#include <cstdint>

namespace jeet {

/// Output positions (OH * OW) below which a convolution with a constant
/// filter is computed transposed (with groups, each group), positions as
/// the matmul's rows: a row of fewer columns than a vector (the last stages
/// of MobileNet and ResNet, 3x3 at 96x96) fills few lanes of each of the
/// matmul's vectors, where the transposed matmul's vectors run along O.
/// (ResNet-18's 3x3 convolutions of 512 channels at 3x3 positions: the
/// whole model 1.2x on one thread.)
inline constexpr int64_t kNarrowPositions = 16;
/// More positions are computed transposed too where their rows would fill
/// less than this share of their vectors' lanes (kMatmulColumnLanes): 25
/// (5x5), 36 (6x6: 16 + 16 + 4 lanes of 48) and 49; not 81 or 144. The
/// transposed result goes back to NCHW in the matmul's tiles
/// (jeet-fuse's transposed epilogues): resnet50's 6x6 convolutions
/// 1.15-1.25x faster.
inline constexpr double kMinPositionLaneShare = 0.8;
/// The output channels such a convolution needs at least: a whole vector
/// along O for the transposed matmul's rows.
inline constexpr int64_t kMinTransposedChannels = 16;

/// Whether a convolution of `outChannels` output channels (with groups, a
/// group's) at `positions` output positions (OH * OW) is computed
/// transposed: (N, positions, C * KH * KW) x filter^T, the positions as the
/// matmul's rows (with groups, (N, g, positions, K / g) x each group's
/// filter transposed: ResNeXt's last stage 1.9x).
inline bool isComputedTransposed(int64_t positions, int64_t outChannels) {
  return outChannels >= kMinTransposedChannels &&
         (positions < kNarrowPositions ||
          matmulLaneShare(positions) < kMinPositionLaneShare);
}

/// The fewest taps (KH * KW) of a depthwise convolution computed channels
/// last (isDepthwiseChannelsLast).
inline constexpr int64_t kMinChannelsLastTaps = 25;

/// Whether a depthwise convolution of f32 over `channels` channels, with
/// `taps` taps (KH * KW) at `positions` output positions (OH * OW), is
/// computed channels last: with vectors along the channels where the NCHW
/// sum's rows fill few lanes (3x3 positions: 3 of 16 a row), at the cost of
/// transposing the input and the result. (MNASNet's 5x5 ones of 1152
/// channels at 3x3 positions 1.7x, of 576 channels stride 2 to 3x3 1.4x;
/// those of 3x3 taps at 3x3 positions were level with their transposes,
/// and 6x6 positions or more slower.)
inline bool isDepthwiseChannelsLast(int64_t positions, int64_t taps,
                                    int64_t channels) {
  return positions < kNarrowPositions && taps >= kMinChannelsLastTaps &&
         channels >= kMinTransposedChannels;
}

} // namespace jeet

#endif // JEET_DIALECT_JEET_IR_CONVOLUTIONFORMS_H
