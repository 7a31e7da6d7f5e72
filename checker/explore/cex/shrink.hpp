// Shrinking a counterexample across traces (checker/DESIGN.md § Counterexamples).
// The causal slice and its re-linearizations stay inside one Mazurkiewicz
// trace: they keep every step the racing accesses depend on *in the trace
// that was found*. Another trace can need fewer: a wait satisfied by a
// different signal, a DMA that only had to start, a device that did not
// have to take part at all. Shrinking removes whole causal cones (a step,
// the rest of its agent, and everything those steps created), replays the
// remainder in its order while skipping over steps that are not yet
// enabled, and keeps the result when it shows the same bug in fewer steps
// (or as many, with fewer preemptions);
// the caller then slices and re-linearizes the new trace.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "checker/explore/cex/bug_trace.hpp"
#include "checker/registry.hpp"

namespace heddle {

class Runner;  // checker/explore/run.hpp

/// A confirmed counterexample and its cost (steps first, then preemptions).
struct Shrinkable {
  std::vector<ScheduleStep> steps;
  BugReport bug;
  std::uint32_t preemptions = 0;
  std::uint32_t step_count = 0;  // scheduling steps (data choices not counted)
  bool cheaper_than(const Shrinkable& o) const {
    return step_count != o.step_count ? step_count < o.step_count : preemptions < o.preemptions;
  }
};

/// What a loose replay of a step list showed: the execution's trace (up to
/// its bug) and the schedule it really ran.
struct LooseRun {
  BugTrace trace;
  std::vector<ScheduleStep> steps;
  std::uint32_t preemptions = 0;
};

/// Runs `steps` in their order, except that a step whose agent is not
/// enabled (or offers another operation) waits until it is, the first
/// listed step that can run running instead. nullopt when no listed step
/// can run, the list ends before the execution does, or a data choice
/// differs; otherwise the run, which ended with its bug (if any).
std::optional<LooseRun> follow_loosely(Runner& runner, const std::vector<ScheduleStep>& steps);

/// Re-minimizes a trace found by shrinking (slice and re-linearize it);
/// nullopt when that does not confirm.
using Reminimize = std::function<std::optional<Shrinkable>(const LooseRun&)>;

/// Greedy cone removal from `best` (see the file comment), each candidate
/// confirmed by a loose replay showing the same bug as `best.bug` and then
/// re-minimized; at most `budget` replays. Returns the cheapest found.
Shrinkable shrink_across_traces(Runner& runner, Shrinkable best, const Reminimize& reminimize,
                                std::size_t budget);

}  // namespace heddle
