// Split runs: dpor's work items (checker/explore/split/work_split.hpp) on worker
// threads (item_workers.hpp), and results put together in item order, so
// that they do not depend on the number of threads: the executions of
// every item up to the first one with a bug (or of all items), and that
// item's bug. `--jobs` alone explores a coarser split, whose item with
// the first bug is refined into the full split's items below it.
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "checker/engine/execution.hpp"
#include "checker/engine/errors.hpp"
#include "checker/explore/dpor/pop_trace.hpp"
#include "checker/explore/split/item_workers.hpp"
#include "checker/explore/loop.hpp"
#include "checker/explore/split/work_split.hpp"
#include "checker/explore/split/trial.hpp"

namespace heddle {
namespace {
using Clock = std::chrono::steady_clock;

// Adds item result `r` to `total` (counts, depth, notes in first-seen order).
void add(RunResult& total, const RunResult& r) {
  RunStats& t = total.stats;
  t.executions += r.stats.executions;
  t.buggy += r.stats.buggy;
  t.deadlocked += r.stats.deadlocked;
  t.sleep_blocked += r.stats.sleep_blocked;
  t.abandoned += r.stats.abandoned;
  t.discarded += r.stats.discarded;
  t.peak_state_bytes = std::max(t.peak_state_bytes, r.stats.peak_state_bytes);
  t.max_depth = std::max(t.max_depth, r.stats.max_depth);
  add_once(total.notes, r.notes);
  add_once(total.restrictions, r.restrictions);
}

// Adds item state `st`'s distinct bugs to `into`'s (the first item's trace of each).
void add_distinct(LoopState& st, LoopState& into) {
  auto& all = into.result.distinct;
  for (std::size_t k = 0; k < st.result.distinct.size(); ++k) {
    DistinctBug& d = st.result.distinct[k];
    auto same = [&](const DistinctBug& e) { return e.key == d.key; };
    if (auto it = std::find_if(all.begin(), all.end(), same); it != all.end()) {
      it->executions += d.executions;
      continue;
    }
    all.push_back(std::move(d));
    into.distinct_traces.push_back(std::move(st.distinct_traces[k]));
  }
}

// What a run's items found, put together in item order.
struct Gathered {
  RunResult total;  // counts and notes; the first bug, its verdict and schedule
  std::optional<BugTrace> bug_trace;  // the first bug's execution, for minimization
  std::vector<ItemOutcome> outcomes;
  std::optional<std::uint64_t> bug_item;
  bool all_done = true;  // every item was exhaustive
};

// Entry `pos` of `pass` as its outcome.
ItemOutcome outcome(const ItemPass& pass, std::size_t pos) {
  const RunResult& r = pass.states[pos].result;
  ItemOutcome o{pass.mine[pos], r.stats.executions, r.stats.buggy, r.stats.deadlocked,
                r.stats.max_depth, r.stats.discarded, r.bug.has_value(), r.exhaustive,
                pass.calls[pos], std::nullopt};
  if (pass.skipped[pos]) o.skipped = pass.split.items[pass.mine[pos]].guard;
  return o;
}

// Adds what an item found (`st`; `o`, its outcome) to `g`, and its
// distinct bugs to `merged`'s.
void take(Gathered& g, LoopState& st, ItemOutcome o, LoopState& merged) {
  const RunResult& r = st.result;
  add(g.total, r);
  g.all_done &= r.exhaustive;
  if (g.total.stopped_by.empty() && !r.exhaustive && !r.bug) g.total.stopped_by = r.stopped_by;
  if (r.bug && !g.total.bug) {
    g.total.bug = r.bug;
    g.total.verdict = r.verdict;
    g.total.schedule = r.schedule;
    g.bug_item = o.item;
    g.bug_trace = st.bug_trace;
  }
  g.outcomes.push_back(std::move(o));
  add_distinct(st, merged);
}

// The entries a pass's result takes: all of them, or those up to the one cut at.
std::size_t entries(const ItemPass& pass) {
  const std::size_t cut = pass.cut.load();
  return cut == SIZE_MAX ? pass.mine.size() : std::min(pass.mine.size(), cut + 1);
}

// The coarse run's entries in order, the one cut at (its bug's) as the
// full split's items that lie in it found it, when `fine` holds them.
Gathered gather(ItemPass& coarse, ItemPass* fine, LoopState& merged) {
  Gathered g;
  const std::size_t cut = coarse.cut.load();
  for (std::size_t pos = 0; pos < entries(coarse); ++pos) {
    if (fine == nullptr || pos != cut) {
      take(g, coarse.states[pos], outcome(coarse, pos), merged);
      continue;
    }
    Gathered in;
    for (std::size_t q = 0; q < entries(*fine); ++q)
      take(in, fine->states[q], outcome(*fine, q), merged);
    LoopState sum;  // (its distinct bugs are in merged already)
    sum.result = std::move(in.total);
    sum.result.exhaustive = in.all_done;
    sum.bug_trace = std::move(in.bug_trace);
    const RunStats& t = sum.result.stats;
    take(g, sum,
         {coarse.mine[pos], t.executions, t.buggy, t.deadlocked, t.max_depth, t.discarded,
          sum.result.bug.has_value(), in.all_done, coarse.calls[pos], std::nullopt},
         merged);
  }
  return g;
}

// A coarse item with the first bug (`coarse`'s cut): explores the full
// split's items that lie in it (into `full`), in order, up to the first
// bug, into `fine`, which then reports the bug any split reports. Leaves
// `fine` empty when the full split did not cut the item further (its
// exploration is the same), or when a budget stopped them before the bug.
void refine(ItemPass& coarse, Splitter& splitter, WorkSplit& full, std::optional<ItemPass>& fine,
            std::uint32_t jobs, StackPool& pool) {
  splitter.expand(kSplitTarget);
  full = splitter.items();
  const std::size_t item = coarse.mine[coarse.cut.load()];
  std::vector<std::size_t> in_cut;
  for (std::size_t k = 0; k < full.items.size(); ++k)
    if (full.items[k].group == item) in_cut.push_back(k);
  const WorkItem& was = coarse.split.items[item];
  auto same = [&](const WorkItem& w) {
    return w.prefix == was.prefix && w.sleep.size() == was.sleep.size() &&
           std::equal(w.sleep.begin(), w.sleep.end(), was.sleep.begin(), dpor::same_step);
  };
  if (in_cut.size() == 1 && same(full.items[in_cut[0]])) return;
  fine.emplace(coarse.kernel, coarse.params, coarse.config, full, std::move(in_cut), coarse.limits,
               coarse.start, coarse.observer);
  fine->executions.store(coarse.executions.load());
  run_items(*fine, jobs, pool);
  if (fine->cut.load() == SIZE_MAX) fine.reset();
}

// The run's result from what its items found.
RunResult result_of(const ItemPass& pass, Gathered g, bool whole, std::uint64_t probes) {
  RunResult total = std::move(g.total);
  SplitInfo info;
  info.fingerprint = pass.split.fingerprint;
  info.items = pass.split.items.size();
  info.shard = pass.config.shard;
  info.shards = pass.config.shards;
  info.probes = probes;
  info.outcomes = std::move(g.outcomes);
  info.bug_item = g.bug_item;
  const bool cut = pass.cut.load() != SIZE_MAX;
  if (cut) total.stopped_by = "first bug";
  // A shard is exhaustive over its own items (its note says so); merge decides for the run.
  total.exhaustive = g.all_done && !cut;
  if (whole)
    total.notes.push_back(
        "dpor: not split: a plain exploration ran fewer steps than the split's probes");
  else
    total.notes.push_back(fmt::format("dpor: split into {} work items", info.items));
  if (pass.config.shards > 0)
    total.notes.push_back(fmt::format(
        "shard {}/{}: explored {} of the {} work items (merge the shards' summaries with "
        "'heddle merge')",
        pass.config.shard, pass.config.shards, pass.mine.size(), info.items));
  total.split = std::move(info);
  return total;
}
}  // namespace

RunResult explore_split(const Kernel& kernel, const Params& params, const RunConfig& config,
                        const ExecutionObserver& observer) {
  if (config.strategy != "dpor")
    throw UsageError(fmt::format(
        "--jobs and --shard split the dpor strategy only, not {}: drop --strategy or them",
        config.strategy));
  if (config.shards > 0 && config.shard >= config.shards)
    throw UsageError(fmt::format("--shard {}/{}: the shard index runs from 0 to {}", config.shard,
                                 config.shards, config.shards - 1));
  const auto start = Clock::now();
  FaultHandlers handlers;
  arm_step_watchdog(config.step_timeout);
  StackPool pool(config.stack_bytes);
  const std::uint32_t jobs = std::max<std::uint32_t>(1, config.jobs);
  std::mutex observer_mu;
  ExecutionObserver locked;
  if (observer && config.observer_thread_safe) {
    locked = observer;
  } else if (observer) {
    locked = [&](const ExecutionRecord& ex, Ending e) {
      std::lock_guard lock(observer_mu);
      observer(ex, e);
    };
  }
  // With a second core, the plain exploration runs beside the split; with
  // one job, in step with it, a little ahead (the same decision,
  // checker/explore/split/trial.hpp). Once it has ended, the split gives up as
  // soon as its probes have run more steps.
  Trial trial(kernel, params, config, run_limits(config, start), start, locked);
  const bool trial_beside = config.split_trial && jobs > 1;
  if (trial_beside) trial.start();
  SplitGiveUp give_up;  // none without a trial
  if (config.split_trial)
    give_up = [&](std::uint64_t steps) {
      if (!trial_beside) trial.advance(steps);
      return trial.finished_below(steps);
    };
  Splitter splitter(kernel, params, config, pool);
  const bool expanded = splitter.expand(kDecideTarget, give_up);
  const bool whole = config.split_trial && trial.decide(splitter.steps());
  if (!expanded && !whole)
    throw std::logic_error("[heddle bug] the split gave up for a trial that did not end below it");
  // --jobs alone explores a coarser split than shards do, and than runs
  // that go on past bugs: each execution counts for the first bug it
  // meets, which depends on the order its items take, so the full split's
  // counts per distinct bug are kept (stopping at the first bug, the
  // reported bug and the executions are the full split's either way).
  const bool coarse = !whole && config.shards == 0 && config.stop_at_first_bug;
  WorkSplit split;
  if (whole) {
    split = whole_split();
  } else {
    splitter.expand(coarse ? jobs_target(jobs) : kSplitTarget);
    split = splitter.items();
    splitter.mark_groups();
  }
  std::vector<std::size_t> mine;
  if (config.shards > 0) {
    mine = shard_items(split, config.shard, config.shards);
  } else {
    for (std::size_t k = 0; k < split.items.size(); ++k) mine.push_back(k);
  }
  ItemPass pass(kernel, params, config, split, std::move(mine), run_limits(config, start), start,
                locked);
  if (whole) {
    pass.finished.assign(pass.mine.size(), 1);
    if (!pass.mine.empty()) pass.states[0] = std::move(trial.state());
    if (!pass.mine.empty() && pass.states[0].result.bug && config.stop_at_first_bug)
      pass.cut.store(0);
  } else {
    run_items(pass, jobs, pool);
  }
  WorkSplit full;
  std::optional<ItemPass> fine;
  if (coarse && pass.cut.load() != SIZE_MAX) refine(pass, splitter, full, fine, jobs, pool);
  LoopState merged;
  Gathered gathered = gather(pass, fine ? &*fine : nullptr, merged);
  merged.bug_trace = std::move(gathered.bug_trace);
  RunResult run = result_of(pass, std::move(gathered), whole, splitter.probes());
  run.distinct = std::move(merged.result.distinct);  // (gathered there)
  merged.result = std::move(run);
  finish_bugs(kernel, params, config, merged, pool, pass.limits);
  RunResult result = std::move(merged.result);
  result.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace heddle
