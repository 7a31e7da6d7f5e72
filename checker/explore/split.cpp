#include "checker/explore/split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <list>

#include "checker/engine/errors.hpp"
#include "checker/explore/dpor/pop_trace.hpp"

namespace heddle {
namespace {
using dpor::EventInfo;

// A node of the expanded tree: its prefix and sleep set, and what its probe
// saw at the end of the prefix.
struct Node {
  WorkItem item;
  std::vector<EventInfo> frontier;  // the enabled agents' pending events, in agent order
  EventInfo last;                   // the prefix's last event, as it ran
  std::vector<EventInfo> sample;    // the events of one continuation past the prefix
  bool leaf = false;                // the execution ended at the prefix's end
  bool chooses = false;             // the model called heddle::choose
  bool witnessed = false;           // the sample woke every sleeping event: the item owns a trace
  double weight = 0;                // log2 of the product of the sample's awake agents per step
  std::size_t sample_choices = 0;   // steps with two awake agents or more, before it woke them all
  bool rest = false;                // its node's rest (expand()): not expanded further
  bool guarded = false;             // a rest whose sample owns no trace
};

// How far a probe's sample continuation runs past the prefix, at most.
constexpr std::size_t kSampleSteps = 1024;
// How far a probe's execution runs past its sample's end before it is given up.
constexpr std::size_t kFinishSteps = 256;

// True when one of `sleep` is the pending event `x` (CAV'24's completes()
// for a sequence of one event).
bool sleeps(const std::vector<EventInfo>& sleep, const EventInfo& x) {
  return std::any_of(sleep.begin(), sleep.end(),
                     [&](const EventInfo& b) { return dpor::same_step(b, x); });
}

// Runs `ran` past the sleep set `sleep`: drops the events it wakes, keeping
// those still independent of it (dpor::step on the sequence {b}: kept
// exactly when independent of `ran`).
void run_past(std::vector<EventInfo>& sleep, const EventInfo& ran) {
  std::erase_if(sleep, [&](const EventInfo& b) { return dpor::dependent(ran, b); });
}

// The sleep set after running `ran`: the events of `before` still independent of it.
std::vector<EventInfo> carried(const std::vector<EventInfo>& before, const EventInfo& ran) {
  std::vector<EventInfo> out = before;
  run_past(out, ran);
  return out;
}

// Runs a prefix, records the last event as it ran and the events enabled
// after it, then samples one continuation (round robin, bounded) whose
// events order the node's children (expand()).
class Probe final : public Strategy {
 public:
  /// `before`: the sleep set before the prefix's last event (none for the root).
  Probe(const std::vector<AgentId>& prefix, const std::vector<EventInfo>* before, WorkSplit& split,
        Node& into)
      : prefix_(prefix), before_(before), split_(split), node_(into) {
    asleep_ = into.item.sleep;  // the root's, or a rest node's, given
    node_.witnessed = before != nullptr ? before->empty() : asleep_.empty();
  }
  std::string name() const override { return "dpor"; }
  bool begin_execution() override {
    split_.agents.reset();
    split_.objects.reset();
    return true;
  }
  AgentId pick(const Choice& c) override {
    const std::size_t p = depth_++;
    sync(c.execution);
    if (p == prefix_.size()) {
      for (AgentId a : c.enabled) {
        EventInfo e = split_.agents.pending_event(c, a);
        split_.objects.canon(e.footprint);
        node_.frontier.push_back(std::move(e));
      }
    }
    if (p >= prefix_.size()) return ended_ ? finish_pick(c, p) : sample_pick(c, p);
    AgentId a{};
    if (!split_.agents.find(prefix_[p], a) ||
        std::find(c.enabled.begin(), c.enabled.end(), a) == c.enabled.end())
      throw ModelError(
          "the model is not deterministic: a step that could run in an earlier execution is "
          "blocked now (does it read a clock, a random source or global state?)");
    conditional_ = split_.agents.pending_event(c, a).conditional;
    return a;
  }
  std::uint32_t choose(std::uint32_t, const Execution&) override {
    if (!ended_) node_.chooses = true;  // reported by split_work, outside the model's fiber
    return 0;
  }
  void end_execution(const Execution& ex) override {
    sync(ex);
    if (depth_ <= prefix_.size()) node_.leaf = true;  // ended at (or before) the prefix's end
    const auto& trace = ex.trace();
    for (std::size_t k = prefix_.size(); k < std::min(trace.size(), sample_end_); ++k) {
      EventInfo e = dpor::event_info(trace, k, false);
      e.agent = split_.agents.canon(e.agent);
      split_.objects.canon(e.footprint);
      node_.sample.push_back(std::move(e));
    }
  }
  bool exhaustive() const override { return false; }
  /// The steps of the prefix and the sample (not those run past its end).
  std::size_t steps(const Execution& ex) const { return std::min(ex.trace().size(), sample_end_); }

