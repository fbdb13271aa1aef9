//===- Fuse.cpp - Group jeet ops into jeet.fusion regions -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-fuse partitions the jeet ops of each block into groups and wraps every
// group in a jeet.fusion region, which later becomes one kernel.
//
// Groups are formed greedily in program order: each op either joins the group
// of one of its producers or starts a group of its own. A group has at most
// one anchor, a matmul or a reduction, and every other op of it is
// elementwise (ElementwiseOpInterface: the arithmetic ops, broadcast_to and
// cast):
//   - a group without anchor is any elementwise subgraph;
//   - a matmul group is the matmul and its epilogue: elementwise ops with the
//     matmul's result shape that read the matmul or other epilogue ops;
//   - a reduction group is a prologue of elementwise ops (computed over the
//     reduction's input, possibly yielded too), the reduction, and an
//     epilogue of elementwise ops with the reduction's result shape that read
//     the reduction or other epilogue ops (e.g. mean = sum / N).
// With multi-reduction fusion (the CPU pipeline's choice), a reduction group
// also takes the ops that read its reductions broadcast back over the rows
// they reduced (row ops: softmax's x - max, exp, / sum; layernorm's x - mean,
// * rsqrt(var + eps)), and further reductions over the same axes of such rows
// (softmax's sum, layernorm's variance): one kernel per row-wise
// normalisation, which the lowering tiles over blocks of rows.
// A transpose of matrices (the two innermost dimensions) whose every use is a
// matmul operand joins the group of each matmul that reads it: the matmul
// reads the transpose's input through a transposed indexing map, and the
// copy is never made (attention's Q @ K^T is one kernel, not two). It is a
// member of its first reader's group and recomputed in the others', or,
// where a reader's group is full (max-ops), a group of its own.
// A slice with positive steps of a value in memory (and such a slice
// reshaped by unit dimensions) is read in place: it is copied into the group
// of each op that reads it, which the lowering reads as a view of the input.
// Any other transpose, reshape, softmax or other op is a group of its own.
// With an attention block budget (the CPU pipeline's choice), a matmul whose
// left operand is a row op of a multi-reduction group over the rows of
// another matmul's result (attention: Q @ K^T * scale; softmax; @ V) is
// merged with both into one group, the one exception to "never two
// matmuls", where a block of rows of the first matmul's result fits the
// budget: the lowering computes it block by block and the rows never leave
// the cache.
// A merge is made only if the contracted graph of groups stays acyclic, so
// the groups can always be ordered.
//
// Then cheap elementwise work is recomputed instead of read from memory: when
// a group reads a value produced in another group by a short elementwise
// chain (at most kMaxRecomputedOps ops) whose operands are in memory anyway
// (graph inputs, constants, results of other groups) or smaller than the
// value (such as the row maximum of a softmax), the chain is cloned into the
// reading group. A value that is still read by another group
// is yielded by its own group once and is an input of the others.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"
#include "jeet/Dialect/Jeet/Transforms/TileSizes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace jeet {
#define GEN_PASS_DEF_JEETFUSEPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {

/// Constants with at most this many elements (or splats) are cloned into the
/// groups that use them; larger ones are group inputs.
constexpr int64_t kMaxClonedConstantElements = 256;

/// Transposes that move the innermost dimension are read in place by their
/// elementwise readers (through a permuted indexing map, the vectors
/// gathered lane by lane) up to this many elements; ones that keep it read
/// whole rows at any size.
constexpr int64_t kMaxTransposedReadElements = int64_t(1) << 16;

/// Larger ones too, by groups of elementwise ops alone, where both
/// dimensions that trade places span at least this many elements: the CPU
/// code generation reads those in blocks transposed in registers
/// (jeet-cpu-vectorize-transpose), as fast as the transpose alone would,
/// and the transposed copy is neither written nor read back.
constexpr int64_t kMinBlockedTransposeDim = 16;

/// An attention group is formed only where blocks of at least this many rows
/// of the first matmul's result, and as many of the softmax's, fit the block
/// budget: fewer rows per block would leave the matmuls of a block too little
/// work to amortise reading all of K and V.
constexpr int64_t kMinAttentionRows = 16;

/// A matmul's transpose joins its group as the epilogue only where the matmul
/// has at least this many rows (see joinsAsTransposedEpilogue): with fewer
/// (a convolution at 3x3 positions) the tiles that store it transposed ran
/// slower than the matmul whole and its transpose read by the next kernel
/// (192 -> 1152 channels at 9 positions: 20 against 16 us; mnasnet1_0 and
/// regnet_x_400mf 3-5% slower whole).
constexpr int64_t kMinTransposedEpilogueRows = 16;

/// A matmul of few rows that reads A through a folded transpose takes no
/// epilogue from this many columns on: two or more of the epilogue's tiles
/// of about 64 columns, each reading A transposed (see
/// hasFewRowsOfTransposedA).
constexpr int64_t kMinTiledEpilogueColumns = 128;

enum class OpKind { Elementwise, Matmul, Reduction, Opaque };

/// The part an op plays in its group. Groups without anchor hold only
/// prologue ops. Row ops (multi-reduction fusion only) run over the reduced
/// input's shape and read the group's reductions broadcast back over it.
enum class Role { Prologue, Anchor, Epilogue, Rows };

/// The kind of a jeet op, from its family (JeetInterfaces.td); broadcasts
/// and casts are elementwise ops too.
OpKind classify(Operation *op) {
  if (isa<ElementwiseOpInterface>(op))
    return OpKind::Elementwise;
  if (isa<MatmulOp>(op))
    return OpKind::Matmul;
  if (isa<ReductionOpInterface>(op))
    return OpKind::Reduction;
  return OpKind::Opaque;
}

