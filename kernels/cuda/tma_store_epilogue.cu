// The CUTLASS #2162 epilogue pattern in plain CUDA: every warp writes its
// part of a shared subtile, fences, meets at a named barrier; one lane of
// warp 0 stores the subtile with a TMA store, commits and waits
// `wait_group.read 1` (StagesD - 1). Between groups warp 0 rewrites the
// output tensormap (tensormap.replace on the shared copy, cp_fenceproxy to
// global). Shipped: the last store may still read the descriptor then.
// Fixed (CUTLASS 3.9.0): commit; wait_group.read 0 before the rewrite.
#include "hopper_ops.cuh"

constexpr int kBox = 128;      // floats per subtile (one TMA box)
constexpr int kStages = 2;     // StagesD
constexpr int kEpilogueBarrier = 1;

template <bool kFixed>
__device__ void epilogue(void* gdesc, const float* next_d, int subtiles) {
  __shared__ alignas(128) float sD[kStages][kBox];
  __shared__ alignas(128) unsigned char sdesc[128];
  const int warp = threadIdx.x / 32;
  if (threadIdx.x < 32) {  // tensormaps_init: warp 0 copies the descriptor to shared memory
    sdesc[threadIdx.x * 4 + 0] = static_cast<unsigned char*>(gdesc)[threadIdx.x * 4 + 0];
    sdesc[threadIdx.x * 4 + 1] = static_cast<unsigned char*>(gdesc)[threadIdx.x * 4 + 1];
    sdesc[threadIdx.x * 4 + 2] = static_cast<unsigned char*>(gdesc)[threadIdx.x * 4 + 2];
    sdesc[threadIdx.x * 4 + 3] = static_cast<unsigned char*>(gdesc)[threadIdx.x * 4 + 3];
  }
  int k = 0;  // stores issued so far: the store pipeline's stage runs on across groups
  for (int group = 0; group < 2; ++group) {
    for (int s = 0; s < subtiles; ++s, ++k) {
      float* stage = sD[k % kStages];
      for (int i = threadIdx.x; i < kBox; i += blockDim.x) stage[i] = 1 + group * 100 + s;
      fence_proxy_async_shared();
      named_barrier_sync(kEpilogueBarrier, blockDim.x);
      if (warp == 0) {
        if (elect_one()) tma_store_2d(gdesc, s * kBox, 0, stage);
        bulk_commit_group();
        bulk_wait_group_read<kStages - 1>();
      }
      named_barrier_sync(kEpilogueBarrier, blockDim.x);
    }
    if (group == 0 && warp == 0) {  // the batch changes: point the descriptor at the next D
      if (kFixed) {
        bulk_commit_group();
        bulk_wait_group_read<0>();
      }
      if (elect_one()) tensormap_replace_address(sdesc, next_d);
      __syncwarp();
      tensormap_cp_fence_release(gdesc, sdesc);
      tensormap_fence_acquire(gdesc);
    }
  }
  if (warp == 0) bulk_wait_group_read<0>();
}

extern "C" __global__ void epilogue_shipped(void* gdesc, const float* next_d, int subtiles) {
  epilogue<false>(gdesc, next_d, subtiles);
}

extern "C" __global__ void epilogue_fixed(void* gdesc, const float* next_d, int subtiles) {
  epilogue<true>(gdesc, next_d, subtiles);
}