 private:
  // Canonical ids for new agents and objects; the prefix's last event once it ran.
  void sync(const Execution& ex) {
    split_.agents.sync(ex);
    split_.objects.sync(ex, split_.agents);
    const auto& trace = ex.trace();
    if (prefix_.empty() || trace.size() < prefix_.size() || have_last_) return;
    EventInfo e = dpor::event_info(trace, prefix_.size() - 1, conditional_);
    e.agent = split_.agents.canon(e.agent);
    split_.objects.canon(e.footprint);
    if (e.has_creator) e.creator_agent = split_.agents.canon(e.creator_agent);
    node_.last = std::move(e);
    have_last_ = true;
    if (before_ == nullptr) return;  // the sleep set was given
    node_.item.sleep = carried(*before_, node_.last);
    asleep_ = node_.item.sleep;
    asleep_set_ = ++asleep_version_;
    node_.witnessed = asleep_.empty();
  }

  // Round robin over the enabled agents past the prefix, so that a spinning
  // agent does not starve the others, never running a sleeping event and
  // taking first a step that wakes one: a sample that wakes them all is a
  // trace the item owns (node.witnessed). It ends after kSampleSteps, or
  // when every enabled step sleeps.
  AgentId sample_pick(const Choice& c, std::size_t p) {
    if (p - prefix_.size() >= kSampleSteps) return end_sample(c, p);
    const std::size_t n = c.enabled.size();
    std::size_t start = 0;
    while (start < n && std::int64_t{index(c.enabled[start])} <= last_) ++start;
    if (asleep_.empty()) {  // every enabled agent is awake: plain round robin
      node_.weight += std::log2(static_cast<double>(n));
      const AgentId a = c.enabled[start % n];
      last_ = index(a);
      return a;
    }
    // The first awake agent in round-robin order that wakes a sleeping
    // event, else the first awake one.
    const std::size_t agents = c.execution.agents().size();
    if (seen_.size() < agents) seen_.resize(agents);  // no reallocation below
    std::size_t awake = 0;
    AgentId first{}, waker{};
    bool have_waker = false;
    for (std::size_t k = 0; k < n; ++k) {
      const AgentId a = c.enabled[(start + k) % n];
      const Seen& s = seen(c, a);
      if (s.asleep) continue;
      if (awake++ == 0) first = a;
      if (s.wakes && !have_waker) {
        waker = a;
        have_waker = true;
      }
    }
    if (awake == 0) return end_sample(c, p);  // every enabled step sleeps
    const AgentId a = have_waker ? waker : first;
    node_.weight += std::log2(static_cast<double>(awake));
    if (awake > 1) ++node_.sample_choices;  // (an event still sleeps here)
    const EventInfo& picked = seen_[index(a)].x;
    const std::size_t before = asleep_.size();
    run_past(asleep_, picked);
    if (asleep_.size() != before) ++asleep_version_;  // (a subset of the same size is the same)
    node_.witnessed = asleep_.empty();
    last_ = index(a);
    return a;
  }