/// Whether `op` moves data into a buffer of its own, lowered as one op that
/// reads its operands whole (a view of memory as well as a buffer). Not a
/// reshape: its result is a view of its operand.
bool movesData(Operation *op) {
  return isa<TransposeOp, ConcatOp, GatherOp, PadOp, Im2colOp>(op);
}

bool isSmallConstant(ConstantOp op) {
  ElementsAttr value = op.getValue();
  return value.isSplat() ||
         value.getNumElements() <= kMaxClonedConstantElements;
}

int64_t numElements(Value value) {
  return cast<RankedTensorType>(value.getType()).getNumElements();
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// The union of two sorted lists of op indices, sorted.
SmallVector<unsigned> mergeSorted(ArrayRef<unsigned> a, ArrayRef<unsigned> b) {
  SmallVector<unsigned> result;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(),
                 std::back_inserter(result));
  return result;
}

struct Group {
  /// Elementwise for a group without anchor.
  OpKind kind;
  /// Op indices, sorted: the ops that belong to the group.
  SmallVector<unsigned> members;
  /// Op indices, sorted: ops of other groups recomputed in this one.
  SmallVector<unsigned> clones;
  /// The matmul or reduction, if any (the latest reduction of a
  /// multi-reduction group).
  std::optional<unsigned> anchor;
  /// The shape the epilogue runs over: the anchor's result, or that result
  /// transposed where a matrix transpose of a matmul's result joined the
  /// group (joinsAsTransposedEpilogue).
  std::vector<int64_t> epilogueShape;
  /// Reduction groups: the shape of the reduced input, the reduced axes and
  /// keepdims, which every further reduction of the group shares.
  std::vector<int64_t> rowShape;
  std::vector<int64_t> reducedAxes;
  bool keepdims = false;
  /// Reduction groups: the bytes of one row (the reduced elements of the
  /// reduced input) when the reduced axes are its trailing ones (a row is
  /// contiguous in memory), or nothing.
  std::optional<int64_t> rowBytes;
  /// Set when the group was merged into another one.
  bool merged = false;
  /// How many of the clones are slices read in place and their reshapes:
  /// views, no work, so max-ops does not count them.
  size_t viewClones = 0;

  size_t size() const { return members.size() + clones.size() - viewClones; }
};

/// Fuses the jeet ops directly in one block. Ops are referred to by their
/// index in the block, so every iteration follows program order.
class BlockFuser {
public:
  BlockFuser(Block &block, bool enable, int64_t maxOps, bool multiReduction,
             int64_t maxRowBytes, int64_t attentionBlockBytes,
             bool transposedEpilogues)
      : block(block), enable(enable), maxOps(maxOps),
        multiReduction(multiReduction), maxRowBytes(maxRowBytes),
        attentionBlockBytes(attentionBlockBytes),
        transposedEpilogues(transposedEpilogues) {}

  LogicalResult run();

private:
  void indexOps();
  std::optional<unsigned> producerIndex(Value value) const;
  unsigned newGroup(unsigned op, OpKind kind, Role role);
  void addToGroup(unsigned group, unsigned op, Role role);
  void mergeGroups(unsigned into, unsigned from);
  std::optional<Role> roleIn(unsigned group, unsigned op) const;
  bool hasFewRowsOfTransposedA(unsigned group) const;
  bool staysAcyclic(unsigned group, std::optional<unsigned> other, unsigned op);
  void fuseElementwise(unsigned op);
  void fuseReduction(unsigned op);
  bool joinsAsTransposedEpilogue(unsigned op);
  void setAnchor(unsigned group, unsigned op);
  bool joinsAsFurtherReduction(unsigned group, unsigned op) const;
  bool takesRows(unsigned group) const;
  bool usersWithin(unsigned group, unsigned other) const;
  std::optional<unsigned> attentionScores(unsigned rows) const;
  void fuseAttention(unsigned matmul);
  void assignMatrixTransposes();
  void formGroups();
  bool isInGroup(unsigned group, unsigned op) const;
  bool recomputeCone(unsigned op, SmallVectorImpl<unsigned> &cone) const;
  bool computes(unsigned group, Value value) const;
  bool readsSliceInPlace(unsigned group, unsigned op,
                         SmallVectorImpl<unsigned> &view) const;
  bool readsTransposeInPlace(unsigned group, unsigned op,
                             SmallVectorImpl<unsigned> &view) const;
  void addRecomputation();
  void findNeeded(ArrayRef<SmallVector<unsigned>> bodies,
                  DenseSet<std::pair<unsigned, unsigned>> &needed,
                  SmallVector<bool> &yielded) const;
  LogicalResult buildFusions();

  Block &block;
  bool enable;
  int64_t maxOps;
  bool multiReduction;
  int64_t maxRowBytes;
  int64_t attentionBlockBytes;
  bool transposedEpilogues;

  /// Every op of the block in order, and its index.
  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> indexOf;
  /// The ops of the block that use each op's results (nested uses count for
  /// the op of this block that holds them), in order.
  SmallVector<SmallVector<unsigned>> users;
  /// Whether each op is fused, its kind, group and role.
  SmallVector<bool> isCandidate;
  /// Transposes that the matmuls reading them fold in (see the file
  /// comment); they are grouped after the matmuls.
  SmallVector<bool> foldsIntoMatmul;
  SmallVector<OpKind> kinds;
  SmallVector<int> groupOf;
  SmallVector<Role> roles;
  SmallVector<Group> groups;

  /// Scratch state of staysAcyclic.
  SmallVector<unsigned> visited;
  unsigned visitEpoch = 0;
};

