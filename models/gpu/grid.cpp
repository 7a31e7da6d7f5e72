#include "models/gpu/grid.hpp"

#include <fmt/format.h>

#include "models/gpu/barriers.hpp"
#include "models/gpu/cluster.hpp"

namespace heddle::gpu {
namespace {
// The launch of the execution being built or run on this OS thread. Checked
// against the current execution so a stale pointer is never used.
thread_local Grid* t_grid = nullptr;  // cleared when that Grid dies
thread_local const Execution* t_grid_ex = nullptr;

// Kernel exit rule: a thread must have waited the read side of its bulk
// stores (its shared memory goes away); write sides finish at kernel end.
void check_bulk_at_exit(const ThreadState& s) {
  auto unfinished = [&](const BulkOp* op) {
    Execution::current().fail(
        Verdict::async_error,
        fmt::format("unfinished {} issued at {}", op->kind, where(op->issued_at)),
        {fmt::format("{} exited without waiting the read side of {} (cp.async.bulk.wait_group.read "
                     "/ tma_store_wait<0> / wait_smem_to_gmem(0, wait_read_only=True))",
                     s.info.name, op->name())});
  };
  // Tensor loads sit in the queue only so that wait_group.read covers their
  // tensormap reads; they complete on their mbarrier, which exit does not need.
  auto store = [](const BulkOp* op) { return !op->mbarrier_completed; };
  for (const BulkOp* op : s.bulk.uncommitted)
    if (store(op) && !op->read_waited) return unfinished(op);
  for (const auto& g : s.bulk.groups)
    for (const BulkOp* op : g)
      if (store(op) && !op->read_waited) return unfinished(op);
}
}  // namespace

Grid::Grid(LaunchConfig cfg) : cfg_(std::move(cfg)) {
  if (cfg_.ctas < 1 || cfg_.cluster < 1 || cfg_.ctas % cfg_.cluster != 0)
    throw ModelError(fmt::format("launch of {} CTAs in clusters of {}: the cluster size must "
                                 "divide the grid",
                                 cfg_.ctas, cfg_.cluster));
  if (cfg_.threads.empty()) throw ModelError("a launch needs at least one thread per CTA");
}

Grid::~Grid() {
  if (t_grid == this) t_grid = nullptr;
}

ThreadInfo Grid::info_for(int cta, int thread) const {
  ThreadInfo i;
  i.cta = cta;
  i.cluster = cta / cfg_.cluster;
  i.rank = cta % cfg_.cluster;
  i.thread = thread;
  const ThreadSpec& s = cfg_.threads[thread];
  i.warp = s.warp < 0 ? thread : s.warp;
  i.name = cfg_.ctas == 1 ? s.name : fmt::format("cta{}.{}", cta, s.name);
  return i;
}

void Grid::spawn_thread(ThreadInfo info, std::function<void(const ThreadInfo&)> body) {
  auto state = std::make_unique<ThreadState>();
  state->info = info;
  ThreadState* s = state.get();
  AgentId id = spawn(info.name, [s, body = std::move(body)] {
    body(s->info);
    check_bulk_at_exit(*s);
  });
  s->info.name = Execution::current().agents()[index(id)]->name;
  threads_[index(id)] = std::move(state);
}

void Grid::launch(std::function<void(const ThreadInfo&)> body) {
  for (int c = 0; c < cfg_.ctas; ++c)
    for (int t = 0; t < threads_per_cta(); ++t) spawn_thread(info_for(c, t), body);
}

void Grid::spawn_in_cta(const ThreadInfo& parent, std::string name, int warp,
                        std::function<void(const ThreadInfo&)> body) {
  ThreadInfo i = parent;
  i.name = std::move(name);
  i.warp = warp;
  spawn_thread(std::move(i), std::move(body));
}

ThreadState& Grid::current(std::source_location loc) {
  Agent* a = Execution::current().self();
  if (a == nullptr || a->kind != Agent::Kind::thread)
    throw ModelError("this GPU operation must run in a kernel thread (not in setup or a copy)",
                     loc);
  auto it = threads_.find(index(a->id));
  if (it == threads_.end())
    throw ModelError(a->name + " was not started by gpu::Grid::launch", loc);
  return *it->second;
}

std::uint64_t Grid::map_global(Region& r) {
  std::uint64_t base = next_address_;
  std::uint64_t bytes = r.size() * r.elem_size();
  next_address_ += (bytes + 255) / 256 * 256 + 256;  // a gap: overruns are unmapped
  mappings_.push_back(Mapping{base, &r});
  return base;
}

void Grid::map_global_at(Region& r, std::uint64_t base) {
  std::uint64_t bytes = r.size() * r.elem_size();
  for (const Mapping& m : mappings_)
    if (base < m.base + m.region->size() * m.region->elem_size() && m.base < base + bytes)
      throw ModelError(fmt::format("{} at {:#x} overlaps {} in global memory", r.name(), base,
                                   m.region->name()));
  mappings_.push_back(Mapping{base, &r});
}

std::pair<Region*, std::size_t> Grid::resolve(std::uint64_t addr, std::size_t bytes) const {
  auto holds = [addr, bytes](const Mapping& m) {
    std::uint64_t size = m.region->size() * m.region->elem_size();
    // Without overflow: an address near 2^64 plus its size wraps (issue 51, item 1).
    return addr >= m.base && bytes <= size && addr - m.base <= size - bytes;
  };
  // Accesses come in runs on one buffer: the last hit first (the mappings
  // are disjoint, so the answer is the one a full scan gives).
  if (last_hit_ < mappings_.size() && holds(mappings_[last_hit_]))
    return {mappings_[last_hit_].region, addr - mappings_[last_hit_].base};
  for (std::size_t i = 0; i < mappings_.size(); ++i)
    if (holds(mappings_[i])) {
      last_hit_ = i;
      return {mappings_[i].region, addr - mappings_[i].base};
    }
  return {nullptr, 0};
}

std::uint64_t Grid::address_of(const Region& r) const {
  for (const Mapping& m : mappings_)
    if (m.region == &r) return m.base;
  throw ModelError(r.name() + " is not global memory (allocate it with gpu::global)");
}

NamedBarrier& Grid::named_barrier(int cta, int id) {
  if (id < 0 || id > 15) throw ModelError(fmt::format("named barrier id {} is not in 0..15", id));
  auto& b = named_[{cta, id}];
  if (b == nullptr)
    b = &make<NamedBarrier>(cfg_.ctas == 1 ? fmt::format("bar{}", id)
                                           : fmt::format("bar{}@cta{}", id, cta));
  return *b;
}

int Grid::threads_in_warp(int warp) const {
  int n = 0;
  for (int t = 0; t < threads_per_cta(); ++t) n += info_for(0, t).warp == warp;
  return n;
}

NamedBarrier* Grid::warp_barrier(int cta, int warp) {
  if (threads_in_warp(warp) <= 1) return nullptr;
  auto& b = warps_[{cta, warp}];
  if (b == nullptr) b = &make<NamedBarrier>(fmt::format("warp{}@cta{}", warp, cta));
  return b;
}

ClusterBarrier& Grid::cluster_barrier(int cluster) {
  auto& b = clusters_[cluster];
  if (b == nullptr)
    b = &make<ClusterBarrier>(cfg_.ctas == cfg_.cluster ? std::string("barrier.cluster")
                                                        : fmt::format("barrier.cluster{}", cluster),
                              static_cast<std::uint32_t>(cfg_.cluster * threads_per_cta()));
  return *b;
}

Grid& grid(LaunchConfig cfg) {
  Grid& g = make<Grid>(std::move(cfg));
  t_grid = &g;
  t_grid_ex = &Execution::current();
  return g;
}

Grid& current_grid(std::source_location loc) {
  if (t_grid == nullptr || t_grid_ex != &Execution::current())
    throw ModelError("no GPU launch in this kernel: call gpu::grid({...}) first in its setup", loc);
  return *t_grid;
}

const ThreadInfo& this_thread(std::source_location loc) {
  return current_grid(loc).current(loc).info;
}

}  // namespace heddle::gpu
