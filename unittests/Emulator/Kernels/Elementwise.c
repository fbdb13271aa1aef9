/*===- Elementwise.c - Elementwise kernels, one thread per element --------===*\
 *
 * ew_step applies one binary op (its kind a parameter); a chain of ten
 * launches is the unfused 10-op chain. ew_chain10 is the same chain fused into
 * one kernel. Blocks of 256 threads, grid ceil(n/256).
 *
\*===----------------------------------------------------------------------===*/

#include "TestKernel.h"

EMU_MODULE();

static inline float apply(int32_t op, float x, float y) {
  switch (op % 5) {
  case 0:
    return x + y;
  case 1:
    return x * y;
  case 2:
    return x - y;
  case 3:
    return x > y ? x : y;
  default:
    return x * 0.5f + y;
  }
}

/* out[i] = op(x[i], y[i]). */
EMU_KERNEL(ew_step, 0, 8, 8, 8, 8, 4) {
  const float *x = PARAM(const float *, 0);
  const float *y = PARAM(const float *, 1);
  float *out = PARAM(float *, 2);
  int64_t n = PARAM(int64_t, 3);
  int32_t op = PARAM(int32_t, 4);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  int64_t i = s->blockId[0] * s->blockDim[0] + s->threadId[0];
  if (i < n)
    storeGlobal(&out[i],
                apply(op, loadGlobal(&x[i], SITE("load x")),
                      loadGlobal(&y[i], SITE("load y"))),
                SITE("store out"));
}

/* out[i] = the ten ops of the chain applied in turn to (x[i], y[i]). */
EMU_KERNEL(ew_chain10, 0, 8, 8, 8, 8) {
  const float *x = PARAM(const float *, 0);
  const float *y = PARAM(const float *, 1);
  float *out = PARAM(float *, 2);
  int64_t n = PARAM(int64_t, 3);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  int64_t i = s->blockId[0] * s->blockDim[0] + s->threadId[0];
  if (i >= n)
    return;
  float a = loadGlobal(&x[i], SITE("load x"));
  float b = loadGlobal(&y[i], SITE("load y"));
  for (int32_t op = 0; op < 10; ++op)
    a = apply(op, a, b);
  storeGlobal(&out[i], a, SITE("store out"));
}
