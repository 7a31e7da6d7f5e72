// Hostile input and misbehaving models (issues 18 and 19): every case ends in
// a defined exit code with a clear message, never a crash or a hang.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "checker/cli/ci_job.hpp"
#include "checker/engine/errors.hpp"
#include "checker/engine/schedule.hpp"
#include "test/models/hostile_paths.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using heddle::test::cli;
using heddle::test::source_line;

namespace {
// Runs the hostile fixture binary (heddle's main with test/models/hostile.cpp).
test::CliResult hostile(const std::string& args) {
  std::string dir = test::temp_dir();
  // A minute at most: a runaway the watchdog missed fails (exit 124), not hangs.
  std::string cmd = "timeout 60 " + std::string(HEDDLE_HOSTILE_FIXTURE) + " " + args + " >" + dir +
                    "/out 2>" + dir + "/err";
  int status = std::system(cmd.c_str());
  test::CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::slurp(dir + "/out");
  r.err = test::slurp(dir + "/err");
  return r;
}

const std::string kHostile = "test/models/hostile.cpp";

struct BadModel {
  std::string kernel, where, message, line_marker;  // marker "" : no line to name
};

// Runs each case (setup-free: `where` is unused) with `args`: each must be a
// model error with its message, its schedule and, where it has one, its line.
void check_model_errors(const std::vector<BadModel>& cases, const std::string& args) {
  for (const auto& c : cases) {
    INFO(c.kernel);
    auto r = hostile("run hostile/" + c.kernel + " " + args + " -q --out /dev/null");
    INFO(r.out << r.err);
    CHECK(r.code == 1);
    CHECK(r.out.find("model_error: ") != std::string::npos);
    CHECK(r.out.find(c.message) != std::string::npos);
    CHECK(r.out.find("schedule (") != std::string::npos);
    if (!c.line_marker.empty())
      CHECK(r.out.find(source_line(kHostile, c.line_marker)) != std::string::npos);
  }
}
}  // namespace

TEST_CASE("each kind of misbehaving model is a model error naming its line, and heddle survives",
          "[hostile]") {
  const std::string last_op = "// the thread's last visible operation";
  const std::vector<BadModel> cases{
      {"null_deref", "thread", "T0 made an invalid memory access at address 0x0", last_op},
      {"null_deref", "setup", "kernel setup made an invalid memory access", ""},
      {"recursion", "thread", "stack overflow in T0", last_op},
      {"recursion", "setup", "stack overflow in kernel setup", ""},
      {"huge_frame", "thread", "stack overflow in T0", last_op},
      {"huge_frame", "setup", "stack overflow in kernel setup", ""},
      {"raw_oob", "thread", "access to b[4] is out of bounds (size 4)", "// the raw write"},
      {"raw_oob", "setup", "access to b[4] is out of bounds (size 4)", "// the raw write"},
      {"loop", "thread", "T0 ran for over 0.3 s without reaching a visible operation", last_op},
      {"loop", "setup", "kernel setup ran for over 0.3 s", ""},
      {"noexcept", "thread", "T0 called abort()", last_op},
      {"noexcept", "setup", "kernel setup called abort()", ""},
      {"div_zero", "thread", "T0 raised an arithmetic fault", last_op},
      {"div_zero", "setup", "kernel setup raised an arithmetic fault", ""},
      {"exit", "thread", "T0 called exit(0) after unlock(m) at", last_op},
      {"exit", "setup", "kernel setup called exit(0)", ""},
  };
  for (const auto& c : cases) {
    INFO(c.kernel << " in " << c.where);
    auto r = hostile("run hostile/" + c.kernel + " --param where=" + c.where +
                     " --step-timeout 0.3 -q --out /dev/null");
    const std::string text = r.out + r.err;
    INFO(text);
    CHECK(r.code == 1);
    CHECK(text.find("model_error: ") != std::string::npos);
    CHECK(text.find(c.message) != std::string::npos);
    if (!c.line_marker.empty()) CHECK(text.find(source_line(kHostile, c.line_marker)) != std::string::npos);
    CHECK(text.find("internal error") == std::string::npos);
  }
}

