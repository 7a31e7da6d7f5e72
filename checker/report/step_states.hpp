// `heddle replay FILE --steps`: after each step, what it changed in the
// visible state (sync objects' describe() words, copies in flight).
#pragma once
#include <map>
#include <string>

#include "checker/explore/run.hpp"

namespace heddle {

/// Records, while an execution runs, each step and the state it changed.
/// It wraps the run's strategy (RunConfig::decorate), like TimelineCapture.
class StepStates {
 public:
  /// The decorator to put in RunConfig::decorate; valid while this object lives.
  StrategyDecorator decorator();
  /// The last execution's steps with their changes, as printed by --steps.
  const std::string& text() const noexcept { return text_; }

  /// The visible state at one point: words per object and per copy.
  using State = std::map<std::string, std::string>;

 private:
  friend class StepStatesStrategy;
  std::string text_;
};

/// The state of `ex` now: every described object, and every async agent
/// issued so far ("in flight, next: PHASE (k of n)" or "done").
StepStates::State visible_state(const ExecutionRecord& ex);

/// The lines saying how `after` differs from `before` ("X: a -> b"), each
/// indented by `indent`.
std::string state_changes(const StepStates::State& before, const StepStates::State& after,
                          const std::string& indent);

}  // namespace heddle
