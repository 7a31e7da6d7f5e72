// The clock a sync object carries, and the release/acquire effects on it.
#pragma once
#include <array>
#include <memory>
#include <utility>

#include "checker/engine/clock.hpp"

namespace heddle {

/// One commit clock per non-generic proxy (async, tensormap): what accesses
/// through that proxy may see of generic accesses. Only that proxy's fences
/// set it (fence.proxy.async does not order tensormap reads, and the
/// tensormap acquire fence does not order async copies).
struct CommitClocks {
  CommitClocks() = default;
  /// Copies hold clocks of their own (a copy of an unused one holds none).
  CommitClocks(const CommitClocks& other) { *this = other; }
  CommitClocks& operator=(const CommitClocks& other) {
    if (this == &other) return *this;
    used_ = other.used_;
    if (!used_) return *this;  // any storage kept is stale, reset on first use
    if (proxies_)
      *proxies_ = *other.proxies_;
    else
      proxies_ = std::make_unique<Proxies>(*other.proxies_);
    return *this;
  }
  CommitClocks(CommitClocks&& other) noexcept { *this = std::move(other); }
  CommitClocks& operator=(CommitClocks&& other) noexcept {
    proxies_ = std::move(other.proxies_);
    used_ = std::exchange(other.used_, false);
    return *this;
  }

  /// The commit clock of non-generic proxy `p` ([heddle bug] for generic).
  VectorClock& operator[](Proxy p) { return used().by_proxy[slot(p)]; }
  const VectorClock& operator[](Proxy p) const noexcept {
    return used_ ? proxies_->by_proxy[slot(p)] : empty_clock();
  }
  /// Sets every proxy's commit clock to `c` (a fence of all proxies).
  void fence_all(const VectorClock& c) {
    for (auto& x : used().by_proxy) x = c;
  }
  /// Pointwise join, proxy by proxy (nothing to do for clocks never set:
  /// a model without proxy fences has only those).
  void join(const CommitClocks& other) {
    if (other.used_) join_used(other);
  }
  /// True once some proxy's clock was set (false: every one is empty).
  bool any_set() const noexcept { return used_; }
  /// What proxy `p`'s release fences made available so far.
  VectorClock& released_to(Proxy p) { return used().released[slot(p)]; }

 private:
  // Per proxy: the commit clock, and what the release proxy fences of this
  // agent, and of the agents it synchronized with, made available; an
  // acquire proxy fence moves it into the commit clock (a uni-directional
  // release/acquire pattern).
  struct Proxies {
    std::array<VectorClock, 2> by_proxy;
    std::array<VectorClock, 2> released;
  };
  static std::size_t slot(Proxy p) noexcept { return static_cast<std::size_t>(p) - 1; }
  /// An empty clock: every proxy's while none was set.
  static const VectorClock& empty_clock() noexcept;
  /// The clocks, made (empty) on first use: most objects and agents of a
  /// model never use a proxy fence, and copying or clearing four clocks
  /// costs each of them more than the step that uses them (bench/RESULTS.md).
  Proxies& used();
  /// join() of an `other` that has clocks.
  void join_used(const CommitClocks& other);

  std::unique_ptr<Proxies> proxies_;  // valid while used_ (kept, stale, after)
  bool used_ = false;                 // false: every clock is still empty
};

/// What a sync object remembers of the agents that released into it:
/// their happens-before clocks and their commit (proxy-visible) clocks.
struct SyncClock {
  VectorClock clock;
  CommitClocks commit;

  /// Joins another sync clock into this one (release sequences accumulate).
  void join(const SyncClock& other) {
    clock.join(other.clock);
    commit.join(other.commit);
  }
};

}  // namespace heddle
