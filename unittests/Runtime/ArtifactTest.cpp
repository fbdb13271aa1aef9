//===- ArtifactTest.cpp - Artifact signatures and loader errors -----------===//

#include "jeet/Runtime/Artifact.h"
#include "jeet/Runtime/HostABI.h"

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace jeet::runtime;

namespace {
std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "jeet_artifact_" + std::to_string(getpid()) +
         "_" + name;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The path of libjeet_runtime.so: a real shared object that is not an
/// artifact.
std::string runtimeLibraryPath() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc), &info) ||
      !info.dli_fname)
    return "";
  return info.dli_fname;
}
} // namespace

TEST(ArtifactSignature, RoundTrips) {
  const std::string text = "v2 entry=main device=cpu inputs=2x3xf32,3xf32 "
                           "outputs=2x3xf32 kernels=1 arena=4096";
  StatusOr<ArtifactSignature> sig = ArtifactSignature::parse(text);
  ASSERT_TRUE(sig.ok()) << sig.status().toString();
  EXPECT_EQ(sig->version, 2);
  EXPECT_EQ(sig->arenaBytes, 4096u);
  EXPECT_EQ(sig->entry, "main");
  EXPECT_EQ(sig->device, "cpu");
  ASSERT_EQ(sig->inputs.size(), 2u);
  EXPECT_EQ(sig->inputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(sig->inputs[1].str(), "3xf32");
  EXPECT_EQ(sig->inputs[0].byteSize(), 24u);
  ASSERT_EQ(sig->outputs.size(), 1u);
  EXPECT_EQ(sig->kernels, 1);
  EXPECT_EQ(sig->str(), text);
}

TEST(ArtifactSignature, ScalarsNoInputsAndUnknownFields) {
  StatusOr<ArtifactSignature> sig = ArtifactSignature::parse(
      "v2 entry=f device=gpu inputs= outputs=f32,4xf16 kernels=0 future=x");
  ASSERT_TRUE(sig.ok()) << sig.status().toString();
  EXPECT_TRUE(sig->inputs.empty());
  ASSERT_EQ(sig->outputs.size(), 2u);
  EXPECT_TRUE(sig->outputs[0].shape.empty());
  EXPECT_EQ(sig->outputs[0].str(), "f32");
  EXPECT_EQ(sig->outputs[1].dtype, DType::F16);
  EXPECT_EQ(sig->device, "gpu");
}

TEST(ArtifactSignature, GpuFields) {
  const std::string text = "v2 entry=main device=gpu inputs=4xf32 "
                           "outputs=4xf32 kernels=2 arena=0 chip=sm_90 ptx=80 "
                           "format=isa";
  StatusOr<ArtifactSignature> sig = ArtifactSignature::parse(text);
  ASSERT_TRUE(sig.ok()) << sig.status().toString();
  EXPECT_EQ(sig->chip, "sm_90");
  EXPECT_EQ(sig->ptxVersion, 80);
  EXPECT_EQ(sig->format, "isa");
  EXPECT_EQ(sig->str(), text);
  EXPECT_FALSE(ArtifactSignature::parse("v2 entry=main device=gpu inputs= "
                                        "outputs=f32 chip=gfx90a")
                   .ok());
}

TEST(ArtifactSignature, Errors) {
  auto message = [](const std::string &text) {
    StatusOr<ArtifactSignature> sig = ArtifactSignature::parse(text);
    EXPECT_FALSE(sig.ok()) << text;
    return sig.ok() ? std::string() : sig.status().message();
  };
  EXPECT_NE(message("v3 entry=main device=cpu inputs= outputs=f32")
                .find("artifact ABI version 3, this runtime loads version 2"),
            std::string::npos);
  EXPECT_NE(message("v1 entry=main device=cpu inputs= outputs=f32")
                .find("artifact ABI version 1, this runtime loads version 2"),
            std::string::npos);
  EXPECT_NE(message("v2 entry=main device=cpu inputs= outputs=f32 arena=-8")
                .find("bad arena size '-8'"),
            std::string::npos);
  EXPECT_NE(message("").find("version"), std::string::npos);
  EXPECT_NE(message("v2 entry=main device=tpu inputs= outputs=f32")
                .find("unknown device 'tpu'"),
            std::string::npos);
  EXPECT_NE(
      message("v2 entry=main device=cpu inputs=2xq8 outputs=f32").find("q8"),
      std::string::npos);
  EXPECT_NE(message("v2 entry=main device=cpu inputs=").find("outputs="),
            std::string::npos);
  EXPECT_NE(message("v2 entry=main device=cpu inputs= outputs=f32 kernels=-1")
                .find("kernel count"),
            std::string::npos);
}

TEST(ArtifactLoad, MissingFile) {
  std::string path = tempPath("missing.so");
  StatusOr<std::unique_ptr<Artifact>> artifact = Artifact::load(path);
  ASSERT_FALSE(artifact.ok());
  EXPECT_EQ(artifact.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(artifact.status().message().find(path + ": cannot load"),
            std::string::npos);
}

TEST(ArtifactLoad, NotElf) {
  std::string path = tempPath("garbage.so");
  writeFile(path, "garbage\n");
  StatusOr<ArtifactSignature> sig = Artifact::readSignature(path);
  ASSERT_FALSE(sig.ok());
  EXPECT_NE(sig.status().message().find("not a shared object (no ELF header)"),
            std::string::npos)
      << sig.status().message();
  std::remove(path.c_str());
}

TEST(ArtifactLoad, TruncatedElfDoesNotCrash) {
  std::string library = runtimeLibraryPath();
  ASSERT_FALSE(library.empty());
  std::string bytes = readFile(library);
  ASSERT_GT(bytes.size(), 4096u);
  std::string path = tempPath("truncated.so");
  writeFile(path, bytes.substr(0, 4096));
  StatusOr<ArtifactSignature> sig = Artifact::readSignature(path);
  ASSERT_FALSE(sig.ok());
  EXPECT_NE(sig.status().message().find("truncated"), std::string::npos)
      << sig.status().message();
  std::remove(path.c_str());
}

TEST(ArtifactLoad, SharedObjectThatIsNotAnArtifact) {
  std::string library = runtimeLibraryPath();
  ASSERT_FALSE(library.empty());
  StatusOr<std::unique_ptr<Artifact>> artifact = Artifact::load(library);
  ASSERT_FALSE(artifact.ok());
  EXPECT_NE(artifact.status().message().find(
                "not a Jeet artifact (no jeet_artifact_signature symbol)"),
            std::string::npos)
      << artifact.status().message();
}
