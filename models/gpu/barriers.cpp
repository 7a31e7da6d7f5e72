#include "models/gpu/barriers.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checker/heddle.hpp"

namespace heddle::gpu {

std::uint64_t NamedBarrier::arrive_as_self(std::uint32_t count, std::source_location loc,
                                           bool release) {
  if (arrived_ == 0) expected_ = count;
  if (count != expected_)
    throw ModelError(fmt::format("{}: arrival with count {} while the phase expects {} (every "
                                 "bar.sync/bar.arrive of one phase must give the same count)",
                                 name(), count, expected_),
                     loc);
  auto& ex = Execution::current();
  std::uint64_t mine = completed_.size();
  // Arrivals in one phase commute: the count and the release join ignore
  // order, and the last arrival completes the phase with the same clock
  // whoever it is (bar.sync always waits after, so no order skips a step);
  // the ledger keeps arrivals that race for the last slots conflicting.
  ex.refine_access(ledger_.entry(id(), mine, std::int64_t{expected_} - arrived_));
  ledger_.arrived();
  if (release) ex.release(gathering_);  // a relaxed arrival joins nothing: it still commutes
  if (++arrived_ == expected_) {
    completed_.push_back(gathering_);
    gathering_ = SyncClock{};
    arrived_ = 0;
    ledger_.phase_completed();
  }
  return mine;
}

void NamedBarrier::sync(std::uint32_t count, std::source_location loc) {
  if (count <= 1) return;  // a barrier of one thread orders nothing
  ledger_.announce();
  visible("bar.sync", all_phases(id()), loc);
  wait_phase("bar.sync.wait", arrive_as_self(count, loc), loc);
}

void NamedBarrier::wait_phase(const char* op, std::uint64_t mine, std::source_location loc) {
  auto done = [this, mine] { return completed_.size() > mine; };
  visible(op, completion_read(id(), mine, mine), loc, done);
  Execution::current().acquire(completed_[mine]);
}

void NamedBarrier::arrive(std::uint32_t count, std::source_location loc) {
  if (count <= 1) return;
  ledger_.announce();
  visible("bar.arrive", all_phases(id()), loc);
  arrive_as_self(count, loc);
}

Mbarrier::Mbarrier(std::string name, std::uint32_t count)
    : SyncObject(std::move(name)), count_(count), pending_(count) {
  if (count == 0) throw ModelError("mbarrier.init needs an arrival count of at least 1");
}

void Mbarrier::tx_error(std::string title, std::string copy_site) const {
  std::vector<std::string> details{
      expected_ ? fmt::format("the phase's bytes were expected by the expect_tx at {}",
                              where(expected_at_))
                : "no expect_tx raised the phase's tx-count",
      std::move(copy_site), fmt::format("mbarrier {}: {}", name(), describe())};
  Execution::current().fail(Verdict::async_error, std::move(title), std::move(details));
}

void Mbarrier::maybe_complete() {
  if (pending_ != 0 || tx_ != 0) return;
  if (!inflight_sites_.empty()) {
    // The phase completes while a copy issued to it is still in flight: the
    // expected bytes undercount, and the copy's complete_tx will land in the
    // next phase (its waiters see a stage the copy has not written).
    tx_error(fmt::format("mbarrier {} completed phase {} with {} bytes of issued copies still in "
                         "flight (arrive.expect_tx counted too few bytes)",
                         name(), phase(), inflight_),
             fmt::format("the copy in flight was issued at {}",
                         where(inflight_sites_.front().second)));
  }
  expected_ = false;
  ledger_.phase_completed();
  completed_.push_back(gathering_);
  gathering_ = SyncClock{};
  pending_ = count_;
}

void Mbarrier::arrive_effect(std::uint32_t expect_bytes, bool announced) {
  auto& ex = Execution::current();
  // Two arrivals landing in one phase commute (pending -= 1 and tx += e add
  // up, release joins commute; the one that empties pending completes the
  // phase with the same clock in either order, and an arrival never blocks),
  // as the ledger decides. An arrival on a phase whose arrivals are all in
  // (a producer that skipped its empty-barrier wait) drives pending below
  // zero, so the phase never completes; it commutes with nothing.
  ex.refine_access(announced ? ledger_.entry(id(), phase(), pending_) : all_phases(id()));
  if (announced) ledger_.arrived();
  tx_ += expect_bytes;
  if (expect_bytes > 0 && ex.self() != nullptr && ex.self()->kind == Agent::Kind::thread) {
    expected_at_ = static_cast<ThreadAgent*>(ex.self())->op.loc;
    expected_ = true;
  }
  ex.release(gathering_);
  --pending_;
  maybe_complete();
}

void Mbarrier::copy_issued(std::uint32_t bytes, std::source_location at) {
  auto& ex = Execution::current();
  // The bytes in flight decide whether the arrival or complete_tx that
  // empties the phase completes it with a copy outstanding (an error), so
  // the issue writes every phase of the barrier, in the issuing step when
  // that step announced the barrier (arrive.expect_tx right before), else in
  // a step of its own. Not a commutative arrival even then: which of two
  // arrivals completes the phase decides whether this copy is in flight at
  // the completion (and a narrower rule reading tx would not label one
  // trace alike in its orders).
  if (!ex.step_announced(all_phases(id()))) visible("mbarrier.copy_issue", all_phases(id()), at);
  // An arrival of this step that commuted (arrive.expect_tx right before)
  // stays listed beside the write of every phase: it adds no conflict, and
  // DPOR's needs_step sees that this step is one the phase needs.
  ex.refine_access(all_phases(id()), true);
  inflight_ += bytes;
  inflight_sites_.emplace_back(bytes, at);
}

void Mbarrier::complete_tx(std::uint32_t bytes) {
  auto& ex = Execution::current();
  const std::uint64_t g = phase();
  // Once every arrival is in and tx covers every byte still in flight to
  // this barrier, complete_tx of the in-flight copies commute: tx falls to
  // zero in any order, whichever comes last completes the phase with the
  // same joined clock, and the condition holds after each of them. Any other
  // complete_tx (arrivals still due, an overshoot, bytes no copy announced)
  // may complete a phase early in one order: it commutes with nothing.
  const bool monotone = pending_ == 0 && bytes > 0 && bytes <= inflight_ && tx_ >= inflight_;
  ex.refine_access(monotone ? phase_update(id(), Update::tx_complete, g) : all_phases(id()));
  inflight_ -= std::min<std::int64_t>(bytes, inflight_);
  std::string site = "no issued copy announced these bytes";
  auto mine = std::find_if(inflight_sites_.begin(), inflight_sites_.end(),
                           [bytes](const auto& c) { return c.first == bytes; });
  if (mine == inflight_sites_.end() && !inflight_sites_.empty()) mine = inflight_sites_.begin();
  if (mine != inflight_sites_.end()) {
    site = fmt::format("the completing copy was issued at {}", where(mine->second));
    inflight_sites_.erase(mine);
  }
  tx_ -= bytes;
  ex.release(gathering_);
  // A negative tx-count is legal while arrivals are still due (a remote
  // copy may land before the local expect_tx); once every arrival is in,
  // nothing can raise it back except a stray expect_tx: the phase hangs.
  if (tx_ < 0 && pending_ == 0) {
    tx_error(fmt::format("mbarrier {}: tx-count went negative ({}) in phase {} after every "
                         "arrival: complete_tx of {} bytes exceeds what was expected",
                         name(), tx_, phase(), bytes),
             std::move(site));
    return;
  }
  maybe_complete();
}

void Mbarrier::arrive(std::source_location loc) {
  ledger_.announce();
  visible("mbarrier.arrive", all_phases(id()), loc);
  arrive_effect(0, true);
}

void Mbarrier::arrive_expect_tx(std::uint32_t bytes, std::source_location loc) {
  ledger_.announce();
  visible("mbarrier.arrive.expect_tx", all_phases(id()), loc);
  arrive_effect(bytes, true);
}

void Mbarrier::expect_tx(std::uint32_t bytes, std::source_location loc) {
  // Raising tx alone can undo a completion another order would see: a write.
  visible("mbarrier.expect_tx", all_phases(id()), loc);
  tx_ += bytes;
  expected_at_ = loc;
  expected_ = true;
}

void Mbarrier::observed(bool blocking) {
  // What a parity test sees depends on the current phase c: the completion
  // of c - 1 (which it acquires) and of c (which flips the parity). A wait
  // that passed at c > 0 waited for parity c - 1: it was blocked while c - 1
  // gathered its arrivals (at c = 0 it passed on the phase before init).
  const std::uint64_t c = phase();
  Execution::current().refine_access(blocking && c > 0 ? completion_read(id(), c - 1, c)
                                                       : phase_read(id(), c > 0 ? c - 1 : 0, c));
}

void Mbarrier::note_landing(std::string what, std::source_location issued_at) {
  landings_.push_back({std::move(what), issued_at, phase()});
  if (exit_check_) return;
  exit_check_ = true;
  at_exit([this] { check_landings(); });
}

void Mbarrier::check_landings() const {
  for (const Landing& l : landings_) {
    if (observed_ > l.phase) continue;
    Execution::current().fail(
        Verdict::async_error,
        fmt::format("{} issued at {} was never waited for", l.what, where(l.issued_at)),
        {fmt::format("it completed into phase {} of mbarrier {}, and no thread's try_wait / "
                     "wait saw that phase complete before the kernel ended (its shared memory "
                     "may be read or freed before the copy lands)",
                     l.phase, name())});
    return;
  }
}

void Mbarrier::acquire_passed(std::uint32_t parity) {
  // The preceding phase (number phase()-1) has the waited parity; before the
  // first completion, parity 1 names the phase "before" init: nothing to acquire.
  (void)parity;
  observed_ = std::max<std::uint64_t>(observed_, phase());
  if (!completed_.empty()) Execution::current().acquire(completed_.back());
}

namespace {
// The operation's name says which parity it waits for (schedules print
// "mbarrier.try_wait.parity(full) for parity 1"; --steps the phase reached).
const char* parity_op(std::uint32_t parity) {
  return (parity & 1u) != 0 ? "mbarrier.try_wait.parity for parity 1"
                            : "mbarrier.try_wait.parity for parity 0";
}
}  // namespace

void Mbarrier::wait_parity(std::uint32_t parity, std::source_location loc) {
  auto ready = [this, parity] { return passed(parity); };
  visible(parity_op(parity), all_phases(id(), false), loc, ready);
  observed(true);
  acquire_passed(parity);
}

bool Mbarrier::try_wait_parity(std::uint32_t parity, std::source_location loc) {
  visible(parity_op(parity), all_phases(id(), false), loc);
  observed(false);
  if (!passed(parity)) return false;
  acquire_passed(parity);
  return true;
}

std::string NamedBarrier::describe() const {
  if (expected_ == 0) return fmt::format("phase {}, idle", completed_.size());
  return fmt::format("phase {}, {} of {} arrived", completed_.size(), arrived_, expected_);
}

std::string Mbarrier::describe() const {
  return fmt::format("phase {} (parity {}), {} of {} arrivals pending, {} tx bytes pending",
                     phase(), phase() & 1u, pending_, count_, tx_);
}

}  // namespace heddle::gpu
