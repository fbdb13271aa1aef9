//===- CheckAllocations.cpp - Stop cleanly when an allocation fails -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The allocation functions that host code calls return null when memory runs
// out (Jeet's runtime records an OutOfMemory error naming the size first).
// After each such call, a null result branches to an error block that gives
// back what the function holds at that point (buffers, streams, events) and
// returns, so the caller reports the runtime's error and the next execution
// starts from a clean allocator. Inside a region (an iteration of an OpenMP
// loop, possibly on another thread) the iteration ends instead and a slot in
// the function's frame carries the failure to the function's body.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/IR/Dominance.h"
#include "llvm/ADT/StringSwitch.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUCHECKALLOCATIONSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// The runtime function the function's body calls when an allocation failed
/// inside a region (jeet/Runtime/HostABI.h).
constexpr llvm::StringLiteral kFailedInRegion = "jeetAllocationFailed";
constexpr llvm::StringLiteral kStreamSynchronize = "mgpuStreamSynchronize";
/// Branch weights of the null check: failing is the exception.
constexpr uint32_t kFailWeight = 1;
constexpr uint32_t kSucceedWeight = 1u << 20;

enum class Resource { Buffer, Stream, Event };

/// What `call` creates, if it creates a resource that must be given back.
std::optional<Resource> createdResource(LLVM::CallOp call) {
  std::optional<StringRef> callee = call.getCallee();
  if (!callee || call.getNumResults() != 1)
    return std::nullopt;
  return llvm::StringSwitch<std::optional<Resource>>(*callee)
      .Cases({"_mlir_memref_to_llvm_alloc",
              "_mlir_memref_to_llvm_aligned_alloc", "malloc", "aligned_alloc",
              "mgpuMemAlloc"},
             Resource::Buffer)
      .Case("mgpuStreamCreate", Resource::Stream)
      .Case("mgpuEventCreate", Resource::Event)
      .Default(std::nullopt);
}

/// The value `call` gives back (frees or destroys), or null.
Value releasedValue(LLVM::CallOp call) {
  std::optional<StringRef> callee = call.getCallee();
  if (!callee || call.getArgOperands().empty())
    return {};
  bool releases =
      llvm::StringSwitch<bool>(*callee)
          .Cases({"free", "_mlir_memref_to_llvm_free", "mgpuMemFree",
                  "mgpuStreamDestroy", "mgpuEventDestroy"},
                 true)
          .Default(false);
  return releases ? call.getArgOperands().front() : Value();
}

/// The byte count an allocation call asks for.
Value requestedBytes(LLVM::CallOp call) {
  StringRef callee = *call.getCallee();
  // aligned_alloc(alignment, size); the others take the size first.
  unsigned index = callee == "aligned_alloc" ||
                           callee == "_mlir_memref_to_llvm_aligned_alloc"
                       ? 1
                       : 0;
  return call.getArgOperands()[index];
}

/// A resource created in the function and the calls that give it back.
struct Tracked {
  LLVM::CallOp create;
  Resource kind;
  SmallVector<LLVM::CallOp, 1> releases;
};

/// A point after which the function may have to stop: the tracked resources
/// it then holds, in creation order.
struct Exit {
  SmallVector<Tracked *> held;
};

/// Finds a declaration of `name`, or declares it in `module`.
LLVM::LLVMFuncOp getOrDeclare(ModuleOp module, StringRef name,
                              LLVM::LLVMFunctionType type) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return func;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

class AllocationChecker {
public:
  AllocationChecker(LLVM::LLVMFuncOp func, ModuleOp module)
      : func(func), module(module), dominance(func) {}

  void run();

private:
  void collect();
  SmallVector<Tracked *> heldAt(Operation *point, Region *region);
  void emitRelease(OpBuilder &b, ArrayRef<Tracked *> held);
  void emitReturn(OpBuilder &b);
  Block *splitAfter(Operation *op);
  void checkInBody(LLVM::CallOp alloc, ArrayRef<Tracked *> held);
  void checkInRegion(LLVM::CallOp alloc, Operation *terminator,
                     ArrayRef<Tracked *> held);
  void checkSlotAfter(Operation *op, ArrayRef<Tracked *> held);
  Value getSlot();

  LLVM::LLVMFuncOp func;
  ModuleOp module;
  DominanceInfo dominance;
  std::vector<std::unique_ptr<Tracked>> tracked;
  Value slot;
};

