#include "models/gpu/barriers.hpp"

#include <fmt/format.h>

#include "checker/heddle.hpp"

namespace heddle::gpu {

std::uint64_t NamedBarrier::arrive_as_self(std::uint32_t count, std::source_location loc) {
  if (arrived_ == 0) expected_ = count;
  if (count != expected_)
    throw ModelError(fmt::format("{}: arrival with count {} while the phase expects {} (every "
                                 "bar.sync/bar.arrive of one phase must give the same count)",
                                 name(), count, expected_),
                     loc);
  Execution::current().release(gathering_);
  std::uint64_t mine = completed_.size();
  if (++arrived_ == expected_) {
    completed_.push_back(gathering_);
    gathering_ = SyncClock{};
    arrived_ = 0;
  }
  return mine;
}

void NamedBarrier::sync(std::uint32_t count, std::source_location loc) {
  if (count <= 1) return;  // a barrier of one thread orders nothing
  visible("bar.sync", true, loc);
  std::uint64_t mine = arrive_as_self(count, loc);
  if (completed_.size() <= mine) {
    auto done = [this, mine] { return completed_.size() > mine; };
    visible("bar.sync.wait", false, loc, done);
  }
  Execution::current().acquire(completed_[mine]);
}

void NamedBarrier::arrive(std::uint32_t count, std::source_location loc) {
  if (count <= 1) return;
  visible("bar.arrive", true, loc);
  arrive_as_self(count, loc);
}

Mbarrier::Mbarrier(std::string name, std::uint32_t count)
    : SyncObject(std::move(name)), count_(count), pending_(count) {
  if (count == 0) throw ModelError("mbarrier.init needs an arrival count of at least 1");
}

void Mbarrier::maybe_complete() {
  if (pending_ != 0 || tx_ != 0) return;
  completed_.push_back(gathering_);
  gathering_ = SyncClock{};
  pending_ = count_;
}

void Mbarrier::arrive_effect(std::uint32_t expect_bytes) {
  tx_ += expect_bytes;
  Execution::current().release(gathering_);
  --pending_;
  maybe_complete();
}

void Mbarrier::complete_tx(std::uint32_t bytes) {
  tx_ -= bytes;
  Execution::current().release(gathering_);
  maybe_complete();
}

void Mbarrier::arrive(std::source_location loc) {
  visible("mbarrier.arrive", true, loc);
  arrive_effect(0);
}

void Mbarrier::arrive_expect_tx(std::uint32_t bytes, std::source_location loc) {
  visible("mbarrier.arrive.expect_tx", true, loc);
  arrive_effect(bytes);
}

void Mbarrier::expect_tx(std::uint32_t bytes, std::source_location loc) {
  visible("mbarrier.expect_tx", true, loc);
  tx_ += bytes;
}

void Mbarrier::acquire_passed(std::uint32_t parity) {
  // The preceding phase (number phase()-1) has the waited parity; before the
  // first completion, parity 1 names the phase "before" init: nothing to acquire.
  (void)parity;
  if (!completed_.empty()) Execution::current().acquire(completed_.back());
}

void Mbarrier::wait_parity(std::uint32_t parity, std::source_location loc) {
  auto ready = [this, parity] { return passed(parity); };
  visible("mbarrier.try_wait.parity", false, loc, ready);
  acquire_passed(parity);
}

bool Mbarrier::try_wait_parity(std::uint32_t parity, std::source_location loc) {
  visible("mbarrier.try_wait.parity", false, loc);
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
