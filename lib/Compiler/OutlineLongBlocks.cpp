//===- OutlineLongBlocks.cpp - Long basic blocks become calls -------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A graph of many small independent kernels lowers to one basic block that
// holds all of them (vector kernels have no loops of their own). LLVM's code
// generator works a basic block at a time, and parts of it grow with the
// square of a block's length: instruction selection's scheduler picks each
// next node from every node ready at that point, which in a block of
// independent kernels is most of the block; the machine scheduler's
// dependence graph grows the same way. Splitting the block is not enough:
// CodeGenPrepare merges a block into its single predecessor again. So each
// piece of a long block moves into a function of its own, called in its
// place.
//
// What crosses pieces decides the cost of the calls. The entry's packed
// form loads every argument (each field of each buffer's descriptor, ten
// per output) at the top of the block, and the kernels use them all along
// it: left there, every piece passed on what later pieces need, and each
// such pointer was live in the entry from the top to its kernel, across
// every call. The register allocator spilled them all, and the stack slot
// colouring of those spills compares each slot with every other one (1.8 s
// of CPU at 5,000 outputs, growing with the square of the outputs). Those
// loads are invariant (`!invariant.load`: the packed list and what it points
// to do not change during a call), so a piece can make them itself: first
// each chain of such loads and address computations moves next to its first
// use in the block, then each piece recomputes the chains it uses from
// values that are available everywhere (the packed list's pointer,
// constants). What crosses pieces is then the packed list's pointer and the
// few computed values one kernel gives the next; never a mask (a vector of
// i1), which LLVM's X86 back end cannot always pass to a call (crossesMask).
//
//===----------------------------------------------------------------------===//

#include "CompilerSupport.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
#include "llvm/Transforms/Utils/Local.h"

#include <algorithm>

namespace {

/// The longest chain of loads and address computations a piece recomputes:
/// the packed form's is three (the slot's address, the slot, the field),
/// and an offset into the buffer makes four.
constexpr unsigned kMaxChainDepth = 4;

/// Whether `value` can be computed again anywhere in its function with the
/// same result, from the function's arguments and constants alone:
/// arguments, constants, and address computations (GEPs, casts) and
/// invariant loads of such values, at most `depth` deep. An invariant load
/// reads memory that holds the same value wherever it can be read, and a
/// copy runs only where the original has run before it.
bool isRecomputable(const llvm::Value *value, unsigned depth = kMaxChainDepth) {
  if (llvm::isa<llvm::Argument, llvm::Constant>(value))
    return true;
  const auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst || depth == 0)
    return false;
  if (const auto *load = llvm::dyn_cast<llvm::LoadInst>(inst)) {
    if (!load->isSimple() ||
        !load->hasMetadata(llvm::LLVMContext::MD_invariant_load))
      return false;
  } else if (!llvm::isa<llvm::GetElementPtrInst, llvm::CastInst>(inst)) {
    return false;
  }
  return llvm::all_of(inst->operands(), [&](const llvm::Use &operand) {
    return isRecomputable(operand.get(), depth - 1);
  });
}

/// The recomputable instructions of `block` that `value` needs, its own
/// included, each moved to just before `before`, operands first, unless
/// already placed.
void placeBefore(llvm::Value *value, llvm::Instruction *before,
                 llvm::BasicBlock &block,
                 llvm::SmallPtrSetImpl<llvm::Instruction *> &placed) {
  auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst || inst->getParent() != &block || llvm::isa<llvm::PHINode>(inst) ||
      placed.contains(inst) || !isRecomputable(inst))
    return;
  placed.insert(inst);
  for (llvm::Value *operand : inst->operands())
    placeBefore(operand, before, block, placed);
  inst->moveBefore(before->getIterator());
}

/// Whether an instruction outside `block`, or a PHI, uses `inst`.
bool usedOutside(const llvm::Instruction &inst, const llvm::BasicBlock &block) {
  return llvm::any_of(inst.users(), [&](const llvm::User *user) {
    const auto *userInst = llvm::cast<llvm::Instruction>(user);
    return userInst->getParent() != &block ||
           llvm::isa<llvm::PHINode>(userInst);
  });
}

