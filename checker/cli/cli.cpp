#include "checker/cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "checker/cli/ci_job.hpp"
#include "checker/cli/program_cmd.hpp"
#include "checker/engine/errors.hpp"
#include "checker/engine/program_name.hpp"
#include "checker/engine/source_path.hpp"
#include "checker/engine/interrupt.hpp"
#include "checker/explore/explorer.hpp"
#include "checker/report/atomic_file.hpp"
#include "checker/report/progress.hpp"
#include "checker/report/shard_summary.hpp"
#include "checker/report/step_states.hpp"
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
  bool split_always = false;      // --split-always: no plain trial beside the split
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
  bool timeline_full = false;  // --timeline-full: every step, none folded
  std::string chrome_trace;  // Chrome trace / Perfetto JSON file
  bool steps = false;        // replay --steps: what each step changed
  std::string preemption_bound;  // --preemption-bound: K or auto ("" when not given)
  // front ends (--ptx FILE ...): per front end, per option, the values given
  std::vector<std::vector<std::vector<std::string>>> front_end_values;
  std::string preset;            // --preset: start from this preset's parameters
  bool require_exhaustive = false;  // a run a budget stopped fails (exit 1)
  std::string program = "heddle";   // argv[0], named in replay hints
};

// --source-root DIR: reports print source paths relative to DIR (and the
// CI job's child processes inherit it through the environment).
void add_source_root(CLI::App* sub) {
  sub->add_option_function<std::string>(
         "--source-root",
         [](const std::string& dir) {
           if (!std::filesystem::is_directory(dir))
             throw UsageError(fmt::format("--source-root {}: no such directory", dir));
           set_source_root(dir);
           setenv("HEDDLE_SOURCE_ROOT", dir.c_str(), 1);
         },
         "print source paths relative to DIR (default: the working directory, or the build's "
         "source directory)")
      ->type_name("DIR");
}

// Adds every front end's options (--ptx FILE --kernel ...) to `run`.
void add_front_end_options(CLI::App* run, RunArgs& args) {
  args.front_end_values.resize(front_ends().size());
  for (std::size_t f = 0; f < front_ends().size(); ++f) {
    const FrontEnd& fe = front_ends()[f];
    args.front_end_values[f].resize(fe.options.size());
    for (std::size_t o = 0; o < fe.options.size(); ++o) {
      auto& value = args.front_end_values[f][o];
      if (fe.options[o].is_switch) {
        run->add_flag_callback(fe.options[o].flag, [&value] { value = {"true"}; }, fe.options[o].help);
        continue;
      }
      auto* opt = run->add_option(fe.options[o].flag, value, fe.options[o].help);
      if (!fe.options[o].repeatable) opt->expected(1);
    }
  }
}

// The front end selected by its first option, with its parameter values; nullptr when none.
const FrontEnd* chosen_front_end(const RunArgs& args, std::map<std::string, std::string>& values) {
  for (std::size_t f = 0; f < front_ends().size(); ++f) {
    const FrontEnd& fe = front_ends()[f];
    const auto& given = args.front_end_values[f];
    bool selected = !given.empty() && !given[0].empty();
    for (std::size_t o = 0; o < fe.options.size(); ++o) {
      if (given[o].empty()) continue;
      if (!selected)
        throw UsageError(fmt::format("{} works with {} only", fe.options[o].flag, fe.options[0].flag));
      values[fe.options[o].param] = fmt::format("{}", fmt::join(given[o], " "));
    }
    if (selected) return &fe;
  }
  return nullptr;
}

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
// disk, /dev/full) is an error, never a partial file (report/atomic_file.hpp).
void write_file(const std::string& path, const std::string& text) { write_file_atomic(path, text); }

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
  if (auto colon = name.find(':'); colon != std::string::npos) {  // KIND:PATH -> KIND.STEM
    std::string file = name.substr(name.find_last_of('/') == std::string::npos
                                       ? colon + 1 : name.find_last_of('/') + 1);
    name = name.substr(0, colon) + "." + file.substr(0, file.rfind('.'));
  }
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
    for (const auto& p : k.presets) {
      std::vector<std::string> kv;
      for (const auto& [key, value] : p.params) kv.push_back(key + "=" + value);
      std::string expect = p.expect == Verdict::ok ? "no bug" : verdict_name(p.expect);
      if (p.exhaustive && p.expect == Verdict::ok) expect += ", exhaustive";
      fmt::print("    --preset {}  ({})  expects {}\n", p.name,
                 kv.empty() ? std::string("defaults") : fmt::format("{}", fmt::join(kv, " ")),
                 expect);
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
    for (std::size_t k = 1; k < result.distinct.size(); ++k)
      write_file(distinct_schedule_file(file, k), write_schedule(result.distinct[k].schedule));
  }
  std::fputs(format_run(kernel, params, config, result, file, args.program, args.steps).c_str(),
             stdout);
  if (!args.summary_json.empty()) {
    nlohmann::json j = summary_json(kernel, params, config, result);
    if (int sig = interrupt_signal()) j["interrupted"] = signal_name(sig);
    write_file(args.summary_json, j.dump(2) + "\n");
  }
  if (int sig = interrupt_signal()) return interrupted_exit_code(sig);
  if (result.bug) return 1;
  if (args.require_exhaustive && !result.exhaustive) {
    fmt::print("FAIL: exhaustive coverage was required ({}), but the run was not exhaustive "
               "({}): raise the budget or drop the requirement\n",
               args.preset.empty() ? "--require-exhaustive"
                                   : fmt::format("preset {} or --require-exhaustive", args.preset),
               result.stopped_by.empty() ? "stopped early" : result.stopped_by);
    return 1;
  }
  return 0;
}

