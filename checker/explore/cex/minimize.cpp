// Counterexample minimization (checker/DESIGN.md § Counterexamples).
//
// 1. Causal slice. Event j is in the causal past of event i (j < i) when they
//    are of the same agent, j created i's agent (spawn, async issue), or
//    their footprints conflict: the dependency relation DPOR uses, which
//    contains synchronization (every release/acquire goes through a sync
//    object in the footprint). The bug's targets are the steps of the two
//    racing accesses (an access at step N ran during step N, or while its
//    thread started right after step N), or the failing step; a deadlock or
//    a kernel-exit failure needs every agent to run to its end, so its slice
//    is the whole trace.
// 2. Re-linearization. Linearizations that respect the dependency order reach
//    the same state (Mazurkiewicz), so we search them exactly: Dijkstra over
//    downward-closed event sets (per-agent counts) and the last agent run,
//    for the fewest preemptions. Only slice events are used: every step of
//    a counterexample is in the causal past of the bug (checker/DESIGN.md
//    § Counterexamples). Letting a thread run on past its last needed step can turn a
//    switch away from it into no preemption at all, but that buys a
//    preemption nobody needs with steps nobody needs (a 2-step race shown
//    in 3 or 6): a thread simply left behind where the counterexample ends
//    is what a reader expects.
// 3. Replay confirms the same bug; if it does not, the next candidate is
//    tried, then the slice in its original order, then the original schedule.
// 4. Shrinking across traces (shrink.hpp). Steps 1-3 keep what the bug
//    depends on in the trace that was found; another trace may need less
//    (a wait satisfied by another signal, a device that need not take part,
//    or, with on_wait DMAs whose enabledness no footprint shows, a schedule
//    that no re-linearization of the slice replays). Whole causal cones are
//    removed, the rest is replayed loosely and sliced again, while that
//    lowers (steps, preemptions).
//
// So minimal means: the fewest steps of any schedule we can reach that
// shows the bug, and among those the fewest preemptions; the brute force
// in test/search/minimize_test.cpp checks both on small models.
#include "checker/explore/cex/minimize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <queue>

#include "checker/engine/runaway.hpp"
#include "checker/explore/dpor/event.hpp"
#include "checker/explore/cex/follow.hpp"
#include "checker/explore/cex/shrink.hpp"

namespace heddle {
namespace {

constexpr std::size_t kMaxEvents = 4000;   // longer traces are reported as found
constexpr std::size_t kMaxNodes = 200000;  // search nodes per linearization search
constexpr std::size_t kMaxReplays = 3000;  // enabled-set replays per minimization
constexpr std::size_t kMaxShrinkEvents = 400;    // longer traces are not shrunk across traces
constexpr std::size_t kMaxShrinkReplays = 1500;  // loose replays per shrinking

// The dependency graph of a trace: direct causal predecessors of each event.
struct Graph {
  std::vector<std::vector<int>> deps;
  std::vector<std::vector<int>> of_agent;  // event indices of each agent, in order
  std::vector<int> pos;                    // index of each event within its agent
};

Graph build_graph(const BugTrace& t) {
  Graph g;
  g.of_agent.resize(t.agents.size());
  g.deps.resize(t.events.size());
  g.pos.resize(t.events.size());
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    auto a = index(t.events[i].agent);
    auto& mine = g.of_agent[a];
    g.pos[i] = static_cast<int>(mine.size());
    if (!mine.empty())
      g.deps[i].push_back(mine.back());
    else if (t.agents[a].created_by >= 0)
      g.deps[i].push_back(t.agents[a].created_by);
    mine.push_back(static_cast<int>(i));
    for (std::size_t j = 0; j < i; ++j)
      if (dpor::conflict(t.events[j], t.events[i]))
        g.deps[i].push_back(static_cast<int>(j));
  }
  return g;
}

// Marks the causal past of `targets` (themselves included).
std::vector<char> causal_past(const Graph& g, const std::vector<int>& targets) {
  std::vector<char> in(g.deps.size(), 0);
  std::vector<int> work(targets.begin(), targets.end());
  while (!work.empty()) {
    int e = work.back();
    work.pop_back();
    if (e < 0 || in[e]) continue;
    in[e] = 1;
    for (int d : g.deps[e]) work.push_back(d);
  }
  return in;
}

// The events the bug needs; empty with `whole` set when it needs all of them.
std::vector<int> bug_targets(const BugTrace& t, bool& whole) {
  auto event_of = [](std::uint32_t step) { return static_cast<int>(step) - 1; };
  std::vector<int> out;
  whole = false;
  bool all_done = std::all_of(t.agents.begin(), t.agents.end(), [](auto& a) { return a.finished; });
  if (t.bug.kind == Verdict::race) {
    for (const auto& a : t.bug.accesses)
      if (a.step > 0) out.push_back(event_of(a.step));
  } else if (t.bug.kind == Verdict::deadlock || all_done) {
    whole = true;
  } else if (t.bug.step > 0) {
    out.push_back(event_of(t.bug.step));
  }
  return out;
}

using Cost = std::pair<std::uint32_t, std::uint32_t>;  // (preemptions, steps): steps are
                                                        // the slice's, so preemptions decide

// Exact search for the linearization with the fewest (preemptions, steps)
// that contains the slice and ends with `final_event`.
class Linearizer {
 public:
  Linearizer(const BugTrace& t, const Graph& g, const std::vector<char>& slice,
             const std::function<std::vector<std::string>(const std::vector<int>&)>& enabled_after)
      : t_(t), g_(g), slice_(slice), enabled_after_(enabled_after) {}