/// Moves each recomputable chain of `block` next to its first use there, so
/// that splitting the block keeps a kernel and the pointers it loads
/// together. The chains used elsewhere count as uses where they stand: their
/// operands are placed before them, not moved down to a later use (which
/// left the address a later block uses computed from a load after it).
void sinkChainsToFirstUse(llvm::BasicBlock &block) {
  llvm::SmallVector<llvm::Instruction *> users;
  for (llvm::Instruction &inst : block)
    if (!llvm::isa<llvm::PHINode>(inst) &&
        (!isRecomputable(&inst) || usedOutside(inst, block)))
      users.push_back(&inst);
  llvm::SmallPtrSet<llvm::Instruction *, 16> placed;
  for (llvm::Instruction *user : users)
    for (llvm::Value *operand : user->operands())
      placeBefore(operand, user, block, placed);
}

/// A copy in `piece`, before `before`, of the recomputable `value` and the
/// chain it needs, unless `value` is available there as it is (an argument,
/// a constant, or defined in `piece`). `copies` maps the values copied into
/// `piece` to their copies.
llvm::Value *recomputeIn(llvm::BasicBlock &piece, llvm::Value *value,
                         llvm::Instruction *before,
                         llvm::DenseMap<llvm::Value *, llvm::Value *> &copies) {
  auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst || inst->getParent() == &piece)
    return value;
  if (llvm::Value *copy = copies.lookup(inst))
    return copy;
  llvm::Instruction *copy = inst->clone();
  for (llvm::Use &operand : copy->operands())
    operand.set(recomputeIn(piece, operand.get(), before, copies));
  copy->insertBefore(before->getIterator());
  copies[inst] = copy;
  return copy;
}

/// Makes `piece` recompute every recomputable value it uses from an
/// earlier piece instead of taking it as an input of its function; adds the
/// originals to `originals`, to be erased once dead.
void recomputeChains(llvm::BasicBlock &piece,
                     llvm::SmallVectorImpl<llvm::WeakTrackingVH> &originals) {
  llvm::DenseMap<llvm::Value *, llvm::Value *> copies;
  llvm::SmallVector<llvm::Instruction *> users;
  for (llvm::Instruction &inst : piece)
    users.push_back(&inst);
  for (llvm::Instruction *user : users) {
    for (llvm::Use &operand : user->operands()) {
      auto *inst = llvm::dyn_cast<llvm::Instruction>(operand.get());
      if (!inst || inst->getParent() == &piece || !isRecomputable(inst))
        continue;
      originals.push_back(inst);
      operand.set(recomputeIn(piece, inst, user, copies));
    }
  }
}

/// Drops `!invariant.load` from every load of `module`, once the chains
/// have moved (dropping it is always correct). Instruction selection does
/// not order invariant loads after the stores before them, so all of a
/// block's are ready at once, and its scheduler, which picks each next node
/// from all those ready, took six times as long on a piece of 256
/// instructions with them (80 ms against 13 ms in llc).
void forgetInvariantLoads(llvm::Module &module) {
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block)
        if (llvm::isa<llvm::LoadInst>(inst))
          inst.setMetadata(llvm::LLVMContext::MD_invariant_load, nullptr);
}

