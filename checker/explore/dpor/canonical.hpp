// Agent identities that do not depend on the interleaving.
//
// The engine numbers agents in creation order, and when two threads each
// issue a copy, which copy gets the lower id depends on which thread ran
// first. DPOR state that outlives one execution (wakeup trees, sleep sets)
// names events by (agent, index in agent), so it must name agents by what
// created them instead: the creating event (canonical agent and its index)
// and the rank among the agents that event created; agents created before
// step 1 by their rank among those. Deterministic models create the same
// agents from the same event in every execution.
#pragma once
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/explore/dpor/event.hpp"
#include "checker/engine/execution_record.hpp"
#include "checker/engine/strategy.hpp"

namespace heddle::dpor {

/// Maps the agents of the running execution to canonical ids (kept across
/// executions) and back.
class CanonicalAgents {
 public:
  /// Forgets the previous execution's agents (not the canonical ids).
  void reset() {
    for (std::uint32_t c : to_canon_) from_canon_[c] = -1;
    to_canon_.clear();
    rank_.clear();
    roots_ = 0;
  }
  /// Gives canonical ids to the agents `ex` created since the last call
  /// (POP calls this at every step: the test is inline, the work is not).
  void sync(const ExecutionRecord& ex) {
    if (to_canon_.size() < ex.agents().size()) sync_new(ex);
  }
  /// The canonical id of agent `a` of the running execution.
  AgentId canon(AgentId a) const { return AgentId{to_canon_[index(a)]}; }
  /// One more than the largest canonical id bound so far (in any
  /// execution): a clock row this wide holds every agent.
  std::size_t width() const noexcept { return from_canon_.size(); }
  /// The operation agent `a` has pending at the pick `c`, agents named by
  /// canonical id.
  EventInfo pending_event(const Choice& c, AgentId a) const {
    const Agent& ag = *c.execution.agents()[index(a)];
    const Footprint* fp = nullptr;
    bool conditional = false;
    if (ag.kind == Agent::Kind::thread) {  // its operation without a virtual call
      const PendingOp& op = static_cast<const ThreadAgent&>(ag).op;
      fp = &op.footprint;
      conditional = op.enabled.conditional();
    } else {
      const auto& as = static_cast<const AsyncAgent&>(ag);
      fp = &ag.pending().footprint;
      conditional = static_cast<bool>(as.phases[as.next].enabled);
    }
    // Built in place: the footprint copy-constructed, not default-filled then assigned.
    EventInfo e{canon(a), ag.events, *fp, false, AgentId{}, 0, conditional};
    if (ag.events == 0 && ag.created_by >= 0) {
      const Event& cr = c.execution.trace()[static_cast<std::size_t>(ag.created_by)];
      e.has_creator = true;
      e.creator_agent = canon(cr.agent);
      e.creator_event = cr.agent_event;
    }
    return e;
  }
  /// The running execution's agent with canonical id `c`, if it exists yet.
  bool find(AgentId c, AgentId& out) const {
    if (index(c) >= from_canon_.size() || from_canon_[index(c)] < 0) return false;
    out = AgentId{static_cast<std::uint32_t>(from_canon_[index(c)])};
    return true;
  }

