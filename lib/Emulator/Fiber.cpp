//===- Fiber.cpp - Stacks and a user-space context switch -----------------===//

#include "Fiber.h"

#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

using namespace jeet::emulator;

#if defined(__x86_64__)

// jeet_emu_fiber_switch(from, to): pushes the callee-saved registers of the
// System V ABI, stores the stack pointer in *from, loads `to` and pops the
// registers saved there. A new fiber's stack holds a frame whose return
// address is jeet_emu_fiber_start, which calls entry(argument) (r13, r12)
// with the stack 16-byte aligned.
asm(R"(
  .text
  .p2align 4
  .globl jeet_emu_fiber_switch
  .hidden jeet_emu_fiber_switch
  .type jeet_emu_fiber_switch,@function
jeet_emu_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size jeet_emu_fiber_switch, .-jeet_emu_fiber_switch

  .p2align 4
  .globl jeet_emu_fiber_start
  .hidden jeet_emu_fiber_start
  .type jeet_emu_fiber_start,@function
jeet_emu_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size jeet_emu_fiber_start, .-jeet_emu_fiber_start
)");

extern "C" void jeet_emu_fiber_switch(void **from, void *to);
extern "C" void jeet_emu_fiber_start();

void jeet::emulator::fiberSwitch(FiberContext *from, FiberContext to) {
  jeet_emu_fiber_switch(from, to);
}

FiberContext jeet::emulator::fiberCreate(char *stackTop, size_t,
                                         void (*entry)(void *),
                                         void *argument) {
  // r15 r14 r13 r12 rbx rbp, the return address, then padding so that the
  // call in jeet_emu_fiber_start happens with rsp % 16 == 0.
  constexpr size_t kFrameWords = 9;
  void **frame = reinterpret_cast<void **>(stackTop) - kFrameWords;
  frame[0] = nullptr;
  frame[1] = nullptr;
  frame[2] = reinterpret_cast<void *>(entry);
  frame[3] = argument;
  frame[4] = nullptr;
  frame[5] = nullptr;
  frame[6] = reinterpret_cast<void *>(&jeet_emu_fiber_start);
  frame[7] = nullptr;
  frame[8] = nullptr;
  return frame;
}

#else // Portable fallback: ucontext (a system call per switch).

#include <ucontext.h>

namespace {
thread_local ucontext_t hostContext;

void startFiber(unsigned high, unsigned low, unsigned entryHigh,
                unsigned entryLow) {
  auto argument = reinterpret_cast<void *>((uintptr_t(high) << 32) | low);
  auto entry = reinterpret_cast<void (*)(void *)>((uintptr_t(entryHigh) << 32) |
                                                  entryLow);
  entry(argument);
}
} // namespace

void jeet::emulator::fiberSwitch(FiberContext *from, FiberContext to) {
  if (!*from)
    *from = &hostContext;
  swapcontext(static_cast<ucontext_t *>(*from), static_cast<ucontext_t *>(to));
}

FiberContext jeet::emulator::fiberCreate(char *stackTop, size_t stackBytes,
                                         void (*entry)(void *),
                                         void *argument) {
  // The context lives at the bottom of the fiber's own stack.
  char *bottom = stackTop - stackBytes;
  auto *context = reinterpret_cast<ucontext_t *>(bottom);
  getcontext(context);
  size_t reserved = (sizeof(ucontext_t) + 63) / 64 * 64;
  context->uc_stack.ss_sp = bottom + reserved;
  context->uc_stack.ss_size = stackBytes - reserved;
  context->uc_link = nullptr;
  uintptr_t arg = reinterpret_cast<uintptr_t>(argument);
  uintptr_t fn = reinterpret_cast<uintptr_t>(entry);
  makecontext(context, reinterpret_cast<void (*)()>(&startFiber), 4,
              unsigned(arg >> 32), unsigned(arg), unsigned(fn >> 32),
              unsigned(fn));
  return context;
}

#endif

//===----------------------------------------------------------------------===//
// FiberStacks
//===----------------------------------------------------------------------===//

namespace {
/// Stack tops are staggered by this many bytes (times index % kColors), so
/// that the hot frames of neighbouring fibers do not all fall into the same
/// cache sets.
constexpr size_t kColorBytes = 192;
constexpr size_t kColors = 16;

size_t pageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
} // namespace

FiberStacks::~FiberStacks() {
  if (memory_)
    munmap(memory_, mapped_);
}

bool FiberStacks::reserve(size_t count, size_t stackBytes) {
  size_t page = pageSize();
  stackBytes = (stackBytes + page - 1) / page * page;
  if (count <= count_ && stackBytes == stackBytes_)
    return true;
  if (memory_)
    munmap(memory_, mapped_);
  memory_ = nullptr;
  count_ = 0;
  stackBytes_ = stackBytes;
  stride_ = stackBytes + page; // a guard page below each stack
  mapped_ = stride_ * count;
  void *memory = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED)
    return false;
  memory_ = static_cast<char *>(memory);
  for (size_t i = 0; i < count; ++i)
    mprotect(memory_ + i * stride_, page, PROT_NONE);
  count_ = count;
  return true;
}

size_t FiberStacks::usableBytes() const {
  return stackBytes_ - (kColors - 1) * kColorBytes;
}

char *FiberStacks::top(size_t index) const {
  return memory_ + (index + 1) * stride_ - (index % kColors) * kColorBytes;
}
