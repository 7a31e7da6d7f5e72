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
// out (expand_node()), and a last child, the node's rest, holds its traces: the
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
// weight (shard_items). The expansion depends only on the model, and
// stopping it at a smaller target gives a coarser split of the same tree:
// each of its items is the union of the full split's items below it (the
// full split's `group`s). Three targets matter:
// - kDecideTarget: a kernel whose plain exploration takes fewer steps than
//   the probes of the first kDecideTarget items is not split
//   (checker/explore/split/trial.hpp);
// - jobs_target(N): `--jobs N` explores that many items, not more, since
//   each item costs a little (its probes, its first execution, its replayed
//   prefix) and N threads need only a few times N items;
// - kSplitTarget: shards explore the full split (balance, shard_items),
//   and so do runs that go on past bugs (each execution counts for the
//   first bug it meets, which depends on the order its item takes).
// Counts and verdicts are the same for any split of the tree. The reported
// bug is the full split's: the first of its items that has one, and that
// item's first bug. A coarse run that meets a bug in item K therefore
// explores the full split's items below K in order (explore_split), so
// the report depends neither on N nor on sharding.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "checker/explore/run.hpp"
#include "checker/explore/split/work_item.hpp"

namespace heddle {

/// The full split, for shards: stop at `target` items or more (enough for
/// 16 shards within 1.5x of the mean, bench/RESULTS.md) ...
inline constexpr std::size_t kSplitTarget = 512;
/// ... or once the split has run this many probes per item of the target.
inline constexpr std::uint64_t kSplitProbesPerItem = 4;
/// The split whose probes' steps decide whether to split at all.
inline constexpr std::size_t kDecideTarget = 64;
/// The items `--jobs N` explores: 16 per thread, from kDecideTarget to kSplitTarget.
constexpr std::size_t jobs_target(std::uint32_t jobs) {
  return std::clamp<std::size_t>(std::size_t{16} * jobs, kDecideTarget, kSplitTarget);
}

/// The dpor exploration tree of a kernel, expanded heaviest node first into
/// work items. Expanding to one target, then on to a larger one, gives the
/// items the larger target gives at once.
class Splitter {
 public:
  Splitter(const Kernel& kernel, const Params& params, const RunConfig& config, StackPool& pool);
  ~Splitter();
  Splitter(const Splitter&) = delete;
  Splitter& operator=(const Splitter&) = delete;
  /// Expands until there are `target` items, or kSplitProbesPerItem * target
  /// probes have run. Asks `give_up`, if given, before each probe: false
  /// when it said stop (the splitter is then done with).
  bool expand(std::size_t target, const SplitGiveUp& give_up = {});
  /// The items as they stand, in tree order.
  WorkSplit items() const;
  /// Makes the items as they stand the groups of the items of later
  /// expansions: each then names, as its `group`, the index of the one it lies in.
  void mark_groups();
  /// The steps its probes have run so far.
  std::uint64_t steps() const;
  /// The probes it has run so far.
  std::uint64_t probes() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

/// The split of one item, the root: the whole exploration (checker/explore/split/trial.hpp).
WorkSplit whole_split();

/// The items shard `shard` of `shards` explores, in item order: the items
/// dealt by weight, heaviest first, to shards 0..N-1, then N-1..0, and so on.
std::vector<std::size_t> shard_items(const WorkSplit& split, std::uint32_t shard,
                                     std::uint32_t shards);

}  // namespace heddle
