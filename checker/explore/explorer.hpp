// Exploration of a kernel: executions under a strategy, within budgets.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "checker/engine/execution.hpp"
#include "checker/explore/minimize.hpp"
#include "checker/registry.hpp"
#include "checker/engine/schedule.hpp"
#include "checker/engine/strategy.hpp"

namespace heddle {

/// Wraps a run's strategy in a decorator (capture, metrics); see RunConfig::decorate.
using StrategyDecorator = std::function<std::unique_ptr<Strategy>(std::unique_ptr<Strategy>)>;

/// Every knob of a run. Zero means "no limit" for the budgets.
struct RunConfig {
  std::string strategy = "dpor";      // dpor | dfs | replay | (further strategies register)
  std::uint64_t max_executions = 0;   // budget: executions explored
  std::uint32_t max_steps = 100000;   // per execution; beyond it: livelock
  double time_limit = 0;              // budget: wall seconds for the whole run
  double step_timeout = 10;           // seconds one fiber step may run
  std::size_t stack_bytes = 256 * 1024;  // per thread fiber
  bool stop_at_first_bug = true;      // false: count every buggy execution
  bool finish_after_bug = false;      // run each buggy execution to its end, keeping its
                                      // first bug, so the final values show what it did
  std::optional<std::uint64_t> seed;  // random strategies (none: chosen from the clock)
  std::uint32_t pct_depth = 3;        // pct: bug depth d (d-1 priority change points)
  /// bounded: at most K preemptions; none = auto (K = 0, 1, 2, ... until a bug).
  std::optional<std::uint32_t> preemption_bound;
  bool minimize = true;               // shrink the counterexample (DESIGN.md, Counterexamples)
  std::optional<Schedule> replay;     // the schedule to follow (strategy replay)
  StrategyDecorator decorate;         // when set, wraps the strategy (e.g. timeline capture)
};

/// Counters every run reports.
struct RunStats {
  std::uint64_t executions = 0;
  std::uint64_t buggy = 0;          // executions that ended in a bug
  std::uint64_t deadlocked = 0;     // executions that ended blocked
  std::uint64_t sleep_blocked = 0;  // from the strategy (0 for optimal DPOR)
  std::uint64_t abandoned = 0;      // executions the strategy gave up (not in `executions`)
  std::uint64_t peak_state_bytes = 0;  // from the strategy: its exploration state, at most
  std::uint32_t max_depth = 0;      // most steps in one execution
  double seconds = 0;
};

/// What a run found.
struct RunResult {
  Verdict verdict = Verdict::ok;
  bool exhaustive = false;       // every execution covered, no budget hit
  std::string stopped_by;        // "max-executions", "time-limit", "first bug",
                                 // "preemption-bound", ""
  RunStats stats;
  std::optional<BugReport> bug;  // the first bug found
  std::optional<Schedule> schedule;  // its replayable schedule
  std::vector<std::string> notes;    // model notes, each once, in first-seen order
  std::optional<std::uint64_t> seed; // the seed a randomized strategy used
  std::optional<Counterexample> counterexample;  // sizes before/after minimization
};

/// Builds a strategy from a run configuration (by registered name).
using StrategyFactory = std::function<std::unique_ptr<Strategy>(const RunConfig&)>;
/// Registers a strategy under `name` (one file per strategy registers itself).
void register_strategy(const std::string& name, StrategyFactory f);
/// Creates the named strategy; UsageError with suggestions when unknown.
std::unique_ptr<Strategy> make_strategy(const RunConfig& c);
/// Names of the registered strategies.
std::vector<std::string> strategy_names();

/// The configuration that replays `s`: strategy replay, and the seed and
/// limits the schedule was recorded with (they shape its outcome).
RunConfig replay_config(const Schedule& s, RunConfig base = {});

/// Called after each execution (tests use it to collect final states).
using ExecutionObserver = std::function<void(const Execution&, Ending)>;

/// Runs one execution of the model under `strategy` (setup, then the steps);
/// model errors in setup become bugs of the execution.
Ending run_execution(const Kernel& kernel, const Params& params, Strategy& strategy,
                     Execution& ex);

/// Explores `kernel` with `params` under `config`.
RunResult explore(const Kernel& kernel, const Params& params, const RunConfig& config,
                  const ExecutionObserver& observer = {});

}  // namespace heddle