void BlockFuser::indexOps() {
  for (Operation &op : block) {
    indexOf[&op] = ops.size();
    ops.push_back(&op);
  }
  users.resize(ops.size());
  for (auto [i, op] : llvm::enumerate(ops)) {
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (Operation *ancestor = block.findAncestorOpInBlock(*user))
          users[i].push_back(indexOf.lookup(ancestor));
    llvm::sort(users[i]);
    users[i].erase(llvm::unique(users[i]), users[i].end());
  }
  for (Operation *op : ops) {
    bool candidate = isa<JeetDialect>(op->getDialect()) &&
                     !isa<ConstantOp, FusionOp, YieldOp>(op);
    isCandidate.push_back(candidate);
    kinds.push_back(candidate ? classify(op) : OpKind::Opaque);
    auto transpose = dyn_cast<TransposeOp>(op);
    foldsIntoMatmul.push_back(
        candidate && transpose && foldsIntoMatmuls(transpose) &&
        llvm::all_of(op->getUsers(), [&](Operation *user) {
          return user->getBlock() == &block;
        }));
  }
  groupOf.assign(ops.size(), -1);
  roles.assign(ops.size(), Role::Prologue);
  visited.assign(ops.size(), 0);
}

/// The index of the fused op of this block that defines `value`, if any.
std::optional<unsigned> BlockFuser::producerIndex(Value value) const {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != &block)
    return std::nullopt;
  unsigned index = indexOf.lookup(def);
  if (!isCandidate[index])
    return std::nullopt;
  return index;
}

unsigned BlockFuser::newGroup(unsigned op, OpKind kind, Role role) {
  Group group;
  group.kind = kind;
  groups.push_back(std::move(group));
  if (role == Role::Anchor)
    setAnchor(groups.size() - 1, op);
  addToGroup(groups.size() - 1, op, role);
  return groups.size() - 1;
}

/// Makes `op` the group's (latest) anchor; a reduction's input shape, axes
/// and keepdims become the group's rows.
void BlockFuser::setAnchor(unsigned group, unsigned op) {
  Group &g = groups[group];
  g.anchor = op;
  g.epilogueShape.assign(shapeOf(ops[op]->getResult(0)).begin(),
                         shapeOf(ops[op]->getResult(0)).end());
  if (auto reduction = dyn_cast<ReductionOpInterface>(ops[op])) {
    g.rowShape.assign(shapeOf(reduction.getInput()).begin(),
                      shapeOf(reduction.getInput()).end());
    g.reducedAxes.assign(reduction.getAxes().begin(),
                         reduction.getAxes().end());
    g.keepdims = reduction.getKeepdims();
    auto type = cast<RankedTensorType>(reduction.getInput().getType());
    int64_t rank = type.getRank();
    bool trailing = true;
    for (auto [i, axis] : llvm::enumerate(g.reducedAxes)) {
      int64_t dim = axis < 0 ? axis + rank : axis;
      trailing &= dim == rank - static_cast<int64_t>(g.reducedAxes.size()) +
                             static_cast<int64_t>(i);
    }
    g.rowBytes = trailing
                     ? std::optional<int64_t>(getReducedSliceBytes(reduction))
                     : std::nullopt;
  }
}

/// Multi-reduction fusion: whether reduction group `group` takes row ops and
/// further reductions (with `maxRowBytes` set: its rows are contiguous and
/// at most that long).
bool BlockFuser::takesRows(unsigned group) const {
  const Group &g = groups[group];
  return multiReduction && g.kind == OpKind::Reduction &&
         (maxRowBytes <= 0 || (g.rowBytes && *g.rowBytes <= maxRowBytes));
}

/// Multi-reduction fusion: whether reduction `op` joins `group` as a further
/// reduction -- its input is a row op or prologue value of the group, over
/// the same rows, reduced over the same axes.
bool BlockFuser::joinsAsFurtherReduction(unsigned group, unsigned op) const {
  const Group &g = groups[group];
  auto reduction = cast<ReductionOpInterface>(ops[op]);
  std::optional<unsigned> producer = producerIndex(reduction.getInput());
  // Where every reduced axis has one element (keepdims), the epilogue runs
  // over the rows too: x - max of a softmax over one column is an epilogue.
  auto overRows = [&](unsigned i) {
    return roles[i] == Role::Rows || roles[i] == Role::Prologue ||
           (roles[i] == Role::Epilogue &&
            shapeOf(ops[i]->getResult(0)) == ArrayRef<int64_t>(g.rowShape));
  };
  return takesRows(group) && producer && overRows(*producer) &&
         shapeOf(reduction.getInput()) == ArrayRef<int64_t>(g.rowShape) &&
         reduction.getAxes() == ArrayRef<int64_t>(g.reducedAxes) &&
         reduction.getKeepdims() == g.keepdims;
}

void BlockFuser::addToGroup(unsigned group, unsigned op, Role role) {
  // Ops are added in program order, so members stay sorted.
  groups[group].members.push_back(op);
  groupOf[op] = group;
  roles[op] = role;
}

void BlockFuser::mergeGroups(unsigned into, unsigned from) {
  for (unsigned op : groups[from].members)
    groupOf[op] = into;
  groups[into].members =
      mergeSorted(groups[into].members, groups[from].members);
  groups[from].members.clear();
  groups[from].merged = true;
}

