// DPOR and the steps a wait needs (dpor::needs_step): a barrier wait is
// not moved before an arrival or the bytes its phase needs, a wgmma wait
// not before the mma it waits for, and nothing is lost for it when spare
// arrivals can fill a phase instead (test/barrier_rounds,
// test/mbarrier_handoff, cutlass/wgmma_mainloop).
#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "test/support/harness.hpp"

using namespace heddle;

namespace {
std::map<std::string, std::string> rounds_model(int threads, int count, int rounds, int data,
                                                int arrivers) {
  return {{"threads", std::to_string(threads)}, {"count", std::to_string(count)},
          {"rounds", std::to_string(rounds)},   {"data", std::to_string(data)},
          {"arrivers", std::to_string(arrivers)}};
}

/// Explores `kernel` with dfs and with `strategy`: the same final states and
/// verdicts, no more executions, and none given up or sleep-blocked.
void agrees_without_waste(const std::string& kernel,
                          const std::map<std::string, std::string>& params,
                          const std::string& strategy) {
  auto want = test::outcomes(kernel, params, test::with_strategy("dfs"));
  auto got = test::outcomes(kernel, params, test::with_strategy(strategy));
  REQUIRE(got.result.exhaustive);
  CHECK(got.final_states == want.final_states);
  CHECK(got.verdicts == want.verdicts);
  CHECK(got.result.stats.executions <= want.result.stats.executions);
  CHECK(got.result.stats.abandoned == 0);
  CHECK(got.result.stats.sleep_blocked == 0);
}

/// Explores `kernel` (one trace) with `strategy`: one execution, nothing given up.
void one_trace_without_waste(const std::string& kernel,
                             const std::map<std::string, std::string>& params,
                             const std::string& strategy) {
  RunResult r = test::run(kernel, params, test::with_strategy(strategy));
  INFO(strategy);
  REQUIRE(r.exhaustive);
  CHECK(r.stats.executions == 1);
  CHECK(r.stats.abandoned == 0);
  CHECK(r.stats.sleep_blocked == 0);
}
}  // namespace

TEST_CASE("dpor does not move a bar.sync wait before an arrival of its phase", "[dpor]") {
  // 4 threads, 4 rounds of bar.sync(4), nothing else: one trace. Each wait
  // races with the three other arrivals of its phase, and every such
  // reversal needs the phase complete without one of its arrivals.
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  one_trace_without_waste("test/barrier_rounds", rounds_model(4, 4, 4, 0, 0), strategy);
}

TEST_CASE("dpor and optimal agree with dfs on bar.sync rounds with spare arrivals", "[dpor]") {
  // Spare arrivals (an arriver, or more syncing threads than the count) can
  // fill a phase in place of an arrival the first execution had there: the
  // wait then runs before that arrival, reached through the arrivals' own
  // race. {threads, count, rounds, arrivers}: exact, over-subscribed and
  // never-completed phases (deadlocks), at sizes dfs covers in seconds;
  // HEDDLE_LONG=1 adds four of 0.6 to 23 million dfs executions.
  std::vector<std::array<int, 4>> configs{{2, 2, 1, 1}, {2, 2, 2, 0}, {2, 3, 1, 1}, {2, 3, 2, 1},
                                          {3, 2, 1, 0}, {3, 3, 1, 0}, {1, 2, 2, 1}, {1, 3, 1, 2}};
  if (std::getenv("HEDDLE_LONG") != nullptr)
    configs.insert(configs.end(), {{2, 2, 1, 2}, {2, 2, 2, 1}, {3, 2, 1, 1}, {3, 3, 1, 1}});
  for (const auto& k : configs) {
    auto params = rounds_model(k[0], k[1], k[2], 1, k[3]);
    auto want = test::outcomes("test/barrier_rounds", params, test::with_strategy("dfs"));
    REQUIRE(want.result.exhaustive);
    for (const char* s : {"dpor", "optimal"}) {
      auto got = test::outcomes("test/barrier_rounds", params, test::with_strategy(s));
      INFO(s << " threads=" << k[0] << " count=" << k[1] << " rounds=" << k[2]
             << " arrivers=" << k[3] << ": dfs " << want.result.stats.executions);
      REQUIRE(got.result.exhaustive);
      CHECK(got.final_states == want.final_states);
      CHECK(got.verdicts == want.verdicts);
      CHECK(got.result.stats.executions <= want.result.stats.executions);
    }
  }
}

TEST_CASE("dpor does not move an mbarrier wait before the arrival or bytes of its phase",
          "[dpor]") {
  // A consumer whose try_wait failed waits; its wait races with each of the
  // two copies' complete_tx, which commute. Passing once phase 0 completed,
  // the wait cannot run before either: nothing else brings the phase's
  // bytes to zero. Spare arrivers fill the barrier's count, not the bytes;
  // with them the consumers' loads of y race with the stores.
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  for (int arrivers = 0; arrivers <= 1; ++arrivers) {
    INFO(strategy << " arrivers=" << arrivers);
    agrees_without_waste("test/mbarrier_handoff",
                         {{"consumers", "2"}, {"arrivers", std::to_string(arrivers)}}, strategy);
  }
}

TEST_CASE("dpor does not move a wgmma wait or mma before the mma it needs done", "[dpor]") {
  // wgmma.wait_group needs its mmas done, and each mma of a warpgroup runs
  // once the previous one is done: only that mma's one completing step
  // writes its done side, so no reversal may move the wait (or the next
  // mma) before it. Two k-tiles, the correct kernel and a too-shallow wait.
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  for (const char* variant : {"correct", "wait_depth"}) {
    INFO(strategy << " " << variant);
    agrees_without_waste("cutlass/wgmma_mainloop", {{"k_tiles", "2"}, {"variant", variant}},
                         strategy);
  }
}

TEST_CASE("dpor does not move an mbarrier wait before an arrival made with a copy's issue",
          "[dpor]") {
  // pipeline_tma_async's producer arrives with expect_tx and issues the
  // stage's TMA load in one step, which writes every phase of full[s]; the
  // step still lists its arrival, so no consumer's wait is moved before it.
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  one_trace_without_waste("cutlass/pipeline_tma_async",
                          {{"consumers", "2"}, {"k_tiles", "8"}, {"stages", "4"}}, strategy);
}

TEST_CASE("dpor gives up no schedule on the fixed 128x256 CUTLASS epilogue", "[dpor]") {
  // One trace. Its waits: bar.sync (needs every arrival of its phase) and
  // wait_group.read (needs each TMA store's one read phase). Before these
  // were known, 580 reversals moved such a wait before what it needs.
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  one_trace_without_waste("cutlass/grouped_gemm_epilogue",
                          {{"fixed", "true"}, {"groups", "2"}, {"others", "3"}, {"stages", "4"},
                           {"subtiles", "8"}, {"tiles", "2"}},
                          strategy);
}
