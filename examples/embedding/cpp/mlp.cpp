// Jeet from C++: build a two-layer perceptron with jeet::Graph, compile it
// with jeet::Compiler, run it on host buffers, and check it against the same
// MLP computed here in double. Exits 0 when the largest error is within
// float32 rounding, 1 otherwise.

#include "jeet/Compiler/Compiler.h"
#include "jeet/Compiler/Graph.h"
#include "jeet/Version.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int64_t kBatch = 8, kIn = 16, kHidden = 32, kOut = 4;
constexpr double kTolerance = 1e-5;

/// The value of `expected`, or the error's message and exit(1).
template <typename T> T orExit(llvm::Expected<T> expected, const char *what) {
  if (!expected) {
    std::fprintf(stderr, "%s: %s\n", what,
                 llvm::toString(expected.takeError()).c_str());
    std::exit(1);
  }
  return std::move(*expected);
}

/// relu(x @ w1 + b1) @ w2 + b2, then a softmax over each row.
std::string buildMlp() {
  jeet::Graph graph;
  using Id = jeet::Graph::ValueId;
  Id x = orExit(graph.addInput({kBatch, kIn}, "f32"), "input x");
  Id w1 = orExit(graph.addInput({kIn, kHidden}, "f32"), "input w1");
  Id b1 = orExit(graph.addInput({kHidden}, "f32"), "input b1");
  Id w2 = orExit(graph.addInput({kHidden, kOut}, "f32"), "input w2");
  Id b2 = orExit(graph.addInput({kOut}, "f32"), "input b2");
  Id h = orExit(graph.addOp("matmul", {x, w1}), "matmul");
  h = orExit(graph.addOp("add", {h, b1}), "add");
  h = orExit(graph.addOp("relu", {h}), "relu");
  Id y = orExit(graph.addOp("matmul", {h, w2}), "matmul");
  y = orExit(graph.addOp("add", {y, b2}), "add");
  y = orExit(graph.addOp("softmax", {y}, {jeet::GraphAttr::i64("axis", 1)}),
             "softmax");
  if (llvm::Error error = graph.markOutput(y)) {
    std::fprintf(stderr, "output: %s\n",
                 llvm::toString(std::move(error)).c_str());
    std::exit(1);
  }
  return orExit(graph.print(), "print the graph");
}

/// The MLP in double.
std::vector<double> reference(const std::vector<std::vector<float>> &in) {
  const auto &x = in[0], &w1 = in[1], &b1 = in[2], &w2 = in[3], &b2 = in[4];
  std::vector<double> out(kBatch * kOut);
  for (int64_t r = 0; r < kBatch; ++r) {
    std::vector<double> hidden(kHidden), logits(kOut);
    for (int64_t j = 0; j < kHidden; ++j) {
      double sum = b1[j];
      for (int64_t i = 0; i < kIn; ++i)
        sum += double(x[r * kIn + i]) * w1[i * kHidden + j];
      hidden[j] = std::max(sum, 0.0);
    }
    for (int64_t o = 0; o < kOut; ++o) {
      logits[o] = b2[o];
      for (int64_t j = 0; j < kHidden; ++j)
        logits[o] += hidden[j] * w2[j * kOut + o];
    }
    double top = *std::max_element(logits.begin(), logits.end()), total = 0;
    for (double logit : logits)
      total += std::exp(logit - top);
    for (int64_t o = 0; o < kOut; ++o)
      out[r * kOut + o] = std::exp(logits[o] - top) / total;
  }
  return out;
}

} // namespace

int main() {
  jeet::Compiler compiler;
  jeet::CompileOptions options;
  options.device = "cpu";
  std::shared_ptr<jeet::Executable> mlp =
      orExit(compiler.compileCached(buildMlp(), options), "compile the MLP");

  // Seeded random inputs, one buffer per graph input.
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<std::vector<float>> inputs;
  std::vector<const void *> inputPtrs;
  for (const jeet::TensorSpec &spec : mlp->inputs()) {
    inputs.emplace_back(spec.numElements());
    for (float &value : inputs.back())
      value = dist(rng);
    inputPtrs.push_back(inputs.back().data());
  }
  std::vector<float> output(mlp->outputs()[0].numElements());
  std::vector<void *> outputPtrs = {output.data()};
  if (llvm::Error error = mlp->run(inputPtrs, outputPtrs)) {
    std::fprintf(stderr, "run: %s\n", llvm::toString(std::move(error)).c_str());
    return 1;
  }

  std::vector<double> expected = reference(inputs);
  double maxError = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    maxError = std::max(maxError, std::abs(output[i] - expected[i]));
  std::printf("Jeet %s, C++ API: MLP %lldx%lld -> %lld -> %lld in %lld "
              "kernel(s), max error vs double %.2e\n",
              JEET_VERSION_STRING, (long long)kBatch, (long long)kIn,
              (long long)kHidden, (long long)kOut, (long long)mlp->numKernels(),
              maxError);
  if (!(maxError <= kTolerance)) {
    std::fprintf(stderr, "FAIL: max error %.2e exceeds %.0e\n", maxError,
                 kTolerance);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
