// random and pct: seeded reproducibility, replayable bugs, PCT's probability
// bound on a depth-2 bug; the step-limit report for spin loops.
#include <catch2/catch.hpp>
#include <cmath>

#include "checker/explore/cex/minimize.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {

// Every execution's schedule, in order, for one run.
std::vector<std::vector<ScheduleStep>> all_schedules(const std::string& kernel,
                                                     const std::map<std::string, std::string>& p,
                                                     RunConfig c) {
  const Kernel& k = find_kernel(kernel);
  c.stop_at_first_bug = false;
  c.minimize = false;
  std::vector<std::vector<ScheduleStep>> out;
  explore(k, k.resolve(p), c,
          [&](const ExecutionRecord& ex, Ending) { out.push_back(schedule_steps(ex)); });
  return out;
}

RunConfig seeded(const std::string& strategy, std::uint64_t seed, std::uint64_t executions) {
  RunConfig c;
  c.strategy = strategy;
  c.seed = seed;
  c.max_executions = executions;
  return c;
}

}  // namespace

TEST_CASE("random and pct with a fixed seed repeat the same schedules", "[search]") {
  for (const char* strategy : {"random", "pct"}) {
    INFO(strategy);
    auto a = all_schedules("search/pct_depth2", {}, seeded(strategy, 11, 40));
    auto b = all_schedules("search/pct_depth2", {}, seeded(strategy, 11, 40));
    auto other = all_schedules("search/pct_depth2", {}, seeded(strategy, 12, 40));
    REQUIRE(a.size() == 40);
    CHECK(a == b);
    CHECK(a != other);
  }
}

TEST_CASE("random and pct bug schedules replay to the identical report", "[search]") {
  for (const char* strategy : {"random", "pct"}) {
    for (bool minimize : {false, true}) {
      INFO(strategy << " minimize=" << minimize);
      RunConfig c = seeded(strategy, 3, 5000);
      c.minimize = minimize;
      auto r = test::run("search/preempt_race", {}, c);
      REQUIRE(r.verdict == Verdict::race);
      REQUIRE(r.schedule);
      CHECK(r.schedule->seed == std::optional<std::uint64_t>(3));
      CHECK(r.schedule->strategy == strategy);
      auto again = test::replay(*r.schedule);
      REQUIRE(again.bug);
      CHECK(report_to_json(*again.bug) == r.schedule->bug);
      CHECK(report_to_json(*again.bug) == report_to_json(*r.bug));
    }
  }
}

TEST_CASE("without --max-executions, random stops at its default and says so", "[search]") {
  RunConfig c;
  c.strategy = "random";
  auto r = test::run("test/locked_writers", {{"n", "2"}}, c);
  CHECK(r.verdict == Verdict::ok);
  CHECK_FALSE(r.exhaustive);
  CHECK(r.stopped_by == "max-executions");
  CHECK(r.stats.executions == 1000);
  REQUIRE(r.seed);
  bool said = false;
  for (auto& n : r.notes) said |= n.find("stops after 1000 executions") != std::string::npos;
  CHECK(said);
}

TEST_CASE("PCT finds a depth-2 bug within its probability bound where dfs does not", "[search]") {
  // Threads: T0 (2m+2 steps), T1 (m+1), 3 decoys (m each): n = 5, k = 5m+3.
  const long m = 4;
  const double n = 5, k = 5 * m + 3;
  RunConfig dfs;
  dfs.strategy = "dfs";
  dfs.max_executions = 2000;
  CHECK(test::run("search/pct_depth2", {}, dfs).verdict == Verdict::ok);
  // Burckhardt et al. (ASPLOS'10, Thm 1): each execution finds a depth-d bug
  // with probability >= 1/(n k^(d-1)). The first execution of a run only
  // measures k, so it is not counted.
  const std::uint64_t seeds = 200, per_seed = 20;
  std::uint64_t hits = 0;
  for (std::uint64_t s = 0; s < seeds; ++s) {
    RunConfig c = seeded("pct", 1000 + s, per_seed);
    c.pct_depth = 2;
    c.stop_at_first_bug = false;
    c.minimize = false;
    hits += test::run("search/pct_depth2", {}, c).stats.buggy;
  }
  double rate = static_cast<double>(hits) / static_cast<double>(seeds * (per_seed - 1));
  double bound = 1.0 / (n * std::pow(k, 1.0));
  INFO("hit rate " << rate << " bound " << bound << " hits " << hits);
  CHECK(rate >= bound);
}

TEST_CASE("a plain spin loop hits the step limit naming its line and heddle::await", "[search]") {
  RunConfig c;
  c.max_steps = 200;
  auto r = test::run("search/spin", {}, c);
  REQUIRE(r.verdict == Verdict::livelock);
  std::string text = format_report(*r.bug);
  INFO(text);
  CHECK(text.find(test::source_line("test/search/models.cpp", "// spin loop")) != std::string::npos);
  CHECK(text.find("a spin loop at " + test::source_line("test/search/models.cpp", "// spin loop") +
                  "? block on heddle::await") != std::string::npos);
}

TEST_CASE("heddle run prints the seed and stores it; the schedule replays", "[search]") {
  std::string dir = test::temp_dir();
  // Test-only models are not in the heddle binary: the demo kernel races at
  // step 0 (the workers have no visible operation), so its schedule is empty.
  auto r = test::cli("run demo/lost_update --strategy pct --seed 5 --out " + dir +
                     "/cex.json --summary-json " + dir + "/sum.json");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("seed: 5") != std::string::npos);
  CHECK(r.out.find("counterexample: 0 steps, 0 preemptions (minimized from 0 steps") !=
        std::string::npos);
  auto sum = nlohmann::json::parse(test::slurp(dir + "/sum.json"));
  CHECK(sum["seed"] == 5);
  CHECK(sum["counterexample"]["preemptions"] == 0);
  CHECK(sum["counterexample"]["minimized"] == true);
  auto s = load_schedule(dir + "/cex.json");
  CHECK(s.seed == std::optional<std::uint64_t>(5));
  auto again = test::cli("replay " + dir + "/cex.json");
  CHECK(again.code == 1);
  CHECK(again.err.find("warning") == std::string::npos);
  auto unseeded = test::cli("run demo/lost_update --param locked=true --strategy random");
  CHECK(unseeded.code == 0);
  CHECK(unseeded.out.find("chosen from the clock") != std::string::npos);
  CHECK(unseeded.out.find("not exhaustive") != std::string::npos);
}
