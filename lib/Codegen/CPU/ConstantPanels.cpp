//===- ConstantPanels.cpp - A constant B's panels, packed early -----------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A matmul by a model's weights (an ONNX initializer, a torch parameter
// folded into the graph, a convolution's filter transposed by the compiler)
// has a B that is the same on every call. jeet-cpu-matmul packs B's column
// panels into a (panel, k, column) buffer before its loops so that each
// kernel reads its panel as one stream; for such a B the compiler computes
// that buffer once, from the constant, and the kernels read a constant
// global laid out as the packing would have laid it out. Nothing is copied
// at run time, so B's panels also serve matmuls that were too short to
// repay a copy (a pointwise convolution at 3 x 3 positions: 9 rows against
// 320 x 1280 weights, whose rows read in place are 5 KiB apart, a page
// crossed at every step of k, which the hardware prefetchers do not follow).
//
//===----------------------------------------------------------------------===//

#include "ConstantPanels.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace mlir;

/// The bytes of a dense constant, row-major; nothing for any other value or
/// a splat (which packs to itself: `splat` is set).
static std::optional<ArrayRef<char>> denseBytes(Attribute value, bool &splat) {
  splat = false;
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value)) {
    splat = dense.isSplat();
    return dense.getRawData();
  }
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

Value jeet::cpu::constantPanels(OpBuilder &b, Location loc, Value rhs,
                                MemRefType packedType, bool transposed) {
  auto getGlobal = rhs.getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal)
    return Value();
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
  auto type = cast<MemRefType>(rhs.getType());
  if (!global || !global.getConstant() || type.getRank() != 2 ||
      !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      global.getType() != type || packedType.getRank() != 3 ||
      packedType.getElementType() != type.getElementType())
    return Value();
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0)
    return Value();
  int64_t bytes = bits / 8;
  int64_t panels = packedType.getDimSize(0), depth = packedType.getDimSize(1),
          nr = packedType.getDimSize(2);
  // B's columns (n) and depth (k), as the packing reads them.
  int64_t n = type.getDimSize(transposed ? 0 : 1);
  if (depth != type.getDimSize(transposed ? 1 : 0) ||
      panels != llvm::divideCeil(n, nr))
    return Value();

  auto module = global->getParentOfType<ModuleOp>();
  std::string name = (global.getSymName() + "_panels" + Twine(nr) +
                      (transposed ? "_transposed" : ""))
                         .str();
  // The global is flat, one run of elements (as an LLVM constant, one array
  // rather than an array per panel row: 25,600 of them for a 320 x 1280
  // B, which took LLVM's translation and module splitting ~0.4 s), and
  // read through a view of the panels' shape.
  auto flatType =
      MemRefType::get({packedType.getNumElements()}, type.getElementType());
  auto read = [&]() -> Value {
    Value flat = memref::GetGlobalOp::create(b, loc, flatType, name);
    return memref::ExpandShapeOp::create(
        b, loc, packedType, flat, ArrayRef<ReassociationIndices>{{0, 1, 2}});
  };
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing.getType() == flatType ? read() : Value();

  bool splat;
  std::optional<ArrayRef<char>> data =
      denseBytes(global.getInitialValueAttr(), splat);
  if (!data)
    return Value();
  auto tensorType =
      RankedTensorType::get(flatType.getShape(), type.getElementType());
  DenseElementsAttr packed;
  if (splat) {
    packed = DenseElementsAttr::get(
        tensorType, cast<DenseElementsAttr>(global.getInitialValueAttr())
                        .getSplatValue<Attribute>());
  } else {
    if (static_cast<int64_t>(data->size()) != type.getNumElements() * bytes)
      return Value();
    std::vector<char> out(panels * depth * nr * bytes, 0);
    const char *in = data->data();
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t kk = 0; kk < depth; ++kk) {
        char *row = out.data() + ((p * depth + kk) * nr) * bytes;
        if (!transposed) {
          // B is (k, n): the panel's row is up to nr contiguous elements of
          // B's.
          std::memcpy(row, in + (kk * n + p * nr) * bytes,
                      std::min(nr, n - p * nr) * bytes);
          continue;
        }
        // B is held as (n, k): column c of the panel is B's row p * nr + c.
        for (int64_t c = 0; c < nr && p * nr + c < n; ++c)
          std::memcpy(row + c * bytes, in + ((p * nr + c) * depth + kk) * bytes,
                      bytes);
      }
    packed = DenseElementsAttr::getFromRawBuffer(tensorType, out);
  }
  OpBuilder atModule(global->getContext());
  atModule.setInsertionPointAfter(global);
  memref::GlobalOp::create(atModule, global.getLoc(), name,
                           atModule.getStringAttr("private"), flatType, packed,
                           /*constant=*/true, atModule.getI64IntegerAttr(64));
  return read();
}
