// Nothing lost (issue 51.6, 51.8): a signal stops a run at its next step and
// the run still says what it covered, writes its files and exits 128 + N;
// an artifact that cannot be written whole leaves the earlier file as it was.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test/ci/ci_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle::test;
namespace fs = std::filesystem;

namespace {
// `timeout` sends SIG after SECONDS and exits as the run did (--preserve-status).
CliResult signalled(const std::string& sig, const std::string& seconds, const std::string& args) {
  return run_binary("timeout --preserve-status -s " + sig + " " + seconds + " " +
                        std::string(HEDDLE_CI_FIXTURE),
                    args);
}
}  // namespace

TEST_CASE("SIGINT, SIGTERM and SIGHUP stop a run, which says so, writes its summary, exits 128+N",
          "[ci][signals]") {
  const std::string dir = temp_dir();
  struct Case {
    std::string sig, extra;
    int code;
  };
  // ci/long has 63,063,000 executions: none of these runs ends before its signal.
  for (const Case& c : {Case{"INT", "--strategy dfs", 130}, Case{"TERM", "--strategy dfs", 143},
                        Case{"HUP", "--strategy dfs", 129}, Case{"INT", "--jobs 2", 130}}) {
    INFO(c.sig << " " << c.extra);
    const std::string summary = dir + "/s-" + c.sig + ".json";
    fs::remove(summary);
    auto r = signalled(c.sig, "1", "run ci/long -q " + c.extra + " --summary-json " + summary);
    INFO(r.out << r.err);
    CHECK(r.code == c.code);
    CHECK_THAT(r.out, Catch::Contains("interrupted after ") &&
                          Catch::Contains(" executions: no bug so far (not exhaustive)") &&
                          Catch::Contains("not exhaustive: interrupted"));
    REQUIRE(fs::exists(summary));
    auto j = nlohmann::json::parse(slurp(summary));
    CHECK(j["interrupted"] == "SIG" + c.sig);
    CHECK(j["stopped_by"] == "interrupted");
    CHECK(j["exhaustive"] == false);
    CHECK(j["verdict"] == "no_bug_found");
    CHECK(j["executions"].get<std::uint64_t>() > 0);
    CHECK(j["executions"].get<std::uint64_t>() < 63063000);
  }
  fs::remove_all(dir);
}

TEST_CASE("an interrupted run --all writes every report marked interrupted, and keeps what it found",
          "[ci][signals]") {
  const std::string dir = temp_dir();
  // ci/long's two presets run on past the signal; ci/pipeline:racy finds its race first.
  auto r = signalled("INT", "2",
                     "run --all --jobs 3 -q --strategy dfs --filter 'ci/[lp]*' --artifacts " + dir +
                         "/art --report json=" + dir + "/r.json --report junit=" + dir +
                         "/r.xml --report sarif=" + dir + "/r.sarif");
  INFO(r.out << r.err);
  CHECK(r.code == 130);
  CHECK_THAT(r.out, Catch::Contains("STOPPED ci/long:first: interrupted after ") &&
                        Catch::Contains("STOPPED ci/long:second: interrupted after ") &&
                        Catch::Contains("interrupted (SIGINT): 2 cases not finished"));
  auto json = nlohmann::json::parse(slurp(dir + "/r.json"));
  CHECK(json["interrupted"] == "SIGINT");
  std::size_t stopped = 0;
  bool racy_kept = false;
  for (const auto& c : json["cases"]) {
    if (c["kernel"] == "ci/long") {
      stopped += c["interrupted"] == true && c["verdict"] == "interrupted" &&
                 c["summary"]["stopped_by"] == "interrupted";
    }
    if (c["id"] == "ci/pipeline:racy") racy_kept = c["passed"] == true && c["artifact"].is_string();
  }
  CHECK(stopped == 2);
  CHECK(racy_kept);
  CHECK(fs::exists(dir + "/art/ci.pipeline--racy.json"));
  const std::string junit = slurp(dir + "/r.xml");
  CHECK_THAT(junit, Catch::Contains("<property name=\"interrupted\" value=\"SIGINT\"/>") &&
                        Catch::Contains("<skipped message=\"interrupted after ") &&
                        Catch::Contains("skipped=\"2\""));
  auto sarif = nlohmann::json::parse(slurp(dir + "/r.sarif"));
  CHECK(sarif["runs"][0]["invocations"][0]["executionSuccessful"] == false);
  CHECK(sarif["runs"][0]["invocations"][0]["exitSignalName"] == "SIGINT");
  // One case at a time: the cases after the interrupted one never start.
  auto one = signalled("TERM", "1", "run --all -q --strategy dfs --filter 'ci/[lp]*'");
  INFO(one.out << one.err);
  CHECK(one.code == 143);
  CHECK_THAT(one.out, Catch::Contains("STOPPED ci/long:second: not run: the job was interrupted "
                                      "(SIGTERM)") &&
                          Catch::Contains("interrupted (SIGTERM): 4 cases not finished"));
  fs::remove_all(dir);
}

TEST_CASE("a file that cannot be written whole leaves the earlier one as it was",
          "[ci][atomic]") {
  const std::string dir = temp_dir();
  const std::string fixture_exe = HEDDLE_CI_FIXTURE;
  // A whole counterexample first.
  REQUIRE(run_binary(fixture_exe, "run ci/pipeline --preset racy -q --out " + dir +
                                      "/cex.json --summary-json " + dir + "/s.json")
              .code == 1);
  const std::string cex = slurp(dir + "/cex.json"), summary = slurp(dir + "/s.json");
  REQUIRE(cex.size() > 1024);
  // A file size limit of 512 bytes or 1 KiB (ulimit -f blocks): the writes fail
  // part way, as on a full disk. Before, a truncated file was left in place.
  auto r = run_binary("sh -c 'ulimit -f 1; exec " + fixture_exe + " \"$@\"' x",
                      "run ci/pipeline --preset racy -q --out " + dir + "/cex.json --summary-json " +
                          dir + "/s.json");
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("cannot write " + dir + "/cex.json: File too large"));
  CHECK(slurp(dir + "/cex.json") == cex);
  CHECK(slurp(dir + "/s.json") == summary);
  for (const auto& e : fs::directory_iterator(dir))  // no temporary file is left behind
    CHECK(e.path().filename().string().find("heddle-tmp") == std::string::npos);
  // A report of the CI job, the same way.
  REQUIRE(run_binary(fixture_exe, "run --all -q --filter ci/pipeline --report json=" + dir +
                                      "/r.json")
              .code == 0);
  const std::string report = slurp(dir + "/r.json");
  auto all = run_binary("sh -c 'ulimit -f 1; exec " + fixture_exe + " \"$@\"' x",
                        "run --all -q --filter ci/pipeline --report json=" + dir + "/r.json");
  CHECK(all.code == 2);
  CHECK(slurp(dir + "/r.json") == report);
  fs::remove_all(dir);
}

TEST_CASE("run --all names each failing case's replay command once", "[ci]") {
  const std::string dir = temp_dir();
  auto job = run_binary(HEDDLE_CI_FIXTURE, "run --all --quiet --filter ci/wrong_expectation:claims_safe "
                                           "--artifacts " + dir + "/art");
  INFO(job.out);
  CHECK(job.code == 1);
  CHECK(count_of(job.out, "replay with: ") == 1);  // twice before (issue 50.16)
  fs::remove_all(dir);
}
