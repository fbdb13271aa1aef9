//===- ParallelCodegen.cpp - Optimisation and code generation on threads --===//
//
// Part of the Jeet project.
//
// The LLVM module of a graph is cut into partitions of about the same
// number of instructions, and each partition becomes an object file of its
// own, generated on a thread of its own with a context and a target machine
// of its own (LLVM's contexts are not shared between threads: a partition
// travels to its thread as bitcode). The objects are linked together, by the
// JIT or by the system linker for an artifact, as one.
//
// When is it cut: before LLVM's optimisation when its functions fall into
// partitions of similar size (a matmul's tile kernels against the entry and
// its parallel regions), so that each thread optimises its partition too,
// a third of such a compile; else after optimisation, which outlines the
// long blocks of an entry of many small kernels into functions that can
// then be spread (cut before, such an entry is one partition far larger
// than the others). Cut before optimisation, a function keeps the functions
// it calls that may be inlined into it (the packed entry and the graph's
// function) in its partition.
//
// What may be split, and how the pieces refer to each other:
// - Functions are the unit. A function that another partition calls or
//   takes the address of becomes external with default visibility and is
//   not dso_local, so code in other objects reaches it through a call stub
//   or a GOT entry of the linker, whatever the distance between the
//   objects in memory (the JIT's objects are mapped independently).
// - Constants that are local and whose address is insignificant
//   (unnamed_addr: the OpenMP location strings, the graph's constants) are
//   copied into each partition that uses them.
// - Any other global variable goes with every function that uses it.
// - A module with aliases, ifuncs, comdats, appending globals (constructors)
//   or inline assembly is not split: Jeet's CPU modules have none.
//
// The partitioning depends only on the module and the number of partitions,
// so the same graph compiled with the same thread count on the same host
// gives the same object bytes every time.
//
//===----------------------------------------------------------------------===//

#include "CompilerSupport.h"

#include "jeet/Pipelines/PipelineRunner.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <pthread.h>

using namespace jeet;
using namespace jeet::detail;

/// The fewest instructions a partition must hold to be worth a thread:
/// starting one, moving its partition there as bitcode and making its
/// target machine cost ~1 ms, and code generation of Jeet's vectorised
/// kernels runs at roughly 15-20 LLVM instructions per ms (the matmul's 680
/// take ~40 ms). Counted after optimisation; before it, a function holds
/// about twice as many (the MLP's tile kernel 863 before, 452 after).
static constexpr size_t kMinPartitionInstructions = 100;
static constexpr size_t kMinPartitionInstructionsBeforeOptimization = 200;

/// More threads than this gain nothing on graphs of a few kernels.
static constexpr unsigned kMaxCodegenThreads = 8;

unsigned jeet::detail::codegenThreads() {
  if (const char *env = std::getenv(kCompileThreadsEnvVar.data());
      env && *env) {
    unsigned threads = 0;
    if (!llvm::StringRef(env).getAsInteger(10, threads) && threads > 0)
      return std::min(threads, kMaxCodegenThreads);
    // Said once a process: a compilation still runs, with the default.
    static std::once_flag warnOnce;
    std::call_once(warnOnce, [&] {
      llvm::errs() << "jeet: warning: ignoring " << kCompileThreadsEnvVar
                   << "='" << env
                   << "': expected a positive number of threads; using the "
                      "host's cores\n";
    });
  }
  return std::clamp(llvm::hardware_concurrency().compute_thread_count(), 1u,
                    kMaxCodegenThreads);
}

/// What JEET_DEBUG says of a code generation split over threads: the
/// instructions of each object and the other threads' CPU time.
std::string ObjectFiles::describe() const {
  if (objects.size() < 2)
    return "";
  std::string sizes;
  for (size_t instructions : partitionInstructions)
    sizes += (sizes.empty() ? "" : " + ") + std::to_string(instructions);
  if (!inParallel)
    return llvm::formatv("{0} objects one after the other ({1} "
                         "instructions), split in {2:f3} ms",
                         objects.size(), sizes, splitSeconds * 1e3)
        .str();
  return llvm::formatv(
             "{0} objects in parallel ({1} instructions), split in "
             "{2:f3} ms, other threads' cpu {3:f3} ms{4}",
             objects.size(), sizes, splitSeconds * 1e3, helperCpuSeconds * 1e3,
             optimizedInParallel ? ", each partition optimised on its thread"
                                 : "")
      .str();
}

/// A local constant whose address nobody compares: each partition that uses
/// it gets its own copy.
static bool isCopiedConstant(const llvm::GlobalVariable &global) {
  return global.hasLocalLinkage() && global.isConstant() &&
         global.hasGlobalUnnamedAddr() && global.hasInitializer();
}

