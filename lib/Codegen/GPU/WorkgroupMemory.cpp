//===- WorkgroupMemory.cpp - Buffers of a tile in workgroup memory --------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A buffer allocated inside a kernel's tile (a temporary of the fusion group
// that one op of the tile writes and the next reads) lives as long as the
// tile and is shared by the block's threads: it becomes a workgroup attribution
// of the `gpu.launch` (shared memory), sized by the constant upper bound of its
// shape, and viewed with its own shape. Kernels stay within
// kMaxWorkgroupBytes.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace jeet::gpu_codegen {

/// Moves the buffers allocated inside `launch` into its workgroup
/// attributions: shared memory of the bound of their size, viewed with their
/// own (possibly dynamic) shape.
LogicalResult promoteAllocsToWorkgroup(RewriterBase &rewriter,
                                       gpu::LaunchOp launch) {
  SmallVector<memref::AllocOp> allocs;
  launch.getBody().walk(
      [&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                              gpu::AddressSpace::Workgroup);
  int64_t totalBytes = 0;
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    if (!type.getLayout().isIdentity() || type.getMemorySpace())
      return alloc.emitOpError("cannot be placed in workgroup memory");
    Location loc = alloc.getLoc();
    SmallVector<int64_t> bound(type.getShape());
    unsigned dynamicIndex = 0;
    for (int64_t &size : bound) {
      if (!ShapedType::isDynamic(size))
        continue;
      std::optional<int64_t> ub =
          getConstantSizeBound(alloc.getDynamicSizes()[dynamicIndex++]);
      if (!ub)
        return alloc.emitOpError(
            "in a GPU kernel has a size with no constant bound");
      size = *ub;
    }
    int64_t numElements = ShapedType::getNumElements(bound);
    totalBytes += numElements * getElementBytes(type.getElementType());
    if (totalBytes > kMaxWorkgroupBytes)
      return alloc.emitOpError("needs ")
             << totalBytes << " bytes of workgroup memory in one kernel, more "
             << "than the " << kMaxWorkgroupBytes << " available";

    rewriter.setInsertionPoint(alloc);
    Value view;
    if (type.hasStaticShape()) {
      auto sharedType = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
      view = launch.addWorkgroupAttribution(sharedType, loc);
    } else {
      auto flatType = MemRefType::get({numElements}, type.getElementType(),
                                      MemRefLayoutAttrInterface(), workgroup);
      Value buffer = launch.addWorkgroupAttribution(flatType, loc);
      SmallVector<OpFoldResult> sizes =
          getMixedValues(type.getShape(), alloc.getDynamicSizes(), rewriter);
      SmallVector<OpFoldResult> strides(sizes.size());
      OpFoldResult stride = rewriter.getIndexAttr(1);
      for (int64_t i = sizes.size() - 1; i >= 0; --i) {
        strides[i] = stride;
        // Strides stay constants while the sizes inside them are: the view's
        // type (identity layout) requires static strides there.
        std::optional<int64_t> a = getConstantIntValue(stride);
        std::optional<int64_t> b = getConstantIntValue(sizes[i]);
        if (a && b) {
          stride = rewriter.getIndexAttr(*a * *b);
          continue;
        }
        stride = arith::MulIOp::create(
                     rewriter, loc,
                     getValueOrCreateConstantIndexOp(rewriter, loc, stride),
                     getValueOrCreateConstantIndexOp(rewriter, loc, sizes[i]))
                     .getResult();
      }
      auto viewType = MemRefType::get(type.getShape(), type.getElementType(),
                                      MemRefLayoutAttrInterface(), workgroup);
      view = memref::ReinterpretCastOp::create(rewriter, loc, viewType, buffer,
                                               rewriter.getIndexAttr(0), sizes,
                                               strides);
    }
    Value cast = memref::MemorySpaceCastOp::create(rewriter, loc, type, view);
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    rewriter.replaceOp(alloc, cast);
  }
  return success();
}

} // namespace jeet::gpu_codegen
