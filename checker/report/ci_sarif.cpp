// SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format", sections
// 3.13 run, 3.19 tool, 3.27 result, 3.28 location) for code-scanning UIs.
#include <fmt/format.h>

#include <array>
#include <regex>

#include "checker/report/ci_reports.hpp"

namespace heddle {
namespace {
using nlohmann::json;

struct Rule {
  const char* id;
  const char* text;
};
constexpr std::array<Rule, 6> kRules{{
    {"race", "Data race: two accesses to the same bytes, one a write, neither happens before "
             "the other"},
    {"deadlock", "Deadlock: no agent can move and some thread has not finished"},
    {"assertion", "A model assertion (heddle::check) failed"},
    {"model_error", "The model misused a primitive or threw"},
    {"livelock", "An execution exceeded the step bound (livelock or unbounded spin)"},
    {"async_error", "An asynchronous operation was left unfinished or misused"},
}};

int rule_index(const std::string& id) {
  for (std::size_t i = 0; i < kRules.size(); ++i)
    if (id == kRules[i].id) return static_cast<int>(i);
  return -1;
}

/// A SARIF location for "file:line" (relative paths are against %SRCROOT%).
json location(const std::string& at, const std::string& message) {
  auto colon = at.rfind(':');
  std::string file = colon == std::string::npos ? at : at.substr(0, colon);
  long line = colon == std::string::npos ? 0 : std::strtol(at.c_str() + colon + 1, nullptr, 10);
  json artifact = file.starts_with("/") ? json{{"uri", "file://" + file}}
                                         : json{{"uri", file}, {"uriBaseId", "%SRCROOT%"}};
  json physical{{"artifactLocation", artifact}};
  if (line > 0) physical["region"] = {{"startLine", line}};
  json loc{{"physicalLocation", physical}};
  if (!message.empty()) loc["message"] = {{"text", message}};
  return loc;
}

std::string access_text(const json& a, int n) {
  return fmt::format("access {}: {} ({}) of {}[{}] by {} ({} proxy), step {}", n,
                     a.value("op", ""), a.value("write", false) ? "write" : "read",
                     a.value("region", ""), a.value("first", 0), a.value("agent", ""),
                     a.value("proxy", ""), a.value("step", 0));
}

json result(const CiOutcome& r) {
  const json& rep = r.summary["report"];
  const std::string kind = rep.value("kind", "model_error");
  const bool expected = r.passed;
  std::string text = fmt::format("{}: {}", r.c.id(), rep.value("title", kind));
  json locations = json::array(), related = json::array();
  const json& accesses = rep.value("accesses", json::array());
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    int n = static_cast<int>(i) + 1;
    locations.push_back(location(accesses[i].value("at", ""), access_text(accesses[i], n)));
    json rel = location(accesses[i].value("at", ""), access_text(accesses[i], n));
    rel["id"] = n;
    related.push_back(rel);
    text += "; " + access_text(accesses[i], n) + " at " + accesses[i].value("at", "");
  }
  if (accesses.empty()) {
    // Other bugs name their source lines in details: "at FILE:LINE".
    static const std::regex at(R"(\bat (\S+:[0-9]+))");
    for (const auto& d : rep.value("details", json::array())) {
      std::smatch m;
      std::string line = d.get<std::string>();
      if (std::regex_search(line, m, at)) locations.push_back(location(m[1], line));
    }
  }
  for (const auto& d : rep.value("details", json::array())) text += "; " + d.get<std::string>();
  if (expected) text += " (expected: a documented buggy variant)";
  json res{{"ruleId", kind}, {"level", expected ? "note" : "error"},
           {"message", {{"text", text}}}, {"locations", locations}};
  if (int i = rule_index(kind); i >= 0) res["ruleIndex"] = i;
  if (!related.empty()) res["relatedLocations"] = related;
  res["partialFingerprints"] = {{"heddleCase/v1", r.c.id() + "|" + rep.value("title", "")}};
  json props{{"kernel", r.c.kernel}, {"preset", r.c.preset}, {"expected", expected},
             {"params", r.summary.value("params", json::object())}};
  if (!r.artifact.empty()) props["schedule"] = r.artifact;
  res["properties"] = props;
  return res;
}
}  // namespace

json sarif_report(const std::vector<CiOutcome>& outs) {
  json rules = json::array();
  for (const auto& rule : kRules)
    rules.push_back({{"id", rule.id},
                     {"shortDescription", {{"text", rule.text}}},
                     {"defaultConfiguration", {{"level", "error"}}}});
  json results = json::array();
  for (const auto& r : outs)
    if (!r.summary.is_null() && r.summary.contains("report") && !r.summary["report"].is_null())
      results.push_back(result(r));
  json run{{"tool", {{"driver", {{"name", "heddle"}, {"version", "0.1.0"}, {"rules", rules}}}}},
           {"results", results},
           {"columnKind", "unicodeCodePoints"}};
  return json{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
}

}  // namespace heddle
