// dpor (POP) keeps no unexplored schedule: its exploration state (the stack of
// finished executions with their slots and races) is bounded by a
// polynomial in the execution length, whatever the number of executions.
// lastzero(11) has 10.2 times the executions of lastzero(8) (7,168 and 704)
// but executions only 1.36 times as long (34 and 25 steps).
#include <catch2/catch.hpp>

#include <cmath>

#include "test/support/harness.hpp"

using namespace heddle;

namespace {
RunResult run_lastzero(int n, const char* strategy) {
  RunConfig config;
  config.strategy = strategy;
  config.stop_at_first_bug = false;
  return test::run("classic/lastzero", {{"n", std::to_string(n)}}, config);
}
}  // namespace

TEST_CASE("dpor's state grows with the execution length, not with the executions", "[dpor]") {
  auto small = run_lastzero(8, "dpor");
  auto large = run_lastzero(11, "dpor");
  REQUIRE(small.exhaustive);
  REQUIRE(large.exhaustive);
  REQUIRE(small.stats.executions == 704);   // (N+3)·2^(N−2), dpor-benchmarks.md
  REQUIRE(large.stats.executions == 7168);
  REQUIRE(small.stats.peak_state_bytes > 0);
  const double executions = double(large.stats.executions) / double(small.stats.executions);
  const double length = double(large.stats.max_depth) / double(small.stats.max_depth);
  // Frames (at most one per nested reversal, so O(length)) times a frame's
  // trace and race list (O(length · agents) and O(length²)): a polynomial
  // of degree 3 in the length, agents growing like the length here.
  const double bound = std::pow(length, 3);
  REQUIRE(bound * 2 < executions);  // the bound tells the two apart
  INFO("peak state " << small.stats.peak_state_bytes << " -> " << large.stats.peak_state_bytes
                     << " bytes; length x" << length << ", executions x" << executions);
  CHECK(double(large.stats.peak_state_bytes) <= bound * double(small.stats.peak_state_bytes));
}
