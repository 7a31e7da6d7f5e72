// Minimal counterexamples (checker/DESIGN.md § Counterexamples): keep the causal
// past of the bug, re-linearize it with the fewest preemptions, confirm by replay.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/engine/execution_record.hpp"
#include "checker/registry.hpp"
#include "checker/engine/schedule.hpp"
#include "checker/explore/cex/bug_trace.hpp"
#include "checker/explore/cex/follow.hpp"

namespace heddle {

class Execution;  // checker/engine/execution.hpp
class StackPool;  // checker/engine/fiber.hpp

/// Sizes of the reported counterexample and of the one first found.
struct Counterexample {
  std::uint32_t steps = 0;                 // scheduling steps (data choices not counted)
  std::uint32_t preemptions = 0;           // thread switches away from a still-enabled thread
  std::uint32_t original_steps = 0;
  std::uint32_t original_preemptions = 0;
  bool minimized = false;                  // false: the original is reported (see note)
  std::string note;                        // why it was not minimized, when it was not
};

/// The outcome of minimization: the schedule to report and the bug it replays to.
struct Minimized {
  std::vector<ScheduleStep> steps;  // the original steps when not minimized
  BugReport bug;                    // the report of the replayed minimized schedule
  Counterexample info;
};

/// Minimizes `original` (the schedule of `trace`): causal slice of the bug
/// re-linearized with the fewest preemptions, then shrunk across traces to
/// the fewest steps (then preemptions); confirmed by a replay.
/// Every replay runs on `runner` (its model's limits, one execution renewed).
Minimized minimize_counterexample(Runner& runner, const BugTrace& trace,
                                  const Schedule& original);

}  // namespace heddle
