//===- JeetToLinalg.cpp - Lower jeet ops to linalg on tensors -------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Every jeet op becomes linalg on tensors in destination-passing style
// (`tensor.empty`, `linalg.fill` for accumulators). The op families of the
// dialect (JeetInterfaces.td) say how: elementwise ops define their
// arithmetic once, as the scalar function `buildScalar`; a group of them (a
// `jeet.fusion` region, or a single op) becomes one generic whose body
// composes these scalar functions, each group input read through its own
// broadcast indexing map. Ops with a loop structure of their own (matmul,
// reductions, transpose, reshape, composites such as softmax) are "anchors":
// a reduction computes its elementwise prologue in its own body, with the
// identity, combiner and accumulator type of its ReductionOpInterface; a
// composite is lowered as the group of its decomposition; the others read
// materialised operands, and elementwise ops after an anchor read its result
// as an input of the next generic. A transpose of matrices that only matmuls
// of its group read is not materialised: the matmuls read its input through
// transposed indexing maps (`linalg.matmul` / `linalg.batch_matmul` with
// `indexing_maps`, or the maps of a contraction generic).
//
// The lowering runs on verified IR: where a check below cannot fail for
// verified ops, a comment says so; the diagnostic is kept as a guard for
// callers of the C++ API.
//
//===----------------------------------------------------------------------===//

#include "jeet/Conversion/JeetToLinalg/JeetToLinalg.h"

#include "DataMovement.h"

#include "jeet/Conversion/Passes.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/Transforms/TileSizes.h"

#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace jeet {
#define GEN_PASS_DEF_JEETLOWERTOLINALGPASS
#include "jeet/Conversion/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

//===----------------------------------------------------------------------===//
// Scalar bodies
//===----------------------------------------------------------------------===//

static bool isSplatConstant(ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  return dense && dense.isSplat();
}

bool jeet::isScalarizableJeetOp(Operation *op) {
  return isa<ConstantOp, ElementwiseOpInterface>(op);
}

FailureOr<Value> jeet::emitScalarJeetOp(OpBuilder &b, Location loc,
                                        Operation *op, ValueRange operands) {
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    if (!isSplatConstant(constant) || !operands.empty())
      return failure();
    auto splat = cast<DenseElementsAttr>(constant.getValue());
    return arith::ConstantOp::create(
               b, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()))
        .getResult();
  }
  auto elementwise = dyn_cast<ElementwiseOpInterface>(op);
  if (!elementwise || operands.size() != op->getNumOperands())
    return failure();
  return elementwise.buildScalar(b, loc, operands);
}

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

static Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                         Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

static Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                          TypedAttr value) {
  Value empty = emptyTensor(b, loc, shape, value.getType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

/// The reassociation that drops the unit dimensions flagged in `dropped`
/// (each joins the group of a kept neighbour; none when all are dropped).
static SmallVector<ReassociationIndices>
reassociationDropping(ArrayRef<bool> dropped) {
  SmallVector<ReassociationIndices> reassociation;
  ReassociationIndices pending;
  for (auto [i, isDropped] : llvm::enumerate(dropped)) {
    pending.push_back(i);
    if (!isDropped) {
      reassociation.push_back(pending);
      pending.clear();
    }
  }
  if (!pending.empty() && !reassociation.empty())
    llvm::append_range(reassociation.back(), pending);
  return reassociation;
}

/// Collapses away the unit dimensions of `tensor` flagged in `dropped`.
static Value dropUnitDims(OpBuilder &b, Location loc, Value tensor,
                          ArrayRef<bool> dropped) {
  RankedTensorType type = tensorType(tensor);
  SmallVector<int64_t> shape;
  for (auto [size, isDropped] : llvm::zip_equal(type.getShape(), dropped))
    if (!isDropped)
      shape.push_back(size);
  auto collapsedType = RankedTensorType::get(shape, type.getElementType());
  // Collapsing a tensor that was just expanded (keepdims) gives back its
  // source.
  if (auto expand = tensor.getDefiningOp<tensor::ExpandShapeOp>())
    if (expand.getSrc().getType() == collapsedType)
      return expand.getSrc();
  return tensor::CollapseShapeOp::create(b, loc, collapsedType, tensor,
                                         reassociationDropping(dropped));
}

/// Prepares `tensor` to be read in a loop nest of sizes `loopSizes` where its
/// dimension i is indexed by loop `dimToLoop[i]`. A unit dimension stretched
/// over a longer loop is collapsed away, so that the indexing map stays a
/// projected permutation. Returns the tensor to read and its map.
static FailureOr<std::pair<Value, AffineMap>>
accessInLoops(OpBuilder &b, Location loc, Value tensor,
              ArrayRef<int64_t> dimToLoop, ArrayRef<int64_t> loopSizes) {
  RankedTensorType type = tensorType(tensor);
  if (static_cast<size_t>(type.getRank()) != dimToLoop.size())
    return failure();
  SmallVector<bool> dropped(type.getRank(), false);
  SmallVector<AffineExpr> exprs;
  for (auto [i, loop] : llvm::enumerate(dimToLoop)) {
    int64_t size = type.getDimSize(i);
    if (size == loopSizes[loop]) {
      exprs.push_back(b.getAffineDimExpr(loop));
    } else if (size == 1) {
      dropped[i] = true;
    } else {
      return failure();
    }
  }
  auto map = AffineMap::get(loopSizes.size(), 0, exprs, b.getContext());
  if (llvm::is_contained(dropped, true))
    tensor = dropUnitDims(b, loc, tensor, dropped);
  return std::make_pair(tensor, map);
}

/// `accessInLoops` for numpy broadcasting of `tensor` to `shape`.
static FailureOr<std::pair<Value, AffineMap>>
accessBroadcast(OpBuilder &b, Location loc, Value tensor,
                ArrayRef<int64_t> shape) {
  int64_t rank = tensorType(tensor).getRank();
  int64_t offset = static_cast<int64_t>(shape.size()) - rank;
  if (offset < 0)
    return failure();
  SmallVector<int64_t> dimToLoop =
      llvm::to_vector(llvm::seq<int64_t>(offset, offset + rank));
  return accessInLoops(b, loc, tensor, dimToLoop, shape);
}

/// `accessBroadcast` for the transpose of `tensor` by `permutation`, read
/// through the map instead of copied: the transpose's dimension k is the
/// input's dimension permutation[k].
static FailureOr<std::pair<Value, AffineMap>>
accessTransposed(OpBuilder &b, Location loc, Value tensor,
                 ArrayRef<int64_t> permutation, ArrayRef<int64_t> shape) {
  int64_t rank = tensorType(tensor).getRank();
  int64_t offset = static_cast<int64_t>(shape.size()) - rank;
  if (offset < 0 || static_cast<int64_t>(permutation.size()) != rank)
    return failure();
  SmallVector<int64_t> dimToLoop(rank);
  for (auto [k, dim] : llvm::enumerate(permutation))
    dimToLoop[dim] = offset + static_cast<int64_t>(k);
  return accessInLoops(b, loc, tensor, dimToLoop, shape);
}

static Value reshapeTensor(OpBuilder &b, Location loc, Value input,
                           RankedTensorType resultType) {
  RankedTensorType inputType = tensorType(input);
  ArrayRef<int64_t> from = inputType.getShape();
  ArrayRef<int64_t> to = resultType.getShape();
  if (from == to)
    return input;
  if (to.empty())
    return tensor::CollapseShapeOp::create(b, loc, resultType, input,
                                           ArrayRef<ReassociationIndices>{});
  if (from.empty())
    return tensor::ExpandShapeOp::create(b, loc, resultType, input,
                                         ArrayRef<ReassociationIndices>{});
  if (from.size() > to.size())
    if (auto reassociation = getReassociationIndicesForCollapse(from, to))
      return tensor::CollapseShapeOp::create(b, loc, resultType, input,
                                             *reassociation);
  if (from.size() < to.size())
    if (auto reassociation = getReassociationIndicesForCollapse(to, from))
      return tensor::ExpandShapeOp::create(b, loc, resultType, input,
                                           *reassociation);
  // Neither alone fits: through 1-D.
  Value flat = input;
  int64_t count = inputType.getNumElements();
  if (from.size() != 1) {
    ReassociationIndices all = llvm::to_vector<2>(
        llvm::seq<int64_t>(0, static_cast<int64_t>(from.size())));
    flat = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({count}, inputType.getElementType()),
        input, ArrayRef<ReassociationIndices>{all});
  }
  if (to.size() == 1)
    return flat;
  ReassociationIndices all = llvm::to_vector<2>(
      llvm::seq<int64_t>(0, static_cast<int64_t>(to.size())));
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

//===----------------------------------------------------------------------===//
// Group lowering
//===----------------------------------------------------------------------===//

namespace {

/// A value of the group that exists as a tensor: a group input, a non-splat
/// constant, or the result of an anchor. An anchor may leave its result in
/// a wider accumulator type or undivided (a mean); reading it converts.
struct Leaf {
  Value tensor;
  /// The element type of the group value.
  Type elementType;
  /// Divide by this when reading (a mean's element count); 0: none.
  int64_t divisor = 0;
  /// A transpose read in place: `tensor` is its input, the group value that
  /// input transposed by this permutation; empty: none.
  SmallVector<int64_t> permutation = {};
};

static Value readLeafScalar(OpBuilder &b, Location loc, Value scalar,
                            const Leaf &leaf) {
  if (leaf.divisor)
    scalar = arith::DivFOp::create(
        b, loc, scalar,
        buildScalarConstant(b, loc, scalar.getType(),
                            static_cast<double>(leaf.divisor)));
  return buildScalarConversion(b, loc, scalar, leaf.elementType);
}

/// A matmul operand as the lowering reads it: a tensor that holds the
/// operand's matrices, transposed when it is the input of a folded
/// transpose.
struct MatmulOperand {
  Value tensor;
  bool transposed;
};

/// The tensors a loop nest reads (see GroupLowering::readLeaves).
struct LoopInputs {
  /// The group values read.
  llvm::SetVector<Value> values;
  /// For each, the tensor read, its indexing map and its leaf.
  SmallVector<Value> tensors;
  SmallVector<AffineMap> maps;
  SmallVector<Leaf> leaves;
};

/// Lowers a group of jeet ops (a fusion region, or one op) given the tensors
/// of its inputs. Elementwise ops are never lowered on their own: they are
/// computed inside the loop nest of whatever reads them.
class GroupLowering {
public:
  GroupLowering(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  void addInput(Value groupValue, Value tensor) {
    leaves[groupValue] =
        Leaf{tensor, getElementTypeOrSelf(groupValue.getType()), 0};
  }

  /// Lowers `ops` (in order) and returns the tensors of `roots`.
  FailureOr<SmallVector<Value>> run(ArrayRef<Operation *> ops,
                                    ValueRange roots);

  /// What `run` built, for tiling a matmul epilogue.
  int numAnchors = 0;
  bool hasMatmul = false;
  bool anchorIsRoot = false;
  SmallVector<linalg::GenericOp> rootGenerics;
  /// Yielded transposes of a matmul's result, leaves read through their
  /// permutation by the generic that computes the roots.
  DenseSet<Value> permutedRoots;
  /// Whether hoistBroadcastWork runs (lowerFusionOpToLinalg's option).
  bool hoistBroadcasts = false;
  /// Whether a concat is lowered as copies (lowerFusionOpToLinalg's option).
  bool concatAsCopies = false;

private:
  LogicalResult collectLeaves(Value value, llvm::SetVector<Value> &found,
                              DenseSet<Value> &visited);
  FailureOr<LoopInputs> readLeaves(ValueRange roots, ArrayRef<int64_t> shape,
                                   Location opLoc);
  Value emitScalar(OpBuilder &body, Value value,
                   DenseMap<Value, Value> &scalars);
  FailureOr<linalg::GenericOp> emitElementwise(ArrayRef<Value> roots);
  FailureOr<Leaf> lowerAnchor(Operation *op);
  FailureOr<Leaf> lowerReduction(ReductionOpInterface op);
  unsigned elementwiseCost(Value value, unsigned limit);
  LogicalResult hoistBroadcastWork(ArrayRef<Value> roots,
                                   ArrayRef<int64_t> shape);
  LogicalResult materializeYieldedPrologue(ReductionOpInterface reduction,
                                           ValueRange roots);
  FailureOr<MatmulOperand> matmulOperand(Value value);
  FailureOr<Leaf> lowerMatmul(MatmulOp op);
  FailureOr<Value> lowerComposite(CompositeOpInterface op, ValueRange inputs);
  FailureOr<Value> materialize(Value value);
  Value materializeLeaf(const Leaf &leaf);

  OpBuilder &b;
  Location loc;
  DenseMap<Value, Leaf> leaves;
  DenseSet<Operation *> scalarOps;
  DenseSet<Value> anchorResults;
  DenseMap<Value, Value> materialized;
  /// Whether every op of the group is elementwise (hoistBroadcastWork).
  bool elementwiseOnly = false;
  /// Transposes that the matmuls reading them fold in: never materialised.
  DenseSet<Operation *> foldedTransposes;
  /// Slices read in place, and their reshapes by unit dimensions: views of
  /// a tensor, each with its slice and the tensor it slices.
  DenseMap<Value, std::pair<SliceOp, Value>> views;
};

} // namespace

/// Finds the tensors that computing `value` elementwise reads.
LogicalResult GroupLowering::collectLeaves(Value value,
                                           llvm::SetVector<Value> &found,
                                           DenseSet<Value> &visited) {
  if (!visited.insert(value).second)
    return success();
  if (leaves.count(value)) {
    found.insert(value);
    return success();
  }
  // Cannot happen: a group's block arguments are its inputs, and a fusion
  // region is isolated from above; every op of a group is either computed
  // elementwise (scalarOps) or an anchor, whose result is a leaf.
  Operation *def = value.getDefiningOp();
  if (!def)
    return emitError(loc, "cannot be lowered to linalg: a value of the group "
                          "is neither an input nor computed in it");
  if (!scalarOps.contains(def))
    return def->emitOpError("cannot be lowered to linalg: its result is read "
                            "elementwise but it has no scalar form");
  if (auto constant = dyn_cast<ConstantOp>(def)) {
    if (isSplatConstant(constant))
      return success();
    // A non-splat constant is read as a tensor.
    Value tensor = arith::ConstantOp::create(
        b, constant.getLoc(), cast<TypedAttr>(constant.getValue()));
    leaves[value] = Leaf{tensor, getElementTypeOrSelf(value.getType()), 0};
    found.insert(value);
    return success();
  }
  for (Value operand : def->getOperands())
    if (failed(collectLeaves(operand, found, visited)))
      return failure();
  return success();
}

Value GroupLowering::emitScalar(OpBuilder &body, Value value,
                                DenseMap<Value, Value> &scalars) {
  if (Value scalar = scalars.lookup(value))
    return scalar;
  Operation *def = value.getDefiningOp();
  SmallVector<Value> operands;
  for (Value operand : def->getOperands())
    operands.push_back(emitScalar(body, operand, scalars));
  // collectLeaves has checked that `def` has a scalar form.
  Value scalar = *emitScalarJeetOp(body, def->getLoc(), def, operands);
  scalars[value] = scalar;
  return scalar;
}

/// The tensors that a loop nest over `shape` reads to compute `roots`
/// elementwise: the leaves they reach, each read through its broadcast map.
FailureOr<LoopInputs> GroupLowering::readLeaves(ValueRange roots,
                                                ArrayRef<int64_t> shape,
                                                Location opLoc) {
  LoopInputs inputs;
  DenseSet<Value> visited;
  for (Value root : roots)
    if (failed(collectLeaves(root, inputs.values, visited)))
      return failure();
  for (Value value : inputs.values) {
    Leaf leaf = leaves.lookup(value);
    auto access =
        leaf.permutation.empty()
            ? accessBroadcast(b, opLoc, leaf.tensor, shape)
            : accessTransposed(b, opLoc, leaf.tensor, leaf.permutation, shape);
    // Cannot happen: every elementwise op's operands broadcast to its
    // result (the verifiers check it), so every leaf broadcasts to a root.
    if (failed(access))
      return emitError(opLoc, "cannot be lowered to linalg: ")
             << leaf.tensor.getType() << " does not broadcast to the loop "
             << "nest's shape";
    inputs.tensors.push_back(access->first);
    inputs.maps.push_back(access->second);
    inputs.leaves.push_back(leaf);
  }
  return inputs;
}

/// The scalars of the leaves `inputs` in a loop body whose block arguments
/// start with them.
static DenseMap<Value, Value> readLeafScalars(OpBuilder &body, Location loc,
                                              const LoopInputs &inputs,
                                              ValueRange args) {
  DenseMap<Value, Value> scalars;
  for (auto [i, value] : llvm::enumerate(inputs.values))
    scalars[value] = readLeafScalar(body, loc, args[i], inputs.leaves[i]);
  return scalars;
}

/// One parallel generic that computes `roots` (all of one shape) from the
/// leaves they read, each through its broadcast map.
FailureOr<linalg::GenericOp>
GroupLowering::emitElementwise(ArrayRef<Value> roots) {
  ArrayRef<int64_t> shape = tensorType(roots.front()).getShape();
  if (failed(hoistBroadcastWork(roots, shape)))
    return failure();
  FailureOr<LoopInputs> inputs = readLeaves(roots, shape, loc);
  if (failed(inputs))
    return failure();

  SmallVector<Value> inits;
  SmallVector<AffineMap> maps = inputs->maps;
  SmallVector<Type> resultTypes;
  for (Value root : roots) {
    inits.push_back(
        emptyTensor(b, loc, shape, getElementTypeOrSelf(root.getType())));
    maps.push_back(b.getMultiDimIdentityMap(shape.size()));
    resultTypes.push_back(root.getType());
  }
  SmallVector<utils::IteratorType> iterators(shape.size(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs->tensors, inits, maps, iterators,
      [&](OpBuilder &body, Location bodyLoc, ValueRange args) {
        DenseMap<Value, Value> scalars =
            readLeafScalars(body, bodyLoc, *inputs, args);
        SmallVector<Value> results;
        for (Value root : roots)
          results.push_back(emitScalar(body, root, scalars));
        linalg::YieldOp::create(body, bodyLoc, results);
      });
  return generic;
}

/// A reduction over its operand's shape; the elementwise ops that compute
/// the operand run inside its body (the prologue). The reduction's family
/// interface gives the accumulator type, the identity and the combiner.
FailureOr<Leaf> GroupLowering::lowerReduction(ReductionOpInterface op) {
  Location opLoc = op->getLoc();
  Value input = op.getInput();
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> axes = op.getAxes();
  Type elementType = resultType.getElementType();
  Type accType = op.getAccumulatorType(elementType);

  // The verifier has checked that the axes are in range.
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t axis : axes)
    reduced[axis] = true;
  SmallVector<int64_t> reducedShape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  int64_t count = 1;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (reduced[i]) {
      iterators.push_back(utils::IteratorType::reduction);
      count *= size;
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    reducedShape.push_back(size);
    outExprs.push_back(b.getAffineDimExpr(i));
  }
  Value init = filledTensor(b, opLoc, reducedShape, op.getIdentity(accType));

  // An operand that a matmul of the group reads as well is materialised for
  // the matmul anyway: reduce that tensor rather than compute the operand a
  // second time (an attention block's exponentials, summed and multiplied
  // by V).
  if (!leaves.count(input) &&
      llvm::any_of(input.getUsers(),
                   [](Operation *user) { return isa<MatmulOp>(user); })) {
    FailureOr<Value> full = materialize(input);
    if (failed(full))
      return failure();
    leaves[input] = Leaf{*full, getElementTypeOrSelf(input.getType()), 0};
  }
  FailureOr<LoopInputs> inputs = readLeaves(input, shape, opLoc);
  if (failed(inputs))
    return failure();
  // A loop that no operand indexes (the prologue broadcasts along it, or
  // reads only splat constants) would have no extent: compute the operand in
  // full first and reduce that.
  SmallVector<bool> indexed(shape.size(), false);
  for (AffineMap map : inputs->maps)
    for (AffineExpr expr : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        indexed[dim.getPosition()] = true;
  if (llvm::is_contained(indexed, false)) {
    FailureOr<Value> full = materialize(input);
    if (failed(full))
      return failure();
    leaves[input] = Leaf{*full, getElementTypeOrSelf(input.getType()), 0};
    inputs = readLeaves(input, shape, opLoc);
    if (failed(inputs))
      return failure();
  }
  SmallVector<AffineMap> maps = inputs->maps;
  maps.push_back(AffineMap::get(shape.size(), 0, outExprs, b.getContext()));

  auto generic = linalg::GenericOp::create(
      b, opLoc, init.getType(), inputs->tensors, init, maps, iterators,
      [&](OpBuilder &body, Location bodyLoc, ValueRange args) {
        DenseMap<Value, Value> scalars =
            readLeafScalars(body, bodyLoc, *inputs, args);
        Value x = buildScalarConversion(
            body, bodyLoc, emitScalar(body, input, scalars), accType);
        linalg::YieldOp::create(body, bodyLoc,
                                op.buildCombine(body, bodyLoc, args.back(), x));
      });

  Value result = generic.getResult(0);
  if (op.getKeepdims() && !axes.empty())
    result = tensor::ExpandShapeOp::create(
        b, opLoc, RankedTensorType::get(resultType.getShape(), accType), result,
        reassociationDropping(reduced));
  return Leaf{result, elementType, op.isMean() ? count : 0};
}

/// The tensor a matmul reads for `value`: the input of a folded transpose
/// (read transposed), else the value itself.
FailureOr<MatmulOperand> GroupLowering::matmulOperand(Value value) {
  auto transpose = value.getDefiningOp<TransposeOp>();
  bool transposed = transpose && foldedTransposes.contains(transpose);
  FailureOr<Value> tensor =
      materialize(transposed ? transpose.getInput() : value);
  if (failed(tensor))
    return failure();
  return MatmulOperand{*tensor, transposed};
}

/// The indexing maps of a matmul of matrices with `numBatch` (0 or 1) batch
/// loops that both operands share: loops (batch, m, n, k), A read at
/// (batch, m, k), B at (batch, k, n), C at (batch, m, n); a transposed A or
/// B has its two matrix dimensions swapped.
static SmallVector<AffineMap> matmulMaps(MLIRContext *context,
                                         unsigned numBatch, bool lhsTransposed,
                                         bool rhsTransposed) {
  unsigned m = numBatch, n = numBatch + 1, k = numBatch + 2;
  auto map = [&](unsigned row, unsigned col, bool transposed) {
    SmallVector<AffineExpr> exprs;
    for (unsigned i = 0; i < numBatch; ++i)
      exprs.push_back(getAffineDimExpr(i, context));
    exprs.push_back(getAffineDimExpr(transposed ? col : row, context));
    exprs.push_back(getAffineDimExpr(transposed ? row : col, context));
    return AffineMap::get(numBatch + 3, 0, exprs, context);
  };
  return {map(m, k, lhsTransposed), map(k, n, rhsTransposed), map(m, n, false)};
}

/// `linalg.matmul`, `linalg.batch_matmul`, or a contraction generic when the
/// batch dimensions broadcast; an operand that is a folded transpose is read
/// through a transposed indexing map. f16/bf16 accumulate in f32.
FailureOr<Leaf> GroupLowering::lowerMatmul(MatmulOp op) {
  Location opLoc = op.getLoc();
  FailureOr<MatmulOperand> lhs = matmulOperand(op.getLhs());
  if (failed(lhs))
    return failure();
  FailureOr<MatmulOperand> rhs = matmulOperand(op.getRhs());
  if (failed(rhs))
    return failure();
  // The shapes of the operands as multiplied (transposes applied).
  ArrayRef<int64_t> lhsShape = op.getLhs().getType().getShape();
  ArrayRef<int64_t> rhsShape = op.getRhs().getType().getShape();
  RankedTensorType resultType = op.getType();
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t lhsRank = lhsShape.size(), rhsRank = rhsShape.size();
  int64_t rank = shape.size();
  // The verifier has checked that both operands have rank 2 or more.
  Type elementType = resultType.getElementType();
  Type accType = op.getAccumulatorType();
  Value init =
      filledTensor(b, opLoc, shape, cast<TypedAttr>(b.getZeroAttr(accType)));
  bool transposed = lhs->transposed || rhs->transposed;
  SmallVector<Value, 2> inputs = {lhs->tensor, rhs->tensor};

  Value result;
  if (lhsRank == 2 && rhsRank == 2) {
    auto matmul = linalg::MatmulOp::create(b, opLoc, inputs, ValueRange{init});
    if (transposed)
      matmul.setIndexingMapsAttr(b.getAffineMapArrayAttr(
          matmulMaps(b.getContext(), 0, lhs->transposed, rhs->transposed)));
    result = matmul.getResult(0);
  } else if (lhsRank == 3 && rhsRank == 3 && lhsShape[0] == rhsShape[0]) {
    auto matmul =
        linalg::BatchMatmulOp::create(b, opLoc, inputs, ValueRange{init});
    if (transposed)
      matmul.setIndexingMapsAttr(b.getAffineMapArrayAttr(
          matmulMaps(b.getContext(), 1, lhs->transposed, rhs->transposed)));
    result = matmul.getResult(0);
  } else {
    // Loops: the result's batch dimensions, then m, n, k.
    int64_t numBatch = rank - 2;
    int64_t m = numBatch, n = numBatch + 1, k = numBatch + 2;
    SmallVector<int64_t> loopSizes(shape);
    loopSizes.push_back(lhsShape.back());
    // The loops of each dimension of an operand's tensor: its batch
    // dimensions align with the result's innermost ones.
    auto operandLoops = [&](int64_t operandRank, int64_t row, int64_t col,
                            bool transposedOperand) {
      SmallVector<int64_t> loops;
      for (int64_t i = 0; i < operandRank - 2; ++i)
        loops.push_back(numBatch - (operandRank - 2) + i);
      loops.push_back(transposedOperand ? col : row);
      loops.push_back(transposedOperand ? row : col);
      return loops;
    };
    auto lhsAccess =
        accessInLoops(b, opLoc, lhs->tensor,
                      operandLoops(lhsRank, m, k, lhs->transposed), loopSizes);
    auto rhsAccess =
        accessInLoops(b, opLoc, rhs->tensor,
                      operandLoops(rhsRank, k, n, rhs->transposed), loopSizes);
    // Cannot happen: the verifier has checked that the batch dimensions
    // broadcast to the result's.
    if (failed(lhsAccess) || failed(rhsAccess) || numBatch < lhsRank - 2 ||
        numBatch < rhsRank - 2)
      return op.emitOpError("cannot be lowered to linalg: operand shapes do "
                            "not broadcast to the result");
    SmallVector<AffineMap> maps = {
        lhsAccess->second, rhsAccess->second,
        b.getMultiDimIdentityMap(rank + 1).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    bool isFloat = isa<FloatType>(accType);
    result =
        linalg::GenericOp::create(
            b, opLoc, init.getType(),
            ValueRange{lhsAccess->first, rhsAccess->first}, init, maps,
            iterators,
            [&](OpBuilder &body, Location bodyLoc, ValueRange args) {
              Value x = buildScalarConversion(body, bodyLoc, args[0], accType);
              Value y = buildScalarConversion(body, bodyLoc, args[1], accType);
              Value sum;
              if (isFloat)
                sum = arith::AddFOp::create(
                    body, bodyLoc, args[2],
                    arith::MulFOp::create(body, bodyLoc, x, y));
              else
                sum = arith::AddIOp::create(
                    body, bodyLoc, args[2],
                    arith::MulIOp::create(body, bodyLoc, x, y));
              linalg::YieldOp::create(body, bodyLoc, sum);
            })
            .getResult(0);
  }
  hasMatmul = true;
  return Leaf{result, elementType, 0};
}

namespace {
/// Records the ops a builder creates.
struct CreatedOps : OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  SmallVector<Operation *> ops;
};
} // namespace

/// A composite op without a lowering of its own is lowered as the group of
/// the ops of its decomposition (softmax: max-subtract-exp-sum-divide along
/// the axis, in three loop nests where only the maximum and the sum are
/// materialised). Those ops exist only while they are lowered.
FailureOr<Value> GroupLowering::lowerComposite(CompositeOpInterface op,
                                               ValueRange inputs) {
  CreatedOps created;
  OpBuilder builder(b.getContext(), &created);
  builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
  FailureOr<Value> decomposed = op.decompose(builder, inputs);
  auto eraseDecomposition = [&] {
    for (Operation *temporary : llvm::reverse(created.ops))
      temporary->erase();
  };
  // Cannot happen: the composites lowered here (softmax, argmax, a matmul
  // with a 1-D operand) always decompose; a mean, which may not, is lowered
  // as a reduction, and a matmul of matrices as a matmul.
  if (failed(decomposed)) {
    eraseDecomposition();
    return op->emitOpError("cannot be lowered to linalg: no decomposition");
  }
  GroupLowering group(b, op->getLoc());
  for (Value input : inputs)
    group.addInput(input, input);
  FailureOr<SmallVector<Value>> results = group.run(created.ops, *decomposed);
  eraseDecomposition();
  if (failed(results))
    return failure();
  return results->front();
}

/// A parallel generic whose elements are their index along the iota's axis.
static Value emitIota(OpBuilder &b, IotaOp op) {
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Type elementType = type.getElementType();
  int64_t rank = type.getRank();
  Value init = emptyTensor(b, loc, type.getShape(), elementType);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{}, init, identity, iterators,
             [&](OpBuilder &body, Location bodyLoc, ValueRange) {
               Value index =
                   linalg::IndexOp::create(body, bodyLoc, op.getAxis());
               Value i64 = arith::IndexCastOp::create(body, bodyLoc,
                                                      body.getI64Type(), index);
               linalg::YieldOp::create(
                   body, bodyLoc,
                   buildScalarConversion(body, bodyLoc, i64, elementType));
             })
      .getResult(0);
}

/// Whether a matmul has a 1-D operand, which numpy promotes (lowered as its
/// decomposition, a matmul of matrices between reshapes).
static bool hasVectorOperand(MatmulOp op) {
  return op.getLhs().getType().getRank() < 2 ||
         op.getRhs().getType().getRank() < 2;
}

/// Lowers an op that has a loop structure of its own.
FailureOr<Leaf> GroupLowering::lowerAnchor(Operation *op) {
  if (auto reduction = dyn_cast<ReductionOpInterface>(op))
    return lowerReduction(reduction);
  auto matmul = dyn_cast<MatmulOp>(op);
  if (matmul && !hasVectorOperand(matmul))
    return lowerMatmul(matmul);
  if (auto iota = dyn_cast<IotaOp>(op))
    return Leaf{emitIota(b, iota), iota.getType().getElementType(), 0};
  // Cannot happen for the ops of the dialect: every other op is elementwise
  // (lowered in the loop nest of its readers) or handled below.
  if (!isa<TransposeOp, ReshapeOp, ConcatOp, SliceOp, GatherOp, PadOp, Im2colOp,
           CompositeOpInterface>(op))
    return op->emitOpError("cannot be lowered to linalg: unsupported op");

  SmallVector<Value> inputs;
  for (Value operand : op->getOperands()) {
    FailureOr<Value> tensor = materialize(operand);
    if (failed(tensor))
      return failure();
    inputs.push_back(*tensor);
  }
  Value input = inputs.front();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Location opLoc = op->getLoc();
  FailureOr<Value> result =
      llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
          .Case([&](TransposeOp transpose) -> Value {
            Value init = emptyTensor(b, opLoc, resultType.getShape(),
                                     resultType.getElementType());
            return linalg::TransposeOp::create(b, opLoc, input, init,
                                               transpose.getPermutation())
                .getResult()
                .front();
          })
          .Case([&](ReshapeOp) {
            return reshapeTensor(b, opLoc, input, resultType);
          })
          .Case([&](ConcatOp concat) {
            return concatAsCopies ? emitConcatAsCopies(b, concat, inputs)
                                  : emitConcat(b, concat, inputs);
          })
          .Case([&](SliceOp slice) { return emitSlice(b, slice, input); })
          .Case([&](GatherOp gather) {
            return emitGather(b, gather, inputs[0], inputs[1]);
          })
          .Case(
              [&](PadOp pad) { return emitPad(b, pad, inputs[0], inputs[1]); })
          .Case([&](Im2colOp im2col) { return emitIm2col(b, im2col, input); })
          .Case([&](CompositeOpInterface composite) {
            return lowerComposite(composite, inputs);
          })
          .Default([](Operation *) { return failure(); });
  if (failed(result))
    return failure();
  return Leaf{*result, resultType.getElementType(), 0};
}

/// The tensor of a leaf, converted where it is an accumulator.
Value GroupLowering::materializeLeaf(const Leaf &leaf) {
  RankedTensorType type = tensorType(leaf.tensor);
  // A transpose read in place, read whole by an anchor: copied.
  if (!leaf.permutation.empty()) {
    SmallVector<int64_t> shape;
    for (int64_t dim : leaf.permutation)
      shape.push_back(type.getDimSize(dim));
    Value init = emptyTensor(b, loc, shape, type.getElementType());
    return linalg::TransposeOp::create(b, loc, leaf.tensor, init,
                                       leaf.permutation)
        .getResult()
        .front();
  }
  if (!leaf.divisor && type.getElementType() == leaf.elementType)
    return leaf.tensor;
  ArrayRef<int64_t> shape = type.getShape();
  Value init = emptyTensor(b, loc, shape, leaf.elementType);
  AffineMap identity = b.getMultiDimIdentityMap(shape.size());
  SmallVector<utils::IteratorType> iterators(shape.size(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), leaf.tensor, init,
             ArrayRef<AffineMap>{identity, identity}, iterators,
             [&](OpBuilder &body, Location bodyLoc, ValueRange args) {
               linalg::YieldOp::create(
                   body, bodyLoc, readLeafScalar(body, bodyLoc, args[0], leaf));
             })
      .getResult(0);
}

/// The tensor of a group value, computing it if it is elementwise.
FailureOr<Value> GroupLowering::materialize(Value value) {
  if (Value tensor = materialized.lookup(value))
    return tensor;
  Value tensor;
  if (leaves.count(value)) {
    tensor = materializeLeaf(leaves.lookup(value));
  } else if (auto constant = value.getDefiningOp<ConstantOp>()) {
    tensor = arith::ConstantOp::create(b, constant.getLoc(),
                                       cast<TypedAttr>(constant.getValue()));
  } else {
    FailureOr<linalg::GenericOp> generic = emitElementwise(value);
    if (failed(generic))
      return failure();
    tensor = generic->getResult(0);
  }
  materialized[value] = tensor;
  return tensor;
}

/// The cost of computing `value` elementwise from the leaves (its cone of
/// the group's ops), counted up to `limit`: one for each Jeet_CheapScalar op
/// (add, compare, select, cast and the like); any other (a division, a
/// transcendental: exp, sigmoid, ...) counts `limit` alone.
unsigned GroupLowering::elementwiseCost(Value value, unsigned limit) {
  DenseSet<Operation *> seen;
  SmallVector<Value> worklist = {value};
  unsigned cost = 0;
  while (!worklist.empty() && cost < limit) {
    Value next = worklist.pop_back_val();
    Operation *def = next.getDefiningOp();
    if (leaves.count(next) || !def || !scalarOps.contains(def) ||
        isa<ConstantOp>(def) || !seen.insert(def).second)
      continue;
    cost += def->hasTrait<CheapScalar>() ? 1 : limit;
    llvm::append_range(worklist, def->getOperands());
  }
  return std::min(cost, limit);
}

/// A reduction whose operand the group also yields (a depthwise
/// convolution's SiLU that a squeeze-and-excitation block averages): the
/// operand is computed once, as the group's result, and the reduction reads
/// it, where its prologue would compute it again. Short chains of cheap ops
/// (at most kMaxRecomputedOps adds, products, compares, ...) are still
/// computed in the prologue. With hoistBroadcasts only, as the CPU lowers
/// groups: the GPU's kernel formation launched such a reduction before the
/// generic that computes its operand, reading the result's buffer before
/// anything wrote it (NaN under JEET_POISON_DEVICE_MEMORY, fuzz_numerics
/// GPU seed 488,281).
LogicalResult
GroupLowering::materializeYieldedPrologue(ReductionOpInterface reduction,
                                          ValueRange roots) {
  Value input = reduction.getInput();
  if (!hoistBroadcasts || !llvm::is_contained(roots, input) ||
      leaves.count(input) ||
      elementwiseCost(input, kMaxRecomputedOps + 1) <= kMaxRecomputedOps)
    return success();
  FailureOr<linalg::GenericOp> generic = emitElementwise(input);
  if (failed(generic))
    return failure();
  leaves[input] =
      Leaf{generic->getResult(0), getElementTypeOrSelf(input.getType()), 0};
  return success();
}

/// In a group of elementwise ops alone, the operands broadcast into the
/// loop nest of `roots` (smaller than `shape`) that cost a division or a
/// transcendental are computed first by generics of their own shape, and
/// read as leaves: a squeeze-and-excitation block's gate, sigmoid(s + b) of
/// one value per channel that multiplies every position of its channel, was
/// computed once per vector of positions (a scalar sigmoid per 16 products),
/// and is now one vector of sigmoids per 16 channels.
LogicalResult GroupLowering::hoistBroadcastWork(ArrayRef<Value> roots,
                                                ArrayRef<int64_t> shape) {
  if (!hoistBroadcasts || !elementwiseOnly)
    return success();
  int64_t elements = ShapedType::getNumElements(shape);
  DenseSet<Value> visited;
  SmallVector<Value> hoisted, worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (!visited.insert(value).second || leaves.count(value) || !def ||
        !scalarOps.contains(def) || isa<ConstantOp>(def))
      continue;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (type && type.hasStaticShape() && type.getNumElements() < elements &&
        elementwiseCost(value, kMaxRecomputedOps + 1) > kMaxRecomputedOps) {
      hoisted.push_back(value);
      continue;
    }
    llvm::append_range(worklist, def->getOperands());
  }
  for (Value value : hoisted) {
    FailureOr<Value> tensor = materialize(value);
    if (failed(tensor))
      return failure();
    leaves[value] = Leaf{*tensor, getElementTypeOrSelf(value.getType()), 0};
  }
  return success();
}

/// Whether `transpose` swaps the two innermost dimensions of a matmul's
/// result (a convolution's transposed form without bias or activation,
/// (N, positions, O) back to (N, O, positions)): yielded by its group, it is
/// then computed as the matmul's transposed epilogue, which tileEpilogue
/// tiles with the matmul, rather than copied after the whole product.
static bool transposesMatmulResult(TransposeOp transpose) {
  auto matmul = transpose.getInput().getDefiningOp<MatmulOp>();
  if (!matmul || hasVectorOperand(matmul))
    return false;
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  int64_t rank = permutation.size();
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (permutation[i] != i)
      return false;
  return rank >= 2 && permutation[rank - 2] == rank - 1 &&
         permutation[rank - 1] == rank - 2;
}

FailureOr<SmallVector<Value>> GroupLowering::run(ArrayRef<Operation *> ops,
                                                 ValueRange roots) {
  elementwiseOnly = llvm::all_of(ops, isScalarizableJeetOp);
  for (Operation *op : ops) {
    if (isScalarizableJeetOp(op)) {
      scalarOps.insert(op);
      continue;
    }
    // Read by the matmuls of the group through their indexing maps.
    auto transpose = dyn_cast<TransposeOp>(op);
    if (transpose && foldsIntoMatmuls(transpose) &&
        !llvm::is_contained(roots, transpose.getResult())) {
      foldedTransposes.insert(op);
      continue;
    }
    // Read in place by the ops of the group: a box of its input, a view
    // once bufferized, and that view reshaped (jeet-fuse clones slices and
    // their splitting reshapes into their readers' groups). A
    // slice or reshape that the group yields is copied.
    bool isRoot = llvm::is_contained(roots, op->getResult(0));
    auto slice = dyn_cast<SliceOp>(op);
    if (slice && isViewSlice(slice) && !isRoot) {
      FailureOr<Value> input = materialize(slice.getInput());
      if (failed(input))
        return failure();
      Value view = emitSliceView(b, slice, *input);
      leaves[slice.getResult()] =
          Leaf{view, slice.getType().getElementType(), 0};
      views[slice.getResult()] = {slice, *input};
      continue;
    }
    // Read in place by the elementwise ops of the group through a permuted
    // map (jeet-fuse clones such transposes into their readers' groups); a
    // transpose that the group yields is copied, but that of a matmul's
    // result, computed as its epilogue (a generic reading it permuted).
    bool epilogue = transpose && isRoot && transposesMatmulResult(transpose);
    if (epilogue)
      permutedRoots.insert(transpose.getResult());
    if (transpose && (!isRoot || epilogue)) {
      FailureOr<Value> input = materialize(transpose.getInput());
      if (failed(input))
        return failure();
      leaves[transpose.getResult()] =
          Leaf{*input, transpose.getType().getElementType(), 0,
               llvm::to_vector(transpose.getPermutation())};
      continue;
    }
    auto reshape = dyn_cast<ReshapeOp>(op);
    if (reshape && views.count(reshape.getInput()) &&
        isSplittingReshape(reshape) && !isRoot) {
      auto [source, input] = views.lookup(reshape.getInput());
      Value view = emitSliceView(b, source, input, reshape.getType());
      leaves[reshape.getResult()] =
          Leaf{view, reshape.getType().getElementType(), 0};
      views[reshape.getResult()] = {source, input};
      continue;
    }
    if (auto reduction = dyn_cast<ReductionOpInterface>(op))
      if (failed(materializeYieldedPrologue(reduction, roots)))
        return failure();
    ++numAnchors;
    FailureOr<Leaf> leaf = lowerAnchor(op);
    if (failed(leaf))
      return failure();
    leaves[op->getResult(0)] = *leaf;
    anchorResults.insert(op->getResult(0));
  }

  // Roots computed elementwise share one generic per shape.
  SmallVector<Value> results(roots.size());
  SmallVector<std::pair<ArrayRef<int64_t>, SmallVector<unsigned>>> byShape;
  for (auto [i, root] : llvm::enumerate(roots)) {
    if ((leaves.count(root) && !permutedRoots.contains(root)) ||
        root.getDefiningOp<ConstantOp>()) {
      FailureOr<Value> tensor = materialize(root);
      if (failed(tensor))
        return failure();
      results[i] = *tensor;
      anchorIsRoot |= anchorResults.contains(root);
      continue;
    }
    ArrayRef<int64_t> shape = tensorType(root).getShape();
    auto it = llvm::find_if(byShape,
                            [&](auto &entry) { return entry.first == shape; });
    if (it == byShape.end())
      byShape.push_back({shape, {static_cast<unsigned>(i)}});
    else
      it->second.push_back(i);
  }
  for (auto &[shape, indices] : byShape) {
    SmallVector<Value> group;
    for (unsigned i : indices)
      group.push_back(roots[i]);
    FailureOr<linalg::GenericOp> generic = emitElementwise(group);
    if (failed(generic))
      return failure();
    rootGenerics.push_back(*generic);
    for (auto [i, result] : llvm::zip_equal(indices, generic->getResults()))
      results[i] = result;
  }
  return results;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> jeet::lowerJeetOpToLinalg(OpBuilder &builder,
                                                        Operation *op,
                                                        ValueRange operands) {
  // For callers of this API: the pass lowers fusions as groups and passes
  // every other op with its own operands.
  if (isa<FusionOp, YieldOp>(op) || op->getNumRegions() != 0)
    return op->emitOpError("cannot be lowered to linalg on its own");
  if (operands.size() != op->getNumOperands())
    return op->emitOpError("cannot be lowered to linalg: expected ")
           << op->getNumOperands() << " operands";
  GroupLowering group(builder, op->getLoc());
  for (auto [operand, tensor] : llvm::zip_equal(op->getOperands(), operands))
    group.addInput(operand, tensor);
  return group.run(op, op->getResults());
}

/// The size of the tiles of a dimension (see chooseDividingTileSize); a
/// dynamic range gets `tileSize`.
static int64_t chooseTileSize(int64_t range, int64_t tileSize) {
  if (ShapedType::isDynamic(range))
    return tileSize;
  return chooseDividingTileSize(range, tileSize);
}

/// Tiles `generic` by `sizes` (0: not tiled) into an scf.forall and fuses
/// its producers into each tile.
static LogicalResult tileAndFuseProducers(RewriterBase &rewriter,
                                          Operation *generic,
                                          ArrayRef<OpFoldResult> sizes) {
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes).setLoopType(
      scf::SCFTilingOptions::LoopType::ForallOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);

  rewriter.setInsertionPoint(generic);
  FailureOr<scf::SCFTileAndFuseResult> tiled =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(generic), options);
  if (failed(tiled))
    return failure();
  for (OpResult result : generic->getResults())
    if (Value replacement = tiled->replacements.lookup(result))
      rewriter.replaceAllUsesWith(result, replacement);

  // Tiling leaves slices of the untiled ops in the loop body; once they are
  // gone, the untiled ops are dead too.
  for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops))
    for (Region &region : loop->getRegions())
      for (Block &block : region)
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
          if (isOpTriviallyDead(&op))
            rewriter.eraseOp(&op);
  SmallVector<Operation *> dead(tiled->fusedProducers.begin(),
                                tiled->fusedProducers.end());
  dead.push_back(generic);
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : dead) {
      if (op && isOpTriviallyDead(op)) {
        rewriter.eraseOp(op);
        op = nullptr;
        erased = true;
      }
    }
  }
  return success();
}

