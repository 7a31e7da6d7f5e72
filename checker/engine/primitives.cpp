#include "checker/engine/primitives.hpp"

#include "checker/engine/guarded.hpp"
#include "checker/engine/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace heddle {

SyncObject::SyncObject(Execution& ex, std::string_view name)
    : id_(ex.add_object(name)), serial_(ex.serial()) {
  ex.add_described(id_, this);
}
std::string Mutex::describe() const {
  return owner_ != nullptr ? "held by " + owner_->name : std::string("free");
}

std::string Barrier::describe() const {
  return fmt::format("phase {}, {} of {} arrived", completed_.size(), arrived_, parties_);
}

const std::string& SyncObject::name() const { return Execution::current().object_name(id_); }

void SyncObject::stale(std::source_location loc) { throw stale_object_error("sync object", loc); }

void Mutex::lock(std::source_location loc) {
  auto free = [this] { return owner_ == nullptr; };
  visible("lock", true, loc, free, -1);
  auto& ex = Execution::current();
  owner_ = ex.self();
  ex.acquire(sync_);
}

void Mutex::unlock(std::source_location loc) {
  auto& ex = Execution::current();
  if (owner_ != ex.self())
    throw ModelError("unlock of mutex " + name() + " that this thread does not hold", loc);
  visible("unlock", true, loc, {}, +1);
  owner_ = nullptr;
  ex.release(sync_);
}

bool Mutex::try_lock(std::source_location loc) {
  visible("try_lock", true, loc, {}, -1);
  auto& ex = Execution::current();
  if (owner_ != nullptr) {
    ex.refine_footprint(Footprint{Access{id_, 0, 1, false}});
    return false;
  }
  owner_ = ex.self();
  ex.acquire(sync_);
  return true;
}

namespace {
// A semaphore operation's footprint once it ran: its token and the units
// available before it, so that DPOR knows whether a wait moved before it
// could have run (JACM 2017's reversible races, for counting resources).
Footprint counted(ObjectId id, std::int8_t token, std::uint32_t before, UpdateClass cls = 0) {
  return Footprint{
      Access{id, 0, 1, true, token, saturated_units(before), false, cls}};
}
// Signals commute: count += n and the release joins commute in either
// order, and a signal neither blocks nor unblocks another signal. A wait
// (a take that can block on the count) conflicts with them.
constexpr UpdateClass kSignal = update_in_phase(Update::signal);
}  // namespace

void Semaphore::wait(std::source_location loc) {
  auto positive = [this] { return count_ > 0; };
  visible("wait", true, loc, positive, -1);
  auto& ex = Execution::current();
  if (ex.pending_slot() != nullptr) ex.refine_footprint(counted(id_, -1, count_));
  --count_;
  ex.acquire(sync_);
}

void Semaphore::signal(std::uint32_t n, std::source_location loc) {
  visible("signal", Access{id_, 0, 1, true, +1, -1, false, kSignal}, loc);
  auto& ex = Execution::current();
  if (ex.pending_slot() != nullptr) ex.refine_footprint(counted(id_, +1, count_, kSignal));
  if (n > UINT32_MAX - count_)
    throw ModelError(fmt::format("semaphore {} overflows: {} + {} is over its limit of {}",
                                 name(), count_, n, UINT32_MAX),
                     loc);
  count_ += n;
  ex.release(sync_);
}

void ArrivalLedger::announce() {
  if (const Agent* a = Execution::current().self()) announced_.push_back(a->id);
}

Access ArrivalLedger::entry(ObjectId object, std::uint64_t phase, std::int64_t pending) const {
  auto& ex = Execution::current();
  const Agent* self = ex.self();
  if (self == nullptr || pending <= 0) return all_phases(object);
  auto in = [](const std::vector<AgentId>& v, AgentId a) {
    return std::find(v.begin(), v.end(), a) != v.end();
  };
  std::int64_t fresh = 0;
  for (AgentId a : announced_) fresh += !in(arrived_, a);
  // Two fresh arrivals commute when every fresh one fits: whichever runs
  // first, the other still lands in this phase, and the last completes it
  // with the same joined clock. A second arrival in one phase, or more fresh
  // arrivals than room, races for the last slots: each conflicts with all.
  if (!in(arrived_, self->id) && fresh <= pending) return phase_update(object, Update::arrive, phase);
  ex.note(ex.object_name(object) +
          " is over-subscribed (more arrivals wait than its phase needs): its arrivals are "
          "explored in every order");
  return all_phases(object);
}

