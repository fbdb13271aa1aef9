//===- Passes.h - GPU code generation passes --------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_GPU_PASSES_H
#define JEET_CODEGEN_GPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/Pass.h"

namespace jeet {

#define GEN_PASS_DECL
#include "jeet/Codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "jeet/Codegen/GPU/Passes.h.inc"

/// The longest row (bytes of its reduced elements) of a multi-reduction
/// group (jeet-fuse's `multi-reduction`) that jeet-gpu-form-kernels makes one
/// kernel of, which the GPU pipeline passes as jeet-fuse's `max-row-bytes`:
/// no limit, but set, so that only groups over trailing axes form (a block
/// takes whole rows; those of up to 32 KiB are staged in shared memory, and
/// longer ones read from global memory once per pass).
int64_t getGpuMaxRowGroupBytes();

} // namespace jeet

#endif // JEET_CODEGEN_GPU_PASSES_H