/// Whether the epilogue `generic` reads its matmul's result with the two
/// innermost dimensions swapped (jeet-fuse's transposed epilogues): its rows
/// are then the matmul's columns and its columns the matmul's rows.
static bool readsMatmulTransposed(linalg::GenericOp generic) {
  for (OpOperand *input : generic.getDpsInputOperands()) {
    auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || producer.getNumReductionLoops() == 0)
      continue;
    AffineMap map = generic.getMatchingIndexingMap(input);
    unsigned rank = map.getNumResults();
    return rank >= 2 && map.isPermutation() &&
           map.getDimPosition(rank - 1) == rank - 2 &&
           map.getDimPosition(rank - 2) == rank - 1;
  }
  return false;
}

/// Tiles the epilogue generic of a matmul group over its output and fuses the
/// matmul (and its fill) into each tile.
static LogicalResult tileEpilogue(RewriterBase &rewriter,
                                  linalg::GenericOp generic, int64_t tileSize) {
  unsigned rank = generic.getNumLoops();
  if (rank == 0)
    return failure();
  // Batch dimensions one at a time; the two innermost in tiles that divide
  // them, so that every tile has a static shape, the columns in tiles whose
  // rows fill their vectors (see chooseColumnTileSize), the rows in taller
  // tiles where there are enough tiles (see chooseEpilogueTileRows).
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  SmallVector<OpFoldResult> sizes(rank, rewriter.getIndexAttr(1));
  for (unsigned i = rank >= 2 ? rank - 2 : 0; i < rank; ++i)
    sizes[i] = rewriter.getIndexAttr(chooseTileSize(ranges[i], tileSize));
  if (rank >= 2 && !ShapedType::isDynamicShape(ranges) &&
      readsMatmulTransposed(generic)) {
    // The matmul's columns are the epilogue's rows (a convolution's output
    // channels, 1152 of them in tiles of 64, not of 72 = 64 + 8), its rows
    // the epilogue's columns (the convolution's few positions).
    sizes[rank - 2] =
        rewriter.getIndexAttr(chooseColumnTileSize(ranges[rank - 2], tileSize));
  } else if (rank >= 2 && !ShapedType::isDynamicShape(ranges)) {
    int64_t cols = chooseColumnTileSize(ranges[rank - 1], tileSize);
    sizes[rank - 1] = rewriter.getIndexAttr(cols);
    int64_t otherTiles = ranges[rank - 1] / cols;
    for (unsigned i = 0; i + 2 < rank; ++i)
      otherTiles *= ranges[i];
    sizes[rank - 2] = rewriter.getIndexAttr(
        chooseEpilogueTileRows(ranges[rank - 2], otherTiles, tileSize));
  }
  return tileAndFuseProducers(rewriter, generic, sizes);
}

