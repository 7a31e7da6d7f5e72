// Minimal counterexamples (DESIGN.md § Counterexamples): keep the causal
// past of the bug, re-linearize it with the fewest preemptions, confirm by replay.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/engine/execution.hpp"
#include "checker/registry.hpp"
#include "checker/engine/schedule.hpp"
#include "checker/explore/follow.hpp"

namespace heddle {

/// Sizes of the reported counterexample and of the one first found.
struct Counterexample {
  std::uint32_t steps = 0;                 // scheduling steps (data choices not counted)
  std::uint32_t preemptions = 0;           // thread switches away from a still-enabled thread
  std::uint32_t original_steps = 0;
  std::uint32_t original_preemptions = 0;
  bool minimized = false;                  // false: the original is reported (see note)
  std::string note;                        // why it was not minimized, when it was not
};

/// What minimization needs from the buggy execution, as plain data.
struct BugTrace {
  /// One agent of the execution.
  struct AgentInfo {
    std::string name;
    bool thread = true;
    std::int32_t created_by = -1;  // creating event (-1: setup)
    bool finished = false;         // finished when the execution ended
  };
  std::vector<Event> events;
  std::vector<AgentInfo> agents;
  std::vector<ScheduleStep> setup_choices;            // data choices made before step 1
  std::vector<std::vector<ScheduleStep>> step_groups; // per event: its step, then its choices
  BugReport bug;
};

/// Copies what minimization needs out of an execution that ended in a bug.
BugTrace capture_bug_trace(const Execution& ex);

/// The outcome of minimization: the schedule to report and the bug it replays to.
struct Minimized {
  std::vector<ScheduleStep> steps;  // the original steps when not minimized
  BugReport bug;                    // the report of the replayed minimized schedule
  Counterexample info;
};

/// Minimizes `original` (the schedule of `trace`): causal slice of the bug,
/// fewest preemptions, then fewest steps; confirmed by a replay.
Minimized minimize_counterexample(const Kernel& kernel, const Params& params,
                                  const BugTrace& trace, const Schedule& original,
                                  StackPool& pool, const ExecutionLimits& limits);

}  // namespace heddle
