// Pallas Mosaic GPU vocabulary (jax.experimental.pallas.mosaic_gpu names)
// over the Hopper semantic core. A Pallas thread is a warpgroup; warp_map
// runs a function in the four warps of the calling warpgroup.
#pragma once
#include <functional>
#include <source_location>
#include <string>

#include "models/gpu/bulk.hpp"

namespace heddle::gpu::pallas {

/// plgpu.Barrier(num_arrivals): one mbarrier per CTA.
using Barrier = PerCta<Mbarrier*>;

/// Allocates plgpu.Barrier(num_arrivals=n) in every CTA.
inline Barrier barrier(const std::string& name, std::uint32_t num_arrivals) {
  return per_cta<Mbarrier>(name, num_arrivals);
}

/// plgpu.copy_gmem_to_smem(src, dst, barrier) on spans and the barrier of
/// this CTA (or thread): expect the bytes on the barrier (one arrival by the
/// issuer) and start a TMA load that completes them.
inline void copy_gmem_to_smem(const Span& src, const Span& dst, Mbarrier& m,
                              std::source_location loc = std::source_location::current()) {
  m.arrive_expect_tx(static_cast<std::uint32_t>(dst.bytes()), loc);
  bulk_load(dst, src, m, loc);
}

/// plgpu.copy_gmem_to_smem(src, dst, barrier) on typed views.
template <class T>
void copy_gmem_to_smem(const View<T>& src, const View<T>& dst, const Barrier& b,
                       std::source_location loc = std::source_location::current()) {
  copy_gmem_to_smem(span(src), span(dst), *b.local(loc), loc);
}

/// plgpu.copy_smem_to_gmem(src, dst, commit_group=True) on spans.
inline void copy_smem_to_gmem(const Span& src, const Span& dst, bool commit_group = true,
                              std::source_location loc = std::source_location::current()) {
  bulk_store(dst, src, loc);
  if (commit_group) bulk_commit_group();
}

/// plgpu.copy_smem_to_gmem(src, dst, commit_group=True) on typed views.
template <class T>
void copy_smem_to_gmem(const View<T>& src, const View<T>& dst, bool commit_group = true,
                       std::source_location loc = std::source_location::current()) {
  copy_smem_to_gmem(span(src), span(dst), commit_group, loc);
}

/// plgpu.commit_smem(): fence.proxy.async (generic SMEM writes become
/// visible to this thread's later TMA ops).
inline void commit_smem(std::source_location loc = std::source_location::current()) {
  fence_proxy_async(loc);
}

/// plgpu.wait_smem_to_gmem(n, wait_read_only).
inline void wait_smem_to_gmem(std::uint32_t n, bool wait_read_only = false,
                              std::source_location loc = std::source_location::current()) {
  if (wait_read_only)
    bulk_wait_group_read(n, loc);
  else
    bulk_wait_group(n, loc);
}

/// plgpu.barrier_arrive(barrier).
inline void barrier_arrive(const Barrier& b,
                           std::source_location loc = std::source_location::current()) {
  b.local(loc)->arrive(loc);
}

/// plgpu.barrier_wait on mbarrier `m`: waits for the next phase this thread
/// has not observed (the parity is tracked per thread and barrier).
inline void barrier_wait(Mbarrier& m, std::source_location loc = std::source_location::current()) {
  std::uint32_t& parity = current_grid(loc).current(loc).parity[&m];
  m.wait_parity(parity, loc);
  parity ^= 1u;
}

/// plgpu.barrier_wait(barrier): on this CTA's barrier.
inline void barrier_wait(const Barrier& b,
                         std::source_location loc = std::source_location::current()) {
  barrier_wait(*b.local(loc), loc);
}

/// plgpu.barrier_arrive_and_wait(barrier).
inline void barrier_arrive_and_wait(const Barrier& b,
                                    std::source_location loc = std::source_location::current()) {
  barrier_arrive(b, loc);
  barrier_wait(b, loc);
}

/// plgpu.warp_map: runs f(warp_id) in four new warp threads of the caller's
/// warpgroup, named "<caller>.warp<i>". Code after warp_map in the caller is
/// not ordered after the warps: put it inside f.
inline void warp_map(std::function<void(int)> f,
                     std::source_location loc = std::source_location::current()) {
  const ThreadInfo& me = this_thread(loc);
  for (int w = 0; w < 4; ++w)
    current_grid(loc).spawn_in_cta(me, me.name + ".warp" + std::to_string(w), w,
                                   [f, w](const ThreadInfo&) { f(w); });
}

}  // namespace heddle::gpu::pallas