  /// The best order, or nullopt when the search ran out of its budget.
  std::optional<std::vector<int>> run(int final_event, Cost* cost);
  bool out_of_replays() const { return replays_ >= kMaxReplays; }

 private:
  struct Node {
    std::vector<std::uint16_t> counts;  // events run per agent (a prefix of each)
    int last = -1;                      // the last thread that ran, -1 at the start
    int parent = -1;
    int event = -1;                     // the event that led here
    int slice_left = 0;                 // slice events not yet run (the final excluded)
  };

  bool runnable(const std::vector<std::uint16_t>& counts, int e) const {
    for (int d : g_.deps[e])
      if (counts[index(t_.events[d].agent)] <= g_.pos[d]) return false;
    return true;
  }
  std::vector<int> path(int node) const {
    std::vector<int> out;
    for (; node >= 0 && nodes_[node].event >= 0; node = nodes_[node].parent)
      out.push_back(nodes_[node].event);
    std::reverse(out.begin(), out.end());
    return out;
  }
  // Is agent `a` (a thread) enabled once `node`'s events have run?
  std::optional<bool> enabled(int node, int a);

  const BugTrace& t_;
  const Graph& g_;
  const std::vector<char>& slice_;
  const std::function<std::vector<std::string>(const std::vector<int>&)>& enabled_after_;
  std::vector<Node> nodes_;
  std::map<std::vector<std::uint16_t>, std::vector<std::string>> memo_;
  std::size_t replays_ = 0;
};

std::optional<bool> Linearizer::enabled(int node, int a) {
  const auto& counts = nodes_[node].counts;
  const auto& mine = g_.of_agent[a];
  // Its next event has all its dependencies: nothing it conflicts with has
  // changed since it ran in the original, so it is enabled now too.
  if (counts[a] < mine.size() && runnable(counts, mine[counts[a]])) return true;
  // It ran its last event and then finished (in the same step).
  if (counts[a] == mine.size() && t_.agents[a].finished) return false;
  auto it = memo_.find(counts);
  if (it == memo_.end()) {
    if (replays_ >= kMaxReplays) return std::nullopt;
    ++replays_;
    it = memo_.emplace(counts, enabled_after_(path(node))).first;
  }
  const auto& names = it->second;
  return std::find(names.begin(), names.end(), t_.agents[a].name) != names.end();
}

std::optional<std::vector<int>> Linearizer::run(int final_event, Cost* cost) {
  nodes_.clear();
  Node start;
  start.counts.assign(t_.agents.size(), 0);
  for (std::size_t i = 0; i < slice_.size(); ++i)
    if (slice_[i] && static_cast<int>(i) != final_event) ++start.slice_left;
  nodes_.push_back(start);
  using Item = std::pair<Cost, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  std::map<std::pair<std::vector<std::uint16_t>, int>, Cost> best;
  queue.push({{0, 0}, 0});
  while (!queue.empty()) {
    auto [c, u] = queue.top();
    queue.pop();
    if (nodes_[u].event == final_event) {
      *cost = c;
      return path(u);
    }
    for (std::size_t a = 0; a < t_.agents.size(); ++a) {
      const Node& n = nodes_[u];
      if (n.counts[a] >= g_.of_agent[a].size()) continue;
      int e = g_.of_agent[a][n.counts[a]];
      if (e == final_event ? n.slice_left > 0 : !slice_[e]) continue;
      if (!runnable(n.counts, e)) continue;
      Cost next{c.first, c.second + 1};
      // Only a thread step preempts (the last thread, if still enabled);
      // an async step costs nothing and leaves `last` as it was.
      const bool thread = t_.agents[a].thread;
      int last = n.last;
      if (thread && last >= 0 && last != static_cast<int>(a)) {
        auto on = enabled(u, last);
        if (!on) return std::nullopt;
        next.first += *on ? 1 : 0;
      }
      Node m = nodes_[u];
      ++m.counts[a];
      if (thread) m.last = static_cast<int>(a);
      m.parent = u;
      m.event = e;
      if (slice_[e] && e != final_event) --m.slice_left;
      auto key = std::make_pair(m.counts, m.last);
      auto found = best.find(key);
      if (found != best.end() && found->second <= next) continue;
      best[key] = next;
      if (nodes_.size() >= kMaxNodes) return std::nullopt;
      nodes_.push_back(std::move(m));
      queue.push({next, static_cast<int>(nodes_.size()) - 1});
    }
  }
  return std::nullopt;
}

std::vector<ScheduleStep> steps_of(const BugTrace& t, const std::vector<int>& order) {
  std::vector<ScheduleStep> out = t.setup_choices;
  for (int e : order) out.insert(out.end(), t.step_groups[e].begin(), t.step_groups[e].end());
  return out;
}

// The candidate orders, best first: searched ones, then the slice as it ran.
std::vector<std::vector<int>> candidates(const BugTrace& t, const Graph& g,
                                         Linearizer& lin, const std::vector<char>& slice,
                                         const std::vector<int>& targets, std::string& note) {
  const int last = static_cast<int>(t.events.size()) - 1;
  std::vector<std::vector<int>> out;
  // Which of the two racing accesses runs last (checker/DESIGN.md
  // § Counterexamples). The harmful order is wanted where the model allows
  // it; the simplest rule that gets it in the common case is to keep the
  // original order (the access that came second still comes second), and use
  // the other order only when it needs strictly fewer preemptions or steps.
  std::vector<int> finals{last};
  for (int e : targets)
    if (e != last && !causal_past(g, {last})[e]) finals.push_back(e);
  std::vector<std::pair<Cost, std::vector<int>>> found;
  for (int f : finals) {
    Cost c;
    auto order = lin.run(f, &c);
    if (order) found.emplace_back(c, std::move(*order));
  }
  if (found.empty()) note = "the search over re-linearizations exceeded its budget";
  std::stable_sort(found.begin(), found.end(),
                   [](auto& a, auto& b) { return a.first < b.first; });
  for (auto& [c, order] : found) out.push_back(std::move(order));
  std::vector<int> as_ran;
  for (std::size_t i = 0; i < slice.size(); ++i)
    if (slice[i]) as_ran.push_back(static_cast<int>(i));
  out.push_back(std::move(as_ran));
  return out;
}

}  // namespace


