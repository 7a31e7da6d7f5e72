#include "checker/explore/cex/follow.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "checker/engine/execution.hpp"
#include "checker/engine/errors.hpp"
#include "checker/explore/run.hpp"
#include "checker/explore/step_match.hpp"

namespace heddle {
namespace {

// Thrown from pick() to end an execution once the step list is used up.
// Not a std::exception, so nothing between pick() and follow() catches it.
struct StopFollowing {};
// Thrown from pick() when the execution does not offer the listed step.
struct FollowDiverged {};

// Follows a step list by agent name and operation. A divergence inside a
// fiber (a data choice) cannot throw through the model's code, so it is
// recorded and checked afterwards.
class Follower final : public StepFollower {
 public:
  explicit Follower(const std::vector<ScheduleStep>& steps) : steps_(steps) {}

  AgentId pick(const Choice& c) override {
    const auto& agents = c.execution.agents();
    if (pos_ == steps_.size()) {
      for (AgentId id : c.enabled) {
        const Agent& a = *agents[index(id)];
        enabled_.push_back(a.name);
        pending_.push_back(
            ScheduleStep{a.name, pending_text(c.execution, a), where(a.pending().loc)});
        footprints_.push_back(a.pending().footprint);
      }
      throw StopFollowing{};
    }
    const ScheduleStep& want = steps_[pos_];
    if (want.is_choice()) throw FollowDiverged{};
    auto it = std::find_if(c.enabled.begin(), c.enabled.end(), [&](AgentId id) {
      return matches_step(c.execution, *agents[index(id)], want);
    });
    if (it == c.enabled.end()) throw FollowDiverged{};
    picked(c, *agents[index(*it)]);
    ++pos_;
    return *it;
  }

  std::uint32_t choose(std::uint32_t n, const ExecutionRecord&) override {
    if (pos_ < steps_.size() && takes_choice(steps_[pos_], n)) return steps_[pos_++].value;
    diverged_ = true;
    return 0;
  }

  bool diverged() const { return diverged_; }
  std::size_t pos() const { return pos_; }
  std::vector<std::string>& enabled() { return enabled_; }
  std::vector<ScheduleStep>& pending() { return pending_; }
  std::vector<Footprint>& footprints() { return footprints_; }

 private:
  const std::vector<ScheduleStep>& steps_;
  std::size_t pos_ = 0;
  std::vector<std::string> enabled_;
  std::vector<ScheduleStep> pending_;
  std::vector<Footprint> footprints_;
  bool diverged_ = false;
};

}  // namespace

Followed follow(Runner& runner, const std::vector<ScheduleStep>& steps) {
  Followed out;
  Follower f(steps);
  try {
    runner.run(f);
  } catch (const StopFollowing&) {
    out.stopped = true;
  } catch (const FollowDiverged&) {
    return out;
  } catch (const UsageError&) {
    return out;
  }
  out.ok = !f.diverged() && (out.stopped || f.pos() == steps.size());
  out.enabled = std::move(f.enabled());
  out.pending = std::move(f.pending());
  out.footprints = std::move(f.footprints());
  out.preemptions = f.preemptions();
  out.bug = runner.last().bug();
  return out;
}

std::optional<BugReport> confirm_replay(Runner& runner, const std::vector<ScheduleStep>& steps) {
  const Model& model = runner.model();
  const ExecutionLimits& limits = model.limits;
  Schedule s;
  s.kernel = model.kernel.name;
  s.params = model.params.values();
  s.strategy = "replay";
  s.max_steps = limits.max_steps;
  s.step_timeout = limits.step_timeout;
  s.steps = steps;
  auto replay = make_strategy(replay_config(s));
  try {
    if (!replay->begin_execution()) return std::nullopt;
    runner.run(*replay);
    replay->end_execution(runner.last());
    return runner.last().bug();
  } catch (const UsageError&) {
    return std::nullopt;  // diverged: the schedule does not replay
  }
}

std::uint32_t count_preemptions(const Kernel& kernel, const Params& params,
                                const std::vector<ScheduleStep>& steps) {
  FaultHandlers handlers;
  StackPool pool(256 * 1024);
  const Model model(kernel, params, ExecutionLimits{});
  Runner runner(model, pool);
  Followed f = follow(runner, steps);
  if (!f.ok || f.stopped)
    throw UsageError("count_preemptions: the schedule does not replay to its end");
  return f.preemptions;
}

bool same_bug(const BugReport& a, const BugReport& b) {
  if (a.kind != b.kind) return false;
  if (a.kind != Verdict::race) return a.title == b.title;
  auto sites = [](const BugReport& r) {
    std::multiset<std::tuple<std::string, std::string, std::string, std::string, std::uint32_t,
                             bool>>
        s;
    for (const auto& x : r.accesses) s.insert({x.agent, x.op, x.at, x.region, x.first, x.write});
    return s;
  };
  return sites(a) == sites(b);
}

}  // namespace heddle
