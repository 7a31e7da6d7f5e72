// CUTLASS / CuTe vocabulary over the Hopper semantic core: TMA store
// pipeline calls, proxy fences, tensormap updates and PipelineTmaAsync.
#pragma once
#include <source_location>
#include <vector>

#include "models/gpu/bulk.hpp"
#include "models/gpu/wgmma.hpp"

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

/// cute::elect_one_sync(): true in the one lane elected. A heddle thread
/// stands for its warp's elected lane, so it is always the one.
inline bool elect_one_sync() { return true; }

/// cute::warpgroup_arrive(): wgmma.fence (PTX ISA §9.7.15).
inline void warpgroup_arrive(std::source_location loc = std::source_location::current()) {
  wgmma_fence(loc);
}
/// cute::warpgroup_commit_batch(): wgmma.commit_group.
inline void warpgroup_commit_batch() { wgmma_commit_group(); }
/// cute::warpgroup_wait<N>(): wgmma.wait_group N.
template <int N>
void warpgroup_wait(std::source_location loc = std::source_location::current()) {
  wgmma_wait_group(N, loc);
}
/// cute::warpgroup_fence_operand(acc): a compiler-only register fence; no
/// memory effect to model.
template <class T>
void warpgroup_fence_operand(const View<T>&) {}
/// cute::gemm(mma, A, B, acc) for one wgmma: wgmma.mma_async (see wgmma.hpp).
template <class T>
void gemm(const View<T>& acc, const View<T>& a, const View<T>& b,
          std::source_location loc = std::source_location::current()) {
  wgmma_mma_async(acc, a, b, loc);
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
  /// producer_commit(state, bytes): a no-op for TMA pipelines (the TMA
  /// unit's complete_tx is what completes full[s]).
  void producer_commit(const PipelineState&, std::uint32_t = 0) {}
  /// producer_tail(state): waits on every empty barrier from `s` on, so the
  /// CTA does not exit while consumers still read (advances `s`).
  void producer_tail(PipelineState& s,
                     std::source_location loc = std::source_location::current()) {
    for (std::uint32_t i = 0; i < stages(); ++i, ++s) empty(s).wait_parity(s.phase, loc);
  }
  /// The token consumer_try_wait returns (CUTLASS's ConsumerToken).
  enum class BarrierStatus { WaitAgain, WaitDone };
  /// full[s].try_wait(phase) without blocking.
  BarrierStatus consumer_try_wait(const PipelineState& s,
                                  std::source_location loc = std::source_location::current()) {
    return full(s).try_wait_parity(s.phase, loc) ? BarrierStatus::WaitDone
                                                 : BarrierStatus::WaitAgain;
  }
  /// full[s].wait(phase), unless a try_wait already saw it complete.
  void consumer_wait(const PipelineState& s, BarrierStatus token = BarrierStatus::WaitAgain,
                     std::source_location loc = std::source_location::current()) {
    if (token == BarrierStatus::WaitAgain) full(s).wait_parity(s.phase, loc);
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
