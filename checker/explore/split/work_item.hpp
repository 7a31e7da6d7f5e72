// What a split (checker/explore/split/work_split.hpp) hands its explorers: work
// items, each a region of the dpor exploration tree, and the canonical ids
// their prefixes and sleep sets are written in.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "checker/explore/dpor/canonical.hpp"
#include "checker/explore/dpor/guard.hpp"

namespace heddle {

/// A guarded item above a work item: its prefix's length, and what sleeps there.
struct GuardWatch {
  std::uint32_t at = 0;
  std::vector<dpor::EventInfo> asleep;
};

/// One work item: the traces that start with `prefix` and that no event of
/// `sleep` could start from there.
struct WorkItem {
  std::uint32_t group = 0;              // the item of a coarser split it lies in (Splitter)
  std::vector<AgentId> prefix;          // canonical agent ids, replayed
  std::vector<dpor::EventInfo> sleep;   // events covered by earlier items
  std::vector<AgentId> wakers;          // agents whose sampled steps wake one of sleep
  std::optional<dpor::Guard> guard;     // explored only when a race calls for it
  std::vector<GuardWatch> watches;      // the guarded items above it, which its races may call for
  double weight = 0;                    // how much its probe's sample branched (log2; shard_items)
};

/// Says, given the steps its probes have run so far, whether the split may
/// stop (its items are then not used).
using SplitGiveUp = std::function<bool(std::uint64_t steps)>;

/// The work items of one exploration, in the order a sequential run takes them.
struct WorkSplit {
  std::vector<WorkItem> items;
  std::uint64_t probes = 0;        // partial executions the split ran
  std::uint64_t steps = 0;         // the steps they ran
  std::uint64_t fingerprint = 0;   // names this split: shards of one run agree on it
  dpor::CanonicalAgents agents;    // the canonical ids the items use
  dpor::CanonicalObjects objects;
};

}  // namespace heddle
