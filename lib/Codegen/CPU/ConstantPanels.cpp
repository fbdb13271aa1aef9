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
// The tiles of an epilogue whose width the register tile does not divide
// (the 50-column tiles of a 1,000-class classifier) cannot share panels; the
// compiler lays such a B out in blocks of the tiles' columns instead, each
// block's rows contiguous, so that a tile reads its columns as one stream,
// each row from a cache line's start where that costs little padding.
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

/// The alignment of the globals made here, and of the rows of a block of
/// columns where a row spans several lines.
static constexpr int64_t kCacheLineBytes = 64;

/// The bytes of a dense constant, row-major (one element's for a splat,
/// which packs to itself: `splat` is set); nothing for any other value.
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

/// The constant global that `rhs` reads the whole of (2-D, of static shape,
/// identity layout and whole bytes an element), or null.
static memref::GlobalOp constantGlobal(Value rhs) {
  auto getGlobal = rhs.getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal)
    return {};
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
  auto type = cast<MemRefType>(rhs.getType());
  if (!global || !global.getConstant() || type.getRank() != 2 ||
      !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      global.getType() != type || type.getElementTypeBitWidth() % 8 != 0)
    return {};
  return global;
}

/// A view of `viewType` of the flat constant global `name` (made after
/// `global` from the bytes `fill` writes, when the module has none), at `b`'s
/// insertion point; null when a global of that name holds something else.
static Value flatConstant(OpBuilder &b, Location loc, memref::GlobalOp global,
                          StringRef name, MemRefType viewType,
                          function_ref<void(ArrayRef<char>, char *)> fill) {
  auto flatType =
      MemRefType::get({viewType.getNumElements()}, viewType.getElementType());
  auto read = [&]() -> Value {
    Value flat = memref::GetGlobalOp::create(b, loc, flatType, name);
    ReassociationIndices all;
    for (int64_t dim = 0; dim < viewType.getRank(); ++dim)
      all.push_back(dim);
    return memref::ExpandShapeOp::create(b, loc, viewType, flat,
                                         ArrayRef<ReassociationIndices>{all});
  };
  auto module = global->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing.getType() == flatType ? read() : Value();
  bool splat;
  std::optional<ArrayRef<char>> data =
      denseBytes(global.getInitialValueAttr(), splat);
  if (!data)
    return Value();
  auto tensorType =
      RankedTensorType::get(flatType.getShape(), flatType.getElementType());
  DenseElementsAttr packed;
  if (splat) {
    packed = DenseElementsAttr::get(
        tensorType, cast<DenseElementsAttr>(global.getInitialValueAttr())
                        .getSplatValue<Attribute>());
  } else {
    int64_t bytes = flatType.getElementTypeBitWidth() / 8;
    if (static_cast<int64_t>(data->size()) !=
        global.getType().getNumElements() * bytes)
      return Value();
    std::vector<char> out(flatType.getNumElements() * bytes, 0);
    fill(*data, out.data());
    packed = DenseElementsAttr::getFromRawBuffer(tensorType, out);
  }
  OpBuilder atModule(global->getContext());
  atModule.setInsertionPointAfter(global);
  memref::GlobalOp::create(atModule, global.getLoc(), name,
                           atModule.getStringAttr("private"), flatType, packed,
                           /*constant=*/true,
                           atModule.getI64IntegerAttr(kCacheLineBytes));
  return read();
}

/// Where a block's rows start (in elements): each at a cache line, where
/// that pads a row by at most an eighth of its bytes (see
/// constantColumnBlocks).
static int64_t rowStride(int64_t width, int64_t bytes) {
  int64_t rowBytes = width * bytes;
  int64_t padded = llvm::alignTo(rowBytes, kCacheLineBytes);
  if (padded % bytes != 0 || (padded - rowBytes) * 8 > rowBytes)
    return width;
  return padded / bytes;
}

Value jeet::cpu::constantColumnBlocks(OpBuilder &b, Location loc, Value base,
                                      int64_t width) {
  memref::GlobalOp global = constantGlobal(base);
  if (!global || width <= 0)
    return Value();
  auto type = cast<MemRefType>(base.getType());
  int64_t depth = type.getDimSize(0), n = type.getDimSize(1);
  if (n % width != 0)
    return Value();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  int64_t stride = rowStride(width, bytes);
  std::string name = (global.getSymName() + "_blocks" + Twine(width) +
                      (stride != width ? "_stride" + Twine(stride) : Twine()))
                         .str();
  auto viewType =
      MemRefType::get({n / width, depth, stride}, type.getElementType());
  return flatConstant(
      b, loc, global, name, viewType, [&](ArrayRef<char> in, char *out) {
        for (int64_t t = 0; t < n / width; ++t)
          for (int64_t kk = 0; kk < depth; ++kk)
            std::memcpy(out + ((t * depth + kk) * stride) * bytes,
                        in.data() + (kk * n + t * width) * bytes,
                        width * bytes);
      });
}

Value jeet::cpu::constantPanels(OpBuilder &b, Location loc, Value rhs,
                                int64_t nr, bool transposed) {
  memref::GlobalOp global = constantGlobal(rhs);
  if (!global || nr <= 0)
    return Value();
  auto type = cast<MemRefType>(rhs.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  // B's columns (n) and depth (k), as the packing reads them.
  int64_t n = type.getDimSize(transposed ? 0 : 1);
  int64_t depth = type.getDimSize(transposed ? 1 : 0);
  int64_t panels = llvm::divideCeil(n, nr);
  auto packedType = MemRefType::get({panels, depth, nr}, type.getElementType());
  std::string name = (global.getSymName() + "_panels" + Twine(nr) +
                      (transposed ? "_transposed" : ""))
                         .str();
  return flatConstant(
      b, loc, global, name, packedType, [&](ArrayRef<char> data, char *out) {
        const char *in = data.data();
        for (int64_t p = 0; p < panels; ++p)
          for (int64_t kk = 0; kk < depth; ++kk) {
            char *row = out + ((p * depth + kk) * nr) * bytes;
            if (!transposed) {
              // B is (k, n): the panel's row is up to nr contiguous
              // elements of B's.
              std::memcpy(row, in + (kk * n + p * nr) * bytes,
                          std::min(nr, n - p * nr) * bytes);
              continue;
            }
            // B is held as (n, k): column c of the panel is B's row
            // p * nr + c.
            for (int64_t c = 0; c < nr && p * nr + c < n; ++c)
              std::memcpy(row + c * bytes,
                          in + ((p * nr + c) * depth + kk) * bytes, bytes);
          }
      });
}
