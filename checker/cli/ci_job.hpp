// The bounded exhaustive CI job: `heddle run --all` runs every registered
// kernel's presets, each in its own process, and says which met expectations.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/report/ci_results.hpp"

namespace heddle {

/// The cases of the registered kernels whose id or kernel name matches `filter`.
std::vector<CiCase> ci_cases(const std::string& filter);

/// File-name-safe form of a case id ("demo/lost_update:racy" -> "demo.lost_update--racy").
std::string safe_file_name(const std::string& id);

/// The arguments of `heddle run` that run case `c` under `o`, writing its
/// summary to `summary_file` and the schedule of a bug to `schedule_file`.
std::vector<std::string> ci_case_args(const CiCase& c, const CiOptions& o,
                                      const std::string& summary_file,
                                      const std::string& schedule_file);

/// Parses a case's --summary-json text; null unless it is an object with
/// the fields the job reads, each of the right type.
nlohmann::json read_summary(const std::string& text);

/// Judges a finished case from its exit code and summary.
void classify(CiOutcome& out);

/// Runs every case in child processes of `exe` (at most o.jobs at a time),
/// showing progress; outcomes are in the order of `cases`.
std::vector<CiOutcome> run_cases(const std::string& exe, const std::vector<CiCase>& cases,
                                 const CiOptions& o);

/// The summary table: kernel, preset, parameters, strategy, verdict,
/// expected, executions, time, result; then the failures in detail.
std::string format_ci_table(const std::vector<CiOutcome>& outcomes, const CiOptions& o);

/// The whole job: runs the cases, prints the table, writes reports.
/// Returns 0 when every case met its expectation, 1 otherwise.
int run_ci_job(const CiOptions& o);

}  // namespace heddle
