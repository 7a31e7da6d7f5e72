// The CI job (`heddle run --all`): expectations, exit codes, artifacts, jobs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "checker/cli/ci_job.hpp"
#include "checker/report/ci_reports.hpp"
#include "checker/registry.hpp"
#include "test/ci/ci_support.hpp"

using namespace heddle;
using namespace heddle::test;
namespace fs = std::filesystem;

namespace {
/// The cases the heddle binary runs: every preset of the kernels under
/// kernels/ (the test binary also registers test/ kernels, which it lacks).
std::vector<CiCase> repository_cases() {
  // The heddle binary's own list names exactly the kernels under kernels/.
  std::set<std::string> in_binary;
  std::istringstream list(cli("list").out);
  for (std::string line; std::getline(list, line);)
    if (!line.empty() && line[0] != ' ') in_binary.insert(line);
  std::vector<CiCase> out;
  for (auto& c : ci_cases(""))
    if (in_binary.count(c.kernel)) out.push_back(c);
  return out;
}

nlohmann::json case_of(const nlohmann::json& report, const std::string& id) {
  for (const auto& c : report["cases"])
    if (c["id"] == id) return c;
  return nullptr;
}
}  // namespace

TEST_CASE("run --all on the repository's kernels passes; expected bugs are found", "[ci]") {
  std::string dir = temp_dir();
  auto r = cli("run --all --quiet --artifacts " + dir + "/art --report json=" + dir + "/r.json");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  auto report = nlohmann::json::parse(slurp(dir + "/r.json"));
  auto cases = repository_cases();
  REQUIRE(report["cases"].size() == cases.size());
  CHECK(report["failed"] == 0);
  std::size_t expected_bugs = 0;
  for (const auto& c : cases) {
    auto got = case_of(report, c.id());
    INFO(c.id());
    REQUIRE(!got.is_null());
    CHECK(got["passed"] == true);
    CHECK(r.out.find(c.kernel) != std::string::npos);
    if (c.expect == Verdict::ok) continue;
    ++expected_bugs;
    // One replayable schedule per bug, under a safe name; it replays to the same bug.
    std::string file = dir + "/art/" + safe_file_name(c.id()) + ".json";
    CHECK(got["artifact"] == file);
    REQUIRE(fs::exists(file));
    auto replay = cli("replay " + file);
    CHECK(replay.code == 1);
    CHECK(replay.out.find(std::string(verdict_name(c.expect)) + ":") != std::string::npos);
  }
  CHECK(expected_bugs >= 1);  // demo/lost_update:racy
  std::size_t files = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(dir + "/art")) ++files;
  CHECK(files == expected_bugs);
  fs::remove_all(dir);
}

TEST_CASE("the summary table names kernel, preset, parameters, strategy, verdict, count, time",
          "[ci]") {
  auto r = fixture("run --all --quiet --filter 'ci/pipeline*'");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  for (const char* head : {"kernel", "preset", "parameters", "strategy", "verdict", "expected",
                           "executions", "time", "result"})
    CHECK(r.out.find(head) != std::string::npos);
  CHECK(r.out.find("ci/pipeline  racy ") != std::string::npos);
  CHECK(r.out.find("wait=false") != std::string::npos);
  CHECK(r.out.find("verified (exhaustive)") != std::string::npos);
  CHECK(r.out.find("2 cases: 2 passed, 0 failed") != std::string::npos);
}

TEST_CASE("a preset with a wrong expectation makes the job exit 1", "[ci]") {
  auto r = fixture("run --all --quiet --filter 'ci/wrong_expectation*'");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("FAIL ci/wrong_expectation:claims_safe: expected no bug, found race") !=
        std::string::npos);
  CHECK(r.out.find("FAIL ci/wrong_expectation:claims_race: expected race, found no bug "
                   "(verified (exhaustive))") != std::string::npos);
  CHECK(r.out.find("2 cases: 0 passed, 2 failed") != std::string::npos);
  // One failing case among passing ones still fails the job.
  CHECK(fixture("run --all --quiet --filter 'ci/wrong_expectation:claims_safe'").code == 1);
  CHECK(fixture("run --all --quiet --filter 'ci/pipeline:racy'").code == 0);
}

TEST_CASE("a crashing model is an error of its case, not of the job", "[ci]") {
  auto r = fixture("run --all --quiet --filter 'ci/[cn]*'");  // ci/crash and ci/no_presets
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("ERROR ci/crash: the run was killed by signal 9") != std::string::npos);
  CHECK(r.out.find("ci/no_presets  (defaults)") != std::string::npos);
  CHECK(r.out.find("2 cases: 1 passed, 1 failed") != std::string::npos);
}

