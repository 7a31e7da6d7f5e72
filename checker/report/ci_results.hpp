// What the CI job (`heddle run --all`, checker/cli/ci_job.hpp) runs and
// what each case did: plain data that the CI reports format.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/engine/bug.hpp"

namespace heddle {

/// One entry of the job: a kernel with one of its presets, or with its
/// defaults when it declares none (then no bug is expected).
struct CiCase {
  std::string kernel;
  std::string preset;                         // empty: the kernel's defaults
  std::map<std::string, std::string> params;  // the preset's parameters
  Verdict expect = Verdict::ok;               // a documented buggy variant expects its bug
  bool exhaustive = false;  // must cover every execution (preset, --require-exhaustive)
  std::vector<std::string> bug_names = {};  // what the expected bug must name (Preset::bug_names)
  /// "kernel:preset", or "kernel" for defaults; --filter and reports use it.
  std::string id() const { return preset.empty() ? kernel : kernel + ":" + preset; }
};

/// Settings of the job. The bounds apply to each case separately.
struct CiOptions {
  std::string filter;                 // glob over case ids and kernel names; empty: all
  unsigned jobs = 1;                  // cases run in parallel processes
  std::string strategy = "dfs";       // passed on to every case
  std::uint64_t max_executions = 0;   // per case; 0: none
  double time_limit = 0;              // seconds per case (--budget-per-kernel); 0: none
  std::uint32_t max_steps = 100000;   // per execution
  double step_timeout = 10;           // seconds one thread step may run
  std::size_t stack_kib = 256;        // fiber stack size
  std::optional<std::uint64_t> seed;  // randomized strategies
  std::string log_level = "warn";
  std::string artifacts;              // directory for the schedules of bugs found; empty: none
  std::vector<std::pair<std::string, std::string>> reports;  // (junit|sarif|json, file)
  bool quiet = false;                 // no progress line
  double progress_interval = 5;       // seconds between plain progress lines
  double case_timeout = 0;            // seconds before a case's process is killed; 0: never
  std::vector<std::string> extra_args;  // further `heddle run` options for every case
  bool require_exhaustive = false;    // a case a budget stopped fails (every case, not just presets
                                      // declared exhaustive)
  std::string program = "heddle";     // the binary as the user ran it, for replay hints
};

/// What one case did, measured against its expectation.
struct CiOutcome {
  CiCase c;
  bool passed = false;
  bool error = false;        // the run itself failed (crash, usage error): not a verdict
  std::string verdict;       // "race", "verified (exhaustive)", "not exhaustive (time-limit)", ...
  std::string reason;        // why it did not pass; empty when it passed
  nlohmann::json summary;    // the case's --summary-json (null when the run did not finish)
  std::string output;        // the case's text report (stdout)
  std::string errors;        // the case's stderr
  std::string artifact;      // the kept schedule of the bug found; empty: none
  std::uint64_t executions = 0;
  double seconds = 0;        // wall time of the case's process
  int exit_code = 0;         // of the case's process; -N: killed by signal N
  bool timed_out = false;    // killed for running past CiOptions::case_timeout
};

}  // namespace heddle
