// Minimal counterexamples, checked by brute force: no schedule with fewer
// preemptions shows the race, every step is needed, and replay round-trips.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "checker/engine/errors.hpp"
#include "checker/explore/minimize.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {

struct Model {
  std::string kernel;
  std::map<std::string, std::string> params;
};

// Every racy model of the suite small enough to brute-force.
const std::vector<Model> kRacy = {
    {"test/unsync_writers", {}},
    {"test/flag_message", {{"order", "relaxed"}}},
    {"test/async_copy", {{"wait", "false"}}},
    {"demo/lost_update", {{"locked", "false"}}},
    {"search/preempt_race", {}},
    {"search/chain_race", {}},
    {"search/async_race", {}},
};

// The fewest preemptions of any dfs execution that shows `bug`.
std::uint32_t brute_force_min(const Model& m, const BugReport& bug, std::uint64_t* seen) {
  const Kernel& k = find_kernel(m.kernel);
  Params p = k.resolve(m.params);
  RunConfig c;
  c.stop_at_first_bug = false;
  c.minimize = false;
  std::vector<std::vector<ScheduleStep>> buggy;
  auto r = explore(k, p, c, [&](const Execution& ex, Ending) {
    if (ex.bug() && same_bug(*ex.bug(), bug)) buggy.push_back(schedule_steps(ex));
  });
  REQUIRE(r.exhaustive);
  *seen = buggy.size();
  std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
  for (const auto& s : buggy) best = std::min(best, count_preemptions(k, p, s));
  return best;
}

// The schedule without its i-th scheduling step (and that step's data choices).
std::vector<ScheduleStep> without_step(const std::vector<ScheduleStep>& steps, std::size_t i) {
  std::vector<ScheduleStep> out;
  std::size_t n = 0;
  bool dropping = false;
  for (const auto& s : steps) {
    if (!s.is_choice()) dropping = n++ == i;
    if (!dropping) out.push_back(s);
  }
  return out;
}

// Replays `steps`; the bug, or nullopt when it diverges or shows none.
std::optional<BugReport> replay_bug(const Schedule& base, std::vector<ScheduleStep> steps) {
  Schedule s = base;
  s.steps = std::move(steps);
  try {
    return test::replay(s).bug;
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

}  // namespace

TEST_CASE("minimized races: fewest preemptions by brute force, every step needed",
          "[search][minimize]") {
  // Bugs found by dfs, and longer ones found by random and pct.
  std::vector<RunConfig> finders(4);
  finders[1].strategy = finders[2].strategy = "random";
  finders[3].strategy = "pct";
  finders[1].seed = 1;
  finders[2].seed = 2;
  finders[3].seed = 1;
  for (const auto& m : kRacy) {
    INFO(m.kernel);
    const Kernel& k = find_kernel(m.kernel);
    const Params params = k.resolve(m.params);
    std::optional<std::uint32_t> brute;
    for (const auto& finder : finders) {
      INFO("found by " << finder.strategy);
      auto r = test::run(m.kernel, m.params, finder);
      REQUIRE(r.verdict == Verdict::race);
      REQUIRE(r.counterexample);
      const Counterexample& cex = *r.counterexample;
      INFO("note: " << cex.note);
      CHECK(cex.minimized);
      // Fewest preemptions first, then fewest steps (a thread may run on to
      // its end to avoid a preemption, so the step count can grow).
      CHECK(cex.preemptions <= cex.original_preemptions);
      if (cex.preemptions == cex.original_preemptions) CHECK(cex.steps <= cex.original_steps);
      // Round trip: the reported schedule replays to the identical report.
      auto again = test::replay(*r.schedule);
      REQUIRE(again.bug);
      CHECK(report_to_json(*again.bug) == r.schedule->bug);
      CHECK(count_preemptions(k, params, r.schedule->steps) == cex.preemptions);
      if (!brute) {
        std::uint64_t seen = 0;
        brute = brute_force_min(m, *r.bug, &seen);
        CHECK(seen > 0);
      }
      CHECK(*brute == cex.preemptions);
      // Every step is needed: without it the replay diverges, loses the
      // race, or needs more preemptions (a step outside the causal past is
      // there only to let a thread finish instead of being preempted).
      for (std::size_t i = 0; i < cex.steps; ++i) {
        INFO("without step " << i + 1);
        auto steps = without_step(r.schedule->steps, i);
        auto bug = replay_bug(*r.schedule, steps);
        bool lost = !bug || !same_bug(*bug, *r.bug);
        CHECK((lost || count_preemptions(k, params, steps) > cex.preemptions));
      }
    }
  }
}

TEST_CASE("hand-computed minimal counterexamples", "[search][minimize]") {
  // preempt_race: T0 stores 1, T1's decoy step, T1 reads the flag: the
  // switch from T0 (still enabled) is the one preemption; T2 is not needed.
  RunConfig random;
  random.strategy = "random";
  random.seed = 1;
  auto a = test::run("search/preempt_race", {}, random);
  REQUIRE(a.counterexample);
  CHECK(a.counterexample->steps == 3);
  CHECK(a.counterexample->preemptions == 1);
  // chain_race: all of T0 (3 steps, it then finishes), T1 (3: decoy, load,
  // store), T2 up to its read (2): no preemption. Leaving out T0's last decoy
  // would save a step but preempt T0.
  auto b = test::run("search/chain_race", {}, random);
  REQUIRE(b.counterexample);
  CHECK(b.counterexample->steps == 8);
  CHECK(b.counterexample->preemptions == 0);
  std::string text = format_run(find_kernel("search/chain_race"),
                                find_kernel("search/chain_race").resolve({}), RunConfig{}, b, "");
  CHECK(text.find("counterexample: 8 steps, 0 preemptions (minimized from") != std::string::npos);
}

TEST_CASE("a deadlock's counterexample is re-linearized and replays", "[search][minimize]") {
  RunConfig random;
  random.strategy = "random";
  random.seed = 4;
  auto r = test::run("search/lock_order", {}, random);
  REQUIRE(r.verdict == Verdict::deadlock);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->minimized);
  CHECK(r.counterexample->preemptions <= r.counterexample->original_preemptions);
  auto again = test::replay(*r.schedule);
  REQUIRE(again.bug);
  CHECK(report_to_json(*again.bug) == r.schedule->bug);
  // The deadlock needs each thread to hold one lock: T0 d, a; T1 d, b, then
  // both block. One preemption at least (a thread holding its lock must be
  // switched away from while its second lock is still free).
  CHECK(r.counterexample->preemptions == 1);
}

TEST_CASE("--no-minimize reports the schedule as found", "[search][minimize]") {
  RunConfig c;
  c.strategy = "random";
  c.seed = 9;
  c.minimize = false;
  auto r = test::run("search/chain_race", {}, c);
  REQUIRE(r.verdict == Verdict::race);
  CHECK_FALSE(r.counterexample);
}
