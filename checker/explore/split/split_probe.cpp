// The split's probes (split_probe.hpp).
#include "checker/explore/split/split_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "checker/engine/errors.hpp"
#include "checker/explore/dpor/pop_trace.hpp"

namespace heddle::splitting {

bool sleeps(const std::vector<EventInfo>& sleep, const EventInfo& x) {
  return std::any_of(sleep.begin(), sleep.end(),
                     [&](const EventInfo& b) { return dpor::same_step(b, x); });
}

namespace {
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

// How far a probe's sample continuation runs past the prefix, at most.
constexpr std::size_t kSampleSteps = 1024;
// How far a probe's execution runs past its sample's end before it is given up.
constexpr std::size_t kFinishSteps = 256;

// Runs a prefix, records the last event as it ran and the events enabled
// after it, then samples one continuation (round robin, bounded) whose
// events order the node's children (expand_node()).
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
    if (ended_) return finish_pick(c, p);
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
    if (p + 1 == prefix_.size()) conditional_ = split_.agents.pending_event(c, a).conditional;
    return a;
  }
  std::uint32_t choose(std::uint32_t, const ExecutionRecord&) override {
    if (!ended_) node_.chooses = true;  // reported by probe(), outside the model's fiber
    return 0;
  }
  void end_execution(const ExecutionRecord& ex) override {
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
  std::size_t steps(const ExecutionRecord& ex) const {
    return std::min(ex.trace().size(), sample_end_);
  }

 private:
  // Canonical ids for new agents and objects; the prefix's last event once it ran.
  void sync(const ExecutionRecord& ex) {
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
    for (std::size_t k = 0, i = start % n; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
      const AgentId a = c.enabled[i];  // round robin from start (no division per agent)
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
  std::int64_t last_ = -1;             // the agent the sample ran last
  bool ended_ = false;                 // the sample has ended: the execution runs to its end
  std::size_t sample_end_ = SIZE_MAX;  // the trace position where it ended
  std::vector<EventInfo> asleep_;      // the item's sleeping events the sample has not woken
  std::uint64_t asleep_version_ = 0;   // bumped when asleep_ loses an event or is set
  std::uint64_t asleep_set_ = 0;       // asleep_version_ when asleep_ was last set (not shrunk)
  std::vector<Seen> seen_;             // per agent index of this execution
};

}  // namespace

void probe(const Kernel& kernel, const Params& params, const ExecutionLimits& limits,
           StackPool& pool, const SplitGiveUp& give_up, WorkSplit& split, Node& node,
           const std::vector<EventInfo>* before) {
  if (give_up && give_up(split.steps)) throw GivenUp{};
  Probe p(node.item.prefix, before, split, node);
  p.begin_execution();
  const Model model(kernel, params, limits);
  Runner runner(model, pool);
  runner.run(p);
  const ExecutionRecord& ex = runner.last();
  p.end_execution(ex);
  ++split.probes;
  split.steps += p.steps(ex);
  if (node.chooses)
    throw UsageError(fmt::format(
        "--jobs and --shard do not support data choices (heddle::choose, called by {}) yet: "
        "run it without them",
        kernel.name));
}

}  // namespace heddle::splitting
