//===- Execution.cpp - Run a compiled graph's entry point -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Runtime/Execution.h"

#include "jeet/Runtime/HostABI.h"

#include <algorithm>

using namespace jeet::runtime;

//===----------------------------------------------------------------------===//
// Launch interception
//===----------------------------------------------------------------------===//

namespace {
thread_local LaunchInterceptor *interceptor = nullptr;

/// Arenas an entry keeps for reuse; an execution finding all of them busy
/// (more threads or streams at once) uses one of its own for that run.
constexpr size_t kMaxArenas = 4;

/// Instances of an entry's CUDA graph kept at once, each for the buffers of
/// its last execution: Python's `y = f(x)` in a loop alternates between two
/// output buffers (the old result is alive while the new one is made), and
/// two instances replay it with no parameter update at all.
constexpr size_t kMaxGraphInstances = 4;

/// Descriptor fields of a memref argument of rank 4 (pointers, offset,
/// sizes, strides): enough room for most graphs' arguments at once.
constexpr size_t kDescriptorFieldsPerArgument = 3 + 2 * 4;
} // namespace

LaunchInterceptor::~LaunchInterceptor() = default;

LaunchInterceptor *jeet::runtime::currentLaunchInterceptor() {
  return interceptor;
}

ScopedLaunchInterceptor::ScopedLaunchInterceptor(LaunchInterceptor &installed)
    : previous_(interceptor) {
  interceptor = &installed;
}

ScopedLaunchInterceptor::~ScopedLaunchInterceptor() { interceptor = previous_; }

std::string EntryInfo::makeLabel(const std::string &entry,
                                 const std::vector<TensorType> &inputs,
                                 const std::vector<TensorType> &outputs) {
  auto join = [](const std::vector<TensorType> &types) {
    std::string text;
    for (const TensorType &type : types)
      text += (text.empty() ? "" : ", ") + type.str();
    return text;
  };
  std::string label = "'" + entry + "(" + join(inputs) + ") -> ";
  return label +
         (outputs.size() == 1 ? join(outputs) : "(" + join(outputs) + ")") +
         "'";
}

//===----------------------------------------------------------------------===//
// Arenas
//===----------------------------------------------------------------------===//

struct CompiledEntry::Arenas {
  struct Arena {
    std::shared_ptr<Buffer> buffer;
    /// The stream of its last use: reused on that stream only, where the
    /// work of the next execution is ordered after the last one's.
    void *stream = nullptr;
    bool busy = false;
  };
  /// One execution's arena: a pool slot, or one of its own.
  struct Lease {
    int slot = -1;
    std::shared_ptr<Buffer> buffer;
    void *data() const { return buffer ? buffer->data() : nullptr; }
  };

  StatusOr<Lease> acquire(Device &device, uint64_t bytes, void *stream) {
    if (bytes == 0)
      return Lease();
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < pool.size(); ++i)
      if (!pool[i].busy && pool[i].stream == stream) {
        pool[i].busy = true;
        // Poisoned again, as a fresh block would be (Device::poison): a
        // kernel reading an intermediate before writing it would otherwise
        // read the last execution's, the right value when the inputs are
        // the same.
        device.poison(pool[i].buffer->data(), bytes, stream);
        return Lease{static_cast<int>(i), pool[i].buffer};
      }
    StatusOr<std::shared_ptr<Buffer>> buffer =
        Buffer::allocate(device, bytes, stream);
    if (!buffer.ok())
      return buffer.status().withContext("the arena of intermediates (" +
                                         std::to_string(bytes) + " bytes)");
    if (pool.size() >= kMaxArenas)
      return Lease{-1, std::move(*buffer)};
    pool.push_back({*buffer, stream, true});
    return Lease{static_cast<int>(pool.size() - 1), std::move(*buffer)};
  }

  void release(const Lease &lease, void *stream) {
    if (lease.slot < 0)
      return; // its own: freed on `stream`, reused after the work there
    std::lock_guard<std::mutex> lock(mutex);
    pool[lease.slot].busy = false;
    pool[lease.slot].stream = stream;
  }

  mutable std::mutex mutex;
  std::vector<Arena> pool;
};

//===----------------------------------------------------------------------===//
// Replay
//===----------------------------------------------------------------------===//

