//===- OutlineLongBlocksTest.cpp - Long blocks become calls ---------------===//
//
// Part of the Jeet project.
//
// Code generation grows with the square of a basic block's length, so the
// compiler outlines pieces of long blocks outside loops
// (jeet::detail::outlineLongBlocks). These tests count blocks, functions
// and the values that cross pieces, never time: a block of N instructions
// leaves no block longer than the limit, loops are left alone, a piece
// loads the invariant arguments it uses itself (other loads stay), no mask
// crosses a piece's boundary (code generation then compiles the module),
// and the module stays valid.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Compiler/CompilerSupport.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <gtest/gtest.h>

namespace {

constexpr size_t kLimit = 64;
/// What a piece holds beyond its share of the block: its terminator and a
/// store per value it gives to the next piece (here a kernel's pointers).
constexpr size_t kPieceOverhead = 4;
/// What a piece of the packed form recomputes beyond its share: the
/// pointers (a GEP and two loads each) of up to three buffers that kernels
/// before it use too.
constexpr size_t kRecomputedPerPiece = 9;
/// The packed list, and at most three values of a kernel cut in two (two
/// loaded values and their sum, taken or given).
constexpr size_t kMaxPieceArguments = 4;
/// Independent kernels of one load, one add and one store each.
constexpr unsigned kKernels = 200;
constexpr unsigned kInstructionsPerKernel = 5;

/// `void f(ptr %args)`: kKernels times, load a buffer's pointer from the
/// packed list, then its value, add one and store it back; in a loop of
/// `tripCount` iterations when `inLoop`.
llvm::Function *buildKernels(llvm::Module &module, llvm::StringRef name,
                             bool inLoop) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> b(context);
  auto *type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto *f = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name,
                                   module);
  auto *entry = llvm::BasicBlock::Create(context, "entry", f);
  auto *body = llvm::BasicBlock::Create(context, "body", f);
  auto *exit = llvm::BasicBlock::Create(context, "exit", f);
  b.SetInsertPoint(entry);
  b.CreateBr(body);
  b.SetInsertPoint(body);
  llvm::PHINode *counter = nullptr;
  if (inLoop) {
    counter = b.CreatePHI(b.getInt64Ty(), 2);
    counter->addIncoming(b.getInt64(0), entry);
  }
  for (unsigned i = 0; i < kKernels; ++i) {
    llvm::Value *slot = b.CreateGEP(b.getPtrTy(), f->getArg(0), b.getInt64(i));
    llvm::Value *buffer = b.CreateLoad(b.getPtrTy(), slot);
    llvm::Value *value = b.CreateLoad(b.getFloatTy(), buffer);
    llvm::Value *sum =
        b.CreateFAdd(value, llvm::ConstantFP::get(b.getFloatTy(), 1.0));
    b.CreateStore(sum, buffer);
  }
  if (inLoop) {
    llvm::Value *next = b.CreateAdd(counter, b.getInt64(1));
    counter->addIncoming(next, body);
    b.CreateCondBr(b.CreateICmpULT(next, b.getInt64(4)), body, exit);
  } else {
    b.CreateBr(exit);
  }
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  return f;
}

/// `void f(ptr %args)` as the packed form of an entry arrives at the
/// outlining: all buffers' pointers loaded from the list first (loads marked
/// invariant when `invariant`), then kKernels kernels, kernel i adding
/// buffer i to buffer i + 1 in place.
llvm::Function *buildPackedEntry(llvm::Module &module, llvm::StringRef name,
                                 bool invariant) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> b(context);
  auto *type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto *f = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name,
                                   module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", f));
  llvm::MDNode *mark = llvm::MDNode::get(context, {});
  auto load = [&](llvm::Type *loaded, llvm::Value *address) {
    llvm::LoadInst *inst = b.CreateLoad(loaded, address);
    if (invariant)
      inst->setMetadata(llvm::LLVMContext::MD_invariant_load, mark);
    return inst;
  };
  llvm::SmallVector<llvm::Value *> buffers;
  for (unsigned i = 0; i <= kKernels; ++i) {
    llvm::Value *slot = b.CreateGEP(b.getPtrTy(), f->getArg(0), b.getInt64(i));
    buffers.push_back(load(b.getPtrTy(), load(b.getPtrTy(), slot)));
  }
  for (unsigned i = 0; i < kKernels; ++i) {
    llvm::Value *sum =
        b.CreateFAdd(b.CreateLoad(b.getFloatTy(), buffers[i]),
                     b.CreateLoad(b.getFloatTy(), buffers[i + 1]));
    b.CreateStore(sum, buffers[i + 1]);
  }
  b.CreateRetVoid();
  return f;
}

