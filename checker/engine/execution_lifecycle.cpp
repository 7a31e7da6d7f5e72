// An execution's life: construction, renewal and teardown, with the
// storage (vectors, arenas) handed from one execution to the next.
#include <atomic>
#include <memory>
#include <vector>

#include "checker/engine/execution.hpp"

namespace heddle {
namespace {
// Arenas of finished executions on this OS thread, for the next ones: an
// execution's model objects then cost no heap allocation. (Nested
// executions each take their own.)
thread_local std::vector<std::unique_ptr<Arena>> t_spare_arenas;

// A serial no other execution of the process has: each OS thread takes
// them in blocks, so that split runs' workers do not share a counter's
// cache line every execution.
std::uint64_t next_serial() {
  constexpr std::uint64_t kBlock = 4096;
  static std::atomic<std::uint64_t> blocks{0};
  thread_local std::uint64_t next = 0, end = 0;
  if (next == end) {
    next = blocks.fetch_add(1) * kBlock + 1;
    end = next + kBlock;
  }
  return next++;
}
}  // namespace

Execution::Execution(ExecutionLimits limits, StackPool& pool) : limits_(limits), pool_(pool) {
  previous_ = detail::current_execution;
  detail::current_execution = this;
  set_model_exit_hook(&Execution::on_model_exit);
  serial_ = next_serial();
  // The previous execution's vectors, empty, with their capacity (its
  // sizes, which this one's likely reaches: no regrowth, no string moves).
  // (One reference: each use of the thread_local would call its TLS wrapper.)
  Spare& spare = spare_;
  agents_ = std::move(spare.agents);
  ready_ = std::move(spare.ready);
  name_hash_ = std::move(spare.name_hash);
  setup_names_ = SetupNames(std::move(spare.object_names));
  object_creators_ = std::move(spare.object_creators);
  described_ = std::move(spare.described);
  owned_ = std::move(spare.owned);
  enabled_ = std::move(spare.enabled);
  take_arena();
}

void Execution::take_arena() {
  // Two arenas take turns: consecutive executions never place their
  // objects at the same addresses, so an object kept from the previous
  // execution is caught (its serial) instead of aliasing a fresh one.
  if (t_spare_arenas.size() < 2) {
    arena_ = new Arena;
  } else {
    // The front one (the last returned is at the back), with no shift.
    arena_ = t_spare_arenas.front().release();
    t_spare_arenas.front() = std::move(t_spare_arenas.back());
    t_spare_arenas.pop_back();
  }
}

Execution::~Execution() {
  tear_down();
  release_kept_threads();
  pool_.give_back(std::move(host_fiber_));
  give_back_vectors();
  detail::current_execution = previous_;
}

void Execution::renew() {
  tear_down();
  take_arena();
  setup_names_.renew();
  // Every other member as the constructor leaves it (previous_ stays).
  now_ = Now{};
  pick_error_ = nullptr;
  exit_checks_.clear();
  observed_.clear();
  notes_.clear();
  restrictions_.clear();
  trace_.clear();
  choices_.clear();
  bug_.reset();
  host_.reset();
  serial_ = next_serial();
}

void Execution::tear_down() noexcept {
  // While this execution is still current (model destructors may touch it):
  // unwind the fibers stopped inside a body (the idle ones stay with their
  // agents), then destroy the thread bodies, the agents and the model objects.
  for (auto& a : agents_)
    if (a->kind == Agent::Kind::thread)
      if (auto& t = static_cast<ThreadAgent&>(*a); !t.fiber->idle()) pool_.give_back(std::move(t.fiber));
  for (auto& a : agents_)
    if (a->kind == Agent::Kind::thread) static_cast<ThreadAgent&>(*a).body = nullptr;
  if (kept_threads_.size() < agents_.size()) kept_threads_.resize(agents_.size());
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    if (agents_[i]->kind != Agent::Kind::thread) continue;
    // (A place whose kept agent this execution did not take has an async agent now.)
    kept_threads_[i].reset(static_cast<ThreadAgent*>(agents_[i].release()));
  }
  agents_.clear();
  for (const Owned& o : owned_) o.destroy(o.object);
  owned_.clear();
  arena_->rewind();
  t_spare_arenas.emplace_back(arena_);
  arena_ = nullptr;
  ready_.clear();
  object_creators_.clear();
  described_.clear();
  enabled_.clear();
}

thread_local Execution::Spare Execution::spare_;

void Execution::give_back_vectors() noexcept {
  // (tear_down emptied them.)
  Spare& spare = spare_;
  spare.agents = std::move(agents_);
  spare.ready = std::move(ready_);
  spare.name_hash = std::move(name_hash_);
  spare.object_names = std::move(setup_names_).release();
  spare.object_creators = std::move(object_creators_);
  spare.described = std::move(described_);
  spare.owned = std::move(owned_);
  spare.enabled = std::move(enabled_);
}

}  // namespace heddle
