/*===- Good.c - Correct kernels: barriers, shuffles, shared memory --------===*\
 *
 * Kernels written by hand against KernelABI.h, standing for what the GPU
 * emulation target emits. They must compute the right results on the emulator,
 * with every check on and none firing.
 *
\*===----------------------------------------------------------------------===*/

#include "TestKernel.h"

EMU_MODULE();

enum { kTile = 32, kTileRows = 8 };

/* out[cols x rows] = in[rows x cols]^T through a padded shared tile; blocks
 * of 32x8 threads, grid (ceil(cols/32), ceil(rows/32)). */
EMU_KERNEL(transpose, kTile *(kTile + 1) * sizeof(float), 8, 8, 8, 8) {
  const float *in = PARAM(const float *, 0);
  float *out = PARAM(float *, 1);
  int64_t rows = PARAM(int64_t, 2), cols = PARAM(int64_t, 3);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  float(*tile)[kTile + 1] = (float(*)[kTile + 1])s->shared;
  int64_t tx = s->threadId[0], ty = s->threadId[1];
  int64_t x = s->blockId[0] * kTile + tx, y = s->blockId[1] * kTile + ty;
  for (int64_t j = 0; j < kTile; j += kTileRows)
    if (x < cols && y + j < rows)
      storeShared(&tile[ty + j][tx],
                  loadGlobal(&in[(y + j) * cols + x], SITE("load in")),
                  SITE("store tile"));
  __jeet_emu_barrier(SITE("gpu.barrier"));
  x = s->blockId[1] * kTile + tx;
  y = s->blockId[0] * kTile + ty;
  for (int64_t j = 0; j < kTile; j += kTileRows)
    if (x < rows && y + j < cols)
      storeGlobal(&out[(y + j) * rows + x],
                  loadShared(&tile[tx][ty + j], SITE("load tile")),
                  SITE("store out"));
}

/* out[row] = sum of in[row, :]; one block per row. Warps reduce with xor
 * shuffles, warp sums meet in shared memory, warp 0 reduces them with down
 * shuffles. */
EMU_KERNEL(row_sum, 32 * sizeof(float), 8, 8, 8, 8) {
  const float *in = PARAM(const float *, 0);
  float *out = PARAM(float *, 1);
  int64_t rows = PARAM(int64_t, 2), cols = PARAM(int64_t, 3);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  float *partial = (float *)s->shared;
  int64_t row = s->blockId[0], t = s->threadId[0], n = s->blockDim[0];
  if (row >= rows)
    return;
  float sum = 0;
  for (int64_t c = t; c < cols; c += n)
    sum += loadGlobal(&in[row * cols + c], SITE("load in"));
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += shuffleF32(sum, offset, JEET_EMU_SHUFFLE_XOR);
  if (s->laneId == 0)
    storeShared(&partial[t / 32], sum, SITE("store partial"));
  __jeet_emu_barrier(SITE("gpu.barrier"));
  if (t < 32) {
    float v = t < (n + 31) / 32 ? loadShared(&partial[t], SITE("load partial"))
                                : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1)
      v += shuffleF32(v, offset, JEET_EMU_SHUFFLE_DOWN);
    if (t == 0)
      storeGlobal(&out[row], v, SITE("store out"));
  }
}

/* For each mode m (xor, down, up, idx) and thread t of the block:
 * out[(m * n + t) * 2] = the shuffled value, out[... + 1] = valid, where each
 * lane offers 1000 * warp + lane. */
EMU_KERNEL(shuffle_modes, 0, 8, 4, 4) {
  int32_t *out = PARAM(int32_t *, 0);
  int32_t offset = PARAM(int32_t, 1), width = PARAM(int32_t, 2);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  int64_t t = linearThread(s), n = s->blockDim[0] * s->blockDim[1];
  int32_t value = (int32_t)(1000 * (t / 32) + s->laneId);
  for (int32_t mode = 0; mode < 4; ++mode) {
    int8_t valid = -1;
    int32_t result = __jeet_emu_shuffle32(value, offset, width, mode, &valid);
    storeGlobalI32(&out[(mode * n + t) * 2], result, SITE("store value"));
    storeGlobalI32(&out[(mode * n + t) * 2 + 1], valid, SITE("store valid"));
  }
}

/* out[i] = in[i] * factor for i < n; one thread per element. */
EMU_KERNEL(scale, 0, 8, 8, 4, 8) {
  const float *in = PARAM(const float *, 0);
  float *out = PARAM(float *, 1);
  float factor = PARAM(float, 2);
  int64_t n = PARAM(int64_t, 3);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  int64_t i = s->blockId[0] * s->blockDim[0] + s->threadId[0];
  if (i < n)
    storeGlobal(&out[i], loadGlobal(&in[i], SITE("load in")) * factor,
                SITE("store out"));
}

/* out[i] = the sum of in[4i .. 4i+3], with one 16-byte vector load. */
EMU_KERNEL(sum4, 0, 8, 8, 8) {
  const float *in = PARAM(const float *, 0);
  float *out = PARAM(float *, 1);
  int64_t n = PARAM(int64_t, 2);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  int64_t i = s->blockId[0] * s->blockDim[0] + s->threadId[0];
  if (i < n) {
    f32x4 v = loadGlobal4(&in[4 * i], SITE("vector.load in"));
    storeGlobal(&out[i], v[0] + v[1] + v[2] + v[3], SITE("store out"));
  }
}

/* Bytes of shared memory written by different threads of one 4-byte word,
 * then whole words, then bytes again: no race, right values.
 * out[t] = tile byte (t + 1) % n after the first phase
 *        + 256 * tile byte t after the second, where word g holds bytes
 *          (4g + b) * 3 mod 256. */
EMU_KERNEL(bytes_interleaved, 1024, 8) {
  int32_t *out = PARAM(int32_t *, 0);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  uint8_t *tile = (uint8_t *)s->shared;
  int64_t t = s->threadId[0], n = s->blockDim[0];
  storeShared8(&tile[t], (uint8_t)t, SITE("store byte"));
  __jeet_emu_barrier(SITE("gpu.barrier 1"));
  uint8_t first = loadShared8(&tile[(t + 1) % n], SITE("load neighbour"));
  __jeet_emu_barrier(SITE("gpu.barrier 2"));
  if (t < n / 4) {
    uint32_t word = 0;
    for (int b = 0; b < 4; ++b)
      word |= (uint32_t)(((4 * t + b) * 3) & 0xff) << (8 * b);
    storeShared32((uint32_t *)&tile[4 * t], word, SITE("store word"));
  }
  __jeet_emu_barrier(SITE("gpu.barrier 3"));
  uint8_t second = loadShared8(&tile[t], SITE("load byte"));
  storeGlobalI32(&out[t], first + 256 * second, SITE("store out"));
}
