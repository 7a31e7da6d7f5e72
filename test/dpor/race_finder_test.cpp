// POP's race analysis (RaceFinder) on random finished traces: the one-pass
// analyse(), which copies a parent's clock rows, reuses the object index of
// the trace analysed before it and may use wider rows, must give the same
// happens-before relation and the same races as compute_clocks() then
// find_races() from scratch.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "checker/explore/dpor/pop_trace.hpp"

using namespace heddle;
using namespace heddle::dpor;

namespace {

constexpr std::uint32_t kAgents = 5;

struct Builder {
  std::mt19937 rng;
  std::uint32_t pick(std::uint32_t n) { return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng); }

  Access access() {
    Access a;
    a.object = ObjectId{pick(4)};
    const std::uint32_t lo = pick(3) * 2;
    a.lo = lo;
    a.hi = lo + 1 + pick(3);
    a.write = pick(2) == 0;
    if (pick(8) == 0) a.update = 1;  // a commutative update: commutes with its kind
    return a;
  }
  EventInfo event(std::uint32_t agent, std::uint32_t agent_event) {
    EventInfo e;
    e.agent = AgentId{agent};
    e.agent_event = agent_event;
    e.footprint.push_back(access());
    if (pick(4) == 0) e.footprint.push_back(access());
    e.conditional = pick(6) == 0;
    return e;
  }
  // Appends `count` events run by random agents to t (after its first
  // `t.real` ones), then pending operations; agent 4 is created by the
  // first event of agent 0 that runs, when one does.
  void extend(FinishedTrace& t, std::size_t count, bool pending, std::uint32_t avoid_first) {
    std::vector<std::uint32_t> next(kAgents, 0);
    std::int32_t creator = -1;
    for (std::size_t k = 0; k < t.real; ++k) {
      next[index(t.events[k].agent)] = t.events[k].agent_event + 1;
      if (t.events[k].agent == AgentId{0} && creator < 0) creator = static_cast<std::int32_t>(k);
    }
    t.events.resize(t.real);
    t.created_by.resize(t.real);
    auto add = [&](std::uint32_t a) {
      EventInfo e = event(a, next[a]);
      std::int32_t by = -1;
      if (a == 4 && next[a] == 0) {
        by = creator;
        e.has_creator = true;
        e.creator_agent = AgentId{0};
        e.creator_event = t.events[static_cast<std::size_t>(creator)].agent_event;
      }
      t.events.push_back(e);
      t.created_by.push_back(by);
    };
    for (std::size_t c = 0; c < count; ++c) {
      std::uint32_t a = pick(creator < 0 ? kAgents - 1 : kAgents);
      if (c == 0 && a == avoid_first) a = (a + 1) % (kAgents - 1);
      add(a);
      ++next[a];
      if (a == 0 && creator < 0) creator = static_cast<std::int32_t>(t.events.size() - 1);
    }
    t.real = t.events.size();
    t.declared.clear();
    t.declared_from = 0;
    for (const auto& e : t.events) t.declared.push_back(e.footprint);
    t.enabled.clear();
    t.enabled_at.assign(t.real + 1, FinishedTrace::kAllEnabled);
    if (!pending) return;
    for (std::uint32_t a = 0; a + 1 < kAgents; ++a)
      if (pick(3) == 0) {
        t.events.push_back(event(a, next[a]));
        t.created_by.push_back(-1);
      }
  }
};

std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs(const std::vector<Race>& races) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (const Race& r : races) out.emplace_back(r.i, r.j);
  return out;
}

}  // namespace

TEST_CASE("RaceFinder::analyse agrees with compute_clocks and find_races from scratch", "[dpor]") {
  Builder b{std::mt19937(17)};
  int reused = 0;
  for (int round = 0; round < 400; ++round) {
    // u, analysed first, shares t's first `same` events.
    FinishedTrace t;
    b.extend(t, 1 + b.pick(20), b.pick(2) == 0, kAgents);
    const std::size_t same = b.pick(static_cast<std::uint32_t>(t.real) + 1);
    FinishedTrace u;
    u.events.assign(t.events.begin(), t.events.begin() + static_cast<std::ptrdiff_t>(same));
    u.created_by.assign(t.created_by.begin(), t.created_by.begin() + static_cast<std::ptrdiff_t>(same));
    u.real = same;
    const std::uint32_t diverge = same < t.real ? index(t.events[same].agent) : kAgents;
    b.extend(u, b.pick(12), b.pick(2) == 0, diverge);
    const std::size_t from = b.pick(static_cast<std::uint32_t>(t.real) + 1);
    const std::size_t to = from + b.pick(static_cast<std::uint32_t>(t.real - from) + 1);
    const bool pending = b.pick(2) == 0;
    INFO("round " << round << ": " << t.real << " events, " << t.events.size() - t.real
                  << " pending, " << same << " shared, races of [" << from << ", " << to << ")");

    FinishedTrace plain = t;
    RaceFinder scratch;
    scratch.compute_clocks(plain);
    std::vector<Race> expected;
    scratch.find_races(plain, from, to, pending, expected);

    const std::size_t width = kAgents + b.pick(3);
    RaceFinder reuse;
    reuse.compute_clocks(u, nullptr, 0, width);
    FinishedTrace fused = t;
    std::vector<Race> got;
    reuse.analyse(fused, &u, same, width, from, to, pending, got);
    reused += same > 0;

    REQUIRE(fused.stride == width);
    REQUIRE(fused.prev_pos == plain.prev_pos);
    for (std::size_t k = 0; k < t.events.size(); ++k)
      for (std::size_t i = 0; i < std::min(k + 1, t.real); ++i)
        REQUIRE(fused.happens_before(i, k) == plain.happens_before(i, k));
    REQUIRE(pairs(got) == pairs(expected));
    // The index it kept is t's: races found again from it agree too.
    std::vector<Race> again;
    reuse.find_races(fused, from, to, pending, again);
    REQUIRE(pairs(again) == pairs(expected));
  }
  CHECK(reused > 300);
}