namespace {
/// Builds a CUDA graph from the launches of one run of the host code.
class GraphBuilder : public LaunchInterceptor {
public:
  explicit GraphBuilder(CudaGraph &graph) : graph_(graph) {}
  Status launch(const CudaKernel &kernel, Dim3 grid, Dim3 block,
                unsigned sharedMemBytes, void **params) override {
    Status status =
        graph_.addKernel(kernel, grid, block, sharedMemBytes, params);
    if (!status.ok() && error.ok())
      error = status;
    return status;
  }
  void unsupported(const char *call) override {
    if (unsupportedCall.empty())
      unsupportedCall = call;
  }
  Status error;
  std::string unsupportedCall;

private:
  CudaGraph &graph_;
};

/// Gives the kernels of an instantiated graph the parameters of one run of
/// the host code, launch by launch.
class GraphUpdater : public LaunchInterceptor {
public:
  explicit GraphUpdater(CudaGraphExec &graph) : graph_(graph) {}
  Status launch(const CudaKernel &kernel, Dim3 grid, Dim3 block,
                unsigned sharedMemBytes, void **params) override {
    Status status = graph_.setKernelParams(launches++, kernel, grid, block,
                                           sharedMemBytes, params);
    if (!status.ok() && error.ok())
      error = status;
    return status;
  }
  void unsupported(const char *call) override {
    if (error.ok())
      error = internalError(std::string("the host code called ") + call +
                            " when its CUDA graph was updated");
  }
  Status error;
  size_t launches = 0;

private:
  CudaGraphExec &graph_;
};
} // namespace

struct CompiledEntry::Replay {
  /// An instance of the graph and the buffers (inputs, outputs, arena) its
  /// kernels' parameters point to.
  struct Instance {
    std::vector<void *> binding;
    std::unique_ptr<CudaGraphExec> exec;
    uint64_t lastUse = 0;
  };

  mutable std::mutex mutex;
  bool on = false;
  std::string offReason;
  uint64_t executions = 0;
  std::unique_ptr<CudaGraph> graph;
  /// The buffers of the execution the graph was built from: what a new
  /// instance's parameters point to.
  std::vector<void *> graphBinding;
  std::vector<Instance> instances;
  ReplayStats stats;

  void turnOff(std::string reason) {
    on = false;
    offReason = std::move(reason);
    instances.clear();
    graph.reset();
  }
};

//===----------------------------------------------------------------------===//
// CompiledEntry
//===----------------------------------------------------------------------===//

CompiledEntry::CompiledEntry(EntryInfo info, PackedFunction function,
                             Device &device)
    : info_(std::move(info)), function_(function), device_(device),
      deviceLifetime_(device.lifetime()), deviceName_(device.name()),
      arenas_(std::make_unique<Arenas>()), replay_(std::make_unique<Replay>()) {
  Replay &replay = *replay_;
  if (device.kind() != DeviceKind::Cuda) {
    replay.offReason = "CUDA graphs are for GPU executions";
  } else if (!info_.takesStream) {
    replay.offReason = "the entry does not take a stream";
  } else if (!info_.cudaGraphs) {
    replay.offReason = "CUDA graphs are turned off";
  } else {
    replay.offReason =
        static_cast<CudaDevice &>(device).graphsUnsupportedReason();
    replay.on = replay.offReason.empty();
  }
}

CompiledEntry::~CompiledEntry() {
  // A closed device took its graphs with it: nothing to give back to it.
  if (deviceLifetime_.expired()) {
    for (Replay::Instance &instance : replay_->instances)
      (void)instance.exec.release();
    (void)replay_->graph.release();
  }
}

Status CompiledEntry::deviceOpen() const {
  if (!deviceLifetime_.expired())
    return Status();
  return invalidArgument(info_.label + " was loaded on " + deviceName_ +
                         ", which was closed (CUDA options were set again): "
                         "its kernels are gone; compile it again");
}

bool CompiledEntry::replaying() const {
  std::lock_guard<std::mutex> lock(replay_->mutex);
  return replay_->on;
}

std::string CompiledEntry::replayOffReason() const {
  std::lock_guard<std::mutex> lock(replay_->mutex);
  return replay_->offReason;
}

ReplayStats CompiledEntry::replayStats() const {
  std::lock_guard<std::mutex> lock(replay_->mutex);
  return replay_->stats;
}

size_t CompiledEntry::numArenas() const {
  std::lock_guard<std::mutex> lock(arenas_->mutex);
  return arenas_->pool.size();
}

/// Appends a memref descriptor for a C-contiguous buffer, as the lowered
/// entry takes it: allocated and aligned pointers, offset, sizes, strides.
static void appendDescriptor(std::vector<int64_t> &fields, const void *data,
                             const std::vector<int64_t> &shape) {
  auto ptr = reinterpret_cast<int64_t>(data);
  fields.push_back(ptr);
  fields.push_back(ptr);
  fields.push_back(0);
  for (int64_t d : shape)
    fields.push_back(d);
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  fields.insert(fields.end(), strides.begin(), strides.end());
}

