#include "checker/report/text_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "checker/engine/program_name.hpp"
#include "checker/report/shard_summary.hpp"

namespace heddle {
namespace {
std::string coverage(const RunResult& r) {
  if (r.bug && r.stopped_by == "first bug") return "stopped at the first bug";
  if (r.exhaustive) return "exhaustive";
  if (r.stopped_by == "max-executions") return "not exhaustive: max-executions budget reached";
  if (r.stopped_by == "time-limit") return "not exhaustive: time limit reached";
  if (r.stopped_by == "preemption-bound") return "not exhaustive: preemption bound reached";
  if (r.stopped_by == "interrupted") return "not exhaustive: interrupted";
  if (r.stopped_by == "restriction")
    return "not exhaustive: the model restricted its exploration (" +
           fmt::format("{}", fmt::join(r.restrictions, "; ")) + ")";
  return "not exhaustive";
}

std::string counterexample_line(const Counterexample& c) {
  auto size = [](std::uint32_t steps, std::uint32_t pre) {
    return fmt::format("{} step{}, {} preemption{}", steps, steps == 1 ? "" : "s", pre,
                       pre == 1 ? "" : "s");
  };
  std::string out = "counterexample: " + size(c.steps, c.preemptions);
  if (c.minimized)
    return out + fmt::format(" (minimized from {})", size(c.original_steps,
                                                          c.original_preemptions));
  return out + fmt::format(" (not minimized: {})", c.note);
}

// replay --steps printed each step with its changes: the report says which
// steps the accesses follow instead of printing the schedule a second time
// (issue 50.7).
std::string steps_reference(const Schedule& s, const BugReport& bug) {
  std::size_t steps = 0;
  for (const auto& st : s.steps) steps += st.is_choice() ? 0 : 1;
  std::string out = fmt::format("schedule: the {} step{} above", steps, steps == 1 ? "" : "s");
  for (std::size_t i = 0; i < bug.accesses.size(); ++i)
    out += fmt::format("{} access {} {}", i == 0 ? ";" : ",", i + 1,
                       bug.accesses[i].step == 0
                           ? std::string("before step 1")
                           : fmt::format("in step {}", bug.accesses[i].step));
  return out + "\n";
}

std::string verdict_words(const RunResult& r) {
  if (r.bug) return verdict_name(r.verdict);
  return r.exhaustive ? "verified, no bug in any execution" : "no bug found";
}
}  // namespace

std::string distinct_schedule_file(const std::string& first, std::size_t k) {
  const auto dot = first.rfind(".json");
  const std::string stem = dot != std::string::npos && dot + 5 == first.size() ? first.substr(0, dot) : first;
  return fmt::format("{}.bug{}.json", stem, k + 1);
}

std::string interrupted_line(const RunResult& r) {
  const std::uint64_t n = r.stats.executions;
  const std::size_t bugs = r.bug ? std::max<std::size_t>(1, r.distinct.size()) : 0;
  return fmt::format("interrupted after {} execution{}: {} (not exhaustive)", n, n == 1 ? "" : "s",
                     bugs == 0 ? std::string("no bug so far")
                               : fmt::format("{} bug{} found", bugs, bugs == 1 ? "" : "s"));
}

// A shard (--shard I/N) without a bug covers only its own items: it says
// so and leaves the verdict to `heddle merge` (issue 50.10).
std::string shard_summary_line(const RunResult& r) {
  const SplitInfo& s = *r.split;
  std::uint64_t items = 0;
  for (const auto& o : s.outcomes) items += o.skipped ? 0 : 1;
  std::string out = fmt::format("summary: shard {}/{}: no bug in its {} item{}; merge for the "
                                "verdict; {} execution{} explored",
                                s.shard, s.shards, items, items == 1 ? "" : "s",
                                r.stats.executions, r.stats.executions == 1 ? "" : "s");
  if (!r.exhaustive) out += "; " + coverage(r);
  return out + fmt::format("; {:.3f} s", r.stats.seconds);
}

std::string summary_line(const RunResult& r) {
  if (!r.bug && r.split && r.split->shards > 0) return shard_summary_line(r);
  return fmt::format("summary: {}; {} execution{} explored; {}; {:.3f} s", verdict_words(r),
                     r.stats.executions, r.stats.executions == 1 ? "" : "s", coverage(r),
                     r.stats.seconds);
}

std::string format_schedule(const Schedule& s, const BugReport* bug) {
  std::size_t agent_w = 5, op_w = 9;
  for (const auto& st : s.steps) {
    agent_w = std::max(agent_w, st.agent.size());
    op_w = std::max(op_w, st.op.size());
    for (const auto& copy : st.issued) op_w = std::max(op_w, copy.size() + 6);
  }
  std::string out = fmt::format("schedule ({} step{}):\n", s.steps.size(),
                                s.steps.size() == 1 ? "" : "s");
  out += fmt::format("  {:>4}  {:<{}}  {:<{}}  {}\n", "step", "agent", agent_w, "operation", op_w,
                     "at");
  // A long schedule (a livelock's runs to --max-steps) prints its head and
  // its tail; the schedule file keeps every step.
  constexpr std::size_t kFoldAbove = 200, kHead = 100, kTail = 50;
  const bool fold = s.steps.size() > kFoldAbove;
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const auto& st = s.steps[i];
    if (fold && i >= kHead && i + kTail < s.steps.size()) {
      if (!st.is_choice()) ++n;
      if (i == kHead)
        out += fmt::format("  {:>4}  ({} steps not shown; the schedule file has them all)\n", "...",
                           s.steps.size() - kHead - kTail);
      continue;
    }
    if (st.is_choice()) {
      out += fmt::format("  {:>4}  {:<{}}  choose {} of {}\n", "", "", agent_w, st.value, st.range);
      continue;
    }
    ++n;
    std::string mark;
    if (bug)
      for (std::size_t i = 0; i < bug->accesses.size(); ++i)
        if (bug->accesses[i].step == n) mark += fmt::format("  <- then access {}", i + 1);
    out += fmt::format("  {:>4}  {:<{}}  {:<{}}  {}{}\n", n, st.agent, agent_w, st.op, op_w, st.at,
                       mark);
    // Issuing a copy is a line of its own, numbered within the step that
    // issued it: the engine runs it after the step's operation, as part of
    // the step (not a scheduling point of its own), at the line.
    for (std::size_t c = 0; c < st.issued.size(); ++c)
      out += fmt::format("  {:>4}  {:<{}}  {:<{}}  {}\n", fmt::format("{}.{}", n, c + 1), st.agent,
                         agent_w, "issue " + st.issued[c], op_w,
                         c < st.issued_at.size() ? st.issued_at[c] : std::string());
  }
  return out;
}