/// Whether the splitter knows how to keep every reference of `module`
/// valid across partitions.
static bool canSplit(const llvm::Module &module) {
  if (!module.alias_empty() || !module.ifunc_empty() ||
      !module.getModuleInlineAsm().empty() ||
      !module.getComdatSymbolTable().empty())
    return false;
  return llvm::none_of(module.globals(), [](const llvm::GlobalVariable &g) {
    return g.hasAppendingLinkage();
  });
}

/// The function or global variable whose definition holds `user`, looking
/// through constant expressions; calls `visit` for each.
static void forEachHolder(const llvm::Value *value,
                          llvm::function_ref<void(const llvm::User *)> visit) {
  llvm::SmallVector<const llvm::User *> worklist(value->users());
  while (!worklist.empty()) {
    const llvm::User *user = worklist.pop_back_val();
    if (llvm::isa<llvm::Constant>(user) &&
        !llvm::isa<llvm::GlobalValue>(user)) {
      worklist.append(user->user_begin(), user->user_end());
      continue;
    }
    visit(user);
  }
}

static const llvm::GlobalValue *holderOf(const llvm::User *user) {
  if (const auto *instruction = llvm::dyn_cast<llvm::Instruction>(user))
    return instruction->getFunction();
  return llvm::dyn_cast<llvm::GlobalValue>(user);
}

namespace {
/// Runs `work` on a thread of its own, joined on destruction; or at once on
/// the calling thread when no thread can be started (a process at its
/// thread limit still compiles, one partition after the other).
class HelperThread {
public:
  explicit HelperThread(std::function<void()> work) : work(std::move(work)) {
    started = pthread_create(&thread, nullptr, &HelperThread::run, this) == 0;
    if (!started)
      this->work();
  }
  ~HelperThread() {
    if (started)
      pthread_join(thread, nullptr);
  }
  /// Whether `work` runs on a thread of its own.
  bool isThread() const { return started; }
  HelperThread(const HelperThread &) = delete;
  HelperThread &operator=(const HelperThread &) = delete;

private:
  static void *run(void *self) {
    static_cast<HelperThread *>(self)->work();
    return nullptr;
  }
  std::function<void()> work;
  pthread_t thread;
  bool started = false;
};

/// Which partition each definition goes to.
struct Partitioning {
  std::map<const llvm::GlobalValue *, unsigned> partitionOf;
  std::vector<size_t> instructions;
};
} // namespace

/// Groups the definitions that must stay together (a global variable and
/// its users; a function and the functions it calls that may be inlined
/// into it) and deals the groups, largest first, to the partition with the
/// fewest instructions so far. Fewer partitions than `count` when the
/// smallest would hold less than `minInstructions`.
static Partitioning partitionModule(const llvm::Module &module, unsigned count,
                                    size_t minInstructions) {
  llvm::EquivalenceClasses<const llvm::GlobalValue *> groups;
  std::map<const llvm::GlobalValue *, size_t> order;
  for (const llvm::Function &function : module)
    if (!function.isDeclaration()) {
      order.emplace(&function, order.size());
      groups.insert(&function);
    }
  // Before optimisation the packed entry calls the graph's function, which
  // the inliner must find in the same module; the tile kernels and the
  // pieces of long blocks are `noinline` and may go anywhere.
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &instruction : block)
        if (const auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction))
          if (const llvm::Function *callee = call->getCalledFunction();
              callee && !callee->isDeclaration() && callee != &function &&
              !callee->hasFnAttribute(llvm::Attribute::NoInline))
            groups.unionSets(&function, callee);
  for (const llvm::GlobalVariable &global : module.globals()) {
    if (global.isDeclaration() || isCopiedConstant(global))
      continue;
    order.emplace(&global, order.size());
    groups.insert(&global);
    forEachHolder(&global, [&](const llvm::User *user) {
      if (const llvm::GlobalValue *holder = holderOf(user))
        if (!holder->isDeclaration())
          groups.unionSets(&global, holder);
    });
  }

  // Each group with its size and the position of its first definition in
  // the module, which orders groups of equal size deterministically.
  struct Group {
    const llvm::GlobalValue *leader;
    size_t instructions = 0;
    size_t first = 0;
  };
  std::vector<Group> sized;
  for (const auto &entry : groups) {
    if (!entry->isLeader())
      continue;
    Group group{entry->getData(), 0, SIZE_MAX};
    for (auto member = groups.member_begin(*entry);
         member != groups.member_end(); ++member) {
      if (const auto *function = llvm::dyn_cast<llvm::Function>(*member))
        group.instructions += function->getInstructionCount();
      group.first = std::min(group.first, order.at(*member));
    }
    sized.push_back(group);
  }
  llvm::sort(sized, [](const Group &a, const Group &b) {
    return a.instructions != b.instructions ? a.instructions > b.instructions
                                            : a.first < b.first;
  });

  for (count = std::min<unsigned>(count, sized.size()); count > 1; --count) {
    std::vector<size_t> load(count, 0);
    std::vector<unsigned> slot(sized.size());
    for (size_t i = 0; i < sized.size(); ++i) {
      slot[i] = std::min_element(load.begin(), load.end()) - load.begin();
      load[slot[i]] += sized[i].instructions;
    }
    if (*std::min_element(load.begin(), load.end()) < minInstructions)
      continue;
    Partitioning result;
    result.instructions = load;
    for (size_t i = 0; i < sized.size(); ++i)
      for (auto member = groups.findLeader(sized[i].leader);
           member != groups.member_end(); ++member)
        result.partitionOf[*member] = slot[i];
    return result;
  }
  return {};
}

