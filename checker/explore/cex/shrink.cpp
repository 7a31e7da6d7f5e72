#include "checker/explore/cex/shrink.hpp"

#include <algorithm>
#include <set>

#include "checker/engine/errors.hpp"
#include "checker/explore/cex/follow.hpp"
#include "checker/explore/run.hpp"
#include "checker/explore/step_match.hpp"

namespace heddle {
namespace {

// Thrown from pick() when the list cannot go on (not a std::exception, so
// nothing between pick() and follow_loosely() catches it).
struct CannotFollow {};

// Follows step groups (a scheduling step, then its data choices) by agent
// name and operation, in list order, skipping over groups not yet runnable.
class Loose final : public StepFollower {
 public:
  Loose(std::vector<ScheduleStep> setup, std::vector<std::vector<ScheduleStep>> groups)
      : choices_(std::move(setup)), groups_(std::move(groups)), used_(groups_.size(), 0) {}
  AgentId pick(const Choice& c) override {
    const auto& agents = c.execution.agents();
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (used_[g]) continue;
      const ScheduleStep& want = groups_[g].front();
      for (AgentId id : c.enabled) {
        const Agent& a = *agents[index(id)];
        if (!matches_step(c.execution, a, want)) continue;
        used_[g] = 1;
        choices_.assign(groups_[g].begin() + 1, groups_[g].end());
        next_choice_ = 0;
        picked(c, a);  // (preemptions counted as follow() counts them)
        return id;
      }
    }
    throw CannotFollow{};
  }

  std::uint32_t choose(std::uint32_t n, const ExecutionRecord&) override {
    if (next_choice_ < choices_.size() && takes_choice(choices_[next_choice_], n))
      return choices_[next_choice_++].value;
    diverged_ = true;
    return 0;
  }

  bool diverged() const { return diverged_; }

 private:
  std::vector<ScheduleStep> choices_;  // the data choices of the group picked last
  std::size_t next_choice_ = 0;
  std::vector<std::vector<ScheduleStep>> groups_;
  std::vector<char> used_;
  bool diverged_ = false;
};

// Splits a step list into its setup choices and per-step groups.
void split(const std::vector<ScheduleStep>& steps, std::vector<ScheduleStep>& setup,
           std::vector<std::vector<ScheduleStep>>& groups) {
  for (const auto& s : steps) {
    if (!s.is_choice())
      groups.push_back({s});
    else if (groups.empty())
      setup.push_back(s);
    else
      groups.back().push_back(s);
  }
}

// The events the bug is made of: a cone holding one cannot keep it.
std::set<int> bug_events(const BugTrace& t) {
  std::set<int> out;
  if (t.bug.kind == Verdict::race)
    for (const auto& a : t.bug.accesses)
      if (a.step > 0) out.insert(static_cast<int>(a.step) - 1);
  if (!t.events.empty()) out.insert(static_cast<int>(t.events.size()) - 1);
  return out;
}

// The cone of event `e`: it, the later events of its agent, and every event
// of an agent created by an event of the cone.
std::vector<char> cone(const BugTrace& t, std::size_t e) {
  std::vector<char> in(t.events.size(), 0);
  std::vector<char> agent_out(t.agents.size(), 0);
  std::vector<std::size_t> work{index(t.events[e].agent)};
  std::vector<std::size_t> from{e};  // per agent on `work`: its first event in the cone
  while (!work.empty()) {
    std::size_t a = work.back(), first = from.back();
    work.pop_back();
    from.pop_back();
    for (std::size_t i = first; i < t.events.size(); ++i) {
      if (index(t.events[i].agent) != a || in[i]) continue;
      in[i] = 1;
      for (std::size_t b = 0; b < t.agents.size(); ++b)
        if (!agent_out[b] && t.agents[b].created_by == static_cast<std::int32_t>(i)) {
          agent_out[b] = 1;
          work.push_back(b);
          from.push_back(i + 1);
        }
    }
  }
  return in;
}

}  // namespace

std::optional<LooseRun> follow_loosely(Runner& runner, const std::vector<ScheduleStep>& steps) {
  std::vector<ScheduleStep> setup;
  std::vector<std::vector<ScheduleStep>> groups;
  split(steps, setup, groups);
  Loose loose(std::move(setup), std::move(groups));
  try {
    runner.run(loose);
  } catch (const CannotFollow&) {
    return std::nullopt;
  } catch (const UsageError&) {
    return std::nullopt;
  }
  const ExecutionRecord& ex = runner.last();
  if (loose.diverged() || !ex.bug()) return std::nullopt;
  LooseRun r;
  r.trace = capture_bug_trace(ex);
  r.steps = schedule_steps(ex);
  r.preemptions = loose.preemptions();
  return r;
}

Shrinkable shrink_across_traces(Runner& runner, Shrinkable best, const Reminimize& reminimize,
                                std::size_t budget) {
  std::size_t used = 0;
  for (bool improved = true; improved && used < budget;) {
    improved = false;
    auto now = follow_loosely(runner, best.steps);
    ++used;
    if (!now) break;
    const BugTrace& t = now->trace;
    const std::set<int> keep = bug_events(t);
    // Distinct cones, largest first: the biggest removal that works wins.
    std::vector<std::vector<char>> cones;
    for (std::size_t e = 0; e < t.events.size(); ++e) {
      auto c = cone(t, e);
      bool needed = std::any_of(keep.begin(), keep.end(), [&](int k) { return c[k] != 0; });
      if (!needed && std::find(cones.begin(), cones.end(), c) == cones.end())
        cones.push_back(std::move(c));
    }
    std::stable_sort(cones.begin(), cones.end(), [](const auto& a, const auto& b) {
      return std::count(a.begin(), a.end(), 1) > std::count(b.begin(), b.end(), 1);
    });
    for (const auto& c : cones) {
      if (used >= budget) break;
      std::vector<ScheduleStep> rest = t.setup_choices;
      for (std::size_t e = 0; e < t.events.size(); ++e)
        if (!c[e]) rest.insert(rest.end(), t.step_groups[e].begin(), t.step_groups[e].end());
      ++used;
      auto run = follow_loosely(runner, rest);
      if (!run || !same_bug(run->trace.bug, best.bug)) continue;
      Shrinkable s{run->steps, run->trace.bug, run->preemptions, count_steps(run->steps)};
      if (auto re = reminimize(*run); re && re->cheaper_than(s)) s = std::move(*re);
      if (!s.cheaper_than(best)) continue;
      best = std::move(s);
      improved = true;
      break;
    }
  }
  return best;
}

}  // namespace heddle
