// How every schedule follower (replay, follow, shrink) matches the steps of
// a schedule against a running execution: one rule for all of them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "checker/engine/execution_record.hpp"
#include "checker/engine/schedule.hpp"
#include "checker/engine/strategy.hpp"

namespace heddle {

/// The text a schedule stores for agent `a`'s pending operation: "name(object)".
inline std::string pending_text(const ExecutionRecord& ex, const Agent& a) {
  const PendingOp& op = a.pending();
  return ex.describe(op.name, op.object, op.has_object);
}

/// True when scheduling step `want` names agent `a` and its pending operation.
inline bool matches_step(const ExecutionRecord& ex, const Agent& a, const ScheduleStep& want) {
  return a.name == want.agent && pending_text(ex, a) == want.op;
}

/// True when data-choice step `s` can answer a choose(n): n values, its value among them.
inline bool takes_choice(const ScheduleStep& s, std::uint32_t n) noexcept {
  return s.is_choice() && s.range == n && s.value < n;
}

/// The base of the strategies that follow a schedule: one execution, never
/// exhaustive, named "replay"; counts the preemptions of what it picks.
class StepFollower : public Strategy {
 public:
  std::string name() const override { return "replay"; }
  bool begin_execution() override { return true; }
  bool exhaustive() const override { return false; }
  void end_execution(const ExecutionRecord&) override {}
  /// Thread switches away from a still-enabled thread among the picks so far.
  std::uint32_t preemptions() const noexcept { return preemptions_; }

 protected:
  /// Records the pick of agent `a` at `c`: a preemption when `a` is a thread
  /// and the last thread picked is still enabled (async steps are transparent).
  void picked(const Choice& c, const Agent& a) {
    if (a.kind != Agent::Kind::thread) return;
    if (last_ && *last_ != a.id &&
        std::find(c.enabled.begin(), c.enabled.end(), *last_) != c.enabled.end())
      ++preemptions_;
    last_ = a.id;
  }

 private:
  std::optional<AgentId> last_;
  std::uint32_t preemptions_ = 0;
};

}  // namespace heddle
