#include "checker/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "checker/errors.hpp"
#include "checker/explorer.hpp"
#include "checker/text_report.hpp"

namespace heddle {
namespace {

struct RunArgs {
  std::string kernel;
  std::vector<std::string> params;
  std::string out;
  std::string summary_json;
  bool keep_going = false;
  std::size_t stack_kib = 256;
  std::string preemption_bound;  // --preemption-bound: K or auto ("" when not given)
};

// --preemption-bound: a number K, or auto (none in RunConfig).
std::optional<std::uint32_t> parse_preemption_bound(const std::string& text) {
  if (text == "auto") return std::nullopt;
  try {
    std::size_t used = 0;
    unsigned long k = std::stoul(text, &used);
    if (used == text.size() && k <= 1000) return static_cast<std::uint32_t>(k);
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--preemption-bound {}: expected a number of preemptions "
                               "(0, 1, 2, ...) or auto",
                               text));
}

std::map<std::string, std::string> parse_params(const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(fmt::format("--param {}: expected NAME=VALUE", item));
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) throw UsageError(fmt::format("cannot write {}", path));
  f << text;
}

std::string default_out(const std::string& kernel) {
  std::string name = kernel;
  for (char& c : name)
    if (c == '/') c = '.';
  return "heddle-cex." + name + ".json";
}

int list_kernels() {
  for (const auto& [name, k] : kernels()) {
    fmt::print("{}\n    {}\n", name, k.description);
    for (const auto& p : k.params) {
      std::string allowed;
      if (p.type == ParamSpec::Type::choice) allowed = fmt::format(" ({})", fmt::join(p.allowed, "|"));
      if (p.has_range) allowed = fmt::format(" ({}..{})", p.min, p.max);
      fmt::print("    --param {}={}{}  {}\n", p.name, p.default_value, allowed, p.help);
    }
  }
  return 0;
}

int finish(const Kernel& kernel, const Params& params, const RunConfig& config,
           const RunResult& result, const RunArgs& args, bool write_schedule_file) {
  std::string file;
  if (result.schedule && write_schedule_file) {
    file = args.out.empty() ? default_out(kernel.name) : args.out;
    write_file(file, write_schedule(*result.schedule));
  }
  std::fputs(format_run(kernel, params, config, result, file).c_str(), stdout);
  if (!args.summary_json.empty())
    write_file(args.summary_json, summary_json(kernel, params, config, result).dump(2) + "\n");
  return result.bug ? 1 : 0;
}

int run_kernel(RunConfig config, const RunArgs& args) {
  const Kernel& kernel = find_kernel(args.kernel);
  Params params = kernel.resolve(parse_params(args.params));
  config.stop_at_first_bug = !args.keep_going;
  config.stack_bytes = args.stack_kib * 1024;
  if (!args.preemption_bound.empty()) {
    if (config.strategy != "bounded")
      throw UsageError("--preemption-bound applies to the bounded strategy: add --strategy bounded");
    config.preemption_bound = parse_preemption_bound(args.preemption_bound);
  }
  make_strategy(config);  // reject unknown strategies before running anything
  RunResult result = explore(kernel, params, config);
  return finish(kernel, params, config, result, args, true);
}

int replay_file(RunConfig config, const std::string& path, RunArgs args) {
  Schedule s = load_schedule(path);
  const Kernel& kernel = find_kernel(s.kernel);
  Params params = kernel.resolve(s.params);
  config.stack_bytes = args.stack_kib * 1024;
  config = replay_config(s, config);
  RunResult result = explore(kernel, params, config);
  int code = finish(kernel, params, config, result, args, !args.out.empty());
  nlohmann::json now = result.bug ? report_to_json(*result.bug) : nlohmann::json();
  if (now != s.bug) {
    fmt::print(stderr,
               "heddle: warning: the replay shows {} but the schedule file records {}\n",
               result.bug ? result.bug->title : "no bug",
               s.bug.is_null() ? "no bug" : s.bug.value("title", "a bug"));
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"heddle: a systematic concurrency model checker for GPU and TPU kernel schedules"};
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error|off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  RunConfig config;
  RunArgs args;
  auto add_budgets = [&](CLI::App* sub) {
    sub->add_option("--max-steps", config.max_steps, "steps per execution before livelock");
    sub->add_option("--step-timeout", config.step_timeout, "seconds one thread step may run");
    sub->add_option("--stack-size", args.stack_kib, "fiber stack size in KiB");
    sub->add_option("--summary-json", args.summary_json, "write the run summary as JSON");
    sub->add_option("--out", args.out, "write the schedule of the bug found to FILE");
  };
  app.add_subcommand("list", "list the registered kernels and their parameters");
  auto* run = app.add_subcommand("run", "explore a kernel's schedules");
  run->add_option("kernel", args.kernel, "kernel name (see 'heddle list')")->required();
  run->add_option("--param,-p", args.params, "kernel parameter NAME=VALUE (repeatable)");
  run->add_option("--strategy", config.strategy, "exploration strategy");
  run->add_option("--max-executions", config.max_executions, "budget: executions (0: none)");
  run->add_option("--time-limit", config.time_limit, "budget: seconds (0: none)");
  run->add_option("--seed", config.seed, "seed for randomized strategies");
  run->add_option("--pct-depth", config.pct_depth, "pct: bug depth d (d-1 change points)");
  run->add_option("--preemption-bound", args.preemption_bound,
                  "bounded: at most K preemptions, or auto (0, 1, 2, ... until a bug; default)");
  run->add_flag("--no-minimize{false}", config.minimize, "report the bug's schedule as found");
  run->add_flag("--keep-going", args.keep_going, "explore on after the first bug, counting bugs");
  add_budgets(run);
  auto* replay = app.add_subcommand("replay", "replay a schedule file step by step");
  std::string replay_path;
  replay->add_option("file", replay_path, "schedule file written by 'heddle run'")->required();
  add_budgets(replay);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));
  try {
    if (app.got_subcommand("list")) return list_kernels();
    if (app.got_subcommand("run")) return run_kernel(config, args);
    return replay_file(config, replay_path, args);
  } catch (const UsageError& e) {
    fmt::print(stderr, "heddle: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "heddle: internal error: {}\n", e.what());
    return 2;
  }
}

}  // namespace heddle