/// Whether `group`'s anchor is a matmul of fewer than
/// kMinTransposedEpilogueRows rows and at least kMinTiledEpilogueColumns
/// columns that reads its A through a transpose it folds in (a convolution
/// computed transposed, reading NCHW as (positions, channels)): with
/// `transposed-epilogues` (the CPU's epilogue tiles) such a matmul takes no
/// epilogue. Its epilogue's tiles, one per block of columns, each read A
/// transposed; the matmul whole packs it once. (192 -> 1152 channels at 9
/// positions with its bias and ReLU: 23 us against 19.5 with the weights in
/// L2, and 1.4x in MNASNet, where they stream from L3.)
bool BlockFuser::hasFewRowsOfTransposedA(unsigned group) const {
  const Group &g = groups[group];
  if (g.kind != OpKind::Matmul || !g.anchor)
    return false;
  auto matmul = dyn_cast<MatmulOp>(ops[*g.anchor]);
  if (!matmul)
    return false;
  std::optional<unsigned> lhs = producerIndex(matmul.getLhs());
  ArrayRef<int64_t> result = shapeOf(matmul.getResult());
  return lhs && foldsIntoMatmul[*lhs] && result.size() >= 2 &&
         result[result.size() - 2] < kMinTransposedEpilogueRows &&
         result.back() >= kMinTiledEpilogueColumns;
}

/// The role `op` would take in `group`, or nothing if it cannot join it.
std::optional<Role> BlockFuser::roleIn(unsigned group, unsigned op) const {
  const Group &g = groups[group];
  if (g.kind == OpKind::Elementwise)
    return Role::Prologue;
  bool readsPrologue = false, readsAnchorOrEpilogue = false;
  for (Value operand : ops[op]->getOperands()) {
    std::optional<unsigned> producer = producerIndex(operand);
    if (!producer || groupOf[*producer] != static_cast<int>(group))
      continue;
    if (roles[*producer] == Role::Prologue)
      readsPrologue = true;
    else
      readsAnchorOrEpilogue = true;
  }
  if (readsAnchorOrEpilogue) {
    // An epilogue runs over the anchor's result: same shape, and nothing of
    // the prologue, which runs over the reduction's input.
    ArrayRef<int64_t> shape = shapeOf(ops[op]->getResult(0));
    if (!readsPrologue && shape == ArrayRef<int64_t>(g.epilogueShape) &&
        !(transposedEpilogues && hasFewRowsOfTransposedA(group)))
      return Role::Epilogue;
    // A row op runs over the reduced input's shape, reading the prologue,
    // the reductions and their epilogues broadcast back over the rows.
    if (takesRows(group) && shape == ArrayRef<int64_t>(g.rowShape))
      return Role::Rows;
    return std::nullopt;
  }
  // A matmul group has no prologue: its operands are read from memory.
  if (g.kind == OpKind::Matmul)
    return std::nullopt;
  return Role::Prologue;
}

/// Whether the graph of groups stays acyclic when `group`, `other` (if any)
/// and `op` (the op being fused, which comes after every grouped op) become
/// one group: no path may leave the union and come back into it.
bool BlockFuser::staysAcyclic(unsigned group, std::optional<unsigned> other,
                              unsigned op) {
  auto inUnion = [&](unsigned i) {
    int g = groupOf[i];
    return i == op ||
           (g >= 0 && (static_cast<unsigned>(g) == group ||
                       (other && static_cast<unsigned>(g) == *other)));
  };
  ++visitEpoch;
  SmallVector<unsigned> worklist;
  auto pushUsers = [&](unsigned i) {
    for (unsigned user : users[i])
      worklist.push_back(user);
  };
  auto seed = [&](unsigned i) {
    for (unsigned user : users[i])
      if (!inUnion(user))
        worklist.push_back(user);
  };
  for (unsigned member : groups[group].members)
    seed(member);
  if (other)
    for (unsigned member : groups[*other].members)
      seed(member);
  seed(op);
  while (!worklist.empty()) {
    unsigned i = worklist.pop_back_val();
    if (inUnion(i))
      return false;
    if (visited[i] == visitEpoch)
      continue;
    visited[i] = visitEpoch;
    // Ops after `op` are not grouped yet and cannot lead back.
    if (i > op)
      continue;
    if (groupOf[i] < 0) {
      pushUsers(i);
      continue;
    }
    // A group is one node: leaving it from any member is a path onwards.
    for (unsigned member : groups[groupOf[i]].members) {
      visited[member] = visitEpoch;
      pushUsers(member);
    }
  }
  return true;
}

/// Rule 1, and rule 2 and 3's epilogues: an elementwise op joins the group of
/// a producer, preferring a matmul's, then a reduction's; the groups of its
/// other elementwise producers are merged in too where that is legal.
void BlockFuser::fuseElementwise(unsigned op) {
  SmallVector<unsigned> producers;
  for (Value operand : ops[op]->getOperands())
    if (std::optional<unsigned> producer = producerIndex(operand))
      if (!llvm::is_contained(producers, groupOf[*producer]))
        producers.push_back(groupOf[*producer]);
  auto priority = [&](unsigned group) {
    switch (groups[group].kind) {
    case OpKind::Matmul:
      return 0;
    case OpKind::Reduction:
      return 1;
    case OpKind::Elementwise:
      return 2;
    case OpKind::Opaque:
      return 3;
    }
    llvm_unreachable("unknown op kind");
  };
  llvm::stable_sort(producers, [&](unsigned a, unsigned b) {
    return priority(a) < priority(b);
  });

  std::optional<unsigned> target;
  for (unsigned group : producers) {
    if (groups[group].kind == OpKind::Opaque)
      continue;
    if (!target) {
      std::optional<Role> role = roleIn(group, op);
      if (role && static_cast<int64_t>(groups[group].size()) + 1 <= maxOps &&
          staysAcyclic(group, std::nullopt, op)) {
        addToGroup(group, op, *role);
        target = group;
      }
      continue;
    }
    // Another producer group joins as more prologue: only groups without
    // anchor, and never into a matmul group or a reduction's epilogue.
    if (groups[group].kind != OpKind::Elementwise ||
        groups[*target].kind == OpKind::Matmul ||
        (groups[*target].kind == OpKind::Reduction &&
         roles[op] != Role::Prologue))
      continue;
    if (static_cast<int64_t>(groups[*target].size() + groups[group].size()) >
            maxOps ||
        !staysAcyclic(*target, group, op))
      continue;
    mergeGroups(*target, group);
  }
  if (!target)
    newGroup(op, OpKind::Elementwise, Role::Prologue);
}

