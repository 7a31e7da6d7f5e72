// The clock a sync object carries, and the release/acquire effects on it.
#pragma once
#include <array>

#include "checker/engine/clock.hpp"

namespace heddle {

/// One commit clock per non-generic proxy (async, tensormap): what accesses
/// through that proxy may see of generic accesses. Only that proxy's fences
/// set it (fence.proxy.async does not order tensormap reads, and the
/// tensormap acquire fence does not order async copies).
struct CommitClocks {
  /// The commit clock of non-generic proxy `p` ([heddle bug] for generic).
  VectorClock& operator[](Proxy p) noexcept {
    used_ = true;
    return by_proxy_[slot(p)];
  }
  const VectorClock& operator[](Proxy p) const noexcept { return by_proxy_[slot(p)]; }
  /// Sets every proxy's commit clock to `c` (a fence of all proxies).
  void fence_all(const VectorClock& c) {
    used_ = true;
    for (auto& x : by_proxy_) x = c;
  }
  /// Pointwise join, proxy by proxy (nothing to do for clocks never set:
  /// a model without proxy fences has only those).
  void join(const CommitClocks& other) {
    if (!other.used_) return;
    used_ = true;
    for (std::size_t i = 0; i < by_proxy_.size(); ++i) {
      by_proxy_[i].join(other.by_proxy_[i]);
      released_[i].join(other.released_[i]);
    }
  }
  /// What proxy `p`'s release fences made available so far.
  VectorClock& released_to(Proxy p) noexcept {
    used_ = true;
    return released_[slot(p)];
  }

 private:
  static std::size_t slot(Proxy p) noexcept { return static_cast<std::size_t>(p) - 1; }

  std::array<VectorClock, 2> by_proxy_;
  /// Per proxy: what the release proxy fences of this agent, and of the
  /// agents it synchronized with, made available; an acquire proxy fence
  /// moves it into by_proxy_ (a uni-directional release/acquire pattern).
  std::array<VectorClock, 2> released_;
  bool used_ = false;  // false: every clock above is still empty
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
