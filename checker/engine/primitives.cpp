#include "checker/engine/primitives.hpp"

#include "checker/engine/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace heddle {

SyncObject::SyncObject(std::string name)
    : id_(Execution::current().add_object(std::move(name))), serial_(Execution::current().serial()) {}

const std::string& SyncObject::name() const { return Execution::current().object_name(id_); }

void SyncObject::visible(const char* op, bool write, std::source_location loc,
                         EnabledRef enabled, std::int8_t token) {
  auto& ex = Execution::current();
  if (serial_ != ex.serial()) throw stale_object_error("sync object", loc);
  PendingOp* p = ex.pending_slot();
  if (p == nullptr) return;  // setup or an async phase: nothing to schedule
  p->name = op;
  p->object = id_;
  p->has_object = true;
  p->loc = loc;
  p->footprint.clear();
  p->footprint.push_back(Access{id_, 0, 1, write, token});
  p->enabled = enabled;
  ex.publish();
}

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
Footprint counted(ObjectId id, std::int8_t token, std::uint32_t before) {
  return Footprint{Access{id, 0, 1, true, token, static_cast<std::int8_t>(std::min(before, 127u))}};
}
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
  visible("signal", true, loc, {}, +1);
  auto& ex = Execution::current();
  if (ex.pending_slot() != nullptr) ex.refine_footprint(counted(id_, +1, count_));
  if (n > UINT32_MAX - count_)
    throw ModelError(fmt::format("semaphore {} overflows: {} + {} is over its limit of {}",
                                 name(), count_, n, UINT32_MAX),
                     loc);
  count_ += n;
  ex.release(sync_);
}

Barrier::Barrier(std::string name, std::uint32_t parties)
    : SyncObject(std::move(name)), parties_(parties) {
  if (parties == 0) throw ModelError("a barrier needs at least one party");
}

void Barrier::arrive_and_wait(std::source_location loc) {
  visible("arrive", true, loc);
  auto& ex = Execution::current();
  ex.release(gathering_);
  std::uint64_t mine = phase_;
  if (++arrived_ == parties_) {
    arrived_ = 0;
    ++phase_;
    sync_ = gathering_;  // the completed phase's releases, for its waiters
    gathering_ = SyncClock{};
  }
  auto passed = [this, mine] { return phase_ > mine; };
  visible("wait", false, loc, passed);
  ex.acquire(sync_);
}

void await(std::function<bool()> pred, std::initializer_list<SyncObject*> reads, const char* op,
           std::source_location loc) {
  auto& ex = Execution::current();
  PendingOp p;
  p.name = op;
  p.loc = loc;
  for (auto* o : reads) p.footprint.push_back(Access{o->id(), 0, 1, false});
  if (reads.size() > 0) {
    p.object = (*reads.begin())->id();
    p.has_object = true;
  }
  auto cond = [&pred] { return pred(); };
  p.enabled = cond;
  ex.visible(std::move(p));
  for (auto* o : reads) ex.acquire(o->sync());
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
