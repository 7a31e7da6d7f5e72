#include "checker/explore/dpor/bounded.hpp"

#include <algorithm>
#include <stdexcept>

#include "checker/engine/errors.hpp"

namespace heddle::dpor {
namespace {

[[noreturn]] void not_deterministic() {
  throw ModelError(
      "the model is not deterministic: a decision taken in an earlier execution cannot be "
      "taken again (does it read a clock, a random source or global state?)");
}
}  // namespace

bool BoundedDpor::begin() {
  if (done_) return false;
  depth_ = 0;
  agents_.reset();
  kinds_known_ = 0;
  return true;
}

bool BoundedDpor::preempts(const Node& n, AgentId a) const {
  return n.switch_costs && a != n.prev && is_thread(a);
}

AgentId BoundedDpor::first_pick(const Node& n) const {
  // Continuing the running thread costs nothing, so it goes first (as in
  // iterative context bounding, Musuvathi and Qadeer, PLDI 2007, Sec. 3);
  // every run can go on within the bound this way.
  return n.switch_costs ? n.prev : n.enabled.front();
}

AgentId BoundedDpor::next(const Choice& c) {
  // Decisions name agents by canonical id (engine ids follow creation
  // order, which changes with the interleaving); `a` is the engine's.
  agents_.sync(c.execution);
  auto running = [&](AgentId canon) {
    AgentId a{};
    if (!agents_.find(canon, a) ||
        std::find(c.enabled.begin(), c.enabled.end(), a) == c.enabled.end())
      not_deterministic();
    return a;
  };
  if (depth_ < path_.size()) {  // replaying the prefix of the last execution
    Node& n = path_[depth_];
    if (n.data) not_deterministic();
    ++depth_;
    return running(n.chosen);
  }
  const std::size_t step = steps_.size();
  if (step + 1 != c.step) throw std::logic_error("[heddle bug] bounded: steps and picks disagree");
  const auto& agents = c.execution.agents();
  for (std::size_t a = kinds_known_; a < agents.size(); ++a) {
    const std::size_t k = index(agents_.canon(AgentId{static_cast<std::uint32_t>(a)}));
    if (k >= thread_.size()) thread_.resize(k + 1, 0);
    thread_[k] = agents[a]->kind == Agent::Kind::thread;
  }
  kinds_known_ = agents.size();
  Node n;
  for (AgentId a : c.enabled) n.enabled.push_back(agents_.canon(a));
  if (step > 0) {
    // Async steps are transparent: prev is the last *thread* that ran.
    const Node& p = path_[steps_.back()];
    n.has_prev = p.has_prev || is_thread(p.chosen);
    n.prev = is_thread(p.chosen) ? p.chosen : p.prev;
    n.switch_costs = n.has_prev && contains(n.enabled, n.prev);
    n.preemptions = p.preemptions + (preempts(p, p.chosen) ? 1 : 0);
  }
  n.chosen = first_pick(n);
  n.backtrack.push_back(n.chosen);
  steps_.push_back(path_.size());
  path_.push_back(std::move(n));
  ++depth_;
  return running(path_.back().chosen);
}

std::uint32_t BoundedDpor::choose(std::uint32_t n) {
  if (depth_ < path_.size()) {
    const Node& d = path_[depth_++];
    if (!d.data || d.range != n) not_deterministic();
    return d.value;
  }
  Node d;
  d.data = true;
  d.range = n;
  path_.push_back(std::move(d));
  ++depth_;
  return 0;
}

void BoundedDpor::end(const ExecutionRecord& ex) {
  agents_.sync(ex);  // agents created by the last step
  std::vector<Event> trace = ex.trace();
  for (Event& e : trace) e.agent = agents_.canon(e.agent);
  if (trace.size() != steps_.size() || depth_ != path_.size())
    throw std::logic_error("[heddle bug] bounded: the trace and the decisions disagree");
  // Operations still pending when the run ended (blocked, or cut off by a
  // bug) race like steps that would run last (Flanagan and Godefroid, POPL
  // 2005, Fig. 4, consider next(s, p) for every process p).
  std::vector<Event> pending;
  for (const auto& a : ex.agents()) {
    if (a->finished) continue;
    if (a->kind == Agent::Kind::thread && !static_cast<const ThreadAgent&>(*a).has_pending)
      continue;
    Event& e = pending.emplace_back();
    e.agent = agents_.canon(a->id);
    e.footprint = a->pending().footprint;
    e.agent_event = a->events;
    e.created_by = a->events == 0 ? a->created_by : -1;
  }
  compute_clocks(trace, pending);
  analyse(trace, pending);
  if (!backtrack()) done_ = true;
}

void BoundedDpor::compute_clocks(const std::vector<Event>& trace,
                                 const std::vector<Event>& pending) {
  const std::size_t n = trace.size(), total = n + pending.size();
  auto at = [&](std::size_t k) -> const Event& { return k < n ? trace[k] : pending[k - n]; };
  stride_ = 0;
  for (std::size_t k = 0; k < total; ++k)
    stride_ = std::max<std::size_t>(stride_, index(at(k).agent) + 1);
  clocks_.assign(total * stride_, 0);
  prev_pos_.assign(total, -1);
  std::vector<std::int32_t> last(stride_, -1);
  for (std::size_t k = 0; k < total; ++k) {
    const Event& e = at(k);
    std::uint32_t* row = &clocks_[k * stride_];
    auto join = [&](std::size_t other) {
      const std::uint32_t* o = &clocks_[other * stride_];
      for (std::size_t a = 0; a < stride_; ++a) row[a] = std::max(row[a], o[a]);
    };
    prev_pos_[k] = last[index(e.agent)];
    if (k < n) last[index(e.agent)] = static_cast<std::int32_t>(k);
    if (prev_pos_[k] >= 0) join(static_cast<std::size_t>(prev_pos_[k]));
    if (e.agent_event == 0 && e.created_by >= 0) join(static_cast<std::size_t>(e.created_by));
    for (std::size_t i = 0; i < std::min(k, n); ++i)
      if (conflict(trace[i], e)) join(i);
    row[index(e.agent)] = e.agent_event + 1;
  }
}

void BoundedDpor::analyse(const std::vector<Event>& trace, const std::vector<Event>& pending) {
  const std::size_t n = trace.size();
  auto at = [&](std::size_t k) -> const Event& { return k < n ? trace[k] : pending[k - n]; };
  auto race_with = [&](std::size_t j) {
    const Event& ej = at(j);
    const std::int32_t pp = prev_pos_[j];
    const std::int32_t cb = ej.agent_event == 0 ? ej.created_by : -1;
    for (std::size_t i = 0; i < std::min(j, n); ++i) {
      const Event& ei = trace[i];
      if (!may_move_before(i, ei, ej, pp, cb, [&](std::size_t a, std::size_t b) {
            return happens_before(trace[a], b);
          }))
        continue;
      ++stats_.races;
      add_backtrack(i, ej.agent);
      add_at_switch(trace, i, ej.agent);
    }
  };
  for (std::size_t j = first_new_step_; j < n; ++j) race_with(j);
  for (std::size_t j = n; j < n + pending.size(); ++j) race_with(j);
}

void BoundedDpor::add_at_switch(const std::vector<Event>& trace, std::size_t i, AgentId a) {
  // BPOR (OOPSLA 2013, Sec. 4, Alg. 2): the same agent at the last context
  // switch before i, where running it may cost no preemption that the
  // reversal at i would (loom's Path::backtrack does the same). Async steps
  // never switch context, so the run of the thread P that ran last before i
  // includes the async steps inside and just before it: both its first
  // step and the step after the previous thread's are switch points.
  const Node& n = path_[steps_[i]];
  if (!n.has_prev) {
    if (i > 0) add_backtrack(0, a);
    return;
  }
  std::size_t k = i, first = i;
  while (k > 0 && (!is_thread(trace[k - 1].agent) || trace[k - 1].agent == n.prev)) {
    --k;
    if (trace[k].agent == n.prev) first = k;
  }
  if (k < i) add_backtrack(k, a);
  if (first != k && first < i) add_backtrack(first, a);
}

void BoundedDpor::add_backtrack(std::size_t step, AgentId a) {
  // Persistent sets (POPL 2005, Fig. 4, lines 7-10): the racing agent if it
  // is enabled there, else every enabled agent.
  Node& n = path_[steps_[step]];
  if (contains(n.enabled, a)) {
    try_add(n, a);
    return;
  }
  for (AgentId b : n.enabled) try_add(n, b);
}

void BoundedDpor::try_add(Node& n, AgentId a) {
  if (contains(n.backtrack, a)) return;
  if (preempts(n, a) && n.preemptions >= bound_) {
    if (!contains(n.cut, a)) {
      n.cut.push_back(a);
      ++stats_.cut;
    }
    return;
  }
  n.backtrack.push_back(a);
}

bool BoundedDpor::backtrack() {
  for (std::size_t d = path_.size(); d-- > 0;) {
    Node& n = path_[d];
    if (n.data) {
      if (n.value + 1 == n.range) continue;
      ++n.value;
    } else {
      // backtrack[0, explored) have been run here; the next one goes now.
      if (n.explored + 1 == n.backtrack.size()) continue;
      n.chosen = n.backtrack[++n.explored];
    }
    path_.resize(d + 1);
    while (!steps_.empty() && steps_.back() > d) steps_.pop_back();
    replay_ = d;
    // Races among steps before the first new one were analysed already.
    first_new_step_ = steps_.empty() ? 0 : steps_.size() - 1;
    return true;
  }
  return false;
}

}  // namespace heddle::dpor
