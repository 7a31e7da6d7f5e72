#include "checker/report/timeline.hpp"

#include <algorithm>
#include <deque>
#include <set>
#include <stdexcept>

#include "checker/engine/execution_record.hpp"
#include "checker/explore/forwarding.hpp"

namespace heddle {

/// Forwards every call to the wrapped strategy and records, at each pick,
/// the clock the previous step left its agent with and the picked agent's
/// own clock entry: the data from which happens-before is read back.
class TimelineStrategy final : public ForwardingStrategy {
 public:
  TimelineStrategy(std::unique_ptr<Strategy> inner, TimelineCapture& capture)
      : ForwardingStrategy(std::move(inner)), capture_(capture) {}

  bool begin_execution() override {
    clocks_ = {};
    last_.reset();
    return ForwardingStrategy::begin_execution();
  }
  AgentId pick(const Choice& c) override {
    close_step(c.execution);
    AgentId id = ForwardingStrategy::pick(c);
    if (id == kAbandon) return id;
    const Agent& a = *c.execution.agents()[index(id)];
    clocks_.start.push_back(a.clock[id]);
    if (a.events == 0) clocks_.first.emplace(index(id), a.clock);
    last_ = id;
    return id;
  }
  void end_execution(const ExecutionRecord& ex) override {
    close_step(ex);
    capture_.timeline_ = build_timeline(ex, clocks_, capture_.kernel_, capture_.params_);
    ForwardingStrategy::end_execution(ex);
  }

 private:
  void close_step(const ExecutionRecord& ex) {
    if (last_) clocks_.after.push_back(ex.agents()[index(*last_)]->clock);
    last_.reset();
  }

  TimelineCapture& capture_;
  TimelineCapture::Clocks clocks_;
  std::optional<AgentId> last_;
};

TimelineCapture::TimelineCapture(std::string kernel, std::map<std::string, std::string> params)
    : kernel_(std::move(kernel)), params_(std::move(params)) {}
TimelineCapture::~TimelineCapture() = default;

StrategyDecorator TimelineCapture::decorator() {
  return [this](std::unique_ptr<Strategy> inner) -> std::unique_ptr<Strategy> {
    return std::make_unique<TimelineStrategy>(std::move(inner), *this);
  };
}

namespace {
/// Reads happens-before back from the captured clocks. Event f (agent Y)
/// happens before a point whose clock is C iff start(f) <= C[Y]: an agent's
/// own entry advances only when it passes its clock on (release, spawn,
/// issue, fence), so the events up to and including the passing one are
/// exactly those with start <= the passed value (Mattern, "Virtual time and
/// global states of distributed systems", 1989, section 4).
class CausalPast {
 public:
  CausalPast(const ExecutionRecord& ex, const TimelineCapture::Clocks& c, Timeline& t)
      : ex_(ex), c_(c), t_(t), lanes_(ex.agents().size()) {
    for (const auto& s : t.steps) lanes_[s.agent].push_back(s.step);
    if (c.start.size() != t.steps.size() || c.after.size() != t.steps.size())
      throw std::logic_error("[heddle bug] timeline capture missed steps");
  }

  /// Adds the reduced edges into the step `target` or standalone access `access`, then
  /// walks the causal past backwards, adding the edges into every step in it.
  void walk_from(std::uint32_t target, int access) {
    std::deque<std::uint32_t> todo;
    auto visit = [&](std::uint32_t step, int acc) {
      for (std::uint32_t f : direct_predecessors(step, acc, todo)) {
        bool creation = false;
        if (step) {  // an agent's first step is created by the spawn or issue before it
          std::size_t agent = t_.steps[step - 1].agent;
          creation = lanes_[agent].front() == step &&
                     ex_.agents()[agent]->created_by + 1 == static_cast<int>(f);
        }
        add_edge(TimelineEdge{f, step, step ? -1 : acc, creation});
      }
    };
    if (target) mark(target, todo);
    visit(target, access);
    while (!todo.empty()) {
      std::uint32_t step = todo.front();
      todo.pop_front();
      visit(step, -1);
    }
  }