/// Makes every function that code in another partition refers to external
/// and reachable from any distance (see the file comment).
static void exposeAcrossPartitions(llvm::Module &module,
                                   const Partitioning &split) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    unsigned home = split.partitionOf.at(&function);
    bool shared = false;
    forEachHolder(&function, [&](const llvm::User *user) {
      const llvm::GlobalValue *holder = holderOf(user);
      if (!holder)
        return;
      auto found = split.partitionOf.find(holder);
      // A user without a partition is a copied constant: any partition.
      if (found == split.partitionOf.end() || found->second != home)
        shared = true;
    });
    if (!shared)
      continue;
    if (!function.hasName())
      function.setName("jeet.partition.function");
    if (function.hasLocalLinkage())
      function.setLinkage(llvm::GlobalValue::ExternalLinkage);
    function.setVisibility(llvm::GlobalValue::DefaultVisibility);
    function.setDSOLocal(false);
  }
}

/// Partition `index` of `module`: its definitions, declarations of the
/// rest, and copies of the constants it uses.
static std::unique_ptr<llvm::Module> clonePartition(const llvm::Module &module,
                                                    const Partitioning &split,
                                                    unsigned index) {
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> part =
      llvm::CloneModule(module, map, [&](const llvm::GlobalValue *global) {
        auto found = split.partitionOf.find(global);
        if (found != split.partitionOf.end())
          return found->second == index;
        // Copied constants everywhere (the unused ones are dropped below);
        // a global variable nothing uses, in the first partition.
        const auto *variable = llvm::dyn_cast<llvm::GlobalVariable>(global);
        return (variable && isCopiedConstant(*variable)) || index == 0;
      });
  bool erased = true;
  while (erased) {
    erased = false;
    for (llvm::GlobalVariable &global :
         llvm::make_early_inc_range(part->globals())) {
      global.removeDeadConstantUsers();
      if (global.hasLocalLinkage() && global.use_empty()) {
        global.eraseFromParent();
        erased = true;
      }
    }
  }
  return part;
}

/// The instructions of the functions `module` defines.
static size_t countInstructions(const llvm::Module &module) {
  size_t instructions = 0;
  for (const llvm::Function &function : module)
    instructions += function.getInstructionCount();
  return instructions;
}

/// What a partition's thread leaves: its object and its instructions after
/// optimisation, or why there is none.
struct PartitionResult {
  std::string object;
  size_t instructions = 0;
  std::string error;
  double cpuSeconds = 0;
};

/// Optimises (when `optimize`) and generates a partition that arrives as
/// bitcode, in a context and with a target machine of this thread's own.
static PartitionResult
compileFromBitcode(llvm::StringRef bitcode, bool optimize,
                   const TargetMachineFactory &makeTargetMachine) {
  StepClock clock;
  PartitionResult result;
  auto fail = [&](llvm::Error error) {
    result.error = llvm::toString(std::move(error));
    result.cpuSeconds = clock.cpuSeconds();
    return std::move(result);
  };
  llvm::LLVMContext context;
  auto module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(bitcode, "jeet-partition"), context);
  if (!module)
    return fail(module.takeError());
  auto machine = makeTargetMachine();
  if (!machine)
    return fail(machine.takeError());
  if (optimize)
    optimizeKernelModule(**module, **machine, /*printPassTimes=*/false);
  result.instructions = countInstructions(**module);
  auto object = emitObjectFile(**module, **machine, /*printPassTimes=*/false);
  if (!object)
    return fail(object.takeError());
  result.object.assign(object->begin(), object->end());
  result.cpuSeconds = clock.cpuSeconds();
  return result;
}

