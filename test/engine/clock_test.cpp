// Vector clocks against a plain reference: join, join_both and copies, on
// clocks inline (up to VectorClock::kInline agents) and on the heap.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "checker/engine/clock.hpp"

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