 private:
  void sync_new(const ExecutionRecord& ex) {
    const auto& agents = ex.agents();
    for (std::size_t a = to_canon_.size(); a < agents.size(); ++a) add(ex, *agents[a]);
  }
  void add(const ExecutionRecord& ex, const Agent& a) {
    std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> key;
    if (a.created_by < 0) {  // the common case, kept out of the map
      if (roots_ < root_ids_.size()) return bind(root_ids_[roots_++]);
      key = {UINT32_MAX, 0, roots_++};
    } else {
      const Event& e = ex.trace()[static_cast<std::size_t>(a.created_by)];
      const std::uint32_t r = next_rank(a.created_by);
      key = {index(canon(e.agent)), e.agent_event, r};
    }
    auto it = ids_.try_emplace(key, static_cast<std::uint32_t>(ids_.size())).first;
    if (a.created_by < 0) root_ids_.push_back(it->second);
    bind(it->second);
  }
  // The rank of the next agent created at trace position `at` (0, 1, ...).
  // An event's agents are created before the next event runs: the latest
  // creating position is almost always the one asked for.
  std::uint32_t next_rank(int at) {
    for (auto it = rank_.rbegin(); it != rank_.rend(); ++it)
      if (it->first == at) return it->second++;
    rank_.emplace_back(at, 1);
    return 0;
  }
  void bind(std::uint32_t c) {
    if (c >= from_canon_.size()) from_canon_.resize(c + 1, -1);
    from_canon_[c] = static_cast<std::int32_t>(to_canon_.size());
    to_canon_.push_back(c);
  }

  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> ids_;
  std::vector<std::uint32_t> to_canon_;   // running execution's agent -> canonical
  std::vector<std::int32_t> from_canon_;  // canonical -> running agent, -1 if absent
  std::vector<std::pair<int, std::uint32_t>> rank_;  // agents created so far per creating position
  std::uint32_t roots_ = 0;               // agents created before step 1 so far
  std::vector<std::uint32_t> root_ids_;   // canonical id of the r-th of those
};

/// Maps the objects of the running execution to canonical ids (kept across
/// executions) and back: objects registered by setup keep their engine id
/// order; one registered by an agent (a buffer a thread makes, a flag a
/// copy shares) is named by its creator's canonical id and its rank among
/// that agent's objects, since which thread registers first depends on the
/// interleaving.
class CanonicalObjects {
 public:
  /// Forgets the previous execution's objects (not the canonical ids).
  void reset() {
    to_canon_.clear();
    per_agent_.clear();
    roots_ = 0;
  }
  /// Gives canonical ids to the objects `ex` registered since the last
  /// call; `agents` must know their creators already.
  void sync(const ExecutionRecord& ex, const CanonicalAgents& agents) {
    if (to_canon_.size() < ex.object_count()) sync_new(ex, agents);
  }
  /// Rewrites `fp`'s objects to canonical ids.
  void canon(Footprint& fp) const {
    for (auto& a : fp) a.object = ObjectId{to_canon_[index(a.object)]};
  }
  /// True when `canonical` (objects by canonical id) lists the accesses of
  /// the engine footprint `fp`, in order: same_footprint after canon(), with
  /// no copy (POP checks every step's footprint against its declaration).
  bool same_as_canon(const Footprint& canonical, const Footprint& fp) const noexcept {
    if (canonical.size() != fp.size()) return false;
    for (std::size_t k = 0; k < fp.size(); ++k) {
      const Access& x = canonical[k];
      const Access& y = fp[k];
      if (x.object != ObjectId{to_canon_[index(y.object)]} || x.lo != y.lo || x.hi != y.hi ||
          x.write != y.write || x.token != y.token || x.before != y.before || x.update != y.update ||
          x.needs_completion != y.needs_completion)
        return false;
    }
    return true;
  }

 private:
  void sync_new(const ExecutionRecord& ex, const CanonicalAgents& agents) {
    for (std::size_t o = to_canon_.size(); o < ex.object_count(); ++o) {
      const std::uint32_t by = ex.object_creator(ObjectId{static_cast<std::uint32_t>(o)});
      if (by == ExecutionRecord::kNoCreator) {
        if (roots_ == root_ids_.size()) root_ids_.push_back(fresh({UINT32_MAX, roots_}));
        to_canon_.push_back(root_ids_[roots_++]);
        continue;
      }
      if (by >= per_agent_.size()) per_agent_.resize(by + 1, 0);
      to_canon_.push_back(fresh({index(agents.canon(AgentId{by})), per_agent_[by]++}));
    }
  }
  std::uint32_t fresh(std::pair<std::uint32_t, std::uint32_t> key) {
    return ids_.try_emplace(key, static_cast<std::uint32_t>(ids_.size())).first->second;
  }

  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> ids_;
  std::vector<std::uint32_t> to_canon_;   // running execution's object -> canonical
  std::vector<std::uint32_t> per_agent_;  // objects registered so far, per engine agent
  std::uint32_t roots_ = 0;               // objects registered by no agent so far
  std::vector<std::uint32_t> root_ids_;   // canonical id of the r-th of those
};

}  // namespace heddle::dpor
