// The explorer's execution loop, shared by a sequential run (explorer.cpp)
// and the workers of a split one (parallel.cpp).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "checker/explore/result.hpp"

namespace heddle {

/// What one loop accumulates: its result, and its first bug's execution for
/// minimization.
struct LoopState {
  RunResult result;
  std::optional<BugTrace> bug_trace;
  std::vector<BugTrace> distinct_traces;  // one per result.distinct (--keep-going)
  std::atomic<std::uint64_t>* executions = nullptr;  // a run-wide count of executions under a budget, if any
};

/// The budget that ends the run now, or "" while none is spent; a run that
/// began at `start` (the clock is read only under a time limit). A signal
/// (engine/interrupt.hpp) ends it as "interrupted".
std::string budget_spent(const RunConfig& config, std::uint64_t executions,
                         std::chrono::steady_clock::time_point start);

/// Records the run's first bug and its replayable schedule into `result`.
void keep_first_bug(const Kernel& kernel, const Params& params, const RunConfig& config,
                    const std::string& strategy, const ExecutionRecord& ex, RunResult& result);

/// Runs executions of `strategy` until it is done or `stop()` names a reason.
void run_loop(const Kernel& kernel, const Params& params, const RunConfig& config,
              Strategy& strategy, StackPool& pool, const ExecutionLimits& limits,
              const ExecutionObserver& observer, const std::function<std::string()>& stop,
              LoopState& state);

/// The limits every execution of a run started at `start` runs under.
ExecutionLimits run_limits(const RunConfig& config, std::chrono::steady_clock::time_point start);

/// Shrinks the counterexamples of the bugs `state` holds: the first bug's, or
/// with --keep-going every distinct bug's (the first of which is the first bug).
void finish_bugs(const Kernel& kernel, const Params& params, const RunConfig& config,
                 LoopState& state, StackPool& pool, ExecutionLimits limits);

/// The key DistinctBug is grouped by: the bug's kind and source sites.
std::string distinct_key(const BugReport& bug);

/// A dpor run split into work items (checker/explore/split/work_split.hpp), on
/// `config.jobs` threads, or one shard of it.
RunResult explore_split(const Kernel& kernel, const Params& params, const RunConfig& config,
                        const ExecutionObserver& observer);

}  // namespace heddle
