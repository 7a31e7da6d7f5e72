#include "checker/explore/dpor/pop.hpp"

#include <algorithm>
#include <stdexcept>

#include "checker/engine/errors.hpp"

namespace heddle::dpor {

bool PopDpor::begin() {
  if (done_) return false;
  if (!started_) {  // the first execution: the root frame, no schedule
    started_ = true;
    if (frames_.empty()) frames_.emplace_back();  // (a reset() exploration keeps the rest)
    top_ = 1;
    Frame& root = frames_[0];
    root.own_from = prefix_;  // the prefix has no slots: nothing branches there
    root.own.clear();
    root.races.clear();
    root.trace.clear();
    root.flags.clear();
    root.bytes = 0;
  }
  depth_ = 0;
  agents_.reset();
  objects_.reset();
  followed_to_ = 0;
  blocked_at_ = SIZE_MAX;
  abandoned_ = false;
  declared_.clear();
  conditional_.clear();
  enabled_.clear();
  enabled_at_.clear();
  copy_replayed_picks();
  return true;
}

void PopDpor::copy_replayed_picks() {
  copied_ = 0;
  declared_from_ = 0;
  if (top_ < 2) return;  // the root: nothing ran before it
  // The frame below ran plan_[0, branch_) as this execution replays it
  // (deterministic models): the same pending operations, the same enabled sets.
  const FinishedTrace& below = frames_[top_ - 2].trace;
  const std::size_t k = std::min(branch_, below.real);
  const auto end = static_cast<std::ptrdiff_t>(k);
  declared_from_ = k;  // races reverse later events only: these are never asked for
  conditional_.assign(k, 0);  // (info_at reads only the positions past them)
  enabled_at_.assign(below.enabled_at.begin(), below.enabled_at.begin() + end);
  enabled_.assign(below.enabled.begin(), below.enabled.begin() + below.enabled_from(k));
  copied_ = k;
}

std::size_t PopDpor::owner(std::size_t p) const {
  for (std::size_t f = top_; f-- > 0;) {
    const Frame& fr = frames_[f];
    if (fr.own_from > p) continue;  // a prefix shared with the frame below
    if (p - fr.own_from >= fr.own.size())
      throw std::logic_error("[heddle bug] pop: a position's slot was dropped while needed");
    return f;
  }
  throw std::logic_error("[heddle bug] pop: no frame owns a position");
}

PopDpor::Slot& PopDpor::slot_below(std::size_t p) {
  Frame& fr = frames_[owner(p)];
  return fr.own[p - fr.own_from];
}

void PopDpor::account(std::size_t frame, std::size_t bytes) {
  frames_[frame].bytes += bytes;
  state_bytes_ += bytes;
}

std::size_t PopDpor::seq_bytes(const Seq& q) {
  return sizeof(Seq) + q.size() * sizeof(EventInfo);
}

PopDpor::Slot& PopDpor::fresh_slot(std::size_t p, const std::vector<Event>& trace) {
  Frame& f = top();
  const std::size_t k = p - f.own_from;
  if (f.own.size() != k)
    throw std::logic_error("[heddle bug] pop: positions of an execution recorded out of order");
  f.own.emplace_back();
  Slot& s = f.own.back();
  auto done = [&](Sleep sleep) -> Slot& {
    s.sleep = std::move(sleep);
    std::size_t b = sizeof(Slot);
    for (const auto& q : seqs(s)) b += seq_bytes(*q);
    account(top_ - 1, b);
    return s;
  };
  if (p == prefix_) return done(root_slot_sleep_);  // the root's first free position
  // The sleep sequences before p-1, and the branches started there before
  // this execution's, advanced over the event p-1 ran.
  const Slot& prev = slot(p - 1);
  const EventInfo x = info_at(trace, p - 1);
  // x depends on no event of the sequence (dependent() covers x's own agent).
  auto untouched = [&](const Seq& seq) {
    return std::none_of(seq.begin(), seq.end(), [&](const EventInfo& y) { return dependent(x, y); });
  };
  if (prev.cur == 0 && std::all_of(seqs(prev).begin(), seqs(prev).end(),
                                   [&](const SeqRef& q) { return untouched(*q); }))
    return done(prev.sleep);  // the common case: x leaves them all as they were
  std::vector<SeqRef> kept;
  // A sequence x does not touch is kept as it is, shared with the slot
  // before (most are: carrying them must not copy).
  auto carry = [&](const Seq& seq, const SeqRef* shared) {
    if (untouched(seq)) {
      kept.push_back(shared ? *shared : std::make_shared<const Seq>(seq));
      return;
    }
    auto mine = [&](const EventInfo& y) { return y.agent == x.agent; };
    if (std::none_of(seq.begin(), seq.end(), mine)) return;  // dropped: x wakes it
    Seq rest;  // filled only when the sequence is kept
    switch (step(seq, x, rest)) {
      case Step::kept: kept.push_back(std::make_shared<const Seq>(std::move(rest))); break;
      case Step::dropped: break;
      case Step::completed:  // an explored branch covers this execution
        if (blocked_at_ == SIZE_MAX) blocked_at_ = p - 1;
        break;
    }
  };
  for (const auto& seq : seqs(prev)) carry(*seq, &seq);
  for (std::uint32_t t = 0; t < prev.cur; ++t) carry(prev.started[t], nullptr);
  if (kept.empty()) return done(nullptr);
  return done(std::make_shared<const std::vector<SeqRef>>(std::move(kept)));
}

AgentId PopDpor::free_choice(std::size_t p, const Choice& c, const Slot& s) {
  // The free extension after a schedule (CAV'24, Alg. 1) takes an enabled
  // agent whose step does not complete a sleep sequence (nor, at a branch
  // point, a branch started there); any such agent is exact. In a work item
  // whose sleeping event still sleeps, its wakers go first: the sleeper
  // then runs early, as in a whole run, and the reversals of its races stay
  // short (bench/RESULTS.md, session 6).
  const bool nothing_asleep = seqs(s).empty() && s.started.empty();
  auto free = [&](AgentId a) {
    if (nothing_asleep) return true;  // (no pending event to build)
    const EventInfo x = pending(c, a);
    auto done = [&](const Seq& seq) { return completes(seq, x); };
    auto sleeping = [&](const SeqRef& q) { return done(*q); };
    return std::none_of(seqs(s).begin(), seqs(s).end(), sleeping) &&
           std::none_of(s.started.begin(), s.started.end(), done);
  };
  if (!wakers_.empty() && root_asleep(s))
    for (AgentId w : wakers_) {
      AgentId a{};
      if (!agents_.find(w, a)) continue;
      if (std::find(c.enabled.begin(), c.enabled.end(), a) != c.enabled.end() && free(a)) return a;
    }
  for (AgentId a : c.enabled)
    if (free(a)) return a;
  // Every step completes an explored branch: the execution is redundant
  // (next() gives it up); its races past p are not analysed.
  if (blocked_at_ == SIZE_MAX) blocked_at_ = p;
  return c.enabled.front();
}

EventInfo PopDpor::pending(const Choice& c, AgentId a) const {
  EventInfo e = agents_.pending_event(c, a);
  objects_.canon(e.footprint);
  return e;
}

namespace {

ModelError replay_diverged() {
  return ModelError(
      "the model is not deterministic: a step that could run in an earlier execution is "
      "blocked now (does it read a clock, a random source or global state?)");
}

}  // namespace

AgentId PopDpor::replay(const Choice& c) {
  // Canonical ids of the agents and objects created so far wait for the
  // first step past the copied prefix (choose() syncs them in creation
  // order, as here); only an agent not bound yet needs them now.
  const std::size_t p = depth_++;
  AgentId a{};
  if (!agents_.find(plan_[p], a)) {
    agents_.sync(c.execution);
    if (!agents_.find(plan_[p], a)) throw replay_diverged();
  }
  if (!c.execution.surely_enabled(a) &&  // (c.enabled is in agent-id order)
      !std::binary_search(c.enabled.begin(), c.enabled.end(), a))
    throw replay_diverged();
  return a;
}

AgentId PopDpor::choose(const Choice& c) {
  const std::size_t p = depth_++;
  const auto& trace = c.execution.trace();
  agents_.sync(c.execution);
  objects_.sync(c.execution, agents_);
  // Only a blocking operation's race asks whether its agent was enabled
  // (RaceFinder::reversible): where none is pending, a flag says "all".
  const auto at = static_cast<std::uint32_t>(enabled_.size());
  if (c.execution.blocks_none()) {
    enabled_at_.push_back(at | FinishedTrace::kAllEnabled);
  } else {
    enabled_at_.push_back(at);
    for (AgentId x : c.enabled) enabled_.push_back(agents_.canon(x));
  }
  if (p > 0) finalize(p - 1, trace);
  // Plans name agents by canonical id; `a` becomes the running agent's id.
  auto enabled = [&](AgentId canon, AgentId& a) {
    return agents_.find(canon, a) &&
           std::find(c.enabled.begin(), c.enabled.end(), a) != c.enabled.end();
  };
  AgentId a{};
  Slot* s = nullptr;
  if (p < branch_) {  // the prefix shared with the frame the schedule came from
    if (!enabled(plan_[p], a)) throw replay_diverged();
  } else {
    s = p < top().own_from ? &slot(p) : &fresh_slot(p, trace);
    bool chosen = false;
    if (following_ && p < plan_.size()) {
      if (enabled(plan_[p], a)) {
        chosen = true;
        followed_to_ = p + 1;
      } else {  // the reversal needed a blocked operation to run: no such trace
        ++stats_.infeasible;
        abandon_schedule();
        return kAbandon;
      }
    }
    if (!chosen) a = free_choice(p, c, *s);
    if (blocked_at_ == p) {
      // Every enabled step completes an explored branch: the rest of the
      // execution is covered. It is given up here (not counted, as GenMC
      // counts blocked executions apart); its races before p still count.
      enabled_.resize(enabled_at_.back() & ~FinishedTrace::kAllEnabled);
      enabled_at_.pop_back();
      depth_ = p;
      return kAbandon;
    }
  }
  EventInfo pe = pending(c, a);
  declared_.push_back(pe.footprint);
  conditional_.push_back(pe.conditional ? 1 : 0);
  // A fresh position, or a branch point whose schedule could not run,
  // starts a branch of one event (a schedule's branch was added with it).
  if (s != nullptr && (p != branch_ || !following_ || p >= plan_.size())) {
    s->started.emplace_back().push_back(std::move(pe));  // inline: no allocation
    account(p < top().own_from ? owner(p) : top_ - 1, seq_bytes(s->started.back()));
    s->cur = static_cast<std::uint32_t>(s->started.size() - 1);
  }
  return a;
}

void PopDpor::abandon_schedule() {
  // The schedule's events cannot run in its order: no trace has it as a
  // prefix, so the branch covers nothing and is forgotten. Running on with
  // free choices would only repeat traces other branches cover (every
  // event that could unblock the operation conflicts with it, so it is in
  // the schedule already); the execution is given up instead.
  Slot& b = slot(branch_);
  account(owner(branch_), 0 - seq_bytes(b.started[b.cur]));
  b.started.erase(b.started.begin() + b.cur);
  b.cur = 0;
  abandoned_ = true;
}

void PopDpor::finalize(std::size_t p, const std::vector<Event>& trace) {
  if (p < branch_) return;  // replayed: recorded by an earlier execution
  // Refined after the fact (a failed CAS only reads): the branch started at
  // p, and the event of the schedule that p ran.
  auto refine = [&](EventInfo& e) {
    if (e.agent != agents_.canon(trace[p].agent) || e.agent_event != trace[p].agent_event)
      throw std::logic_error("[heddle bug] pop: the trace ran another step than the one picked");
    if (objects_.same_as_canon(e.footprint, trace[p].footprint)) return;  // the common case
    e.footprint = trace[p].footprint;
    objects_.canon(e.footprint);
  };
  Slot& s = slot(p);
  refine(s.started[s.cur][0]);
  if (p > branch_ && p < followed_to_) {
    Seq& sched = slot(branch_).started[slot(branch_).cur];
    if (p - branch_ < sched.size()) refine(sched[p - branch_]);
  }
}

void PopDpor::collect_pending(const ExecutionRecord& ex, FinishedTrace& t) {
  const auto& trace = ex.trace();
  for (const auto& a : ex.agents()) {
    if (a->finished) continue;
    EventInfo e;
    if (a->kind == Agent::Kind::thread) {
      const auto& th = static_cast<const ThreadAgent&>(*a);
      if (!th.has_pending) continue;
      e.conditional = th.op.enabled.conditional();
    } else {
      const auto& as = static_cast<const AsyncAgent&>(*a);
      e.conditional = static_cast<bool>(as.phases[as.next].enabled);
    }
    e.agent = agents_.canon(a->id);
    e.agent_event = a->events;
    e.footprint = a->pending().footprint;
    objects_.canon(e.footprint);
    const std::int32_t cb = a->events == 0 ? a->created_by : -1;
    if (cb >= 0) {
      const Event& cr = trace[static_cast<std::size_t>(cb)];
      e.has_creator = true;
      e.creator_agent = agents_.canon(cr.agent);
      e.creator_event = cr.agent_event;
    }
    t.events.push_back(std::move(e));
    t.created_by.push_back(cb);
  }
}

void PopDpor::record_frame(const ExecutionRecord& ex) {
  const auto& trace = ex.trace();
  const std::size_t n = trace.size();
  FinishedTrace& t = top().trace;
  // The events overwrite those the frame's storage held (assignments, not
  // destroying and building each one again); the rest starts empty.
  std::vector<EventInfo> events = std::move(t.events);
  t.clear();
  t.real = n;
  events.resize(n);
  // The prefix shared with the frame below ran the same events (whose
  // clocks compute_clocks reuses): copied from there, not rebuilt.
  const FinishedTrace* below = top_ > 1 ? &frames_[top_ - 2].trace : nullptr;
  std::size_t k = 0;
  if (below != nullptr) {
    k = std::min({branch_, below->real, n});
    const auto end = static_cast<std::ptrdiff_t>(k);
    std::copy(below->events.begin(), below->events.begin() + end, events.begin());
    t.created_by.assign(below->created_by.begin(), below->created_by.begin() + end);
  }
  for (; k < n; ++k) {
    events[k] = info_at(trace, k);
    t.created_by.push_back(trace[k].created_by);
  }
  t.events = std::move(events);
  // The picks' records move into the frame (begin() clears what comes back).
  running_bytes_ = running_bytes();
  enabled_at_.push_back(static_cast<std::uint32_t>(enabled_.size()));
  t.declared.swap(declared_);
  t.declared_from = declared_from_;
  t.enabled.swap(enabled_);
  t.enabled_at.swap(enabled_at_);
  const bool blocked = blocked_at_ != SIZE_MAX;
  if (blocked) ++stats_.sleep_blocked;
  // The operations pending where it stopped race too, also where every
  // enabled step slept (a work item's): a blocked operation there may need
  // a reversal to run at all (without, split runs lost traces).
  const bool pending = !blocked || blocked_at_ >= n;
  if (pending) collect_pending(ex, t);
  auto& races = top().races;
  races.clear();
  // Parsimony (i): a race whose later event ran before the end of the
  // schedule is one of an earlier execution, which reverses it.
  const std::size_t fresh = followed_to_ > branch_ ? followed_to_ - 1 : branch_;
  finder_.analyse(t, below, top_ > 1 ? branch_ : 0, agents_.width(), fresh,
                  std::min(n, blocked_at_), pending, races);
  mark_schedule(top());
  if (top_ == 1) watch_prefix(top());
  keep_parsimonious(top());
  stats_.races += races.size();
  account(top_ - 1, sizeof(Frame) + t.bytes() + races.size() * sizeof(Race) + top().flags.size());
  // Races by their later event, earliest first (the back is next), as
  // CAV'24 Alg. 1 walks the execution.
  std::sort(races.begin(), races.end(), [](const Race& a, const Race& b) {
    return a.j != b.j ? a.j > b.j : a.i < b.i;
  });
}

void PopDpor::mark_schedule(Frame& f) {
  f.flags.assign(f.trace.real, 0);
  if (top_ > 1) {  // the prefix keeps the marks it had in the frame below
    const auto& below = frames_[top_ - 2].flags;
    std::copy(below.begin(), below.begin() + static_cast<std::ptrdiff_t>(branch_), f.flags.begin());
  } else {  // start_at's prefix: other work items own its races, as schedules do
    const auto end = static_cast<std::ptrdiff_t>(std::min(prefix_, f.trace.real));
    std::fill(f.flags.begin(), f.flags.begin() + end, kSchedule);
  }
  for (std::size_t p = branch_; p < followed_to_; ++p) f.flags[p] = kSchedule;
  // The head is the reversed event, the schedule's last (when it ran).
  if (followed_to_ > branch_ && followed_to_ == plan_.size()) f.flags[followed_to_ - 1] |= kHead;
}

void PopDpor::keep_parsimonious(Frame& f) {
  // CAV'24, Sec. 4 (parsimonious race reversal; Nidhugg's POP trace builder
  // applies the same rules): (ii) the earlier event must not belong to a
  // schedule, whose races were those of the execution it came from; (iii)
  // every schedule head between the two events must happen before the
  // later one, or the race was already there before that schedule.
  heads_.clear();
  for (std::size_t p = 0; p < f.flags.size(); ++p)
    if (f.flags[p] & kHead) heads_.push_back(p);
  const FinishedTrace& t = f.trace;
  auto reversed_elsewhere = [&](const Race& r) {
    if (r.i < prefix_) note_prefix_race(f, r);
    if (f.flags[r.i] & kSchedule) return true;
    for (std::size_t h : heads_)
      if (h > r.i && h < r.j && !t.happens_before(h, r.j)) return true;
    return false;
  };
  const std::size_t before = f.races.size();
  f.races.erase(std::remove_if(f.races.begin(), f.races.end(), reversed_elsewhere),
                f.races.end());
  stats_.pruned += before - f.races.size();
}

EventInfo PopDpor::info_at(const std::vector<Event>& trace, std::size_t k) const {
  EventInfo e = event_info(trace, k, conditional_[k] != 0);
  e.agent = agents_.canon(e.agent);
  objects_.canon(e.footprint);
  if (e.has_creator) e.creator_agent = agents_.canon(e.creator_agent);
  return e;
}

void PopDpor::end(const ExecutionRecord& ex) {
  if (abandoned_) {
    // Its frame (pushed by advance()) holds only slots of this execution.
    state_bytes_ -= top().bytes;
    top().bytes = 0;
    --top_;
    if (!advance()) done_ = true;
    return;
  }
  agents_.sync(ex);  // agents and objects created by the last step
  objects_.sync(ex, agents_);
  const std::size_t n = ex.trace().size();
  if (n != depth_) throw std::logic_error("[heddle bug] pop: trace and picks disagree");
  if (n > 0) finalize(n - 1, ex.trace());
  record_frame(ex);
  measure();
  if (!advance()) done_ = true;
}

bool PopDpor::schedule(Frame& f, const Race& r) {
  // The schedule of a parsimonious reversal (CAV'24, Sec. 4): pre(E, e),
  // the events e' needs (FinishedTrace::schedule_events), then e' as
  // declared (a moved failed CAS may succeed).
  const FinishedTrace& t = f.trace;
  t.schedule_events(r, past_, at_);
  v_.clear();
  for (std::size_t k : at_) v_.push_back(&t.events[k]);
  moved_ = t.events[r.j];
  if (r.j < t.real) moved_.footprint = t.declared_at(r.j);
  v_.push_back(&moved_);
  // Redundant when it completes a sleep sequence at i: the explored branch
  // of that sequence has it as a happens-before prefix (CAV'24, Sec. 6).
  // Sleep sets of single events (JACM 2017) would be wrong here: a
  // parsimonious branch covers the traces that extend its whole schedule,
  // not every trace its first event can start.
  Slot& s = slot(r.i);
  auto redundant = [&](const Seq& seq) { return completed_by(seq, v_); };
  if (std::any_of(seqs(s).begin(), seqs(s).end(), [&](const SeqRef& q) { return redundant(*q); }) ||
      std::any_of(s.started.begin(), s.started.end(), redundant))
    return false;
  Seq branch;
  for (const EventInfo* x : v_) branch.push_back(*x);
  s.started.push_back(std::move(branch));
  account(owner(r.i), seq_bytes(s.started.back()));
  s.cur = static_cast<std::uint32_t>(s.started.size() - 1);
  plan_.clear();
  for (std::size_t k = 0; k < r.i; ++k) plan_.push_back(t.events[k].agent);
  for (const EventInfo* e : v_) plan_.push_back(e->agent);
  return true;
}

bool PopDpor::advance() {
  while (top_ > 0) {
    Frame& f = top();
    while (!f.races.empty()) {
      const Race r = f.races.back();
      f.races.pop_back();
      if (!schedule(f, r)) {
        ++stats_.redundant;
        continue;
      }
      ++stats_.explored;
      branch_ = r.i;
      following_ = true;
      if (top_ == frames_.size()) frames_.emplace_back();  // f is not used past here
      Frame& child = frames_[top_++];
      child.own_from = r.i + 1;
      child.own.clear();
      child.races.clear();
      child.bytes = 0;
      child.flags.clear();  // (record_frame overwrites the trace it held)
      return true;
    }
    state_bytes_ -= f.bytes;
    f.bytes = 0;
    --top_;
  }
  return false;
}

std::size_t PopDpor::running_bytes() const {
  return plan_.size() * sizeof(AgentId) + declared_.size() * sizeof(Footprint) +
         enabled_.size() * sizeof(AgentId) + enabled_at_.size() * sizeof(std::uint32_t);
}

void PopDpor::measure() {
  // Frames account for what they hold as it is added (account()); the
  // running execution's buffers (as record_frame found them) come on top.
  stats_.peak_state_bytes = std::max(stats_.peak_state_bytes, state_bytes_ + running_bytes_);
  stats_.peak_frames = std::max(stats_.peak_frames, top_);
}

}  // namespace heddle::dpor
