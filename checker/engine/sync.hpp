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
  std::array<VectorClock, 2> by_proxy;
  /// Per proxy: what the release proxy fences of this agent, and of the
  /// agents it synchronized with, made available; an acquire proxy fence
  /// moves it into by_proxy (a uni-directional release/acquire pattern).
  std::array<VectorClock, 2> released;

  /// The commit clock of non-generic proxy `p` ([heddle bug] for generic).
  VectorClock& operator[](Proxy p) noexcept { return by_proxy[slot(p)]; }
  const VectorClock& operator[](Proxy p) const noexcept { return by_proxy[slot(p)]; }
  /// Pointwise join, proxy by proxy.
  void join(const CommitClocks& other) {
    for (std::size_t i = 0; i < by_proxy.size(); ++i) {
      by_proxy[i].join(other.by_proxy[i]);
      released[i].join(other.released[i]);
    }
  }
  /// What proxy `p`'s release fences made available so far.
  VectorClock& released_to(Proxy p) noexcept { return released[slot(p)]; }

 private:
  static std::size_t slot(Proxy p) noexcept { return static_cast<std::size_t>(p) - 1; }
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
