#include "checker/program_runner.hpp"

#include "checker/engine/errors.hpp"

namespace heddle {
namespace {

std::map<std::string, ProgramRunner>& runner_table() {
  static std::map<std::string, ProgramRunner> t;
  return t;
}

LaunchChecker& the_launch_checker() {
  static LaunchChecker c;
  return c;
}

}  // namespace

Registration set_launch_checker(LaunchChecker c) {
  the_launch_checker() = std::move(c);
  return Registration{"launch checker"};
}

const LaunchChecker& launch_checker() {
  if (!the_launch_checker().check) throw UsageError("[heddle bug] no launch checker is linked in (checker/cli)");
  return the_launch_checker();
}

Registration register_program_runner(ProgramRunner runner) {
  std::string name = runner.name;
  runner_table()[name] = std::move(runner);
  return Registration{name};
}

const std::map<std::string, ProgramRunner>& program_runners() { return runner_table(); }

}  // namespace heddle