/// The largest number of arguments of the functions `module` defines but
/// `except`, and the number of allocas in `except` (each a value a piece
/// gives to a later one).
std::pair<size_t, size_t> piecesInterface(const llvm::Module &module,
                                          const llvm::Function &except) {
  size_t widest = 0;
  for (const llvm::Function &function : module)
    if (&function != &except && !function.isDeclaration())
      widest = std::max(widest, function.arg_size());
  size_t allocas = 0;
  for (const llvm::Instruction &inst : except.getEntryBlock())
    allocas += llvm::isa<llvm::AllocaInst>(inst);
  return {widest, allocas};
}

bool hasInvariantLoads(const llvm::Module &module) {
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &inst : block)
        if (inst.hasMetadata(llvm::LLVMContext::MD_invariant_load))
          return true;
  return false;
}

size_t longestBlock(const llvm::Function &f) {
  size_t longest = 0;
  for (const llvm::BasicBlock &block : f)
    longest = std::max(longest, block.size());
  return longest;
}

/// The functions `module` defines (the outlining also declares intrinsics).
size_t definitions(const llvm::Module &module) {
  return llvm::count_if(module, [](const llvm::Function &function) {
    return !function.isDeclaration();
  });
}

std::string verifierErrors(const llvm::Module &module) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  llvm::verifyModule(module, &os);
  return errors;
}

TEST(OutlineLongBlocksTest, LongBlockBecomesPiecesOfAtMostTheLimit) {
  llvm::LLVMContext context;
  llvm::Module module("kernels", context);
  llvm::Function *f = buildKernels(module, "straight", /*inLoop=*/false);
  ASSERT_GT(longestBlock(*f), kKernels * (kInstructionsPerKernel - 1));

  size_t outlined = jeet::detail::outlineLongBlocks(module, kLimit);

  // Every piece after the first moves out: (1000 + 1) / 64 pieces follow it.
  size_t body = kKernels * kInstructionsPerKernel;
  EXPECT_EQ(outlined, body / (kLimit + 1));
  EXPECT_EQ(definitions(module), 1 + outlined);
  // A piece keeps its branch and stores each value it gives to a later one.
  for (const llvm::Function &function : module)
    EXPECT_LE(longestBlock(function), kLimit + kPieceOverhead)
        << function.getName().str();
  EXPECT_EQ(verifierErrors(module), "");
}

// The entry of a graph is alwaysinline (inlined into its packed form); the
// pieces of its long blocks are noinline, which the extractor's copy of the
// parent's attributes made both, a module the verifier rejected (ResNet-18's
// ONNX graph through jeet-compile).
TEST(OutlineLongBlocksTest, PiecesOfAnAlwaysInlineEntryAreOnlyNoInline) {
  llvm::LLVMContext context;
  llvm::Module module("kernels", context);
  llvm::Function *f = buildKernels(module, "entry", /*inLoop=*/false);
  f->addFnAttr(llvm::Attribute::AlwaysInline);

  ASSERT_GT(jeet::detail::outlineLongBlocks(module, kLimit), 0u);
  for (const llvm::Function &function : module) {
    if (&function == f || function.isDeclaration())
      continue;
    EXPECT_TRUE(function.hasFnAttribute(llvm::Attribute::NoInline));
    EXPECT_FALSE(function.hasFnAttribute(llvm::Attribute::AlwaysInline));
  }
  EXPECT_TRUE(f->hasFnAttribute(llvm::Attribute::AlwaysInline));
  EXPECT_EQ(verifierErrors(module), "");
}

TEST(OutlineLongBlocksTest, LoopsAndShortBlocksStay) {
  llvm::LLVMContext context;
  llvm::Module module("kernels", context);
  llvm::Function *loop = buildKernels(module, "loop", /*inLoop=*/true);
  size_t before = longestBlock(*loop);

  EXPECT_EQ(jeet::detail::outlineLongBlocks(module, kLimit), 0u);
  EXPECT_EQ(definitions(module), 1u);
  EXPECT_EQ(longestBlock(*loop), before);
  // A limit above every block's length changes nothing either.
  llvm::Function *f = buildKernels(module, "straight", /*inLoop=*/false);
  EXPECT_EQ(jeet::detail::outlineLongBlocks(module, longestBlock(*f)), 0u);
  EXPECT_EQ(verifierErrors(module), "");
}

