// One dpor exploration cut into work items, for `--jobs N` (worker
// threads) and `--shard i/N` (separate processes, merged by `heddle merge`).
//
// The top of the exploration tree is expanded with sleep sets (Godefroid,
// "Partial-Order Methods for the Verification of Concurrent Systems", LNCS
// 1032, Ch. 5): at a node with sleep set S whose enabled events are ordered
// x_0 < x_1 < ..., child k runs x_k with sleep set {b in S, or b = x_j kept
// before it : b independent of x_k}; a child whose x_k sleeps is covered by
// an earlier sibling and dropped. Every Mazurkiewicz trace then belongs to
// exactly one leaf. Each leaf is one work item, explored by POP from its
// prefix with its sleep set (PopDpor::start_at), so the items share nothing
// while they run, and their executions add up to one per trace, as a
// single run's do.
//
// A child whose sleeping events nothing wakes owns no trace, yet POP would
// explore its region to the end, giving each execution up (sleep-blocked):
// two events that only wake each other, once both asleep, empty every later
// sibling independent of them, whatever the order. So each child's probe
// samples a continuation that never runs a sleeping event and runs a waking
// step first; a child whose sample leaves one asleep after a choice is left
// out (expand()), and a last child, the node's rest, holds its traces: the
// node's traces that no kept child's event can start. A rest whose sample
// wakes nothing is guarded (dpor::Guard): it is explored only when an item
// of its node's subtree meets a race of the node's event whose reversal no
// sleeping event starts, the source-set condition of optimal DPOR (Abdulla
// et al., JACM 2017, Alg. 2); without one, the rest holds no trace. Across
// shards, `heddle merge` checks the calls and names any shard that must run
// again with --explore-guarded.
//
// The heaviest node (the sample that branched most) is expanded first, so
// that items come out of similar sizes, and shards are dealt items by that
// weight (shard_items). The split depends only on the model: the same
// items, in the same order, for every N and every shard, so counts,
// verdicts and the reported bug (the one of the first item that has one)
// do not depend on N. A kernel whose plain exploration takes less work
// than the split's probes is not split (checker/explore/trial.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checker/explore/dpor/canonical.hpp"
#include "checker/explore/dpor/guard.hpp"
#include "checker/explore/run.hpp"

namespace heddle {

/// A guarded item above a work item: its prefix's length, and what sleeps there.
struct GuardWatch {
  std::uint32_t at = 0;
  std::vector<dpor::EventInfo> asleep;
};

/// One work item: the traces that start with `prefix` and that no event of
/// `sleep` could start from there.
struct WorkItem {
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
  SplitGiveUp give_up;             // split_work's: asked before each probe
  bool given_up = false;           // split_work stopped early when give_up said so: no items
};

/// How finely to split: stop at `target` items or more (enough for 16
/// shards within 1.5x of the mean, bench/RESULTS.md) ...
inline constexpr std::size_t kSplitTarget = 512;
/// ... or once the split has run this many probes per item of the target.
inline constexpr std::uint64_t kSplitProbesPerItem = 4;

/// Splits dpor's exploration of `kernel` with `params` (limits from
/// `config`); asks `give_up`, if given, before each probe.
WorkSplit split_work(const Kernel& kernel, const Params& params, const RunConfig& config,
                     StackPool& pool, std::size_t target = kSplitTarget,
                     const SplitGiveUp& give_up = {});

/// The split of one item, the root: the whole exploration (checker/explore/trial.hpp).
WorkSplit whole_split();

/// The items shard `shard` of `shards` explores, in item order: the items
/// dealt by weight, heaviest first, to shards 0..N-1, then N-1..0, and so on.
std::vector<std::size_t> shard_items(const WorkSplit& split, std::uint32_t shard,
                                     std::uint32_t shards);

/// The dpor strategy that explores `split.items[k]` only.
std::unique_ptr<Strategy> make_item_strategy(const WorkSplit& split, std::size_t k);
/// The dpor strategy that explores `item` only, with `split`'s canonical ids.
std::unique_ptr<Strategy> make_item_strategy(const WorkSplit& split, const WorkItem& item);
/// Makes `strategy` (make_item_strategy's) explore `split.items[k]` next,
/// reusing the storage the last item grew.
void restart_item_strategy(Strategy& strategy, const WorkSplit& split, std::size_t k);
/// The prefix positions whose guarded items the races of a work item's
/// strategy (make_item_strategy) called for (sorted).
std::vector<std::uint32_t> item_calls(const Strategy& item);


}  // namespace heddle