/// Whether `block` may not move into a function of its own: its allocas
/// would then die with that function (CodeExtractor refuses them too).
bool mustStay(const llvm::BasicBlock &block) {
  for (const llvm::Instruction &inst : block) {
    if (llvm::isa<llvm::AllocaInst>(inst))
      return true;
    if (const auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
      if (intrinsic->getIntrinsicID() == llvm::Intrinsic::stacksave ||
          intrinsic->getIntrinsicID() == llvm::Intrinsic::stackrestore)
        return true;
  }
  return false;
}

/// Whether a vector of i1 (a mask: a compare's result, a select's
/// condition) would cross the boundary of `piece` as a function: defined
/// before it (or an argument) and used in it, or defined in it and used
/// after it. Such a piece stays in its function. LLVM 22's X86 code
/// generation aborts ("Cannot emit physreg copy instruction", in the
/// expansion of copies after register allocation) on a mask of one lane
/// passed to a call from the block that computed it, on AVX-512 targets: an
/// f16 softmax of a row of 3, 5 or 17 feeding a log made one (the `and` of
/// an f16 and an f32 compare, the guards of the exp and log approximations
/// on the row's last lane; found by fuzz/python/fuzz_graph_builder.py).
bool crossesMask(const llvm::BasicBlock &piece) {
  auto isMask = [](const llvm::Value *value) {
    auto *type = llvm::dyn_cast<llvm::VectorType>(value->getType());
    return type && type->getElementType()->isIntegerTy(1);
  };
  for (const llvm::Instruction &inst : piece) {
    for (const llvm::Use &operand : inst.operands()) {
      const llvm::Value *value = operand.get();
      const auto *def = llvm::dyn_cast<llvm::Instruction>(value);
      if (isMask(value) && (llvm::isa<llvm::Argument>(value) ||
                            (def && def->getParent() != &piece)))
        return true;
    }
    if (isMask(&inst))
      for (const llvm::User *user : inst.users())
        if (llvm::cast<llvm::Instruction>(user)->getParent() != &piece)
          return true;
  }
  return false;
}

/// Splits `block` into pieces of `maxInstructions` instructions and a last
/// block that holds only the terminator; returns the pieces after the first
/// (the first keeps the block's PHIs and the entry block's allocas). Split
/// from the end: each split moves what follows its point into a new block,
/// so splitting from the front moved the rest of the block every time
/// (95 ms of CPU for the block of 5,000 outputs, 8 ms from the end).
llvm::SmallVector<llvm::BasicBlock *> splitIntoPieces(llvm::BasicBlock &block,
                                                      size_t maxInstructions) {
  llvm::SmallVector<llvm::Instruction *> starts;
  size_t count = 0;
  for (auto it = block.getFirstInsertionPt(); !it->isTerminator(); ++it)
    if (++count > maxInstructions) {
      starts.push_back(&*it);
      count = 1;
    }
  llvm::SmallVector<llvm::BasicBlock *> pieces;
  if (starts.empty())
    return pieces;
  block.splitBasicBlock(block.getTerminator(), block.getName() + ".tail");
  for (llvm::Instruction *start : llvm::reverse(starts))
    pieces.push_back(block.splitBasicBlock(start->getIterator(),
                                           block.getName() + ".piece"));
  std::reverse(pieces.begin(), pieces.end());
  // Named in the order they run (each split took the name first).
  for (llvm::BasicBlock *piece : pieces)
    piece->setName("");
  for (llvm::BasicBlock *piece : pieces)
    piece->setName(block.getName() + ".piece");
  return pieces;
}

} // namespace

size_t jeet::detail::outlineLongBlocks(llvm::Module &module,
                                       size_t maxInstructions) {
  llvm::SmallVector<llvm::Function *> functions;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      functions.push_back(&function);
  size_t outlined = 0;
  for (llvm::Function *function : functions) {
    llvm::SmallVector<llvm::BasicBlock *> longBlocks;
    for (llvm::BasicBlock &block : *function)
      if (block.size() > maxInstructions)
        longBlocks.push_back(&block);
    if (longBlocks.empty())
      continue;
    // Only blocks that run once per call of their function: in a loop (a
    // register-tiled matmul's body), a call would pass the accumulators
    // through memory on every iteration.
    llvm::DominatorTree dominators(*function);
    llvm::LoopInfo loops(dominators);
    llvm::erase_if(longBlocks, [&](llvm::BasicBlock *block) {
      return loops.getLoopFor(block) != nullptr;
    });
    llvm::SmallVector<llvm::BasicBlock *> pieces;
    for (llvm::BasicBlock *block : longBlocks) {
      sinkChainsToFirstUse(*block);
      pieces.append(splitIntoPieces(*block, maxInstructions));
    }
    llvm::SmallVector<llvm::WeakTrackingVH> originals;
    for (llvm::BasicBlock *piece : pieces)
      recomputeChains(*piece, originals);
    llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(originals);
    // One analysis of the function serves every extraction (they keep it
    // valid): built per piece, it would make the outlining quadratic.
    llvm::CodeExtractorAnalysisCache cache(*function);
    for (llvm::BasicBlock *piece : pieces) {
      if (mustStay(*piece) || crossesMask(*piece))
        continue;
      llvm::BasicBlock *region[] = {piece};
      llvm::CodeExtractor extractor(region);
      if (!extractor.isEligible())
        continue;
      if (llvm::Function *pieceFunction = extractor.extractCodeRegion(cache)) {
        // Inlining it back would undo the point; nothing after this runs an
        // inliner, but the attribute says why the function exists. The
        // extractor copies the parent's attributes: an entry meant to be
        // inlined into its packed form (alwaysinline) gave its pieces both,
        // which the verifier rejects.
        pieceFunction->removeFnAttr(llvm::Attribute::AlwaysInline);
        pieceFunction->addFnAttr(llvm::Attribute::NoInline);
        ++outlined;
      }
    }
  }
  forgetInvariantLoads(module);
  return outlined;
}