Status CompiledEntry::execute(std::vector<void *> &args,
                              const std::vector<void *> &binding,
                              void *stream) const {
  Replay &replay = *replay_;
  auto direct = [&]() -> Status {
    function_(args.data());
    return takeLastError();
  };
  std::unique_lock<std::mutex> lock(replay.mutex);
  if (!replay.on || replay.executions++ == 0) {
    ++replay.stats.direct;
    lock.unlock();
    return direct();
  }
  // Something went wrong with the graph: executions launch their kernels
  // one by one from now on, and this one runs that way.
  auto fallBack = [&](const Status &why) -> Status {
    replay.turnOff(why.message());
    ++replay.stats.direct;
    return direct();
  };
  if (!replay.graph) {
    StatusOr<std::unique_ptr<CudaGraph>> graph =
        static_cast<CudaDevice &>(device_).createGraph();
    if (!graph.ok())
      return fallBack(graph.status());
    GraphBuilder builder(**graph);
    {
      ScopedLaunchInterceptor intercept(builder);
      function_(args.data());
    }
    JEET_RETURN_IF_ERROR(takeLastError());
    if (!builder.error.ok())
      return fallBack(builder.error);
    if (!builder.unsupportedCall.empty())
      return fallBack(invalidArgument("its host code calls " +
                                      builder.unsupportedCall +
                                      ", and a CUDA graph holds kernels only"));
    replay.graph = std::move(*graph);
    replay.graphBinding = binding;
    ++replay.stats.captures;
  }
  // The instance made for these buffers, else a new one while there is
  // room, else the least recently used, updated.
  Replay::Instance *instance = nullptr;
  for (Replay::Instance &candidate : replay.instances)
    if (candidate.binding == binding)
      instance = &candidate;
  if (!instance) {
    if (replay.instances.size() < kMaxGraphInstances) {
      StatusOr<std::unique_ptr<CudaGraphExec>> exec =
          replay.graph->instantiate();
      if (!exec.ok())
        return fallBack(exec.status());
      ++replay.stats.instances;
      replay.instances.push_back({replay.graphBinding, std::move(*exec), 0});
      instance = &replay.instances.back();
    } else {
      instance = &*std::min_element(
          replay.instances.begin(), replay.instances.end(),
          [](const Replay::Instance &a, const Replay::Instance &b) {
            return a.lastUse < b.lastUse;
          });
    }
  }
  if (instance->binding != binding) {
    GraphUpdater updater(*instance->exec);
    {
      ScopedLaunchInterceptor intercept(updater);
      function_(args.data());
    }
    JEET_RETURN_IF_ERROR(takeLastError());
    Status updated = updater.error;
    if (updated.ok() && updater.launches != instance->exec->numKernels())
      updated = internalError("the host code launched " +
                              std::to_string(updater.launches) +
                              " kernels, its CUDA graph holds " +
                              std::to_string(instance->exec->numKernels()));
    if (!updated.ok())
      return fallBack(updated);
    instance->binding = binding;
    ++replay.stats.updates;
  }
  instance->lastUse = replay.executions;
  ++replay.stats.replays;
  return instance->exec->launch(stream);
}

StatusOr<uint64_t> CompiledEntry::queue(const std::vector<const void *> &inputs,
                                        const std::vector<void *> &outputs,
                                        void *stream) const {
  JEET_RETURN_IF_ERROR(deviceOpen());
  if (inputs.size() != info_.inputs.size() ||
      outputs.size() != info_.outputs.size())
    return invalidArgument(
        info_.label + " takes " + std::to_string(info_.inputs.size()) +
        " inputs and " + std::to_string(info_.outputs.size()) +
        " outputs, given " + std::to_string(inputs.size()) + " and " +
        std::to_string(outputs.size()));
  StatusOr<Arenas::Lease> arena =
      arenas_->acquire(device_, info_.arenaBytes, stream);
  if (!arena.ok())
    return arena.status();

  std::vector<int64_t> fields;
  std::vector<void *> binding;
  fields.reserve(
      kDescriptorFieldsPerArgument * (inputs.size() + outputs.size() + 1) + 1);
  binding.reserve(inputs.size() + outputs.size() + 1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    appendDescriptor(fields, inputs[i], info_.inputs[i].shape);
    binding.push_back(const_cast<void *>(inputs[i]));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    appendDescriptor(fields, outputs[i], info_.outputs[i].shape);
    binding.push_back(outputs[i]);
  }
  appendDescriptor(fields, arena->data(),
                   {static_cast<int64_t>(info_.arenaBytes)});
  binding.push_back(arena->data());
  if (info_.takesStream)
    fields.push_back(reinterpret_cast<int64_t>(stream));
  std::vector<void *> args;
  args.reserve(fields.size());
  for (int64_t &field : fields)
    args.push_back(&field);

  // Work on the device's stream (uploads, earlier executions) that produced
  // the inputs comes first on the caller's stream.
  if (stream && stream != device_.defaultStream())
    JEET_RETURN_IF_ERROR(static_cast<CudaDevice &>(device_).orderStreams(
        device_.defaultStream(), stream));

  Device *previous = &currentDevice();
  setCurrentDevice(&device_);
  takeLastError().ignore();
  Status status = execute(args, binding, stream);
  setCurrentDevice(previous == &getHostDevice() ? nullptr : previous);
  arenas_->release(*arena, stream);
  JEET_RETURN_IF_ERROR(status.withContext(info_.label));
  if (device_.kind() != DeviceKind::Cuda)
    return uint64_t(0);
  return static_cast<CudaDevice &>(device_).noteSubmission(stream, info_.label);
}