TEST_CASE("exceptions from exit checks, async phases and await predicates are model errors",
          "[hostile]") {
  const std::vector<BadModel> cases{
      {"exit_check_throws", "", "kernel exit threw an exception: exit check exploded",
       "// the exit check"},
      {"phase_throws", "", "async agent copy threw an exception: phase exploded", "// the issue"},
      {"await_throws", "", "the await condition of T0 threw an exception: predicate exploded",
       "// the await"},
      {"semaphore_overflow", "", "semaphore s overflows", "// the overflowing signal"},
      {"stale_reference", "", "a sync object of an earlier execution is used", "// the stale lock"},
      {"stale_buffer", "", "a buffer of an earlier execution is used", "// the stale store"},
      {"nondeterministic_setup", "", "kernel setup is not deterministic", ""},
      {"huge_buffer", "", "over heddle's limit of 1024 MiB per buffer", ""},
  };
  check_model_errors(cases, "");
}

TEST_CASE("a buffer kept from an earlier execution is a model error at its read", "[hostile]") {
  // Read without a race check (raw) in an exit check: it was not checked
  // at all and passed as verified (issue 54.2).
  check_model_errors({{"use_after_execution", "", "a buffer of an earlier execution is used",
                       "// the kept read"}},
                     "");
}

TEST_CASE("a model that uses heddle after main returned gets a model error, not a heddle bug",
          "[hostile]") {
  // A static's destructor reads a kept buffer once the run is over (issue 54.3).
  auto r = hostile("run hostile/use_after_main -q --out /dev/null");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("model error: a heddle object or primitive was used while no "
                                    "execution runs (after main returned"));
  CHECK_THAT(r.out + r.err, !Catch::Contains("heddle bug"));
  CHECK_THAT(r.out + r.err, !Catch::Contains("internal error"));
}

TEST_CASE("a runaway await predicate, async phase or exit check is stopped at its line",
          "[hostile]") {
  // Each loops forever without touching heddle memory: only the step
  // watchdog's second strike stops it. The await predicate runs on the
  // controller's stack, between steps, not in a fiber.
  const std::vector<BadModel> cases{
      {"await_loop", "", "the await condition of T0 ran for over 0.3 s", "// the runaway await"},
      {"phase_loop", "", "async agent copy ran for over 0.3 s", "// the looping copy"},
      {"exit_check_loop", "", "kernel exit ran for over 0.3 s", "// the looping exit check"},
  };
  check_model_errors(cases, "--step-timeout 0.3");
}

TEST_CASE("run --all reports a runaway await predicate and goes on to the next case",
          "[hostile]") {
  // hostile/await_loop's preset expects the model error; hostile/await_throws
  // (no preset: expects no bug) runs after it and fails as it should.
  auto r = hostile("run --all --filter 'hostile/await_*' --step-timeout 0.3 -q");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  auto loop = r.out.find("hostile/await_loop");
  auto next = r.out.find("hostile/await_throws");
  REQUIRE(loop != std::string::npos);
  REQUIRE(next != std::string::npos);
  CHECK(r.out.find("2 cases: 1 passed, 1 failed") != std::string::npos);
  CHECK(r.out.find("killed") == std::string::npos);
}

TEST_CASE("10,000 threads run one execution to its budget", "[hostile]") {
  auto r = hostile("run hostile/many_threads --max-executions 1 -q");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("max depth: 10000 steps") != std::string::npos);
  CHECK(r.out.find("not exhaustive: max-executions budget reached") != std::string::npos);
}

TEST_CASE("--time-limit bounds one long execution", "[hostile]") {
  // 20,000 threads on one atomic: one execution has 40,000 steps; the
  // abandoned execution stops at the deadline (dpor's analysis is its own).
  auto r = hostile("run hostile/many_threads --param threads=20000 --strategy dfs "
                   "--time-limit 0.2 -q");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("not exhaustive: time limit reached") != std::string::npos);
}

TEST_CASE("run --all kills a hung case after its case timeout and goes on", "[hostile]") {
  auto r = hostile("run --all --filter 'hostile/loop' --step-timeout 120 --case-timeout 1 -q");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("ERROR hostile/loop: the run was killed after") != std::string::npos);
  CHECK(r.out.find("--case-timeout") != std::string::npos);
}

