/*===- KernelABI.h - Contract between emulated kernels and the emulator -*- C -*-===*\
|*                                                                              *|
|* Part of the Jeet project.                                                    *|
|*                                                                              *|
|* The GPU emulation target (jeet-gpu-pipeline{target=emulator}) compiles each  *|
|* gpu.module, after every Jeet GPU pass, for the host instead of NVPTX. The    *|
|* gpu.binary then holds a host shared object (ELF, e_machine of the host, not  *|
|* EM_CUDA) that libjeet_cuda_emulator.so loads through the ordinary driver     *|
|* entry points (cuModuleLoadDataEx, cuModuleGetFunction, cuLaunchKernel).      *|
|* This header is the whole contract between the two: the symbols the object    *|
|* defines and the emulator reads, and the functions the object calls, which    *|
|* the emulator exports (it makes its own symbols global before dlopen-ing a    *|
|* kernel object, so they resolve).                                             *|
|*                                                                              *|
|* Plain C: the compiler side emits these names and layouts from MLIR, the      *|
|* emulator side implements them; neither depends on the other's code.          *|
|*                                                                              *|
\*===----------------------------------------------------------------------===*/

#ifndef JEET_EMULATOR_KERNELABI_H
#define JEET_EMULATOR_KERNELABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever anything below changes; a kernel object of another version
 * is rejected at load with both versions named. */
#define JEET_EMU_ABI_VERSION 1

/*===----------------------------------------------------------------------===*
 * Symbols a kernel object defines
 *===----------------------------------------------------------------------===*/

/* `const int32_t __jeet_emu_abi_version = JEET_EMU_ABI_VERSION;` */
#define JEET_EMU_ABI_VERSION_SYMBOL "__jeet_emu_abi_version"

/* For each kernel K of the gpu.module (the name cuModuleGetFunction is given):
 *
 *   void __jeet_emu_kernel_K(void **params);
 *     Runs one thread of K. `params` is the kernel parameter array exactly as
 *     cuLaunchKernel receives it: params[i] points at the i-th parameter of
 *     the lowered kernel (memref descriptors expanded into their fields, as
 *     gpu-to-llvm passes them).
 *
 *   const int64_t __jeet_emu_num_params_K;
 *   const int64_t __jeet_emu_param_sizes_K[__jeet_emu_num_params_K];
 *     The byte size of each parameter, so that a launch can copy its
 *     parameters when it is enqueued (or captured into a graph).
 *
 *   const int64_t __jeet_emu_static_shared_bytes_K;
 *     Bytes of workgroup memory K's workgroup attributions take, at offsets
 *     [0, n) of the block's shared memory; dynamic shared memory (the launch's
 *     sharedMemBytes) follows at offset n rounded up to 16.
 */
#define JEET_EMU_KERNEL_PREFIX "__jeet_emu_kernel_"
#define JEET_EMU_NUM_PARAMS_PREFIX "__jeet_emu_num_params_"
#define JEET_EMU_PARAM_SIZES_PREFIX "__jeet_emu_param_sizes_"
#define JEET_EMU_STATIC_SHARED_PREFIX "__jeet_emu_static_shared_bytes_"

/*===----------------------------------------------------------------------===*
 * What a running thread sees
 *===----------------------------------------------------------------------===*/

/* The state of the emulated thread that is running. The emulator owns it;
 * kernels only read it. Ids and dimensions are those of CUDA (x, y, z). */
typedef struct JeetEmuThreadState {
  int64_t threadId[3];
  int64_t blockId[3];
  int64_t blockDim[3];
  int64_t gridDim[3];
  /* This block's shared memory (static, then dynamic); 16-byte aligned. */
  char *shared;
  /* The lane of the thread in its warp (linear thread id % 32). */
  int64_t laneId;
} JeetEmuThreadState;

/*===----------------------------------------------------------------------===*
 * Functions a kernel object calls (exported by the emulator)
 *===----------------------------------------------------------------------===*/

/* The running thread's state. A kernel calls it once, at entry. */
const JeetEmuThreadState *__jeet_emu_thread_state(void);

/* gpu.barrier: waits until every thread of the block reaches a barrier.
 * `site` names the barrier in reports ("kernel K: gpu.barrier at
 * file:line:col"); threads that wait at barriers of different sites, or a
 * barrier that some thread of the block never reaches because it returned,
 * are reported as a divergent barrier instead of hanging. */
void __jeet_emu_barrier(const char *site);

/* gpu.shuffle on 32-bit values: every lane of the warp contributes `value`
 * and receives the value of its partner lane, in lockstep (the warp waits
 * for all its lanes; a lane that returned or waits at a barrier instead is a
 * divergent shuffle). `mode`: 0 xor, 1 down, 2 up, 3 idx (gpu.shuffle's
 * modes); the partner of lane k is k ^ offset, k + offset, k - offset or
 * offset. `width` (a power of two up to 32) is gpu.shuffle's: the first
 * `width` lanes of the warp take part, and `*valid` is set to 1 when the
 * partner lies in [0, width), else 0 (and the result is the thread's own
 * value; lanes at or past `width` always get their own value and 0). */
#define JEET_EMU_SHUFFLE_XOR 0
#define JEET_EMU_SHUFFLE_DOWN 1
#define JEET_EMU_SHUFFLE_UP 2
#define JEET_EMU_SHUFFLE_IDX 3
int32_t __jeet_emu_shuffle32(int32_t value, int32_t offset, int32_t width,
                             int32_t mode, int8_t *valid);

/* Checks one access before it happens. A failed check reports the problem
 * (kernel, block, thread, address, the nearest allocation or the racing
 * thread) and ends the launch: the call does not return to the kernel, and
 * the access is not made. `flags` is a bit set of the values below;
 * `alignment` the alignment the access assumes (a vector access of 16 bytes
 * says 16); `site` names the op ("memref.load at file:line:col").
 *
 * Global accesses are checked against the live device allocations (out of
 * bounds, freed memory, misaligned vector accesses). Shared accesses are
 * checked against the block's shared memory and for races: two threads of
 * the block touching the same byte between the same pair of barriers, one of
 * them writing. */
#define JEET_EMU_ACCESS_READ 0
#define JEET_EMU_ACCESS_WRITE 1
void __jeet_emu_check_global(const void *address, int64_t bytes,
                             int32_t flags, int64_t alignment,
                             const char *site);
void __jeet_emu_check_shared(const void *address, int64_t bytes,
                             int32_t flags, const char *site);

#ifdef __cplusplus
}
#endif

#endif /* JEET_EMULATOR_KERNELABI_H */
