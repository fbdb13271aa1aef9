/*===- Bugs.c - Kernels with planted bugs ---------------------------------===*\
 *
 * Each kernel has one bug of the kind a compiler's kernel generation makes. On
 * a GPU they compute garbage, hang or fault without saying where; the emulator
 * must name each one.
 *
\*===----------------------------------------------------------------------===*/

#include "TestKernel.h"

EMU_MODULE();

enum { kBlock = 256 };

/* A tree reduction in shared memory that lacks the barrier between its
 * steps: a thread adds a partial sum another thread is still writing. */
EMU_KERNEL(race_missing_barrier, kBlock * sizeof(float), 8, 8) {
  const float *in = PARAM(const float *, 0);
  float *out = PARAM(float *, 1);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  float *partial = (float *)s->shared;
  int64_t t = s->threadId[0];
  storeShared(&partial[t],
              loadGlobal(&in[s->blockId[0] * kBlock + t], SITE("load in")),
              SITE("store partial"));
  __jeet_emu_barrier(SITE("gpu.barrier"));
  for (int64_t stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride)
      storeShared(&partial[t],
                  loadShared(&partial[t], SITE("load partial")) +
                      loadShared(&partial[t + stride], SITE("load other")),
                  SITE("store sum"));
    /* BUG: gpu.barrier missing here. */
  }
  if (t == 0)
    storeGlobal(&out[s->blockId[0]], loadShared(&partial[0], SITE("load sum")),
                SITE("store out"));
}

/* Bounds test written with <= instead of <: the thread with i == n reads
 * one element past the input. */
EMU_KERNEL(oob_off_by_one, 0, 8, 8, 8) {
  const float *in = PARAM(const float *, 0);
  float *out = PARAM(float *, 1);
  int64_t n = PARAM(int64_t, 2);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  int64_t i = s->blockId[0] * s->blockDim[0] + s->threadId[0];
  if (i <= n) /* BUG: should be i < n */
    storeGlobal(&out[i < n ? i : 0],
                loadGlobal(&in[i], SITE("memref.load in")) * 2.0f,
                SITE("store out"));
}

/* Threads past the data return early, then the rest wait at a barrier the
 * returned threads never reach. */
EMU_KERNEL(divergent_barrier, kBlock * sizeof(float), 8, 8, 8) {
  const float *in = PARAM(const float *, 0);
  float *out = PARAM(float *, 1);
  int64_t n = PARAM(int64_t, 2);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  float *tile = (float *)s->shared;
  int64_t t = s->threadId[0];
  if (t >= n) /* BUG: returns before the barrier */
    return;
  storeShared(&tile[t], loadGlobal(&in[t], SITE("load in")),
              SITE("store tile"));
  __jeet_emu_barrier(SITE("gpu.barrier after the early return"));
  storeGlobal(&out[t], loadShared(&tile[n - 1 - t], SITE("load tile")),
              SITE("store out"));
}

/* Odd and even threads wait at two different barriers. */
EMU_KERNEL(barrier_mismatch, 0, 8) {
  (void)params;
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  if (s->threadId[0] % 2)
    __jeet_emu_barrier(SITE("gpu.barrier (odd)"));
  else
    __jeet_emu_barrier(SITE("gpu.barrier (even)"));
}

/* The upper half of each warp returns before a warp reduction. */
EMU_KERNEL(divergent_shuffle, 0, 8) {
  float *out = PARAM(float *, 0);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  if (s->laneId >= 16) /* BUG */
    return;
  float v = (float)s->laneId;
  for (int offset = 16; offset > 0; offset >>= 1)
    v += shuffleF32(v, offset, JEET_EMU_SHUFFLE_XOR);
  storeGlobal(&out[s->threadId[0]], v, SITE("store out"));
}

/* A 16-byte vector load from an address that is only 4-byte aligned. */
EMU_KERNEL(misaligned_vector, 0, 8, 8) {
  const float *in = PARAM(const float *, 0);
  float *out = PARAM(float *, 1);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  int64_t t = s->threadId[0];
  f32x4 v = loadGlobal4(&in[4 * t + 1], SITE("vector.load in")); /* BUG */
  storeGlobal(&out[t], v[0] + v[1] + v[2] + v[3], SITE("store out"));
}

/* A shifted index runs past the block's shared array. */
EMU_KERNEL(shared_oob, kBlock * sizeof(float), 8) {
  float *out = PARAM(float *, 0);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  float *tile = (float *)s->shared;
  int64_t t = s->threadId[0];
  storeShared(&tile[t + 1], (float)t, SITE("store tile")); /* BUG: t + 1 */
  __jeet_emu_barrier(SITE("gpu.barrier"));
  storeGlobal(&out[t], loadShared(&tile[t], SITE("load tile")),
              SITE("store out"));
}

/* Neighbours exchange bytes of one word without a barrier between the
 * write and the read. */
EMU_KERNEL(byte_race, 256, 8) {
  int32_t *out = PARAM(int32_t *, 0);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  uint8_t *tile = (uint8_t *)s->shared;
  int64_t t = s->threadId[0];
  storeShared8(&tile[t], (uint8_t)t, SITE("store byte"));
  /* BUG: gpu.barrier missing here. */
  storeGlobalI32(&out[t], loadShared8(&tile[t ^ 1], SITE("load neighbour")),
                 SITE("store out"));
}
