// CUTLASS / CuTe vocabulary over the Hopper semantic core: TMA store
// pipeline calls, proxy fences, tensormap updates and PipelineTmaAsync.
#pragma once
#include <source_location>
#include <vector>

#include "models/gpu/bulk.hpp"

namespace heddle::gpu::cutlass {

/// cute::tma_store_arrive(): cp.async.bulk.commit_group.
inline void tma_store_arrive() { bulk_commit_group(); }

/// cute::tma_store_wait<N>(): cp.async.bulk.wait_group.read N.
template <int N>
void tma_store_wait(std::source_location loc = std::source_location::current()) {
  bulk_wait_group_read(N, loc);
}

/// cute::tma_desc_commit_group() and tma_desc_wait_group(): commit, then
/// cp.async.bulk.wait_group.read 0 (the v3.9.0 fix before a descriptor update).
inline void tma_desc_wait_all(std::source_location loc = std::source_location::current()) {
  bulk_commit_group();
  bulk_wait_group_read(0, loc);
}

/// cutlass::arch::fence_view_async_shared(): fence.proxy.async.shared::cta.
inline void fence_view_async_shared(std::source_location loc = std::source_location::current()) {
  fence_proxy_async(loc);
}

/// tma_descriptor_cp_fence_release(gmem, smem): tensormap.cp_fenceproxy ... release.gpu.
inline void tma_descriptor_cp_fence_release(
    const TensorMap& gmem, const TensorMap& smem,
    std::source_location loc = std::source_location::current()) {
  tensormap_cp_fenceproxy(gmem, smem, loc);
}

/// tma_descriptor_fence_acquire(gmem): fence.proxy.tensormap::generic.acquire.gpu.
inline void tma_descriptor_fence_acquire(
    const TensorMap& gmem, std::source_location loc = std::source_location::current()) {
  fence_proxy_tensormap_acquire(gmem, loc);
}

/// cutlass::PipelineState: stage index and phase bit, flipping on wrap.
struct PipelineState {
  std::uint32_t stages = 1;
  std::uint32_t index = 0;
  std::uint32_t phase = 0;
  std::uint32_t count = 0;
  /// operator++: next stage; the phase flips when the index wraps.
  PipelineState& operator++() {
    ++count;
    if (++index == stages) index = 0, phase ^= 1u;
    return *this;
  }
};

/// PipelineTmaAsync<S> for one CTA: full[s] (1 producer arrival plus the TMA
/// bytes) and empty[s] (one arrival per consumer thread).
class PipelineTmaAsync {
 public:
  PipelineTmaAsync(std::vector<Mbarrier*> full, std::vector<Mbarrier*> empty)
      : full_(std::move(full)), empty_(std::move(empty)) {}
  std::uint32_t stages() const noexcept { return static_cast<std::uint32_t>(full_.size()); }
  /// The producer's start state: phase 1, so the first empty waits pass.
  PipelineState make_producer_start_state() const { return {stages(), 0, 1, 0}; }
  /// The consumer's start state.
  PipelineState make_consumer_start_state() const { return {stages(), 0, 0, 0}; }
  /// empty[s].wait(phase); full[s].arrive_and_expect_tx(bytes).
  void producer_acquire(const PipelineState& s, std::uint32_t bytes,
                        std::source_location loc = std::source_location::current()) {
    empty(s).wait_parity(s.phase, loc);
    full(s).arrive_expect_tx(bytes, loc);
  }
  /// full[s].wait(phase).
  void consumer_wait(const PipelineState& s,
                     std::source_location loc = std::source_location::current()) {
    full(s).wait_parity(s.phase, loc);
  }
  /// empty[s].arrive().
  void consumer_release(const PipelineState& s,
                        std::source_location loc = std::source_location::current()) {
    empty(s).arrive(loc);
  }
  /// The barrier a TMA load of stage s completes on.
  Mbarrier& full(const PipelineState& s) const { return *full_.at(s.index); }
  /// The barrier consumers release stage s on.
  Mbarrier& empty(const PipelineState& s) const { return *empty_.at(s.index); }

 private:
  std::vector<Mbarrier*> full_;   // one per stage
  std::vector<Mbarrier*> empty_;
};

}  // namespace heddle::gpu::cutlass