// The pointers the packed form loads at the top are used all along the
// block. Left there, each piece passed on what the later pieces needed and
// the entry kept every pointer live across every call (what the register
// allocator spilled, and the stack slot colouring of those spills grew with
// their square). Invariant, they are loaded again where they are used: a
// piece takes the list and what the kernel before it stored, nothing else.
TEST(OutlineLongBlocksTest, PiecesLoadTheArgumentsTheyUse) {
  llvm::LLVMContext context;
  llvm::Module module("kernels", context);
  llvm::Function *f = buildPackedEntry(module, "packed", /*invariant=*/true);

  size_t outlined = jeet::detail::outlineLongBlocks(module, kLimit);

  EXPECT_GT(outlined, 1u);
  // A piece takes the list, and gives or takes the values of the one kernel
  // a cut splits (two loaded values, a sum); every pointer it loads again.
  auto [widest, allocas] = piecesInterface(module, *f);
  EXPECT_LE(widest, kMaxPieceArguments);
  EXPECT_LE(allocas, outlined);
  // The mark has done its work; instruction selection leaves invariant loads
  // unordered, which made its scheduling of a piece six times as long.
  EXPECT_FALSE(hasInvariantLoads(module));
  for (const llvm::Function &function : module)
    EXPECT_LE(longestBlock(function),
              kLimit + kPieceOverhead + kRecomputedPerPiece)
        << function.getName().str();
  EXPECT_EQ(verifierErrors(module), "");
}

// Loads that may see a kernel's stores stay where they are: the pieces take
// their values from the entry, as many as the later kernels use.
TEST(OutlineLongBlocksTest, OtherLoadsStay) {
  llvm::LLVMContext context;
  llvm::Module module("kernels", context);
  llvm::Function *f = buildPackedEntry(module, "packed", /*invariant=*/false);

  EXPECT_GT(jeet::detail::outlineLongBlocks(module, kLimit), 1u);

  auto [widest, allocas] = piecesInterface(module, *f);
  EXPECT_GT(widest, kLimit / 4);
  EXPECT_GT(allocas, kLimit / 4);
  EXPECT_EQ(verifierErrors(module), "");
}

/// `void offsets(ptr %args)`: the packed form's pointers loaded at the
/// top, then the address 62 bytes into buffer 0 (a concatenation's second
/// row) computed there and used only in the next block, and kKernels kernels
/// of which only the last reads buffer 0 itself.
llvm::Function *buildOffsetUsedInTheNextBlock(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> b(context);
  auto *type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto *f = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                   "offsets", module);
  auto *entry = llvm::BasicBlock::Create(context, "entry", f);
  auto *next = llvm::BasicBlock::Create(context, "next", f);
  b.SetInsertPoint(entry);
  llvm::MDNode *mark = llvm::MDNode::get(context, {});
  llvm::SmallVector<llvm::Value *> buffers;
  for (unsigned i = 0; i <= kKernels; ++i) {
    llvm::Value *slot = b.CreateGEP(b.getPtrTy(), f->getArg(0), b.getInt64(i));
    llvm::LoadInst *descriptor = b.CreateLoad(b.getPtrTy(), slot);
    descriptor->setMetadata(llvm::LLVMContext::MD_invariant_load, mark);
    llvm::LoadInst *pointer = b.CreateLoad(b.getPtrTy(), descriptor);
    pointer->setMetadata(llvm::LLVMContext::MD_invariant_load, mark);
    buffers.push_back(pointer);
  }
  llvm::Value *row = b.CreateGEP(b.getInt8Ty(), buffers[0], b.getInt64(62));
  for (unsigned i = kKernels; i-- > 0;) {
    llvm::Value *sum =
        b.CreateFAdd(b.CreateLoad(b.getFloatTy(), buffers[i]),
                     b.CreateLoad(b.getFloatTy(), buffers[i + 1]));
    b.CreateStore(sum, buffers[i + 1]);
  }
  b.CreateBr(next);
  b.SetInsertPoint(next);
  b.CreateStore(llvm::ConstantFP::get(b.getFloatTy(), 1.0), row);
  b.CreateRetVoid();
  return f;
}