int run_kernel(RunConfig config, RunArgs args) {
  std::map<std::string, std::string> front_values;
  const FrontEnd* fe = chosen_front_end(args, front_values);
  if (fe != nullptr && !args.kernel.empty())
    throw UsageError(fmt::format("give a registered kernel ({}) or a {} file, not both", args.kernel,
                                 fe->name));
  const Kernel& kernel = fe ? build_kernel(*fe, front_values) : find_kernel(args.kernel);
  std::map<std::string, std::string> given;
  if (!args.preset.empty()) {
    const Preset& preset = kernel.find_preset(args.preset);
    given = preset.params;
    args.require_exhaustive |= preset.exhaustive && preset.expect == Verdict::ok;
  }
  for (auto& [k, v] : parse_params(args.params)) given[k] = v;  // --param overrides the preset
  Params params = kernel.resolve(given);
  config.stop_at_first_bug = !args.keep_going;
  config.stack_bytes = args.stack_kib * 1024;
  if (!args.preemption_bound.empty()) {
    if (config.strategy != "bounded")
      throw UsageError("--preemption-bound applies to the bounded strategy: add --strategy bounded");
    config.preemption_bound = parse_preemption_bound(args.preemption_bound);
  }
  make_strategy(config);  // reject unknown strategies before running anything
  ProgressLine progress(detect_progress_mode(args.quiet), args.progress_interval);
  TreeEstimate estimate;  // dfs explores the whole tree of picks: its size can be estimated
  if (config.strategy == "dfs" && progress.mode() != ProgressMode::off)
    config.decorate = estimate.decorator();
  RunProgress now;
  now.run = kernel.name;
  if (!params.values().empty()) {
    std::vector<std::string> kv;
    for (const auto& [k, v] : params.values()) kv.push_back(k + "=" + v);
    now.run += fmt::format(" ({})", fmt::join(kv, " "));
  }
  // A split run's workers call it at once (observer_thread_safe): they
  // count on slots of their own, and one of them draws when a line is due.
  ThreadCount executions;
  config.observer_thread_safe = true;
  auto observe = [&](const ExecutionRecord& ex, Ending) {
    executions.add();
    progress.update([&] {
      now.executions = executions.total();
      now.depth = static_cast<std::uint32_t>(ex.trace().size());
      now.elapsed = progress.elapsed();
      now.estimated = estimate.total();
      return run_progress_text(now, config, 60, progress.columns());
    });
  };
  // Without a progress line, no observer at all.
  const bool shown = progress.mode() != ProgressMode::off;
  RunResult result = explore(kernel, params, config, shown ? ExecutionObserver(observe) : nullptr);
  progress.finish();
  return finish(kernel, params, config, result, args, true);
}

// --shard I/N: explore the work items k with k % N == I.
void parse_shard(const std::string& text, RunConfig& config) {
  const auto slash = text.find('/');
  auto whole = [](const std::string& t, std::uint32_t& out) {
    if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out = static_cast<std::uint32_t>(std::stoul(t));
    return true;
  };
  if (slash == std::string::npos || !whole(text.substr(0, slash), config.shard) ||
      !whole(text.substr(slash + 1), config.shards) || config.shards == 0 ||
      config.shards > kMaxShards || config.shard >= config.shards)
    throw UsageError(fmt::format("--shard {}: expected I/N with 0 <= I < N <= {} (e.g. 0/4)", text,
                                 kMaxShards));
}