/// Rows of C from which and below which a matmul yielded alone is tiled
/// over its columns as a matmul with an epilogue is (see tileRootMatmul),
/// and the multiple of columns its tiles must be.
constexpr int64_t kMinTiledRootMatmulRows = 8;
constexpr int64_t kMaxTiledRootMatmulRows = 128;
constexpr int64_t kTiledRootMatmulColumns = 16;

/// Tiles a matmul `op` that its group yields alone (no epilogue: a
/// convolution without bias or activation, DenseNet's before each concat)
/// over blocks of its columns as tileEpilogue tiles a matmul with one, with
/// its fill, where C has fewer than kMaxTiledRootMatmulRows rows and a
/// batch of one: each tile's product then reads its columns of B in place
/// (jeet-cpu-matmul's tiles of few rows stream B), where the whole product
/// ran 5-10% slower (32 x 1152 by 1152 x 576, a 3x3 convolution of 128 ->
/// 32 channels at 24 x 24: 0.22 against 0.20 ms ahead of time) and a wide
/// B twice as slow (32 x 4096 by 4096 x 4096: 19.3 against 10.1 ms, B
/// packed whole first). Taller products keep the whole matmul's blocking
/// and packing; products of 1 or 2 rows their own kernels (1 x 1024 by
/// 1024 x 1000 in tiles of 125 columns ran 8% slower, 2 x 4096 by 4096 x
/// 4096 10%), and tiles of columns that are no multiple of
/// kTiledRootMatmulColumns are not taken (32 x 1024 by 1024 x 1000: 3%),
/// nor products by a constant B.
static LogicalResult tileRootMatmul(RewriterBase &rewriter, Operation *op,
                                    int64_t tileSize) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() != 1 ||
      linalgOp.getNumDpsInits() != 1 || linalgOp.getNumDpsInputs() != 2 ||
      !isa<TilingInterface>(op))
    return failure();
  // A constant B (a filter, the transposed form's (K, O)) is read from the
  // panels the compiler packs for the whole product (GoogLeNet's pointwise
  // convolutions at 6x6 positions, yielded before their transposes: 4%
  // slower whole in tiles that read B in place).
  Value rhs = linalgOp.getDpsInputOperand(1)->get();
  while (Operation *producer = rhs.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(producer))
      break;
    rhs = producer->getOperand(0);
  }
  if (matchPattern(rhs, m_Constant()))
    return failure();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return failure();
  AffineMap out =
      linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
  unsigned rank = out.getNumResults();
  if (rank < 2 || !out.isProjectedPermutation())
    return failure();
  for (unsigned i = 0; i + 2 < rank; ++i)
    if (ranges[out.getDimPosition(i)] != 1)
      return failure();
  unsigned rowLoop = out.getDimPosition(rank - 2);
  unsigned colLoop = out.getDimPosition(rank - 1);
  int64_t rows = ranges[rowLoop], cols = ranges[colLoop];
  int64_t colTile = chooseColumnTileSize(cols, tileSize);
  if (rows < kMinTiledRootMatmulRows || rows >= kMaxTiledRootMatmulRows ||
      colTile >= cols || colTile % kTiledRootMatmulColumns != 0)
    return failure();
  SmallVector<OpFoldResult> sizes(ranges.size(), rewriter.getIndexAttr(0));
  sizes[rowLoop] = rewriter.getIndexAttr(
      chooseEpilogueTileRows(rows, cols / colTile, tileSize));
  sizes[colLoop] = rewriter.getIndexAttr(colTile);
  return tileAndFuseProducers(rewriter, op, sizes);
}

