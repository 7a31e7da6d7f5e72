// A timeline as Chrome trace event format JSON ("Trace Event Format",
// Google, 2016): complete events ("X") for steps, issues, racing accesses
// and in-flight intervals, flow events ("s"/"f") for happens-before edges,
// instants ("i") for accesses. Within a step's millisecond its operation
// comes first, then the copies it issues, then its racing accesses: a flow
// binds to the operation's slice (not to the accesses after it), as
// happens-before does.
#include <fmt/format.h>

#include "checker/report/timeline.hpp"

namespace heddle {
namespace {
using nlohmann::json;
constexpr double kStepUs = 1000;   // one step is drawn as 1 ms
constexpr double kOpUs = 400;      // its operation's slice
constexpr double kIssueUs = 420;   // then the copies it issues
constexpr double kAccessUs = 540;  // then its racing accesses, 300 us
constexpr double kLoneUs = 880;    // an access before its agent's first step, 100 us

json event(const char* ph, std::string name, std::size_t agent, double ts) {
  return json{{"ph", ph}, {"name", std::move(name)}, {"pid", 1}, {"tid", agent + 1}, {"ts", ts}};
}
}  // namespace

json chrome_trace(const Timeline& t) {
  json events = json::array();
  std::vector<std::string> kv;
  for (const auto& [k, v] : t.params) kv.push_back(k + "=" + v);
  json meta = event("M", "process_name", 0, 0);
  meta["args"] = {{"name", fmt::format("heddle: {} {}", t.kernel, fmt::join(kv, " "))}};
  events.push_back(meta);
  for (std::size_t i = 0; i < t.agents.size(); ++i) {
    const auto& a = t.agents[i];
    json name = event("M", "thread_name", i, 0);
    name["args"] = {{"name", a.async ? a.name + " (async, issued by " + a.issuer + ")" : a.name}};
    json order = event("M", "thread_sort_index", i, 0);
    order["args"] = {{"sort_index", i}};
    events.push_back(name);
    events.push_back(order);
    if (!a.async) continue;
    double from = a.issued_at * kStepUs + (a.issued_at ? kIssueUs : 0);
    double to = a.completed_at ? a.completed_at * kStepUs + kOpUs
                               : (static_cast<double>(t.steps.size()) + 1) * kStepUs;
    json bar = event("X", "in flight", i, from);
    bar["cat"] = "inflight";
    bar["dur"] = to - from;
    bar["args"] = {{"issued_at_step", a.issued_at}, {"completed_at_step", a.completed_at}};
    events.push_back(bar);
  }
  // Per step: the copies it issues, and how many of them are drawn so far.
  std::vector<double> issues(t.steps.size() + 1, 0), drawn(t.steps.size() + 1, 0);
  auto issued_in_step = [&](const TimelineAgent& a) {
    return a.async && a.issued_at >= 1 && a.issued_at <= t.steps.size();
  };
  for (const auto& a : t.agents)
    if (issued_in_step(a)) ++issues[a.issued_at];
  for (const auto& a : t.agents) {
    if (!issued_in_step(a)) continue;
    const auto& s = t.steps[a.issued_at - 1];
    double each = (kAccessUs - kIssueUs - 10) / issues[s.step];
    json e = event("X", "issue " + a.name, s.agent, s.step * kStepUs + kIssueUs + each * drawn[s.step]++);
    e["cat"] = "issue";
    e["dur"] = each * 0.8;
    e["args"] = {{"step", s.step}, {"copy", a.name}, {"at", a.issued_where}};
    events.push_back(e);
  }
  for (const auto& s : t.steps) {
    json e = event("X", s.op, s.agent, s.step * kStepUs);
    e["cat"] = "step";
    e["dur"] = kOpUs;
    e["args"] = {{"step", s.step}, {"at", s.at}, {"in_causal_past", s.in_past}};
    for (std::size_t k = 0; k < t.accesses.size(); ++k)
      if (t.accesses[k].own_step && t.accesses[k].column == s.step)
        e["args"]["racing_access"] = k + 1;
    events.push_back(e);
  }
  for (std::size_t k = 0; k < t.accesses.size(); ++k) {
    const auto& a = t.accesses[k];
    double ts = a.column * kStepUs + (a.own_step ? kAccessUs : kLoneUs);
    std::string what = fmt::format("access {}: {} {}[{}]", k + 1, a.info.write ? "write" : "read",
                                   a.info.region, a.info.first);
    json slice = event("X", what, a.agent, ts);
    slice["cat"] = "access";
    slice["dur"] = a.own_step ? 300 : 100;
    slice["args"] = {{"op", a.info.op}, {"at", a.info.at}, {"step", a.info.step}};
    events.push_back(slice);
    json e = event("i", "RACE " + what, a.agent, ts + 10);
    e["s"] = "t";
    e["cat"] = "race";
    e["args"] = {{"op", a.info.op}, {"at", a.info.at}, {"proxy", a.info.proxy},
                 {"step", a.info.step}};
    events.push_back(e);
  }
  int id = 0;
  for (const auto& e : t.edges) {
    const auto& from = t.steps[e.from - 1];
    std::size_t to_agent = e.to ? t.steps[e.to - 1].agent : t.accesses[e.access].agent;
    double to_ts = e.to ? e.to * kStepUs + kOpUs / 2
                        : t.accesses[e.access].column * kStepUs + kLoneUs + 50;
    // A creation leaves the issue (after the operation); other edges its operation.
    const bool issue = e.creation && t.agents[to_agent].async;
    double from_ts = e.from * kStepUs + (issue ? kIssueUs + 5 : kOpUs / 2);
    json s = event("s", e.creation ? "spawn/issue" : "happens-before", from.agent, from_ts);
    json f = event("f", s["name"], to_agent, to_ts);
    s["cat"] = f["cat"] = "hb";
    s["id"] = f["id"] = ++id;
    f["bp"] = "e";
    events.push_back(s);
    events.push_back(f);
  }
  return json{{"traceEvents", events},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"kernel", t.kernel}, {"verdict", t.verdict}, {"title", t.title}}}};
}

}  // namespace heddle
