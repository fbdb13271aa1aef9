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
  JEET_RETURN_IF_ERROR(
      driver_->check(driver_->cuGraphCreate(&graph->graph_, 0), "cuGraphCreate"));
  return graph;
}

CudaGraph::~CudaGraph() {
  const CudaDriver &driver = device_.driver();
  if (!device_.activate().ok())
    return;
  if (exec_)
    driver.cuGraphExecDestroy(exec_);
  if (graph_)
    driver.cuGraphDestroy(graph_);
}

Status CudaGraph::addKernel(const CudaKernel &kernel, Dim3 grid, Dim3 block,
                            unsigned sharedMemBytes, void **params) {
  if (exec_)
    return internalError("CudaGraph::addKernel after instantiate");
  CUDA_KERNEL_NODE_PARAMS node =
      nodeParams(kernel, grid, block, sharedMemBytes, params);
  CUgraphNode handle = nullptr;
  const CUgraphNode *previous = nodes_.empty() ? nullptr : &nodes_.back().node;
  const CudaDriver &driver = device_.driver();
  JEET_RETURN_IF_ERROR(driver.check(
      driver.cuGraphAddKernelNode_v2(&handle, graph_, previous,
                                     previous ? 1 : 0, &node),
      "cuGraphAddKernelNode_v2", describe(kernel)));
  nodes_.push_back({handle, &kernel, grid, block, sharedMemBytes});
  return Status();
}

Status CudaGraph::instantiate() {
  const CudaDriver &driver = device_.driver();
  JEET_RETURN_IF_ERROR(device_.activate());
  return driver.check(driver.cuGraphInstantiateWithFlags(&exec_, graph_, 0),
                      "cuGraphInstantiateWithFlags",
                      "(a graph of " + std::to_string(nodes_.size()) +
                          " kernels)");
}

Status CudaGraph::setKernelParams(size_t index, const CudaKernel &kernel,
                                  Dim3 grid, Dim3 block,
                                  unsigned sharedMemBytes, void **params) {
  if (!exec_)
    return internalError("CudaGraph::setKernelParams before instantiate");
  if (index >= nodes_.size() || nodes_[index].kernel != &kernel ||
      !(nodes_[index].grid == grid) || !(nodes_[index].block == block) ||
      nodes_[index].sharedMemBytes != sharedMemBytes)
    return internalError("launch #" + std::to_string(index) + " of kernel '" +
                         kernel.name +
                         "' does not match the graph built before (the "
                         "host code launched differently)");
  CUDA_KERNEL_NODE_PARAMS node =
      nodeParams(kernel, grid, block, sharedMemBytes, params);
  const CudaDriver &driver = device_.driver();
  return driver.check(driver.cuGraphExecKernelNodeSetParams_v2(
                          exec_, nodes_[index].node, &node),
                      "cuGraphExecKernelNodeSetParams_v2", describe(kernel));
}

Status CudaGraph::launch(void *stream) {
  if (!exec_)
    return internalError("CudaGraph::launch before instantiate");
  const CudaDriver &driver = device_.driver();
  JEET_RETURN_IF_ERROR(device_.activate());
  JEET_RETURN_IF_ERROR(driver.check(
      driver.cuGraphLaunch(exec_, static_cast<CUstream>(stream)),
      "cuGraphLaunch",
      "(a graph of " + std::to_string(nodes_.size()) + " kernels)"));
  device_.recordGraphLaunch();
  return Status();
}
