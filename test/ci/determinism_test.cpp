// Determinism (issue 18, item 5): the CI job over every in-tree kernel, run
// twice, writes byte-identical reports and counterexamples except for wall
// times; replaying each counterexample reproduces its bug, and two replays
// draw the same report, timeline and Chrome trace.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "test/ci/ci_support.hpp"

using namespace heddle;
using namespace heddle::test;
namespace fs = std::filesystem;

namespace {
/// `text` with its wall times replaced by "T": durations ("0.041 s", JUnit
/// time="..." and timestamp="...", JSON "seconds") and the padding that
/// aligns them in tables.
std::string without_times(const std::string& text, const std::string& dir = "") {
  static const std::regex seconds(R"([0-9]+\.[0-9]+ s\b)"), junit(R"((time|timestamp)="[^"]*")"),
      json(R"("seconds": *[-0-9.eE+]+)"), spaces(" +");
  std::string out = text;
  for (auto at = dir.empty() ? std::string::npos : out.find(dir); at != std::string::npos;
       at = out.find(dir, at))
    out.replace(at, dir.size(), "DIR");  // the artifacts' directory, named in replay hints
  out = std::regex_replace(out, seconds, "T s");
  out = std::regex_replace(out, junit, "$1=\"T\"");
  out = std::regex_replace(out, json, "\"seconds\": T");
  return std::regex_replace(out, spaces, " ");
}

/// The CI job over every in-tree kernel, with every report and artifact, in `dir`.
CliResult ci_job(const std::string& dir) {
  return cli("run --all --quiet --artifacts " + dir + "/art --report junit=" + dir +
             "/job.xml --report sarif=" + dir + "/job.sarif --report json=" + dir + "/job.json");
}
}  // namespace

TEST_CASE("the CI job run twice writes the same reports and counterexamples, but for wall times, "
          "and every counterexample replays to its bug",
          "[ci][determinism]") {
  const std::string a = temp_dir(), b = temp_dir();
  CliResult first = ci_job(a), second = ci_job(b);
  INFO(first.out << first.err);
  REQUIRE(first.code == 0);
  REQUIRE(second.code == 0);
  CHECK(without_times(first.out, a) == without_times(second.out, b));
  for (const char* report : {"job.xml", "job.sarif", "job.json"}) {
    INFO(report);
    CHECK(without_times(slurp(a + "/" + report), a) == without_times(slurp(b + "/" + report), b));
  }
  std::size_t replayed = 0;
  for (const auto& entry : fs::directory_iterator(a + "/art")) {
    const std::string name = entry.path().filename().string();
    INFO(name);
    const std::string cex = slurp(entry.path().string());
    REQUIRE(fs::exists(b + "/art/" + name));
    CHECK(cex == slurp(b + "/art/" + name));  // no wall time in a schedule file
    // The replay reproduces the recorded bug: exit 1, its title, and no
    // "the replay shows ... but the schedule file records ..." warning.
    std::vector<std::string> outputs;
    for (const std::string& dir : {a, b}) {
      const std::string out = dir + "/" + name;
      CliResult r = cli("replay " + entry.path().string() + " --timeline " + out + ".svg" +
                        " --chrome-trace " + out + ".trace.json");
      INFO(r.out << r.err);
      CHECK(r.code == 1);
      CHECK(r.err.find("warning") == std::string::npos);
      auto title = nlohmann::json::parse(cex)["bug"]["title"].get<std::string>();
      CHECK(r.out.find(title) != std::string::npos);
      outputs.push_back(without_times(r.out, dir) + slurp(out + ".svg") +
                        slurp(out + ".trace.json"));
    }
    CHECK(outputs[0] == outputs[1]);
    ++replayed;
  }
  // Every case that found a bug left a counterexample, and each was replayed.
  std::size_t bugs = 0;
  const auto job = nlohmann::json::parse(slurp(a + "/job.json"));
  for (const auto& c : job["cases"]) {
    INFO(c["id"]);
    const bool bug = c["summary"].is_object() && !c["summary"]["report"].is_null();
    CHECK(bug == !c["artifact"].is_null());
    bugs += bug;
  }
  CHECK(bugs >= 5);
  CHECK(replayed == bugs);
  fs::remove_all(a);
  fs::remove_all(b);
}
