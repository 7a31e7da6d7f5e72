// Hardware-neutral primitives for kernel models: sync objects with
// release/acquire effects, atomics, locks, semaphores, barriers and await.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution.hpp"

namespace heddle {

/// Memory order of an atomic access (relaxed has no clock effect).
enum class Order { relaxed, acquire, release, acq_rel, seq_cst };

/// Base of every sync object: a name, an id and the clock released into it.
/// Its state words (describe(), for replay --steps) are "" unless a model says
/// more; it registers itself by address, so it lives where make() put it.
class SyncObject : public Describable {
 public:
  explicit SyncObject(std::string_view name) : SyncObject(Execution::current(), name) {}
  std::string describe() const override { return ""; }
  ObjectId id() const noexcept { return id_; }
  const std::string& name() const;
  /// The clocks released into this object so far.
  SyncClock& sync() noexcept { return sync_; }

 protected:
  /// Publishes a visible operation on this object and suspends until it is
  /// scheduled; `enabled` must stay valid while the caller is suspended.
  /// Inline, so that the fiber switch sits in the model's frame (see
  /// Fiber::suspend).
  void visible(const char* op, bool write, std::source_location loc, EnabledRef enabled = {},
               std::int8_t token = 0) {
    auto& ex = Execution::current();
    if (serial_ != ex.serial()) stale(loc);
    publish(ex, op, Access{id_, 0, 1, write, token}, loc, enabled);
  }
  /// Same, with the footprint entry `a` on this object (an update, a phase range).
  void visible(const char* op, const Access& a, std::source_location loc, EnabledRef enabled = {}) {
    publish(Execution::current(), op, a, loc, enabled);
  }
  ObjectId id_;
  std::uint64_t serial_;  // Execution::serial() of the execution that made it
  SyncClock sync_;

 private:
  /// Registers the object with `ex` (one lookup of the current execution).
  SyncObject(Execution& ex, std::string_view name);
  void publish(Execution& ex, const char* op, const Access& a, std::source_location loc,
               EnabledRef enabled) {
    PendingOp* p = ex.pending_slot();
    if (p == nullptr) return;  // setup or an async phase: nothing to schedule
    fill(*p, op, a, loc, enabled);  // inline: as a call it cost 9% of a switching step
    ex.publish();
  }
  /// Writes the operation into the running thread's pending slot `p`.
  void fill(PendingOp& p, const char* op, const Access& a, std::source_location loc,
            EnabledRef enabled) const {
    p.name = op;
    p.object = id_;
    p.has_object = true;
    p.loc = loc;
    p.footprint.assign_one(a);
    p.enabled = enabled;
  }
  /// Throws the error for an object kept from an earlier execution.
  [[noreturn]] static void stale(std::source_location loc);
};

/// An atomic variable: every access is a visible operation.
/// Models under sequential consistency; orders decide the clock effects.
template <class T>
class Atomic : public SyncObject {
 public:
  Atomic(std::string_view name, T init = T{}) : SyncObject(name), value_(init) {}

  T load(Order o = Order::seq_cst, std::source_location loc = std::source_location::current()) {
    visible("load", false, loc);
    if (o != Order::relaxed && o != Order::release) Execution::current().acquire(sync_);
    return value_;
  }
  void store(T v, Order o = Order::seq_cst,
             std::source_location loc = std::source_location::current()) {
    visible("store", true, loc);
    if (o != Order::relaxed && o != Order::acquire) Execution::current().release(sync_);
    value_ = v;
  }
  /// Atomically applies `f` and returns the old value.
  template <class F>
  T rmw(F f, Order o = Order::seq_cst, const char* op = "rmw",
        std::source_location loc = std::source_location::current()) {
    visible(op, true, loc);
    rmw_clocks(o);
    T old = value_;
    value_ = f(old);
    return old;
  }
  T fetch_add(T d, Order o = Order::seq_cst,
              std::source_location loc = std::source_location::current()) {
    return rmw([d](T x) { return static_cast<T>(x + d); }, o, "fetch_add", loc);
  }
  /// red.add: adds `d` without reading the value. Relaxed or release, it is
  /// a commutative counter update: additions commute, the release joins
  /// commute, and an add never blocks; an acquiring add is an RMW.
  void add(T d, Order o = Order::relaxed,
           std::source_location loc = std::source_location::current()) {
    if (o != Order::relaxed && o != Order::release) {
      fetch_add(d, o, loc);
      return;
    }
    visible("red.add", update_of(id_, update_in_phase(Update::counter_add)), loc);
    if (o == Order::release) Execution::current().release(sync_);
    value_ = static_cast<T>(value_ + d);
  }
  T exchange(T v, Order o = Order::seq_cst,
             std::source_location loc = std::source_location::current()) {
    return rmw([v](T) { return v; }, o, "exchange", loc);
  }
  /// Compare-and-swap; a failed CAS only reads (it is a load for DPOR).
  bool compare_exchange(T& expected, T desired, Order o = Order::seq_cst,
                        std::source_location loc = std::source_location::current()) {
    visible("cas", true, loc);
    if (value_ == expected) {
      rmw_clocks(o);
      value_ = desired;
      return true;
    }
    Execution::current().refine_footprint(Footprint{Access{id_, 0, 1, false}});
    if (o != Order::relaxed && o != Order::release) Execution::current().acquire(sync_);
    expected = value_;
    return false;
  }
  /// The value, without a visible operation (for predicates and final checks).
  T peek() const noexcept { return value_; }
  /// "value V" for values fmt can print.
  std::string describe() const override {
    if constexpr (fmt::is_formattable<T>::value) return fmt::format("value {}", value_);
    return "";
  }

