// The Mosaic GPU interpret race-test conformance suite: every test of seed
// 004 with every parameter combination, as one table of cases walked by one
// test. Expected verdicts come from the reference table
// (shared/reference/mosaic-gpu-interpret.md), including the two cases JAX
// skips for lack of a gmem commit clock, which heddle must report as races.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "test/support/harness.hpp"

using namespace heddle;

namespace {

struct Case {
  std::string kernel;
  std::map<std::string, std::string> params;
  Verdict expect;
};

std::string b(bool v) { return v ? "true" : "false"; }

// Calls f with every assignment of n flags.
void for_flags(int n, const std::function<void(const std::vector<bool>&)>& f) {
  for (int m = 0; m < (1 << n); ++m) {
    std::vector<bool> v(n);
    for (int i = 0; i < n; ++i) v[i] = (m >> i) & 1;
    f(v);
  }
}

Verdict race_unless(bool correct) { return correct ? Verdict::ok : Verdict::race; }

std::vector<Case> table() {
  std::vector<Case> t;
  const std::string m = "mosaic/";
  for (bool w : {true, false})  // JAX skips w=false; heddle must find the race
    t.push_back({m + "async_gmem_ops_not_visible_unless_synchronized", {{"wait_barrier", b(w)}},
                 race_unless(w)});
  for_flags(4, [&](const std::vector<bool>& f) {
    t.push_back({m + "single_thread_later_gmem_to_smem_copy",
                 {{"a", b(f[0])}, {"b", b(f[1])}, {"c", b(f[2])}, {"d", b(f[3])}},
                 race_unless(f[1])});
  });
  for (bool w : {false, true})
    t.push_back({m + "single_thread_earlier_gmem_to_smem_copy", {{"wait_barrier", b(w)}},
                 race_unless(w)});
  for (const char* form : {"warp", "thread"}) {
    for_flags(6, [&](const std::vector<bool>& f) {
      std::map<std::string, std::string> p{{"form", form}};
      for (int i = 0; i < 6; ++i) p[std::string(1, char('a' + i))] = b(f[i]);
      t.push_back({m + "multi_thread_gmem_to_smem_copy", p, race_unless(f[1])});
      t.push_back({m + "cross_thread_gmem_to_smem_copy", p, race_unless(f[1] || f[3])});
    });
  }
  for_flags(3, [&](const std::vector<bool>& f) {
    t.push_back({m + "single_thread_smem_to_gmem_copy",
                 {{"a", b(f[0])}, {"b", b(f[1])}, {"c", b(f[2])}}, race_unless(f[1])});
  });
  t.push_back({m + "non_fully_waited_smem_to_gmem_copy", {}, Verdict::race});
  t.push_back({m + "allows_rewaiting_smem_to_gmem_copies", {}, Verdict::ok});
  for (bool once : {false, true})
    for (int loc = 0; loc < 4; ++loc)  // (once, 1) is skipped by JAX: a race for heddle
      t.push_back({m + "smem_to_gmem_copy_waits_read_only",
                   {{"wait_only_once", b(once)}, {"check_location", std::to_string(loc)}},
                   race_unless((once && loc == 0) || (!once && loc <= 1))});
  for (const char* form : {"warp", "thread"}) {
    for (bool r : {false, true})
      t.push_back({m + "wait_smem_to_gmem_isolated_per_thread",
                   {{"form", form}, {"check_read", b(r)}}, Verdict::race});
    t.push_back({m + "properly_waited_smem_to_gmem_visible_across_threads", {{"form", form}},
                 Verdict::ok});
    for (bool w : {false, true})
      t.push_back({m + "barrier_arrive_and_wait", {{"form", form}, {"wait", b(w)}},
                   race_unless(w)});
  }
  for (bool w : {false, true})
    t.push_back({m + "gmem_to_smem_visible_in_async_if_awaited", {{"do_wait", b(w)}},
                 race_unless(w)});
  t.push_back({m + "race_in_double_smem_to_gmem", {}, Verdict::race});
  t.push_back({m + "exception_in_unawaited_smem_to_gmem", {}, Verdict::async_error});
  t.push_back({m + "exception_in_unawaited_smem_to_gmem", {{"wait_read_only", "true"}},
               Verdict::ok});  // test_unawaited_smem_to_gmem_write_side_ok
  t.push_back({m + "race_in_async_copy_smem_to_gmem_in_cluster", {}, Verdict::race});
  t.push_back({m + "no_race_in_async_copy_gmem_to_smem_in_cluster", {}, Verdict::ok});
  t.push_back({m + "race_in_sync_copy_smem_to_gmem_in_cluster", {}, Verdict::race});
  t.push_back({m + "no_race_in_sync_copy_gmem_to_smem_in_cluster", {}, Verdict::ok});
  t.push_back({m + "no_race_in_smem_across_clusters", {}, Verdict::ok});
  return t;
}

std::string show(const Case& c) {
  std::vector<std::string> kv;
  for (auto& [k, v] : c.params) kv.push_back(k + "=" + v);
  return fmt::format("{} {}", c.kernel, fmt::join(kv, " "));
}

}  // namespace

TEST_CASE("Mosaic GPU interpret race tests: every case has the seed's verdict", "[gpu][mosaic]") {
  const auto cases = table();
  // 2+16+2+128+128+8+1+1+8+4+2+4+2+1+2+5 cases (hand count from the seed file).
  REQUIRE(cases.size() == 314);
  std::map<std::string, int> by_verdict;
  std::uint64_t executions = 0;
  int replayed = 0;
  for (const auto& c : cases) {
    INFO(show(c));
    RunResult r = test::run(c.kernel, c.params);
    CHECK(verdict_name(r.verdict) == std::string(verdict_name(c.expect)));
    if (c.expect == Verdict::ok) CHECK(r.exhaustive);
    if (c.expect == Verdict::async_error && r.bug)
      CHECK(r.bug->title.rfind("unfinished bulk store issued at", 0) == 0);
    ++by_verdict[verdict_name(r.verdict)];
    executions += r.stats.executions;
    if (!r.schedule) continue;
    RunResult again = test::replay(*r.schedule);  // replay round trip
    REQUIRE(again.bug);
    CHECK(report_to_json(*again.bug) == r.schedule->bug);
    ++replayed;
  }
  std::vector<std::string> counts;
  for (auto& [v, n] : by_verdict) counts.push_back(fmt::format("{} {}", n, v));
  WARN(fmt::format("mosaic conformance: {} cases ({}), {} executions, {} counterexamples "
                   "replayed",
                   cases.size(), fmt::join(counts, ", "), executions, replayed));
}
