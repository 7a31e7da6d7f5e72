// POP's sleep sequences (checker/explore/dpor/pop_trace.hpp): an explored schedule u
// covers an execution exactly when the execution has u as a happens-before
// prefix. Hand-built events: agents 0-2, objects 0-1.
#include <catch2/catch.hpp>

#include "checker/explore/dpor/pop_trace.hpp"

using namespace heddle;
using namespace heddle::dpor;

namespace {
EventInfo ev(std::uint32_t agent, std::uint32_t n, std::uint32_t object, bool write) {
  EventInfo e;
  e.agent = AgentId{agent};
  e.agent_event = n;
  Access a;
  a.object = ObjectId{object};
  a.write = write;
  e.footprint.push_back(a);
  return e;
}
}  // namespace

TEST_CASE("a sleep sequence is completed by its own events in a compatible order", "[dpor]") {
  // u: agent 0 writes x, agent 1 reads y. The two are independent, so
  // either order has u as a prefix.
  const Seq u = {ev(0, 0, 0, true), ev(1, 0, 1, false)};
  const EventInfo w0 = u[0], r1 = u[1];
  CHECK(completed_by(u, {&w0, &r1}));
  CHECK(completed_by(u, {&r1, &w0}));
  CHECK(completes({r1}, r1));
  CHECK_FALSE(completes(u, w0));  // one of two events: not yet
}

TEST_CASE("a sleep sequence is dropped when its order or its past changes", "[dpor]") {
  // u: agent 0 writes x, then agent 1 reads x (dependent, in that order).
  Seq rest = {ev(0, 0, 0, true), ev(1, 0, 0, false)};
  const EventInfo w0 = rest[0], r1 = rest[1];
  CHECK_FALSE(completed_by(rest, {&r1, &w0}));  // the read first: another trace
  // An event outside u that u's unmatched read depends on: u is no prefix.
  const EventInfo w2 = ev(2, 0, 0, true);
  auto copy = rest;
  CHECK(step(copy, w2) == Step::dropped);
  // An independent event outside u keeps it; u's events then complete it.
  const EventInfo y2 = ev(2, 0, 1, true);
  copy = rest;
  CHECK(step(copy, y2) == Step::kept);
  CHECK(step(copy, w0) == Step::kept);
  CHECK(step(copy, r1) == Step::completed);
  // Another step of an agent of u than the one u has: dropped.
  copy = rest;
  CHECK(step(copy, ev(1, 1, 1, false)) == Step::dropped);
}