 private:
  void rmw_clocks(Order o) {
    auto& ex = Execution::current();
    if (o == Order::acq_rel || o == Order::seq_cst)
      ex.acquire_release(sync_);
    else if (o == Order::acquire)
      ex.acquire(sync_);
    else if (o == Order::release)
      ex.release(sync_);
  }
  T value_;
};

/// A mutex: lock blocks while held; unlock releases.
class Mutex : public SyncObject {
 public:
  explicit Mutex(std::string_view name) : SyncObject(name) {}
  void lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  bool held() const noexcept { return owner_ != nullptr; }
  /// "held by T" or "free".
  std::string describe() const override;

 private:
  const Agent* owner_ = nullptr;
};

/// A counting semaphore: wait blocks until the count is positive.
class Semaphore : public SyncObject {
 public:
  Semaphore(std::string_view name, std::uint32_t count) : SyncObject(name), count_(count) {}
  void wait(std::source_location loc = std::source_location::current());
  void signal(std::uint32_t n = 1, std::source_location loc = std::source_location::current());
  std::uint32_t count() const noexcept { return count_; }
  /// "count N".
  std::string describe() const override { return fmt::format("count {}", count_); }

 private:
  std::uint32_t count_;
};

/// Who may still arrive in a barrier's gathering phase, so that an arrival's
/// footprint commutes with another exactly when no order of the two pushes
/// either into the next phase. Labels are a function of the state (the
/// agents suspended at an arrival, and who arrived in the phase), common to
/// every fresh arrival of one state, and an independent arrival leaves the
/// others' labels as they were; Godefroid, LNCS 1032, Def. 3.3 (conditional
/// independence) is what dpor's sleep sets rely on.
class ArrivalLedger {
 public:
  /// The running agent is about to publish an arrival (call before it suspends).
  void announce();
  /// The footprint entry of the running agent's arrival in phase `phase`, which
  /// still needs `pending` arrivals: a commutative update of that phase when
  /// the agent has not arrived in it yet and the fresh arrivals announced
  /// (its own included) fit in `pending`; otherwise every phase, written.
  Access entry(ObjectId object, std::uint64_t phase, std::int64_t pending) const;
  /// The running agent's arrival ran: it is now one who arrived in the phase.
  void arrived();
  /// The gathering phase completed: no one has arrived in the next one yet.
  void phase_completed() noexcept { arrived_.clear(); }

 private:
  std::vector<AgentId> announced_;  // agents suspended at an arrival on the object
  std::vector<AgentId> arrived_;    // agents that arrived in the gathering phase
};

/// A reusable barrier for `parties` threads (arrive, then wait for the phase).
class Barrier : public SyncObject {
 public:
  Barrier(std::string_view name, std::uint32_t parties);
  void arrive_and_wait(std::source_location loc = std::source_location::current());
  /// "phase P, K of N arrived".
  std::string describe() const override;

 private:
  std::uint32_t parties_;
  std::uint32_t arrived_ = 0;
  ArrivalLedger ledger_;
  SyncClock gathering_;               // releases of the phase being gathered
  std::vector<SyncClock> completed_;  // completed_[p]: releases of phase p
};

/// Blocks until `pred` holds. `reads` lists the objects the predicate looks
/// at (for DPOR); the wait acquires their clocks when it returns.
void await(std::function<bool()> pred, std::initializer_list<SyncObject*> reads,
           const char* op = "await", std::source_location loc = std::source_location::current());

/// await() over a list built at run time (the objects of a loop, say).
void await(std::function<bool()> pred, const std::vector<SyncObject*>& reads,
           const char* op = "await", std::source_location loc = std::source_location::current());

/// Discards the executions where `cond` is false (GenMC's assume): the
/// calling thread blocks for good, and the execution is counted apart, not
/// checked (no deadlock, no exit checks). Bugs met before it still count.
void assume(bool cond, std::source_location loc = std::source_location::current());

/// A model assertion: on failure, reports an assertion bug with this line.
void check(bool cond, const std::string& message,
           std::source_location loc = std::source_location::current());

/// A proxy fence (commit := clock) as a visible no-object operation.
void fence_proxy(const char* op = "fence.proxy",
                 std::source_location loc = std::source_location::current());

}  // namespace heddle
