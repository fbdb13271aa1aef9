//===- Streams.cpp - Streams, events and deferred work --------------------===//

#include "Streams.h"
#include "Launch.h"
#include "Memory.h"

#include "jeet/Emulator/Emulator.h"

#include <chrono>
#include <cstring>

using namespace jeet::emulator;

namespace {
// Stream handles with a meaning of their own (cuda.h).
const uintptr_t kLegacyStreamHandle = 0x1;
const uintptr_t kPerThreadStreamHandle = 0x2;
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;

double nowMilliseconds() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

Queues &jeet::emulator::queues() {
  static Queues *instance = new Queues();
  return *instance;
}

Queues::Queues() : legacy_(std::make_shared<Stream>()) {}

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

std::shared_ptr<Stream> Queues::sharedStream(void *handle) {
  uintptr_t value = reinterpret_cast<uintptr_t>(handle);
  if (!handle || value == kLegacyStreamHandle ||
      value == kPerThreadStreamHandle)
    return legacy_;
  auto it = streams_.find(static_cast<Stream *>(handle));
  return it == streams_.end() ? nullptr : it->second;
}

Stream *Queues::stream(void *handle) { return sharedStream(handle).get(); }

std::shared_ptr<Event> Queues::sharedEvent(void *handle) {
  auto it = events_.find(static_cast<Event *>(handle));
  return it == events_.end() ? nullptr : it->second;
}

Event *Queues::event(void *handle) { return sharedEvent(handle).get(); }

void *Queues::createStream(unsigned flags) {
  auto stream = std::make_shared<Stream>();
  stream->flags = flags;
  Stream *raw = stream.get();
  streams_[raw] = std::move(stream);
  return raw;
}

void Queues::destroyStream(Stream *stream) {
  // Work already queued completes, as on a GPU.
  flush(*stream);
  streams_.erase(stream);
}

void *Queues::createEvent(unsigned flags) {
  auto event = std::make_shared<Event>();
  event->flags = flags;
  Event *raw = event.get();
  events_[raw] = std::move(event);
  return raw;
}

void Queues::destroyEvent(Event *event) { events_.erase(event); }

//===----------------------------------------------------------------------===//
// Queueing and running
//===----------------------------------------------------------------------===//

void Queues::enqueue(Stream &stream, Operation operation) {
  operation.sequence = ++stream.enqueued;
  stream.queue.push_back(std::move(operation));
}

void Queues::record(Event &event, Stream &stream) {
  event.stream = sharedStream(&stream == legacy_.get() ? nullptr : &stream);
  event.recording = ++recordings_;
  event.recorded = true;
  event.done = false;
  Operation operation{Operation::Kind::Record};
  operation.event = sharedEvent(&event);
  operation.recording = event.recording;
  enqueue(stream, std::move(operation));
  event.sequence = stream.enqueued;
}

void Queues::flush(Stream &stream, uint64_t until) {
  while (stream.completed < until && !stream.queue.empty()) {
    // Taken off the queue first: a wait may flush other streams, which may
    // (re-entrantly) ask for this one up to an earlier point.
    Operation operation = std::move(stream.queue.front());
    stream.queue.pop_front();
    execute(stream, operation);
    stream.completed = operation.sequence;
  }
}

void Queues::flushAll() {
  flush(*legacy_);
  for (auto &entry : streams_)
    flush(*entry.second);
}

void Queues::flushForSynchronousCall() {
  flush(*legacy_);
  for (auto &entry : streams_)
    if (!(entry.second->flags & kStreamNonBlocking))
      flush(*entry.second);
}

CUresult Queues::synchronize(Stream &stream) {
  flush(stream);
  if (stream.error == kSuccess)
    return kSuccess;
  CUresult error = stream.error;
  std::string report = std::move(stream.report);
  stream.error = kSuccess;
  stream.report.clear();
  return fail(error, std::move(report));
}

CUresult Queues::synchronizeAll() {
  flushAll();
  CUresult first = synchronize(*legacy_);
  for (auto &entry : streams_) {
    CUresult result = synchronize(*entry.second);
    if (first == kSuccess)
      first = result;
  }
  return first;
}

void Queues::execute(Stream &stream, Operation &operation) {
  // After a fault, the stream's work is skipped until it is synchronised;
  // bookkeeping still happens.
  bool skip = stream.error != kSuccess;
  switch (operation.kind) {
  case Operation::Kind::Copy:
    if (!skip)
      std::memmove(reinterpret_cast<void *>(operation.dst),
                   operation.staged.empty()
                       ? reinterpret_cast<const void *>(operation.src)
                       : operation.staged.data(),
                   operation.bytes);
    break;
  case Operation::Kind::Memset32:
    if (!skip) {
      uint32_t *words = reinterpret_cast<uint32_t *>(operation.dst);
      for (size_t i = 0; i < operation.bytes / 4; ++i)
        words[i] = operation.value;
    }
    break;
  case Operation::Kind::Launch:
    if (!skip) {
      LaunchJob &job = *operation.launch;
      if (CUresult result = executeLaunch(job)) {
        stream.error = result;
        stream.report = job.report;
      }
    }
    break;
  case Operation::Kind::Record:
    if (operation.event->recording == operation.recording) {
      operation.event->done = true;
      operation.event->milliseconds = nowMilliseconds();
    }
    break;
  case Operation::Kind::Wait:
    flush(*operation.waitFor, operation.waitUntil);
    break;
  case Operation::Kind::Register:
    memory().registerRegion(operation.dst, operation.bytes,
                            currentChecks() & JEET_EMULATOR_CHECK_MEMORY);
    break;
  case Operation::Kind::Unregister:
    memory().unregisterRegion(operation.dst);
    break;
  }
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

JEET_EMU_EXPORT CUresult cuStreamCreate(void **stream, unsigned flags) {
  if (!initialized())
    return fail(kNotInitialized);
  if (!stream || (flags & ~kStreamNonBlocking))
    return fail(kInvalidValue);
  std::lock_guard<std::mutex> lock(deviceMutex());
  *stream = queues().createStream(flags);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuStreamDestroy_v2(void *handle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Stream *stream = handle ? queues().stream(handle) : nullptr;
  if (!stream)
    return fail(kInvalidHandle, "cuStreamDestroy of an unknown stream");
  queues().destroyStream(stream);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuStreamSynchronize(void *handle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Stream *stream = queues().stream(handle);
  if (!stream)
    return fail(kInvalidHandle, "cuStreamSynchronize of an unknown stream");
  if (stream == queues().stream(nullptr))
    queues().flushForSynchronousCall();
  return queues().synchronize(*stream);
}

/// Runs the stream's work (so that polling makes progress), then answers.
JEET_EMU_EXPORT CUresult cuStreamQuery(void *handle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Stream *stream = queues().stream(handle);
  if (!stream)
    return fail(kInvalidHandle, "cuStreamQuery of an unknown stream");
  queues().flush(*stream);
  if (stream->error)
    return fail(stream->error, stream->report);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuStreamWaitEvent(void *streamHandle,
                                           void *eventHandle, unsigned flags) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Stream *stream = queues().stream(streamHandle);
  Event *event = queues().event(eventHandle);
  if (!stream || !event || flags != 0)
    return fail(kInvalidHandle, "cuStreamWaitEvent: unknown stream or event");
  // An event never recorded is complete: nothing to wait for.
  if (!event->recorded || event->stream.get() == stream)
    return kSuccess;
  Operation operation{Operation::Kind::Wait};
  operation.waitFor = event->stream;
  operation.waitUntil = event->sequence;
  queues().enqueue(*stream, std::move(operation));
  return kSuccess;
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

JEET_EMU_EXPORT CUresult cuEventCreate(void **event, unsigned flags) {
  if (!initialized())
    return fail(kNotInitialized);
  if (!event)
    return fail(kInvalidValue);
  std::lock_guard<std::mutex> lock(deviceMutex());
  *event = queues().createEvent(flags);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuEventDestroy_v2(void *handle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Event *event = queues().event(handle);
  if (!event)
    return fail(kInvalidHandle, "cuEventDestroy of an unknown event");
  queues().destroyEvent(event);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuEventRecord(void *eventHandle, void *streamHandle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Event *event = queues().event(eventHandle);
  Stream *stream = queues().stream(streamHandle);
  if (!event || !stream)
    return fail(kInvalidHandle, "cuEventRecord: unknown event or stream");
  queues().record(*event, *stream);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuEventSynchronize(void *handle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Event *event = queues().event(handle);
  if (!event)
    return fail(kInvalidHandle, "cuEventSynchronize of an unknown event");
  if (!event->recorded)
    return kSuccess;
  Stream &stream = *event->stream;
  queues().flush(stream, event->sequence);
  // A fault before the event is reported here too; the stream keeps it until
  // it is synchronised.
  if (stream.error)
    return fail(stream.error, stream.report);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuEventQuery(void *handle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Event *event = queues().event(handle);
  if (!event)
    return fail(kInvalidHandle, "cuEventQuery of an unknown event");
  if (event->recorded)
    queues().flush(*event->stream, event->sequence);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuEventElapsedTime(float *milliseconds, void *start,
                                            void *end) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Event *first = queues().event(start);
  Event *last = queues().event(end);
  if (!milliseconds || !first || !last)
    return fail(kInvalidHandle, "cuEventElapsedTime: unknown event");
  if ((first->flags | last->flags) & kEventDisableTiming)
    return fail(kInvalidHandle,
                "cuEventElapsedTime of an event created without timing");
  if (!first->recorded || !last->recorded || !first->done || !last->done)
    return fail(kNotReady, "cuEventElapsedTime: an event has not completed "
                           "(synchronise it first)");
  *milliseconds = static_cast<float>(last->milliseconds - first->milliseconds);
  return kSuccess;
}
