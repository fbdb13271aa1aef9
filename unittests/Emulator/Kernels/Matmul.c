/*===- Matmul.c - A tiled matmul with the shape of Jeet's GPU kernel ------===*\
 *
 * C[M x N] = A[M x K] * B[K x N] (row major, f32): 256 threads per block, a
 * 64x64 tile of C per block, K in tiles of 16 staged in shared memory with two
 * barriers per tile, a 4x4 register tile per thread, and every global and
 * shared access checked. Bounds are guarded, so any M, N, K work. Grid:
 * (ceil(N/64), ceil(M/64)). The emulator's tests check its numerics; the
 * benchmark (bench/emulator) times it.
 *
\*===----------------------------------------------------------------------===*/

#include "TestKernel.h"

EMU_MODULE();

enum {
  kTileM = 64,
  kTileN = 64,
  kTileK = 16,
  kThreadM = 4,
  kThreadN = 4,
  kThreads = 256
};

EMU_KERNEL(matmul_tiled, 2 * kTileK * kTileM * sizeof(float), 8, 8, 8, 8, 8,
           8) {
  const float *A = PARAM(const float *, 0);
  const float *B = PARAM(const float *, 1);
  float *C = PARAM(float *, 2);
  int64_t M = PARAM(int64_t, 3), N = PARAM(int64_t, 4), K = PARAM(int64_t, 5);
  const JeetEmuThreadState *s = __jeet_emu_thread_state();
  float(*As)[kTileM] = (float(*)[kTileM])s->shared;
  float(*Bs)[kTileN] =
      (float(*)[kTileN])(s->shared + kTileK * kTileM * sizeof(float));
  int64_t t = s->threadId[0];
  int64_t row0 = s->blockId[1] * kTileM, col0 = s->blockId[0] * kTileN;
  int64_t tr = t / (kTileN / kThreadN) * kThreadM;
  int64_t tc = t % (kTileN / kThreadN) * kThreadN;
  float acc[kThreadM][kThreadN] = {{0}};
  for (int64_t k0 = 0; k0 < K; k0 += kTileK) {
    for (int i = 0; i < kTileM * kTileK / kThreads; ++i) {
      int64_t index = t + i * kThreads, r = index / kTileK, k = index % kTileK;
      float v = row0 + r < M && k0 + k < K
                    ? loadGlobal(&A[(row0 + r) * K + k0 + k], SITE("load A"))
                    : 0.0f;
      storeShared(&As[k][r], v, SITE("store A tile"));
    }
    for (int i = 0; i < kTileK * kTileN / kThreads; ++i) {
      int64_t index = t + i * kThreads, k = index / kTileN, c = index % kTileN;
      float v = k0 + k < K && col0 + c < N
                    ? loadGlobal(&B[(k0 + k) * N + col0 + c], SITE("load B"))
                    : 0.0f;
      storeShared(&Bs[k][c], v, SITE("store B tile"));
    }
    __jeet_emu_barrier(SITE("gpu.barrier (tiles staged)"));
    for (int k = 0; k < kTileK; ++k) {
      float a[kThreadM], b[kThreadN];
      for (int i = 0; i < kThreadM; ++i)
        a[i] = loadShared(&As[k][tr + i], SITE("load A tile"));
      for (int j = 0; j < kThreadN; ++j)
        b[j] = loadShared(&Bs[k][tc + j], SITE("load B tile"));
      for (int i = 0; i < kThreadM; ++i)
        for (int j = 0; j < kThreadN; ++j)
          acc[i][j] += a[i] * b[j];
    }
    __jeet_emu_barrier(SITE("gpu.barrier (tiles used)"));
  }
  for (int i = 0; i < kThreadM; ++i)
    for (int j = 0; j < kThreadN; ++j)
      if (row0 + tr + i < M && col0 + tc + j < N)
        storeGlobal(&C[(row0 + tr + i) * N + col0 + tc + j], acc[i][j],
                    SITE("store C"));
}