unsigned jeet::getRowGroupLeadingDims(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  if (fusion->getNumResults() != 1)
    return 0;
  auto type = dyn_cast<RankedTensorType>(fusion->getResult(0).getType());
  if (!type || type.getRank() < 2 || !type.hasStaticShape())
    return 0;
  unsigned leading = 0;
  for (Operation &op : body.without_terminator()) {
    if (isa<MatmulOp>(op))
      return 0;
    auto reduction = dyn_cast<ReductionOpInterface>(&op);
    if (!reduction)
      continue;
    if (reduction.getInput().getType().getShape() != type.getShape())
      return 0;
    ArrayRef<int64_t> axes = reduction.getAxes();
    unsigned first = type.getRank() - axes.size();
    for (auto [i, axis] : llvm::enumerate(axes))
      if (axis != static_cast<int64_t>(first + i))
        return 0;
    if (first == 0 || (leading && leading != first))
      return 0;
    leading = first;
  }
  return leading;
}

/// Tiles the last row op of a multi-reduction group over blocks of rows of
/// about `rowBlockBytes` and fuses the reductions and row ops into each
/// block: the rows are read from memory once, then again from the cache.
static LogicalResult tileRows(RewriterBase &rewriter, linalg::GenericOp generic,
                              unsigned leading, int64_t rowBlockBytes) {
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (ranges.size() < leading + 1 ||
      llvm::any_of(generic.getIteratorTypesArray(), [](auto type) {
        return type != utils::IteratorType::parallel;
      }))
    return failure();
  int64_t rowBytes =
      llvm::divideCeil(getElementTypeOrSelf(generic->getResult(0).getType())
                           .getIntOrFloatBitWidth(),
                       8);
  for (unsigned i = leading; i < ranges.size(); ++i)
    rowBytes *= ranges[i];
  int64_t rows =
      std::max<int64_t>(1, rowBlockBytes / std::max<int64_t>(rowBytes, 1));
  // Outer row dimensions one at a time, the innermost in blocks that divide
  // it (static shapes); the reduced dimensions whole.
  SmallVector<OpFoldResult> sizes(ranges.size(), rewriter.getIndexAttr(0));
  for (unsigned i = 0; i + 1 < leading; ++i)
    sizes[i] = rewriter.getIndexAttr(1);
  int64_t block = chooseTileSize(ranges[leading - 1], rows);
  if (leading == 1 && block == ranges[0])
    return failure(); // one block: nothing to gain
  sizes[leading - 1] = rewriter.getIndexAttr(block);
  return tileAndFuseProducers(rewriter, generic, sizes);
}

