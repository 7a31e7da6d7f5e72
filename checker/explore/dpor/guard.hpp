// Guarded work items of a split run (checker/explore/split/work_split.hpp): a node's
// rest, the traces none of its kept children can start, explored only when
// another item's race calls for it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace heddle::dpor {

/// A guarded item is explored only when an item of [from, its own index)
/// calls for position `at` (its prefix's length): that item met a race of
/// its prefix event there whose reversal no event asleep in the rest could
/// start (the weak-initials test of Abdulla et al., JACM 2017, Alg. 2:
/// without such a race, the rest holds no trace).
struct Guard {
  std::uint64_t from = 0;
  std::uint32_t at = 0;
  bool operator==(const Guard&) const = default;

  /// True when `calls` (an item's called-for positions, sorted) include `at`.
  bool called_by(const std::vector<std::uint32_t>& calls) const {
    return std::binary_search(calls.begin(), calls.end(), at);
  }
};

}  // namespace heddle::dpor
