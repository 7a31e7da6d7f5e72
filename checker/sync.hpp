// The clock a sync object carries, and the release/acquire effects on it.
#pragma once
#include "checker/clock.hpp"

namespace heddle {

/// What a sync object remembers of the agents that released into it:
/// their happens-before clocks and their commit (proxy-visible) clocks.
struct SyncClock {
  VectorClock clock;
  VectorClock commit;

  /// Joins another sync clock into this one (release sequences accumulate).
  void join(const SyncClock& other) {
    clock.join(other.clock);
    commit.join(other.commit);
  }
};

}  // namespace heddle
