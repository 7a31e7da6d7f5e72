// Schedules: round trips for every bug, divergence and malformed files.
#include <catch2/catch.hpp>

#include <fstream>

#include "checker/engine/errors.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using heddle::test::cli;
using heddle::test::run;

namespace {
void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

RunConfig bounded_config() {
  RunConfig c;
  c.max_executions = 3000;
  c.time_limit = 20;
  c.step_timeout = 0.3;
  c.max_steps = 2000;
  return c;
}
}  // namespace

TEST_CASE("every bug found in the suite replays to the identical report") {
  int bugs = 0;
  for (const auto& [name, kernel] : kernels()) {
    std::vector<std::map<std::string, std::string>> variants{{}};
    for (const auto& p : kernel.presets) variants.push_back(p.params);
    for (const auto& params : variants) {
      auto r = run(name, params, bounded_config());
      if (!r.bug) continue;
      ++bugs;
      INFO(name << ": " << r.bug->title);
      // Through the file format, as a user would replay it.
      Schedule parsed = read_schedule(write_schedule(*r.schedule), "roundtrip.json");
      REQUIRE(parsed == *r.schedule);
      auto again = test::replay(parsed);
      REQUIRE(again.bug.has_value());
      CHECK(report_to_json(*again.bug) == report_to_json(*r.bug));
      CHECK(format_report(*again.bug) == format_report(*r.bug));
      CHECK(again.schedule->steps == r.schedule->steps);
    }
  }
  CHECK(bugs >= 8);
}

TEST_CASE("a schedule with a wrong agent name diverges with a clear error") {
  auto r = run("test/two_locks");
  REQUIRE(r.schedule.has_value());
  REQUIRE(!r.schedule->steps.empty());
  Schedule edited = *r.schedule;
  edited.steps[1].agent = "T7";
  REQUIRE_THROWS_WITH(test::replay(edited),
                      Catch::Contains("schedule diverged at step 2: expected T7") &&
                          Catch::Contains("no agent named T7"));
  Schedule wrong_op = *r.schedule;
  wrong_op.steps[0].op = "unlock(a)";
  REQUIRE_THROWS_WITH(test::replay(wrong_op),
                      Catch::Contains("schedule diverged at step 1") &&
                          Catch::Contains("found T0 lock(a)"));
  Schedule longer = *r.schedule;
  longer.steps.push_back(longer.steps.back());
  REQUIRE_THROWS_WITH(test::replay(longer), Catch::Contains("schedule diverged"));

  // Through the CLI (which has the demo kernels): exit code 2, message on stderr.
  auto dir = test::temp_dir();
  REQUIRE(cli("run demo/lost_update --out " + dir + "/demo.json").code == 1);
  Schedule demo = load_schedule(dir + "/demo.json");
  demo.steps.push_back(ScheduleStep{"worker7", "lock(m)", "kernels/demo/lost_update.cpp:1"});
  write(dir + "/edited.json", write_schedule(demo));
  auto out = cli("replay " + dir + "/edited.json");
  CHECK(out.code == 2);
  CHECK_THAT(out.err, Catch::Contains("schedule diverged at step 1: expected worker7 lock(m)"));
}

TEST_CASE("malformed schedule files give a parse error with line and column") {
  auto r = run("test/two_locks");
  std::string text = write_schedule(*r.schedule);
  std::string truncated = text.substr(0, text.size() / 2);
  REQUIRE_THROWS_WITH(read_schedule(truncated, "t.json"),
                      Catch::Contains("t.json: not a valid heddle schedule: JSON syntax error at line"));
  REQUIRE_THROWS_WITH(read_schedule("{\n  \"format\": \"heddle-schedule\",\n  \"version\": 1,\n x}",
                                    "bad.json"),
                      Catch::Contains("line 4, column 2"));
  REQUIRE_THROWS_WITH(read_schedule("{\"format\":\"heddle-schedule\",\"version\":99}", "v.json"),
                      Catch::Contains("version 99 is not supported"));
  REQUIRE_THROWS_WITH(read_schedule("[]", "a.json"), Catch::Contains("heddle-schedule"));
  auto dir = test::temp_dir();
  write(dir + "/trunc.json", truncated);
  auto out = cli("replay " + dir + "/trunc.json");
  CHECK(out.code == 2);
  CHECK_THAT(out.err, Catch::Contains("JSON syntax error at line"));
  CHECK(cli("replay " + dir + "/missing.json").code == 2);
}

TEST_CASE("the CLI: exit codes, schedule file, summary JSON, determinism") {
  auto dir = test::temp_dir();
  auto racy = cli("run demo/lost_update --out " + dir + "/cex.json --summary-json " + dir +
                  "/sum.json");
  CHECK(racy.code == 1);
  CHECK_THAT(racy.out, Catch::Contains("race: data race on counter[0]"));
  auto summary = nlohmann::json::parse(test::slurp(dir + "/sum.json"));
  CHECK(summary["verdict"] == "race");
  CHECK(summary["kernel"] == "demo/lost_update");
  CHECK(summary["exhaustive"] == false);
  CHECK(summary["executions"].get<int>() >= 1);
  CHECK(summary["report"]["kind"] == "race");
  CHECK(summary.contains("params"));
  CHECK(summary.contains("strategy"));
  auto replayed = cli("replay " + dir + "/cex.json");
  CHECK(replayed.code == 1);
  CHECK(replayed.err.empty());
  CHECK_THAT(replayed.out, Catch::Contains("race: data race on counter[0]"));

  auto ok = cli("run demo/lost_update --param locked=true --summary-json " + dir + "/ok.json");
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Catch::Contains("verified, no bug in any execution"));
  CHECK(nlohmann::json::parse(test::slurp(dir + "/ok.json"))["exhaustive"] == true);

  auto budget = cli("run test/locked_writers --max-executions 1");
  CHECK(budget.code == 2);  // test kernels are not in the heddle binary
  CHECK_THAT(budget.err, Catch::Contains("unknown kernel test/locked_writers"));
  auto limited = cli("run demo/lost_update --param locked=true --param workers=4 --max-executions 3");
  CHECK(limited.code == 0);
  CHECK_THAT(limited.out, Catch::Contains("not exhaustive: max-executions budget reached"));
  CHECK_THAT(limited.out, !Catch::Contains("verified"));

  CHECK(cli("run demo/lost_update --param nope=1").code == 2);
  CHECK(cli("run demo/lost_update --param locked=maybe").code == 2);
  CHECK(cli("run demo/lost_update --strategy nosuch").code == 2);
  CHECK(cli("frobnicate").code == 2);

  auto first = cli("run demo/lost_update --out " + dir + "/same.json");
  std::string first_file = test::slurp(dir + "/same.json");
  auto second = cli("run demo/lost_update --out " + dir + "/same.json");
  CHECK(test::without_timing(first.out) == test::without_timing(second.out));
  CHECK(first_file == test::slurp(dir + "/same.json"));
}
