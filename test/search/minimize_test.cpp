// Minimal counterexamples, checked by brute force: no schedule shows the race
// in fewer steps, none of as many steps with fewer preemptions, every step is
// needed, and replay round-trips.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "checker/engine/errors.hpp"
#include "checker/engine/fiber.hpp"
#include "checker/explore/cex/minimize.hpp"
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
    // Async phases and remote DMAs among four devices (tpu_models.cpp).
    {"search/rdma_collide", {}},
    {"search/rdma_collide", {{"dma_order", "eager"}}},
    {"search/rdma_early_read", {}},
    {"search/rdma_early_read", {{"dma_order", "eager"}}},
};

// True when some schedule shows `bug` in fewer than `steps` scheduling steps,
// or in exactly `steps` with fewer than `preemptions` preemptions: search
// over every schedule prefix (every enabled agent at every step), across
// all traces. `nodes` counts the prefixes replayed.
bool better_exists(const Kernel& k, const Params& p, const BugReport& bug,
                   std::vector<ScheduleStep>& prefix, std::uint32_t steps,
                   std::uint32_t preemptions, StackPool& pool, std::uint64_t& nodes) {
  ++nodes;
  const heddle::Model model(k, p, ExecutionLimits{});
  Runner runner(model, pool);
  Followed f = follow(runner, prefix);
  if (!f.ok) return false;
  const std::size_t n = prefix.size();
  if (!f.stopped)
    return f.bug && same_bug(*f.bug, bug) && (n < steps || f.preemptions < preemptions);
  if (n >= steps) return false;
  // The last step can only help with fewer preemptions than the report's.
  if (n + 1 == steps && f.preemptions >= preemptions) return false;
  for (const auto& next : f.pending) {
    prefix.push_back(next);
    bool found = better_exists(k, p, bug, prefix, steps, preemptions, pool, nodes);
    prefix.pop_back();
    if (found) return true;
  }
  return false;
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

TEST_CASE("minimized races: fewest steps, then preemptions, by brute force; every step needed",
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
    for (const auto& finder : finders) {
      INFO("found by " << finder.strategy);
      auto r = test::run(m.kernel, m.params, finder);
      REQUIRE(r.verdict == Verdict::race);
      REQUIRE(r.counterexample);
      const Counterexample& cex = *r.counterexample;
      INFO("note: " << cex.note);
      CHECK(cex.minimized);
      CHECK(cex.steps <= cex.original_steps);
      if (cex.steps == cex.original_steps) CHECK(cex.preemptions <= cex.original_preemptions);
      // Round trip: the reported schedule replays to the identical report.
      auto again = test::replay(*r.schedule);
      REQUIRE(again.bug);
      CHECK(report_to_json(*again.bug) == r.schedule->bug);
      CHECK(count_preemptions(k, params, r.schedule->steps) == cex.preemptions);
      // No schedule of any trace does better: fewer steps, or as many with
      // fewer preemptions (a wait satisfied by another signal, a device that
      // need not take part, a thread left behind instead of run on).
      {
        FaultHandlers handlers;
        StackPool pool(256 * 1024);
        std::vector<ScheduleStep> prefix;
        std::uint64_t nodes = 0;
        CHECK_FALSE(better_exists(k, params, *r.bug, prefix, cex.steps, cex.preemptions, pool,
                                  nodes));
        INFO("prefixes searched: " << nodes);
        CHECK(nodes < 200000);
      }
      // Every step is needed: without it the replay diverges or loses the race.
      for (std::size_t i = 0; i < cex.steps; ++i) {
        INFO("without step " << i + 1);
        auto bug = replay_bug(*r.schedule, without_step(r.schedule->steps, i));
        CHECK((!bug || !same_bug(*bug, *r.bug)));
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
  // chain_race: T0 up to its relaxed store (2 steps), T1 (3: decoy, load,
  // store), T2 up to its read (2). T0's last decoy is not in the race's
  // causal past: leaving it out saves a step and leaves T0 behind, enabled,
  // which counts as the one preemption (running it on would avoid that).
  auto b = test::run("search/chain_race", {}, random);
  REQUIRE(b.counterexample);
  CHECK(b.counterexample->steps == 7);
  CHECK(b.counterexample->preemptions == 1);
  std::string text = format_run(find_kernel("search/chain_race"),
                                find_kernel("search/chain_race").resolve({}), RunConfig{}, b, "");
  CHECK(text.find("counterexample: 7 steps, 1 preemption") != std::string::npos);
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

TEST_CASE("an on_wait ring's counterexample leaves out the device that takes no part",
          "[search][minimize]") {
  // With dma_order=on_wait a DMA runs only while a thread blocks on its
  // semaphore, which no footprint shows, so no re-linearization of the
  // found trace replays; shrinking across traces drops dev3's part of the
  // ring (25 steps as found, 18 needed).
  auto r = test::run("pallas_tpu/ring_reuse_recv_sem",
                     {{"devices", "4"}, {"steps", "3"}, {"dma_order", "on_wait"}});
  REQUIRE(r.verdict == Verdict::race);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->original_steps == 25);
  CHECK(r.counterexample->steps == 18);
  for (const auto& s : r.schedule->steps) CHECK(s.agent.rfind("dev3", 0) != 0);
  auto again = test::replay(*r.schedule);
  REQUIRE(again.bug);
  CHECK(report_to_json(*again.bug) == r.schedule->bug);
}