  // Ends the sample before step `p`. The execution runs on to its end
  // unrecorded (first enabled agent first), for at most kFinishSteps: its
  // fibers then end on their own, where giving it up would unwind each
  // one and make the next probe build new ones.
  AgentId end_sample(const Choice& c, std::size_t p) {
    ended_ = true;
    sample_end_ = p;
    return finish_pick(c, p);
  }
  AgentId finish_pick(const Choice& c, std::size_t p) const {
    return p - sample_end_ < kFinishSteps ? c.enabled.front() : kAbandon;
  }

  // An agent as the sample sees it: its pending event (canonical ids), built
  // once per event it is at, and whether that event sleeps in, or wakes one
  // of, asleep_ (as of asleep_version_). Deterministic replay leaves an
  // agent's pending event fixed until it runs.
  struct Seen {
    std::uint32_t events = UINT32_MAX;   // the agent's event count when x was built
    std::uint64_t version = UINT64_MAX;  // asleep_version_ when the flags were set
    bool asleep = false;
    bool wakes = false;
    EventInfo x;
  };
  const Seen& seen(const Choice& c, AgentId a) {
    Seen& s = seen_[index(a)];
    const std::uint32_t events = c.execution.agents()[index(a)]->events;
    if (s.events != events) {
      s.x = split_.agents.pending_event(c, a);
      split_.objects.canon(s.x.footprint);
      s.events = events;
      s.version = UINT64_MAX;
    }
    // Once set, asleep_ only loses events (run_past): a flag found false
    // stays false, and only true ones are asked again.
    const bool fresh = s.version == UINT64_MAX || s.version < asleep_set_;
    if (s.version != asleep_version_ && (fresh || s.asleep || s.wakes)) {
      s.asleep = sleeps(asleep_, s.x);
      s.wakes = std::any_of(asleep_.begin(), asleep_.end(),
                            [&](const EventInfo& b) { return dpor::conflict(s.x, b); });
    }
    s.version = asleep_version_;
    return s;
  }

