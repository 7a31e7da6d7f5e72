// Pallas TPU semaphores: DMA semaphores (byte counts), regular semaphores
// and barrier semaphores, signalled locally or on another device.
// Happens-before: every signal releases into the semaphore and the clocks
// accumulate (a release sequence, SyncClock::join); a wait that succeeds
// acquires all of them, which covers the signals that made its count.
#pragma once
#include <cstdint>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "models/tpu/mesh.hpp"

namespace heddle::tpu {

/// pltpu.SemaphoreType: DMA (counts bytes), REGULAR, or the barrier semaphore.
enum class SemKind { dma, regular, barrier };

/// One semaphore instance on one (device, core).
class TpuSemaphore : public SyncObject {
 public:
  TpuSemaphore(std::string name, SemKind kind) : SyncObject(std::move(name)), kind_(kind) {}

  SemKind kind() const noexcept { return kind_; }
  /// The count, without a visible operation (exit checks, predicates).
  std::uint64_t count() const noexcept { return count_; }
  /// "value N" (replay --steps); nothing for an idle scoped semaphore.
  std::string describe() const override {
    return scoped_ && count_ == 0 ? std::string() : "value " + std::to_string(count_);
  }
  /// Marks it as a run_scoped one (sync_copy's): it exists, for replay
  /// --steps and deadlock reports, only while it holds a count.
  void set_scoped() noexcept { scoped_ = true; }

  /// A thread's signal: a visible operation, then add(inc).
  void signal(std::uint32_t inc, const char* op, std::source_location loc);
  /// Adds `inc` and releases the running agent into the semaphore, with no
  /// scheduling point (a DMA phase, or inside an eager DMA's start).
  void add(std::uint32_t inc);
  /// Blocks until the count is at least `value`, subtracts it, acquires.
  void wait(std::uint32_t value, const char* op, std::source_location loc);
  /// Reads the count (a visible read that acquires the signals so far).
  std::uint32_t read(std::source_location loc);

  /// True while a thread blocks on it for more than it holds: the moment a
  /// dma_order=on_wait DMA that signals it may run.
  bool starved() const noexcept;
  /// DMAs that will signal this semaphore and have not yet, oldest first.
  std::vector<const DmaRecord*>& pending() noexcept { return pending_; }

 private:
  SemKind kind_;
  bool scoped_ = false;
  std::uint64_t count_ = 0;
  std::vector<std::uint32_t> needs_;  // values of the waits now blocked on it
  std::vector<const DmaRecord*> pending_;
};

/// The footprint entry of a signal of `s` (a thread's or a DMA's), on the
/// count ([0, 1) of the semaphore). Signals commute: count += n and the
/// release joins add up in either order, and a signal blocks no one.
Access signal_access(const TpuSemaphore& s);

/// Under dma_order=on_wait, a DMA's completion on `s` may run only while
/// a wait starves `s` and it is the newest DMA queued there
/// (TpuSemaphore::starved). Those two facts are bytes of their own, so that
/// only the steps that change them depend on a completion (issue 47 item 2):
/// [1, 2) the queue (written by a start, which makes another DMA not the
/// newest, and by a completion, which leaves the queue), [2, 3) the demand
/// (written by the step that brings a thread to a wait; read by a completion).
Access queue_access(const TpuSemaphore& s, bool write);
/// [2, 3) of `s`: the waits that demand it (see queue_access).
Access demand_access(const TpuSemaphore& s, bool write);
/// What an on_wait completion that signals `s` touches besides the count:
/// the queue (written) and the demand (read); empty under other orders.
Footprint on_wait_entries(const TpuSemaphore& s);

/// A semaphore of the kernel: one instance per (device, core).
struct SemFamily {
  std::string name;
  SemKind kind = SemKind::regular;
  std::vector<TpuSemaphore*> instances;  // indexed by Mesh::instance()
};

/// A semaphore ref as a kernel holds it; resolved per (device, core).
class Sem {
 public:
  Sem() = default;
  explicit Sem(SemFamily& f) : family_(&f) {}
  /// The instance on (device, core).
  TpuSemaphore& on(std::uint32_t device, std::uint32_t core = 0) const;
  /// The instance of the running kernel thread.
  TpuSemaphore& here(std::source_location loc = std::source_location::current()) const;
  const std::string& name() const noexcept { return family_->name; }
  SemKind kind() const noexcept { return family_->kind; }
  /// The instances behind this ref.
  SemFamily& family() const noexcept { return *family_; }

 private:
  SemFamily* family_ = nullptr;
};

/// Creates a semaphore with an instance on every (device, core) of `mesh`.
Sem make_semaphore(Mesh& mesh, std::string name, SemKind kind);

/// A DMA semaphore (pltpu.SemaphoreType.DMA), counting bytes.
Sem dma_semaphore(std::string name);
/// A regular semaphore (pltpu.SemaphoreType.REGULAR).
Sem semaphore(std::string name);
/// An array of n DMA semaphores, "name[i]" (pltpu.SemaphoreType.DMA((n,))).
std::vector<Sem> dma_semaphores(std::string name, std::size_t n);
/// An array of n regular semaphores, "name[i]".
std::vector<Sem> semaphores(std::string name, std::size_t n);
/// The kernel's barrier semaphore (pltpu.get_barrier_semaphore()).
Sem get_barrier_semaphore();

/// pltpu.semaphore_signal: adds `inc` to `sem` on this core, or on
/// (device_id, core_index) when given (a remote signal).
void semaphore_signal(const Sem& sem, std::uint32_t inc = 1,
                      std::optional<std::uint32_t> device_id = std::nullopt,
                      std::optional<std::uint32_t> core_index = std::nullopt,
                      std::source_location loc = std::source_location::current());
/// pltpu.semaphore_wait: blocks until `sem` holds at least `value`, then subtracts it.
void semaphore_wait(const Sem& sem, std::uint32_t value = 1,
                    std::source_location loc = std::source_location::current());
/// pltpu.semaphore_read: the current count of `sem` on this core.
std::uint32_t semaphore_read(const Sem& sem,
                             std::source_location loc = std::source_location::current());

}  // namespace heddle::tpu
