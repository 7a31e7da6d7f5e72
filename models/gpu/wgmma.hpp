// Asynchronous warpgroup MMA (PTX ISA §9.7.15, wgmma): mma_async as an
// async agent that reads its shared-memory operands in the async proxy and
// updates its accumulator some time after it is issued; per-thread
// wgmma-groups (commit_group, wait_group N) order its completion.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <source_location>
#include <string>

#include "models/gpu/bulk.hpp"

namespace heddle::gpu {

/// Warpgroup accumulator registers: a private buffer of `n` elements
/// (initialised to `init`), written by the thread and by its wgmmas.
template <class T>
View<T> accumulator(std::string name, std::size_t n, T init = T{}) {
  return View<T>(buffer<T>(std::move(name), n, init), 0, n);
}

/// wgmma.fence.sync.aligned: orders the warpgroup's earlier register
/// accesses before the mma_async that follow (PTX ISA §9.7.15, wgmma.fence:
/// required before the first mma_async and between a register access and
/// an mma_async using those registers). Thread-local: no scheduling point.
void wgmma_fence(std::source_location loc = std::source_location::current());

/// wgmma.commit_group.sync.aligned: batches this thread's uncommitted
/// mma_async into a new wgmma-group (possibly empty).
void wgmma_commit_group();

/// wgmma.wait_group.sync.aligned N: blocks until at most the N newest
/// wgmma-groups are pending and all older ones are complete (their operand
/// reads and accumulator writes happen before what follows).
void wgmma_wait_group(std::uint32_t n,
                      std::source_location loc = std::source_location::current());

/// The mma_async of this thread not yet waited (for tests and checks).
std::size_t wgmma_pending();

namespace detail {
/// Issues one mma_async of the running thread: `effect` runs in its phase
/// (as the async agent); `fp` is what it touches.
void issue_wgmma(std::string name, Footprint fp, std::function<void()> effect,
                 std::source_location loc);
/// "sA[0:4]" or "sA" (the whole region).
std::string view_text(const Region& r, std::size_t first, std::size_t count);
}  // namespace detail

/// wgmma.mma_async: acc[i] += sum_k a[i * K + k] * b[k] with K = b.size(),
/// a and b in shared memory. The operands are read in the async proxy
/// (PTX ISA §9.7.15: "performed in the async proxy"), so the thread's
/// generic writes to them need fence.proxy.async first; the reads and the
/// accumulator update happen at the mma's own step, after the issue and
/// before the wait_group that covers it. A stage released before that wait
/// may be overwritten while the mma still reads it.
template <class T>
void wgmma_mma_async(const View<T>& acc, const View<T>& a, const View<T>& b,
                     std::source_location loc = std::source_location::current()) {
  if (a.size() != acc.size() * b.size())
    throw ModelError("wgmma_mma_async: a must hold acc.size() * b.size() elements", loc);
  Span sa = span(a), sb = span(b), sc = span(acc);
  std::string name = "wgmma " + detail::view_text(*sa.region, sa.first, sa.count) + " x " +
                     detail::view_text(*sb.region, sb.first, sb.count);
  detail::issue_wgmma(
      std::move(name), {sa.touches(false), sb.touches(false), sc.touches(true)},
      [=] {
        sa.region->access(sa.first, sa.count, false, Proxy::async, "wgmma.read_a", loc);
        sb.region->access(sb.first, sb.count, false, Proxy::async, "wgmma.read_b", loc);
        // Registers are not memory of any proxy: the accumulator is checked
        // as generic accesses (a thread read before wait_group races).
        sc.region->access(sc.first, sc.count, true, Proxy::generic, "wgmma.write_acc", loc);
        auto get = [](const Span& s, std::size_t i) {
          T v;
          std::memcpy(&v, s.region->bytes() + (s.first + i) * sizeof(T), sizeof(T));
          return v;
        };
        for (std::size_t i = 0; i < sc.count; ++i) {
          T c = get(sc, i);
          for (std::size_t k = 0; k < sb.count; ++k) c += get(sa, i * sb.count + k) * get(sb, k);
          std::memcpy(sc.region->bytes() + (sc.first + i) * sizeof(T), &c, sizeof(T));
        }
      },
      loc);
}

}  // namespace heddle::gpu
