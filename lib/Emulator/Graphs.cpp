//===- Graphs.cpp - CUDA graphs of kernel launches ------------------------===//
//
// Part of the Jeet project.
//
// The driver's explicit graph API, for graphs of kernel nodes: a graph is a
// list of launches, each prepared (validated, parameters copied) when its
// node is added or its parameters set, exactly as cuLaunchKernel prepares
// one. cuGraphLaunch really replays it: every node's launch is queued on the
// stream, in an order that respects the nodes' dependencies, and runs when
// the stream does. A node's parameters changed with
// cuGraphExecKernelNodeSetParams apply to the launches of the graph after the
// change, as on a GPU.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"
#include "Streams.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

using namespace jeet::emulator;

namespace {
/// CUDA_KERNEL_NODE_PARAMS_v2 of cuda.h.
struct KernelNodeParams {
  Kernel *func;
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern;
  void *ctx;
};

struct GraphNode {
  std::shared_ptr<LaunchJob> launch;
  std::vector<GraphNode *> dependencies;
};

struct Graph {
  /// In the order added: dependencies can only name earlier nodes, so this
  /// order respects them.
  std::vector<std::unique_ptr<GraphNode>> nodes;
};

struct GraphExec {
  /// The nodes of the graph when it was instantiated, with the launches they
  /// make now (their own copies: changes to the graph do not reach them).
  std::vector<GraphNode *> nodes;
  std::map<GraphNode *, std::shared_ptr<LaunchJob>> launches;
};

std::map<Graph *, std::unique_ptr<Graph>> &graphs() {
  static auto *instance = new std::map<Graph *, std::unique_ptr<Graph>>();
  return *instance;
}

std::map<GraphExec *, std::unique_ptr<GraphExec>> &execs() {
  static auto *instance =
      new std::map<GraphExec *, std::unique_ptr<GraphExec>>();
  return *instance;
}

CUresult prepareNode(const char *call, const KernelNodeParams *params,
                     std::shared_ptr<LaunchJob> &job) {
  if (!params)
    return fail(kInvalidValue, std::string(call) + ": no node parameters");
  if (!params->func)
    return fail(kNotSupported, std::string(call) +
                                   ": nodes of CUkernel (library) handles are "
                                   "not emulated; pass a CUfunction");
  const unsigned grid[3] = {params->gridDimX, params->gridDimY,
                            params->gridDimZ};
  const unsigned block[3] = {params->blockDimX, params->blockDimY,
                             params->blockDimZ};
  return prepareLaunch(call, params->func, grid, block, params->sharedMemBytes,
                       params->kernelParams, params->extra, job);
}
} // namespace

JEET_EMU_EXPORT CUresult cuGraphCreate(Graph **graph, unsigned flags) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  if (!graph)
    return fail(kInvalidValue, "cuGraphCreate: null output");
  if (flags)
    return fail(kInvalidValue, "cuGraphCreate: flags must be 0");
  auto created = std::make_unique<Graph>();
  *graph = created.get();
  graphs()[created.get()] = std::move(created);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuGraphDestroy(Graph *graph) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  // Instantiated graphs keep what they need: their launches are copies, and
  // the node pointers they hold only identify nodes.
  if (!graphs().erase(graph))
    return fail(kInvalidHandle, "cuGraphDestroy of an unknown graph");
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuGraphAddKernelNode_v2(
    GraphNode **node, Graph *graph, GraphNode *const *dependencies,
    size_t numDependencies, const KernelNodeParams *params) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  auto it = graphs().find(graph);
  if (it == graphs().end())
    return fail(kInvalidHandle, "cuGraphAddKernelNode of an unknown graph");
  if (!node || (numDependencies && !dependencies))
    return fail(kInvalidValue, "cuGraphAddKernelNode: null pointer");
  auto added = std::make_unique<GraphNode>();
  if (CUresult result =
          prepareNode("cuGraphAddKernelNode", params, added->launch))
    return result;
  for (size_t i = 0; i < numDependencies; ++i) {
    bool known = std::any_of(it->second->nodes.begin(), it->second->nodes.end(),
                             [&](const std::unique_ptr<GraphNode> &n) {
                               return n.get() == dependencies[i];
                             });
    if (!known)
      return fail(kInvalidValue, "cuGraphAddKernelNode: dependency " +
                                     std::to_string(i) +
                                     " is not a node of this graph");
    added->dependencies.push_back(dependencies[i]);
  }
  *node = added.get();
  it->second->nodes.push_back(std::move(added));
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuGraphInstantiateWithFlags(GraphExec **exec,
                                                     Graph *graph,
                                                     unsigned long long) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  auto it = graphs().find(graph);
  if (it == graphs().end())
    return fail(kInvalidHandle, "cuGraphInstantiate of an unknown graph");
  if (!exec)
    return fail(kInvalidValue, "cuGraphInstantiate: null output");
  auto created = std::make_unique<GraphExec>();
  for (const std::unique_ptr<GraphNode> &node : it->second->nodes) {
    created->nodes.push_back(node.get());
    created->launches[node.get()] = node->launch->copy();
  }
  *exec = created.get();
  execs()[created.get()] = std::move(created);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(
    GraphExec *exec, GraphNode *node, const KernelNodeParams *params) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  auto it = execs().find(exec);
  if (it == execs().end())
    return fail(kInvalidHandle,
                "cuGraphExecKernelNodeSetParams of an unknown graph exec");
  auto launch = it->second->launches.find(node);
  if (launch == it->second->launches.end())
    return fail(kInvalidValue, "cuGraphExecKernelNodeSetParams: the node is "
                               "not part of this graph exec");
  std::shared_ptr<LaunchJob> job;
  if (CUresult result =
          prepareNode("cuGraphExecKernelNodeSetParams", params, job))
    return result;
  // As the driver: an instantiated node keeps its function.
  if (job->kernel != launch->second->kernel)
    return fail(kInvalidValue,
                "cuGraphExecKernelNodeSetParams: the node launches '" +
                    launch->second->kernel->name + "', not '" +
                    job->kernel->name + "'");
  launch->second = std::move(job);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuGraphLaunch(GraphExec *exec, void *handle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  auto it = execs().find(exec);
  if (it == execs().end())
    return fail(kInvalidHandle, "cuGraphLaunch of an unknown graph exec");
  Stream *stream = queues().stream(handle);
  if (!stream)
    return fail(kInvalidHandle, "cuGraphLaunch on an unknown stream");
  // Each node runs its launch as it is now; later parameter changes do not
  // reach this replay.
  for (GraphNode *node : it->second->nodes) {
    Operation operation{Operation::Kind::Launch};
    operation.launch = it->second->launches[node]->copy();
    queues().enqueue(*stream, std::move(operation));
  }
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuGraphExecDestroy(GraphExec *exec) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  if (!execs().erase(exec))
    return fail(kInvalidHandle, "cuGraphExecDestroy of an unknown graph exec");
  return kSuccess;
}
