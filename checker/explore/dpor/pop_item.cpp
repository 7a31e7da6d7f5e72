// POP's side of a split run's work items (checker/explore/split/work_split.hpp): an
// exploration that starts at a prefix with a sleep set, watches its prefix
// for races that call for guarded items, and restarts on its own storage.
#include <algorithm>
#include <stdexcept>

#include "checker/explore/dpor/pop.hpp"

namespace heddle::dpor {

void PopDpor::reset() {
  // Everything but the frames' storage, which the next exploration reuses.
  top_ = 0;
  state_bytes_ = 0;
  plan_.clear();
  branch_ = prefix_ = 0;
  root_sleep_.clear();
  root_slot_sleep_.reset();
  wakers_.clear();
  watches_.clear();
  calls_.clear();
  following_ = false;
  depth_ = followed_to_ = 0;
  blocked_at_ = SIZE_MAX;
  started_ = done_ = abandoned_ = false;
  stats_ = {};
  finder_.forget();
}

void PopDpor::start_at(std::vector<AgentId> prefix, std::vector<EventInfo> sleep,
                       std::vector<AgentId> wakers, const CanonicalAgents& agents,
                       const CanonicalObjects& objects) {
  if (started_) throw std::logic_error("[heddle bug] pop: start_at after the exploration began");
  agents_ = agents;
  objects_ = objects;
  prefix_ = prefix.size();
  plan_ = std::move(prefix);
  branch_ = prefix_;  // the root execution replays the prefix, then runs free
  following_ = false;
  root_sleep_.clear();
  wakers_ = std::move(wakers);
  for (auto& e : sleep) root_sleep_.push_back(std::make_shared<const Seq>(Seq{std::move(e)}));
  if (!root_sleep_.empty()) root_slot_sleep_ = std::make_shared<const std::vector<SeqRef>>(root_sleep_);
}

bool PopDpor::root_asleep(const Slot& s) const {
  // Root sequences are single events, carried unchanged, so still shared.
  return std::any_of(seqs(s).begin(), seqs(s).end(), [&](const SeqRef& q) {
    return std::any_of(root_sleep_.begin(), root_sleep_.end(),
                       [&](const SeqRef& r) { return r.get() == q.get(); });
  });
}

void PopDpor::watch(std::uint32_t at, std::vector<EventInfo> asleep) {
  if (started_) throw std::logic_error("[heddle bug] pop: watch after the exploration began");
  Watch w{at, std::move(asleep)};
  auto it = std::lower_bound(watches_.begin(), watches_.end(), at,
                             [](const Watch& x, std::uint32_t p) { return x.at < p; });
  watches_.insert(it, std::move(w));
}

void PopDpor::note_prefix_race(const Frame& f, const Race& r) {
  const auto at = static_cast<std::uint32_t>(r.i);
  auto w = std::lower_bound(watches_.begin(), watches_.end(), at,
                            [](const Watch& x, std::uint32_t p) { return x.at < p; });
  if (w == watches_.end() || w->at != at) return;
  auto c = std::lower_bound(calls_.begin(), calls_.end(), at);
  if (c != calls_.end() && *c == at) return;  // called for already
  // The reversal's schedule (schedule()): the events j needs after i, then j.
  const FinishedTrace& t = f.trace;
  t.schedule_events(r, past_, at_);
  v_.clear();
  for (std::size_t k : at_) v_.push_back(&t.events[k]);
  v_.push_back(&t.events[r.j]);
  // A sleeping event that is a weak initial of it starts its traces: they
  // belong to that event's item (JACM 2017, Alg. 2's redundancy test).
  for (const EventInfo& b : w->asleep)
    if (weak_initial(v_, b)) return;
  calls_.insert(c, at);
}

void PopDpor::watch_prefix(const Frame& f) {
  // Races within the prefix are never reversed here (their later event is
  // replayed), yet may call for a guarded item above: every item's first
  // execution checks them once (the prefix is the same in all).
  if (watches_.empty()) return;
  scratch_races_.clear();
  finder_.find_races(f.trace, 0, std::min(prefix_, f.trace.real), false, scratch_races_);
  for (const Race& r : scratch_races_) note_prefix_race(f, r);
}

}  // namespace heddle::dpor
