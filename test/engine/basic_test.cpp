// The engine on small generic models: races, locks, async copies.
#include <catch2/catch.hpp>

#include "test/support/harness.hpp"

using namespace heddle;
using heddle::test::run;

TEST_CASE("two unsynchronized writers race, with both source lines") {
  auto r = run("test/unsync_writers");
  REQUIRE(r.verdict == Verdict::race);
  REQUIRE(r.bug->accesses.size() == 2);
  CHECK(r.bug->accesses[0].agent == "T0");
  CHECK(r.bug->accesses[0].at == test::source_line("test/models/basic.cpp", "// first write"));
  CHECK(r.bug->accesses[1].agent == "T1");
  CHECK(r.bug->accesses[1].at == test::source_line("test/models/basic.cpp", "// second write"));
  CHECK(r.bug->accesses[0].write);
  CHECK(r.bug->accesses[1].write);
}

TEST_CASE("writers under a mutex: no race, exhaustive, hand-counted executions") {
  // Each execution is an order of the n*r critical sections in which each
  // thread's own sections keep their order: (n*r)! / (r!)^n.
  struct Case { long n, rounds; std::uint64_t expected; };
  for (auto c : {Case{1, 1, 1}, Case{2, 1, 2}, Case{3, 1, 6}, Case{2, 2, 6}, Case{3, 2, 90},
                 Case{2, 3, 20}}) {
    auto r = run("test/locked_writers",
                 {{"n", std::to_string(c.n)}, {"rounds", std::to_string(c.rounds)}});
    INFO("n=" << c.n << " rounds=" << c.rounds);
    CHECK(r.verdict == Verdict::ok);
    CHECK(r.exhaustive);
    CHECK(r.stats.executions == c.expected);
  }
}

TEST_CASE("release/acquire flag orders the data; relaxed does not") {
  // With 20 idle threads first, the two agents' clocks are on the heap:
  // the clock effects' out-of-line path (Execution::plain_clocks).
  for (const char* idle : {"0", "20"}) {
    INFO(idle << " idle threads");
    CHECK(run("test/flag_message", {{"order", "release"}, {"idle", idle}}).verdict == Verdict::ok);
    CHECK(run("test/flag_message", {{"order", "rmw"}, {"idle", idle}}).verdict == Verdict::ok);
    CHECK(run("test/flag_message", {{"order", "relaxed"}, {"idle", idle}}).verdict == Verdict::race);
    CHECK(run("test/flag_message", {{"order", "rmw_relaxed"}, {"idle", idle}}).verdict ==
          Verdict::race);
  }
}

TEST_CASE("an acq_rel RMW both publishes and reads; relaxed ones do neither") {
  CHECK(run("test/flag_message", {{"order", "rmw"}}).verdict == Verdict::ok);
  CHECK(run("test/flag_message", {{"order", "rmw_relaxed"}}).verdict == Verdict::race);
}

TEST_CASE("counting semaphore admits at most k workers") {
  auto one = run("test/counting_semaphore", {{"n", "3"}, {"k", "1"}});
  CHECK(one.verdict == Verdict::ok);
  CHECK(one.exhaustive);
  CHECK(run("test/counting_semaphore", {{"n", "3"}, {"k", "2"}}).verdict == Verdict::ok);
}

TEST_CASE("async copy: reading before completion races, after the acquire does not") {
  auto racy = run("test/async_copy", {{"wait", "false"}});
  REQUIRE(racy.verdict == Verdict::race);
  CHECK(racy.bug->title == "data race on dst[0]");
  bool copy_side = false;
  for (const auto& a : racy.bug->accesses) copy_side |= a.agent == "T0.copy" && a.proxy == "async";
  CHECK(copy_side);
  auto ok = run("test/async_copy", {{"wait", "true"}});
  CHECK(ok.verdict == Verdict::ok);
  CHECK(ok.exhaustive);
}

TEST_CASE("a generic write reaches an async copy only through a proxy fence") {
  struct Case { const char* fence; Verdict expected; };
  for (auto c : {Case{"none", Verdict::race}, Case{"writer_before_barrier", Verdict::ok},
                 Case{"issuer_after_barrier", Verdict::ok},
                 Case{"writer_before_write", Verdict::race},
                 Case{"issuer_after_issue", Verdict::race}}) {
    INFO("fence=" << c.fence);
    auto r = run("test/proxy_fence", {{"fence", c.fence}});
    CHECK(r.verdict == c.expected);
    if (r.bug) {
      // The copy reads both elements the writer wrote: one race over the range.
      CHECK(r.bug->title == "data race on src[0:2]");
      CHECK(r.bug->accesses[1].proxy == "async");
      CHECK(r.bug->accesses[1].first == 0);
      CHECK(r.bug->accesses[1].last == 1);
    }
  }
}

TEST_CASE("visible primitives used in setup act as the host") {
  auto r = run("test/setup_releases");
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
}

TEST_CASE("each non-generic proxy is ordered by its own fence only") {
  CHECK(run("test/proxy_kinds", {{"fence", "tensormap"}}).verdict == Verdict::ok);
  CHECK(run("test/proxy_kinds", {{"fence", "all"}}).verdict == Verdict::ok);
  auto r = run("test/proxy_kinds", {{"fence", "async"}});
  REQUIRE(r.verdict == Verdict::race);
  CHECK(r.bug->accesses[1].proxy == "tensormap");
}
