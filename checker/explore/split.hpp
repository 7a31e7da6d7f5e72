// One dpor exploration cut into work items, for `--jobs N` (worker
// threads) and `--shard i/N` (separate processes, merged by `heddle merge`).
//
// The first levels of the exploration tree are fully expanded with sleep
// sets (Godefroid, "Partial-Order Methods for the Verification of
// Concurrent Systems", LNCS 1032, Ch. 5): at a node with sleep set S whose
// enabled events are ordered x_0 < x_1 < ..., child k runs x_k with
// sleep set {b in S, or b = x_j with j < k : b independent of x_k}; a child
// whose x_k sleeps is covered by an earlier sibling and dropped. Every
// Mazurkiewicz trace then belongs to exactly one leaf: the one whose prefix
// its lexicographic normal form (in that order) starts with. Each leaf is
// one work item, explored by POP from its prefix with its sleep set
// (PopDpor::start_at), so the items share nothing while they run, and
// their executions add up to one per trace, as a single run's do.
//
// The order is the one cost depends on: a child whose sleep set holds an
// event that nothing will wake owns no trace, yet POP explores it to the
// end and gives each of its executions up (sleep-blocked). Events a sampled
// continuation wakes come first, the others last (split.cpp, child_order).
// Sleep sets cannot be weakened to POP's weak-initial test instead: that
// leaves traces to an earlier item that only its own races would reach
// (bench/RESULTS.md, session 6).
//
// The split depends only on the model: the same items, in the same order,
// for every N and every shard, so counts, verdicts and the reported bug
// (the one of the first item that has one) do not depend on N.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "checker/explore/dpor/canonical.hpp"
#include "checker/explore/run.hpp"

namespace heddle {

/// One work item: the traces that start with `prefix` and that no event of
/// `sleep` could start from there.
struct WorkItem {
  std::vector<AgentId> prefix;          // canonical agent ids, replayed
  std::vector<dpor::EventInfo> sleep;   // events covered by earlier items
  std::vector<AgentId> wakers;          // agents whose sampled steps wake one of sleep
};

/// The work items of one exploration, in the order a sequential run takes them.
struct WorkSplit {
  std::vector<WorkItem> items;
  std::uint64_t probes = 0;        // partial executions the split ran
  std::uint64_t fingerprint = 0;   // names this split: shards of one run agree on it
  dpor::CanonicalAgents agents;    // the canonical ids the items use
  dpor::CanonicalObjects objects;
};

/// How finely to split: stop once a level has `target` items or more.
inline constexpr std::size_t kSplitTarget = 256;

/// Splits dpor's exploration of `kernel` with `params` (limits from `config`).
WorkSplit split_work(const Kernel& kernel, const Params& params, const RunConfig& config,
                     StackPool& pool, std::size_t target = kSplitTarget);

/// The dpor strategy that explores `split.items[k]` only.
std::unique_ptr<Strategy> make_item_strategy(const WorkSplit& split, std::size_t k);

}  // namespace heddle