namespace {

// Slices `t` and re-linearizes it (steps 1 to 3 of the file comment); the
// first candidate that replays to the same bug, or nullopt.
std::optional<Shrinkable> minimize_trace(Runner& runner, const BugTrace& t, std::string& note) {
  Graph g = build_graph(t);
  bool whole = false;
  std::vector<int> targets = bug_targets(t, whole);
  std::vector<char> slice = whole ? std::vector<char>(t.events.size(), 1) : causal_past(g, targets);
  std::function<std::vector<std::string>(const std::vector<int>&)> oracle =
      [&](const std::vector<int>& order) {
        return follow(runner, steps_of(t, order)).enabled;
      };
  Linearizer lin(t, g, slice, oracle);
  for (const auto& order : candidates(t, g, lin, slice, targets, note)) {
    auto steps = steps_of(t, order);
    auto bug = confirm_replay(runner, steps);
    if (!bug || !same_bug(*bug, t.bug)) continue;
    Followed f = follow(runner, steps);
    if (!f.ok) continue;
    const std::uint32_t n = count_steps(steps);
    return Shrinkable{std::move(steps), *bug, f.preemptions, n};
  }
  return std::nullopt;
}

}  // namespace

Minimized minimize_counterexample(Runner& runner, const BugTrace& t,
                                  const Schedule& original) {
  Minimized m;
  m.steps = original.steps;
  m.bug = t.bug;
  m.info.original_steps = m.info.steps = count_steps(original.steps);
  Followed first = follow(runner, original.steps);  // counts preemptions
  m.info.original_preemptions = m.info.preemptions = first.preemptions;
  auto give_up = [&](std::string why) {
    m.info.note = std::move(why);
    return m;
  };
  // Replaying these costs their whole length, or the step timeout, each
  // time (a runaway cost 12 step timeouts, issue 54.6): kept as found.
  if (t.bug.kind == Verdict::livelock) return give_up("a livelock's schedule is kept as found");
  if (is_runaway(t.bug))
    return give_up("a runaway step's schedule is kept as found: each replay runs it for the "
                   "step timeout");
  if (!first.ok) return give_up("the schedule does not replay step for step");
  if (t.events.size() > kMaxEvents)
    return give_up(fmt::format("longer than {} steps", kMaxEvents));
  if (t.events.empty()) {  // the bug shows before step 1: the empty schedule is minimal
    m.info.minimized = true;
    return m;
  }
  std::string note;
  auto found = minimize_trace(runner, t, note);
  Shrinkable start = found ? *found
                           : Shrinkable{original.steps, t.bug, first.preemptions,
                                        m.info.original_steps};
  // 4. Other traces may need fewer steps than this one (shrink.hpp).
  Shrinkable best = start;
  // Only bugs made of a few steps (a race, a failing step): a deadlock or a
  // kernel-exit failure needs every agent run to its end, and another trace
  // of one could be another deadlock with the same title.
  bool whole = false;
  (void)bug_targets(t, whole);
  if (!whole && t.events.size() <= kMaxShrinkEvents) {
    Reminimize again = [&](const LooseRun& r) {
      std::string ignored;
      return minimize_trace(runner, r.trace, ignored);
    };
    best = shrink_across_traces(runner, start, again, kMaxShrinkReplays);
  }
  if (!found && !best.cheaper_than(start))
    return give_up("no shorter schedule replays to the same bug");
  // The reported bug is the replayed one (its steps are the new schedule's).
  auto bug = confirm_replay(runner, best.steps);
  Followed f = follow(runner, best.steps);
  if (!bug || !same_bug(*bug, t.bug) || !f.ok)
    return give_up("no shorter schedule replays to the same bug");
  m.steps = std::move(best.steps);
  m.bug = *bug;
  m.info.steps = count_steps(m.steps);
  m.info.preemptions = f.preemptions;
  m.info.minimized = true;
  m.info.note = found ? note : "";
  return m;
}

}  // namespace heddle
