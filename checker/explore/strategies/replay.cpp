// replay: follows a schedule file step by step and reports any divergence.
#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution_record.hpp"
#include "checker/explore/run.hpp"
#include "checker/explore/step_match.hpp"

namespace heddle {
namespace {

class Replay final : public Strategy {
 public:
  explicit Replay(Schedule s) : schedule_(std::move(s)) {}

  std::string name() const override { return "replay"; }

  bool begin_execution() override { return !ran_; }

  AgentId pick(const Choice& c) override {
    const ScheduleStep& want = expect(false);
    const ExecutionRecord& ex = c.execution;
    const Agent* found = nullptr;
    for (const auto& a : ex.agents())
      if (a->name == want.agent) found = a.get();
    if (found == nullptr) diverge(want, fmt::format("no agent named {}", want.agent));
    const PendingOp& op = found->pending();
    std::string have = pending_text(ex, *found);
    if (found->finished) diverge(want, fmt::format("{} has finished", want.agent));
    if (have != want.op)
      diverge(want, fmt::format("{} {} at {}", want.agent, have, where(op.loc)));
    if (!found->enabled())
      diverge(want, fmt::format("{} {} at {}, which is blocked", want.agent, have, where(op.loc)));
    ++pos_;
    return found->id;
  }

  std::uint32_t choose(std::uint32_t n, const ExecutionRecord&) override {
    const ScheduleStep& want = expect(true);
    if (!takes_choice(want, n)) diverge(want, fmt::format("a choice among {} values", n));
    ++pos_;
    return want.value;
  }

  void end_execution(const ExecutionRecord&) override {
    ran_ = true;
    if (pos_ < schedule_.steps.size())
      throw UsageError(fmt::format(
          "schedule diverged at step {}: expected {}, found the end of the execution (the model "
          "changed, or it is not deterministic)",
          pos_ + 1, show(schedule_.steps[pos_])));
  }

  bool exhaustive() const override { return false; }

 private:
  const ScheduleStep& expect(bool choice) {
    if (pos_ >= schedule_.steps.size())
      throw UsageError(fmt::format(
          "schedule diverged at step {}: the schedule has ended, but the execution goes on "
          "(the model changed, or it is not deterministic)",
          pos_ + 1));
    const ScheduleStep& s = schedule_.steps[pos_];
    if (s.is_choice() != choice)
      diverge(s, choice ? "a data choice" : "a scheduling step");
    return s;
  }

  static std::string show(const ScheduleStep& s) {
    if (s.is_choice()) return fmt::format("choice {} of {}", s.value, s.range);
    return fmt::format("{} {} at {}", s.agent, s.op, s.at);
  }

  [[noreturn]] void diverge(const ScheduleStep& want, const std::string& found) {
    throw UsageError(fmt::format(
        "schedule diverged at step {}: expected {}, found {} (the model changed since the "
        "schedule was written, or it is not deterministic)",
        pos_ + 1, show(want), found));
  }

  Schedule schedule_;
  std::size_t pos_ = 0;
  bool ran_ = false;
};

const bool replay_registered = [] {
  register_strategy("replay", [](const RunConfig& c) -> std::unique_ptr<Strategy> {
    if (!c.replay) throw UsageError("strategy replay needs a schedule: use 'heddle replay FILE'");
    return std::make_unique<Replay>(*c.replay);
  });
  return true;
}();

}  // namespace
}  // namespace heddle
