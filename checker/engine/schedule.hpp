// A schedule: the exact steps of one execution, as a value and a JSON file.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace heddle {

class ExecutionRecord;

/// One step: which agent ran which operation (and where), or a data choice.
struct ScheduleStep {
  std::string agent;     // agent name; empty for a data choice
  std::string op;        // "lock(m)"; for a data choice, "choose"
  std::string at;        // file:line of the operation
  std::uint32_t value = 0;  // data choices: the value chosen
  std::uint32_t range = 0;  // data choices: chosen in [0, range)
  std::vector<std::string> issued = {};  // the copies (async agents) this step issued, for
                                    // readers; replay follows agent and op only
  std::vector<std::string> issued_at = {};  // where each of `issued` was issued (file:line);
                                            // empty in files written before it existed
  bool is_choice() const noexcept { return agent.empty(); }
  friend bool operator==(const ScheduleStep&, const ScheduleStep&) = default;
};

/// Limits on a schedule file, which is untrusted input (it travels with bug
/// reports): its size, its JSON nesting depth and its number of steps.
inline constexpr std::size_t kMaxScheduleBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxScheduleDepth = 256;
inline constexpr std::size_t kMaxScheduleSteps = std::size_t{1} << 22;

/// The deepest nesting of arrays and objects in JSON `text`, scanning at most
/// until it passes `limit` (iterative: safe on hostile input).
std::size_t nesting_depth(const std::string& text, std::size_t limit);

/// A replayable schedule. Format version 1.
struct Schedule {
  static constexpr int kVersion = 1;
  std::string kernel;
  std::map<std::string, std::string> params;
  std::string strategy;
  std::optional<std::uint64_t> seed;
  std::uint32_t max_steps = 0;   // the run's step limit (a livelock ends there)
  double step_timeout = 0;       // the run's step timeout (named in its report)
  std::vector<ScheduleStep> steps;
  nlohmann::json bug;  // the report it shows (null when none)
  friend bool operator==(const Schedule&, const Schedule&) = default;
};

/// The schedule of an execution (steps and choices interleaved in order).
std::vector<ScheduleStep> schedule_steps(const ExecutionRecord& ex);
/// How many of `steps` are agent steps (data choices not counted).
std::uint32_t count_steps(const std::vector<ScheduleStep>& steps);

/// Writes a schedule as JSON with one step per line.
std::string write_schedule(const Schedule& s);
/// Parses a schedule; throws UsageError naming line and column on bad input.
Schedule read_schedule(const std::string& text, const std::string& filename);
/// Reads a schedule file; throws UsageError when unreadable or malformed.
Schedule load_schedule(const std::string& path);

}  // namespace heddle
