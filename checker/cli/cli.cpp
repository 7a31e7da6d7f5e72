#include "checker/cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "checker/cli/ci_job.hpp"
#include "checker/engine/errors.hpp"
#include "checker/explore/explorer.hpp"
#include "checker/report/progress.hpp"
#include "checker/report/text_report.hpp"
#include "checker/report/timeline.hpp"

namespace heddle {
namespace {

struct RunArgs {
  std::string kernel;
  std::vector<std::string> params;
  std::string out;
  std::string summary_json;
  bool keep_going = false;
  std::size_t stack_kib = 256;
  bool quiet = false;             // no progress line
  double progress_interval = 5;   // seconds between progress lines in logs
  // run --all
  bool all = false;
  std::string filter;
  unsigned jobs = 1;
  double budget_per_kernel = 0;
  double case_timeout = 0;          // seconds before a case's process is killed (0: derived)
  std::vector<std::string> reports;  // KIND=FILE
  std::string artifacts;
  // replay
  std::string timeline;      // SVG file
  std::string chrome_trace;  // Chrome trace / Perfetto JSON file
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

// Writes the whole file or throws: a file that could not be written (a full
// disk, /dev/full) is an error, never a silent partial file.
void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) throw UsageError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  f << text;
  f.close();
  if (!f) throw UsageError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

// CLI11 reads "-1" into an unsigned option as a huge number: refuse signs.
const CLI::Validator kUnsigned(
    [](std::string& text) {
      return text.find_first_not_of("0123456789") == std::string::npos && !text.empty()
                 ? std::string()
                 : "expected a whole number (0, 1, 2, ...), not " + text;
    },
    "UINT");
// Seconds: a finite number >= `least` (NaN and infinities are not times).
CLI::Validator seconds_at_least(double least) {
  return CLI::Validator(
      [least](std::string& text) {
        char* end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < least)
          return fmt::format("expected seconds, a number >= {}, not {}", least, text);
        return std::string();
      },
      "SECONDS");
}
// The smallest fiber stack that can run a step; the largest one allowed.
constexpr std::size_t kMinStackKib = 64;
constexpr std::size_t kMaxStackKib = 1024 * 1024;

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
  ProgressLine progress(detect_progress_mode(args.quiet), args.progress_interval);
  std::uint64_t executions = 0;
  auto observe = [&](const Execution& ex, Ending) {
    ++executions;
    progress.update([&] {
      return run_progress_text(executions, static_cast<std::uint32_t>(ex.trace().size()),
                               progress.elapsed(), config);
    });
  };
  RunResult result = explore(kernel, params, config, observe);
  progress.finish();
  return finish(kernel, params, config, result, args, true);
}

int run_all(const RunConfig& config, const RunArgs& args, const std::string& log_level) {
  if (!args.kernel.empty())
    throw UsageError(fmt::format("give either a kernel ({}) or --all, not both", args.kernel));
  if (!args.out.empty() || !args.summary_json.empty() || args.keep_going)
    throw UsageError("--out, --summary-json and --keep-going are for one kernel; with --all use "
                     "--artifacts DIR and --report json=FILE");
  if (config.time_limit > 0 && args.budget_per_kernel > 0)
    throw UsageError("--time-limit and --budget-per-kernel both set the per-kernel time; give one");
  CiOptions o;
  o.filter = args.filter;
  o.jobs = args.jobs;
  o.strategy = config.strategy;
  o.max_executions = config.max_executions;
  o.time_limit = args.budget_per_kernel > 0 ? args.budget_per_kernel : config.time_limit;
  o.max_steps = config.max_steps;
  o.step_timeout = config.step_timeout;
  o.stack_kib = args.stack_kib;
  o.seed = config.seed;
  o.log_level = log_level;
  o.artifacts = args.artifacts;
  o.quiet = args.quiet;
  o.progress_interval = args.progress_interval;
  if (args.case_timeout > 0) o.case_timeout = args.case_timeout;
  else o.case_timeout = o.time_limit > 0 ? 2 * o.time_limit + 60 : 3600;
  for (const auto& r : args.reports) {
    auto eq = r.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == r.size())
      throw UsageError(fmt::format("--report {}: expected KIND=FILE with KIND junit, sarif or json", r));
    o.reports.emplace_back(r.substr(0, eq), r.substr(eq + 1));
  }
  return run_ci_job(o);
}