/// The bytes of one row of the scores (the first matmul's result) of an
/// attention group (see jeet-fuse's attention-block-bytes): a group of two
/// matmuls with one result, the second reading the rows that reductions over
/// the first's trailing axis normalise. 0 when `fusion` is no such group.
static int64_t getAttentionRowBytes(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  if (fusion->getNumResults() != 1)
    return 0;
  SmallVector<MatmulOp> matmuls;
  bool hasReduction = false;
  for (Operation &op : body.without_terminator()) {
    if (auto matmul = dyn_cast<MatmulOp>(op))
      matmuls.push_back(matmul);
    hasReduction |= isa<ReductionOpInterface>(op);
  }
  if (matmuls.size() != 2 || !hasReduction)
    return 0;
  RankedTensorType scores = matmuls.front().getType();
  auto result = dyn_cast<RankedTensorType>(fusion->getResult(0).getType());
  if (!scores.hasStaticShape() || !result || !result.hasStaticShape() ||
      result.getRank() != scores.getRank() ||
      result.getShape().drop_back() != scores.getShape().drop_back())
    return 0;
  return scores.getShape().back() *
         llvm::divideCeil(scores.getElementTypeBitWidth(), 8);
}

/// Tiles the root of an attention group (the second matmul, or its
/// epilogue) over its batch, one at a time, and blocks of rows, and fuses
/// the softmax and the first matmul into each block: a block of the scores
/// and of the softmax of about `rowBlockBytes` together stays in the cache.
static LogicalResult tileAttention(RewriterBase &rewriter, Operation *root,
                                   int64_t scoreRowBytes,
                                   int64_t rowBlockBytes) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(root);
  if (!linalgOp)
    return failure();
  auto type = cast<RankedTensorType>(root->getResult(0).getType());
  unsigned rowDim = type.getRank() - 2;
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  int64_t rows = attentionBlockRows(rowBlockBytes, scoreRowBytes);
  // Batch loops one at a time, the rows in blocks that divide them (static
  // shapes), everything else whole.
  SmallVector<OpFoldResult> sizes(ranges.size(), rewriter.getIndexAttr(0));
  for (unsigned i = 0; i < rowDim; ++i)
    sizes[i] = rewriter.getIndexAttr(1);
  sizes[rowDim] = rewriter.getIndexAttr(chooseTileSize(ranges[rowDim], rows));
  if (failed(tileAndFuseProducers(rewriter, root, sizes)))
    return failure();
  return success();
}

