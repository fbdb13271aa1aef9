/*===- TestKernel.h - Writing emulator kernels by hand, in C ---- -*- C -*-===*\
 *
 * The kernels of the emulator's tests and benchmark stand for what the GPU
 * emulation target emits: each is a C function following KernelABI.h, built
 * into a host shared object. Every global and shared access goes through the
 * checks, as the compiled kernels' do.
 *
\*===----------------------------------------------------------------------===*/

#ifndef JEET_UNITTESTS_EMULATOR_KERNELS_TESTKERNEL_H
#define JEET_UNITTESTS_EMULATOR_KERNELS_TESTKERNEL_H

#include "jeet/Emulator/KernelABI.h"

#include <stdint.h>

#define EMU_EXPORT __attribute__((visibility("default")))

/* Once per object. */
#define EMU_MODULE()                                                           \
  EMU_EXPORT const int32_t __jeet_emu_abi_version = JEET_EMU_ABI_VERSION

/* Defines kernel NAME with SHARED static shared bytes and parameters of the
 * given byte sizes, and opens its body (`void **params` in scope). */
#define EMU_KERNEL(NAME, SHARED, ...)                                          \
  EMU_EXPORT const int64_t __jeet_emu_param_sizes_##NAME[] = {__VA_ARGS__};    \
  EMU_EXPORT const int64_t __jeet_emu_num_params_##NAME =                      \
      sizeof(__jeet_emu_param_sizes_##NAME) / sizeof(int64_t);                 \
  EMU_EXPORT const int64_t __jeet_emu_static_shared_bytes_##NAME = SHARED;     \
  EMU_EXPORT void __jeet_emu_kernel_##NAME(void **params)

/* The i-th parameter, of type T. */
#define PARAM(T, i) (*(T *)params[i])

#define EMU_STR2(x) #x
#define EMU_STR(x) EMU_STR2(x)
/* A site string, as the compiler writes them: the op and where it is. */
#define SITE(op) op " at " __FILE_NAME__ ":" EMU_STR(__LINE__)

typedef float f32x4 __attribute__((vector_size(16)));

static inline float loadGlobal(const float *p, const char *site) {
  __jeet_emu_check_global(p, 4, JEET_EMU_ACCESS_READ, 4, site);
  return *p;
}
static inline void storeGlobal(float *p, float v, const char *site) {
  __jeet_emu_check_global(p, 4, JEET_EMU_ACCESS_WRITE, 4, site);
  *p = v;
}
static inline f32x4 loadGlobal4(const float *p, const char *site) {
  __jeet_emu_check_global(p, 16, JEET_EMU_ACCESS_READ, 16, site);
  return *(const f32x4 *)p;
}
static inline float loadShared(const float *p, const char *site) {
  __jeet_emu_check_shared(p, 4, JEET_EMU_ACCESS_READ, site);
  return *p;
}
static inline void storeShared(float *p, float v, const char *site) {
  __jeet_emu_check_shared(p, 4, JEET_EMU_ACCESS_WRITE, site);
  *p = v;
}
static inline uint8_t loadShared8(const uint8_t *p, const char *site) {
  __jeet_emu_check_shared(p, 1, JEET_EMU_ACCESS_READ, site);
  return *p;
}
static inline void storeShared8(uint8_t *p, uint8_t v, const char *site) {
  __jeet_emu_check_shared(p, 1, JEET_EMU_ACCESS_WRITE, site);
  *p = v;
}
static inline void storeShared32(uint32_t *p, uint32_t v, const char *site) {
  __jeet_emu_check_shared(p, 4, JEET_EMU_ACCESS_WRITE, site);
  *p = v;
}
static inline int32_t loadGlobalI32(const int32_t *p, const char *site) {
  __jeet_emu_check_global(p, 4, JEET_EMU_ACCESS_READ, 4, site);
  return *p;
}
static inline void storeGlobalI32(int32_t *p, int32_t v, const char *site) {
  __jeet_emu_check_global(p, 4, JEET_EMU_ACCESS_WRITE, 4, site);
  *p = v;
}

/* Warp shuffles of floats, through the 32-bit shuffle. */
static inline float shuffleF32(float value, int32_t offset, int32_t mode) {
  union {
    float f;
    int32_t i;
  } in = {value}, out;
  int8_t valid;
  out.i = __jeet_emu_shuffle32(in.i, offset, 32, mode, &valid);
  return out.f;
}

/* The linear thread id within the block (x fastest). */
static inline int64_t linearThread(const JeetEmuThreadState *s) {
  return s->threadId[0] +
         s->blockDim[0] * (s->threadId[1] + s->blockDim[1] * s->threadId[2]);
}

#endif /* JEET_UNITTESTS_EMULATOR_KERNELS_TESTKERNEL_H */