TEST_CASE("a case that crashed after writing its summary is an error, not a pass", "[hostile]") {
  CiOutcome out;
  out.c = CiCase{"demo/x", "", {}, Verdict::ok};
  out.summary = read_summary(R"({"verdict": "verified", "executions": 3})");
  out.exit_code = -6;  // SIGABRT after the summary was written
  classify(out);
  CHECK_FALSE(out.passed);
  CHECK(out.error);
  CHECK(out.reason == "the run was killed by signal 6");
  out.exit_code = 0;
  out.error = false;
  classify(out);
  CHECK(out.passed);
  CHECK(read_summary(R"({"verdict": 3})").is_null());
  CHECK(read_summary(R"({"verdict": "race", "report": {"title": []}})").is_null());
  CHECK(read_summary("[[[").is_null());
  // Found by the summary fuzzer: the SARIF report indexed a number as the
  // accesses array. Every field the reports read is type-checked first.
  CHECK(read_summary(R"({"verdict": "race", "report": {"accesses": 0}})").is_null());
  CHECK(read_summary(R"({"verdict": "race", "report": {"accesses": [{"at": 7}]}})").is_null());
  CHECK(read_summary(R"({"verdict": "race", "report": {"details": [1]}})").is_null());
  CHECK(read_summary(R"({"verdict": "race", "schedule": [{"agent": 1}]})").is_null());
  CHECK_FALSE(read_summary(R"({"verdict": "race", "report": {"accesses": [{"at": "k.cpp:3",
      "write": true, "first": 0}], "details": ["x"], "step": 2}})").is_null());
}

TEST_CASE("bad numbers on the command line are usage errors (exit 2)", "[hostile][cli]") {
  for (const char* opt : {"--stack-size 0", "--stack-size 1", "--stack-size 4", "--stack-size -1",
                          "--stack-size 99999999999", "--step-timeout 0", "--step-timeout -1",
                          "--step-timeout nan", "--time-limit -1", "--time-limit nan",
                          "--time-limit inf", "--max-executions -5",
                          "--max-executions -18446744073709551615", "--max-steps 0",
                          "--max-steps -1", "--seed -3"}) {
    INFO(opt);
    auto r = cli(std::string("run demo/lost_update -q ") + opt);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(!r.err.empty());
  }
  auto ok = cli("run demo/lost_update -q --stack-size 64 --max-steps 1000 --step-timeout 0.5");
  CHECK(ok.code == 1);  // still a race, with the smallest stack allowed
  auto all = cli("run --all --filter demo/handoff --budget-per-kernel nan -q");
  CHECK(all.code == 2);
}

TEST_CASE("files that cannot be written are errors, and no replay line names them",
          "[hostile][cli]") {
  auto out = cli("run demo/lost_update -q --out /dev/full");
  CHECK(out.code == 2);
  CHECK(out.err.find("cannot write /dev/full") != std::string::npos);
  CHECK(out.out.find("replay with") == std::string::npos);
  auto summary = cli("run demo/lost_update -q --out /dev/null --summary-json /dev/full");
  CHECK(summary.code == 2);
  auto dir = test::temp_dir();
  REQUIRE(cli("run demo/lost_update -q --out " + dir + "/cex.json").code == 1);
  CHECK(cli("replay " + dir + "/cex.json --timeline /dev/full").code == 2);
  CHECK(cli("replay " + dir + "/cex.json --chrome-trace /dev/full").code == 2);
  auto report = cli("run --all --filter demo/handoff -q --report json=/dev/full");
  CHECK(report.code == 2);
  CHECK(report.err.find("cannot write the file") != std::string::npos);
}

namespace {
std::string header(const std::string& extra) {
  return R"({"format": "heddle-schedule", "version": 1, "kernel": "demo/lost_update", )" + extra +
         R"("steps": []})";
}
}  // namespace

