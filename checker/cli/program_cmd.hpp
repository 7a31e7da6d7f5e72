// The program runners' subcommands (`heddle cuda [options] -- ./app args`):
// the CLI parses their options, the registered runner (models/) runs the program.
#pragma once
#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace heddle {

/// What the program subcommands' options were given.
struct ProgramArgs {
  std::map<std::string, std::string> options;  // option name without "--" -> value
  std::vector<std::string> argv;               // the program and its arguments
  std::map<std::string, CLI::App*> commands;   // by runner name
};

/// Adds one subcommand per registered program runner.
void add_program_commands(CLI::App& app, ProgramArgs& args);
/// Runs the program runner whose subcommand was given; -1 when none was.
int run_program_command(const ProgramArgs& args);

}  // namespace heddle