void AllocationChecker::collect() {
  DenseMap<Value, Tracked *> byValue;
  func.walk([&](LLVM::CallOp call) {
    if (std::optional<Resource> kind = createdResource(call)) {
      tracked.push_back(std::make_unique<Tracked>(Tracked{call, *kind, {}}));
      byValue[call.getResult()] = tracked.back().get();
    }
  });
  func.walk([&](LLVM::CallOp call) {
    if (Value released = releasedValue(call))
      if (Tracked *t = byValue.lookup(released))
        t->releases.push_back(call);
  });
}

/// The resources created in `region` (not in regions nested in it) before
/// `point` that no release before `point` has given back, and whose
/// releases can be repeated at `point` (their operands are available).
SmallVector<Tracked *> AllocationChecker::heldAt(Operation *point,
                                                 Region *region) {
  SmallVector<Tracked *> held;
  for (auto &t : tracked) {
    Operation *create = t->create;
    if (create == point || create->getParentRegion() != region ||
        t->releases.empty() || !dominance.properlyDominates(create, point))
      continue;
    if (llvm::any_of(t->releases, [&](LLVM::CallOp release) {
          return dominance.properlyDominates(release.getOperation(), point);
        }))
      continue;
    LLVM::CallOp release = t->releases.front();
    if (llvm::all_of(release.getArgOperands(), [&](Value v) {
          return dominance.properlyDominates(v, point);
        }))
      held.push_back(t.get());
  }
  return held;
}

/// Gives back `held`: buffers first (a stream-ordered free needs its stream),
/// newest first, then events, then streams once their work is done.
void AllocationChecker::emitRelease(OpBuilder &b, ArrayRef<Tracked *> held) {
  for (Resource kind : {Resource::Buffer, Resource::Event, Resource::Stream})
    for (Tracked *t : llvm::reverse(held)) {
      if (t->kind != kind)
        continue;
      if (kind == Resource::Stream) {
        auto voidType = LLVM::LLVMVoidType::get(b.getContext());
        auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
        auto sync =
            getOrDeclare(module, kStreamSynchronize,
                         LLVM::LLVMFunctionType::get(voidType, {ptrType}));
        LLVM::CallOp::create(b, t->create.getLoc(), sync,
                             ValueRange{t->create.getResult()});
      }
      b.clone(*t->releases.front());
    }
}

void AllocationChecker::emitReturn(OpBuilder &b) {
  Type result = func.getFunctionType().getReturnType();
  if (isa<LLVM::LLVMVoidType>(result)) {
    LLVM::ReturnOp::create(b, func.getLoc(), ValueRange{});
    return;
  }
  Value zero = LLVM::ZeroOp::create(b, func.getLoc(), result);
  LLVM::ReturnOp::create(b, func.getLoc(), zero);
}

Block *AllocationChecker::splitAfter(Operation *op) {
  Block *block = op->getBlock();
  return block->splitBlock(std::next(op->getIterator()));
}

/// Branches to `error` when `failed` holds, else falls through to the rest of
/// the block after `op`.
static Block *branchOnFailure(Operation *op, Value failed, Block *next) {
  OpBuilder b = OpBuilder::atBlockEnd(op->getBlock());
  auto *error = new Block();
  error->insertBefore(next);
  LLVM::CondBrOp::create(b, op->getLoc(), failed, error, ValueRange{}, next,
                         ValueRange{},
                         std::make_pair(kFailWeight, kSucceedWeight));
  return error;
}

static Value isNull(OpBuilder &b, Location loc, Value ptr) {
  Value null = LLVM::ZeroOp::create(b, loc, ptr.getType());
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, ptr, null);
}

void AllocationChecker::checkInBody(LLVM::CallOp alloc,
                                    ArrayRef<Tracked *> held) {
  Block *next = splitAfter(alloc);
  OpBuilder b = OpBuilder::atBlockEnd(alloc->getBlock());
  Value failed = isNull(b, alloc.getLoc(), alloc.getResult());
  Block *error = branchOnFailure(alloc, failed, next);
  b.setInsertionPointToEnd(error);
  emitRelease(b, held);
  emitReturn(b);
}

/// A slot of the function's frame that holds the byte count of an
/// allocation that failed inside a region (0: none).
Value AllocationChecker::getSlot() {
  if (slot)
    return slot;
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  auto i64 = b.getI64Type();
  Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  slot =
      LLVM::AllocaOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                             i64, one, /*alignment=*/8);
  Value zero = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
  LLVM::StoreOp::create(b, loc, zero, slot, /*alignment=*/8);
  return slot;
}

