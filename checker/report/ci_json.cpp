// The CI job's full JSON summary, and writing any report kind to a file.
#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "checker/engine/interrupt.hpp"
#include "checker/report/atomic_file.hpp"
#include "checker/report/ci_reports.hpp"

namespace heddle {

nlohmann::json json_report(const std::vector<CiOutcome>& outs, const CiOptions& o) {
  using nlohmann::json;
  json cases = json::array();
  std::size_t passed = 0;
  for (const auto& r : outs) {
    passed += r.passed;
    cases.push_back({{"id", r.c.id()},
                     {"kernel", r.c.kernel},
                     {"preset", r.c.preset},
                     {"preset_params", r.c.params},
                     {"expect", verdict_name(r.c.expect)}, {"expect_exhaustive", r.c.exhaustive},
                     {"verdict", r.verdict},
                     {"passed", r.passed},
                     {"error", r.error},
                     {"reason", r.reason},
                     {"executions", r.executions},
                     {"seconds", r.seconds},
                     {"exit_code", r.exit_code},
                     {"interrupted", r.interrupted},
                     {"artifact", r.artifact.empty() ? json() : json(r.artifact)},
                     {"summary", r.summary}});
  }
  json budget{{"max_executions", o.max_executions}, {"time_limit", o.time_limit},
              {"max_steps", o.max_steps}};
  json j{{"format", "heddle-ci-summary"}, {"version", 1},       {"strategy", o.strategy},
         {"budget_per_case", budget},      {"filter", o.filter}, {"passed", passed},
         {"failed", outs.size() - passed}, {"cases", cases}};
  j["interrupted"] = o.interrupted_by != 0 ? json(signal_name(o.interrupted_by)) : json(false);
  return j;
}

void write_ci_report(const std::string& kind, const std::string& file,
                     const std::vector<CiOutcome>& outs, const CiOptions& o) {
  std::string text;
  if (kind == "junit") text = junit_report(outs, o);
  else if (kind == "sarif") text = sarif_report(outs, o).dump(2) + "\n";
  else if (kind == "json") text = json_report(outs, o).dump(2) + "\n";
  else throw UsageError(fmt::format("--report {}: unknown kind; use junit, sarif or json", kind));
  try {
    write_file_atomic(file, text);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--report {}={}: cannot write the file ({})", kind, file, e.what()));
  }
}

}  // namespace heddle