/// Rule 3: a reduction absorbs the elementwise group that produces its input
/// (or, with multi-reduction fusion, joins the reduction group whose rows it
/// reduces again).
void BlockFuser::fuseReduction(unsigned op) {
  std::optional<unsigned> producer = producerIndex(ops[op]->getOperand(0));
  if (producer) {
    unsigned group = groupOf[*producer];
    if ((groups[group].kind == OpKind::Elementwise ||
         joinsAsFurtherReduction(group, op)) &&
        static_cast<int64_t>(groups[group].size()) + 1 <= maxOps &&
        staysAcyclic(group, std::nullopt, op)) {
      addToGroup(group, op, Role::Anchor);
      groups[group].kind = OpKind::Reduction;
      setAnchor(group, op);
      return;
    }
  }
  newGroup(op, OpKind::Reduction, Role::Anchor);
}

/// With `transposed-epilogues`: a transpose of matrices (the two innermost
/// dimensions) of a matmul's result of at least kMinTransposedEpilogueRows
/// rows that nothing else reads joins the matmul's group, and the group's
/// epilogue runs over the transposed shape (the lowering reads the matmul's
/// tiles through the transposed map): a convolution computed with its positions
/// as the matmul's rows is moved back to NCHW, with its bias and activation, as
/// each tile is stored.
bool BlockFuser::joinsAsTransposedEpilogue(unsigned op) {
  auto transpose = dyn_cast<TransposeOp>(ops[op]);
  if (!transposedEpilogues || !transpose || !isMatrixTranspose(transpose))
    return false;
  std::optional<unsigned> producer = producerIndex(transpose.getInput());
  if (!producer || kinds[*producer] != OpKind::Matmul ||
      users[*producer].size() != 1 || !transpose.getInput().hasOneUse())
    return false;
  unsigned group = groupOf[*producer];
  ArrayRef<int64_t> product = shapeOf(transpose.getInput());
  if (product[product.size() - 2] < kMinTransposedEpilogueRows)
    return false;
  if (groups[group].anchor != *producer ||
      static_cast<int64_t>(groups[group].size()) + 1 > maxOps ||
      !staysAcyclic(group, std::nullopt, op))
    return false;
  addToGroup(group, op, Role::Epilogue);
  ArrayRef<int64_t> shape = shapeOf(transpose.getResult());
  groups[group].epilogueShape.assign(shape.begin(), shape.end());
  return true;
}

/// A transpose that folds into the matmuls reading it becomes a member of
/// the first reader's group and is recomputed in the others', where every
/// reader's group has room for it; otherwise it is a group of its own.
void BlockFuser::assignMatrixTransposes() {
  for (unsigned op = 0, e = ops.size(); op < e; ++op) {
    if (!foldsIntoMatmul[op])
      continue;
    SmallVector<unsigned> readers;
    for (unsigned user : users[op]) {
      unsigned group = groupOf[user];
      if (!llvm::is_contained(readers, group))
        readers.push_back(group);
    }
    bool fits = llvm::all_of(readers, [&](unsigned group) {
      return static_cast<int64_t>(groups[group].size()) + 1 <= maxOps;
    });
    if (readers.empty() || !fits) {
      foldsIntoMatmul[op] = false;
      newGroup(op, OpKind::Opaque, Role::Prologue);
      continue;
    }
    Group &first = groups[readers.front()];
    first.members = mergeSorted(first.members, {op});
    groupOf[op] = readers.front();
    roles[op] = Role::Prologue;
    for (unsigned group : llvm::drop_begin(readers))
      groups[group].clones = mergeSorted(groups[group].clones, {op});
  }
}

/// Whether every op that reads a member of `group` is in `group` or `other`.
bool BlockFuser::usersWithin(unsigned group, unsigned other) const {
  return llvm::all_of(groups[group].members, [&](unsigned member) {
    return llvm::all_of(users[member], [&](unsigned user) {
      return isCandidate[user] && (groupOf[user] == static_cast<int>(group) ||
                                   groupOf[user] == static_cast<int>(other));
    });
  });
}

/// The matmul group whose result the multi-reduction group `rows` reduces
/// over (attention's scores), if there is exactly one such group, its
/// matmul's result is the rows' shape, and only `rows` reads it.
std::optional<unsigned> BlockFuser::attentionScores(unsigned rows) const {
  std::optional<unsigned> scores;
  for (unsigned member : groups[rows].members) {
    for (Value operand : ops[member]->getOperands()) {
      std::optional<unsigned> producer = producerIndex(operand);
      if (!producer || groupOf[*producer] == static_cast<int>(rows))
        continue;
      unsigned group = groupOf[*producer];
      if (groups[group].kind != OpKind::Matmul)
        continue;
      if (scores && *scores != group)
        return std::nullopt;
      scores = group;
    }
  }
  if (!scores || !usersWithin(*scores, rows) ||
      shapeOf(ops[*groups[*scores].anchor]->getResult(0)) !=
          ArrayRef<int64_t>(groups[rows].rowShape))
    return std::nullopt;
  return scores;
}

