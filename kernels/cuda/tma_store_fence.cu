// Shared memory written with plain stores, then stored to global memory by
// a TMA store. The TMA store reads shared memory in the async proxy, so the
// writers must order their generic stores before it with fence.proxy.async
// (then the barrier). store_no_fence leaves the fence out: a cross-proxy race.
#include "hopper_ops.cuh"

constexpr int kBox = 64;  // floats per TMA box

template <bool kFence>
__device__ void store_tile(const void* desc_out, int tiles) {
  __shared__ alignas(128) float tile[kBox];
  const int warp = threadIdx.x / 32;
  for (int t = 0; t < tiles; ++t) {
    for (int i = threadIdx.x; i < kBox; i += blockDim.x) tile[i] = 1 + t * 10 + i;
    if (kFence) fence_proxy_async_shared();
    __syncthreads();
    if (warp == 0) {
      if (elect_one()) tma_store_2d(desc_out, 0, t, tile);
      bulk_commit_group();
      bulk_wait_group_read<0>();  // the tile may be rewritten once the store has read it
    }
    __syncthreads();
  }
}

extern "C" __global__ void store_fenced(const void* desc_out, int tiles) {
  store_tile<true>(desc_out, tiles);
}

extern "C" __global__ void store_no_fence(const void* desc_out, int tiles) {
  store_tile<false>(desc_out, tiles);
}
