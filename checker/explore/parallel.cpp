// Split runs: dpor's work items (checker/explore/split.hpp) on worker
// threads, each with its own fibers, stack pool and strategy, and results
// put together in item order, so that they do not depend on the number of
// threads: the executions of every item up to the first one with a bug (or
// of all items), and that item's bug.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "checker/engine/errors.hpp"
#include "checker/explore/loop.hpp"
#include "checker/explore/split.hpp"
#include "checker/explore/trial.hpp"

namespace heddle {
namespace {
using Clock = std::chrono::steady_clock;

// What the workers share: the items to take, in order, and the first one found buggy.
struct Shared {
  const Kernel& kernel;
  const Params& params;
  const RunConfig& config;
  const WorkSplit& split;
  const std::vector<std::size_t>& mine;  // the split's items this run explores
  std::vector<LoopState>& states;        // one per entry of mine
  ExecutionLimits limits;
  Clock::time_point start;
  ExecutionObserver observer;
  // A cache line each: every execution reads `cut`, and under
  // --max-executions adds to `executions` (without, nothing counts there:
  // a line both workers write at every execution costs each a miss).
  alignas(64) std::atomic<std::size_t> next{0};
  alignas(64) std::atomic<std::size_t> cut{SIZE_MAX};  // first entry of mine with a bug, once stopping
  alignas(64) std::atomic<std::uint64_t> executions{0};
  std::mutex failed_mu{};
  std::exception_ptr failed{};  // the first error a worker met (rethrown after the join)
  // Finished entries of mine, with the guarded items each called for.
  std::mutex done_mu{};
  std::condition_variable done_cv{};
  std::vector<char> finished{};                     // per entry of mine
  std::vector<std::vector<std::uint32_t>> calls{};  // per entry of mine
  std::vector<char> skipped{};                      // per entry of mine: guarded, not called for
  std::set<std::size_t> later{};  // guarded entries left for the end (smallest first: no deadlock)
  bool whole = false;  // the split is the root alone, explored by the trial (trial.hpp)
};

// For the guarded entry `pos`: waits until the entries of its range are
// finished (or cut), then says whether one called for it.
bool called_for(Shared& sh, std::size_t pos) {
  const dpor::Guard& guard = *sh.split.items[sh.mine[pos]].guard;
  if (sh.config.explore_guarded) return true;
  std::unique_lock lock(sh.done_mu);
  bool called = false;
  for (std::size_t q = pos; q-- > 0 && sh.mine[q] >= guard.from;) {
    sh.done_cv.wait(lock, [&] { return sh.finished[q] || pos > sh.cut.load(); });
    called |= guard.called_by(sh.calls[q]);
  }
  return called;
}

// Marks entry `pos` finished with the guarded items it called for.
void finish(Shared& sh, std::size_t pos, std::vector<std::uint32_t> calls) {
  {
    std::lock_guard lock(sh.done_mu);
    sh.calls[pos] = std::move(calls);
    sh.finished[pos] = 1;
  }
  sh.done_cv.notify_all();
}

// True when every entry of guarded entry `pos`'s range has finished.
bool range_finished(Shared& sh, std::size_t pos) {
  const dpor::Guard& guard = *sh.split.items[sh.mine[pos]].guard;
  std::lock_guard lock(sh.done_mu);
  for (std::size_t q = pos; q-- > 0 && sh.mine[q] >= guard.from;)
    if (!sh.finished[q]) return false;
  return true;
}

// Explores entry `pos` of mine (a guarded one only when called for).
void work_item(Shared& sh, std::size_t pos, StackPool& pool, std::unique_ptr<Strategy>& strategy) {
  LoopState& st = sh.states[pos];
  if (sh.config.max_executions) st.executions = &sh.executions;
  if (sh.split.items[sh.mine[pos]].guard && !called_for(sh, pos)) {
    st.result.exhaustive = true;  // no race calls for it: it owns no trace
    sh.skipped[pos] = 1;
    finish(sh, pos, {});
    return;
  }
  if (strategy)
    restart_item_strategy(*strategy, sh.split, sh.mine[pos]);
  else
    strategy = make_item_strategy(sh.split, sh.mine[pos]);
  auto stop = [&]() -> std::string {
    if (pos > sh.cut.load()) return "cut";  // an earlier item has the run's bug
    return budget_spent(sh.config, sh.executions.load(std::memory_order_relaxed), sh.start);
  };
  run_loop(sh.kernel, sh.params, sh.config, *strategy, pool, sh.limits, sh.observer, stop, st);
  if (st.result.bug && sh.config.stop_at_first_bug) {
    std::size_t cur = sh.cut.load();
    while (pos < cur && !sh.cut.compare_exchange_weak(cur, pos)) {
    }
    sh.done_cv.notify_all();
  }
  finish(sh, pos, item_calls(*strategy));
}

// Takes items in order and explores each, until none is left. A guarded
// item whose range is still running waits at the end instead, so that a
// worker does not idle while another finishes the items it depends on.
void work_items(Shared& sh) {
  FaultHandlers handlers;  // this thread's signal stack
  arm_step_watchdog(sh.config.step_timeout);
  StackPool pool(sh.config.stack_bytes);
  std::unique_ptr<Strategy> strategy;  // one per worker, restarted for each item
  for (;;) {
    const std::size_t pos = sh.next.fetch_add(1);
    if (pos >= sh.mine.size() || pos > sh.cut.load()) break;
    if (sh.split.items[sh.mine[pos]].guard && !range_finished(sh, pos)) {
      std::lock_guard lock(sh.done_mu);
      sh.later.insert(pos);
      continue;
    }
    work_item(sh, pos, pool, strategy);
  }
  for (;;) {
    std::size_t pos = 0;
    {
      std::lock_guard lock(sh.done_mu);
      if (sh.later.empty()) return;
      pos = *sh.later.begin();  // it waits only for smaller entries, taken before it
      sh.later.erase(sh.later.begin());
    }
    if (pos > sh.cut.load()) continue;
    work_item(sh, pos, pool, strategy);
  }
}

// work_items, its error kept for the main thread (every worker stops).
void work(Shared& sh) {
  try {
    work_items(sh);
  } catch (...) {
    std::lock_guard lock(sh.failed_mu);
    if (!sh.failed) sh.failed = std::current_exception();
    sh.cut.store(0);
  }
}

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
  for (const auto& n : r.notes)
    if (std::find(total.notes.begin(), total.notes.end(), n) == total.notes.end())
      total.notes.push_back(n);
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

// The run's result from the items' results, in item order.
RunResult combine(const Shared& sh) {
  RunResult total;
  SplitInfo info;
  info.fingerprint = sh.split.fingerprint;
  info.items = sh.split.items.size();
  info.shard = sh.config.shard;
  info.shards = sh.config.shards;
  info.probes = sh.split.probes;
  const std::size_t cut = sh.cut.load();
  bool all_done = true;
  for (std::size_t pos = 0; pos < sh.mine.size() && pos <= cut; ++pos) {
    const RunResult& r = sh.states[pos].result;
    add(total, r);
    info.outcomes.push_back({sh.mine[pos], r.stats.executions, r.stats.buggy, r.stats.deadlocked,
                             r.stats.max_depth, r.stats.discarded, r.bug.has_value(), r.exhaustive,
                             sh.calls[pos], std::nullopt});
    if (sh.skipped[pos]) info.outcomes.back().skipped = sh.split.items[sh.mine[pos]].guard;
    all_done &= r.exhaustive;
    if (total.stopped_by.empty() && !r.exhaustive && !r.bug) total.stopped_by = r.stopped_by;
    if (r.bug && !total.bug) {
      total.bug = r.bug;
      total.verdict = r.verdict;
      total.schedule = r.schedule;
      info.bug_item = sh.mine[pos];
    }
  }
  if (cut != SIZE_MAX) total.stopped_by = "first bug";
  // A shard is exhaustive over its own items (its note says so); merge decides for the run.
  total.exhaustive = all_done && cut == SIZE_MAX;
  if (sh.whole)
    total.notes.push_back(
        "dpor: not split: a plain exploration ran fewer steps than the split's probes");
  else
    total.notes.push_back(fmt::format("dpor: split into {} work items", info.items));
  if (sh.config.shards > 0)
    total.notes.push_back(fmt::format(
        "shard {}/{}: explored {} of the {} work items (merge the shards' summaries with "
        "'heddle merge')",
        sh.config.shard, sh.config.shards, sh.mine.size(), info.items));
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
    locked = [&](const Execution& ex, Ending e) {
      std::lock_guard lock(observer_mu);
      observer(ex, e);
    };
  }
  // With a second core, the plain exploration runs beside the split; with
  // one job, in step with it, a little ahead (the same decision,
  // checker/explore/trial.hpp). Once it has ended, the split gives up as
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
  WorkSplit split = split_work(kernel, params, config, pool, kSplitTarget, give_up);
  const bool whole = config.split_trial && trial.decide(split.steps);
  if (split.given_up && !whole)
    throw std::logic_error("[heddle bug] the split gave up for a trial that did not end below it");
  if (whole) {
    const std::uint64_t probes = split.probes;
    split = whole_split();
    split.probes = probes;
  }
  std::vector<std::size_t> mine;
  if (config.shards > 0) {
    mine = shard_items(split, config.shard, config.shards);
  } else {
    for (std::size_t k = 0; k < split.items.size(); ++k) mine.push_back(k);
  }
  std::vector<LoopState> states(mine.size());
  if (whole && !mine.empty()) states[0] = std::move(trial.state());
  Shared sh{kernel, params, config, split, mine, states, run_limits(config, start), start, locked};
  sh.finished.assign(mine.size(), 0);
  sh.calls.resize(mine.size());
  sh.skipped.assign(mine.size(), 0);
  sh.whole = whole;
  if (whole) {
    sh.finished.assign(mine.size(), 1);
    if (!mine.empty() && states[0].result.bug && config.stop_at_first_bug) sh.cut.store(0);
  } else {
    std::vector<std::thread> workers;
    for (std::uint32_t j = 0; j < jobs; ++j) workers.emplace_back([&sh] { work(sh); });
    for (auto& w : workers) w.join();
  }
  if (sh.failed) std::rethrow_exception(sh.failed);
  LoopState merged;
  merged.result = combine(sh);
  for (std::size_t pos = 0; pos < mine.size() && pos <= sh.cut.load(); ++pos) {
    if (merged.result.split->bug_item == mine[pos]) merged.bug_trace = states[pos].bug_trace;
    add_distinct(states[pos], merged);
  }
  finish_bugs(kernel, params, config, merged, pool, sh.limits);
  RunResult result = std::move(merged.result);
  result.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace heddle
