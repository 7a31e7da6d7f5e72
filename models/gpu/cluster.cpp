#include "models/gpu/cluster.hpp"

#include <fmt/format.h>

#include "models/gpu/grid.hpp"

namespace heddle::gpu {

void ClusterBarrier::arrive(ClusterArrive sem, std::source_location loc) {
  const std::uint32_t me = index(Execution::current().self()->id);
  if (arrived_in_.count(me) != 0)
    throw ModelError(fmt::format("{}: barrier.cluster.arrive twice without a "
                                 "barrier.cluster.wait between (PTX ISA §9.7.13.3: each arrive "
                                 "is followed by a wait)",
                                 name()),
                     loc);
  announce();
  visible(sem == ClusterArrive::release ? "barrier.cluster.arrive.release"
                                        : "barrier.cluster.arrive.relaxed",
          all_phases(id()), loc);
  // PTX ISA §9.7.13.3: .release (the default) orders the thread's prior
  // accesses before every wait of the phase; .relaxed orders nothing.
  // Arrivals commute as a named barrier's do (barriers.cpp).
  arrived_in_[me] = arrive_as_self(count_, loc, sem == ClusterArrive::release);
}

void ClusterBarrier::wait(std::source_location loc) {
  const std::uint32_t me = index(Execution::current().self()->id);
  auto it = arrived_in_.find(me);
  if (it == arrived_in_.end())
    throw ModelError(fmt::format("{}: barrier.cluster.wait without a barrier.cluster.arrive "
                                 "before it (PTX ISA §9.7.13.3)",
                                 name()),
                     loc);
  const std::uint64_t mine = it->second;
  arrived_in_.erase(it);
  // PTX ISA §9.7.13.3: wait has .acquire semantics (its only form).
  wait_phase("barrier.cluster.wait", mine, loc);
}

void barrier_cluster_arrive(ClusterArrive sem, std::source_location loc) {
  const ThreadInfo& t = this_thread(loc);
  current_grid(loc).cluster_barrier(t.cluster).arrive(sem, loc);
}

void barrier_cluster_wait(std::source_location loc) {
  const ThreadInfo& t = this_thread(loc);
  current_grid(loc).cluster_barrier(t.cluster).wait(loc);
}

void cluster_sync(std::source_location loc) {
  barrier_cluster_arrive(ClusterArrive::release, loc);
  barrier_cluster_wait(loc);
}

}  // namespace heddle::gpu
