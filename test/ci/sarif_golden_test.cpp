// The SARIF golden file (test/ci/golden/ci-job.sarif): a race, a deadlock,
// an exit error, an assertion and a setup error (test/ci/golden_kernels.cpp),
// each located, each with a schedule also with its counterexample as a code
// flow. HEDDLE_UPDATE_GOLDEN=1 rewrites the golden file.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "test/ci/ci_support.hpp"

using namespace heddle::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
const std::string kKernels = "test/ci/golden_kernels.cpp";

long line_of(const std::string& at) { return std::stol(at.substr(at.rfind(':') + 1)); }

long start_line(const json& loc) {
  return loc["physicalLocation"]["region"]["startLine"].get<long>();
}

/// The SARIF result of kernel `kernel` in `s`.
json result_of(const json& s, const std::string& kernel) {
  for (const auto& r : s["runs"][0]["results"])
    if (r["properties"]["kernel"] == kernel) return r;
  FAIL("no SARIF result for " << kernel);
  return nullptr;
}

/// The lines of the result's locations.
std::set<long> lines_of(const json& r) {
  std::set<long> out;
  for (const auto& loc : r["locations"]) out.insert(start_line(loc));
  return out;
}

/// Every result's code flow holds each schedule step once, in thread flows
/// by agent, with executionOrder 1..N.
void check_code_flow(const json& r) {
  REQUIRE(r["codeFlows"].size() == 1);
  std::set<int> orders;
  std::size_t steps = 0;
  for (const auto& flow : r["codeFlows"][0]["threadFlows"]) {
    CHECK(flow["id"].is_string());
    int last = 0;
    for (const auto& loc : flow["locations"]) {
      int n = loc["executionOrder"].get<int>();
      CHECK(n > last);  // program order within one agent
      last = n;
      orders.insert(n);
      ++steps;
      CHECK(start_line(loc["location"]) >= 1);
      CHECK(loc["location"]["message"]["text"].get<std::string>().starts_with(
          "step " + std::to_string(n) + ": "));
    }
  }
  REQUIRE(steps >= 1);
  CHECK(orders.size() == steps);
  CHECK(*orders.begin() == 1);
  CHECK(*orders.rbegin() == static_cast<int>(steps));
}
}  // namespace

TEST_CASE("SARIF results are located and carry the counterexample as a code flow", "[ci]") {
  std::string dir = temp_dir();
  auto r = fixture("run --all --quiet --filter 'golden/*' --report sarif=" + dir + "/s.sarif");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);  // every golden kernel's bug is its preset's expectation
  json s = json::parse(slurp(dir + "/s.sarif"));
  REQUIRE(s["runs"][0]["results"].size() == 5);
  for (const auto& res : s["runs"][0]["results"]) {
    INFO(res.dump(1));
    REQUIRE(!res["locations"].empty());
    if (res["properties"]["kernel"] != "golden/setup_throws") check_code_flow(res);
  }
  auto line = [](const char* marker) { return line_of(source_line(kKernels, marker)); };
  json race = result_of(s, "golden/race");
  CHECK(race["ruleId"] == "race");
  CHECK(lines_of(race) ==
        std::set<long>{line("// golden: the write"), line("check(data.load(0) == 7")});
  json deadlock = result_of(s, "golden/deadlock");
  CHECK(deadlock["ruleId"] == "deadlock");
  CHECK(lines_of(deadlock) ==
        std::set<long>{line("// golden: T0 blocks"), line("// golden: T1 blocks")});
  json exit = result_of(s, "golden/exit");
  CHECK(exit["ruleId"] == "async_error");
  CHECK(lines_of(exit) == std::set<long>{line("// golden: the DMA never waited")});
  json assertion = result_of(s, "golden/assertion");
  CHECK(assertion["ruleId"] == "assertion");
  CHECK(lines_of(assertion) == std::set<long>{line("// golden: the check")});
  // A report that names no source line is located at the kernel's declaration,
  // and a failure in setup has no schedule to show as a code flow.
  json setup = result_of(s, "golden/setup_throws");
  CHECK(setup["ruleId"] == "model_error");
  CHECK(lines_of(setup) == std::set<long>{line("kernel(\"golden/setup_throws\"")});
  CHECK(setup["locations"][0]["message"]["text"].get<std::string>().find(
            "declared at test/ci/golden_kernels.cpp") != std::string::npos);
  CHECK_FALSE(setup.contains("codeFlows"));

  const fs::path golden = fs::path(HEDDLE_SOURCE_ROOT) / "test/ci/golden/ci-job.sarif";
  if (std::getenv("HEDDLE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden) << s.dump(2) << "\n";
    WARN("rewrote " << golden.string() << ": read its difference before committing it");
  }
  REQUIRE(fs::exists(golden));
  json want = json::parse(slurp(golden.string()));
  // Whole results compared one by one, so a failure names the kernel.
  REQUIRE(want["runs"][0]["results"].size() == s["runs"][0]["results"].size());
  for (std::size_t i = 0; i < want["runs"][0]["results"].size(); ++i) {
    INFO(want["runs"][0]["results"][i]["properties"]["kernel"]);
    CHECK(s["runs"][0]["results"][i].dump(1) == want["runs"][0]["results"][i].dump(1));
  }
  CHECK(s["runs"][0]["tool"] == want["runs"][0]["tool"]);
  fs::remove_all(dir);
}
