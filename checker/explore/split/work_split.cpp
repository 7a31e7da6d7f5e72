#include "checker/explore/split/work_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <list>
#include <stdexcept>

#include "checker/explore/dpor/pop_trace.hpp"
#include "checker/explore/split/split_probe.hpp"

namespace heddle {
namespace {
using dpor::EventInfo;
using splitting::Node;
using splitting::probe;
using splitting::sleeps;

// How `n`'s sample wakes x, once x sleeps in a later sibling: 0 by a step
// past another agent's frontier event, 1 only by another frontier event
// (two such events, both asleep, would wait for each other), 2 not at all.
int wake_class(const Node& n, const EventInfo& x) {
  for (const EventInfo& e : n.sample) {
    if (!dpor::conflict(e, x)) continue;
    auto same = [&](const EventInfo& f) {
      return f.agent == e.agent && f.agent_event == e.agent_event;
    };
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
  std::stable_sort(at.begin(), at.end(),
                   [&](std::size_t a, std::size_t b) { return cls[a] < cls[b]; });
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
std::vector<Node> expand_node(const Kernel& kernel, const Params& params,
                              const ExecutionLimits& limits, StackPool& pool,
                              const SplitGiveUp& give_up, WorkSplit& split, const Node& n) {
  std::vector<Node> children;
  std::vector<EventInfo> sleep = n.item.sleep;  // grows with each kept sibling
  bool left_out = false;
  for (const EventInfo& x : child_order(n)) {
    if (sleeps(sleep, x)) continue;
    Node child;
    child.item.prefix = n.item.prefix;
    child.item.prefix.push_back(x.agent);
    child.item.group = n.item.group;
    probe(kernel, params, limits, pool, give_up, split, child, &sleep);
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
  rest.item.group = n.item.group;
  rest.rest = true;
  probe(kernel, params, limits, pool, give_up, split, rest);
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

namespace {
// The probes run executions as the items will: a run that goes on past bugs
// (--keep-going) runs a buggy execution to its end, or the probe's race
// analysis sees only the trace up to the bug and the split leaves out the
// traces behind it (issue 54.4: 17 executions split, 19 plain). No
// deadline: the split depends on the model only.
ExecutionLimits probe_limits(const RunConfig& config) {
  return {config.max_steps, config.step_timeout,
          config.finish_after_bug || !config.stop_at_first_bug};
}
}  // namespace

struct Splitter::State {
  const Kernel& kernel;
  const Params& params;
  StackPool& pool;
  ExecutionLimits limits;
  WorkSplit split;        // canonical ids, probes and steps (no items)
  std::list<Node> nodes;  // the leaves of the tree expanded so far, in tree order
  bool given_up = false;
};

Splitter::Splitter(const Kernel& kernel, const Params& params, const RunConfig& config,
                   StackPool& pool)
    : s_(new State{kernel, params, pool, probe_limits(config), {}, {}}) {}

Splitter::~Splitter() = default;

bool Splitter::expand(std::size_t target, const SplitGiveUp& give_up) {
  State& s = *s_;
  if (s.given_up) throw std::logic_error("[heddle bug] a split that gave up was expanded again");
  try {
    if (s.nodes.empty()) {
      s.nodes.emplace_back();
      probe(s.kernel, s.params, s.limits, s.pool, give_up, s.split, s.nodes.front());
    }
    // The heaviest node first, so that the items come out of similar sizes;
    // the cut depends on the model only.
    while (s.nodes.size() < target && s.split.probes < kSplitProbesPerItem * target) {
      const auto best = heaviest(s.nodes);
      if (best == s.nodes.end()) break;
      std::vector<Node> children =
          expand_node(s.kernel, s.params, s.limits, s.pool, give_up, s.split, *best);
      for (Node& c : children) s.nodes.insert(best, std::move(c));
      s.nodes.erase(best);
    }
  } catch (const splitting::GivenUp&) {
    s.given_up = true;
    return false;
  }
  return true;
}

WorkSplit Splitter::items() const {
  WorkSplit out;
  out.probes = s_->split.probes;
  out.steps = s_->split.steps;
  out.agents = s_->split.agents;
  out.objects = s_->split.objects;
  std::vector<bool> guarded;
  for (const Node& n : s_->nodes) {
    WorkItem& item = out.items.emplace_back(n.item);
    item.wakers = wakers(n);
    item.weight = n.weight;
    guarded.push_back(n.guarded);
  }
  set_guards(guarded, out.items);
  out.fingerprint = fingerprint(out.items);
  return out;
}

void Splitter::mark_groups() {
  std::uint32_t k = 0;
  for (Node& n : s_->nodes) n.item.group = k++;
}

std::uint64_t Splitter::steps() const { return s_->split.steps; }

std::uint64_t Splitter::probes() const { return s_->split.probes; }

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
