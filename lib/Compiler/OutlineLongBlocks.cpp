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
// place; the values a piece takes and gives are few (a pointer to the
// packed arguments, a buffer or two), since the optimiser has already run.
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

namespace {

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

/// Splits `block` into pieces of `maxInstructions` instructions and a last
/// block that holds only the terminator; returns the pieces after the first
/// (the first keeps the block's PHIs and the entry block's allocas).
llvm::SmallVector<llvm::BasicBlock *> splitIntoPieces(llvm::BasicBlock &block,
                                                      size_t maxInstructions) {
  llvm::SmallVector<llvm::BasicBlock *> pieces;
  llvm::BasicBlock *current = &block;
  size_t count = 0;
  for (auto it = current->getFirstInsertionPt(); !it->isTerminator();) {
    if (++count <= maxInstructions) {
      ++it;
      continue;
    }
    current = current->splitBasicBlock(it, block.getName() + ".piece");
    pieces.push_back(current);
    count = 0;
    it = current->begin();
  }
  if (!pieces.empty())
    current->splitBasicBlock(current->getTerminator(),
                             block.getName() + ".tail");
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
    for (llvm::BasicBlock *block : longBlocks)
      pieces.append(splitIntoPieces(*block, maxInstructions));
    // One analysis of the function serves every extraction (they keep it
    // valid): built per piece, it would make the outlining quadratic.
    llvm::CodeExtractorAnalysisCache cache(*function);
    for (llvm::BasicBlock *piece : pieces) {
      if (mustStay(*piece))
        continue;
      llvm::BasicBlock *region[] = {piece};
      llvm::CodeExtractor extractor(region);
      if (!extractor.isEligible())
        continue;
      if (llvm::Function *pieceFunction = extractor.extractCodeRegion(cache)) {
        // Inlining it back would undo the point; nothing after this runs an
        // inliner, but the attribute says why the function exists.
        pieceFunction->addFnAttr(llvm::Attribute::NoInline);
        ++outlined;
      }
    }
  }
  return outlined;
}