std::string format_run(const Kernel& kernel, const Params& params, const RunConfig& config,
                       const RunResult& r, const std::string& schedule_file,
                       const std::string& program, bool steps_above) {
  std::string out =
      fmt::format("{}: kernel {} (strategy {})\n", program_name(), kernel.name, config.strategy);
  if (!params.values().empty()) {
    std::vector<std::string> kv;
    for (auto& [k, v] : params.values()) kv.push_back(k + "=" + v);
    out += fmt::format("params: {}\n", fmt::join(kv, " "));
  }
  if (r.seed) out += fmt::format("seed: {}\n", *r.seed);
  for (const auto& n : r.notes) out += fmt::format("note: {}\n", n);
  if (r.bug) {
    out += "\n" + format_report(*r.bug);
    out += "\n" + (steps_above ? steps_reference(*r.schedule, *r.bug)
                              : format_schedule(*r.schedule, &*r.bug));
    if (r.counterexample) out += counterexample_line(*r.counterexample) + "\n";
    if (!schedule_file.empty())
      out += fmt::format("replay with: {} replay {}\n", program, schedule_file);
  }
  if (r.distinct.size() > 1) {  // --keep-going: every other distinct bug, each minimized
    out += fmt::format("\ndistinct bugs: {} (by kind and source sites)\n", r.distinct.size());
    for (std::size_t k = 1; k < r.distinct.size(); ++k) {
      const DistinctBug& d = r.distinct[k];
      out += fmt::format("\nbug {} of {} ({} execution{}):\n", k + 1, r.distinct.size(),
                         d.executions, d.executions == 1 ? "" : "s");
      out += format_report(d.bug) + "\n" + format_schedule(d.schedule, &d.bug);
      if (d.counterexample) out += counterexample_line(*d.counterexample) + "\n";
      if (!schedule_file.empty())
        out += fmt::format("replay with: {} replay {}\n", program,
                           distinct_schedule_file(schedule_file, k));
    }
  }
  out += fmt::format("\nexecutions: {} (with a bug: {}, deadlocked: {}, sleep-set blocked: {}); "
                     "max depth: {} steps\n",
                     r.stats.executions, r.stats.buggy, r.stats.deadlocked, r.stats.sleep_blocked,
                     r.stats.max_depth);
  if (r.stats.abandoned > 0)
    out += fmt::format("abandoned schedules (a moved wait turned out blocked; not executions): {}\n",
                       r.stats.abandoned);
  if (r.stats.discarded > 0)
    out += fmt::format("discarded by a failed assume() (not executions): {}\n", r.stats.discarded);
  if (r.stopped_by == "interrupted") out += interrupted_line(r) + "\n";
  out += summary_line(r) + "\n";
  return out;
}

