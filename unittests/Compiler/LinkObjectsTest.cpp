//===- LinkObjectsTest.cpp - Objects linked into a JIT --------------------===//
//
// Part of the Jeet project.
//
// Compiled and cached graphs alike are linked by
// jeet::detail::linkCachedObjects: a JIT of their own, the symbols given
// defined, the process's symbols visible. That JIT runs no initializers, so
// an object that has some is refused rather than run without them; bytes
// that are not an object are an error, not a crash.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Compiler/CompilerSupport.h"
#include "../../lib/Compiler/DiskCache.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <gtest/gtest.h>

namespace {

int doubled(int value) { return 2 * value; }

/// `i32 jeet_test_answer(i32 %x)` returning `jeet_test_host(%x) + 1`, with
/// a global constructor when `withConstructor`, as an object for the host.
std::string buildObject(bool withConstructor) {
  auto targetMachine = jeet::detail::createHostTargetMachine();
  EXPECT_TRUE(bool(targetMachine)) << llvm::toString(targetMachine.takeError());
  llvm::LLVMContext context;
  llvm::Module module("link-objects-test", context);
  module.setTargetTriple((*targetMachine)->getTargetTriple());
  module.setDataLayout((*targetMachine)->createDataLayout());
  llvm::IRBuilder<> b(context);
  auto *type = llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty()}, false);
  llvm::FunctionCallee host =
      module.getOrInsertFunction("jeet_test_host", type);
  auto *answer = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                        "jeet_test_answer", module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", answer));
  b.CreateRet(
      b.CreateAdd(b.CreateCall(host, {answer->getArg(0)}), b.getInt32(1)));
  if (withConstructor) {
    auto *ctorType = llvm::FunctionType::get(b.getVoidTy(), false);
    auto *ctor = llvm::Function::Create(
        ctorType, llvm::Function::InternalLinkage, "jeet_test_ctor", module);
    b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", ctor));
    b.CreateRetVoid();
    llvm::appendToGlobalCtors(module, ctor, /*Priority=*/65535);
  }
  auto object = jeet::detail::emitObjectFile(module, **targetMachine,
                                             /*printPassTimes=*/false);
  EXPECT_TRUE(bool(object)) << llvm::toString(object.takeError());
  return std::string(object->begin(), object->end());
}

std::vector<std::pair<std::string, void *>> hostSymbols() {
  return {{"jeet_test_host", reinterpret_cast<void *>(&doubled)}};
}

TEST(LinkObjectsTest, LinksAndResolvesTheGivenSymbols) {
  std::string object = buildObject(/*withConstructor=*/false);
  auto jit = jeet::detail::linkCachedObjects({object}, {}, hostSymbols());
  ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
  auto answer = (*jit)->lookup("jeet_test_answer");
  ASSERT_TRUE(bool(answer)) << llvm::toString(answer.takeError());
  EXPECT_EQ(answer->toPtr<int (*)(int)>()(20), 41);
  // A second JIT of the same process (the settings they share are made
  // once) links the same object again.
  auto again = jeet::detail::linkCachedObjects({object}, {}, hostSymbols());
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  auto second = (*again)->lookup("jeet_test_answer");
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(second->toPtr<int (*)(int)>()(-3), -5);
}

TEST(LinkObjectsTest, RefusesAnObjectWithInitializers) {
  std::string object = buildObject(/*withConstructor=*/true);
  auto jit = jeet::detail::linkCachedObjects({object}, {}, hostSymbols());
  ASSERT_FALSE(bool(jit));
  std::string message = llvm::toString(jit.takeError());
  EXPECT_NE(message.find("initializers or finalizers"), std::string::npos)
      << message;
  EXPECT_NE(message.find(".init_array"), std::string::npos) << message;
}

TEST(LinkObjectsTest, RefusesBytesThatAreNotAnObject) {
  auto jit = jeet::detail::linkCachedObjects({std::string("not an object")}, {},
                                             hostSymbols());
  ASSERT_FALSE(bool(jit));
  EXPECT_FALSE(llvm::toString(jit.takeError()).empty());
}

} // namespace