// heddle merge: the shards' summaries as one run's report; the bug's
// schedule is replayed for its report.
int merge_files(RunConfig config, const std::vector<std::string>& files, RunArgs args) {
  MergedRun m = merge_shards(files);
  const Kernel& kernel = find_kernel(m.kernel, m.params);
  Params params = kernel.resolve(m.params);
  config.strategy = m.strategy;
  RunResult result = std::move(m.result);
  if (m.schedule) {
    RunResult replayed = explore(kernel, params, replay_config(*m.schedule, config));
    // The bug must replay as the shard recorded it: same kind, same report.
    if (!replayed.bug || verdict_name(replayed.verdict) != m.bug_verdict ||
        report_to_json(*replayed.bug) != m.schedule->bug)
      throw UsageError(fmt::format("{} merge: {}: the bug's schedule does not reproduce its {} "
                                   "in kernel {} with this heddle build (merge with the build the "
                                   "shards ran)",
                                   program_name(), m.bug_file, m.bug_verdict, m.kernel));
    result.bug = replayed.bug;
    result.verdict = replayed.verdict;
    result.schedule = m.schedule;
  }
  return finish(kernel, params, config, result, args, true);
}

int run_all(const RunConfig& config, const RunArgs& args, const std::string& log_level) {
  if (!args.kernel.empty())
    throw UsageError(fmt::format("give either a kernel ({}) or --all, not both", args.kernel));
  if (!args.preset.empty())
    throw UsageError(fmt::format("--preset is for one kernel; with --all pick presets with "
                                 "--filter 'KERNEL:{}'", args.preset));
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
  o.require_exhaustive = args.require_exhaustive;
  o.program = args.program;
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

// How the replay's bug report `now` differs from the one the schedule
// file records (`then`), naming each bug once.
std::string replay_difference(const nlohmann::json& now, const nlohmann::json& then) {
  auto title = [](const nlohmann::json& j) {
    return j.is_null() ? std::string("no bug") : j.value("title", std::string("a bug"));
  };
  if (now.is_null() || then.is_null() || title(now) != title(then))
    return fmt::format("the replay shows {} but the schedule file records {}", title(now),
                       title(then));
  std::vector<std::string> fields;
  for (const auto& [key, value] : now.items())
    if (!then.contains(key) || then[key] != value) fields.push_back(key);
  for (const auto& [key, value] : then.items())
    if (!now.contains(key)) fields.push_back(key);
  return fmt::format("the replay shows the bug the schedule file records ({}), but its report "
                     "differs in {} (the model changed since the file was written?)",
                     title(now), fmt::join(fields, ", "));
}

int replay_file(RunConfig config, const std::string& path, RunArgs args) {
  Schedule s = load_schedule(path);
  const Kernel& kernel = find_kernel(s.kernel, s.params);
  Params params = kernel.resolve(s.params);
  config.stack_bytes = args.stack_kib * 1024;
  config = replay_config(s, config);
  TimelineCapture capture(kernel.name, params.values());
  if (!args.timeline.empty() || !args.chrome_trace.empty()) config.decorate = capture.decorator();
  StepStates steps;
  if (args.steps) {
    StrategyDecorator inner = config.decorate;
    config.decorate = [outer = steps.decorator(), inner](std::unique_ptr<Strategy> s) {
      return outer(inner ? inner(std::move(s)) : std::move(s));
    };
  }
  RunResult result = explore(kernel, params, config);
  if (args.steps) fmt::print("steps, each with what it changed:\n{}\n", steps.text());
  int code = finish(kernel, params, config, result, args, !args.out.empty());
  if (capture.timeline()) {
    if (!args.timeline.empty())
      write_file(args.timeline, timeline_svg(*capture.timeline(), {args.timeline_full}));
    if (!args.chrome_trace.empty())
      write_file(args.chrome_trace, chrome_trace(*capture.timeline()).dump(1) + "\n");
  }
  nlohmann::json now = result.bug ? report_to_json(*result.bug) : nlohmann::json();
  if (now != s.bug)
    fmt::print(stderr, "{}: warning: {}\n", program_name(), replay_difference(now, s.bug));
  return code;
}

// Keeps freed memory in the process: every execution builds its kernel's
// buffers (a 128x256 tile's shadow cells take megabytes) and frees them at
// its end, and glibc by default hands such memory back to the kernel each
// time, to fault it in again, zeroed, in the next execution (0.18-0.24 s
// of a 0.35-0.48 s run of the tile_128x256_fixed epilogue; bench/RESULTS.md). What
// is kept is bounded by the largest execution's needs.
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  CLI::App app{"heddle: a systematic concurrency model checker for GPU and TPU kernel schedules"};
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error|off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  RunConfig config;
  RunArgs args;
  if (argc > 0 && argv[0] != nullptr && *argv[0] != '\0') args.program = argv[0];
  set_program_name(args.program);
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
  std::map<std::string, std::string> files;  // front end kind -> file (--pallas FILE)
  for (const auto& [kind, loader] : loaders())
    run->add_option("--" + kind, files[kind], loader.help);
  run->add_flag("--all", args.all, "the CI job: run every kernel's presets, with a summary table");
  run->add_option("--filter", args.filter, "with --all: only kernels or KERNEL:PRESET matching GLOB");
  run->add_option("--jobs,-j", args.jobs,
                  "dpor on N threads (the same result for every N); with --all: cases run in "
                  "parallel processes")
      ->check(kUnsigned)
      ->check(CLI::Range(1u, 256u));
  std::string shard;
  run->add_option("--shard", shard,
                  "I/N: explore shard I of N of the work (dpor); 'heddle merge' puts the shards' "
                  "--summary-json files together");
  run->add_flag("--explore-guarded", config.explore_guarded,
                "with --shard: explore the shard's guarded work items even when none of its own "
                "items calls for them (when 'heddle merge' asks for it)");
  run->add_flag("--split-always", args.split_always,
                "with --jobs or --shard: split even a kernel whose plain exploration ends in "
                "fewer steps than the split's probes ran (explored unsplit otherwise)");
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
  run->add_option("--preset", args.preset,
                  "start from the kernel's preset NAME ('heddle list' shows them); "
                  "--param overrides it");
  run->add_flag("--require-exhaustive", args.require_exhaustive,
                "fail (exit 1) when a budget stops the run before it covers every execution");
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
  add_source_root(run);
  add_front_end_options(run, args);
  add_budgets(run);
  auto* replay = app.add_subcommand("replay", "replay a schedule file step by step");
  add_source_root(replay);
  std::string replay_path;
  replay->add_option("file", replay_path, "schedule file written by 'heddle run'")->required();
  replay->add_option("--timeline", args.timeline, "draw the execution as an SVG swimlane timeline");
  replay->add_flag("--timeline-full", args.timeline_full,
                   "with --timeline: draw every step (by default the steps outside the race's "
                   "causal slice fold into markers)");
  replay->add_option("--chrome-trace", args.chrome_trace,
                     "write the execution as Chrome trace / Perfetto JSON");
  replay->add_flag("--steps", args.steps,
                   "after each step, print what it changed (barrier phases, semaphore values, "
                   "copies in flight)");
  add_budgets(replay);
  auto* merge = app.add_subcommand("merge", "merge the summaries of a run's shards (run --shard I/N)");
  std::vector<std::string> merge_paths;
  merge->add_option("files", merge_paths, "summary JSON of every shard (run --summary-json)")
      ->required();
  merge->add_option("--out", args.out, "write the schedule of the bug found to FILE");
  merge->add_option("--summary-json", args.summary_json, "write the merged summary as JSON");
  merge->add_flag("--require-exhaustive", args.require_exhaustive,
                  "fail (exit 1) when the shards together did not cover every execution");
  ProgramArgs program_args;
  add_program_commands(app, program_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));
  install_interrupt_handlers();
  std::signal(SIGXFSZ, SIG_IGN);  // past a file size limit a write fails (EFBIG): an error, not a kill
  try {
    if (app.got_subcommand("list")) return list_kernels();
    if (int code = run_program_command(program_args); code >= 0) return code;
    if (app.got_subcommand("run")) {
      for (const auto& [kind, file] : files) {
        if (file.empty()) continue;
        if (!args.kernel.empty() || args.all)
          throw UsageError(fmt::format("--{} FILE names the kernel: give no kernel name or --all",
                                       kind));
        args.kernel = kind + ":" + file;
      }
      if (args.all && !shard.empty())
        throw UsageError("--shard splits one kernel's run; with --all, spread kernels over CI jobs "
                         "with --filter");
      if (args.all && args.split_always)
        throw UsageError("--split-always works with one kernel's --jobs or --shard run, not --all");
      if (args.all) return run_all(config, args, log_level);
      auto given = [](const auto& options) {
        return std::any_of(options.begin(), options.end(), [](const auto& v) { return !v.empty(); });
      };
      if (args.kernel.empty() &&
          std::none_of(args.front_end_values.begin(), args.front_end_values.end(), given))
        throw UsageError(fmt::format("give a kernel to run ('{} list' shows them) or --all for "
                                     "every kernel", program_name()));
      for (const char* opt : {"--filter", "--budget-per-kernel", "--case-timeout", "--report",
                              "--artifacts"})
        if (run->count(opt) > 0)
          throw UsageError(fmt::format("{} works with --all only", opt));
      if (run->count("--jobs") > 0) config.jobs = args.jobs;
      if (!shard.empty()) parse_shard(shard, config);
      if (config.explore_guarded && shard.empty())
        throw UsageError("--explore-guarded works with --shard only");
      if (args.split_always && config.jobs == 0 && shard.empty())
        throw UsageError("--split-always works with --jobs or --shard only");
      config.split_trial = !args.split_always;
      return run_kernel(config, args);
    }
    if (app.got_subcommand("merge")) return merge_files(config, merge_paths, args);
    return replay_file(config, replay_path, args);
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: error: {}\n", program_name(), e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: internal error (a heddle bug): {}\n", program_name(), e.what());
    return 2;
  }
}

}  // namespace heddle