/// Whether a matmul in f32 reads its operands as matrices or as batches of
/// them that both operands share (no batch dimension broadcast): a
/// multi-head attention's (batch, heads, seq, head) operands are such
/// batches.
static bool isPlainF32Matmul(MatmulOp matmul) {
  auto type = matmul.getType();
  int64_t rank = type.getRank();
  auto isMatrices = [&](Value operand) {
    auto operandType = cast<RankedTensorType>(operand.getType());
    return operandType.getRank() == rank && operandType.hasStaticShape() &&
           operandType.getShape().drop_back(2) == type.getShape().drop_back(2);
  };
  return rank >= 2 && type.getElementType().isF32() &&
         isMatrices(matmul.getLhs()) && isMatrices(matmul.getRhs());
}

/// Attention: merges the group of `matmul` (P @ V), the multi-reduction group
/// that computes its left operand (the softmax) and the matmul group whose
/// result that group reduces (Q @ K^T * scale) into one group, where the
/// rows are the trailing axis, the lowering's blocks of rows of the scores
/// and of P (attentionBlockRows, in tiles that divide the rows) fit
/// attentionBlockBytes with at least kMinAttentionRows rows, the softmax
/// reads no other matmul group and nothing outside reads the scores or the
/// softmax.
void BlockFuser::fuseAttention(unsigned matmul) {
  auto op = cast<MatmulOp>(ops[matmul]);
  std::optional<unsigned> lhs = producerIndex(op.getLhs());
  if (!lhs || roles[*lhs] != Role::Rows || !isPlainF32Matmul(op))
    return;
  unsigned rows = groupOf[*lhs], consumer = groupOf[matmul];
  const Group &r = groups[rows];
  int64_t rank = r.rowShape.size();
  if (!takesRows(rows) || !r.rowBytes || rank < 2 ||
      r.reducedAxes != std::vector<int64_t>{rank - 1} ||
      !usersWithin(rows, consumer))
    return;
  // Blocks of rows as the lowering tiles them: a divisor of the rows near
  // the budget's, or all rows where they are fewer.
  int64_t blockRows = attentionBlockRows(attentionBlockBytes, *r.rowBytes);
  int64_t numRows = r.rowShape[rank - 2];
  int64_t block = chooseDividingTileSize(numRows, blockRows);
  if ((blockRows < kMinAttentionRows && block < numRows) ||
      block > 2 * blockRows)
    return;
  std::optional<unsigned> scores = attentionScores(rows);
  if (!scores ||
      !isPlainF32Matmul(cast<MatmulOp>(ops[*groups[*scores].anchor])))
    return;
  if (static_cast<int64_t>(groups[consumer].size() + r.size() +
                           groups[*scores].size()) > maxOps)
    return;
  mergeGroups(consumer, *scores);
  mergeGroups(consumer, rows);
}

void BlockFuser::formGroups() {
  for (unsigned op = 0, e = ops.size(); op < e; ++op) {
    if (!isCandidate[op])
      continue;
    if (!enable) {
      newGroup(op, OpKind::Opaque, Role::Prologue);
      continue;
    }
    // Grouped with the matmuls that read it, once they have groups.
    if (foldsIntoMatmul[op])
      continue;
    switch (kinds[op]) {
    case OpKind::Elementwise:
      fuseElementwise(op);
      break;
    case OpKind::Reduction:
      fuseReduction(op);
      break;
    case OpKind::Matmul:
      newGroup(op, OpKind::Matmul, Role::Anchor);
      break;
    case OpKind::Opaque:
      if (!joinsAsTransposedEpilogue(op))
        newGroup(op, OpKind::Opaque, Role::Prologue);
      break;
    }
  }
  if (enable && multiReduction && attentionBlockBytes > 0)
    for (unsigned op = 0, e = ops.size(); op < e; ++op)
      if (isCandidate[op] && kinds[op] == OpKind::Matmul &&
          groups[groupOf[op]].anchor == op)
        fuseAttention(op);
  if (enable)
    assignMatrixTransposes();
}

bool BlockFuser::isInGroup(unsigned group, unsigned op) const {
  return groupOf[op] == static_cast<int>(group) ||
         llvm::is_contained(groups[group].clones, op);
}

/// Collects in `cone` the ops of `op`'s group that compute it, if they are
/// cheap enough to recompute elsewhere: at most kMaxRecomputedOps elementwise
/// ops whose other operands are in memory anyway (graph inputs, constants,
/// results of other groups) or smaller than `op`'s result.
bool BlockFuser::recomputeCone(unsigned op,
                               SmallVectorImpl<unsigned> &cone) const {
  int group = groupOf[op];
  int64_t size = numElements(ops[op]->getResult(0));
  SmallVector<unsigned> worklist = {op};
  while (!worklist.empty()) {
    unsigned i = worklist.pop_back_val();
    if (llvm::is_contained(cone, i))
      continue;
    if (kinds[i] != OpKind::Elementwise)
      return false;
    cone.push_back(i);
    if (cone.size() > kMaxRecomputedOps)
      return false;
    for (Value operand : ops[i]->getOperands()) {
      std::optional<unsigned> producer = producerIndex(operand);
      if (producer && groupOf[*producer] == group) {
        worklist.push_back(*producer);
        continue;
      }
      // Values made by other groups are read from memory by this one, so
      // reading them again costs no more than reading the result; but a
      // large value this group itself recomputes may not be in memory.
      if (producer && llvm::is_contained(groups[group].clones, *producer) &&
          numElements(operand) >= size)
        return false;
    }
  }
  llvm::sort(cone);
  return true;
}

