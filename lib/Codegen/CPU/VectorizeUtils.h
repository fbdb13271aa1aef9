//===- VectorizeUtils.h - Vector loops for linalg.generic bodies -*- C++
//-*-===//
//
// Part of the Jeet project.
//
// Internal to lib/Codegen/CPU: what jeet-cpu-vectorize-elementwise and
// jeet-cpu-vectorize-reductions share (and the pad matching that
// jeet-cpu-vectorize-pad and jeet-cpu-im2col share, and the fill matching
// that jeet-cpu-matmul and jeet-cpu-vectorize-window-reductions share). Both
// rewrite a `linalg.generic` on buffers into loops whose innermost one works on
// vectors, cloning the generic's body op for op with vector types, so the
// arithmetic is the scalar loop's, lane by lane.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_CODEGEN_CPU_VECTORIZEUTILS_H
#define JEET_LIB_CODEGEN_CPU_VECTORIZEUTILS_H

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace jeet {
namespace cpu {

/// Whether `value` (a scalar of a generic's body) is non-negative or NaN
/// whatever the body's arguments hold: +0 and above, never -0 (a relu's
/// result). For such values, comparing the bits as unsigned integers gives
/// `maximumf`'s order: NaNs of either sign above +inf.
bool isNonNegativeOrNaN(mlir::Value value);

/// `value` as a vector of `width` lanes (a scalar is broadcast).
mlir::Value splatTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                    int64_t width);

/// The largest distance between the elements that consecutive lanes of an
/// input's vector read: the vector is then one masked load of that many
/// times its width contiguous elements and a shuffle keeping every
/// stride-th (stride-2 slices and windows: a strided convolution's).
constexpr int64_t kMaxReadStride = 4;

/// Whether the operands of `op` (static shapes; outputs with projected-
/// permutation maps, inputs with sums of loop dimensions times constants of
/// which one depends on the innermost loop) can be read and written as
/// vectors along its innermost loop: outputs with unit stride along their
/// innermost dimension; inputs contiguously, as a load of the span between
/// lanes a few elements apart (a stride-2 slice), or element by element (a
/// transposed read), the arithmetic on vectors either way. Inputs that do
/// not vary along it are uniform; outputs must vary along it unless
/// `outputsMayBeUniform` (a reduction's output, indexed by the outer loops).
bool analyzeOperands(mlir::linalg::GenericOp op,
                     llvm::DenseSet<mlir::Value> &uniform,
                     bool outputsMayBeUniform);

/// Whether every op of the body but `skip` and the terminator can be cloned
/// lane by lane; adds the values that are the same in every lane to
/// `uniform`.
bool analyzeBody(mlir::linalg::GenericOp op,
                 llvm::DenseSet<mlir::Value> &uniform,
                 mlir::Operation *skip = nullptr);

/// The memref indices of input `operand` of `op` at loop indices `ivs`,
/// whose map may be any sum of loop dimensions times constants.
llvm::SmallVector<mlir::Value> inputIndicesAt(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              mlir::linalg::GenericOp op,
                                              mlir::OpOperand &operand,
                                              llvm::ArrayRef<mlir::Value> ivs);

/// The memref indices of `operand` of `op` at loop indices `ivs`.
llvm::SmallVector<mlir::Value> indicesAt(mlir::linalg::GenericOp op,
                                         mlir::OpOperand &operand,
                                         llvm::ArrayRef<mlir::Value> ivs);

/// Clones the body of `op` (but `skip` and the terminator) for `width`
/// consecutive values of the innermost loop index, the last of `ivs`: each
/// input that varies along it is read as a vector (see analyzeOperands),
/// the uniform ones with a scalar load, and each op is rebuilt on vectors
/// unless all its operands are uniform. `onLoad` sees the operand and
/// indices of each vector read along the innermost dimension; `preloaded`
/// may give an input's vector instead of its read (null: read it). With
/// `activeLanes` between 0 and `width` (exclusive), only the first
/// `activeLanes` lanes are read (masked loads; nothing past them is
/// touched) and the others hold 1, a value every op of the body takes
/// (no division by zero). Returns the mapping from body values to the
/// clones.
mlir::IRMapping cloneBodyAt(
    mlir::OpBuilder &b, mlir::Location loc, mlir::linalg::GenericOp op,
    const llvm::DenseSet<mlir::Value> &uniform, llvm::ArrayRef<mlir::Value> ivs,
    int64_t width, mlir::Operation *skip = nullptr,
    llvm::function_ref<void(mlir::OpOperand &, llvm::ArrayRef<mlir::Value>)>
        onLoad = {},
    llvm::function_ref<mlir::Value(mlir::OpOperand &)> preloaded = {},
    int64_t activeLanes = 0);

/// The loop that `operand` of `op` reads (or writes) contiguously: the loop
/// its last index is, where its buffer's innermost stride is 1; none
/// otherwise.
std::optional<unsigned> contiguousLoop(mlir::linalg::GenericOp op,
                                       mlir::OpOperand &operand);

/// A vector of `width` booleans whose first `activeLanes` are true.
mlir::Value laneMask(mlir::OpBuilder &b, mlir::Location loc, int64_t width,
                     int64_t activeLanes);

/// The two innermost loops of a generic (analyzed, `uniform` its uniform
/// values) whose innermost one is shorter than a vector, read as one grid
/// across rows (JoinedRows.cpp): vectors of consecutive positions, where
/// every operand's rows are packed or all the same distance apart, with
/// masks and shuffles known at compile time.
class JoinedRows {
public:
  /// The plan for `op` if the strategy applies and takes fewer vector
  /// instructions than the row by row loop. The outer loops are parallel;
  /// the two innermost too, or, with `skip` (a reduction's combiner, which
  /// the caller applies to its output), reductions.
  /// `datapathBits`: the bits a vector instruction of the cost model works
  /// on at once (getVectorDatapathBits).
  static std::optional<JoinedRows>
  plan(mlir::linalg::GenericOp op, const llvm::DenseSet<mlir::Value> &uniform,
       int64_t vectorWidth, int64_t datapathBits,
       mlir::Operation *skip = nullptr);

  int64_t getLanes() const { return lanes; }

  /// For one iteration of the outer loops (their indices `outer`): for each
  /// vector of the grid, clones the body (but `skip`) on it and calls
  /// `onStep` with the clones and the mask of its lanes on rows; without
  /// `skip`, stores the outputs.
  void
  emit(mlir::OpBuilder &b, mlir::ValueRange outer,
       llvm::function_ref<void(mlir::IRMapping &, mlir::Value)> onStep = {});

private:
  /// How an operand's elements lie on the grid.
  enum class Layout {
    /// The same element at every position: read once.
    Uniform,
    /// Rows `stride` elements apart: a masked load or store.
    Grid,
    /// Rows packed: the elements on rows, shuffled.
    Packed,
  };

  JoinedRows(mlir::linalg::GenericOp op,
             const llvm::DenseSet<mlir::Value> &uniform, mlir::Operation *skip)
      : op(op), uniform(&uniform), skip(skip) {}
  bool onRow(int64_t position) const;
  int64_t packedBefore(int64_t position) const;

  mlir::linalg::GenericOp op;
  const llvm::DenseSet<mlir::Value> *uniform;
  mlir::Operation *skip;
  /// The two innermost loops' ranges, the distance between rows, the
  /// grid's positions and the lanes of its vectors.
  int64_t rows = 0, width = 0, stride = 0, positions = 0, lanes = 0;
  /// The layout of each operand that the body reads and of each output,
  /// and the elements between a row's consecutive ones of each input on the
  /// grid (1 unless it is a strided window's).
  llvm::SmallDenseMap<unsigned, Layout> layouts;
  llvm::SmallDenseMap<unsigned, int64_t> spacings;
};

/// jeet-cpu-vectorize-elementwise's strategy for an all-parallel generic
/// whose innermost loop is shorter than `vectorWidth` (JoinedRows): builds
/// the loops (the outer ones an `scf.parallel` when `parallel`) before `op`
/// and returns true, or builds nothing and returns false.
bool vectorizeJoinedRows(mlir::OpBuilder &b, mlir::linalg::GenericOp op,
                         const llvm::DenseSet<mlir::Value> &uniform,
                         int64_t vectorWidth, int64_t datapathBits,
                         bool parallel);

/// The datapath bits of the joined rows' cost model when a pass option
/// leaves them at 0: this host's (getVectorDatapathBits).
int64_t hostVectorDatapathBits();

/// Rewrites each `linalg.transpose` on buffers of static shape into the
/// equivalent `linalg.generic`, whose input map is the permutation.
void generalizeStaticTransposes(mlir::func::FuncOp func);

/// Rewrites each `linalg.copy` between buffers of static shape (a copy into
/// a view: a concat's inputs into their slices of its result) into the
/// equivalent `linalg.generic`, whose maps are identities.
void generalizeStaticCopies(mlir::func::FuncOp func);

/// Rewrites each `linalg.fill` of a buffer of static shape (a matmul's
/// accumulator that its kernels did not start from the fill's value) into a
/// `linalg.generic` with no input whose body yields the fill's value.
void generalizeStaticFills(mlir::func::FuncOp func);

/// The `linalg.fill` of all of `buffer` with a value of its element type
/// just before `op`, or null: the fill that jeet-cpu-matmul and
/// jeet-cpu-vectorize-window-reductions fold into the loops after it (the
/// accumulators start from its value instead of loading what it wrote).
mlir::linalg::FillOp fillOfBufferBefore(mlir::Operation *op,
                                        mlir::Value buffer);

/// Whether `op` rewrites `output` in place elementwise: one input and one
/// init, both `output`, identity maps, all loops parallel, no linalg.index
/// (a pooling's division, a window reduction's epilogue).
bool isInPlaceElementwise(mlir::linalg::GenericOp op, mlir::Value output);

/// An `scf.parallel` over the given bounds when `parallel`, else a nest of
/// `scf.for` loops; `body` fills in the innermost body at the loops' indices.
void buildLoops(
    mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange lbs,
    mlir::ValueRange ubs, mlir::ValueRange steps, bool parallel,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::ValueRange)> body);

