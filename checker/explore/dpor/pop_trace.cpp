#include "checker/explore/dpor/pop_trace.hpp"

#include <algorithm>

namespace heddle::dpor {

bool same_step(const EventInfo& a, const EventInfo& b) noexcept {
  // Agent ids follow creation order, so an agent created during the
  // execution is also named by its creating event: another creator means
  // another agent.
  if (a.agent != b.agent || a.agent_event != b.agent_event || a.has_creator != b.has_creator)
    return false;
  return !a.has_creator ||
         (a.creator_agent == b.creator_agent && a.creator_event == b.creator_event);
}

Step step(Seq& rest, const EventInfo& x) {
  for (std::size_t t = 0; t < rest.size(); ++t) {
    if (rest[t].agent != x.agent) continue;
    if (!same_step(rest[t], x)) return Step::dropped;
    for (std::size_t k = 0; k < t; ++k)
      if (dependent(rest[k], rest[t])) return Step::dropped;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(t));
    return rest.empty() ? Step::completed : Step::kept;
  }
  for (const auto& y : rest)
    if (dependent(x, y)) return Step::dropped;
  return Step::kept;
}

Step step(const Seq& seq, const EventInfo& x, Seq& rest) {
  // step(rest, x) on a copy of seq, without making the copy when the
  // sequence is dropped or completed.
  for (std::size_t t = 0; t < seq.size(); ++t) {
    if (seq[t].agent != x.agent) continue;
    if (!same_step(seq[t], x)) return Step::dropped;
    for (std::size_t k = 0; k < t; ++k)
      if (dependent(seq[k], seq[t])) return Step::dropped;
    if (seq.size() == 1) return Step::completed;
    rest.reserve(seq.size() - 1);
    rest.assign(seq.begin(), seq.begin() + static_cast<std::ptrdiff_t>(t));
    rest.insert(rest.end(), seq.begin() + static_cast<std::ptrdiff_t>(t) + 1, seq.end());
    return Step::kept;
  }
  for (const auto& y : seq)
    if (dependent(x, y)) return Step::dropped;
  rest = seq;
  return Step::kept;
}

bool completes(const Seq& rest, const EventInfo& x) noexcept {
  return rest.size() == 1 && same_step(rest[0], x);
}

bool completed_by(const Seq& seq, const std::vector<const EventInfo*>& v) {
  // step() over a copy of seq, with the matched events marked instead of
  // erased (this runs for every reversal against every sleep sequence).
  thread_local std::vector<char> matched;
  matched.assign(seq.size(), 0);
  std::size_t left = seq.size();
  for (const EventInfo* x : v) {
    std::size_t t = 0;
    while (t < seq.size() && (matched[t] || seq[t].agent != x->agent)) ++t;
    if (t == seq.size()) {  // x is not in the sequence: it must commute with the rest
      for (std::size_t k = 0; k < seq.size(); ++k)
        if (!matched[k] && dependent(*x, seq[k])) return false;
      continue;
    }
    if (!same_step(seq[t], *x)) return false;
    for (std::size_t k = 0; k < t; ++k)
      if (!matched[k] && dependent(seq[k], seq[t])) return false;
    matched[t] = 1;
    if (--left == 0) return true;
  }
  return false;
}

}  // namespace heddle::dpor
