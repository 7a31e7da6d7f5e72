#include "models/tpu/semaphore.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace heddle::tpu {

Access signal_access(const TpuSemaphore& s) {
  return update_of(s.id(), update_in_phase(Update::signal));
}

Access queue_access(const TpuSemaphore& s, bool write) { return Access{s.id(), 1, 2, write}; }

Access demand_access(const TpuSemaphore& s, bool write) { return Access{s.id(), 2, 3, write}; }

Footprint on_wait_entries(const TpuSemaphore& s) {
  if (Mesh::current().dma_order() != DmaOrder::on_wait) return {};
  return {queue_access(s, true), demand_access(s, false)};
}

void TpuSemaphore::signal(std::uint32_t inc, const char* op, std::source_location loc) {
  visible(op, signal_access(*this), loc);
  add(inc);
}

namespace {
// Replaces the running step's entry on the count ([0, 1) of the semaphore)
// by `counted`, keeping its on_wait queue and demand entries.
void refine_count(const Access& counted) {
  auto& ex = Execution::current();
  if (ex.self() == nullptr || ex.trace().empty() || ex.trace().back().agent != ex.self()->id)
    return;  // inside another agent's step (an eager DMA): no record of its own
  Footprint fp = ex.trace().back().footprint;
  auto on_count = [&](const Access& a) {
    return a.object == counted.object && a.lo == 0 && a.hi == 1;
  };
  fp.erase(std::remove_if(fp.begin(), fp.end(), on_count), fp.end());
  fp.push_back(counted);
  ex.refine_footprint(std::move(fp));
}

// Units for DPOR's reversibility test of a wait (dpor::token_available):
// a take of `value`, clamped to what Access holds; none under eager DMAs,
// whose completions change the count inside the starting thread's step,
// where no count is recorded.
std::int8_t take_token(std::uint32_t value) {
  if (Mesh::current().dma_order() == DmaOrder::eager) return 0;
  return static_cast<std::int8_t>(-saturated_units(value));
}
}  // namespace

void TpuSemaphore::add(std::uint32_t inc) {
  // The step records the units it gave and the count before it (saturated:
  // 127 means "at least"), as a counting semaphore's signal does.
  Access counted = signal_access(*this);
  counted.token = saturated_units(std::max(inc, 1u));
  counted.before = saturated_units(count_);
  refine_count(counted);
  count_ += inc;
  Execution::current().release(sync_);
}

namespace {
// A thread that reaches a wait changes what the semaphore's waiters need,
// which enables dma_order=on_wait DMAs (nothing else looks at it): the step that brought it here
// (its previous visible operation) modifies the semaphore, for DPOR.
void arriving_modifies(const TpuSemaphore& s) {
  if (Mesh::current().dma_order() != DmaOrder::on_wait) return;  // only on_wait DMAs ask
  auto& ex = Execution::current();
  if (ex.trace().empty() || ex.self() == nullptr || ex.trace().back().agent != ex.self()->id)
    return;  // arrived before the first step: part of the initial state
  Footprint fp = ex.trace().back().footprint;
  fp.push_back(demand_access(s, true));
  ex.refine_footprint(std::move(fp));
}
}  // namespace

void TpuSemaphore::wait(std::uint32_t value, const char* op, std::source_location loc) {
  arriving_modifies(*this);
  needs_.push_back(value);
  auto ready = [this, value] { return count_ >= value; };
  const std::int8_t take = take_token(value);
  visible(op, true, loc, ready, take);
  needs_.erase(std::find(needs_.begin(), needs_.end(), value));
  if (count_ < value)
    throw std::logic_error("[heddle bug] semaphore wait ran while its count was too low");
  if (take != 0) Execution::current().refine_access(Access{id(), 0, 1, true, take, saturated_units(count_)});
  count_ -= value;
  Execution::current().acquire(sync_);
}

std::uint32_t TpuSemaphore::read(std::source_location loc) {
  visible("semaphore_read", false, loc);
  Execution::current().acquire(sync_);
  return static_cast<std::uint32_t>(count_);
}

bool TpuSemaphore::starved() const noexcept {
  return std::any_of(needs_.begin(), needs_.end(), [&](std::uint32_t n) { return n > count_; });
}

TpuSemaphore& Sem::on(std::uint32_t device, std::uint32_t core) const {
  auto& mesh = Mesh::current();
  if (device >= mesh.devices() || core >= mesh.cores())
    throw ModelError(fmt::format("semaphore {} addressed on device {} core {}, but the mesh has "
                                 "{} devices of {} cores",
                                 family_->name, device, core, mesh.devices(), mesh.cores()));
  return *family_->instances[mesh.instance(device, core)];
}

TpuSemaphore& Sem::here(std::source_location loc) const {
  auto c = Mesh::current().here(loc);
  return on(c.device, c.core);
}

Sem make_semaphore(Mesh& mesh, std::string name, SemKind kind) {
  auto& f = heddle::make<SemFamily>();
  f.name = name;
  f.kind = kind;
  for (std::uint32_t d = 0; d < mesh.devices(); ++d)
    for (std::uint32_t c = 0; c < mesh.cores(); ++c) {
      auto& s = heddle::make<TpuSemaphore>(fmt::format("{}.{}", mesh.core_name(d, c), name), kind);
      f.instances.push_back(&s);
      mesh.add_semaphore(s);
    }
  return Sem(f);
}

Sem dma_semaphore(std::string name) {
  return make_semaphore(Mesh::current(), std::move(name), SemKind::dma);
}

Sem semaphore(std::string name) {
  return make_semaphore(Mesh::current(), std::move(name), SemKind::regular);
}

std::vector<Sem> dma_semaphores(std::string name, std::size_t n) {
  std::vector<Sem> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(dma_semaphore(fmt::format("{}[{}]", name, i)));
  return out;
}

std::vector<Sem> semaphores(std::string name, std::size_t n) {
  std::vector<Sem> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(semaphore(fmt::format("{}[{}]", name, i)));
  return out;
}

Sem get_barrier_semaphore() { return Mesh::current().barrier(); }

void semaphore_signal(const Sem& sem, std::uint32_t inc, std::optional<std::uint32_t> device_id,
                      std::optional<std::uint32_t> core_index, std::source_location loc) {
  if (sem.kind() == SemKind::dma)
    throw ModelError(fmt::format("semaphore_signal on DMA semaphore {}: only DMAs signal DMA "
                                 "semaphores; use a REGULAR semaphore",
                                 sem.name()),
                     loc);
  auto here = Mesh::current().here(loc);
  auto& target = sem.on(device_id.value_or(here.device), core_index.value_or(here.core));
  target.signal(inc, device_id ? "semaphore_signal.remote" : "semaphore_signal", loc);
}

void semaphore_wait(const Sem& sem, std::uint32_t value, std::source_location loc) {
  if (sem.kind() == SemKind::dma)
    throw ModelError(fmt::format("semaphore_wait on DMA semaphore {}: wait on the DMA "
                                 "descriptor (.wait(), .wait_recv(), .wait_send()) instead",
                                 sem.name()),
                     loc);
  sem.here(loc).wait(value, "semaphore_wait", loc);
}

std::uint32_t semaphore_read(const Sem& sem, std::source_location loc) {
  return sem.here(loc).read(loc);
}

}  // namespace heddle::tpu