TEST_CASE("--jobs runs cases in parallel with the same outcomes", "[ci]") {
  std::string dir = temp_dir();
  const std::string filter = "--filter 'ci/[pwn]*'";  // pipeline, wrong_expectation, no_presets
  auto one = fixture("run --all --quiet --jobs 1 " + filter + " --report json=" + dir + "/1.json");
  auto four = fixture("run --all --quiet --jobs 4 " + filter + " --report json=" + dir + "/4.json");
  CHECK(one.code == 1);
  CHECK(four.code == 1);
  auto a = nlohmann::json::parse(slurp(dir + "/1.json"));
  auto b = nlohmann::json::parse(slurp(dir + "/4.json"));
  REQUIRE(a["cases"].size() == 5);
  REQUIRE(b["cases"].size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(a["cases"][i]["id"] == b["cases"][i]["id"]);
    CHECK(a["cases"][i]["passed"] == b["cases"][i]["passed"]);
    CHECK(a["cases"][i]["verdict"] == b["cases"][i]["verdict"]);
    CHECK(a["cases"][i]["executions"] == b["cases"][i]["executions"]);
  }
  fs::remove_all(dir);
}

TEST_CASE("budgets apply per case and are reported as not exhaustive", "[ci]") {
  std::string dir = temp_dir();
  auto r = fixture("run --all --quiet --filter ci/slow --max-executions 50 --report json=" + dir +
                   "/r.json");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("not exhaustive (max-executions)") != std::string::npos);
  auto report = nlohmann::json::parse(slurp(dir + "/r.json"));
  CHECK(report["cases"][0]["executions"] == 50);
  CHECK(report["cases"][0]["summary"]["exhaustive"] == false);
  fs::remove_all(dir);
  auto t = fixture("run --all --quiet --filter ci/slow --budget-per-kernel 0.5");
  CHECK(t.code == 0);
  CHECK(t.out.find("not exhaustive (time-limit)") != std::string::npos);
}

TEST_CASE("usage errors of run --all exit 2 and say what to do", "[ci]") {
  auto none = fixture("run --all --filter 'nothing*'");
  CHECK(none.code == 2);
  CHECK(none.err.find("no kernel or preset matches --filter nothing*") != std::string::npos);
  auto both = fixture("run ci/slow --all");
  CHECK(both.code == 2);
  auto report = fixture("run --all --filter ci/no_presets --report xml=out.xml");
  CHECK(report.code == 2);
  CHECK(report.err.find("use junit=FILE, sarif=FILE or json=FILE") != std::string::npos);
  auto stray = fixture("run ci/no_presets --report junit=x.xml");
  CHECK(stray.code == 2);
  CHECK(stray.err.find("--report works with --all only") != std::string::npos);
  auto shard = fixture("run --all --shard 0/2");
  CHECK(shard.code == 2);
  CHECK(shard.err.find("--shard splits one kernel's run") != std::string::npos);
  auto nothing = fixture("run");
  CHECK(nothing.code == 2);
}

TEST_CASE("case ids and artifact names are safe", "[ci]") {
  CHECK(safe_file_name("demo/lost_update:racy") == "demo.lost_update--racy");
  CHECK(safe_file_name("a b/../c:d*") == "a_b....c--d_");
  CHECK(safe_file_name("../x") == "_...x");
  CiCase c{"k/x", "", {}, Verdict::ok};
  CHECK(c.id() == "k/x");
  c.preset = "p";
  CHECK(c.id() == "k/x:p");
}