/// In an attention group, `(E / s) @ V` with `s` one value per row of `E`
/// (the softmax's sum, broadcast over `E`'s columns, which the matmul
/// contracts) becomes `(E @ V) / s`: the division moves from the rows of
/// the scores (seq columns) to the rows of the result (head columns, 8x
/// fewer at seq 512 and head 64), and the block's pass that normalised the
/// scores writes the exponentials, which the second matmul reads. Any `s`
/// with one value per row of `E` commutes so, not only a softmax's sum.
static void divideAfterSecondMatmul(RewriterBase &rewriter, FusionOp fusion) {
  for (auto matmul : llvm::make_early_inc_range(
           fusion.getBody().front().getOps<MatmulOp>())) {
    auto div = matmul.getLhs().getDefiningOp<DivOp>();
    if (!div || !div->hasOneUse())
      continue;
    auto scores = cast<RankedTensorType>(div.getLhs().getType());
    auto sums = cast<RankedTensorType>(div.getRhs().getType());
    if (scores != div.getType() || sums.getRank() != scores.getRank() ||
        sums.getShape().back() != 1 ||
        sums.getShape().drop_back() != scores.getShape().drop_back())
      continue;
    rewriter.setInsertionPoint(matmul);
    Value product =
        MatmulOp::create(rewriter, matmul.getLoc(), matmul.getType(),
                         div.getLhs(), matmul.getRhs());
    rewriter.replaceOpWithNewOp<DivOp>(matmul, matmul.getType(), product,
                                       div.getRhs());
    rewriter.eraseOp(div);
  }
}

