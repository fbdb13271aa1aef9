//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_CPU_PASSES_H
#define JEET_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace jeet {

#define GEN_PASS_DECL
#include "jeet/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "jeet/Codegen/CPU/Passes.h.inc"

/// The columns of jeet-cpu-matmul's register tile (6 rows) for a CPU that
/// has the features `hasFeature` says (LLVM's names: "avx512f", "avx"): 64
/// with AVX-512 (6 x 4 of its 32 registers hold the tile), 16 with AVX (6 x
/// 2 of AVX2's 16, room left for B's two vectors and A's broadcast: a tile
/// of 6 x 64 needs 48 and spilled its accumulators at every step of k), 8
/// with SSE alone (6 x 2 of its 4-float registers).
int64_t
getMatmulRegisterCols(llvm::function_ref<bool(llvm::StringRef)> hasFeature);

/// The side of jeet-cpu-vectorize-transpose's blocks for a CPU whose
/// register tile has `matmulRegisterCols` columns (getMatmulRegisterCols):
/// 16 with AVX-512's (a block's row of f32 is one of its registers, 16 of
/// its 32 hold the block), 8 otherwise (8 of AVX2's 16).
int64_t getTransposeBlock(int64_t matmulRegisterCols);

/// The bits that one vector instruction works on at once on CPU `cpu` (an
/// LLVM CPU name) with the features `hasFeature` says, for the cost model
/// of rows joined across (jeet-cpu-vectorize-elementwise and -reductions):
/// 512 with AVX-512 on cores that execute it whole (Zen 5, Intel's), 256
/// on Zen 4 (two halves) and without AVX-512.
int64_t
getVectorDatapathBits(llvm::StringRef cpu,
                      llvm::function_ref<bool(llvm::StringRef)> hasFeature);

} // namespace jeet

#endif // JEET_CODEGEN_CPU_PASSES_H
