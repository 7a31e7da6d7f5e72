// A Hopper kernel launch: a grid of CTAs (optionally in clusters), the
// heddle threads of each CTA (a warp, a warpgroup, an elected lane: what the
// model chooses), global-memory addresses and per-thread GPU state.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "checker/heddle.hpp"
#include "models/gpu/bulk_state.hpp"

namespace heddle::gpu {

class Mbarrier;
class NamedBarrier;
class ClusterBarrier;

/// One heddle thread of a CTA: its role name and the warp it belongs to.
struct ThreadSpec {
  std::string name;
  int warp = -1;  // -1: its own warp (the thread's index)
};

/// The shape of a launch. Thread names are prefixed "cta{c}." when ctas > 1.
struct LaunchConfig {
  int ctas = 1;                          // CTAs in the grid
  int cluster = 1;                       // CTAs per cluster (divides ctas)
  std::vector<ThreadSpec> threads{{"t0"}};  // the heddle threads of every CTA
  /// --ptx-strict: a bulk wait_group(.read) covers no TMA load's tensormap
  /// read (the ISA's letter) instead of the earlier ones of its thread (the default).
  bool ptx_strict = false;
};

/// Where a running heddle thread sits in the launch.
struct ThreadInfo {
  int cta = 0;           // CTA index in the grid
  int cluster = 0;       // cluster index
  int rank = 0;          // CTA rank inside its cluster (%cluster_ctarank)
  int thread = 0;        // index among the CTA's heddle threads
  int warp = 0;          // warp the thread belongs to
  std::string name;      // agent name
};

/// Per-thread GPU state: position, bulk async-groups, Pallas barrier parities.
struct ThreadState {
  ThreadInfo info;
  BulkQueue bulk;                                    // this thread's bulk async-groups
  BulkQueue wgmma;                                   // this thread's wgmma-groups
  BulkQueue cp_async;                                // this thread's cp.async-groups
  std::vector<BulkOp*> cp_issued;                    // every cp.async it issued
  BulkOp* last_wgmma = nullptr;  // the newest mma_async (they run in issue order)
  bool wgmma_fenced = false;  // a wgmma.fence since the last wgmma.wait_group (or the start)
  std::map<const Mbarrier*, std::uint32_t> parity;   // next parity each barrier_wait expects
  std::uint32_t issued = 0;                          // async ops issued so far
};

/// A global-memory region at a global address (what tensormaps point to).
struct Mapping {
  std::uint64_t base = 0;
  Region* region = nullptr;
};

/// One execution's launch: threads, named barriers and the global address map.
/// Created by grid() in a kernel's setup; kernel code reaches it through
/// current_grid() and this_thread().
class Grid {
 public:
  explicit Grid(LaunchConfig cfg);
  ~Grid();
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;
  const LaunchConfig& config() const noexcept { return cfg_; }
  int threads_per_cta() const noexcept { return static_cast<int>(cfg_.threads.size()); }

  /// Spawns every thread of every CTA running `body`; each thread's bulk
  /// stores are checked when it exits (unwaited read side: async_error).
  void launch(std::function<void(const ThreadInfo&)> body);
  /// Spawns an extra heddle thread in the caller's CTA (Pallas warp_map).
  void spawn_in_cta(const ThreadInfo& parent, std::string name, int warp,
                    std::function<void(const ThreadInfo&)> body);
  /// The state of the heddle thread running now; ModelError outside threads.
  ThreadState& current(std::source_location loc = std::source_location::current());

  /// Gives `r` a global address (256-byte aligned) and returns it.
  std::uint64_t map_global(Region& r);
  /// Maps `r` at global address `base` (a program's device memory,
  /// models/cuda); ModelError when it overlaps a mapping.
  void map_global_at(Region& r, std::uint64_t base);
  /// The region and byte offset at global address `addr` spanning `bytes`;
  /// nullopt-like {nullptr} when unmapped.
  std::pair<Region*, std::size_t> resolve(std::uint64_t addr, std::size_t bytes) const;
  /// The global address of `r` (ModelError when it is not global memory).
  std::uint64_t address_of(const Region& r) const;

  /// Named barrier `id` (0..15) of CTA `cta`; barrier 0 is __syncthreads.
  NamedBarrier& named_barrier(int cta, int id);
  /// The barrier __syncwarp uses for (cta, warp), or nullptr when the warp has one thread.
  NamedBarrier* warp_barrier(int cta, int warp);
  /// Heddle threads of the caller's warp.
  int threads_in_warp(int warp) const;
  /// The barrier.cluster barrier of cluster `cluster` (every thread of its CTAs).
  ClusterBarrier& cluster_barrier(int cluster);

 private:
  ThreadInfo info_for(int cta, int thread) const;
  void spawn_thread(ThreadInfo info, std::function<void(const ThreadInfo&)> body);

  LaunchConfig cfg_;
  std::map<std::uint32_t, std::unique_ptr<ThreadState>> threads_;  // by agent index
  std::vector<Mapping> mappings_;  // disjoint: at most one holds an address
  mutable std::size_t last_hit_ = 0;  // the mapping resolve() found last, tried first
  std::uint64_t next_address_ = 0x7f0000000000ull;
  std::map<std::pair<int, int>, NamedBarrier*> named_;
  std::map<std::pair<int, int>, NamedBarrier*> warps_;
  std::map<int, ClusterBarrier*> clusters_;
};

/// Creates the launch of the execution being set up (call once, first).
Grid& grid(LaunchConfig cfg);
/// The launch of the current execution; ModelError when grid() was not called.
Grid& current_grid(std::source_location loc = std::source_location::current());
/// Where the running heddle thread sits.
const ThreadInfo& this_thread(std::source_location loc = std::source_location::current());

}  // namespace heddle::gpu