/// Whether an op of `group` (a member or a clone) computes `value`: if not,
/// the value is in memory when the group runs.
bool BlockFuser::computes(unsigned group, Value value) const {
  std::optional<unsigned> producer = producerIndex(value);
  return producer && isInGroup(group, *producer);
}

/// Whether `group` can read `op` (of another group) in place, and the ops
/// that make it a view (in `view`, sorted): a slice that is a view of its
/// input (isViewSlice), which the group does not compute itself so that it
/// is in memory when the group runs, or such a slice reshaped by adding or
/// removing dimensions of size 1 (`x[0]` of a stack of tensors) and
/// splitting dimensions (the heads of a query, `q.reshape(s, h, d)`).
bool BlockFuser::readsSliceInPlace(unsigned group, unsigned op,
                                   SmallVectorImpl<unsigned> &view) const {
  unsigned sliceIndex = op;
  if (auto reshape = dyn_cast<ReshapeOp>(ops[op])) {
    std::optional<unsigned> input = producerIndex(reshape.getInput());
    if (!isSplittingReshape(reshape) || !input)
      return false;
    sliceIndex = *input;
  }
  auto slice = dyn_cast<SliceOp>(ops[sliceIndex]);
  if (!slice || !isViewSlice(slice) || computes(group, slice.getInput()))
    return false;
  if (!isInGroup(group, sliceIndex))
    view.push_back(sliceIndex);
  if (sliceIndex != op)
    view.push_back(op);
  return true;
}

/// Whether `group` can read the transpose `op` (of another group) in place,
/// through its elementwise readers' indexing maps (the transpose in `view`):
/// its input is in memory when the group runs (not computed by the group),
/// and the reads stay cheap: the transpose keeps the innermost dimension
/// (rows read whole, as vectors), is small (kMaxTransposedReadElements), or
/// is read by a group of elementwise ops alone in blocks
/// (kMinBlockedTransposeDim). A transpose that the matmuls reading it fold
/// in is theirs.
bool BlockFuser::readsTransposeInPlace(unsigned group, unsigned op,
                                       SmallVectorImpl<unsigned> &view) const {
  auto transpose = dyn_cast<TransposeOp>(ops[op]);
  if (!transpose || foldsIntoMatmul[op])
    return false;
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  int64_t rank = permutation.size();
  bool keepsRows = rank != 0 && permutation.back() == rank - 1;
  auto shape = cast<ShapedType>(transpose.getType()).getShape();
  // The result's dimensions that trade places: the innermost one and the
  // one the input's innermost went to.
  auto spans = [&](int64_t dim) {
    return !ShapedType::isDynamic(shape[dim]) &&
           shape[dim] >= kMinBlockedTransposeDim;
  };
  bool blocked = !keepsRows && groups[group].kind == OpKind::Elementwise &&
                 spans(rank - 1) &&
                 spans(llvm::find(permutation, rank - 1) - permutation.begin());
  if ((!keepsRows && !blocked &&
       numElements(transpose.getResult()) > kMaxTransposedReadElements) ||
      computes(group, transpose.getInput()))
    return false;
  if (!isInGroup(group, op))
    view.push_back(op);
  return true;
}

/// Rule 4: clones cheap producers into the groups that read them, until no
/// group changes: short elementwise chains (recomputeCone), slices read in
/// place (readsSliceInPlace, by the groups that move data too), whose copy
/// then goes where every reader reads the slice in place, and transposes
/// that elementwise readers read in place (readsTransposeInPlace).
void BlockFuser::addRecomputation() {
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto [index, group] : llvm::enumerate(groups)) {
      // Of the opaque groups, those that move data read slices in place
      // (a transpose of the heads of a query that is a slice of a packed
      // projection) and nothing else.
      bool opaque = group.kind == OpKind::Opaque;
      if (group.merged ||
          (opaque && !llvm::all_of(group.members, [&](unsigned op) {
             return movesData(ops[op]);
           })))
        continue;
      SmallVector<unsigned> body = mergeSorted(group.members, group.clones);
      for (unsigned op : body) {
        // A matmul reads its operands from memory, and so does a transpose
        // that it folds in: a slice of memory, but not elementwise work.
        bool readsMemory =
            opaque || kinds[op] == OpKind::Matmul || foldsIntoMatmul[op];
        for (Value operand : ops[op]->getOperands()) {
          std::optional<unsigned> producer = producerIndex(operand);
          if (!producer || isInGroup(index, *producer))
            continue;
          SmallVector<unsigned> cone;
          bool view = readsSliceInPlace(index, *producer, cone) ||
                      (kinds[op] == OpKind::Elementwise &&
                       readsTransposeInPlace(index, *producer, cone));
          if (!view && (readsMemory || !recomputeCone(*producer, cone)))
            continue;
          SmallVector<unsigned> added;
          for (unsigned i : cone)
            if (!isInGroup(index, i))
              added.push_back(i);
          if (!view &&
              static_cast<int64_t>(group.size() + added.size()) > maxOps)
            continue;
          if (view)
            group.viewClones += added.size();
          group.clones = mergeSorted(group.clones, added);
          changed = true;
        }
      }
    }
  }
}

