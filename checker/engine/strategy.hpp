// The one interface every exploration strategy implements.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "checker/engine/ids.hpp"

namespace heddle {

class ExecutionRecord;

/// What a strategy sees when it must pick the next agent.
struct Choice {
  std::uint32_t step = 0;             // 1-based step about to run
  std::span<const AgentId> enabled;   // in agent-id order, never empty
  const ExecutionRecord& execution;   // agents, pending operations, trace so far
};

/// What pick() returns to give the running execution up: the controller
/// ends it at once, and the explorer drops it (DPOR, when an explored
/// reversal needs an operation that turns out blocked).
inline constexpr AgentId kAbandon{0xfffffffeu};

/// Counters a strategy may add to the run's statistics.
struct StrategyStats {
  std::uint64_t sleep_blocked = 0;  // executions cut short by sleep sets
  std::uint64_t peak_state_bytes = 0;  // exploration state held at once, at most (0: not measured)
};

/// An exploration strategy: which agent runs at each step of each execution.
/// Strategies never run fibers; the controller asks (between steps, on its own
/// stack or on the thread's that ran last: Execution::pick_here), the strategy answers.
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// Name as given on the command line and stored in schedules.
  virtual std::string name() const = 0;
  /// Prepares the next execution; false when exploration is complete.
  virtual bool begin_execution() = 0;
  /// Picks one of `c.enabled`, or kAbandon to give the execution up.
  virtual AgentId pick(const Choice& c) = 0;
  /// Picks a data value in [0, n) for heddle::choose().
  virtual std::uint32_t choose(std::uint32_t n, const ExecutionRecord& ex) = 0;
  /// Called once the execution has ended, with its full trace.
  virtual void end_execution(const ExecutionRecord& ex) = 0;
  /// The run stops after the execution now ending: its end_execution may
  /// skip what only later executions need (DPOR's race analysis).
  virtual void stopping() {}
  /// True once every execution of the model has been covered. A strategy
  /// that stops for another reason (random, pct) returns false.
  virtual bool exhaustive() const = 0;
  /// Why a strategy that ran out of executions on its own is not exhaustive
  /// (RunResult::stopped_by), e.g. "preemption-bound".
  virtual std::string stopped_by() const { return "max-executions"; }
  virtual StrategyStats stats() const { return {}; }
  /// The seed a randomized strategy runs with (stored in schedules); none for others.
  virtual std::optional<std::uint64_t> seed() const { return std::nullopt; }
  /// Lines the run report prints once (e.g. a default budget the strategy chose).
  virtual std::vector<std::string> notes() const { return {}; }
};

}  // namespace heddle
