// A warp-specialized mainloop with async wgmma (CUTLASS's sm90
// PipelineTmaAsync + warpgroup MMA in plain CUDA, the pattern of
// kernels/cutlass/wgmma_mainloop): the last warp's elected lane TMA-loads
// the A and B k-tiles of stage s once empty[s] is free; the other warps
// (warpgroup 0) wait full[s], issue wgmma.mma_async on the stage, commit,
// and release a stage only once its wgmma is complete.
// wgmma_correct waits warpgroup_wait<1>() and releases the previous stage
// (K_PIPE_MMAS = 1); wgmma_release_in_flight releases the stage it just
// issued, so the next TMA load into it races with the wgmma still reading it.
#include "hopper_ops.cuh"

constexpr int kStages = 2;
constexpr int kTileA = 64 * 16, kTileB = 8 * 16;  // f16 elements, core-matrix order

template <bool kReleaseInFlight>
__device__ void mainloop(const void* desc_a, const void* desc_b, float* out, int k_tiles) {
  __shared__ alignas(128) std::uint16_t sA[kStages][kTileA];
  __shared__ alignas(128) std::uint16_t sB[kStages][kTileB];
  __shared__ alignas(8) std::uint64_t full[kStages], empty[kStages];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int consumers = blockDim.x / 32 - 1;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], consumers);
    }
  }
  __syncthreads();
  if (warp == consumers) {  // producer: producer_acquire, then the two TMA loads
    if (elect_one()) {
      for (int k = 0; k < k_tiles; ++k) {
        int s = k % kStages;
        mbar_wait(&empty[s], ((k / kStages) & 1) ^ 1);
        mbar_arrive_expect_tx(&full[s], (kTileA + kTileB) * 2);
        tma_load_2d(sA[s], desc_a, 0, k, &full[s]);
        tma_load_2d(sB[s], desc_b, 0, k, &full[s]);
      }
      for (int k = k_tiles; k < k_tiles + kStages; ++k)  // producer_tail
        mbar_wait(&empty[k % kStages], ((k / kStages) & 1) ^ 1);
    }
    return;
  }
  float d[4] = {0, 0, 0, 0};
  int prev = 0;
  for (int k = 0; k < k_tiles; ++k) {
    int s = k % kStages;
    mbar_wait(&full[s], (k / kStages) & 1);
    wgmma_fence();  // warpgroup_arrive
    wgmma_m64n8k16(d, wgmma_desc(sA[s], 128, 256), wgmma_desc(sB[s], 128, 256), k > 0);
    wgmma_commit();
    if (kReleaseInFlight) {
      if (lane == 0) mbar_arrive(&empty[s]);  // the bug: its wgmma may still read the stage
    } else {
      wgmma_wait<1>();  // all but the newest batch are complete
      if (k > 0 && lane == 0) mbar_arrive(&empty[prev]);
    }
    prev = s;
  }
  wgmma_wait<0>();  // mma_tail
  if (!kReleaseInFlight && k_tiles > 0 && lane == 0) mbar_arrive(&empty[prev]);
  for (int i = 0; i < 4; ++i) {  // the D fragment: rows 16w + lane/4 (+8), columns 2(lane%4) (+1)
    int row = 16 * warp + lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
    out[row * 8 + col] = d[i];
  }
}

extern "C" __global__ void wgmma_correct(const void* desc_a, const void* desc_b, float* out,
                                         int k_tiles) {
  mainloop<false>(desc_a, desc_b, out, k_tiles);
}

extern "C" __global__ void wgmma_release_in_flight(const void* desc_a, const void* desc_b,
                                                   float* out, int k_tiles) {
  mainloop<true>(desc_a, desc_b, out, k_tiles);
}