TEST_CASE("classify judges outcomes against expectations", "[ci]") {
  auto judged = [](Verdict expect, nlohmann::json summary, int code = 0) {
    CiOutcome o;
    o.c = CiCase{"k", "p", {}, expect};
    o.summary = std::move(summary);
    o.exit_code = code;
    classify(o);
    return o;
  };
  nlohmann::json race{{"verdict", "race"}, {"executions", 3}, {"report", {{"title", "data race on x[0]"}}}};
  nlohmann::json verified{{"verdict", "verified"}, {"executions", 6}, {"report", nullptr}};
  nlohmann::json budget{{"verdict", "no_bug_found"}, {"stopped_by", "time-limit"}, {"report", nullptr}};
  CHECK(judged(Verdict::race, race, 1).passed);
  CHECK(judged(Verdict::ok, verified).passed);
  CHECK(judged(Verdict::ok, budget).passed);
  CHECK(judged(Verdict::ok, budget).verdict == "not exhaustive (time-limit)");
  auto missed = judged(Verdict::race, budget);
  CHECK_FALSE(missed.passed);
  CHECK(missed.reason == "expected race, found no bug (not exhaustive (time-limit))");
  auto other = judged(Verdict::deadlock, race, 1);
  CHECK_FALSE(other.passed);
  CHECK(other.reason == "expected deadlock, found race: data race on x[0]");
  // A bug summary without a report (found by fuzzing: it threw a JSON type error).
  auto bare = judged(Verdict::deadlock, nlohmann::json{{"verdict", "race"}}, 1);
  CHECK(bare.reason == "expected deadlock, found race: a bug");
  auto crashed = judged(Verdict::ok, nullptr, -11);
  CHECK(crashed.error);
  CHECK(crashed.reason == "the run was killed by signal 11");
}

TEST_CASE("SARIF names a race's range as the text report does, once", "[ci]") {
  // Issue 50.18: the message named sOut[0..3], then sOut[0] for each access.
  CiOutcome o;
  o.c = CiCase{"k", "", {}, Verdict::ok};
  nlohmann::json access{{"agent", "w0"}, {"op", "st.shared"}, {"region", "sOut"}, {"first", 0},
                        {"last", 3},     {"write", true},    {"proxy", "generic"}, {"at", "k.cu:7"},
                        {"step", 2}};
  o.summary = {{"verdict", "race"},
               {"report",
                {{"kind", "race"}, {"title", "data race on sOut bytes [0:4]"},
                 {"accesses", {access, access}}, {"details", nlohmann::json::array()}}}};
  o.exit_code = 1;
  classify(o);
  const std::string text = sarif_report({o}, CiOptions{}).dump();
  INFO(text);
  CHECK(text.find("access 1: st.shared (write) of sOut bytes [0:4] by w0, step 2") != std::string::npos);
  CHECK(text.find("access 2: st.shared (write) of sOut bytes [0:4] by w0, step 2") != std::string::npos);
  CHECK(text.find("sOut[0]") == std::string::npos);
}

TEST_CASE("an expected bug that names its race fails CI when a different race is found", "[ci]") {
  auto judged = [](std::vector<std::string> names, nlohmann::json summary) {
    CiOutcome o;
    o.c = CiCase{"k", "p", {}, Verdict::race, false, std::move(names)};
    o.summary = std::move(summary);
    o.exit_code = 1;
    classify(o);
    return o;
  };
  nlohmann::json access{{"region", "sOut"}, {"at", "kernels/x/epi.cpp:87"}, {"agent", "w0"}};
  nlohmann::json race{{"verdict", "race"},
                      {"executions", 3},
                      {"report", {{"title", "data race on desc[0:128]"},
                                  {"accesses", nlohmann::json::array({access})}}}};
  CHECK(judged({}, race).passed);
  CHECK(judged({"sOut"}, race).passed);                          // an access's object
  CHECK(judged({"epi.cpp:87"}, race).passed);                    // an access's site
  CHECK(judged({"sOut", "epi.cpp:87"}, race).passed);            // each must be named
  CHECK_FALSE(judged({"sOu"}, race).passed);                     // objects match whole
  CHECK_FALSE(judged({"data"}, race).passed);                    // the title is not read
  auto other = judged({"epi.cpp:88"}, race);
  CHECK_FALSE(other.passed);
  CHECK(other.reason == "expected race naming epi.cpp:88, found race: data race on desc[0:128], "
                        "which names no epi.cpp:88");
  CHECK_FALSE(judged({"sOut", "sD"}, race).passed);
  // The table says what is expected.
  CiOutcome o = judged({"sOut"}, race);
  CHECK(format_ci_table({o}, CiOptions{}).find("race naming sOut") != std::string::npos);
}

TEST_CASE("naming() follows a preset that expects a bug", "[ci]") {
  CHECK_THROWS_AS(kernel("test/naming_misuse", "").preset("p", {}).naming({"x"}),
                  std::logic_error);
  CHECK_THROWS_AS(kernel("test/naming_misuse", "").naming({"x"}), std::logic_error);
  CHECK_NOTHROW(kernel("test/naming_misuse", "").preset("p", {}, Verdict::race).naming({"x"}));
}