// A chain used only in another block stays where it is, and so do the
// loads it needs: the load of buffer 0 was moved down to the last kernel,
// its first use in the block, past the address computed from it ("Instruction
// does not dominate all uses!", LLVM's verifier aborting the compilation of
// an f16 softmax concatenated after its input: fuzz_numerics.py seed
// 583,273).
TEST(OutlineLongBlocksTest, ChainsUsedInOtherBlocksKeepTheirOperands) {
  llvm::LLVMContext context;
  llvm::Module module("kernels", context);
  buildOffsetUsedInTheNextBlock(module);

  EXPECT_GT(jeet::detail::outlineLongBlocks(module, kLimit), 1u);
  EXPECT_EQ(verifierErrors(module), "");
}

/// `void masks(ptr %args)`: a mask of one lane, the `and` of an f16 and an
/// f32 compare (what the guards of the exp and log approximations make on a
/// softmax row's last lane), computed at the top of a long block and used
/// by a select just past the first piece's end (so that, outlined, the
/// second piece's call takes the mask straight from the compares), with
/// kKernels kernels in all around it.
llvm::Function *buildMaskAcrossPieces(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> b(context);
  auto *type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto *f = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                   "masks", module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", f));
  auto buffer = [&](unsigned i) {
    return b.CreateLoad(b.getPtrTy(),
                        b.CreateGEP(b.getPtrTy(), f->getArg(0), b.getInt64(i)));
  };
  auto kernels = [&](unsigned first, unsigned last) {
    for (unsigned i = first; i < last; ++i) {
      llvm::Value *pointer = buffer(i + 2);
      llvm::Value *value = b.CreateLoad(b.getFloatTy(), pointer);
      b.CreateStore(
          b.CreateFAdd(value, llvm::ConstantFP::get(b.getFloatTy(), 1.0)),
          pointer);
    }
  };
  auto *halves = llvm::FixedVectorType::get(b.getHalfTy(), 1);
  auto *floats = llvm::FixedVectorType::get(b.getFloatTy(), 1);
  llvm::Value *h = b.CreateLoad(halves, buffer(0));
  llvm::Value *xPointer = buffer(1);
  llvm::Value *x = b.CreateLoad(floats, xPointer);
  llvm::Value *mask =
      b.CreateAnd(b.CreateFCmpOGT(h, llvm::Constant::getNullValue(halves)),
                  b.CreateFCmpOLT(x, llvm::Constant::getNullValue(floats)));
  // The first piece: the compares and kernels up to kLimit instructions.
  unsigned before = kLimit / kInstructionsPerKernel;
  kernels(0, before);
  b.CreateStore(b.CreateSelect(mask, x, llvm::Constant::getNullValue(floats)),
                xPointer);
  kernels(before, kKernels);
  b.CreateRetVoid();
  return f;
}

TEST(OutlineLongBlocksTest, MasksDoNotCrossPieces) {
  // An AVX-512 machine, whatever the host: LLVM 22's X86 code generation
  // aborted ("Cannot emit physreg copy instruction") on such a mask passed
  // to a piece's function from the block that computed it (the graph of
  // test_f16_softmax_rows_feeding_a_log, on an AVX-512 host; this module
  // alone does not make it abort). The pieces around the mask's uses stay.
  ASSERT_TRUE(static_cast<bool>(jeet::detail::createHostTargetMachine()));
  std::string error;
  llvm::Triple triple("x86_64-pc-linux-gnu");
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  ASSERT_NE(target, nullptr) << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "skylake-avx512", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  ASSERT_NE(machine, nullptr);

  llvm::LLVMContext context;
  llvm::Module module("kernels", context);
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  llvm::Function *f = buildMaskAcrossPieces(module);

  EXPECT_GT(jeet::detail::outlineLongBlocks(module, kLimit), 1u);
  EXPECT_EQ(verifierErrors(module), "");
  // No piece's function takes a mask.
  for (const llvm::Function &function : module) {
    if (&function == f || function.isDeclaration())
      continue;
    for (const llvm::Argument &argument : function.args())
      EXPECT_FALSE(argument.getType()->isVectorTy() &&
                   argument.getType()->getScalarType()->isIntegerTy(1))
          << function.getName().str() << " takes a mask";
  }
  auto object = jeet::detail::emitObjectFile(module, *machine,
                                             /*printPassTimes=*/false);
  ASSERT_TRUE(static_cast<bool>(object)) << llvm::toString(object.takeError());
  EXPECT_FALSE(object->empty());
}

} // namespace
