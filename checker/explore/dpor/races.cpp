#include "checker/explore/dpor/races.hpp"

#include <algorithm>

namespace heddle::dpor {
namespace {

// Pointwise maximum of clock row `from` into `into` (`width` entries).
void join_row(std::uint32_t* into, const std::uint32_t* from, std::size_t width) noexcept {
  for (std::size_t a = 0; a < width; ++a) into[a] = std::max(into[a], from[a]);
}

}  // namespace

void FinishedTrace::clear() {
  events.clear();
  declared.clear();
  declared_from = 0;
  created_by.clear();
  enabled.clear();
  enabled_at.clear();
  real = 0;
  clocks.clear();
  stride = 0;
  prev_pos.clear();
}

bool FinishedTrace::was_enabled(std::size_t k, AgentId a) const {
  if (enabled_at[k] & kAllEnabled) return true;  // (a was pending at k)
  auto first = enabled.begin() + enabled_from(k);
  auto last = enabled.begin() + enabled_from(k + 1);
  return std::find(first, last, a) != last;
}

std::size_t FinishedTrace::bytes() const {
  std::size_t b = events.size() * sizeof(EventInfo) + declared.size() * sizeof(Footprint);
  for (const auto& e : events)
    if (e.footprint.size() > 2) b += e.footprint.size() * sizeof(Access);
  b += created_by.size() * sizeof(std::int32_t) + enabled.size() * sizeof(AgentId);
  b += enabled_at.size() * sizeof(std::uint32_t) + clocks.size() * sizeof(std::uint32_t);
  return b + prev_pos.size() * sizeof(std::int32_t);
}

void FinishedTrace::schedule_events(const Race& r, std::vector<std::uint32_t>& past,
                                    std::vector<std::size_t>& out) const {
  // JACM 2017 runs all of notdep(e, E) before e'. A parsimonious schedule
  // runs only what e' needs: the causal past of its direct predecessors
  // other than e and the events after e (its previous step, its creator,
  // the earlier events it conflicts with). For most events that is the part
  // of notdep(e, E) that happens before e'; for an operation that may block
  // it leaves out what only the events after e gave it (a lock moved before
  // the other lock does not need that lock's unlock; Nidhugg's POP computes
  // the moved lock's clock the same way).
  const std::size_t end = std::min<std::size_t>(r.j, real);
  const auto i = static_cast<std::int32_t>(r.i);
  // `past` joins the predecessors' clocks: k is in their causal past when
  // it counts k's event (one pass, whatever the number of predecessors).
  past.assign(stride, 0u);
  auto join = [&](std::size_t d) { join_row(past.data(), &clocks[d * stride], stride); };
  if (prev_pos[r.j] > i) join(static_cast<std::size_t>(prev_pos[r.j]));
  if (events[r.j].agent_event == 0 && created_by[r.j] > i)
    join(static_cast<std::size_t>(created_by[r.j]));
  for (std::size_t k = r.i + 1; k < end; ++k)
    if (!happens_before(r.i, k) && conflicts(events[k].footprint, events[r.j].footprint)) join(k);
  out.clear();
  for (std::size_t k = r.i + 1; k < end; ++k) {
    const EventInfo& e = events[k];
    if (!happens_before(r.i, k) && past[index(e.agent)] > e.agent_event) out.push_back(k);
  }
}

void RaceFinder::index_objects(const FinishedTrace& t) {
  std::size_t same = 0;
  const std::size_t most = std::min(indexed_.size(), t.real);
  while (same < most && indexed_[same] == t.events[same].agent) ++same;
  objects_.truncate(same);
  indexed_.resize(same);
  for (std::size_t k = same; k < t.real; ++k) {
    objects_.add(k, t.events[k].footprint);
    indexed_.push_back(t.events[k].agent);
  }
}

void RaceFinder::candidates(const FinishedTrace& t, const Footprint& fp, std::size_t limit,
                            bool stop_at_cover) {
  if (!stop_at_cover) return objects_.candidates(fp, limit, cand_);
  objects_.candidates(fp, limit, cand_, [&](std::uint32_t i, const Access& a) {
    return covers(t.events[i].footprint, a);
  });
}

void RaceFinder::compute_clocks(FinishedTrace& t, const FinishedTrace* parent, std::size_t same,
                                std::size_t width) {
  std::vector<Race> none;
  analyse(t, parent, same, width, 0, 0, false, none);
}

void RaceFinder::analyse(FinishedTrace& t, const FinishedTrace* parent, std::size_t same,
                         std::size_t width, std::size_t from, std::size_t to, bool pending,
                         std::vector<Race>& out) {
  const std::size_t n = t.events.size();
  const std::size_t old_stride = t.stride;  // (in place: the rows kept were this wide)
  std::size_t agents = width;
  if (agents == 0)
    for (const auto& e : t.events) agents = std::max<std::size_t>(agents, index(e.agent) + 1);
  t.stride = agents;
  t.prev_pos.resize(n);
  index_objects(t);
  // A prefix shared with the parent has the parent's clocks (they depend
  // on earlier events only); copy them when the rows have the same width,
  // and clear only the rows after (each entry is written once).
  std::size_t copied = 0;
  if (parent == &t) {  // in place: the rows below `same` are already there
    if (old_stride == agents && same <= t.real && same * agents <= t.clocks.size()) copied = same;
    t.clocks.resize(copied * agents);
  } else {
    if (parent != nullptr && parent->stride == agents && same <= parent->real && same <= t.real)
      copied = same;
    t.clocks.clear();
    if (copied > 0)
      t.clocks.assign(parent->clocks.begin(),
                      parent->clocks.begin() + static_cast<std::ptrdiff_t>(copied * agents));
  }
  t.clocks.resize(n * agents, 0u);
  std::vector<std::int32_t>& last = last_;
  last.assign(agents, -1);
  // Positions whose races are asked for: [from, to), and the pending ones.
  auto racing = [&](std::size_t k) { return (k >= from && k < to) || (pending && k >= t.real); };
  for (std::size_t k = 0; k < copied; ++k) {  // (the caller's race window starts past `same`)
    const std::size_t a = index(t.events[k].agent);
    t.prev_pos[k] = last[a];
    last[a] = static_cast<std::int32_t>(k);
    if (racing(k)) races_of(t, k, out);
  }
  for (std::size_t k = copied; k < n; ++k) {
    const EventInfo& e = t.events[k];
    t.prev_pos[k] = last[index(e.agent)];
    last[index(e.agent)] = static_cast<std::int32_t>(k);
    const std::size_t limit = std::min(k, t.real);
    candidates(t, e.footprint, limit, true);
    fill_row(t, k);
    if (!racing(k)) continue;
    // An operation that may block races with every earlier event on its
    // objects (races_of); the others with the ones the clock looked at.
    if (e.conditional) candidates(t, e.footprint, limit, false);
    race_candidates(t, k, out);
  }
}

void RaceFinder::fill_row(FinishedTrace& t, std::size_t k) {
  const std::size_t agents = t.stride;
  const EventInfo& e = t.events[k];
  std::uint32_t* row = &t.clocks[k * agents];
  auto join = [&](std::size_t other) { join_row(row, &t.clocks[other * agents], agents); };
  if (t.prev_pos[k] >= 0) join(static_cast<std::size_t>(t.prev_pos[k]));
  if (e.agent_event == 0 && t.created_by[k] >= 0) join(static_cast<std::size_t>(t.created_by[k]));
  // An agent's later row holds its earlier ones (each row joins the agent's
  // previous one): of each agent, its last conflicting candidate is enough.
  // A spin loop's many polls of one object then cost one join, not one each.
  if (joined_.size() < agents) joined_.resize(agents, 0);
  if (++row_serial_ == 0) {  // (wrapped: forget every mark)
    std::fill(joined_.begin(), joined_.end(), 0u);
    row_serial_ = 1;
  }
  for (auto it = cand_.rbegin(); it != cand_.rend(); ++it) {
    const EventInfo& ei = t.events[*it];
    std::uint32_t& mark = joined_[index(ei.agent)];
    if (mark == row_serial_ || !conflict(ei, e)) continue;
    join(*it);
    mark = row_serial_;
  }
  row[index(e.agent)] = e.agent_event + 1;
}

void RaceFinder::find_races(const FinishedTrace& t, std::size_t from, std::size_t to,
                            bool pending, std::vector<Race>& out) {
  // objects_ still indexes t: compute_clocks(t) ran just before.
  for (std::size_t j = from; j < to; ++j) races_of(t, j, out);
  if (pending)
    for (std::size_t j = t.real; j < t.events.size(); ++j) races_of(t, j, out);
}

void RaceFinder::races_of(const FinishedTrace& t, std::size_t j, std::vector<Race>& out) {
  // An operation that may block races with earlier events than the last
  // covering write (the other lock, not the unlock between): all of them.
  candidates(t, t.events[j].footprint, std::min(j, t.real), !t.events[j].conditional);
  race_candidates(t, j, out);
}

void RaceFinder::race_candidates(const FinishedTrace& t, std::size_t j, std::vector<Race>& out) {
  const EventInfo& ej = t.events[j];
  const std::int32_t pp = t.prev_pos[j];
  const std::int32_t cb = ej.agent_event == 0 ? t.created_by[j] : -1;
  // Only the candidates that conflict with j can race with it or stand
  // between it and an earlier one (reaches_through): most candidates of a
  // read are reads (a spin loop's polls), looked at once here, not once per
  // conflicting candidate.
  conf_.clear();
  for (std::uint32_t k : cand_)
    if (conflict(t.events[k], ej)) conf_.push_back(k);
  for (std::size_t c = 0; c < conf_.size(); ++c) {
    const std::size_t i = conf_[c];
    const EventInfo& ei = t.events[i];
    if (!may_move_before(i, ei, ej, pp, cb,
                         [&](std::size_t a, std::size_t b) { return t.happens_before(a, b); }))
      continue;
    // Races are immediate (JACM 2017, Sec. 3), except for an operation that
    // may block: when the event between enabled it (an unlock before a
    // lock), only the race with the earlier event (the other lock) can be
    // reversed (the reference notes on blocking operations say so).
    if (!ej.conditional && reaches_through(t, c)) continue;
    if (!reversible(t, i, j)) continue;
    out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
  }
}

bool RaceFinder::reaches_through(const FinishedTrace& t, std::size_t c) const {
  const std::size_t i = conf_[c];
  for (std::size_t d = c + 1; d < conf_.size(); ++d)  // (ascending: the later ones)
    if (t.happens_before(i, conf_[d])) return true;
  return false;
}

bool RaceFinder::reversible(const FinishedTrace& t, std::size_t i, std::size_t j) const {
  const EventInfo& ej = t.events[j];
  if (!ej.conditional) return true;
  if (needs_step(t.events[i].footprint, ej.footprint)) return false;
  // If j was already pending when i ran, the enabled sets say whether it
  // could run once the schedule's events have run. Otherwise assume it
  // could, unless it takes a unit of a resource that was empty before i; a
  // schedule whose agent turns out blocked is given up when it is reached
  // (PopStats::infeasible, RunStats::abandoned).
  const auto si = static_cast<std::int32_t>(i);
  const bool pending = t.prev_pos[j] < si && (ej.agent_event > 0 || t.created_by[j] < si);
  if (pending) {
    if (t.was_enabled(i, ej.agent)) return true;
    // Not enabled when i ran: it may run before i if a step of its past
    // could release it there; if it then does not, the schedule is given up.
    return could_release(t.events, i, std::min(j, t.real), ej,
                         [&](std::size_t k) { return t.happens_before(i, k); });
  }
  const Footprint& fp = j < t.real ? t.declared_at(j) : ej.footprint;
  for (const auto& a : fp)
    if (a.token < 0 && !token_available(t.events, a, i, std::min(j, t.real),
                                        [&](std::size_t k) { return t.happens_before(i, k); }))
      return false;
  return true;
}

}  // namespace heddle::dpor
