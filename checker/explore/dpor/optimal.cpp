#include "checker/explore/dpor/optimal.hpp"

#include <algorithm>
#include <stdexcept>

#include "checker/engine/errors.hpp"

namespace heddle::dpor {

bool OptimalDpor::begin() {
  if (done_) return false;
  started_ = true;
  depth_ = 0;
  agents_.reset();
  blocked_at_ = SIZE_MAX;
  return true;
}

std::int32_t OptimalDpor::take_wakeup_child(std::size_t p, const Choice& c) {
  std::int32_t parent = parent_of(p);
  for (;;) {
    std::int32_t n = tree_.first_child(parent);
    if (n == WakeupForest::kNone) return n;
    AgentId a{};
    if (agents_.find(tree_.event(n).agent, a) &&
        std::find(c.enabled.begin(), c.enabled.end(), a) != c.enabled.end())
      return n;
    // The reversed race needed a blocked operation to run: no such trace.
    ++stats_.infeasible;
    tree_.remove(n);
  }
}

AgentId OptimalDpor::next(const Choice& c) {
  const std::size_t p = depth_++;
  const auto& trace = c.execution.trace();
  agents_.sync(c.execution);
  if (p < branch_) {  // replaying the prefix shared with the previous execution
    // The agent that ran here last time: the shared prefix creates the same
    // agents in the same order, so its id in this execution is the same.
    AgentId a = path_[p].agent;
    if (std::find(c.enabled.begin(), c.enabled.end(), a) == c.enabled.end())
      throw ModelError(
          "the model is not deterministic: a step that could run in an earlier execution is "
          "blocked now (does it read a clock, a random source or global state?)");
    return a;
  }
  if (p > 0) finalize(p - 1, trace);
  if (p == len_) {
    if (path_.size() == len_) path_.emplace_back();
    ++len_;
    carry_sleep(p);
  }
  Position& pos = path_[p];
  pos.enabled.assign(c.enabled.begin(), c.enabled.end());
  std::int32_t node = take_wakeup_child(p, c);
  AgentId a{};
  if (node != WakeupForest::kNone) {
    agents_.find(tree_.event(node).agent, a);  // found by take_wakeup_child
  } else {
    auto asleep = [&](AgentId x) {
      const AgentId cx = agents_.canon(x);
      return std::any_of(pos.sleep.begin(), pos.sleep.end(),
                         [&](const Sleeper& s) { return tree_.event_by_id(s.ran).agent == cx; });
    };
    auto it = std::find_if(c.enabled.begin(), c.enabled.end(), [&](AgentId x) { return !asleep(x); });
    if (it == c.enabled.end()) {
      if (blocked_at_ == SIZE_MAX) blocked_at_ = p;
      it = c.enabled.begin();
    }
    a = *it;
  }
  // The node describes the operation as it really is pending.
  const EventInfo pe = agents_.pending_event(c, a);
  pos.from_tree = node != WakeupForest::kNone;
  if (pos.from_tree) pos.planned = tree_.event_id(node);
  if (node == WakeupForest::kNone)
    node = tree_.add_child(parent_of(p), pe);
  else if (!same_event(tree_.event(node), pe))
    tree_.set_event(node, pe);
  pos.node = node;
  pos.agent = a;
  pos.declared = tree_.event_id(node);
  pos.conditional = tree_.event(node).conditional;
  stats_.peak_tree_nodes = std::max(stats_.peak_tree_nodes, tree_.live());
  return a;
}

void OptimalDpor::carry_sleep(std::size_t p) {
  Position& pos = path_[p];
  pos.sleep.clear();
  if (p == 0) return;
  // Sleep' = {q in sleep(E) | E |= p <> q} (JACM 2017, Alg. 2), with the
  // step as it ran. A wakeup step may have run narrower than the tree held
  // it (a CAS that failed: a read, not a write), and the tree was built on
  // the wider event: the wakeup-tree property (Sec. 6.1: an earlier sibling
  // q of a leaf w is not in WI(w)) and the check sleep ∩ WI(v) = ∅ at
  // insertion both counted on the step waking every q that depends on it as
  // held. Such a q stays asleep (running it next would repeat an explored
  // trace) but is marked owed: see reverse().
  const Position& prev = path_[p - 1];
  const EventInfo& last = tree_.event(prev.node);
  for (Sleeper s : prev.sleep) {
    if (dependent(tree_.event_by_id(s.ran), last)) continue;
    if (prev.from_tree) {
      const EventInfo& planned = tree_.event_by_id(prev.planned);
      if (dependent(tree_.event_by_id(s.ran), planned) ||
          dependent(tree_.event_by_id(s.declared), planned))
        s.owed = true;
    }
    pos.sleep.push_back(s);
  }
}

void OptimalDpor::finalize(std::size_t p, const std::vector<Event>& trace) {
  const EventInfo& e = tree_.event(path_[p].node);
  if (e.agent != agents_.canon(trace[p].agent))
    throw std::logic_error("[heddle bug] dpor: the trace ran another agent than the one picked");
  if (same_footprint(e.footprint, trace[p].footprint)) return;
  EventInfo refined = e;
  refined.footprint = trace[p].footprint;  // refined after the fact (a failed CAS only reads)
  tree_.set_event(path_[p].node, refined);
}

void OptimalDpor::fill_info(EventInfo& out, const std::vector<Event>& trace, std::size_t k,
                            bool declared) const {
  const std::size_t n = trace.size();
  const Event& e = at(trace, k);
  out.agent = agents_.canon(e.agent);
  out.agent_event = e.agent_event;
  // A moved operation may do something else (a failed CAS may succeed), so
  // the event that changes place is compared by what it may touch: what it
  // declared and what it did (a step that leads its thread to a TPU
  // semaphore wait adds a write of that semaphore when it runs).
  out.footprint = e.footprint;
  if (declared && k < n)
    for (const Access& a : declared_footprint(k))
      if (std::none_of(e.footprint.begin(), e.footprint.end(), [&](const Access& b) {
            return b.object == a.object && b.lo == a.lo && b.hi == a.hi && b.write == a.write &&
                   b.update == a.update;
          }))
        out.footprint.push_back(a);
  out.conditional = conditional_at(n, k);
  out.has_creator = false;
  out.creator_agent = AgentId{};
  out.creator_event = 0;
  if (e.agent_event == 0 && e.created_by >= 0) {
    const Event& c = trace[static_cast<std::size_t>(e.created_by)];
    out.has_creator = true;
    out.creator_agent = agents_.canon(c.agent);
    out.creator_event = c.agent_event;
  }
}

void OptimalDpor::collect_pending(const ExecutionRecord& ex) {
  pending_.clear();
  for (const auto& a : ex.agents()) {
    if (a->finished) continue;
    bool conditional = false;
    if (a->kind == Agent::Kind::thread) {
      const auto& t = static_cast<const ThreadAgent&>(*a);
      if (!t.has_pending) continue;
      conditional = t.op.enabled.conditional();
    } else {
      const auto& as = static_cast<const AsyncAgent&>(*a);
      conditional = static_cast<bool>(as.phases[as.next].enabled);
    }
    Pending p;
    p.event.agent = a->id;
    p.event.footprint = a->pending().footprint;
    p.event.agent_event = a->events;
    p.event.created_by = a->events == 0 ? a->created_by : -1;
    p.conditional = conditional;
    pending_.push_back(std::move(p));
  }
}

void OptimalDpor::end(const ExecutionRecord& ex) {
  agents_.sync(ex);  // agents created by the last step
  const auto& trace = ex.trace();
  const std::size_t n = trace.size();
  if (n != depth_) throw std::logic_error("[heddle bug] dpor: trace and picks disagree");
  if (n > 0 && n - 1 >= branch_) finalize(n - 1, trace);
  len_ = n;
  pending_.clear();
  if (blocked_at_ != SIZE_MAX)
    ++stats_.sleep_blocked;
  else
    collect_pending(ex);
  const std::size_t kept = record(trace);
  // The races of the positions from the branch point on (the earlier ones
  // were analysed with an earlier execution), then of the pending ones.
  races_.clear();
  finder_.analyse(record_, &record_, kept, agents_.width(), branch_, std::min(n, blocked_at_),
                  !pending_.empty(), races_);
  stats_.races += races_.size();
  for (const Race& r : races_) reverse(trace, r.i, r.j);
  if (!backtrack()) done_ = true;
}

std::size_t OptimalDpor::record(const std::vector<Event>& trace) {
  const std::size_t n = trace.size();
  const std::size_t all = n + pending_.size();
  FinishedTrace& t = record_;
  // Positions before branch_ ran exactly as in the previous execution.
  const std::size_t same = std::min(branch_, t.real);
  t.real = n;
  t.events.resize(all);  // assigning in place reuses the footprints' storage
  for (std::size_t k = same; k < all; ++k) fill_info(t.events[k], trace, k, false);
  t.declared_from = 0;
  t.declared.resize(n);
  for (std::size_t k = same; k < n; ++k) t.declared[k] = declared_footprint(k);
  t.created_by.resize(all);
  for (std::size_t k = same; k < all; ++k) {
    const Event& e = at(trace, k);
    t.created_by[k] = e.agent_event == 0 ? e.created_by : -1;
  }
  // Enabled sets by canonical id: position k's is [enabled_at[k], enabled_at[k + 1]).
  // The kept prefix's sets end where position `same`'s began.
  t.enabled.resize(same < t.enabled_at.size() ? t.enabled_at[same] : 0);
  t.enabled_at.resize(same);
  for (std::size_t k = same; k < n; ++k) {
    t.enabled_at.push_back(static_cast<std::uint32_t>(t.enabled.size()));
    for (AgentId x : path_[k].enabled) t.enabled.push_back(agents_.canon(x));
  }
  t.enabled_at.push_back(static_cast<std::uint32_t>(t.enabled.size()));
  return same;
}

void OptimalDpor::reverse(const std::vector<Event>& trace, std::size_t i, std::size_t j) {
  // v = notdep(e, E).e' (JACM 2017, Alg. 2, line 5): the events after i that
  // do not happen after it, then j. v_ points at record_'s events.
  v_.clear();
  for (std::size_t k = i + 1; k < std::min(j, trace.size()); ++k)
    if (!record_.happens_before(i, k)) v_.push_back(&record_.events[k]);
  fill_info(moved_, trace, j, true);
  v_.push_back(&moved_);
  // Skip v when a sleeping q is a weak initial of it (Alg. 2, line 6): an
  // explored sibling covers some extension of v, and the races of that
  // execution lead to the rest. An owed q (see carry_sleep) cannot vouch
  // for that: the tree placed leaves on the understanding that q was awake
  // here, so q covers v only when q is v's own initial (every extension of
  // E'.v is then one of E'.q). Without this, test/random seed 3368 (mix=1)
  // loses T3:cas T3:load T0:fetch_add T2:cas: the leaf T3:cas, inserted as
  // a write, ran as a read and left the failed T2:cas asleep, and the
  // reversal of (T0:fetch_add, T3:load) was skipped for it.
  for (const Sleeper& s : path_[i].sleep) {
    const EventInfo& q = tree_.event_by_id(s.ran);
    if (s.owed && std::none_of(v_.begin(), v_.end(),
                               [&](const EventInfo* e) { return e->agent == q.agent; }))
      continue;
    if (weak_initial(v_, q)) return;
  }
  if (insert(tree_, parent_of(i), v_)) ++stats_.inserted;
}

bool OptimalDpor::backtrack() {
  for (std::size_t p = len_; p-- > 0;) {
    std::int32_t n = path_[p].node;
    if (tree_.next_sibling(n) == WakeupForest::kNone) continue;
    path_[p].sleep.push_back({tree_.event_id(n), path_[p].declared});
    tree_.remove(n);
    path_[p].node = tree_.first_child(parent_of(p));
    len_ = p + 1;
    branch_ = p;
    return true;
  }
  return false;
}

}  // namespace heddle::dpor
