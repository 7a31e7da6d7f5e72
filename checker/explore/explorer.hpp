// Exploration of a kernel: executions under a strategy, within budgets.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "checker/explore/minimize.hpp"
#include "checker/explore/run.hpp"

namespace heddle {

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

/// Called after each execution (tests use it to collect final states).
using ExecutionObserver = std::function<void(const Execution&, Ending)>;

/// Explores `kernel` with `params` under `config`.
RunResult explore(const Kernel& kernel, const Params& params, const RunConfig& config,
                  const ExecutionObserver& observer = {});

}  // namespace heddle
