// Hardware-neutral primitives for kernel models: sync objects with
// release/acquire effects, atomics, locks, semaphores, barriers and await.
#pragma once
#include <cstdint>
#include <functional>
#include <source_location>
#include <string>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution.hpp"

namespace heddle {

/// Memory order of an atomic access (relaxed has no clock effect).
enum class Order { relaxed, acquire, release, acq_rel, seq_cst };

/// Base of every sync object: a name, an id and the clock released into it.
class SyncObject {
 public:
  explicit SyncObject(std::string name);
  ObjectId id() const noexcept { return id_; }
  const std::string& name() const;
  /// The clocks released into this object so far.
  SyncClock& sync() noexcept { return sync_; }

 protected:
  /// Publishes a visible operation on this object and suspends until it is
  /// scheduled; `enabled` must stay valid while the caller is suspended.
  void visible(const char* op, bool write, std::source_location loc, EnabledRef enabled = {},
               std::int8_t token = 0);
  /// Same for an operation that may touch several objects (await).
  ObjectId id_;
  std::uint64_t serial_;  // Execution::serial() of the execution that made it
  SyncClock sync_;
};

/// An atomic variable: every access is a visible operation.
/// Models under sequential consistency; orders decide the clock effects.
template <class T>
class Atomic : public SyncObject {
 public:
  Atomic(std::string name, T init = T{}) : SyncObject(std::move(name)), value_(init) {}

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

 private:
  void rmw_clocks(Order o) {
    auto& ex = Execution::current();
    if (o == Order::acquire || o == Order::acq_rel || o == Order::seq_cst) ex.acquire(sync_);
    if (o == Order::release || o == Order::acq_rel || o == Order::seq_cst) ex.release(sync_);
  }
  T value_;
};

/// A mutex: lock blocks while held; unlock releases.
class Mutex : public SyncObject {
 public:
  explicit Mutex(std::string name) : SyncObject(std::move(name)) {}
  void lock(std::source_location loc = std::source_location::current());
  void unlock(std::source_location loc = std::source_location::current());
  bool try_lock(std::source_location loc = std::source_location::current());
  bool held() const noexcept { return owner_ != nullptr; }

 private:
  const Agent* owner_ = nullptr;
};

/// A counting semaphore: wait blocks until the count is positive.
class Semaphore : public SyncObject {
 public:
  Semaphore(std::string name, std::uint32_t count) : SyncObject(std::move(name)), count_(count) {}
  void wait(std::source_location loc = std::source_location::current());
  void signal(std::uint32_t n = 1, std::source_location loc = std::source_location::current());
  std::uint32_t count() const noexcept { return count_; }

 private:
  std::uint32_t count_;
};

/// A reusable barrier for `parties` threads (arrive, then wait for the phase).
class Barrier : public SyncObject {
 public:
  Barrier(std::string name, std::uint32_t parties);
  void arrive_and_wait(std::source_location loc = std::source_location::current());

 private:
  std::uint32_t parties_;
  std::uint32_t arrived_ = 0;
  std::uint64_t phase_ = 0;
  SyncClock gathering_;  // releases of the phase being gathered
};

/// Blocks until `pred` holds. `reads` lists the objects the predicate looks
/// at (for DPOR); the wait acquires their clocks when it returns.
void await(std::function<bool()> pred, std::initializer_list<SyncObject*> reads,
           const char* op = "await", std::source_location loc = std::source_location::current());

/// A model assertion: on failure, reports an assertion bug with this line.
void check(bool cond, const std::string& message,
           std::source_location loc = std::source_location::current());

/// A proxy fence (commit := clock) as a visible no-object operation.
void fence_proxy(const char* op = "fence.proxy",
                 std::source_location loc = std::source_location::current());

}  // namespace heddle
