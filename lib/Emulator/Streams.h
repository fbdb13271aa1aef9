//===- Streams.h - Streams, events and deferred work ------------*- C++ -*-===//
//
// Asynchronous work is deferred: copies, memsets, launches and event records
// queue on their stream and run, in stream order, only when the host needs
// them (cuStreamSynchronize, cuEventSynchronize, cuCtxSynchronize, a
// synchronous copy, cuMemFree, a stream waiting on an event of another
// stream). A program that reads results without synchronising sees them
// missing, as it would on a GPU on a bad day.
//
// A launch that faults leaves its error on the stream: later launches and
// copies of that stream are skipped (the context of a faulting GPU is lost),
// and the next synchronisation of the stream returns the error, with the
// report in jeetEmulatorLastError. Unlike a GPU, the emulator then recovers:
// the stream and the device remain usable.
//
// Every function here expects the device lock to be held.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_EMULATOR_STREAMS_H
#define JEET_LIB_EMULATOR_STREAMS_H

#include "Driver.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace jeet {
namespace emulator {

struct LaunchJob;
struct Event;
struct Stream;

struct Operation {
  enum class Kind {
    Copy,
    Memset32,
    Launch,
    Record,
    Wait,
    Register,
    Unregister
  };
  explicit Operation(Kind kind) : kind(kind) {}

  Kind kind;
  uint64_t sequence = 0;
  uintptr_t dst = 0, src = 0;
  size_t bytes = 0;
  /// A copy of the source of a host-to-device copy, taken when it is queued
  /// (the driver stages pageable memory the same way).
  std::vector<char> staged;
  uint32_t value = 0;
  std::shared_ptr<LaunchJob> launch;
  std::shared_ptr<Event> event;
  uint64_t recording = 0;
  std::shared_ptr<Stream> waitFor;
  uint64_t waitUntil = 0;
};

struct Stream {
  unsigned flags = 0;
  std::deque<Operation> queue;
  uint64_t enqueued = 0;
  uint64_t completed = 0;
  /// The error of a faulted launch, until a synchronisation reports it.
  CUresult error = kSuccess;
  std::string report;
};

struct Event {
  unsigned flags = 0;
  std::shared_ptr<Stream> stream;
  uint64_t sequence = 0;  // of its record operation on `stream`
  uint64_t recording = 0; // which cuEventRecord (an event can be re-recorded)
  bool recorded = false;
  bool done = false;
  double milliseconds = 0;
};

class Queues {
public:
  Queues();

  /// The stream behind a handle (null and the legacy handles are the legacy
  /// default stream), or null when the handle is not a live stream.
  Stream *stream(void *handle);
  std::shared_ptr<Stream> sharedStream(void *handle);
  Event *event(void *handle);
  std::shared_ptr<Event> sharedEvent(void *handle);

  void *createStream(unsigned flags);
  void destroyStream(Stream *stream);
  void *createEvent(unsigned flags);
  void destroyEvent(Event *event);

  void enqueue(Stream &stream, Operation operation);
  void record(Event &event, Stream &stream);

  /// Runs the stream's queued work up to operation `until` (all of it by
  /// default).
  void flush(Stream &stream, uint64_t until = UINT64_MAX);
  /// Runs everything queued anywhere.
  void flushAll();
  /// What a synchronous call waits for: the legacy default stream and the
  /// blocking streams (CUDA's implicit synchronisation; the runtime's own
  /// streams are non-blocking).
  void flushForSynchronousCall();

  /// Flushes the stream and returns (and clears) its error.
  CUresult synchronize(Stream &stream);
  /// Flushes everything; returns (and clears) the first error found.
  CUresult synchronizeAll();

private:
  void execute(Stream &stream, Operation &operation);

  std::shared_ptr<Stream> legacy_;
  std::map<Stream *, std::shared_ptr<Stream>> streams_;
  std::map<Event *, std::shared_ptr<Event>> events_;
  uint64_t recordings_ = 0;
};

Queues &queues();

} // namespace emulator
} // namespace jeet

#endif // JEET_LIB_EMULATOR_STREAMS_H
