// The split's probes (checker/explore/split/work_split.hpp): a node of the expanded
// tree runs its prefix once, then samples one continuation past it that
// never runs a sleeping event and runs a waking step first. What the probe
// saw orders and weighs the node's children.
#pragma once
#include <cstddef>
#include <vector>

#include "checker/explore/run.hpp"
#include "checker/explore/split/work_item.hpp"

namespace heddle::splitting {
using dpor::EventInfo;

/// A node of the expanded tree: its prefix and sleep set, and what its probe
/// saw at the end of the prefix.
struct Node {
  WorkItem item;
  std::vector<EventInfo> frontier;  // the enabled agents' pending events, in agent order
  EventInfo last;                   // the prefix's last event, as it ran
  std::vector<EventInfo> sample;    // the events of one continuation past the prefix
  bool leaf = false;                // the execution ended at the prefix's end
  bool chooses = false;             // the model called heddle::choose
  bool witnessed = false;           // the sample woke every sleeping event: the item owns a trace
  double weight = 0;                // log2 of the product of the sample's awake agents per step
  std::size_t sample_choices = 0;   // steps with two awake agents or more, before it woke them all
  bool rest = false;                // its node's rest (expand_node()): not expanded further
  bool guarded = false;             // a rest whose sample owns no trace
};

/// Thrown by probe() when the split's give_up says so.
struct GivenUp {};

/// True when one of `sleep` is the pending event `x` (CAV'24's completes()
/// for a sequence of one event).
bool sleeps(const std::vector<EventInfo>& sleep, const EventInfo& x);

/// Runs `node`'s prefix once and fills in what its probe saw, counting the
/// probe and its steps into `split` (whose canonical ids it extends).
/// `before`: the sleep set before the prefix's last event (none: the
/// node's own is given). Asks `give_up`, if given, first (GivenUp).
void probe(const Kernel& kernel, const Params& params, const ExecutionLimits& limits,
           StackPool& pool, const SplitGiveUp& give_up, WorkSplit& split, Node& node,
           const std::vector<EventInfo>* before = nullptr);

}  // namespace heddle::splitting
