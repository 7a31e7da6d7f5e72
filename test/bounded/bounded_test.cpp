// bounded against brute force: with bound K = 0, 1, 2 it reaches exactly the
// final states and verdicts that dfs reaches in executions with at most K
// preemptions (counted from the enabled sets by test/bounded/counted.hpp),
// and auto finds a bug with the fewest preemptions any dfs execution needs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>

#include "checker/explore/cex/minimize.hpp"
#include "test/bounded/counted.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using test::bounded_config;
using test::counted_run;
using test::CountedRun;

namespace {
using Args = std::map<std::string, std::string>;

CountedRun brute_force(const std::string& kernel, const Args& params) {
  RunConfig dfs;
  dfs.strategy = "dfs";
  dfs.stop_at_first_bug = false;
  dfs.minimize = false;
  return counted_run(kernel, params, dfs);
}

bool subset(const std::set<std::string>& a, const std::set<std::string>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

// What bounded must reach of `states`/`verdicts` (dfs within the bound).
// Scheduling only at visible operations is complete for race-free runs; once
// a data race is possible, the guarantee is that a race is reported (Stoller
// and Cohen, TACAS 2003; the dpor strategy has the same contract): a run
// that ends at the race hides what the racing thread would do next.
void check_reached(const CountedRun& run, const std::set<std::string>& states,
                   const std::set<std::string>& verdicts) {
  if (verdicts.count("race") == 0) {
    CHECK(run.states() == states);
    CHECK(run.verdicts() == verdicts);
    return;
  }
  CHECK(run.verdicts().count("race") == 1);
  CHECK(subset(run.states(), states));
  CHECK(subset(run.verdicts(), verdicts));
}

// bounded with K = 0, 1, 2 against `all` (dfs) filtered to <= K preemptions.
void check_bounds(const std::string& kernel, const Args& params, const CountedRun& all) {
  REQUIRE(all.result.exhaustive);
  for (std::uint32_t k = 0; k <= 2; ++k) {
    INFO("bound " << k);
    RunConfig c = bounded_config(k);
    c.stop_at_first_bug = false;
    auto run = counted_run(kernel, params, c);
    CHECK(run.max_preemptions() <= k);
    check_reached(run, all.states(k), all.verdicts(k));
    if (all.max_preemptions() <= k) CHECK(run.result.exhaustive);
    if (run.result.exhaustive)
      check_reached(run, all.states(), all.verdicts());
    else
      CHECK(run.result.stopped_by == "preemption-bound");
  }
}

// auto stops at the first bug with the fewest preemptions, or explores
// everything when there is no bug.
void check_auto(const std::string& kernel, const Args& params, const CountedRun& all) {
  auto run = counted_run(kernel, params, bounded_config(std::nullopt));
  REQUIRE(!run.executions.empty());
  if (all.min_bug_preemptions() == UINT32_MAX) {
    CHECK(!run.result.bug);
    CHECK(run.result.exhaustive);
    check_reached(run, all.states(), all.verdicts());
    return;
  }
  REQUIRE(run.result.bug);
  CHECK(run.executions.back().verdict != "ok");
  CHECK(run.executions.back().preemptions == all.min_bug_preemptions());
  // Every execution before it ran within the bound that found it.
  CHECK(run.max_preemptions() == all.min_bug_preemptions());
}

// 2-4 threads and about 3-9 visible operations (the dfs oracle grows fast).
Args random_model(int seed) {
  return {{"seed", std::to_string(seed)},
          {"threads", std::to_string(2 + seed % 3)},
          {"budget", std::to_string(3 + seed % 7)}};
}
}  // namespace

TEST_CASE("bounded reaches what dfs reaches within the bound, on named models", "[bounded]") {
  const std::vector<std::pair<std::string, Args>> models = {
      {"test/unsync_writers", {}},
      {"test/locked_writers", {{"n", "2"}, {"rounds", "2"}}},
      {"test/flag_message", {}},
      {"test/counting_semaphore", {{"n", "3"}, {"k", "2"}}},
      {"test/async_copy", {}},
      {"test/proxy_fence", {}},
      {"test/two_locks", {}},
      {"test/await_either", {}},
      {"test/asserter", {}},
      {"search/preempt_race", {}},
      {"search/chain_race", {}},
      {"search/async_race", {}},
      {"search/lock_order", {}},
      {"search/pct_depth2", {{"m", "1"}, {"decoys", "1"}}},
      {"bounded/choice", {{"choose", "1"}}},
      {"bounded/copy_and_flag", {}},
      {"bounded/early_landing", {}},
      {"classic/lastzero", {{"n", "3"}}},
      {"classic/readers", {{"n", "3"}}},
      {"classic/casrot", {{"n", "4"}}},
      {"classic/n_writers_a_reader", {{"n", "3"}}},
      {"classic/sigma", {{"n", "3"}}},
      {"classic/philosophers", {{"n", "3"}, {"order", "ring"}}},
      {"classic/philosophers", {{"n", "3"}, {"order", "ordered"}}},
  };
  for (const auto& [kernel, params] : models) {
    INFO(kernel);
    auto all = brute_force(kernel, params);
    check_bounds(kernel, params, all);
    check_auto(kernel, params, all);
  }
}

TEST_CASE("bounded reaches what dfs reaches within the bound, on random models", "[bounded]") {
  const int models = std::getenv("HEDDLE_LONG") != nullptr ? 10000 : 1000;
  int buggy = 0, cut = 0, racy = 0;
  for (int seed = 1; seed <= models; ++seed) {
    INFO("seed " << seed);
    auto params = random_model(seed);
    auto all = brute_force("test/random", params);
    check_bounds("test/random", params, all);
    check_auto("test/random", params, all);
    buggy += all.min_bug_preemptions() != UINT32_MAX;
    cut += all.max_preemptions() > 0;
    racy += all.verdicts().count("race") > 0;
  }
  WARN(models << " random models: " << buggy << " with a bug, " << racy << " with a race, "
              << cut << " with preemptions");
  // The models must exercise what is tested: bugs, and preemptions to cut.
  CHECK(buggy * 5 >= models);
  CHECK(cut * 2 >= models);
}

TEST_CASE("a bound that cuts nothing is exhaustive, one that cuts is not", "[bounded]") {
  auto all = brute_force("search/preempt_race", {});
  REQUIRE(all.min_bug_preemptions() == 1);
  RunConfig c = bounded_config(0);
  auto zero = test::run("search/preempt_race", {}, c);
  CHECK(!zero.bug);
  CHECK(!zero.exhaustive);
  CHECK(zero.stopped_by == "preemption-bound");
  REQUIRE(!zero.notes.empty());
  CHECK(zero.notes.back().find("at most 0 preemptions") != std::string::npos);
  CHECK(summary_line(zero).find("verified") == std::string::npos);

  auto lots = test::run("classic/readers", {{"n", "2"}}, bounded_config(10));
  CHECK(lots.exhaustive);
  CHECK(summary_line(lots).find("verified") != std::string::npos);
}

TEST_CASE("bounded auto reports its bug with the fewest preemptions", "[bounded]") {
  RunConfig c = bounded_config(std::nullopt);
  c.minimize = true;
  auto r = test::run("search/lock_order", {}, c);
  REQUIRE(r.bug);
  CHECK(r.verdict == Verdict::deadlock);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->original_preemptions == 1);
  CHECK(r.counterexample->preemptions == 1);
  REQUIRE(!r.notes.empty());
  CHECK(r.notes.back().find("at most 0 preemptions; found with bound 1 (auto)") !=
        std::string::npos);
  auto again = test::replay(*r.schedule);
  REQUIRE(again.bug);
  CHECK(again.bug->title == r.bug->title);
}

