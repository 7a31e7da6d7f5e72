#include "checker/cli/ci_job.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

#include "checker/engine/errors.hpp"
#include "checker/engine/interrupt.hpp"
#include "checker/engine/program_name.hpp"
#include "checker/registry.hpp"
#include "checker/report/ci_reports.hpp"

namespace heddle {
namespace {
bool matches(const std::string& glob, const std::string& text) {
  return fnmatch(glob.c_str(), text.c_str(), 0) == 0;  // '*' also matches '/'
}

std::string params_text(const std::map<std::string, std::string>& params) {
  std::vector<std::string> kv;
  for (const auto& [k, v] : params) kv.push_back(k + "=" + v);
  return kv.empty() ? "-" : fmt::format("{}", fmt::join(kv, " "));
}

std::string expected_text(Verdict v) { return v == Verdict::ok ? "no bug" : verdict_name(v); }

std::string expected_text(const CiCase& c) {
  std::string out = expected_text(c.expect);
  if (!c.bug_names.empty()) out += fmt::format(" naming {}", fmt::join(c.bug_names, ", "));
  return out + (c.exhaustive && c.expect == Verdict::ok ? ", exhaustive" : "");
}

/// Whether the bug `report` (a summary's "report") names `name`: one of its
/// accesses is on the object `name`, or at a source site ending in `name`.
bool names(const nlohmann::json& report, const std::string& name) {
  if (!report.is_object() || name.empty()) return false;
  for (const auto& a : report.value("accesses", nlohmann::json::array())) {
    if (!a.is_object()) continue;
    const auto region = a.value("region", nlohmann::json());
    const auto at = a.value("at", nlohmann::json());
    if (region.is_string() && region.get<std::string>() == name) return true;
    if (at.is_string() && at.get<std::string>().ends_with(name)) return true;
  }
  return false;
}

std::string words(std::string s) {
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

std::string seconds_text(double s) { return fmt::format("{:.2f} s", s); }

// The result column: pass, FAIL, ERROR, or STOPPED (interrupted, no verdict).
std::string status_word(const CiOutcome& r) {
  if (r.passed) return "pass";
  if (r.error) return "ERROR";
  return r.interrupted && (r.verdict == "interrupted" || r.verdict == "not run") ? "STOPPED" : "FAIL";
}

// A case an interrupt stopped before it found a bug: no verdict, not an error of the model.
void classify_interrupted(CiOutcome& out) {
  out.passed = false;
  out.error = false;
  if (out.verdict == "not run") return;  // never started (ci_spawn.cpp)
  auto executions = out.summary.is_object() ? out.summary.value("executions", nlohmann::json())
                                            : nlohmann::json();
  out.executions = executions.is_number_unsigned() ? executions.get<std::uint64_t>() : 0;
  out.verdict = "interrupted";
  out.reason = out.summary.is_object()
                   ? fmt::format("interrupted after {} execution{}: no bug so far (not exhaustive)",
                                 out.executions, out.executions == 1 ? "" : "s")
                   : fmt::format("interrupted before it wrote a summary (exit code {})",
                                 out.exit_code);
}
}  // namespace

std::vector<CiCase> ci_cases(const std::string& filter) {
  std::vector<CiCase> out;
  for (const auto& [name, k] : kernels()) {
    std::vector<CiCase> mine;
    if (k.presets.empty()) mine.push_back(CiCase{name, "", {}, Verdict::ok});
    for (const auto& p : k.presets)
      mine.push_back(CiCase{name, p.name, p.params, p.expect, p.exhaustive, p.bug_names});
    for (auto& c : mine)
      if (filter.empty() || matches(filter, c.kernel) || matches(filter, c.id()))
        out.push_back(std::move(c));
  }
  return out;
}

std::string safe_file_name(const std::string& id) {
  std::string out;
  for (char ch : id) {
    if (ch == '/') out += '.';
    else if (ch == ':') out += "--";
    else if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.')
      out += ch;
    else out += '_';
  }
  if (out.empty() || out[0] == '.') out = "_" + out;  // never hidden, never ".."
  return out;
}

std::vector<std::string> ci_case_args(const CiCase& c, const CiOptions& o,
                                      const std::string& summary_file,
                                      const std::string& schedule_file) {
  std::vector<std::string> a{"run", c.kernel};
  for (const auto& [k, v] : c.params) a.insert(a.end(), {"--param", k + "=" + v});
  a.insert(a.end(), {"--strategy", o.strategy, "--summary-json", summary_file, "--out",
                     schedule_file, "--quiet", "--max-steps", std::to_string(o.max_steps),
                     "--step-timeout", fmt::format("{}", o.step_timeout), "--stack-size",
                     std::to_string(o.stack_kib)});
  if (o.max_executions) a.insert(a.end(), {"--max-executions", std::to_string(o.max_executions)});
  if (o.time_limit > 0) a.insert(a.end(), {"--time-limit", fmt::format("{}", o.time_limit)});
  if (o.seed) a.insert(a.end(), {"--seed", std::to_string(*o.seed)});
  a.insert(a.end(), o.extra_args.begin(), o.extra_args.end());
  // Global options come before the subcommand.
  a.insert(a.begin(), {"--log-level", o.log_level});
  return a;
}

namespace {
using nlohmann::json;

// True when each field of `j` named in `strings`, `numbers` or `flags` is absent or of that type.
bool typed(const json& j, std::initializer_list<const char*> strings,
           std::initializer_list<const char*> numbers, std::initializer_list<const char*> flags = {}) {
  if (!j.is_object()) return false;
  auto ok = [&](const char* k, bool (json::*is)() const noexcept) {
    return !j.contains(k) || (j[k].*is)();
  };
  for (const char* k : strings)
    if (!ok(k, &json::is_string)) return false;
  for (const char* k : numbers)
    if (!ok(k, &json::is_number_unsigned)) return false;
  for (const char* k : flags)
    if (!ok(k, &json::is_boolean)) return false;
  return true;
}

// True when every element of array field `key` of `j` (if present) passes `test`.
template <typename Test>
bool all_of(const json& j, const char* key, Test test) {
  if (!j.contains(key)) return true;
  const json& a = j[key];
  return a.is_array() && std::all_of(a.begin(), a.end(), test);
}

// The bug report as the reports read it: typed fields, accesses and details.
bool report_ok(const json& r) {
  if (r.is_null()) return true;
  return typed(r, {"title", "kind"}, {"step"}) &&
         all_of(r, "accesses", [](const json& a) {
           return typed(a, {"at", "op", "region", "agent", "proxy"}, {"first", "step"}, {"write"});
         }) &&
         all_of(r, "details", [](const json& d) { return d.is_string(); });
}
}  // namespace

nlohmann::json read_summary(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return nullptr;
  auto is = [&](const char* key, auto test, bool required) {
    auto it = j.find(key);
    return it == j.end() ? !required : test(*it);
  };
  const bool ok =
      is("verdict", [](const json& v) { return v.is_string(); }, true) &&
      is("executions", [](const json& v) { return v.is_number_unsigned(); }, false) &&
      is("stopped_by", [](const json& v) { return v.is_string(); }, false) &&
      is("params", [](const json& v) {
        if (!v.is_object()) return false;
        for (const auto& [k, x] : v.items())
          if (!x.is_string()) return false;
        return true;
      }, false) &&
      is("report", report_ok, false) &&
      is("kernel_at", [](const json& v) { return v.is_string(); }, false) &&
      all_of(j, "schedule", [](const json& st) { return typed(st, {"at", "agent", "op"}, {"step"}); });
  return ok ? j : json();
}

void classify(CiOutcome& out) {
  const Verdict want = out.c.expect;
  const std::string v = out.summary.is_object() && out.summary.value("verdict", nlohmann::json()).is_string()
                            ? out.summary["verdict"].get<std::string>()
                            : std::string();
  const bool bug = v != "verified" && v != "no_bug_found";
  if (out.interrupted && (v.empty() || !bug)) {
    classify_interrupted(out);
    return;
  }
  // A summary counts only from a run that then exited as it says (0: no
  // bug, 1: bug): a run that crashed after writing it did not finish. An
  // interrupted run's bug is a bug found, whatever its exit code.
  const bool consistent =
      !v.empty() && (out.exit_code == (bug ? 1 : 0) || out.interrupted) && !out.timed_out;
  if (!consistent) {
    out.error = true;
    out.passed = false;
    out.verdict = "error";
    if (out.timed_out)
      out.reason = fmt::format("the run was killed after {:.0f} s (the case timeout, "
                               "--case-timeout)", out.seconds);
    else if (out.exit_code < 0)
      out.reason = fmt::format("the run was killed by signal {}", -out.exit_code);
    else if (v.empty())
      out.reason = fmt::format("the run exited with code {} without a summary", out.exit_code);
    else
      out.reason = fmt::format("the run exited with code {} after a summary saying {}",
                               out.exit_code, v);
    return;
  }
  auto executions = out.summary.value("executions", nlohmann::json());
  out.executions = executions.is_number_unsigned() ? executions.get<std::uint64_t>() : 0;
  if (v == "verified") out.verdict = "verified (exhaustive)";
  else if (v == "no_bug_found")
    out.verdict = fmt::format("not exhaustive ({})", out.summary.value("stopped_by", "budget"));
  else out.verdict = words(v);
  out.passed = want == Verdict::ok ? !bug : v == verdict_name(want);
  if (out.passed && out.c.exhaustive && v == "no_bug_found") {
    out.passed = false;
    out.reason = fmt::format("expected an exhaustive run, but the {} budget stopped it after {} "
                             "execution{}: raise the budget, or drop the exhaustive expectation",
                             out.summary.value("stopped_by", "budget"), out.executions,
                             out.executions == 1 ? "" : "s");
    return;
  }
  const nlohmann::json& report = out.summary.value("report", nlohmann::json());
  if (out.passed && bug) {
    std::vector<std::string> missing;
    for (const auto& name : out.c.bug_names)
      if (!names(report, name)) missing.push_back(name);
    if (!missing.empty()) {
      out.passed = false;
      out.reason = fmt::format("expected {}, found {}: {}, which names no {}",
                               words(expected_text(out.c)), words(v),
                               report.is_object() ? report.value("title", "a bug") : "a bug",
                               fmt::join(missing, " or "));
      return;
    }
  }
  if (out.passed) return;
  const std::string title = report.is_object() ? report.value("title", "a bug") : "a bug";
  std::string found = bug ? fmt::format("found {}: {}", words(v), title)
                          : fmt::format("found no bug ({})", out.verdict);
  out.reason = fmt::format("expected {}, {}", words(expected_text(want)), found);
}

std::string format_ci_table(const std::vector<CiOutcome>& outs, const CiOptions& o) {
  std::vector<std::vector<std::string>> rows{{"kernel", "preset", "parameters", "strategy",
                                              "verdict", "expected", "executions", "time",
                                              "result"}};
  for (const auto& r : outs) {
    auto params = r.summary.is_null() ? r.c.params
                                      : r.summary.value("params", std::map<std::string, std::string>{});
    rows.push_back({r.c.kernel, r.c.preset.empty() ? "(defaults)" : r.c.preset,
                    params_text(params), o.strategy, r.verdict, expected_text(r.c),
                    std::to_string(r.executions), seconds_text(r.seconds),
                    status_word(r)});
  }
  std::vector<std::string> bounds;
  if (o.max_executions) bounds.push_back(fmt::format("{} executions", o.max_executions));
  if (o.time_limit > 0) bounds.push_back(fmt::format("{} s", o.time_limit));
  bounds.push_back(fmt::format("{} steps per execution", o.max_steps));
  std::string out = fmt::format("{}: {} case{}, strategy {}, bounds per case: {}\n\n",
                                program_name(), outs.size(), outs.size() == 1 ? "" : "s", o.strategy,
                                fmt::join(bounds, ", "));
  std::vector<std::size_t> w(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      std::size_t width = i + 1 < row.size() ? w[i] + 2 : 0;
      bool number = i == 6 || i == 7;  // executions and time align right
      line += number ? fmt::format("{:>{}}  ", row[i], w[i]) : fmt::format("{:<{}}", row[i], width);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  std::size_t failed = 0;
  for (const auto& r : outs) {
    if (r.passed) continue;
    ++failed;
    out += fmt::format("\n{} {}: {}\n", status_word(r), r.c.id(), r.reason);
    const bool shown = !r.output.empty() && r.summary.contains("report") &&
                       !r.summary["report"].is_null();
    if (shown) out += r.output;
    if (r.error && !r.errors.empty()) out += r.errors;
    // The case's report names its schedule already when it is shown (issue 50.16).
    const std::string hint = fmt::format("replay with: {} replay {}\n", o.program, r.artifact);
    if (!r.artifact.empty() && !(shown && r.output.find(hint) != std::string::npos)) out += hint;
  }
  out += fmt::format("\n{} case{}: {} passed, {} failed\n", outs.size(), outs.size() == 1 ? "" : "s",
                     outs.size() - failed, failed);
  if (o.interrupted_by != 0) {
    std::size_t stopped = 0;
    for (const auto& r : outs) stopped += r.interrupted && !r.passed;
    out += fmt::format("interrupted ({}): {} case{} not finished (not exhaustive)\n",
                       signal_name(o.interrupted_by), stopped, stopped == 1 ? "" : "s");
  }
  return out;
}

int run_ci_job(const CiOptions& o) {
  std::vector<CiCase> cases = ci_cases(o.filter);
  if (o.require_exhaustive)
    for (auto& c : cases) c.exhaustive = true;
  if (cases.empty())
    throw UsageError(o.filter.empty() ? std::string("no kernels are registered")
                                      : fmt::format("no kernel or preset matches --filter {} "
                                                    "('{} list' shows them all)",
                                                    o.filter, program_name()));
  for (const auto& [kind, file] : o.reports)
    if (kind != "junit" && kind != "sarif" && kind != "json")
      throw UsageError(fmt::format("--report {}={}: unknown kind; use junit=FILE, sarif=FILE or "
                                   "json=FILE", kind, file));
  if (!o.artifacts.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.artifacts, ec);
    if (ec) throw UsageError(fmt::format("--artifacts {}: cannot create it: {}", o.artifacts, ec.message()));
  }
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<CiOutcome> outs = run_cases(exe, cases, o);
  CiOptions ran = o;
  ran.interrupted_by = interrupt_signal();
  std::fputs(format_ci_table(outs, ran).c_str(), stdout);
  std::fflush(stdout);
  for (const auto& [kind, file] : o.reports) write_ci_report(kind, file, outs, ran);
  if (ran.interrupted_by != 0) return interrupted_exit_code(ran.interrupted_by);
  return std::all_of(outs.begin(), outs.end(), [](auto& r) { return r.passed; }) ? 0 : 1;
}

}  // namespace heddle