LogicalResult
jeet::lowerFusionOpToLinalg(RewriterBase &rewriter, FusionOp fusion,
                            int64_t epilogueTileSize, int64_t rowBlockBytes,
                            bool hoistBroadcastWork, bool concatAsCopies) {
  Block &body = fusion.getBody().front();
  // Cannot happen: the fusion's verifier checks its terminator.
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return fusion.emitOpError("cannot be lowered to linalg: no jeet.yield");

  unsigned rowDims = rowBlockBytes > 0 ? getRowGroupLeadingDims(fusion) : 0;
  int64_t scoreRowBytes = rowBlockBytes > 0 ? getAttentionRowBytes(fusion) : 0;
  if (scoreRowBytes > 0)
    divideAfterSecondMatmul(rewriter, fusion);
  rewriter.setInsertionPoint(fusion);
  GroupLowering group(rewriter, fusion.getLoc());
  group.hoistBroadcasts = hoistBroadcastWork;
  group.concatAsCopies = concatAsCopies;
  for (auto [arg, input] :
       llvm::zip_equal(body.getArguments(), fusion.getInputs()))
    group.addInput(arg, input);
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  FailureOr<SmallVector<Value>> results = group.run(ops, yield.getValues());
  if (failed(results))
    return failure();
  rewriter.replaceOp(fusion, *results);

  // A matmul with an elementwise epilogue: apply the epilogue per tile.
  if (epilogueTileSize > 0 && group.numAnchors == 1 && group.hasMatmul &&
      !group.anchorIsRoot && group.rootGenerics.size() == 1)
    (void)tileEpilogue(rewriter, group.rootGenerics.front(), epilogueTileSize);
  // A matmul of few rows yielded alone: in tiles of its columns all the same.
  if (epilogueTileSize > 0 && group.numAnchors == 1 && group.hasMatmul &&
      group.anchorIsRoot && group.rootGenerics.empty() && results->size() == 1)
    if (Operation *matmul = results->front().getDefiningOp())
      (void)tileRootMatmul(rewriter, matmul, epilogueTileSize);
  // Attention: the scores, the softmax and the second matmul per block of
  // rows.
  if (scoreRowBytes > 0 &&
      (group.anchorIsRoot || group.rootGenerics.size() == 1))
    (void)tileAttention(rewriter, results->front().getDefiningOp(),
                        scoreRowBytes, rowBlockBytes);
  // Reductions and the row ops that read them: per block of rows.
  if (rowDims > 0 && group.numAnchors >= 1 && !group.hasMatmul &&
      !group.anchorIsRoot && group.rootGenerics.size() == 1)
    (void)tileRows(rewriter, group.rootGenerics.front(), rowDims,
                   rowBlockBytes);
  return success();
}

LogicalResult jeet::lowerJeetToLinalg(Operation *root, int64_t epilogueTileSize,
                                      int64_t rowBlockBytes,
                                      bool hoistBroadcastWork,
                                      bool concatAsCopies) {
  // Ops on tensors with no elements have constant values: fold them first
  // (canonicalization does the same earlier), so that no loop nest is built
  // over an empty iteration space.
  RewritePatternSet emptyPatterns(root->getContext());
  populateEmptyTensorFoldPatterns(emptyPatterns);
  walkAndApplyPatterns(root, std::move(emptyPatterns));

  IRRewriter rewriter(root->getContext());
  SmallVector<FusionOp> fusions;
  root->walk([&](FusionOp fusion) { fusions.push_back(fusion); });
  for (FusionOp fusion : fusions)
    if (failed(lowerFusionOpToLinalg(rewriter, fusion, epilogueTileSize,
                                     rowBlockBytes, hoistBroadcastWork,
                                     concatAsCopies)))
      return failure();

  SmallVector<Operation *> ops;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != root && llvm::isa_and_nonnull<JeetDialect>(op->getDialect()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> results =
        lowerJeetOpToLinalg(rewriter, op, op->getOperands());
    if (failed(results))
      return failure();
    rewriter.replaceOp(op, *results);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {

/// The bytes of one block of rows of a multi-reduction group: the block is
/// read up to three times (max or mean, sum or variance, the row ops), so it
/// should stay in a core's L2 (1-2 MiB on current x86) with room to spare.
constexpr int64_t kRowBlockBytes = 256 * 1024;

struct JeetLowerToLinalgPass
    : jeet::impl::JeetLowerToLinalgPassBase<JeetLowerToLinalgPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    linalg::registerTilingInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    if (failed(lowerJeetToLinalg(
            getOperation(), std::max<int64_t>(epilogueTileSize, 0),
            kRowBlockBytes, hoistBroadcastWork, concatAsCopies)))
      signalPassFailure();
  }
};

} // namespace
