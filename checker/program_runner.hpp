// Program runners: front ends that run a whole program and check what it
// launches, `heddle NAME [options] -- ./app args` (models/cuda: `heddle cuda`).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "checker/registry.hpp"

namespace heddle {

/// One program runner, registered by models/ at static initialization.
struct ProgramRunner {
  std::string name;  // the subcommand
  std::string help;
  /// Runs `argv` with the run's options (option name without "--" -> value);
  /// returns the exit status; UsageError for bad options.
  std::function<int(const std::map<std::string, std::string>& options,
                    const std::vector<std::string>& argv)>
      run;
};

/// Registers a program runner.
Registration register_program_runner(ProgramRunner runner);
/// The registered program runners, by name.
const std::map<std::string, ProgramRunner>& program_runners();

}  // namespace heddle

namespace heddle {

/// One kernel launch of a program that a program runner runs.
struct ProgramLaunch {
  int number = 0;           // 1, 2, ... in the program's order
  bool checked = true;      // explore its schedules (else run one schedule)
  std::string default_out;  // the counterexample file when no --out is given
};

/// What became of a launch.
struct LaunchOutcome {
  bool bug = false;
  std::string text;  // bug: the report with its replay hint; else "checked: 12 executions, ..."
};

/// Explores a program's launches with the run's options (the runner's
/// option names -> values). The CLI layer provides it (checker/cli/
/// program_check.cpp), so that models/ runners drive the explorer and the
/// reports through this interface only.
struct LaunchChecker {
  /// Throws UsageError naming a bad option (before the program starts).
  std::function<void(const std::map<std::string, std::string>& options)> validate;
  /// Explores (or, with --replay naming this launch, replays) kernel `k`.
  std::function<LaunchOutcome(const Kernel& k, const ProgramLaunch& launch,
                              const std::map<std::string, std::string>& options)>
      check;
};

/// Sets the launch checker (at static initialization, from checker/cli).
Registration set_launch_checker(LaunchChecker checker);
/// The launch checker; ModelError-free: UsageError when none was set.
const LaunchChecker& launch_checker();

}  // namespace heddle
