// Events as the DPOR components see them, and their dependency relation.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "checker/engine/execution_record.hpp"
#include "checker/engine/op.hpp"

namespace heddle::dpor {

/// Whether agent `a` is in `v`.
inline bool contains(const std::vector<AgentId>& v, AgentId a) {
  return std::find(v.begin(), v.end(), a) != v.end();
}

/// One visible operation: the `agent_event`-th step of `agent`, with its
/// footprint. Deterministic models make (agent, agent_event) name the same
/// operation in every execution that runs it.
struct EventInfo {
  AgentId agent{};
  std::uint32_t agent_event = 0;
  Footprint footprint;
  bool has_creator = false;         // first event of an agent created by an event
  AgentId creator_agent{};          // ... that event (valid when has_creator)
  std::uint32_t creator_event = 0;
  bool conditional = false;         // the operation may block (lock, wait, await)
};

/// True when two footprints list the same accesses in the same order.
inline bool same_footprint(const Footprint& a, const Footprint& b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const Access& x = a[k];
    const Access& y = b[k];
    if (x.object != y.object || x.lo != y.lo || x.hi != y.hi || x.write != y.write ||
        x.token != y.token || x.before != y.before || x.update != y.update ||
        x.needs_completion != y.needs_completion)
      return false;
  }
  return true;
}

/// True when two event descriptions are identical, footprints included.
inline bool same_event(const EventInfo& a, const EventInfo& b) noexcept {
  if (a.agent != b.agent || a.agent_event != b.agent_event || a.conditional != b.conditional ||
      a.has_creator != b.has_creator)
    return false;
  if (a.has_creator && (a.creator_agent != b.creator_agent || a.creator_event != b.creator_event))
    return false;
  return same_footprint(a.footprint, b.footprint);
}

/// True when `fp` holds a plain write (not a commutative update) of every
/// byte `entry` names: every earlier access conflicting with `entry`
/// conflicts with it too (ObjectIndex::candidates stops there).
inline bool covers(const Footprint& fp, const Access& entry) noexcept {
  for (const Access& x : fp)
    if (x.object == entry.object && x.write && x.update == 0 && x.lo <= entry.lo &&
        entry.hi <= x.hi)
      return true;
  return false;
}

/// The conflict predicate every explorer and minimization use: steps of two
/// different agents whose footprints conflict (checker/engine/op.hpp).
/// `A` and `B` are Event or EventInfo.
template <class A, class B>
bool conflict(const A& a, const B& b) noexcept {
  return a.agent != b.agent && conflicts(a.footprint, b.footprint);
}

/// The race candidates of a trace (JACM 2017, Sec. 3): i < j conflict, and
/// j's own past does not need i, so j may move before i: neither j's
/// previous step (`prev_j`, -1 for none) nor, for an agent's first step,
/// the step that created it (`creator_j`, -1 for none) is i or follows i.
/// `hb(i, k)` says whether position i happens before (or is) position k.
template <class A, class B, class HB>
bool may_move_before(std::size_t i, const A& ei, const B& ej, std::int32_t prev_j,
                     std::int32_t creator_j, HB hb) {
  if (!conflict(ei, ej)) return false;
  if (prev_j >= 0 && hb(i, static_cast<std::size_t>(prev_j))) return false;
  if (creator_j >= 0 &&
      (static_cast<std::size_t>(creator_j) == i || hb(i, static_cast<std::size_t>(creator_j))))
    return false;
  return true;
}

/// Dependency (Abdulla et al., JACM 2017, Sec. 2): same agent (program
/// order), creation (an agent's first event happens after the event that
/// created it), or conflicting footprints (same object, one writes).
inline bool dependent(const EventInfo& a, const EventInfo& b) noexcept {
  if (a.agent == b.agent) return true;
  if (b.has_creator && b.creator_agent == a.agent && b.creator_event == a.agent_event) return true;
  if (a.has_creator && a.creator_agent == b.agent && a.creator_event == b.agent_event) return true;
  return conflict(a, b);
}

/// The EventInfo of trace[k]; `conditional` comes from the caller's record.
inline EventInfo event_info(const std::vector<Event>& trace, std::size_t k, bool conditional) {
  const Event& e = trace[k];
  // Built in place: the footprint copy-constructed, not default-filled then assigned.
  EventInfo info{e.agent, e.agent_event, e.footprint, false, AgentId{}, 0, conditional};
  if (e.agent_event == 0 && e.created_by >= 0) {
    const Event& c = trace[static_cast<std::size_t>(e.created_by)];
    info.has_creator = true;
    info.creator_agent = c.agent;
    info.creator_event = c.agent_event;
  }
  return info;
}

