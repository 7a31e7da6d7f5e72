// assume(): executions where it fails are discarded (counted apart, as
// GenMC counts blocked ones), in every explorer; and await() over a list of
// objects built at run time.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "checker/heddle.hpp"
#include "checker/report/text_report.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
// test/assume: A stores 1 to x; B loads x and assumes it saw `want`, then
// checks it did not see the store. want=1 keeps only the buggy executions;
// want=0 discards them. lock=1: B holds a mutex A needs when its assume
// fails (no deadlock is reported: the execution is discarded). An exit
// check fails in every execution that is not discarded when exit_fails=1.
const Registration assume_model =
    kernel("test/assume", "a load, an assume on what it saw, and a check")
        .param("want", 1, "the value B assumes it loaded", 0, 1)
        .param("lock", 0, "1: B holds a mutex A needs while its assume fails", 0, 1)
        .param("exit_fails", 0, "1: an exit check fails", 0, 1)
        .body([](const Params& p) {
          auto& x = make<Atomic<int>>("x", 0);
          auto& m = make<Mutex>("m");
          const bool lock = p.get_int("lock") == 1;
          spawn("A", [&x, &m, lock] {
            x.store(1);
            if (lock) m.lock();
            if (lock) m.unlock();
          });
          spawn("B", [&x, &m, lock, want = p.get_int("want")] {
            if (lock) m.lock();
            const int v = x.load();
            assume(v == want);
            if (lock) m.unlock();
            observe("v", std::to_string(v));
            check(v != 1, "B saw the store");  // the check
          });
          if (p.get_int("exit_fails") == 1) at_exit([] { check(false, "exit check"); });
        });

// test/await_list: `n` writers each fill their slot of a buffer and set
// their flag; the reader awaits every flag through a list made at run time,
// then reads every slot: ordered by the flags it acquired, no race.
const Registration await_list =
    kernel("test/await_list", "an await over a run-time list of flags")
        .param("n", 3, "writers", 1, 4)
        .body([](const Params& p) {
          const int n = static_cast<int>(p.get_int("n"));
          auto data = buffer<int>("data", static_cast<std::size_t>(n));
          std::vector<Atomic<int>*> flags;
          std::vector<SyncObject*> reads;
          for (int i = 0; i < n; ++i) {
            flags.push_back(&make<Atomic<int>>("flag" + std::to_string(i), 0));
            reads.push_back(flags.back());
          }
          for (int i = 0; i < n; ++i)
            spawn("W" + std::to_string(i), [data, f = flags[i], i]() mutable {
              data.store(static_cast<std::size_t>(i), i + 1);
              f->store(1);
            });
          spawn("R", [data, flags, reads, n] {
            await([&flags] {
              for (auto* f : flags)
                if (f->peek() != 1) return false;
              return true;
            }, reads, "await_all");
            int sum = 0;
            for (int i = 0; i < n; ++i) sum += data.load(static_cast<std::size_t>(i));
            observe("sum", std::to_string(sum));
          });
        });

RunConfig with(const char* strategy) { return test::with_strategy(strategy); }
}  // namespace

TEST_CASE("assume discards the executions where it fails, in every explorer", "[assume]") {
  for (const char* s : {"dfs", "dpor", "optimal", "bounded"}) {
    INFO(s);
    // want=1: B's load before A's store is discarded; the other order fails the check.
    auto bad = test::outcomes("test/assume", {{"want", "1"}}, with(s));
    CHECK(bad.verdicts == std::set<std::string>{"assertion"});
    CHECK(bad.result.stats.executions == 1);
    CHECK(bad.result.stats.discarded >= 1);
    // want=0: the buggy order is discarded; what is left verifies.
    auto good = test::outcomes("test/assume", {{"want", "0"}}, with(s));
    CHECK(good.verdicts == std::set<std::string>{"ok"});
    CHECK(good.final_states == std::set<std::string>{"v=0\n"});
    CHECK(good.result.stats.discarded >= 1);
    CHECK(good.result.exhaustive);
  }
  auto dpor = test::outcomes("test/assume", {{"want", "0"}}, with("dpor"));
  CHECK(dpor.result.stats.executions == 1);
  CHECK(dpor.result.stats.discarded == 1);
}

TEST_CASE("a discarded execution reports no deadlock and runs no exit check", "[assume]") {
  // B holds the mutex A needs when its assume fails: A blocks, and the
  // execution is discarded, not a deadlock. The exit check fails only in
  // the execution that is kept.
  auto r = test::outcomes("test/assume", {{"want", "0"}, {"lock", "1"}, {"exit_fails", "1"}},
                          with("dfs"));
  CHECK(r.verdicts == std::set<std::string>{"assertion"});
  CHECK(r.result.stats.deadlocked == 0);
  CHECK(r.result.stats.discarded >= 1);
  auto run = test::run("test/assume", {{"want", "0"}, {"lock", "1"}, {"exit_fails", "1"}});
  REQUIRE(run.bug);
  CHECK_THAT(run.bug->title, Catch::Contains("exit check"));
}

TEST_CASE("the run report counts discarded executions apart", "[assume]") {
  const Kernel& k = find_kernel("test/assume");
  const Params params = k.resolve({{"want", "0"}});
  RunConfig c;
  const RunResult r = explore(k, params, c);
  const std::string text = format_run(k, params, c, r, "");
  CHECK_THAT(text, Catch::Contains("discarded by a failed assume() (not executions): 1"));
  CHECK_THAT(text, Catch::Contains("1 execution explored"));
  CHECK(summary_json(k, params, c, r)["stats"]["discarded"] == 1);
}

TEST_CASE("await over a run-time list acquires every object in it", "[assume]") {
  for (const char* n : {"1", "3"}) {
    INFO("n=" << n);
    auto dfs = test::outcomes("test/await_list", {{"n", n}}, with("dfs"));
    CHECK(dfs.verdicts == std::set<std::string>{"ok"});
    auto dpor = test::outcomes("test/await_list", {{"n", n}}, with("dpor"));
    CHECK(dpor.verdicts == dfs.verdicts);
    CHECK(dpor.final_states == dfs.final_states);
    CHECK(dpor.result.exhaustive);
  }
}