  /// The steps that happen before racing access `k` (and its own step):
  /// element f-1 is true when step f is in the access's causal past.
  std::vector<bool> past_of(std::size_t k) const {
    const TimelineAccess& a = t_.accesses[k];
    std::vector<bool> past(t_.steps.size(), false);
    if (a.own_step) {
      for (std::uint32_t f = 1; f <= a.column; ++f)
        past[f - 1] = f == a.column || happens_before(f, a.column);
      return past;
    }
    const VectorClock& clock = clock_of(0, static_cast<int>(k));
    for (std::uint32_t f = 1; f <= a.column && f <= t_.steps.size(); ++f) {
      std::size_t y = t_.steps[f - 1].agent;
      past[f - 1] =
          y != a.agent && c_.start[f - 1] <= clock[AgentId{static_cast<std::uint32_t>(y)}];
    }
    return past;
  }

  /// The race's causal slice (Timeline::steps' in_slice): the steps in one
  /// access's causal past and not in the other's, the maximal elements of
  /// the common past (where the two last synchronized), the issue of each
  /// racing copy, and the accesses' own steps. The common past below its
  /// frontier is history both accesses agree on; it says nothing about why
  /// they are unordered, so the picture folds it.
  void mark_slice() {
    std::vector<bool> p1 = past_of(0), p2 = past_of(1);
    std::vector<std::uint32_t> latest(lanes_.size(), 0);  // per lane: its last step in both pasts
    for (std::uint32_t f = 1; f <= t_.steps.size(); ++f) {
      bool common = p1[f - 1] && p2[f - 1];
      t_.steps[f - 1].in_slice = p1[f - 1] != p2[f - 1];
      if (common) latest[t_.steps[f - 1].agent] = f;
    }
    for (std::uint32_t f : latest) {
      if (!f) continue;
      bool below = std::any_of(latest.begin(), latest.end(),
                               [&](std::uint32_t g) { return g && g != f && happens_before(f, g); });
      if (!below) t_.steps[f - 1].in_slice = true;
    }
    for (const auto& a : t_.accesses) {
      if (a.own_step) t_.steps[a.column - 1].in_slice = true;
      const TimelineAgent& agent = t_.agents[a.agent];
      if (agent.async && agent.issued_at >= 1 && agent.issued_at <= t_.steps.size())
        t_.steps[agent.issued_at - 1].in_slice = true;
    }
  }

 private:
  const VectorClock& clock_of(std::uint32_t step, int access) const {
    if (step) return c_.after[step - 1];
    const TimelineAccess& a = t_.accesses[access];
    auto it = c_.first.find(a.agent);
    return it != c_.first.end() ? it->second : ex_.agents()[a.agent]->clock;
  }

  bool happens_before(std::uint32_t f, std::uint32_t g) const {
    std::size_t y = t_.steps[f - 1].agent;
    if (y == t_.steps[g - 1].agent) return f < g;
    return c_.start[f - 1] <= c_.after[g - 1][AgentId{static_cast<std::uint32_t>(y)}];
  }

  /// The maximal elements among the latest predecessor of each other lane
  /// and the lane predecessor: the edges of the Hasse diagram into the point.
  std::vector<std::uint32_t> direct_predecessors(std::uint32_t step, int access,
                                                 std::deque<std::uint32_t>& todo) {
    const VectorClock& clock = clock_of(step, access);
    std::size_t self = step ? t_.steps[step - 1].agent : t_.accesses[access].agent;
    std::uint32_t bound = step ? step : t_.accesses[access].column + 1;  // steps before it
    std::vector<std::uint32_t> frontier;
    std::uint32_t lane_prev = 0;
    for (std::size_t y = 0; y < lanes_.size(); ++y) {
      std::uint32_t latest = 0;
      for (std::uint32_t f : lanes_[y]) {
        if (f >= bound) break;
        if (y == self) latest = f;
        else if (c_.start[f - 1] <= clock[AgentId{static_cast<std::uint32_t>(y)}]) latest = f;
      }
      if (!latest) continue;
      if (y == self) lane_prev = latest;
      else frontier.push_back(latest);
    }
    std::vector<std::uint32_t> candidates = frontier;
    if (lane_prev) candidates.push_back(lane_prev);
    std::vector<std::uint32_t> direct;
    for (std::uint32_t f : frontier) {
      bool covered = std::any_of(candidates.begin(), candidates.end(),
                                 [&](std::uint32_t g) { return g != f && happens_before(f, g); });
      if (!covered) direct.push_back(f);
    }
    for (std::uint32_t f : candidates) mark(f, todo);
    return direct;
  }

