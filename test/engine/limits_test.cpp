// Limits that bound (issue 54.6, 54.8, 50.9): each limit holds within 10%
// of what it says, and a budget that covers every execution says so.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "test/ci/ci_support.hpp"
#include "test/models/hostile_paths.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
struct Timed {
  test::CliResult r;
  double seconds = 0;
};

// Runs `exe args` (stdout and stderr kept), timing it; a minute at most.
Timed timed(const std::string& exe, const std::string& args) {
  const std::string dir = test::temp_dir();
  const std::string cmd =
      "timeout 60 " + exe + " " + args + " >" + dir + "/out 2>" + dir + "/err";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  Timed t;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  t.r.out = test::slurp(dir + "/out");
  t.r.err = test::slurp(dir + "/err");
  return t;
}
}  // namespace

TEST_CASE("--time-limit bounds a run whose one execution spins to --max-steps", "[hostile][limits]") {
  // Before: 51.7 s under --time-limit 5 (the livelock's 100,000-step trace).
  auto t = timed(HEDDLE_HOSTILE_FIXTURE, "run hostile/spin_atomic -q --time-limit 2 --out /dev/null");
  INFO(t.r.out << t.r.err << "\n" << t.seconds << " s");
  // The exploration stops at 2 s; then the livelock's 100,000-step
  // schedule is replayed once (for its preemptions) and written out.
  CHECK(t.seconds < 2 + 5);  // before: 51.7 s past a 5 s limit
  CHECK((t.r.code == 0 || t.r.code == 1));
}

TEST_CASE("a runaway step costs about --step-timeout, not twelve times it", "[hostile][limits]") {
  auto t = timed(HEDDLE_HOSTILE_FIXTURE, "run hostile/loop -q --out /dev/null --step-timeout 1");
  INFO(t.r.out << t.r.err << "\n" << t.seconds << " s");
  CHECK(t.r.code == 1);
  CHECK(t.r.out.find("without reaching a visible operation") != std::string::npos);
  // Found (1.05 s: the watchdog's second strike comes a twentieth of the
  // limit after the first), replayed once to count its preemptions, not
  // minimized (before: about 12 step timeouts).
  CHECK(t.seconds < 2 * 1.1 + 1);
  CHECK(t.r.out.find("not minimized: a runaway step's schedule is kept as found") !=
        std::string::npos);
}

TEST_CASE("a budget of exactly the executions there are is exhaustive", "[limits]") {
  // ci/budgeted: three threads take one lock once each, 3! = 6 orders.
  auto exact = test::run_binary(HEDDLE_CI_FIXTURE,
                                        "run ci/budgeted --preset proved -q --max-executions 6");
  INFO(exact.out << exact.err);
  CHECK(exact.code == 0);
  CHECK(exact.out.find("6 executions explored; exhaustive") != std::string::npos);
  auto short_one = test::run_binary(HEDDLE_CI_FIXTURE,
                                            "run ci/budgeted --preset proved -q --max-executions 5");
  CHECK(short_one.code == 1);  // the preset requires exhaustive coverage
  CHECK(short_one.out.find("not exhaustive: max-executions budget reached") != std::string::npos);
}

TEST_CASE("a 10 MB kernel name is an unknown kernel at once", "[hostile][limits]") {
  // (A schedule file carries it: an argument cannot be that long.) Before:
  // 29 s of edit distances, then a message holding the whole name.
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/long.json") << R"({"format": "heddle-schedule", "version": 1, "kernel": ")"
                                    << std::string(10 << 20, 'x') << R"(", "steps": []})";
  auto t = timed(HEDDLE_CI_FIXTURE, "replay " + dir + "/long.json");
  INFO(t.r.err.substr(0, 2000) << "\n" << t.seconds << " s");
  CHECK(t.r.code == 2);
  CHECK(t.r.err.find("unknown kernel xxxx") != std::string::npos);
  CHECK(t.r.err.find("... (10485760 bytes)") != std::string::npos);
  CHECK(t.r.err.size() < 1000);
  CHECK(t.seconds < 3);
}
