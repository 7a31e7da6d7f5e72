// A CI job a team can trust: exhaustive expectations, presets on the
// command line, replay hints that name the binary that ran.
#include <catch2/catch.hpp>

#include <map>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test/ci/ci_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle::test;
namespace fs = std::filesystem;

TEST_CASE("--require-exhaustive fails a case that a budget stopped", "[ci]") {
  // ci/slow has 369600 executions: 50 cannot cover them.
  auto plain = fixture("run --all --quiet --filter ci/slow --max-executions 50");
  CHECK(plain.code == 0);
  auto strict =
      fixture("run --all --quiet --filter ci/slow --max-executions 50 --require-exhaustive");
  INFO(strict.out << strict.err);
  CHECK(strict.code == 1);
  CHECK(strict.out.find("FAIL ci/slow: expected an exhaustive run, but the max-executions budget "
                        "stopped it after 50 executions") != std::string::npos);
  CHECK(strict.out.find("no bug, exhaustive") != std::string::npos);  // the expected column
  CHECK(strict.out.find("1 case: 0 passed, 1 failed") != std::string::npos);
  // A run that covers everything meets the requirement.
  auto small = fixture("run --all --quiet --filter ci/no_presets --require-exhaustive");
  CHECK(small.code == 0);
}

TEST_CASE("a preset declared exhaustive fails only when a budget stops it", "[ci]") {
  std::string dir = temp_dir();
  auto budget = fixture("run --all --quiet --filter ci/budgeted --max-executions 4 --report json=" +
                        dir + "/r.json");
  INFO(budget.out << budget.err);
  CHECK(budget.code == 1);
  CHECK(budget.out.find("FAIL ci/budgeted:proved: expected an exhaustive run, but the "
                        "max-executions budget stopped it after 4 executions") !=
        std::string::npos);
  CHECK(budget.out.find("FAIL ci/budgeted:sampled") == std::string::npos);
  auto report = nlohmann::json::parse(slurp(dir + "/r.json"));
  REQUIRE(report["cases"].size() == 2);
  CHECK(report["cases"][0]["id"] == "ci/budgeted:sampled");
  CHECK(report["cases"][0]["passed"] == true);
  CHECK(report["cases"][0]["expect_exhaustive"] == false);
  CHECK(report["cases"][1]["passed"] == false);
  CHECK(report["cases"][1]["expect_exhaustive"] == true);
  // 3! = 6 executions: with room for them all, both presets pass.
  auto full = fixture("run --all --quiet --filter ci/budgeted --max-executions 100");
  CHECK(full.code == 0);
  CHECK(full.out.find("2 cases: 2 passed, 0 failed") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("heddle list shows each preset with its parameters and expected verdict", "[ci]") {
  auto r = fixture("list");
  CHECK(r.code == 0);
  CHECK(r.out.find("ci/pipeline\n") != std::string::npos);
  CHECK(r.out.find("    --preset racy  (wait=false)  expects race\n") != std::string::npos);
  CHECK(r.out.find("    --preset fixed  (wait=true)  expects no bug\n") != std::string::npos);
  CHECK(r.out.find("    --preset proved  (defaults)  expects no bug, exhaustive\n") !=
        std::string::npos);
  CHECK(r.out.find("    --preset sampled  (defaults)  expects no bug\n") != std::string::npos);
}

TEST_CASE("run KERNEL --preset NAME runs the preset, --param overrides it", "[ci]") {
  std::string dir = temp_dir();
  auto racy = fixture("run ci/pipeline --preset racy --quiet --out " + dir + "/cex.json");
  CHECK(racy.code == 1);
  CHECK(racy.out.find("params: wait=false\n") != std::string::npos);
  auto fixed = fixture("run ci/pipeline --preset racy --param wait=true --quiet");
  CHECK(fixed.code == 0);
  CHECK(fixed.out.find("params: wait=true\n") != std::string::npos);
  // The preset's exhaustive expectation holds on the command line too.
  auto stopped = fixture("run ci/budgeted --preset proved --max-executions 2 --quiet");
  CHECK(stopped.code == 1);
  CHECK(stopped.out.find("FAIL: exhaustive coverage was required (preset proved or "
                         "--require-exhaustive), but the run was not exhaustive "
                         "(max-executions)") != std::string::npos);
  CHECK(fixture("run ci/budgeted --preset sampled --max-executions 2 --quiet").code == 0);
  CHECK(fixture("run ci/budgeted --preset sampled --max-executions 2 --quiet "
                "--require-exhaustive").code == 1);
  CHECK(fixture("run ci/budgeted --preset proved --quiet").code == 0);
  auto typo = fixture("run ci/pipeline --preset fixd");
  CHECK(typo.code == 2);
  CHECK(typo.err.find("kernel ci/pipeline has no preset fixd; did you mean fixed?; its presets: "
                      "racy, fixed") != std::string::npos);
  auto none = fixture("run ci/slow --preset x");
  CHECK(none.code == 2);
  CHECK(none.err.find("declares no presets") != std::string::npos);
  auto all = fixture("run --all --preset racy");
  CHECK(all.code == 2);
  CHECK(all.err.find("--filter 'KERNEL:racy'") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("replay hints name the binary that ran", "[ci]") {
  const std::string exe = HEDDLE_CI_FIXTURE;
  std::string dir = temp_dir();
  auto run = fixture("run ci/pipeline --preset racy --quiet --out " + dir + "/cex.json");
  CHECK(run.out.find("replay with: " + exe + " replay " + dir + "/cex.json\n") !=
        std::string::npos);
  CHECK(run.out.find("replay with: heddle ") == std::string::npos);
  // The CI job's table and its cases' own reports name it as well.
  auto job = fixture("run --all --quiet --filter ci/wrong_expectation:claims_safe --artifacts " +
                     dir + "/art");
  const std::string artifact = dir + "/art/ci.wrong_expectation--claims_safe.json";
  CHECK(job.out.find("replay with: " + exe + " replay " + artifact + "\n") != std::string::npos);
  CHECK(job.out.find("replay with: heddle ") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("the max-executions budget counts executions, not abandoned schedules", "[ci]") {
  // The TMA multicast mainloop: dpor runs 27 executions and abandons 9
  // schedules (reversals whose moved wait turned out blocked) on the way.
  const std::string kernel = "hopper/tma_multicast";
  const std::map<std::string, std::string> params = {};
  heddle::RunResult all = heddle::test::run(kernel, params);
  REQUIRE(all.exhaustive);
  REQUIRE(all.stats.abandoned > 0);
  const auto executions = all.stats.executions;
  REQUIRE(executions > 2);
  heddle::RunConfig c;
  c.max_executions = executions;
  heddle::RunResult budget = heddle::test::run(kernel, params, c);
  CHECK(budget.stats.executions == executions);  // the abandoned ones did not spend it
  c.max_executions = executions - 1;
  heddle::RunResult short_of = heddle::test::run(kernel, params, c);
  CHECK(short_of.stats.executions == executions - 1);
  CHECK_FALSE(short_of.exhaustive);
  CHECK(short_of.stopped_by == "max-executions");
}