// Async steps are transparent to the preemption count (checker/DESIGN.md § Exploration: completing
// an async phase is not a preemption). Counts written by hand from the
// schedules: only a T0 <-> T1 switch with the other thread still enabled counts.
TEST_CASE("an async phase completing neither counts nor breaks a thread's run", "[bounded]") {
  const Kernel& k = find_kernel("bounded/copy_and_flag");
  const Params p = k.resolve({});
  auto step = [](const char* agent, const char* op) { return ScheduleStep{agent, op, ""}; };
  // T0 issues the copy (not a step) and stores, the copy lands, T0 stores
  // again, T1 loads twice: no switch away from an enabled thread.
  const std::vector<ScheduleStep> inside = {
      step("T0", "store(flag)"), step("copy", "land(dst)"),      step("T0", "store(flag)"),
      step("T1", "load(flag)"),  step("T1", "load(done)")};
  CHECK(count_preemptions(k, p, inside) == 0);
  // The copy lands after T0's first store and T1 runs next: T0 is still
  // enabled when T1 is picked, so that switch preempts T0 once; T0's last
  // store comes after T1 has finished, which is free.
  const std::vector<ScheduleStep> across = {
      step("T0", "store(flag)"), step("copy", "land(dst)"), step("T1", "load(flag)"),
      step("T1", "load(done)"),  step("T0", "store(flag)")};
  CHECK(count_preemptions(k, p, across) == 1);

  RunConfig c = bounded_config(std::nullopt);
  auto r = test::run("bounded/early_landing", {}, c);
  REQUIRE(r.bug);
  CHECK(r.verdict == Verdict::assertion);
  REQUIRE(!r.notes.empty());
  CHECK(r.notes.back().find("found with bound 0") != std::string::npos);
}

namespace {
/// bounded against dfs within each bound and under auto, on random models
/// 1..N of generator `mix` (N = `normal`, HEDDLE_LONG=1: 10 times that).
void bounded_agrees_on_mix(const char* mix, int normal = 300) {
  const int models = std::getenv("HEDDLE_LONG") != nullptr ? 10 * normal : normal;
  for (int seed = 1; seed <= models; ++seed) {
    INFO("seed " << seed << " mix " << mix);
    auto params = random_model(seed);
    params["mix"] = mix;
    auto all = brute_force("test/random", params);
    check_bounds("test/random", params, all);
    check_auto("test/random", params, all);
  }
}
}  // namespace

TEST_CASE("bounded reaches what dfs reaches within the bound, with awaits and spawned children",
          "[bounded]") {
  // mix=1: awaits several writers can release, and threads spawning children.
  bounded_agrees_on_mix("1");
}

TEST_CASE("bounded reaches what dfs reaches within the bound, on random mix=2 models",
          "[bounded]") {
  // mix=2: try_lock, signal(2), wait pairs, overlapping buffer ranges,
  // two-phase copies, grandchildren, proxy fences, counter awaits, CAS loops,
  // async signals.
  bounded_agrees_on_mix("2");
}

TEST_CASE("bounded reaches what dfs reaches within the bound, on random mix=3 models",
          "[bounded]") {
  // mix=3: commutative updates (counter adds, semaphore signals, mbarrier
  // arrivals and tx, named-barrier arrivals) and the reads that order them.
  bounded_agrees_on_mix("3", 500);
}