int replay_file(RunConfig config, const std::string& path, RunArgs args) {
  Schedule s = load_schedule(path);
  const Kernel& kernel = find_kernel(s.kernel);
  Params params = kernel.resolve(s.params);
  config.stack_bytes = args.stack_kib * 1024;
  config = replay_config(s, config);
  TimelineCapture capture(kernel.name, params.values());
  if (!args.timeline.empty() || !args.chrome_trace.empty()) config.decorate = capture.decorator();
  RunResult result = explore(kernel, params, config);
  int code = finish(kernel, params, config, result, args, !args.out.empty());
  if (capture.timeline()) {
    if (!args.timeline.empty()) write_file(args.timeline, timeline_svg(*capture.timeline()));
    if (!args.chrome_trace.empty())
      write_file(args.chrome_trace, chrome_trace(*capture.timeline()).dump(1) + "\n");
  }
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
    sub->add_option("--max-steps", config.max_steps, "steps per execution before livelock")
        ->check(kUnsigned)
        ->check(CLI::Range(std::uint32_t{1}, UINT32_MAX));
    sub->add_option("--step-timeout", config.step_timeout, "seconds one thread step may run")
        ->check(seconds_at_least(0.001));
    sub->add_option("--stack-size", args.stack_kib,
                    fmt::format("fiber stack size in KiB ({}..{})", kMinStackKib, kMaxStackKib))
        ->check(kUnsigned)
        ->check(CLI::Range(kMinStackKib, kMaxStackKib));
    sub->add_option("--summary-json", args.summary_json, "write the run summary as JSON");
    sub->add_option("--out", args.out, "write the schedule of the bug found to FILE");
  };
  app.add_subcommand("list", "list the registered kernels and their parameters");
  auto* run = app.add_subcommand("run", "explore a kernel's schedules");
  run->add_option("kernel", args.kernel, "kernel name (see 'heddle list')");
  run->add_flag("--all", args.all, "the CI job: run every kernel's presets, with a summary table");
  run->add_option("--filter", args.filter, "with --all: only kernels or KERNEL:PRESET matching GLOB");
  run->add_option("--jobs,-j", args.jobs, "with --all: cases run in parallel processes")
      ->check(kUnsigned)
      ->check(CLI::Range(1u, 1024u));
  run->add_option("--budget-per-kernel", args.budget_per_kernel,
                  "with --all: seconds each kernel/preset may explore (0: none)")
      ->check(seconds_at_least(0));
  run->add_option("--case-timeout", args.case_timeout,
                  "with --all: seconds after which a case's process is killed (0: twice "
                  "the per-kernel time plus a minute, or an hour without one)")
      ->check(seconds_at_least(0));
  run->add_option("--report", args.reports,
                  "with --all: junit=FILE, sarif=FILE or json=FILE (repeatable)");
  run->add_option("--artifacts", args.artifacts,
                  "with --all: directory for one replayable schedule per bug found");
  run->add_flag("--quiet,-q", args.quiet, "no progress line on stderr");
  run->add_option("--progress-interval", args.progress_interval,
                  "seconds between progress lines when stderr is not a terminal")
      ->check(seconds_at_least(0.01));
  run->add_option("--param,-p", args.params, "kernel parameter NAME=VALUE (repeatable)");
  run->add_option("--strategy", config.strategy, "exploration strategy: dpor (default), optimal, dfs, bounded, random, pct");
  run->add_option("--max-executions", config.max_executions, "budget: executions (0: none)")
      ->check(kUnsigned);
  run->add_option("--time-limit", config.time_limit, "budget: seconds (0: none)")
      ->check(seconds_at_least(0));
  run->add_option("--seed", config.seed, "seed for randomized strategies")->check(kUnsigned);
  run->add_option("--pct-depth", config.pct_depth, "pct: bug depth d (d-1 change points)")
      ->check(kUnsigned)
      ->check(CLI::Range(1u, 1000u));
  run->add_option("--preemption-bound", args.preemption_bound,
                  "bounded: at most K preemptions, or auto (0, 1, 2, ... until a bug; default)");
  run->add_flag("--no-minimize{false}", config.minimize, "report the bug's schedule as found");
  run->add_flag("--keep-going", args.keep_going, "explore on after the first bug, counting bugs");
  add_budgets(run);
  auto* replay = app.add_subcommand("replay", "replay a schedule file step by step");
  std::string replay_path;
  replay->add_option("file", replay_path, "schedule file written by 'heddle run'")->required();
  replay->add_option("--timeline", args.timeline, "draw the execution as an SVG swimlane timeline");
  replay->add_option("--chrome-trace", args.chrome_trace,
                     "write the execution as Chrome trace / Perfetto JSON");
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
    if (app.got_subcommand("run")) {
      if (args.all) return run_all(config, args, log_level);
      if (args.kernel.empty())
        throw UsageError("give a kernel to run ('heddle list' shows them) or --all for every kernel");
      for (const char* opt : {"--filter", "--jobs", "--budget-per-kernel", "--case-timeout",
                              "--report", "--artifacts"})
        if (run->count(opt) > 0)
          throw UsageError(fmt::format("{} works with --all only", opt));
      return run_kernel(config, args);
    }
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
