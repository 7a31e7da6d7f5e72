#include "models/gpu/cta_sync.hpp"

#include "models/gpu/barriers.hpp"
#include "models/gpu/grid.hpp"

namespace heddle::gpu {

void bar_sync(int id, std::uint32_t count, std::source_location loc) {
  const ThreadInfo& t = this_thread(loc);
  current_grid(loc).named_barrier(t.cta, id).sync(count, loc);
}

void bar_arrive(int id, std::uint32_t count, std::source_location loc) {
  const ThreadInfo& t = this_thread(loc);
  current_grid(loc).named_barrier(t.cta, id).arrive(count, loc);
}

void syncthreads(std::source_location loc) {
  bar_sync(0, static_cast<std::uint32_t>(current_grid(loc).threads_per_cta()), loc);
}

void syncwarp(std::source_location loc) {
  const ThreadInfo& t = this_thread(loc);
  Grid& g = current_grid(loc);
  if (NamedBarrier* b = g.warp_barrier(t.cta, t.warp))
    b->sync(static_cast<std::uint32_t>(g.threads_in_warp(t.warp)), loc);
}

}  // namespace heddle::gpu
