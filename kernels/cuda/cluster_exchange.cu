// A ring exchange through distributed shared memory (Hopper thread block
// clusters): each CTA of a 2-CTA cluster writes its own shared memory, the
// cluster syncs (barrier.cluster.arrive + wait, PTX ISA 9.7.13.3), and each
// CTA reads its neighbour's copy through cluster.map_shared_rank (mapa,
// PTX ISA 9.7.9.22). exchange_unsynced leaves out that sync: the read races
// with the neighbour's write. The last sync keeps each CTA's shared memory
// alive until its neighbour has read it.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

template <bool kSync>
__device__ void exchange(int* out) {
  __shared__ int slot[32];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  slot[threadIdx.x] = 100 * rank + threadIdx.x;
  if (kSync) cluster.sync();
  int* peer = cluster.map_shared_rank(slot, (rank + 1) % cluster.num_blocks());
  out[rank * blockDim.x + threadIdx.x] = peer[threadIdx.x];
  cluster.sync();
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) exchange_synced(int* out) { exchange<true>(out); }

extern "C" __global__ void __cluster_dims__(2, 1, 1) exchange_unsynced(int* out) { exchange<false>(out); }