  const std::vector<AgentId>& prefix_;
  const std::vector<EventInfo>* before_;
  WorkSplit& split_;
  Node& node_;
  std::size_t depth_ = 0;
  bool conditional_ = false;
  bool have_last_ = false;
  std::int64_t last_ = -1;  // the agent the sample ran last
  bool ended_ = false;      // the sample has ended: the execution runs to its end
  std::size_t sample_end_ = SIZE_MAX;  // the trace position where it ended
  std::vector<EventInfo> asleep_;  // the item's sleeping events the sample has not woken
  std::uint64_t asleep_version_ = 0;  // bumped when asleep_ loses an event or is set
  std::uint64_t asleep_set_ = 0;      // asleep_version_ when asleep_ was last set (not shrunk)
  std::vector<Seen> seen_;            // per agent index of this execution
};

// Thrown by probe() when the split's give_up says so.
struct GivenUp {};

// Runs `node`'s prefix once and fills in what its probe saw.
void probe(const Kernel& kernel, const Params& params, const ExecutionLimits& limits,
           StackPool& pool, WorkSplit& split, Node& node,
           const std::vector<EventInfo>* before = nullptr) {
  if (split.give_up && split.give_up(split.steps)) throw GivenUp{};
  Probe p(node.item.prefix, before, split, node);
  p.begin_execution();
  Execution ex(limits, pool);
  run_execution(kernel, params, p, ex);
  p.end_execution(ex);
  ++split.probes;
  split.steps += p.steps(ex);
  if (node.chooses)
    throw UsageError(fmt::format(
        "--jobs and --shard do not support data choices (heddle::choose, called by {}) yet: "
        "run it without them", kernel.name));
}

// How `n`'s sample wakes x, once x sleeps in a later sibling: 0 by a step
// past another agent's frontier event, 1 only by another frontier event
// (two such events, both asleep, would wait for each other), 2 not at all.
int wake_class(const Node& n, const EventInfo& x) {
  for (const EventInfo& e : n.sample) {
    if (!dpor::conflict(e, x)) continue;
    auto same = [&](const EventInfo& f) { return f.agent == e.agent && f.agent_event == e.agent_event; };
    return std::any_of(n.frontier.begin(), n.frontier.end(), same) ? 1 : 0;
  }
  return 2;
}

// The agents of `n`'s sample whose steps wake one of its sleeping events,
// in the order they first do: POP's free choice in the item prefers them.
std::vector<AgentId> wakers(const Node& n) {
  std::vector<AgentId> out;
  for (const EventInfo& e : n.sample) {
    if (std::find(out.begin(), out.end(), e.agent) != out.end()) continue;
    if (std::any_of(n.item.sleep.begin(), n.item.sleep.end(),
                    [&](const EventInfo& b) { return dpor::conflict(e, b); }))
      out.push_back(e.agent);
  }
  return out;
}

// `n`'s frontier by wake_class, each class in agent order. Any order is
// exact (every trace still has one leaf); this one keeps an event that
// nothing wakes (a read of data no one writes), or that only a sibling's
// first step wakes, out of its later siblings' sleep sets, where it would
// leave them empty: POP explores such an item's executions only to give
// each up (sleep-blocked).
std::vector<EventInfo> child_order(const Node& n) {
  std::vector<EventInfo> out = n.frontier;
  std::vector<int> cls;
  for (const EventInfo& x : out) cls.push_back(wake_class(n, x));
  std::vector<std::size_t> at(out.size());
  for (std::size_t k = 0; k < at.size(); ++k) at[k] = k;
  std::stable_sort(at.begin(), at.end(), [&](std::size_t a, std::size_t b) { return cls[a] < cls[b]; });
  std::vector<EventInfo> sorted;
  for (std::size_t k : at) sorted.push_back(out[k]);
  return sorted;
}

// A child whose sample could not wake its sleeping events may own no
// trace, and cost as much as a sibling to explore: it goes to its node's
// guarded rest instead. It is kept when no step of its sample had a choice
// (one awake agent at a time): then its region is a handful of executions.
bool costly(const Node& child) { return !child.witnessed && child.sample_choices > 0; }

// The children of `n` (probed), in child_order; none when every enabled
// event sleeps. Costly children are left out, and a last child, the rest,
// holds what they would have: `n`'s traces that no kept child's event can
// start. Unless its sample owns a trace, the rest is guarded: explored only
// when a race calls for it (dpor::Guard).
std::vector<Node> expand(const Kernel& kernel, const Params& params, const ExecutionLimits& limits,
                         StackPool& pool, WorkSplit& split, const Node& n) {
  std::vector<Node> children;
  std::vector<EventInfo> sleep = n.item.sleep;  // grows with each kept sibling
  bool left_out = false;
  for (const EventInfo& x : child_order(n)) {
    if (sleeps(sleep, x)) continue;
    Node child;
    child.item.prefix = n.item.prefix;
    child.item.prefix.push_back(x.agent);
    probe(kernel, params, limits, pool, split, child, &sleep);
    if (costly(child)) {
      left_out = true;
      continue;
    }
    sleep.push_back(child.last);
    children.push_back(std::move(child));
  }
  if (!left_out) return children;
  Node rest;
  rest.item.prefix = n.item.prefix;
  rest.item.sleep = std::move(sleep);
  rest.rest = true;
  probe(kernel, params, limits, pool, split, rest);
  rest.guarded = !rest.witnessed;
  children.push_back(std::move(rest));
  return children;
}

// The expandable node of `nodes` whose sample branched most (heaviest
// first, then shallowest, then first), or nodes.end() when none is left.
std::list<Node>::iterator heaviest(std::list<Node>& nodes) {
  auto best = nodes.end();
  auto key = [](const Node& n) { return std::pair(-n.weight, n.item.prefix.size()); };
  for (auto it = nodes.begin(); it != nodes.end(); ++it)
    if (!it->leaf && !it->rest && (best == nodes.end() || key(*it) < key(*best))) best = it;
  return best;
}

// Each guarded item's guard: its range is the items before it in its
// node's subtree (their prefixes extend its own; items are in tree order).
void set_guards(const std::vector<bool>& guarded, std::vector<WorkItem>& items) {
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (!guarded[k]) continue;
    const auto& p = items[k].prefix;
    std::size_t j = k;
    while (j > 0 && items[j - 1].prefix.size() > p.size() &&
           std::equal(p.begin(), p.end(), items[j - 1].prefix.begin()))
      --j;
    const auto at = static_cast<std::uint32_t>(p.size());
    items[k].guard = dpor::Guard{j, at};
    for (std::size_t i = j; i < k; ++i) items[i].watches.push_back({at, items[k].sleep});
  }
}

// FNV-1a over the items' prefixes, sleep events, wakers and guards.
std::uint64_t fingerprint(const std::vector<WorkItem>& items) {
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  for (const auto& it : items) {
    mix(it.prefix.size());
    for (AgentId a : it.prefix) mix(index(a));
    mix(it.sleep.size());
    for (const auto& e : it.sleep) mix((std::uint64_t{index(e.agent)} << 32) | e.agent_event);
    for (AgentId a : it.wakers) mix(index(a));
    mix(it.guard ? it.guard->from + 1 : 0);
    mix(it.watches.size());
  }
  return h;
}
}  // namespace

