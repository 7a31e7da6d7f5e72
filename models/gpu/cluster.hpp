// Cluster-wide synchronization (PTX ISA §9.7.13.3 barrier.cluster): every
// thread of every CTA of the cluster arrives, then waits for the phase it
// arrived in. arrive has .release semantics by default (.relaxed: none),
// wait has .acquire semantics. Distributed shared memory (a peer CTA's
// shared memory through mapa) is Shared<T>::peer(rank) (memory.hpp);
// remote mbarrier arrivals are mbarriers.peer(rank)->arrive().
#pragma once
#include <cstdint>
#include <map>
#include <source_location>
#include <string>

#include "models/gpu/barriers.hpp"

namespace heddle::gpu {

/// The semantics of a barrier.cluster.arrive.
enum class ClusterArrive { release, relaxed };

/// The barrier of one cluster: a phase completes when all of the cluster's
/// threads have arrived; a wait acquires the releases of the phase its
/// thread arrived in (a named barrier whose arrive and wait are split).
class ClusterBarrier : public NamedBarrier {
 public:
  /// A cluster barrier gathering `count` arrivals per phase (Grid::cluster_barrier).
  ClusterBarrier(std::string name, std::uint32_t count)
      : NamedBarrier(std::move(name)), count_(count) {}
  /// barrier.cluster.arrive{.release|.relaxed}: arrive without waiting.
  void arrive(ClusterArrive sem, std::source_location loc = std::source_location::current());
  /// barrier.cluster.wait{.acquire}: blocks until the caller's phase completes.
  void wait(std::source_location loc = std::source_location::current());

 private:
  std::uint32_t count_;                                // every thread of the cluster
  std::map<std::uint32_t, std::uint64_t> arrived_in_;  // by agent index: phase not yet waited
};

/// barrier.cluster.arrive (.release, or .relaxed) in the caller's cluster.
void barrier_cluster_arrive(ClusterArrive sem = ClusterArrive::release,
                            std::source_location loc = std::source_location::current());
/// barrier.cluster.wait (.acquire) in the caller's cluster.
void barrier_cluster_wait(std::source_location loc = std::source_location::current());
/// cute::cluster_sync(): barrier.cluster.arrive.release then barrier.cluster.wait.acquire.
void cluster_sync(std::source_location loc = std::source_location::current());

}  // namespace heddle::gpu