/// Cuts `module` as `split` says and compiles each partition to an object:
/// the first on this thread with `targetMachine`, the others on threads of
/// their own. With `optimize`, each partition is optimised there first and
/// `optimized` is called when this thread's partition is.
static llvm::Expected<ObjectFiles>
compilePartitions(llvm::Module &module, const Partitioning &split,
                  bool optimize, llvm::TargetMachine &targetMachine,
                  const TargetMachineFactory &makeTargetMachine,
                  bool printPassTimes, llvm::function_ref<void()> optimized) {
  ObjectFiles result;
  StepClock splitClock;
  exposeAcrossPartitions(module, split);
  size_t count = split.instructions.size();
  result.partitionInstructions.resize(count);
  result.objects.resize(count);
  // The first partition stays in this thread's context; the others travel
  // as bitcode.
  std::unique_ptr<llvm::Module> first = clonePartition(module, split, 0);
  std::vector<std::string> bitcode(count);
  for (unsigned i = 1; i < count; ++i) {
    std::unique_ptr<llvm::Module> part = clonePartition(module, split, i);
    llvm::raw_string_ostream os(bitcode[i]);
    llvm::WriteBitcodeToFile(*part, os);
  }
  result.splitSeconds = splitClock.cpuSeconds();

  std::vector<PartitionResult> done(count);
  auto runHelper = [&](unsigned i) {
    done[i] = compileFromBitcode(bitcode[i], optimize, makeTargetMachine);
  };
  // LLVM's pass timers are not shared between threads: timed, the
  // partitions are generated one after the other (the same objects).
  bool concurrent = !printPassTimes && !llvm::TimePassesIsEnabled;
  std::vector<std::unique_ptr<HelperThread>> helpers;
  for (unsigned i = 1; i < count; ++i) {
    if (concurrent)
      helpers.push_back(
          std::make_unique<HelperThread>([&, i] { runHelper(i); }));
    else
      runHelper(i);
  }
  if (optimize) {
    optimizeKernelModule(*first, targetMachine, printPassTimes);
    optimized();
  }
  result.partitionInstructions[0] = countInstructions(*first);
  auto object = emitObjectFile(*first, targetMachine, printPassTimes);
  result.inParallel = llvm::any_of(
      helpers, [](const auto &helper) { return helper->isThread(); });
  helpers.clear();
  if (!object)
    return object.takeError();
  result.objects[0].assign(object->begin(), object->end());
  for (unsigned i = 1; i < count; ++i) {
    if (!done[i].error.empty())
      return llvm::createStringError("code generation of partition " +
                                     std::to_string(i) +
                                     " failed: " + done[i].error);
    result.objects[i] = std::move(done[i].object);
    result.partitionInstructions[i] = done[i].instructions;
    if (result.inParallel)
      result.helperCpuSeconds += done[i].cpuSeconds;
  }
  result.optimizedInParallel = optimize && result.inParallel;
  return result;
}

/// Whether the partitions of `split` are close enough in size that
/// optimising them apart, each on its thread, gains: the smallest holds at
/// least half of the largest. A graph of many small kernels is one long
/// entry before optimisation, which only its outlined pieces, after it,
/// can spread over the threads.
static bool isBalanced(const Partitioning &split) {
  auto [least, most] =
      std::minmax_element(split.instructions.begin(), split.instructions.end());
  return 2 * *least >= *most;
}

llvm::Expected<ObjectFiles> jeet::detail::compileObjectFiles(
    llvm::Module &module, llvm::TargetMachine &targetMachine,
    const TargetMachineFactory &makeTargetMachine, unsigned threads,
    bool printPassTimes, llvm::function_ref<void()> optimized) {
  // Kernels that lowered to the same code (the OpenMP-outlined tiles of two
  // layers with the same shapes and epilogue) become one function before
  // the module is cut and before LLVM spends its time on each copy.
  llvm::MergeFunctionsPass::runOnModule(module);
  bool splittable = threads > 1 && canSplit(module);

  // Cut before optimisation when the pieces are balanced: optimisation, a
  // third of a matmul's compile, then runs on every thread too. Timed
  // (JEET_DEBUG=2), the module is optimised whole, for one report of
  // LLVM's passes.
  if (splittable && !printPassTimes) {
    Partitioning early = partitionModule(
        module, threads, kMinPartitionInstructionsBeforeOptimization);
    if (early.instructions.size() > 1 && isBalanced(early))
      return compilePartitions(module, early, /*optimize=*/true, targetMachine,
                               makeTargetMachine, printPassTimes, optimized);
  }

  optimizeKernelModule(module, targetMachine, printPassTimes);
  optimized();
  Partitioning split;
  if (splittable)
    split = partitionModule(module, threads, kMinPartitionInstructions);
  if (split.instructions.size() < 2) {
    auto object = emitObjectFile(module, targetMachine, printPassTimes);
    if (!object)
      return object.takeError();
    ObjectFiles result;
    result.objects.emplace_back(object->begin(), object->end());
    return result;
  }
  return compilePartitions(module, split, /*optimize=*/false, targetMachine,
                           makeTargetMachine, printPassTimes, optimized);
}