WorkSplit split_work(const Kernel& kernel, const Params& params, const RunConfig& config,
                     StackPool& pool, std::size_t target, const SplitGiveUp& give_up) {
  WorkSplit split;
  split.give_up = give_up;
  ExecutionLimits limits{config.max_steps, config.step_timeout, false};
  std::list<Node> nodes(1);
  try {
    probe(kernel, params, limits, pool, split, nodes.front());
    // The heaviest node first, so that the items come out of similar sizes;
    // the cut depends on the model only, and stops at `target` items or
    // kSplitProbes probes.
    while (nodes.size() < target && split.probes < kSplitProbesPerItem * target) {
      const auto best = heaviest(nodes);
      if (best == nodes.end()) break;
      std::vector<Node> children = expand(kernel, params, limits, pool, split, *best);
      for (Node& c : children) nodes.insert(best, std::move(c));
      nodes.erase(best);
    }
  } catch (const GivenUp&) {
    split.given_up = true;
    return split;
  }
  std::vector<bool> guarded;
  for (Node& n : nodes) {
    n.item.wakers = wakers(n);
    n.item.weight = n.weight;
    guarded.push_back(n.guarded);
    split.items.push_back(std::move(n.item));
  }
  set_guards(guarded, split.items);
  split.fingerprint = fingerprint(split.items);
  return split;
}

WorkSplit whole_split() {
  WorkSplit split;
  split.items.emplace_back();
  split.fingerprint = fingerprint(split.items);
  return split;
}

std::vector<std::size_t> shard_items(const WorkSplit& split, std::uint32_t shard,
                                     std::uint32_t shards) {
  std::vector<std::size_t> by_weight(split.items.size());
  for (std::size_t k = 0; k < by_weight.size(); ++k) by_weight[k] = k;
  std::stable_sort(by_weight.begin(), by_weight.end(), [&](std::size_t a, std::size_t b) {
    return split.items[a].weight > split.items[b].weight;
  });
  std::vector<std::size_t> mine;
  for (std::size_t r = 0; r < by_weight.size(); ++r) {
    const std::size_t lap = r / shards, seat = r % shards;
    if ((lap % 2 == 0 ? seat : shards - 1 - seat) == shard) mine.push_back(by_weight[r]);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

}  // namespace heddle