void *CompiledEntry::streamFor(const ExecutionOptions &options) const {
  if (device_.kind() != DeviceKind::Cuda)
    return nullptr;
  return options.stream ? options.stream : device_.defaultStream();
}

Status CompiledEntry::waitIfAsked(const ExecutionOptions &options,
                                  void *stream) const {
  if (!options.wait || device_.kind() != DeviceKind::Cuda)
    return Status();
  return static_cast<CudaDevice &>(device_).synchronizeStream(stream);
}

Status CompiledEntry::runPointers(const std::vector<const void *> &inputs,
                                  const std::vector<void *> &outputs,
                                  const ExecutionOptions &options) const {
  void *stream = streamFor(options);
  StatusOr<uint64_t> ticket = queue(inputs, outputs, stream);
  if (!ticket.ok())
    return ticket.status();
  return waitIfAsked(options, stream);
}

Status CompiledEntry::run(const std::vector<Tensor> &inputs,
                          const std::vector<Tensor> &outputs,
                          const ExecutionOptions &options) const {
  std::vector<const Tensor *> in, out;
  for (const Tensor &t : inputs)
    in.push_back(&t);
  for (const Tensor &t : outputs)
    out.push_back(&t);
  return run(in.data(), in.size(), out.data(), out.size(), options);
}

Status CompiledEntry::run(const Tensor *const *inputs, size_t numInputs,
                          const Tensor *const *outputs, size_t numOutputs,
                          const ExecutionOptions &options) const {
  JEET_RETURN_IF_ERROR(deviceOpen());
  // The messages are made only for an argument that is wrong: this runs on
  // every execution.
  auto check = [&](const Tensor *const *tensors, size_t count,
                   const std::vector<TensorType> &types,
                   const char *what) -> Status {
    if (count != types.size())
      return invalidArgument(info_.label + " takes " +
                             std::to_string(types.size()) + " " + what +
                             "s, given " + std::to_string(count));
    for (size_t i = 0; i < count; ++i) {
      const Tensor &t = *tensors[i];
      auto which = [&] {
        return std::string(what) + " #" + std::to_string(i) + " of " +
               info_.label;
      };
      if (!t.defined())
        return invalidArgument(which() + " is undefined");
      if (t.dtype() != types[i].dtype || t.shape() != types[i].shape)
        return invalidArgument(which() + " expects " + types[i].str() +
                               ", given " + t.typeString());
      const Buffer &buffer = *t.buffer();
      if (!buffer.deviceAlive() || &buffer.device() != &device_)
        return invalidArgument(which() + " is on " + buffer.deviceName() +
                               (buffer.deviceAlive() ? "" : " (closed)") +
                               ", the graph runs on " + device_.name() +
                               " (move it with to())");
      if (Status readable = buffer.readable(); !readable.ok())
        return Status(readable.code(), which() + ": " + readable.message());
    }
    return Status();
  };
  JEET_RETURN_IF_ERROR(check(inputs, numInputs, info_.inputs, "input"));
  JEET_RETURN_IF_ERROR(check(outputs, numOutputs, info_.outputs, "output"));
  std::vector<const void *> inputData(numInputs);
  for (size_t i = 0; i < numInputs; ++i)
    inputData[i] = inputs[i]->data();
  std::vector<void *> outputData(numOutputs);
  for (size_t i = 0; i < numOutputs; ++i)
    outputData[i] = outputs[i]->data();
  void *stream = streamFor(options);
  StatusOr<uint64_t> ticket = queue(inputData, outputData, stream);
  if (!ticket.ok())
    return ticket.status();
  if (*ticket)
    for (size_t i = 0; i < numOutputs; ++i)
      outputs[i]->buffer()->markWritten(stream, *ticket);
  // Tensors allocated for another stream: freed, their memory waits for
  // this execution.
  auto markUsed = [&](const Tensor *const *tensors, size_t count) {
    for (size_t i = 0; i < count; ++i)
      JEET_RETURN_IF_ERROR(tensors[i]->buffer()->markUsedOn(stream));
    return Status();
  };
  JEET_RETURN_IF_ERROR(markUsed(inputs, numInputs).withContext(info_.label));
  JEET_RETURN_IF_ERROR(markUsed(outputs, numOutputs).withContext(info_.label));
  return waitIfAsked(options, stream);
}