void ArrivalLedger::arrived() {
  const Agent* self = Execution::current().self();
  if (self == nullptr) return;
  auto it = std::find(announced_.begin(), announced_.end(), self->id);
  if (it != announced_.end()) announced_.erase(it);
  arrived_.push_back(self->id);
}

Barrier::Barrier(std::string_view name, std::uint32_t parties)
    : SyncObject(name), parties_(parties) {
  if (parties == 0) throw ModelError("a barrier needs at least one party");
}

void Barrier::arrive_and_wait(std::source_location loc) {
  // Arrivals in one phase commute (the count and the release join do not
  // care about order, whoever arrives last completes the phase with the
  // same clock, and every arrival waits after), as the ledger decides.
  ledger_.announce();
  visible("arrive", all_phases(id_), loc);
  auto& ex = Execution::current();
  const std::uint64_t mine = completed_.size();
  ex.refine_access(ledger_.entry(id_, mine, parties_ - arrived_));
  ledger_.arrived();
  ex.release(gathering_);
  if (++arrived_ == parties_) {
    arrived_ = 0;
    completed_.push_back(gathering_);  // the completed phase's releases, for its waiters
    gathering_ = SyncClock{};
    ledger_.phase_completed();
  }
  auto passed = [this, mine] { return completed_.size() > mine; };
  visible("wait", completion_read(id_, mine, mine), loc, passed);
  ex.acquire(completed_[mine]);
}

namespace {
// await() over the objects [first, last).
void await_on(std::function<bool()>& pred, SyncObject* const* first, SyncObject* const* last,
              const char* op, std::source_location loc) {
  auto& ex = Execution::current();
  PendingOp p;
  p.name = op;
  p.loc = loc;
  // The predicate may look at any part of an object (a barrier's later
  // phases too): it reads all of it.
  for (auto* o = first; o != last; ++o) p.footprint.push_back(Access{(*o)->id(), 0, UINT32_MAX, false});
  if (first != last) {
    p.object = (*first)->id();
    p.has_object = true;
  }
  // The controller asks the predicate between steps, on its own stack: guarded
  // like a step, so that a runaway predicate is reported at this await's line.
  auto cond = [&pred] { return guarded_call(pred); };
  p.enabled = cond;
  ex.visible(std::move(p));
  for (auto* o = first; o != last; ++o) ex.acquire((*o)->sync());
}
}  // namespace

void await(std::function<bool()> pred, std::initializer_list<SyncObject*> reads, const char* op,
           std::source_location loc) {
  await_on(pred, reads.begin(), reads.end(), op, loc);
}

void await(std::function<bool()> pred, const std::vector<SyncObject*>& reads, const char* op,
           std::source_location loc) {
  await_on(pred, reads.data(), reads.data() + reads.size(), op, loc);
}

void assume(bool cond, std::source_location loc) {
  if (cond) return;
  auto& ex = Execution::current();
  ex.fail_assumption();
  // Blocks for good: an operation that reads nothing and is never enabled
  // commutes with every other step (DPOR reorders only the reads that led
  // here). In setup or an exit check there is no step: the flag suffices.
  PendingOp p;
  p.name = "assume";
  p.loc = loc;
  p.enabled = [] { return false; };
  ex.visible(std::move(p));
}

void check(bool cond, const std::string& message, std::source_location loc) {
  if (!cond) throw AssertionFailure(message, loc);
}

void fence_proxy(const char* op, std::source_location loc) {
  auto& ex = Execution::current();
  PendingOp p;
  p.name = op;
  p.loc = loc;
  ex.visible(std::move(p));
  ex.proxy_fence();
}

}  // namespace heddle