TEST_CASE("hostile schedule files are input errors naming what is wrong", "[hostile][schedule]") {
  auto rejects = [](const std::string& text, const std::string& why) {
    INFO(text.substr(0, 200));
    REQUIRE_THROWS_AS(read_schedule(text, "f.json"), UsageError);
    REQUIRE_THROWS_WITH(read_schedule(text, "f.json"), Catch::Contains(why));
  };
  rejects(header(R"("bug": )" + std::string(1000000, '[') + std::string(1000000, ']') + ", "),
          "nested deeper than heddle's limit of 256 levels");
  rejects(R"({"format": "heddle-schedule", "version": 4294967297, "kernel": "k", "steps": []})",
          "format version 4294967297 is not supported");
  rejects(header(R"("max_steps": 1e300, )"), "\"max_steps\" must be a whole number");
  rejects(header(R"("max_steps": 4294967296, )"), "\"max_steps\" must be a whole number");
  rejects(header(R"("seed": -1, )"), "\"seed\" must be a whole number");
  rejects(header(R"("step_timeout": "x", )"), "\"step_timeout\" must be a number");
  rejects(header(R"("params": {"n": 3}, )"), "parameter n must be a string");
  rejects(R"({"format": "heddle-schedule", "version": 1, "kernel": 7, "steps": []})",
          "\"kernel\" must be a string");
  rejects(R"({"format": "heddle-schedule", "version": 1, "kernel": "k", "steps": [)"
          R"({"agent": "", "op": "x"}]})",
          "step 1: \"agent\" is empty");
  rejects(R"({"format": "heddle-schedule", "version": 1, "kernel": "k", "steps": [)"
          R"({"choose": 1e300, "of": 2}]})",
          "step 1: \"choose\" must be a whole number");
  rejects(R"({"format": "heddle-schedule", "version": 1, "kernel": "k", "steps": [)"
          R"({"choose": 2, "of": 2}]})",
          "choice 2 is not below 2");
  rejects(std::string(kMaxScheduleBytes + 1, ' '), "over heddle's limit of 64 MiB");
  rejects(R"({"format": "heddle-schedule", "version": 1, "kernel": "k", "steps": [1]})",
          "step 1 is not an object");
}

TEST_CASE("replaying a deeply nested schedule file exits 2 with one line", "[hostile][schedule]") {
  auto dir = test::temp_dir();
  {
    std::ofstream f(dir + "/deep.json");
    f << header(R"("bug": )" + std::string(1000000, '{') + "");
  }
  auto r = cli("replay " + dir + "/deep.json");
  CHECK(r.code == 2);
  CHECK(r.err.find("nested deeper than heddle's limit") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("a long livelock schedule is folded in the text report", "[hostile]") {
  auto spin = test::run("test/spin_forever", {}, [] {
    RunConfig c;
    c.max_steps = 5000;
    return c;
  }());
  REQUIRE(spin.verdict == Verdict::livelock);
  std::string text = format_schedule(*spin.schedule, &*spin.bug);
  CHECK(text.find("steps not shown; the schedule file has them all") != std::string::npos);
  std::size_t lines = std::count(text.begin(), text.end(), '\n');
  CHECK(lines < 160);
  CHECK(spin.schedule->steps.size() >= 5000);
}

TEST_CASE("integer parameters are whole decimal numbers, nothing more", "[hostile][params]") {
  const Kernel& k = find_kernel("classic/indexer");
  // Found by test/fuzz/fuzz_params.cpp: an embedded NUL passed the check,
  // and an overflowing number passed as LONG_MAX, then get_int threw.
  for (const std::string& bad : {std::string("4\0x", 3), std::string("99999999999999999999"),
                                std::string(" 4"), std::string("4 "), std::string("")}) {
    INFO(bad);
    CHECK_THROWS_AS(k.resolve({{"n", bad}}), UsageError);
  }
  CHECK(k.resolve({{"n", "4"}}).get_int("n") == 4);
}

TEST_CASE("a user's binary names itself in its messages, not heddle", "[hostile][cli]") {
  // heddle_hostile is heddle's main linked with other models, as a user's is (issue 50.17).
  auto bad = hostile("run hostile/no_such_kernel");
  INFO(bad.out << bad.err);
  CHECK(bad.code == 2);
  CHECK(bad.err.rfind("heddle_hostile: error: ", 0) == 0);
  CHECK_THAT(bad.err, Catch::Contains("('heddle_hostile list' shows them all)"));
  auto ok = hostile("run hostile/semaphore_overflow -q --out /dev/null");
  CHECK(ok.out.rfind("heddle_hostile: kernel hostile/semaphore_overflow", 0) == 0);
}
