//===- CudaGraph.cpp - CUDA graphs of kernel launches ---------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Runtime/CudaDevice.h"

using namespace jeet::runtime;
using namespace jeet::runtime::cu;

namespace {
CUDA_KERNEL_NODE_PARAMS nodeParams(const CudaKernel &kernel, Dim3 grid,
                                   Dim3 block, unsigned sharedMemBytes,
                                   void **params) {
  CUDA_KERNEL_NODE_PARAMS node{};
  node.func = kernel.function;
  node.gridDimX = grid.x;
  node.gridDimY = grid.y;
  node.gridDimZ = grid.z;
  node.blockDimX = block.x;
  node.blockDimY = block.y;
  node.blockDimZ = block.z;
  node.sharedMemBytes = sharedMemBytes;
  node.kernelParams = params;
  return node;
}

/// The bytes of a launch's parameters, when their sizes are known (else
/// empty).
std::vector<char> snapshot(const CudaKernel &kernel, void **params) {
  std::vector<char> bytes;
  for (size_t i = 0; i < kernel.paramSizes.size(); ++i) {
    const char *value = static_cast<const char *>(params[i]);
    bytes.insert(bytes.end(), value, value + kernel.paramSizes[i]);
  }
  return bytes;
}

std::string describe(const CudaKernel &kernel) {
  return "for kernel '" + kernel.name + "' in module '" +
         (kernel.module ? kernel.module->name() : std::string("?")) + "'";
}
} // namespace

std::string CudaDevice::graphsUnsupportedReason() const {
  if (driver_->supportsGraphs())
    return std::string();
  return "the CUDA driver " + driver_->path + " lacks " +
         driver_->graphsMissing + " (CUDA graphs)";
}

StatusOr<std::unique_ptr<CudaGraph>> CudaDevice::createGraph() {
  std::string unsupported = graphsUnsupportedReason();
  if (!unsupported.empty())
    return invalidArgument(unsupported);
  JEET_RETURN_IF_ERROR(activate());
  std::unique_ptr<CudaGraph> graph(new CudaGraph(*this));
  JEET_RETURN_IF_ERROR(driver_->check(driver_->cuGraphCreate(&graph->graph_, 0),
                                      "cuGraphCreate"));
  return graph;
}

CudaGraph::~CudaGraph() {
  if (graph_ && device_.activate().ok())
    device_.driver().cuGraphDestroy(graph_);
}

Status CudaGraph::addKernel(const CudaKernel &kernel, Dim3 grid, Dim3 block,
                            unsigned sharedMemBytes, void **params) {
  CUDA_KERNEL_NODE_PARAMS node =
      nodeParams(kernel, grid, block, sharedMemBytes, params);
  CUgraphNode handle = nullptr;
  const CUgraphNode *previous = nodes_.empty() ? nullptr : &nodes_.back().node;
  const CudaDriver &driver = device_.driver();
  JEET_RETURN_IF_ERROR(
      driver.check(driver.cuGraphAddKernelNode_v2(&handle, graph_, previous,
                                                  previous ? 1 : 0, &node),
                   "cuGraphAddKernelNode_v2", describe(kernel)));
  nodes_.push_back(
      {handle, &kernel, grid, block, sharedMemBytes, snapshot(kernel, params)});
  return Status();
}

StatusOr<std::unique_ptr<CudaGraphExec>> CudaGraph::instantiate() {
  const CudaDriver &driver = device_.driver();
  JEET_RETURN_IF_ERROR(device_.activate());
  std::unique_ptr<CudaGraphExec> exec(new CudaGraphExec(device_, nodes_));
  JEET_RETURN_IF_ERROR(driver.check(
      driver.cuGraphInstantiateWithFlags(&exec->exec_, graph_, 0),
      "cuGraphInstantiateWithFlags",
      "(a graph of " + std::to_string(nodes_.size()) + " kernels)"));
  return exec;
}

CudaGraphExec::~CudaGraphExec() {
  if (exec_ && device_.activate().ok())
    device_.driver().cuGraphExecDestroy(exec_);
}

Status CudaGraphExec::setKernelParams(size_t index, const CudaKernel &kernel,
                                      Dim3 grid, Dim3 block,
                                      unsigned sharedMemBytes, void **params) {
  if (index >= nodes_.size() || nodes_[index].kernel != &kernel ||
      !(nodes_[index].grid == grid) || !(nodes_[index].block == block) ||
      nodes_[index].sharedMemBytes != sharedMemBytes)
    return internalError("launch #" + std::to_string(index) + " of kernel '" +
                         kernel.name +
                         "' does not match the graph built before (the "
                         "host code launched differently)");
  std::vector<char> bytes = snapshot(kernel, params);
  if (!kernel.paramSizes.empty() && bytes == nodes_[index].params)
    return Status();
  CUDA_KERNEL_NODE_PARAMS node =
      nodeParams(kernel, grid, block, sharedMemBytes, params);
  const CudaDriver &driver = device_.driver();
  JEET_RETURN_IF_ERROR(driver.check(driver.cuGraphExecKernelNodeSetParams_v2(
                                        exec_, nodes_[index].node, &node),
                                    "cuGraphExecKernelNodeSetParams_v2",
                                    describe(kernel)));
  ++paramUpdates_;
  nodes_[index].params = std::move(bytes);
  return Status();
}

Status CudaGraphExec::launch(void *stream) {
  const CudaDriver &driver = device_.driver();
  JEET_RETURN_IF_ERROR(device_.activate());
  JEET_RETURN_IF_ERROR(driver.check(
      driver.cuGraphLaunch(exec_, static_cast<CUstream>(stream)),
      "cuGraphLaunch",
      "(a graph of " + std::to_string(nodes_.size()) + " kernels)"));
  device_.recordGraphLaunch();
  return Status();
}