nlohmann::json summary_json(const Kernel& kernel, const Params& params, const RunConfig& config,
                            const RunResult& r) {
  nlohmann::json j;
  j["heddle_version"] = kHeddleVersion;
  j["kernel"] = kernel.name;
  j["params"] = params.values();
  j["strategy"] = config.strategy;
  j["verdict"] = r.bug ? verdict_name(r.verdict) : (r.exhaustive ? "verified" : "no_bug_found");
  j["executions"] = r.stats.executions;
  j["exhaustive"] = r.exhaustive;
  j["stopped_by"] = r.stopped_by;
  j["stats"] = {{"buggy", r.stats.buggy}, {"deadlocked", r.stats.deadlocked},
                {"sleep_blocked", r.stats.sleep_blocked}, {"abandoned", r.stats.abandoned},
                {"discarded", r.stats.discarded},
                {"max_depth", r.stats.max_depth},
                {"seconds", r.stats.seconds}};
  j["notes"] = r.notes;
  if (!r.restrictions.empty()) j["restricted"] = r.restrictions;
  j["report"] = r.bug ? report_to_json(*r.bug) : nlohmann::json();
  if (r.seed) j["seed"] = *r.seed;
  j["kernel_at"] = kernel.at;
  if (r.schedule) {
    nlohmann::json steps = nlohmann::json::array();
    std::uint32_t n = 0;
    for (const auto& st : r.schedule->steps)
      if (!st.is_choice())
        steps.push_back({{"step", ++n}, {"agent", st.agent}, {"op", st.op}, {"at", st.at}});
    j["schedule"] = steps;
  }
  if (r.counterexample) {
    const Counterexample& c = *r.counterexample;
    j["counterexample"] = {{"steps", c.steps}, {"preemptions", c.preemptions},
                           {"original_steps", c.original_steps},
                           {"original_preemptions", c.original_preemptions},
                           {"minimized", c.minimized}, {"note", c.note}};
  }
  if (r.split) j["split"] = split_json(*r.split, r);
  if (!r.distinct.empty()) {
    nlohmann::json bugs = nlohmann::json::array();
    for (const auto& d : r.distinct)
      bugs.push_back({{"key", d.key}, {"executions", d.executions}, {"report", report_to_json(d.bug)},
                      {"steps", d.schedule.steps.size()}});
    j["distinct_bugs"] = bugs;
  }
  return j;
}

}  // namespace heddle
