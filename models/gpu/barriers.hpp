// CTA barriers (bar.sync / bar.arrive / __syncthreads / __syncwarp) and
// mbarriers (arrival counts, transaction bytes, phases with parity).
#pragma once
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "checker/engine/primitives.hpp"

namespace heddle::gpu {

/// A named CTA barrier (PTX bar.sync/bar.arrive id, count). A phase completes
/// when `count` threads have arrived; its waiters acquire every arrival's release.
class NamedBarrier : public SyncObject {
 public:
  explicit NamedBarrier(std::string name) : SyncObject(std::move(name)) {}
  /// bar.sync: arrive and wait for the phase. A count of 1 is a no-op.
  void sync(std::uint32_t count, std::source_location loc = std::source_location::current());
  /// bar.arrive: arrive without waiting (producer side of a named barrier).
  void arrive(std::uint32_t count, std::source_location loc = std::source_location::current());
  /// "phase P, K of N arrived" (replay --steps).
  std::string describe() const override;

 private:
  /// Arrives as the running agent; returns the phase arrived in.
  std::uint64_t arrive_as_self(std::uint32_t count, std::source_location loc);
  std::uint32_t expected_ = 0;      // count of the phase being gathered (0: none yet)
  std::uint32_t arrived_ = 0;
  SyncClock gathering_;             // releases of the phase being gathered
  std::vector<SyncClock> completed_;  // completed_[p]: releases of phase p
};

/// An mbarrier: pending arrivals and a transaction count; a phase completes
/// when both reach zero (PTX 9.7.13.15). try_wait.parity P succeeds when the
/// phase of parity P among {current, immediately preceding} is complete.
class Mbarrier : public SyncObject {
 public:
  /// mbarrier.init with the expected arrival count.
  Mbarrier(std::string name, std::uint32_t count);
  /// mbarrier.arrive (also a remote CTA's barrier in the cluster).
  void arrive(std::source_location loc = std::source_location::current());
  /// mbarrier.arrive.expect_tx: expect `bytes`, then arrive.
  void arrive_expect_tx(std::uint32_t bytes,
                        std::source_location loc = std::source_location::current());
  /// mbarrier.expect_tx: expect `bytes` more without arriving.
  void expect_tx(std::uint32_t bytes, std::source_location loc = std::source_location::current());
  /// Blocks until try_wait.parity `parity` would succeed, then acquires.
  void wait_parity(std::uint32_t parity,
                   std::source_location loc = std::source_location::current());
  /// mbarrier.try_wait.parity as one non-blocking visible test.
  bool try_wait_parity(std::uint32_t parity,
                       std::source_location loc = std::source_location::current());

  /// The effects of an arrival/expect by the running agent, without a
  /// scheduling point (for an issue or a copy phase that includes them).
  void arrive_effect(std::uint32_t expect_bytes);
  /// complete_tx by a copy's phase (release semantics, PTX cp.async.bulk).
  void complete_tx(std::uint32_t bytes);
  /// Phases completed so far (the current phase's number).
  std::uint64_t phase() const noexcept { return completed_.size(); }
  /// True when try_wait.parity `parity` would succeed now.
  bool passed(std::uint32_t parity) const noexcept { return (phase() & 1u) != (parity & 1u); }
  /// "phase P (parity p), K of N arrivals pending, B tx bytes pending" (replay --steps).
  std::string describe() const override;

 private:
  void maybe_complete();
  void acquire_passed(std::uint32_t parity);
  std::uint32_t count_;
  std::uint32_t pending_;
  std::int64_t tx_ = 0;
  SyncClock gathering_;
  std::vector<SyncClock> completed_;  // completed_[p]: releases into phase p
};

}  // namespace heddle::gpu