void AllocationChecker::checkInRegion(LLVM::CallOp alloc, Operation *terminator,
                                      ArrayRef<Tracked *> held) {
  Value frameSlot = getSlot();
  Block *next = splitAfter(alloc);
  OpBuilder b = OpBuilder::atBlockEnd(alloc->getBlock());
  Location loc = alloc.getLoc();
  Value failed = isNull(b, loc, alloc.getResult());
  Block *error = branchOnFailure(alloc, failed, next);
  b.setInsertionPointToEnd(error);
  Value bytes = requestedBytes(alloc);
  if (bytes.getType() != b.getI64Type())
    bytes = LLVM::ZExtOp::create(b, loc, b.getI64Type(), bytes);
  // Iterations run on several threads: every store is atomic.
  LLVM::StoreOp::create(b, loc, bytes, frameSlot, /*alignment=*/8,
                        /*isVolatile=*/false, /*isNonTemporal=*/false,
                        /*isInvariantGroup=*/false,
                        LLVM::AtomicOrdering::monotonic);
  emitRelease(b, held);
  b.clone(*terminator);
}

void AllocationChecker::checkSlotAfter(Operation *op,
                                       ArrayRef<Tracked *> held) {
  Block *next = splitAfter(op);
  OpBuilder b = OpBuilder::atBlockEnd(op->getBlock());
  Location loc = op->getLoc();
  auto i64 = b.getI64Type();
  Value bytes = LLVM::LoadOp::create(b, loc, i64, slot, /*alignment=*/8,
                                     /*isVolatile=*/false,
                                     /*isNonTemporal=*/false,
                                     /*isInvariant=*/false,
                                     /*isInvariantGroup=*/false,
                                     LLVM::AtomicOrdering::monotonic);
  Value zero = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
  Value failed =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, bytes, zero);
  Block *error = branchOnFailure(op, failed, next);
  b.setInsertionPointToEnd(error);
  auto report =
      getOrDeclare(module, kFailedInRegion,
                   LLVM::LLVMFunctionType::get(
                       LLVM::LLVMVoidType::get(b.getContext()), {i64}));
  LLVM::CallOp::create(b, loc, report, ValueRange{bytes});
  emitRelease(b, held);
  emitReturn(b);
}

/// The operand-free terminator that ends an iteration of `region` (an
/// omp.yield or omp.terminator), or null when the region has none.
static Operation *findRegionExit(Region *region) {
  for (Block &block : *region) {
    Operation *term = block.getTerminator();
    if (term && term->getNumOperands() == 0 && term->getNumSuccessors() == 0 &&
        term->getNumResults() == 0 && !isa<LLVM::UnreachableOp>(term))
      return term;
  }
  return nullptr;
}

void AllocationChecker::run() {
  collect();
  Region *body = &func.getBody();
  struct BodyCheck {
    LLVM::CallOp alloc;
    SmallVector<Tracked *> held;
  };
  struct RegionCheck {
    LLVM::CallOp alloc;
    Operation *exit;
    SmallVector<Tracked *> held;
  };
  // Everything is planned on the unmodified function (the dominance info),
  // then rewritten: the error blocks add no path between existing ops.
  SmallVector<BodyCheck> bodyChecks;
  SmallVector<RegionCheck> regionChecks;
  llvm::SetVector<Operation *> topLevel;
  for (auto &t : tracked) {
    if (t->kind != Resource::Buffer)
      continue;
    LLVM::CallOp alloc = t->create;
    Region *region = alloc->getParentRegion();
    if (region == body) {
      bodyChecks.push_back({alloc, heldAt(alloc, region)});
      continue;
    }
    Operation *exit = findRegionExit(region);
    if (!exit)
      continue;
    regionChecks.push_back({alloc, exit, heldAt(alloc, region)});
    Operation *outer = alloc;
    while (outer->getParentRegion() != body)
      outer = outer->getParentOp();
    topLevel.insert(outer);
  }
  SmallVector<std::pair<Operation *, SmallVector<Tracked *>>> slotChecks;
  for (Operation *outer : topLevel)
    slotChecks.push_back({outer, heldAt(outer->getNextNode(), body)});

  for (BodyCheck &check : bodyChecks)
    checkInBody(check.alloc, check.held);
  for (RegionCheck &check : regionChecks)
    checkInRegion(check.alloc, check.exit, check.held);
  for (auto &[outer, held] : slotChecks)
    checkSlotAfter(outer, held);
}

struct JeetCpuCheckAllocationsPass
    : public jeet::impl::JeetCpuCheckAllocationsPassBase<
          JeetCpuCheckAllocationsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> funcs;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    for (LLVM::LLVMFuncOp func : funcs)
      AllocationChecker(func, module).run();
  }
};

} // namespace