/// For a wait j that was pending but blocked when step i ran: true when a
/// step k in (i, end) of another agent touches j's objects and does not
/// follow i (`follows_i(k)`). Reversibility is judged after notdep(e, E)
/// (JACM 2017, Sec. 3); only such a step (a copy completing a DMA wait, any
/// of the writers an await accepts) can release j there. With none, j sees
/// what it saw at i and stays blocked. `Step` is Event or EventInfo.
template <class Step, class FollowsI>
bool could_release(const std::vector<Step>& steps, std::size_t i, std::size_t end, const Step& j,
                   FollowsI follows_i) {
  for (std::size_t k = i + 1; k < end; ++k)
    if (conflict(steps[k], j) && !follows_i(k))
      return true;
  return false;
}

/// True when j cannot run before i: j (footprint `fj`) is a wait with an
/// entry it needs (Access::needs_completion) that only i can satisfy.
/// An async op's done (or read) side is written by one step of the op. On
/// a barrier, i lands in phase q as a commutative update of [q, q + 2) (an
/// arrival, or a complete_tx once every arrival is in), and j is blocked
/// while phase q gathers (lo = q). A phase completes with exactly its
/// count of arrivals, and once its bytes in flight have all landed. Without
/// i, what can run before j is the rest of phase q: every other update of
/// the barrier after i (a spare arrival, an expect_tx) conflicts with i and
/// follows it. So q lacks i's arrival or bytes and stays open, and j stays
/// blocked; a third agent's arrival takes i's slot only through its own
/// race with i, which is reversed on its own.
inline bool needs_step(const Footprint& fi, const Footprint& fj) noexcept {
  constexpr UpdateClass kind_mask = (UpdateClass{1} << kUpdateKindBits) - 1;
  auto satisfies = [](const Access& x, const Access& r) {
    if (x.object != r.object || !x.write || x.lo != r.lo) return false;
    if (x.update == 0) return x.hi == r.hi;  // the op's step
    const UpdateClass kind = x.update & kind_mask;
    return x.hi == x.lo + 2 && (kind == static_cast<UpdateClass>(Update::arrive) ||
                                kind == static_cast<UpdateClass>(Update::tx_complete));
  };
  for (const Access& r : fj)
    if (!r.write && r.needs_completion)
      for (const Access& x : fi)
        if (satisfies(x, r)) return true;
  return false;
}

/// For a take `take` (token -k: k units) of a resource that was not pending
/// when step i ran: true when k units may be left for it right before i.
/// Every operation on the resource after i that conflicts with i happens
/// after i and stays there, so the count before i decides (i's own record,
/// else the last counted operation before it), except for a give in
/// (i, end) that does not follow i (`follows_i(k)`): it may move before i
/// with the take, so the units are assumed (a schedule whose take then
/// blocks is given up when reached). Counts and gives of 127 are saturated
/// ("at least"): then the units are assumed too. `Step` is Event or EventInfo.
template <class Step, class FollowsI>
bool token_available(const std::vector<Step>& steps, const Access& take, std::size_t i,
                     std::size_t end, FollowsI follows_i) {
  const int need = -take.token;
  for (std::size_t k = i + 1; k < end; ++k)
    for (const auto& a : steps[k].footprint)
      if (a.object == take.object && a.token > 0 && !follows_i(k)) return true;
  for (const auto& a : steps[i].footprint)
    if (a.object == take.object && a.before >= 0) return a.before == 127 || a.before >= need;
  for (std::size_t k = i; k-- > 0;)
    for (const auto& a : steps[k].footprint)
      if (a.object == take.object && a.token != 0) {
        if (a.before < 0) return a.token > 0;
        return a.before == 127 || a.token == 127 || a.before + a.token >= need;
      }
  return true;  // never taken: available from the start
}

/// True when `p` (an agent whose next event is `pe`) is a weak initial of
/// `v` (JACM 2017, Sec. 6, weak initials WI[E](v)): either pe is p's first event in v and
/// nothing before it in v depends on it, or p is absent from v and pe is
/// independent of every event of v. Callers guarantee p is enabled. `v`
/// refers to events stored elsewhere, so that inserting it copies nothing.
inline bool weak_initial(const std::vector<const EventInfo*>& v, const EventInfo& pe) noexcept {
  for (std::size_t t = 0; t < v.size(); ++t) {
    if (v[t]->agent != pe.agent) continue;
    for (std::size_t s = 0; s < t; ++s)
      if (dependent(*v[s], *v[t])) return false;
    return true;
  }
  for (const EventInfo* e : v)
    if (dependent(pe, *e)) return false;
  return true;
}

}  // namespace heddle::dpor
