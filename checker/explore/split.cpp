#include "checker/explore/split.hpp"

#include <fmt/format.h>

#include <algorithm>

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
};

// How far a probe's sample continuation runs past the prefix, at most.
constexpr std::size_t kSampleSteps = 1024;

// Runs a prefix, records the last event as it ran and the events enabled
// after it, then samples one continuation (round robin, bounded) whose
// events order the node's children (expand()).
class Probe final : public Strategy {
 public:
  Probe(const std::vector<AgentId>& prefix, WorkSplit& split, Node& into)
      : prefix_(prefix), split_(split), node_(into) {}
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
    if (p >= prefix_.size()) return sample_pick(c, p);
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
    node_.chooses = true;  // reported by split_work, outside the model's fiber
    return 0;
  }
  void end_execution(const Execution& ex) override {
    sync(ex);
    if (depth_ <= prefix_.size()) node_.leaf = true;  // ended at (or before) the prefix's end
    const auto& trace = ex.trace();
    for (std::size_t k = prefix_.size(); k < trace.size(); ++k) {
      EventInfo e = dpor::event_info(trace, k, false);
      e.agent = split_.agents.canon(e.agent);
      split_.objects.canon(e.footprint);
      node_.sample.push_back(std::move(e));
    }
  }
  bool exhaustive() const override { return false; }

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
  }

  // Round robin over the enabled agents past the prefix, so that a spinning
  // agent does not starve the others; the sample ends after kSampleSteps.
  AgentId sample_pick(const Choice& c, std::size_t p) {
    if (p - prefix_.size() >= kSampleSteps) return kAbandon;
    auto after = std::find_if(c.enabled.begin(), c.enabled.end(),
                              [&](AgentId a) { return std::int64_t{index(a)} > last_; });
    const AgentId a = after != c.enabled.end() ? *after : c.enabled.front();
    last_ = index(a);
    return a;
  }

  const std::vector<AgentId>& prefix_;
  WorkSplit& split_;
  Node& node_;
  std::size_t depth_ = 0;
  bool conditional_ = false;
  bool have_last_ = false;
  std::int64_t last_ = -1;  // the agent the sample ran last
};

// Runs `node`'s prefix once and fills in what its probe saw.
void probe(const Kernel& kernel, const Params& params, const ExecutionLimits& limits,
           StackPool& pool, WorkSplit& split, Node& node) {
  Probe p(node.item.prefix, split, node);
  p.begin_execution();
  Execution ex(limits, pool);
  run_execution(kernel, params, p, ex);
  p.end_execution(ex);
  ++split.probes;
  if (node.chooses)
    throw UsageError(fmt::format(
        "--jobs and --shard do not support data choices (heddle::choose, called by {}) yet: "
        "run it without them", kernel.name));
}

// True when one of `sleep` is the pending event `x` (CAV'24's completes()
// for a sequence of one event).
bool sleeps(const std::vector<EventInfo>& sleep, const EventInfo& x) {
  return std::any_of(sleep.begin(), sleep.end(),
                     [&](const EventInfo& b) { return dpor::completes({b}, x); });
}

// The sleep set after running `ran`: the events of `before` still independent of it.
std::vector<EventInfo> carried(const std::vector<EventInfo>& before, const EventInfo& ran) {
  std::vector<EventInfo> out;
  for (const EventInfo& b : before) {
    std::vector<EventInfo> rest{b};
    if (dpor::step(rest, ran) == dpor::Step::kept) out.push_back(b);
  }
  return out;
}

// True when an event of another agent in `n`'s sample conflicts with x,
// so that x, once asleep, may be woken there.
bool wakeable(const Node& n, const EventInfo& x) {
  return std::any_of(n.sample.begin(), n.sample.end(),
                     [&](const EventInfo& e) { return dpor::conflict(e, x); });
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

// `n`'s frontier, those its sample may wake first, then the others, each in
// agent order. Any order is exact (every trace still has one leaf); this
// one keeps an event that nothing wakes (a read of data no one writes) out
// of its later siblings' sleep sets, where it would leave them empty: POP
// explores such an item's executions only to give each up (sleep-blocked).
std::vector<EventInfo> child_order(const Node& n) {
  std::vector<EventInfo> out = n.frontier;
  std::stable_partition(out.begin(), out.end(), [&](const EventInfo& x) { return wakeable(n, x); });
  return out;
}

// The children of `n` (probed), in child_order; none when every enabled event sleeps.
std::vector<Node> expand(const Kernel& kernel, const Params& params, const ExecutionLimits& limits,
                         StackPool& pool, WorkSplit& split, const Node& n) {
  std::vector<Node> children;
  std::vector<EventInfo> sleep = n.item.sleep;  // grows with each explored sibling
  for (const EventInfo& x : child_order(n)) {
    if (sleeps(sleep, x)) continue;
    Node child;
    child.item.prefix = n.item.prefix;
    child.item.prefix.push_back(x.agent);
    probe(kernel, params, limits, pool, split, child);
    child.item.sleep = carried(sleep, child.last);
    sleep.push_back(child.last);
    children.push_back(std::move(child));
  }
  return children;
}

// FNV-1a over the items' prefixes, sleep events and wakers.
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
  }
  return h;
}
}  // namespace

WorkSplit split_work(const Kernel& kernel, const Params& params, const RunConfig& config,
                     StackPool& pool, std::size_t target) {
  WorkSplit split;
  ExecutionLimits limits{config.max_steps, config.step_timeout, false};
  std::vector<Node> level(1);
  probe(kernel, params, limits, pool, split, level[0]);
  // Level by level, so that the cut depends on the model only.
  while (level.size() < target) {
    bool grew = false;
    std::vector<Node> next;
    for (Node& n : level) {
      if (n.leaf) {
        next.push_back(std::move(n));
        continue;
      }
      grew = true;
      for (Node& c : expand(kernel, params, limits, pool, split, n)) next.push_back(std::move(c));
    }
    level = std::move(next);
    if (!grew) break;
  }
  for (Node& n : level) {
    n.item.wakers = wakers(n);
    split.items.push_back(std::move(n.item));
  }
  split.fingerprint = fingerprint(split.items);
  return split;
}

}  // namespace heddle
