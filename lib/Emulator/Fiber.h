//===- Fiber.h - Stacks and a user-space context switch ---------*- C++ -*-===//
//
// Each emulated thread of a block runs on its own small stack as a fiber.
// Switching is a few instructions on x86-64 (callee-saved registers pushed on
// the old stack, the stack pointer swapped, registers popped from the new
// one): no system call, unlike swapcontext. Other hosts fall back to
// ucontext.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_EMULATOR_FIBER_H
#define JEET_LIB_EMULATOR_FIBER_H

#include <cstddef>

namespace jeet {
namespace emulator {

/// A fiber's saved context: an opaque pointer (its stack pointer).
using FiberContext = void *;

/// Saves the running context in `*from` and resumes `to`. Returns when some
/// fiber switches back to `*from`.
void fiberSwitch(FiberContext *from, FiberContext to);

/// Prepares a fiber on the stack whose highest address is `stackTop`
/// (16-byte aligned; `stackBytes` below it are usable): the first switch to
/// the returned context calls `entry(argument)`, which must never return (it
/// switches away for the last time instead).
FiberContext fiberCreate(char *stackTop, size_t stackBytes,
                         void (*entry)(void *), void *argument);

/// Stacks for up to `count` fibers, each with a guard page below it, in one
/// mapping that is reused from block to block.
class FiberStacks {
public:
  FiberStacks() = default;
  FiberStacks(const FiberStacks &) = delete;
  FiberStacks &operator=(const FiberStacks &) = delete;
  ~FiberStacks();

  /// Makes room for `count` stacks of `stackBytes`; false when the host has
  /// no memory for them.
  bool reserve(size_t count, size_t stackBytes);
  /// The top of stack `index` (< the reserved count).
  char *top(size_t index) const;
  /// Usable bytes below each top.
  size_t usableBytes() const;

private:
  char *memory_ = nullptr;
  size_t mapped_ = 0;
  size_t count_ = 0;
  size_t stackBytes_ = 0;
  size_t stride_ = 0;
};

} // namespace emulator
} // namespace jeet

#endif // JEET_LIB_EMULATOR_FIBER_H
