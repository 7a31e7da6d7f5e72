// A warp-specialized TMA-load mainloop (CUTLASS PipelineTmaAsync<S> in
// plain CUDA): warp 0's elected lane waits empty[s], arms full[s] with the
// stage's bytes and loads k-tile k into stage s with a TMA load; every other
// warp is a consumer that waits full[s], sums the stage, fences its generic
// reads against the next async write and releases empty[s].
// pipeline_correct releases a stage after reading it; pipeline_early_release
// releases it first, so the next TMA load may overwrite it while it is read.
#include "hopper_ops.cuh"

constexpr int kTile = 64;     // ints per k-tile (one TMA box)
constexpr int kStages = 2;

template <bool kEarlyRelease>
__device__ void mainloop(const void* desc_a, int* sums, int k_tiles) {
  __shared__ alignas(128) int sA[kStages][kTile];
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
  if (warp == 0) {  // producer: PipelineTmaAsync::producer_acquire, then the TMA load
    if (elect_one()) {
      for (int k = 0; k < k_tiles; ++k) {
        int s = k % kStages;
        std::uint32_t phase = ((k / kStages) & 1) ^ 1;  // the producer starts at phase 1
        mbar_wait(&empty[s], phase);
        mbar_arrive_expect_tx(&full[s], kTile * sizeof(int));
        tma_load_2d(sA[s], desc_a, 0, k, &full[s]);
      }
      for (int k = k_tiles; k < k_tiles + kStages; ++k)  // producer_tail
        mbar_wait(&empty[k % kStages], ((k / kStages) & 1) ^ 1);
    }
    return;
  }
  int sum = 0;
  for (int k = 0; k < k_tiles; ++k) {
    int s = k % kStages;
    mbar_wait(&full[s], (k / kStages) & 1);
    if (kEarlyRelease && lane == 0) mbar_arrive(&empty[s]);  // the bug: freed before it is read
    for (int i = lane; i < kTile; i += 32) sum += sA[s][i];
    fence_proxy_async_shared();  // generic reads before the next async-proxy write
    __syncwarp();
    if (!kEarlyRelease && lane == 0) mbar_arrive(&empty[s]);
  }
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) sums[warp - 1] = sum;
}

extern "C" __global__ void pipeline_correct(const void* desc_a, int* sums, int k_tiles) {
  mainloop<false>(desc_a, sums, k_tiles);
}

extern "C" __global__ void pipeline_early_release(const void* desc_a, int* sums, int k_tiles) {
  mainloop<true>(desc_a, sums, k_tiles);
}
