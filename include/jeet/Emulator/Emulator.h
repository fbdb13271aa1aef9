/*===- Emulator.h - The emulator's exports besides cu* ---------- -*- C -*-===*\
 *
 * Part of the Jeet project.
 *
 * libjeet_cuda_emulator.so is a stand-in for libcuda.so.1: it exports the
 * driver entry points the runtime resolves and runs kernels compiled for the
 * GPU emulation target (KernelABI.h) on the host CPU, checking every access.
 * The functions below are its own additions. The runtime resolves them
 * optionally (a real driver has none of them): jeetEmulatorVersion tells it
 * that the driver is the emulator, jeetEmulatorLastError carries the detailed
 * report of a failed call into the runtime's DriverError, and the region
 * functions let the runtime's caching allocator describe the blocks it carves
 * out of driver allocations, so that accesses are checked against the tensors
 * themselves rather than against the allocator's segments.
 *
\*===----------------------------------------------------------------------===*/

#ifndef JEET_EMULATOR_EMULATOR_H
#define JEET_EMULATOR_EMULATOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the functions below. */
#define JEET_EMULATOR_VERSION 1

/* The name cuDeviceGetName reports. */
#define JEET_EMULATOR_DEVICE_NAME "Jeet GPU emulator (CPU)"

/* JEET_EMULATOR_VERSION. Its presence marks the driver as the emulator. */
int jeetEmulatorVersion(void);

/* The detailed report behind the last call of the calling host thread that
 * failed: the faulting kernel, block, thread, address and nearest
 * allocation, the race, the divergent barrier, or why a module image was
 * rejected. Empty when that call has nothing to add to its CUresult. Valid
 * until the thread's next driver call. */
const char *jeetEmulatorLastError(void);

/* Sub-allocations (like NVTX's memory regions): `ptr` .. `ptr + bytes` is a
 * block in use inside a driver allocation, which from then on is a pool:
 * kernels may access only its registered blocks. Unregistering moves the
 * block to a quarantine, so that later accesses are reported as use after
 * free. With a stream, the change is ordered after the work already queued
 * on it (stream-ordered allocation); with a null stream it is immediate. */
void jeetEmulatorRegisterRegion(const void *ptr, size_t bytes, void *stream);
void jeetEmulatorUnregisterRegion(const void *ptr, void *stream);

/* Device memory capacity cuMemGetInfo reports and cuMemAlloc enforces
 * (default: $JEET_EMULATOR_MEMORY, else half of the host's memory). */
void jeetEmulatorSetMemoryCapacity(size_t bytes);

/* The checks kernels run with (default: $JEET_EMULATOR_CHECKS, else all). */
/* Global accesses: bounds, use after free, alignment. */
#define JEET_EMULATOR_CHECK_MEMORY 1
/* Shared accesses: races (and bounds). */
#define JEET_EMULATOR_CHECK_RACES 2
void jeetEmulatorSetChecks(int checks);
int jeetEmulatorChecks(void);

/* Counters since the process started (or the last reset). */
typedef struct JeetEmulatorStats {
  uint64_t launches;      /* kernel launches executed */
  uint64_t blocks;        /* blocks executed */
  uint64_t threads;       /* threads executed */
  uint64_t barriers;      /* block-wide barriers completed */
  uint64_t shuffles;      /* warp shuffles completed (per warp) */
  uint64_t globalChecks;  /* global accesses checked */
  uint64_t sharedChecks;  /* shared accesses checked */
  uint64_t faults;        /* launches that ended with a report */
} JeetEmulatorStats;
void jeetEmulatorGetStats(JeetEmulatorStats *stats);
void jeetEmulatorResetStats(void);

#ifdef __cplusplus
}
#endif

#endif /* JEET_EMULATOR_EMULATOR_H */
