// Vector clocks against a plain reference: join, join_both and copies, on
// clocks inline (up to VectorClock::kInline agents) and on the heap.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "checker/engine/clock.hpp"
#include "checker/engine/sync.hpp"

using namespace heddle;

namespace {
/// A clock with `n` random entries (some zero), and the same entries as a vector.
VectorClock random_clock(std::mt19937& rng, std::size_t n, std::vector<std::uint32_t>& plain) {
  VectorClock c;
  plain.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t t = rng() % 3 == 0 ? 0 : rng() % 50;
    plain[i] = t;
    if (t != 0) c.set(AgentId{static_cast<std::uint32_t>(i)}, t);
  }
  return c;
}

/// Every entry of `c` below `width` equals `plain`'s (zero beyond it).
bool same(const VectorClock& c, const std::vector<std::uint32_t>& plain, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i)
    if (c[AgentId{static_cast<std::uint32_t>(i)}] != (i < plain.size() ? plain[i] : 0)) return false;
  return true;
}
}  // namespace

TEST_CASE("join and join_both give the pointwise maximum, inline and on the heap", "[engine]") {
  std::mt19937 rng(7);
  constexpr std::size_t kWidest = 2 * VectorClock::kInline + 5;
  for (int round = 0; round < 2000; ++round) {
    const std::size_t na = rng() % kWidest, nb = rng() % kWidest;
    INFO("round " << round << ": " << na << " and " << nb << " entries");
    std::vector<std::uint32_t> pa, pb;
    VectorClock a = random_clock(rng, na, pa), b = random_clock(rng, nb, pb);
    std::vector<std::uint32_t> max(std::max(na, nb), 0);
    for (std::size_t i = 0; i < max.size(); ++i)
      max[i] = std::max(i < na ? pa[i] : 0, i < nb ? pb[i] : 0);

    VectorClock joined = a;
    joined.join(b);
    CHECK(same(joined, max, kWidest));
    CHECK(same(b, pb, kWidest));  // join leaves its argument alone

    VectorClock both_a = a, both_b = b;
    both_a.join_both(both_b);
    CHECK(same(both_a, max, kWidest));
    CHECK(same(both_b, max, kWidest));
    CHECK(both_a == both_b);
    // Ticking one side afterwards leaves the other as it was (no shared storage).
    both_a.tick(AgentId{0});
    CHECK(same(both_b, max, kWidest));
  }
}

TEST_CASE("tick adds one to an agent's entry, inline and on the heap", "[engine]") {
  std::mt19937 rng(11);
  constexpr std::size_t kWidest = 2 * VectorClock::kInline + 5;
  for (int round = 0; round < 2000; ++round) {
    const std::size_t n = rng() % kWidest;
    std::vector<std::uint32_t> plain;
    VectorClock c = random_clock(rng, n, plain);
    const auto agent = static_cast<std::uint32_t>(rng() % kWidest);  // also beyond the size
    INFO("round " << round << ": " << n << " entries, tick of agent " << agent);
    VectorClock before = c;
    c.tick(AgentId{agent});
    plain.resize(std::max<std::size_t>(plain.size(), agent + 1), 0);
    ++plain[agent];
    CHECK(same(c, plain, kWidest));
    CHECK(c.size() >= agent + 1);
    CHECK((before <=> c) == std::partial_ordering::less);
  }
}

TEST_CASE("commit clocks: made on first use, copied apart, stale storage cleared", "[engine]") {
  VectorClock c;
  c.set(AgentId{2}, 5);
  CommitClocks unused;
  CHECK(std::as_const(unused)[Proxy::async].size() == 0);  // read without use: empty
  CommitClocks a;
  a[Proxy::async] = c;
  a.released_to(Proxy::tensormap) = c;
  CommitClocks copy = a;
  copy[Proxy::async].tick(AgentId{2});
  CHECK(a[Proxy::async][AgentId{2}] == 5);  // the copy has clocks of its own
  CHECK(copy[Proxy::async][AgentId{2}] == 6);
  CHECK(std::as_const(copy)[Proxy::tensormap].size() == 0);
  // A joined clock takes the other's entries; an unused one adds nothing.
  CommitClocks j;
  j.join(unused);
  CHECK(std::as_const(j)[Proxy::async].size() == 0);
  j.join(a);
  CHECK(j[Proxy::async][AgentId{2}] == 5);
  CHECK(j.released_to(Proxy::tensormap)[AgentId{2}] == 5);
  // Assigning an unused one empties it; its storage, used again, starts empty.
  copy = unused;
  CHECK(std::as_const(copy)[Proxy::async].size() == 0);
  CHECK(copy.released_to(Proxy::async).size() == 0);
  CHECK(copy[Proxy::async].size() == 0);  // not the stale 6
  // Moves leave the source unused.
  CommitClocks moved = std::move(a);
  CHECK(moved[Proxy::async][AgentId{2}] == 5);
}
