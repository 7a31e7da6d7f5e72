#include "checker/cli/program_cmd.hpp"

#include "checker/engine/errors.hpp"
#include "checker/program_runner.hpp"

namespace heddle {
namespace {

// The options every program runner takes: name, help.
constexpr std::pair<const char*, const char*> kOptions[] = {
    {"check", "explore the launches whose kernel name matches GLOB (default: all); the others "
              "run one schedule"},
    {"strategy", "exploration strategy for checked launches: dpor (default), optimal, dfs, "
                 "bounded, random, pct"},
    {"max-executions", "budget per checked launch: executions (0: none)"},
    {"max-steps", "steps per execution before the kernel is reported hung"},
    {"time-limit", "budget per checked launch: seconds (0: none)"},
    {"seed", "seed for randomized strategies"},
    {"preemption-bound", "bounded: at most K preemptions, or auto"},
    {"stack-size", "fiber stack size in KiB"},
    {"sms", "multiprocessors the device reports (default 132): persistent kernels size their "
            "grids by it, so a small N keeps a checked launch small"},
    {"out", "write the schedule of the bug found to FILE"},
    {"replay", "replay the counterexample FILE (written by --out) in its launch"},
};

}  // namespace

void add_program_commands(CLI::App& app, ProgramArgs& args) {
  for (const auto& [name, runner] : program_runners()) {
    CLI::App* sub = app.add_subcommand(name, runner.help);
    for (const auto& [option, help] : kOptions)
      sub->add_option_function<std::string>(
          std::string("--") + option,
          [&args, key = std::string(option)](const std::string& v) { args.options[key] = v; },
          help);
    sub->add_flag_function(
        "--keep-going", [&args](std::int64_t) { args.options["keep-going"] = "1"; },
        "checked launches explore on after their first bug and report each distinct bug");
    sub->add_option("program", args.argv, "-- PROGRAM ARGS...: the program to run")->required();
    args.commands[name] = sub;
  }
}

int run_program_command(const ProgramArgs& args) {
  for (const auto& [name, sub] : args.commands)
    if (sub->parsed()) return program_runners().at(name).run(args.options, args.argv);
  return -1;
}

}  // namespace heddle