/// What the generic of a jeet.pad (marked jeet::kPadLowAttr) reads: its
/// input buffer and its padding value (a scalar defined outside the body, or
/// a load of a 0-d buffer).
struct PadOperands {
  mlir::Value input;
  mlir::Value padding;
  /// The 0-d buffer the padding value is loaded from, when it is one.
  mlir::Value paddingBuffer;
};

/// The operands of a marked pad generic on buffers whose body yields
/// `select(inside, load(input, ...), padding)`, or nothing when it is
/// another shape (an epilogue in the same loop nest) or not on buffers.
std::optional<PadOperands> matchPad(mlir::linalg::GenericOp op);

/// `op` with the run of its trailing loops from `first` on folded into one
/// loop (linalg::collapseOpIterationDims), its operands' buffers collapsed
/// to match; null where they do not collapse (`op` is then unchanged). The
/// caller erases `op` when it gets the folded generic.
mlir::linalg::GenericOp foldTrailingLoops(mlir::linalg::GenericOp op,
                                          unsigned first);

/// Calls `fn` on every linalg.generic of `func` (collected first, so `fn`
/// may replace it), with whether it already sits inside a parallel loop.
void forEachGeneric(mlir::func::FuncOp func,
                    llvm::function_ref<void(mlir::linalg::GenericOp, bool)> fn);

} // namespace cpu
} // namespace jeet

#endif // JEET_LIB_CODEGEN_CPU_VECTORIZEUTILS_H
