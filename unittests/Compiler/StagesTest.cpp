//===- StagesTest.cpp - A compilation's stages through the C++ API --------===//
//
// Part of the Jeet project.
//
// The stages an Executable reports and keeps are its device's pipeline's
// (jeet/Pipelines): the registered pipeline and the stage-by-stage run give
// the same IR, JEET_DUMP_DIR dumps a Compiler::compile as it does a tool, and
// a stage that leaves the module invalid fails with the verifier's message.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"
#include "jeet/InitAllJeet.h"
#include "jeet/Pipelines/PipelineRunner.h"
#include "jeet/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace jeet;

namespace {

// relu(x @ w) summed over rows: two kernels.
const char *kGraph = R"mlir(
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8xf32> {
  %0 = jeet.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = jeet.relu %0 : tensor<8x4xf32>
  %2 = jeet.reduce_sum %1 {axes = array<i64: 1>, keepdims = false} : tensor<8x4xf32> -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
)mlir";

std::shared_ptr<Executable> compileOrFail(Compiler &compiler,
                                          const CompileOptions &options) {
  auto compiled = compiler.compile(kGraph, "stages.mlir", options);
  if (!compiled) {
    ADD_FAILURE() << llvm::toString(compiled.takeError());
    return nullptr;
  }
  return *compiled;
}

TEST(Stages, AnExecutableKeepsTheStagesOfItsDevicesPipeline) {
  Compiler compiler;
  CompileOptions options;
  options.keepIR = true;
  for (const char *device : {"cpu", "gpu"}) {
    options.device = device;
    std::shared_ptr<Executable> exe = compileOrFail(compiler, options);
    ASSERT_TRUE(exe);
    std::vector<std::string> expected =
        options.device == "cpu"
            ? getJeetCpuPipeline(CpuPipelineOptions()).stageNames()
            : getJeetGpuPipeline(GpuPipelineOptions()).stageNames();
    EXPECT_EQ(exe->stageNames(), expected) << device;
    for (const std::string &stage : exe->stageNames())
      EXPECT_FALSE(exe->ir(stage).empty()) << device << " " << stage;
    EXPECT_TRUE(exe->ir("no-such-stage").empty());
  }
}

TEST(Stages, TheStagesAreTheNamedPipelines) {
  EXPECT_EQ(getJeetCpuPipeline(CpuPipelineOptions()).stageNames(),
            (std::vector<std::string>{"jeet", "fused", "linalg", "bufferized",
                                      "llvm"}));
  EXPECT_EQ(
      getJeetGpuPipeline(GpuPipelineOptions()).stageNames(),
      (std::vector<std::string>{"jeet", "fused", "kernels", "llvm", "ptx"}));

  // jeet-cpu-pipeline in one pass manager gives the IR of the last stage of
  // a stage-by-stage compilation.
  Compiler compiler;
  CompileOptions options;
  options.keepIR = true;
  std::shared_ptr<Executable> exe = compileOrFail(compiler, options);
  ASSERT_TRUE(exe);

  mlir::DialectRegistry registry;
  registerAllJeetDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kGraph, &context);
  ASSERT_TRUE(module);
  CpuPipelineOptions cpuOptions;
  cpuOptions.runtimeAllocator = true; // as the compiler sets it
  mlir::PassManager pm = mlir::PassManager::on<mlir::ModuleOp>(&context);
  buildJeetCpuPipeline(pm, cpuOptions);
  ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_EQ(text, exe->ir("llvm"));
}

TEST(Stages, DumpDirDumpsACompilationOfTheCppAPI) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("jeet-stages", dir));
  ::setenv("JEET_DUMP_DIR", dir.c_str(), /*overwrite=*/1);
  Compiler compiler;
  std::shared_ptr<Executable> exe = compileOrFail(compiler, CompileOptions());
  ::unsetenv("JEET_DUMP_DIR");
  ASSERT_TRUE(exe);

  std::error_code ec;
  llvm::sys::fs::directory_iterator folder(dir, ec), end;
  ASSERT_FALSE(ec);
  ASSERT_NE(folder, end);
  EXPECT_TRUE(llvm::StringRef(llvm::sys::path::filename(folder->path()))
                  .starts_with("main-cpu-"));
  for (auto [index, stage] : llvm::enumerate(exe->stageNames())) {
    llvm::SmallString<128> path(folder->path());
    llvm::sys::path::append(path,
                            llvm::formatv("{0:d2}-{1}.mlir", index, stage));
    auto file = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(static_cast<bool>(file)) << path.str().str();
    EXPECT_FALSE((*file)->getBuffer().empty()) << path.str().str();
    if (stage == "fused") {
      EXPECT_TRUE((*file)->getBuffer().contains("jeet.fusion"));
    }
  }
  llvm::sys::fs::remove_directories(dir);
}

/// Leaves the module invalid: @main's type loses its results while its
/// return still returns a value (what a faulty pass could do).
struct DropResultTypesPass
    : mlir::PassWrapper<DropResultTypesPass,
                        mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropResultTypesPass)
  void runOnOperation() override {
    for (auto function : getOperation().getOps<mlir::func::FuncOp>())
      function.setType(mlir::FunctionType::get(
          &getContext(), function.getArgumentTypes(), {}));
  }
};

TEST(Stages, AStageThatLeavesInvalidIRFailsWithTheVerifiersMessage) {
  // The pass manager does not verify after each pass; the runner verifies
  // after each stage.
  mlir::DialectRegistry registry;
  registerAllJeetDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kGraph, &context);
  ASSERT_TRUE(module);
  StagedPipeline pipeline;
  pipeline.description = "broken";
  pipeline.stages = {{"broken",
                      [](mlir::OpPassManager &pm) {
                        pm.addPass(std::make_unique<DropResultTypesPass>());
                      }},
                     {"after", [](mlir::OpPassManager &) {}}};
  std::string messages;
  mlir::ScopedDiagnosticHandler handler(&context,
                                        [&](mlir::Diagnostic &diagnostic) {
                                          messages += diagnostic.str() + "\n";
                                          return mlir::success();
                                        });
  PipelineRunner runner(pipeline, "main-cpu", /*keepIR=*/false);
  EXPECT_TRUE(mlir::failed(runner.run(*module)));
  EXPECT_EQ(runner.failedStage(), "broken");
  EXPECT_NE(messages.find("enclosing function (@main) returns 0"),
            std::string::npos)
      << messages;
}

} // namespace
