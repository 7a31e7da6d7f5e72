// Helpers for tests: run a kernel in-process, or run the heddle binary.
#pragma once
#include <map>
#include <set>
#include <string>

#include "checker/explore/explorer.hpp"
#include "checker/report/text_report.hpp"

namespace heddle::test {

/// Runs a registered kernel in-process with the given parameters.
RunResult run(const std::string& kernel, const std::map<std::string, std::string>& params = {},
              RunConfig config = {});

/// A default RunConfig with the given strategy.
inline RunConfig with_strategy(const std::string& strategy) {
  RunConfig c;
  c.strategy = strategy;
  return c;
}

/// Every execution's final state and verdict, collected over a whole run.
struct Outcomes {
  std::set<std::string> final_states;   // Execution::final_state() of complete executions
  std::set<std::string> verdicts;       // every kind of bug the executions met, "ok" for none
  RunResult result;
};
/// Explores with stop_at_first_bug=false and collects every outcome.
Outcomes outcomes(const std::string& kernel, const std::map<std::string, std::string>& params,
                  RunConfig config);

/// Replays `schedule` in-process and returns the result.
RunResult replay(const Schedule& schedule);

/// Output and exit code of the heddle binary.
struct CliResult {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};
/// Runs `heddle ARGS` (args are passed to /bin/sh, so quote them).
CliResult cli(const std::string& args);
/// A fresh temporary directory for one test.
std::string temp_dir();
/// "path:N" where N is the first line of source file `path` (relative to the
/// source root) containing `marker`; expected source lines come from the source.
std::string source_line(const std::string& path, const std::string& marker);
/// Reads a whole file.
std::string slurp(const std::string& path);
/// Removes the last line (the summary with its time) for byte comparisons.
std::string without_timing(const std::string& text);

}  // namespace heddle::test
