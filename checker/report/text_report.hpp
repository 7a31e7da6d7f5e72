// The human-readable and JSON summaries of a run.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "checker/explore/explorer.hpp"

namespace heddle {

/// The full text report of a run: bug, numbered schedule, and summary line;
/// the replay hint names `program`, the binary that ran (a user's own main).
/// `steps_above`: replay --steps printed the schedule already, step by step,
/// so the bug's schedule is referred to, not printed again.
/// Deterministic except for the time in the summary line.
std::string format_run(const Kernel& kernel, const Params& params, const RunConfig& config,
                       const RunResult& result, const std::string& schedule_file,
                       const std::string& program = "heddle", bool steps_above = false);
/// The schedule file of distinct bug k (0-based, k > 0) of a --keep-going
/// run whose first bug went to `first` (FILE.json -> FILE.bugK+1.json).
std::string distinct_schedule_file(const std::string& first, std::size_t k);
/// "interrupted after N executions: no bug so far (not exhaustive)", or the
/// bugs found, for a run a signal stopped (stopped_by "interrupted").
std::string interrupted_line(const RunResult& result);
/// The one-line summary (verdict; executions; exhaustive or budget; time).
std::string summary_line(const RunResult& result);
/// The numbered schedule of a bug, marking the steps of the racing accesses.
std::string format_schedule(const Schedule& s, const BugReport* bug);
/// The machine-readable summary (--summary-json), with the bug's schedule
/// (step, agent, op, at) and where the kernel was declared.
nlohmann::json summary_json(const Kernel& kernel, const Params& params, const RunConfig& config,
                            const RunResult& result);

}  // namespace heddle