/// Which copy of each op is needed (as (group, op) pairs in `needed`), and
/// which members are yielded. A copy is needed if a needed op of its group
/// uses it; a member is also needed, and yielded, if an op outside every
/// group uses it or a needed op of another group that does not recompute it
/// uses it. `bodies` holds each group's ops, members and clones.
void BlockFuser::findNeeded(ArrayRef<SmallVector<unsigned>> bodies,
                            DenseSet<std::pair<unsigned, unsigned>> &needed,
                            SmallVector<bool> &yielded) const {
  SmallVector<SmallVector<unsigned>> instances(ops.size());
  for (auto [index, body] : llvm::enumerate(bodies))
    for (unsigned op : body)
      instances[op].push_back(index);
  yielded.assign(ops.size(), false);
  for (unsigned op = ops.size(); op-- > 0;) {
    for (unsigned group : instances[op]) {
      bool isMember = groupOf[op] == static_cast<int>(group);
      // An unused member stays and is yielded, so that its group, which
      // must yield something, is still a valid kernel: removing dead code
      // is not this pass's business.
      bool isNeeded = isMember && ops[op]->use_empty();
      if (isNeeded)
        yielded[op] = true;
      for (unsigned user : users[op]) {
        if (!isCandidate[user]) {
          if (isMember)
            isNeeded = yielded[op] = true;
          continue;
        }
        for (unsigned userGroup : instances[user]) {
          if (!needed.contains({userGroup, user}))
            continue;
          if (userGroup == group) {
            isNeeded = true;
          } else if (isMember && !isInGroup(userGroup, op)) {
            isNeeded = yielded[op] = true;
          }
        }
      }
      if (isNeeded)
        needed.insert({group, op});
    }
  }
}

LogicalResult BlockFuser::buildFusions() {
  SmallVector<SmallVector<unsigned>> bodies;
  for (const Group &group : groups)
    bodies.push_back(mergeSorted(group.members, group.clones));
  DenseSet<std::pair<unsigned, unsigned>> needed;
  SmallVector<bool> yielded;
  findNeeded(bodies, needed, yielded);

  // Build the groups in the order of their last member, each in place of it.
  SmallVector<std::pair<unsigned, unsigned>> order;
  for (auto [index, group] : llvm::enumerate(groups)) {
    for (unsigned op : llvm::reverse(group.members)) {
      if (needed.contains({index, op})) {
        order.push_back({op, index});
        break;
      }
    }
  }
  llvm::sort(order);

  SmallVector<std::pair<Value, Value>> replacements;
  llvm::SetVector<Operation *> usedConstants;
  for (auto [last, index] : order) {
    SmallVector<Operation *> body;
    for (unsigned op : bodies[index])
      if (needed.contains({index, op}))
        body.push_back(ops[op]);
    DenseSet<Operation *> inBody(body.begin(), body.end());

    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> constants;
    for (Operation *op : body) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && inBody.contains(def))
          continue;
        if (auto constant = dyn_cast_or_null<ConstantOp>(def)) {
          usedConstants.insert(constant);
          if (isSmallConstant(constant)) {
            constants.insert(constant);
            continue;
          }
        }
        inputs.insert(operand);
      }
    }
    SmallVector<Value> results;
    SmallVector<Location> locs;
    for (Operation *op : body) {
      if (groupOf[indexOf.lookup(op)] != static_cast<int>(index))
        continue;
      locs.push_back(op->getLoc());
      if (!yielded[indexOf.lookup(op)])
        continue;
      llvm::append_range(results, op->getResults());
    }

    OpBuilder builder(ops[last]);
    Location loc = builder.getFusedLoc(locs);
    auto fusion = FusionOp::create(builder, loc, ValueRange(results).getTypes(),
                                   inputs.getArrayRef());
    Block &entry = fusion.getBody().front();
    IRMapping mapping;
    mapping.map(inputs.getArrayRef(), entry.getArguments());
    builder.setInsertionPointToStart(&entry);
    for (Operation *constant : constants)
      builder.clone(*constant, mapping);
    for (Operation *op : body)
      builder.clone(*op, mapping);
    SmallVector<Value> yieldedValues;
    for (Value result : results)
      yieldedValues.push_back(mapping.lookup(result));
    YieldOp::create(builder, loc, yieldedValues);
    for (auto [result, replacement] : llvm::zip(results, fusion.getResults()))
      replacements.push_back({result, replacement});
  }

  for (auto [value, replacement] : replacements)
    value.replaceAllUsesWith(replacement);
  // The two internal errors below cannot happen: every use of a grouped op
  // outside its group was replaced by a result of its fusion above, and
  // merges that would make groups depend on each other both ways were
  // refused (staysAcyclic). They are reported rather than asserted so that a
  // bug in the grouping shows as an error, not a crash.
  for (unsigned op = ops.size(); op-- > 0;) {
    if (groupOf[op] < 0)
      continue;
    if (!ops[op]->use_empty())
      return ops[op]->emitError("jeet-fuse: internal error: a fused op is "
                                "still used outside its group");
    ops[op]->erase();
  }
  for (Operation *constant : usedConstants)
    if (constant->use_empty())
      constant->erase();

  // A group stands where its last member stood; ops between its members that
  // read it move after it.
  if (!sortTopologically(&block))
    return block.getParentOp()->emitError(
        "jeet-fuse: internal error: fusion groups form a cycle");
  return success();
}

LogicalResult BlockFuser::run() {
  indexOps();
  formGroups();
  if (enable)
    addRecomputation();
  return buildFusions();
}

struct JeetFusePass : jeet::impl::JeetFusePassBase<JeetFusePass> {
  using Base::Base;
  void runOnOperation() override {
    if (maxOps < 1) {
      getOperation().emitError("jeet-fuse: max-ops must be at least 1, got ")
          << static_cast<int64_t>(maxOps);
      return signalPassFailure();
    }
    SmallVector<Block *> blocks;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<FusionOp>(op))
        return WalkResult::skip();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          blocks.push_back(&block);
      return WalkResult::advance();
    });
    for (Block *block : blocks)
      if (failed(BlockFuser(*block, enable, maxOps, multiReduction, maxRowBytes,
                            attentionBlockBytes, transposedEpilogues)
                     .run()))
        return signalPassFailure();
  }
};

} // namespace