  void mark(std::uint32_t step, std::deque<std::uint32_t>& todo) {
    if (t_.steps[step - 1].in_past) return;
    t_.steps[step - 1].in_past = true;
    todo.push_back(step);
  }

  void add_edge(const TimelineEdge& e) {
    for (const auto& x : t_.edges)
      if (x.from == e.from && x.to == e.to && x.access == e.access) return;
    t_.edges.push_back(e);
  }

  const ExecutionRecord& ex_;
  const TimelineCapture::Clocks& c_;
  Timeline& t_;
  std::vector<std::vector<std::uint32_t>> lanes_;  // steps of each agent, in order
};

std::size_t agent_index(const ExecutionRecord& ex, const std::string& name) {
  for (std::size_t i = 0; i < ex.agents().size(); ++i)
    if (ex.agents()[i]->name == name) return i;
  throw std::logic_error("[heddle bug] a racing access names an unknown agent " + name);
}
}  // namespace

Timeline build_timeline(const ExecutionRecord& ex, const TimelineCapture::Clocks& clocks,
                        const std::string& kernel, const std::map<std::string, std::string>& params) {
  Timeline t;
  t.kernel = kernel;
  t.params = params;
  for (std::size_t i = 0; i < ex.trace().size(); ++i) {
    const Event& e = ex.trace()[i];
    t.steps.push_back(TimelineStep{static_cast<std::uint32_t>(i + 1), index(e.agent),
                                   ex.describe(e.op, e.object, e.has_object), where(e.loc)});
  }
  for (const auto& a : ex.agents()) {
    TimelineAgent ta;
    ta.name = a->name;
    if (a->kind == Agent::Kind::async) {
      const auto& as = static_cast<const AsyncAgent&>(*a);
      ta.async = true;
      ta.issuer = index(as.issuer) < ex.agents().size() ? ex.agents()[index(as.issuer)]->name : "host";
      ta.issued_at = static_cast<std::uint32_t>(a->created_by + 1);
      ta.issued_where = where(as.loc);
      if (a->finished)
        for (const auto& s : t.steps)
          if (s.agent == index(a->id)) ta.completed_at = s.step;
    }
    t.agents.push_back(std::move(ta));
  }
  const auto& bug = ex.bug();
  t.verdict = bug ? verdict_name(bug->kind) : "ok";
  if (!bug) return t;
  t.title = bug->title;
  CausalPast past(ex, clocks, t);
  for (const auto& info : bug->accesses) {
    TimelineAccess a{agent_index(ex, info.agent), info.step, false, info};
    a.own_step = info.step >= 1 && info.step <= t.steps.size() &&
                 t.steps[info.step - 1].agent == a.agent;
    t.accesses.push_back(std::move(a));
  }
  for (std::size_t k = 0; k < t.accesses.size(); ++k) {
    const auto& a = t.accesses[k];
    past.walk_from(a.own_step ? a.column : 0, static_cast<int>(k));
  }
  if (t.accesses.empty() && bug->step >= 1 && bug->step <= t.steps.size()) {
    t.bug_step = bug->step;
    past.walk_from(bug->step, -1);
  }
  // Only a race folds: another bug (a deadlock, a failed check) is about
  // every agent's state, so its picture keeps every step.
  if (t.accesses.size() == 2) past.mark_slice();
  return t;
}

}  // namespace heddle
