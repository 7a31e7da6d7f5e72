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

 protected:
  /// Arrives as the running agent (releasing unless `release` is false);
  /// returns the phase arrived in. The caller published the arrival.
  std::uint64_t arrive_as_self(std::uint32_t count, std::source_location loc,
                               bool release = true);
  /// Blocks until phase `mine` completes, then acquires its releases.
  void wait_phase(const char* op, std::uint64_t mine, std::source_location loc);
  /// Announces an arrival to the ledger (before its visible operation).
  void announce() { ledger_.announce(); }

 private:
  std::uint32_t expected_ = 0;      // count of the phase being gathered (0: none yet)
  std::uint32_t arrived_ = 0;
  ArrivalLedger ledger_;
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
  /// `announced`: the arrival was announced to the ledger (arrive, arrive_expect_tx).
  void arrive_effect(std::uint32_t expect_bytes, bool announced = false);
  /// Raises the pending arrival count of the gathering phase by one
  /// (cp.async.mbarrier.arrive without .noinc); no scheduling point.
  void add_pending() noexcept { ++pending_; }
  /// Arrivals the gathering phase still needs (below zero after too many).
  std::int64_t pending() const noexcept { return pending_; }
  /// A copy that will complete_tx `bytes` on this barrier was issued at `at`.
  void copy_issued(std::uint32_t bytes,
                   std::source_location at = std::source_location::current());
  /// complete_tx by a copy's phase (release semantics, PTX cp.async.bulk).
  void complete_tx(std::uint32_t bytes);
  /// A copy's complete_tx is about to land: remembers which phase it lands in,
  /// so the kernel-exit check can tell whether anyone waited for it.
  void note_landing(std::string what, std::source_location issued_at);
  /// Phases completed so far (the current phase's number).
  std::uint64_t phase() const noexcept { return completed_.size(); }
  /// True when try_wait.parity `parity` would succeed now.
  bool passed(std::uint32_t parity) const noexcept { return (phase() & 1u) != (parity & 1u); }
  /// "phase P (parity p), K of N arrivals pending, B tx bytes pending" (replay --steps).
  std::string describe() const override;

 private:
  void maybe_complete();
  /// Narrows the running step's entry to the phases a parity test observes;
  /// `blocking`: a wait, blocked while the phase before the current one was open.
  void observed(bool blocking);
  void acquire_passed(std::uint32_t parity);
  std::uint32_t count_;
  std::int64_t pending_;  // below zero after more arrivals than count in one phase
  std::int64_t tx_ = 0;
  std::int64_t inflight_ = 0;  // bytes of issued copies that have not completed_tx yet
  /// The issued copies not yet completed: bytes and issue site, oldest first.
  std::vector<std::pair<std::uint32_t, std::source_location>> inflight_sites_;
  std::source_location expected_at_{};  // the last expect_tx of the gathering phase
  bool expected_ = false;               // some expect_tx in the gathering phase
  /// Reports a tx-count error of this barrier (PTX ISA §9.7.13.15.2: a
  /// phase completes when pending arrivals and tx-count reach zero).
  void tx_error(std::string title, std::string copy_site) const;
  ArrivalLedger ledger_;
  SyncClock gathering_;
  std::vector<SyncClock> completed_;  // completed_[p]: releases into phase p
  /// A copy that completed into a phase (PTX ISA 9.7.9.25: an mbarrier-completed
  /// copy is tracked by its mbarrier, not by bulk async-groups).
  struct Landing {
    std::string what;
    std::source_location issued_at;
    std::uint64_t phase = 0;
  };
  std::vector<Landing> landings_;
  std::uint64_t observed_ = 0;  // phases a successful wait or test has seen complete
  bool exit_check_ = false;     // the kernel-exit check is registered
  /// Kernel exit: every landing's phase was seen complete by some wait.
  void check_landings() const;
};

}  // namespace heddle::gpu
