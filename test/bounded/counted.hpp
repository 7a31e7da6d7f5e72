// Test helpers for the bounded strategy: every execution of a run with the
// number of preemptions its schedule took, counted by a wrapping strategy
// from the enabled sets it saw (independently of the strategy under test).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checker/explore/explorer.hpp"

namespace heddle::test {

/// One execution: its preemptions, verdict ("ok", "race", ...) and final state.
struct Counted {
  std::uint32_t preemptions = 0;
  std::string verdict;
  std::string state;  // Execution::final_state() when the verdict is "ok"
};

/// A whole run under `config` (stop_at_first_bug as given), with each
/// execution counted.
struct CountedRun {
  std::vector<Counted> executions;
  RunResult result;
  /// Final states of ok executions with at most `k` preemptions.
  std::set<std::string> states(std::uint32_t k = UINT32_MAX) const;
  /// Verdicts of executions with at most `k` preemptions.
  std::set<std::string> verdicts(std::uint32_t k = UINT32_MAX) const;
  /// Most preemptions of any execution.
  std::uint32_t max_preemptions() const;
  /// Fewest preemptions of an execution with a bug; UINT32_MAX if none.
  std::uint32_t min_bug_preemptions() const;
};

/// Explores `kernel` under `config`, counting the preemptions of each
/// execution. A preemption is a switch from the last thread that ran, still
/// enabled, to another thread; async steps never count and never break a run.
CountedRun counted_run(const std::string& kernel, const std::map<std::string, std::string>& params,
                       RunConfig config);

/// The configuration of `bounded` with bound `k` (none: auto).
RunConfig bounded_config(std::optional<std::uint32_t> k);

}  // namespace heddle::test
