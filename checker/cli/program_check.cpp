// The launch checker of program runners (checker/program_runner.hpp): a
// program's launch explored like `heddle run` explores a kernel, with the
// runner's options (--strategy, budgets, --out, --replay), and its report.
#include <fmt/format.h>

#include <cstdio>

#include "checker/engine/errors.hpp"
#include "checker/explore/explorer.hpp"
#include "checker/program_runner.hpp"
#include "checker/report/text_report.hpp"

// A namespace of its own: in a unity build (a user project's --unity
// subprojects) this file shares a translation unit with cli.cpp.
namespace heddle::program_check {
namespace {

using Options = std::map<std::string, std::string>;

std::uint64_t whole(const std::string& key, const std::string& text) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(fmt::format("--{} {}: expected a whole number (0, 1, 2, ...)", key, text));
  return std::stoull(text);
}

double seconds(const std::string& key, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v >= 0) || v > 1e9)
    throw UsageError(fmt::format("--{} {}: expected seconds, a number >= 0", key, text));
  return v;
}

// The run configuration of checked launches.
RunConfig config_of(const Options& options) {
  RunConfig c;
  for (const auto& [key, value] : options) {
    if (key == "strategy") c.strategy = value;
    else if (key == "max-executions") c.max_executions = whole(key, value);
    else if (key == "time-limit") c.time_limit = seconds(key, value);
    else if (key == "seed") c.seed = whole(key, value);
    else if (key == "keep-going") c.stop_at_first_bug = false;
    else if (key == "max-steps") {
      std::uint64_t n = whole(key, value);
      if (n == 0 || n > UINT32_MAX)
        throw UsageError(fmt::format("--max-steps {}: expected 1 to {}", value, UINT32_MAX));
      c.max_steps = static_cast<std::uint32_t>(n);
    } else if (key == "preemption-bound") {
      if (value != "auto") c.preemption_bound = static_cast<std::uint32_t>(whole(key, value));
    } else if (key == "stack-size") {
      std::uint64_t kib = whole(key, value);
      if (kib < 64 || kib > 1024 * 1024)
        throw UsageError(fmt::format("--stack-size {}: expected 64 to 1048576 KiB", value));
      c.stack_bytes = kib * 1024;
    } else if (key == "sms") {  // read by the program's runtime; checked before it starts
      std::uint64_t n = whole(key, value);
      if (n == 0 || n > 1024) throw UsageError(fmt::format("--sms {}: expected 1 to 1024", value));
    }
  }
  if (options.count("preemption-bound") && c.strategy != "bounded")
    throw UsageError("--preemption-bound applies to the bounded strategy: add --strategy bounded");
  make_strategy(c);  // an unknown strategy is an error before anything runs
  return c;
}

std::string option(const Options& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() ? std::string() : it->second;
}

void validate(const Options& options) {
  config_of(options);
  if (std::string path = option(options, "replay"); !path.empty()) {
    Schedule s = load_schedule(path);
    if (s.params.count("launch") == 0)
      throw UsageError(fmt::format("--replay {}: not a schedule of a program's launch (it names "
                                   "no launch; replay it with heddle replay)",
                                   path));
  }
}

void write_text(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0)
    throw UsageError(fmt::format("cannot write {}", path));
}

// The report less its "replay with: heddle replay FILE" lines: the kernel
// lives inside the program, so the runner's own hint replaces them.
std::string without_replay_hint(const std::string& report) {
  std::string out;
  std::size_t start = 0;
  while (start < report.size()) {
    std::size_t end = report.find('\n', start);
    end = end == std::string::npos ? report.size() : end + 1;
    if (report.compare(start, 26, "replay with: heddle replay") != 0) out += report.substr(start, end - start);
    start = end;
  }
  return out;
}

LaunchOutcome check_launch(const Kernel& k, const ProgramLaunch& launch, const Options& options) {
  RunConfig config = config_of(options);
  std::map<std::string, std::string> given;
  for (const ParamSpec& p : k.params) given[p.name] = p.default_value;
  Params params(given);
  const std::string replay = option(options, "replay");
  std::optional<Schedule> schedule;
  if (!replay.empty()) schedule = load_schedule(replay);
  const bool replaying = schedule && schedule->params["launch"] == std::to_string(launch.number);
  if (replaying) {
    if (schedule->kernel != k.name || schedule->params != given)
      throw UsageError(fmt::format("--replay {}: the schedule is for {}, but launch {} of this run "
                                   "is {} ({}): run the program with the arguments it was "
                                   "recorded with",
                                   replay, schedule->kernel, launch.number, k.name, k.description));
    config = replay_config(*schedule, config);
  } else if (!launch.checked) {
    config.strategy = "dfs";
    config.max_executions = 1;
    config.time_limit = 0;
  }
  RunResult result = explore(k, params, config);
  LaunchOutcome out;
  if (result.bug) {
    std::string file = option(options, "out");
    if (file.empty() && replaying) file = replay;  // a replay writes no new file unless asked
    else if (file.empty()) file = launch.default_out;
    if (result.schedule && file != replay) {
      write_text(file, write_schedule(*result.schedule));
      for (std::size_t k = 1; k < result.distinct.size(); ++k)  // --keep-going's other bugs
        write_text(distinct_schedule_file(file, k), write_schedule(result.distinct[k].schedule));
    } else if (!result.schedule) {
      file.clear();
    }
    out.bug = true;
    out.text = without_replay_hint(format_run(k, params, config, result, file, "heddle"));
    if (!file.empty()) {
      out.text += fmt::format("replay it: heddle {} --replay {} -- {}\n", option(options, "runner"),
                              file, option(options, "command"));
      for (std::size_t k = 1; k < result.distinct.size() && file != replay; ++k)
        out.text += fmt::format("replay bug {}: heddle {} --replay {} -- {}\n", k + 1,
                                option(options, "runner"), distinct_schedule_file(file, k),
                                option(options, "command"));
    }
    return out;
  }
  if (replaying) out.text = "replayed the schedule: no bug";
  else if (!launch.checked) out.text = "one schedule";
  else out.text = fmt::format("checked: {} execution{}, {}", result.stats.executions,
                              result.stats.executions == 1 ? "" : "s",
                              result.exhaustive ? "exhaustive" : "not exhaustive (" + result.stopped_by + ")");
  return out;
}

const Registration registered = set_launch_checker(LaunchChecker{validate, check_launch});

}  // namespace
}  // namespace heddle::program_check
