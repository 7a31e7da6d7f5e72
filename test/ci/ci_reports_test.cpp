// JUnit XML and SARIF 2.1.0 reports: required structure and expected entries.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "test/ci/ci_support.hpp"
#include "test/ci/mini_xml.hpp"

using namespace heddle::test;
using nlohmann::json;

namespace {
/// "file:N" -> N.
long line_of(const std::string& at) { return std::stol(at.substr(at.rfind(':') + 1)); }
std::string file_of(const std::string& at) { return at.substr(0, at.rfind(':')); }

/// Checks the SARIF 2.1.0 fields the schema requires (sarif-schema-2.1.0.json:
/// top-level version and runs; run.tool.driver.name; result.message; and for
/// each location a physicalLocation with an artifactLocation).
void check_sarif_shape(const json& s) {
  REQUIRE(s.is_object());
  CHECK(s["version"] == "2.1.0");
  CHECK(s["$schema"].get<std::string>().find("sarif-2.1.0") != std::string::npos);
  REQUIRE(s["runs"].is_array());
  REQUIRE(s["runs"].size() == 1);
  const json& run = s["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "heddle");
  std::set<std::string> rule_ids;
  for (const auto& rule : run["tool"]["driver"]["rules"]) rule_ids.insert(rule["id"]);
  REQUIRE(run["results"].is_array());
  for (const auto& r : run["results"]) {
    REQUIRE(r["ruleId"].is_string());
    CHECK(rule_ids.count(r["ruleId"]) == 1);
    CHECK(run["tool"]["driver"]["rules"][r["ruleIndex"].get<int>()]["id"] == r["ruleId"]);
    REQUIRE(r["message"]["text"].is_string());
    CHECK(std::set<std::string>{"none", "note", "warning", "error"}.count(r["level"]) == 1);
    REQUIRE(r["locations"].is_array());
    for (const auto& loc : r["locations"]) {
      CHECK(loc["physicalLocation"]["artifactLocation"]["uri"].is_string());
      CHECK(loc["physicalLocation"]["region"]["startLine"].get<long>() >= 1);
    }
  }
}
}  // namespace

TEST_CASE("SARIF: each race is a result located at both source lines", "[ci]") {
  std::string dir = temp_dir();
  auto r = fixture("run --all --quiet --filter 'ci/[pw]*' --artifacts " + dir + "/art --report sarif=" +
                   dir + "/s.sarif");
  REQUIRE(r.code == 1);  // ci/wrong_expectation fails
  json s = json::parse(slurp(dir + "/s.sarif"));
  check_sarif_shape(s);
  const json& results = s["runs"][0]["results"];
  // Races found: ci/pipeline:racy (expected) and ci/wrong_expectation:claims_safe (not).
  REQUIRE(results.size() == 2);
  const std::string fixture_file = "test/ci/fixture_kernels.cpp";
  for (const auto& res : results) {
    CHECK(res["ruleId"] == "race");
    REQUIRE(res["locations"].size() == 2);
    REQUIRE(res["relatedLocations"].size() == 2);
    for (const auto& loc : res["locations"])
      CHECK(loc["physicalLocation"]["artifactLocation"]["uri"] == fixture_file);
  }
  const json& pipeline = results[0]["properties"]["kernel"] == "ci/pipeline" ? results[0] : results[1];
  const json& wrong = results[0]["properties"]["kernel"] == "ci/pipeline" ? results[1] : results[0];
  CHECK(pipeline["level"] == "note");  // the documented buggy variant
  CHECK(wrong["level"] == "error");
  CHECK(pipeline["properties"]["schedule"] == dir + "/art/ci.pipeline--racy.json");
  std::set<long> lines;
  for (const auto& loc : pipeline["locations"])
    lines.insert(loc["physicalLocation"]["region"]["startLine"].get<long>());
  CHECK(lines == std::set<long>{line_of(source_line(fixture_file, "// consumer read")),
                                line_of(source_line(fixture_file, "// copy phase"))});
  CHECK(file_of(source_line(fixture_file, "// copy phase")) == fixture_file);
  std::filesystem::remove_all(dir);
}

TEST_CASE("JUnit: one testcase per kernel/preset, failures for unexpected outcomes", "[ci]") {
  std::string dir = temp_dir();
  auto r = fixture("run --all --quiet --filter 'ci/[pwc]*' --report junit=" + dir + "/j.xml");
  REQUIRE(r.code == 1);
  XmlNode root = parse_xml(slurp(dir + "/j.xml"));
  REQUIRE(root.name == "testsuites");
  auto suites = find_all(root, "testsuite");
  REQUIRE(suites.size() == 1);
  auto cases = find_all(root, "testcase");
  // ci/crash (defaults), ci/pipeline racy+fixed, ci/wrong_expectation claims_race+claims_safe.
  REQUIRE(cases.size() == 5);
  CHECK(root.attr("tests") == "5");
  CHECK(suites[0]->attr("tests") == "5");
  CHECK(suites[0]->attr("failures") == "2");
  CHECK(suites[0]->attr("errors") == "1");
  std::map<std::string, const XmlNode*> by_name;
  for (auto* c : cases) {
    CHECK(!c->attr("classname").empty());
    CHECK(!c->attr("time").empty());
    by_name[c->attr("classname") + "/" + c->attr("name")] = c;
  }
  auto failures = [&](const std::string& key, const std::string& tag) {
    REQUIRE(by_name.count(key) == 1);
    return find_all(*by_name[key], tag).size();
  };
  CHECK(failures("ci.pipeline/racy", "failure") == 0);
  CHECK(failures("ci.pipeline/fixed", "failure") == 0);
  CHECK(failures("ci.crash/defaults", "error") == 1);
  CHECK(failures("ci.wrong_expectation/claims_race", "failure") == 1);
  REQUIRE(failures("ci.wrong_expectation/claims_safe", "failure") == 1);
  const XmlNode* f = find_all(*by_name["ci.wrong_expectation/claims_safe"], "failure")[0];
  CHECK(f->attr("message") == "expected no bug, found race: data race on x[0]");
  CHECK(f->text.find("schedule (") != std::string::npos);  // the counterexample itself
  std::filesystem::remove_all(dir);
}

TEST_CASE("the XML reader rejects malformed documents", "[ci]") {
  CHECK_NOTHROW(parse_xml("<?xml version=\"1.0\"?>\n<a x='1'><b/>t &amp; u</a>"));
  CHECK_THROWS(parse_xml("<a><b></a>"));
  CHECK_THROWS(parse_xml("<a x=1></a>"));
  CHECK_THROWS(parse_xml("<a>x & y</a>"));
  CHECK_THROWS(parse_xml("<a>"));
}
