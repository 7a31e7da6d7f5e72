// SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format", sections
// 3.13 run, 3.19 tool, 3.27 result, 3.28 location, 3.36 codeFlow, 3.37
// threadFlow, 3.38 threadFlowLocation) for code-scanning UIs.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <regex>

#include "checker/engine/interrupt.hpp"
#include "checker/engine/range_words.hpp"
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

// One access in words, naming its proxy only when some access of the race
// is not generic (as the text report does).
// Its range is the whole range the text report names, as the title says it
// (issue 50.18: the message named sOut[0..3], then sOut[0]).
std::string access_text(const json& accesses, std::size_t i, const std::string& title) {
  bool proxies = false;
  for (const auto& a : accesses) proxies |= a.value("proxy", "generic") != "generic";
  const json& a = accesses[i];
  const std::string region = a.value("region", "");
  const std::uint64_t first = a.value("first", 0u), last = std::max<std::uint64_t>(first, a.value("last", first));
  return fmt::format("access {}: {} ({}) of {} by {}{}, step {}", i + 1, a.value("op", ""),
                     a.value("write", false) ? "write" : "read",
                     range_words(region, unit_in_title(title, region), first, last + 1 - first),
                     a.value("agent", ""),
                     proxies ? fmt::format(" ({} proxy)", a.value("proxy", "")) : "",
                     a.value("step", 0));
}

// The source sites a report names: both accesses of a race, else each
// "at FILE:LINE" of its details, in order.
json named_locations(const json& rep) {
  json locations = json::array();
  const json& accesses = rep.value("accesses", json::array());
  for (std::size_t i = 0; i < accesses.size(); ++i)
    locations.push_back(location(accesses[i].value("at", ""),
                                 access_text(accesses, i, rep.value("title", ""))));
  if (!accesses.empty()) return locations;
  static const std::regex at(R"(\bat (\S+:[0-9]+))");
  for (const auto& d : rep.value("details", json::array())) {
    std::smatch m;
    std::string line = d.get<std::string>();
    if (std::regex_search(line, m, at)) locations.push_back(location(m[1], line));
  }
  return locations;
}

// A result always has a location (code-scanning UIs drop results without
// one): the sites the report names, else the step at which the bug showed
// in its schedule, else where the kernel was declared.
json result_locations(const json& summary, const json& rep) {
  json locations = named_locations(rep);
  if (!locations.empty()) return locations;
  const json& steps = summary.value("schedule", json::array());
  const auto step = rep.value("step", std::size_t{0});
  if (!steps.empty()) {
    const json& st = step >= 1 && step <= steps.size() ? steps[step - 1] : steps.back();
    locations.push_back(location(st.value("at", ""), fmt::format("step {}: {} runs {}",
                                                                 st.value("step", 0),
                                                                 st.value("agent", ""),
                                                                 st.value("op", ""))));
  } else {
    locations.push_back(location(summary.value("kernel_at", ""), "the kernel's declaration"));
  }
  return locations;
}

// The counterexample as a code flow: one thread flow per agent, each step a
// threadFlowLocation whose executionOrder (3.38.11) is its schedule step.
json code_flows(const json& summary, const std::string& replay) {
  const json& steps = summary.value("schedule", json::array());
  if (steps.empty()) return nullptr;
  std::vector<std::string> agents;
  std::map<std::string, json> flows;
  for (const auto& st : steps) {
    const std::string agent = st.value("agent", "");
    if (!flows.count(agent)) {
      agents.push_back(agent);
      flows[agent] = json{{"id", agent}, {"message", {{"text", agent}}},
                          {"locations", json::array()}};
    }
    const int n = st.value("step", 0);
    flows[agent]["locations"].push_back(
        {{"executionOrder", n},
         {"location", location(st.value("at", ""), fmt::format("step {}: {} runs {}", n, agent,
                                                                st.value("op", "")))}});
  }
  json threads = json::array();
  for (const auto& a : agents) threads.push_back(flows[a]);
  std::string text = fmt::format("counterexample schedule, {} steps", steps.size());
  if (!replay.empty()) text += "; replay with: " + replay;
  return json::array({{{"message", {{"text", text}}}, {"threadFlows", threads}}});
}

json result(const CiOutcome& r, const CiOptions& o) {
  const json& rep = r.summary["report"];
  const std::string kind = rep.value("kind", "model_error");
  const bool expected = r.passed;
  std::string text = fmt::format("{}: {}", r.c.id(), rep.value("title", kind));
  json related = json::array();
  const json& accesses = rep.value("accesses", json::array());
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    int n = static_cast<int>(i) + 1;
    const std::string words = access_text(accesses, i, rep.value("title", ""));
    json rel = location(accesses[i].value("at", ""), words);
    rel["id"] = n;
    related.push_back(rel);
    text += "; " + words + " at " + accesses[i].value("at", "");
  }
  for (const auto& d : rep.value("details", json::array())) text += "; " + d.get<std::string>();
  if (expected) text += " (expected: a documented buggy variant)";
  json res{{"ruleId", kind}, {"level", expected ? "note" : "error"},
           {"message", {{"text", text}}}, {"locations", result_locations(r.summary, rep)}};
  if (int i = rule_index(kind); i >= 0) res["ruleIndex"] = i;
  if (!related.empty()) res["relatedLocations"] = related;
  const std::string replay = r.artifact.empty() ? "" : o.program + " replay " + r.artifact;
  if (json flows = code_flows(r.summary, replay); !flows.is_null()) res["codeFlows"] = flows;
  res["partialFingerprints"] = {{"heddleCase/v1", r.c.id() + "|" + rep.value("title", "")}};
  json props{{"kernel", r.c.kernel}, {"preset", r.c.preset}, {"expected", expected},
             {"params", r.summary.value("params", json::object())}};
  if (!r.artifact.empty()) props["schedule"] = r.artifact;
  res["properties"] = props;
  return res;
}
}  // namespace

json sarif_report(const std::vector<CiOutcome>& outs, const CiOptions& o) {
  json rules = json::array();
  for (const auto& rule : kRules)
    rules.push_back({{"id", rule.id},
                     {"shortDescription", {{"text", rule.text}}},
                     {"defaultConfiguration", {{"level", "error"}}}});
  json results = json::array();
  for (const auto& r : outs)
    if (!r.summary.is_null() && r.summary.contains("report") && !r.summary["report"].is_null())
      results.push_back(result(r, o));
  json run{{"tool", {{"driver", {{"name", "heddle"}, {"version", "0.1.0"}, {"rules", rules}}}}},
           {"results", results},
           {"columnKind", "unicodeCodePoints"}};
  if (o.interrupted_by != 0)  // SARIF 2.1.0 section 3.20: the run did not finish
    run["invocations"] = json::array({{{"executionSuccessful", false},
                                       {"exitSignalName", signal_name(o.interrupted_by)},
                                       {"exitCode", interrupted_exit_code(o.interrupted_by)}}});
  return json{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
}

}  // namespace heddle
