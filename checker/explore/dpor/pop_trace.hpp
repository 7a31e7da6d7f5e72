// POP's sleep sequences (CAV 2024, Sec. 6): the events of an explored
// schedule that an execution has not yet matched, and how each executed
// event advances them. The races themselves are found by races.hpp.
#pragma once
#include <boost/container/small_vector.hpp>

#include <vector>

#include "checker/explore/dpor/event.hpp"
#include "checker/explore/dpor/races.hpp"

namespace heddle::dpor {

/// The events of a schedule or of a sleep sequence, in order. One is kept
/// inline: most branches are a free step of one event, started every step.
using Seq = boost::container::small_vector<EventInfo, 1>;

/// How a sleep sequence (the unmatched events of an explored schedule u)
/// fares when an execution runs one more event.
enum class Step { kept, dropped, completed };

/// Advances `rest` over the executed event x (CAV'24, Sec. 6, adapted): the
/// execution keeps u as a happens-before prefix, so that u's branch covers
/// it, while every event outside u is independent of what u still needs and
/// u's own events run without reversing one of u's dependencies.
Step step(Seq& rest, const EventInfo& x);
/// The same, leaving `seq` as it is: when it is kept, `rest` becomes what
/// is left of it (copied only then).
Step step(const Seq& seq, const EventInfo& x, Seq& rest);
/// True when a and b are the same step of the same agent.
bool same_step(const EventInfo& a, const EventInfo& b) noexcept;
/// True when running x would complete sleep sequence `rest`.
bool completes(const Seq& rest, const EventInfo& x) noexcept;
/// True when running the events `v` in order completes `seq`.
bool completed_by(const Seq& seq, const std::vector<const EventInfo*>& v);

}  // namespace heddle::dpor
