#include "checker/engine/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "checker/engine/bounded_read.hpp"
#include "checker/engine/errors.hpp"
#include "checker/engine/execution_record.hpp"

namespace heddle {

std::uint32_t count_steps(const std::vector<ScheduleStep>& steps) {
  return static_cast<std::uint32_t>(
      std::count_if(steps.begin(), steps.end(), [](auto& s) { return !s.is_choice(); }));
}

std::vector<ScheduleStep> schedule_steps(const ExecutionRecord& ex) {
  std::vector<ScheduleStep> out;
  const auto& trace = ex.trace();
  const auto& choices = ex.choices();
  std::size_t c = 0;
  auto emit_choices_of = [&](std::uint32_t step) {
    for (; c < choices.size() && choices[c].step == step; ++c)
      out.push_back(ScheduleStep{"", "choose", "", choices[c].value, choices[c].range});
  };
  // A counterexample ends at its bug, even when the execution ran on.
  std::size_t end = ex.bug() ? std::min<std::size_t>(trace.size(), ex.bug()->step) : trace.size();
  std::vector<std::vector<std::string>> issued(end), issued_at(end);
  for (const auto& a : ex.agents())
    if (a->kind == Agent::Kind::async && a->created_by >= 0 &&
        static_cast<std::size_t>(a->created_by) < end) {
      issued[static_cast<std::size_t>(a->created_by)].push_back(a->name);
      issued_at[static_cast<std::size_t>(a->created_by)].push_back(
          where(static_cast<const AsyncAgent&>(*a).loc));
    }
  emit_choices_of(0);
  for (std::size_t i = 0; i < end; ++i) {
    const Event& e = trace[i];
    out.push_back(ScheduleStep{ex.agents()[index(e.agent)]->name,
                               ex.describe(e.op, e.object, e.has_object), where(e.loc)});
    out.back().issued = std::move(issued[i]);
    out.back().issued_at = std::move(issued_at[i]);
    emit_choices_of(static_cast<std::uint32_t>(i + 1));
  }
  return out;
}

namespace {
nlohmann::json step_json(const ScheduleStep& s, std::size_t n) {
  if (s.is_choice()) return {{"step", n}, {"choose", s.value}, {"of", s.range}};
  nlohmann::json j{{"step", n}, {"agent", s.agent}, {"op", s.op}, {"at", s.at}};
  if (!s.issued.empty()) j["issues"] = s.issued;
  if (!s.issued_at.empty()) j["issues_at"] = s.issued_at;
  return j;
}

[[noreturn]] void malformed(const std::string& file, const std::string& why) {
  throw UsageError(fmt::format("{}: not a valid heddle schedule: {}", file, why));
}

// Converts a byte offset to "line L, column C" (1-based).
std::string position(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return fmt::format("line {}, column {}", line, col);
}

// An unsigned integer field that fits `max` (not a float, not negative).
std::uint64_t unsigned_field(const nlohmann::json& j, const std::string& file, const std::string& what,
                             std::uint64_t max) {
  if (!j.is_number_unsigned() || j.get<std::uint64_t>() > max)
    malformed(file, fmt::format("{} must be a whole number from 0 to {}", what, max));
  return j.get<std::uint64_t>();
}

std::string string_field(const nlohmann::json& j, const std::string& file, const std::string& what) {
  if (!j.is_string()) malformed(file, fmt::format("{} must be a string", what));
  return j.get<std::string>();
}

ScheduleStep parse_step(const nlohmann::json& j, const std::string& file, std::size_t n) {
  if (!j.is_object()) malformed(file, fmt::format("step {} is not an object", n));
  if (j.contains("choose")) {
    if (!j.contains("of")) malformed(file, fmt::format("step {}: a choice needs \"of\"", n));
    auto what = fmt::format("step {}: \"choose\"", n);
    auto value = unsigned_field(j["choose"], file, what, UINT32_MAX);
    auto range = unsigned_field(j["of"], file, fmt::format("step {}: \"of\"", n), UINT32_MAX);
    if (value >= range) malformed(file, fmt::format("step {}: choice {} is not below {}", n, value, range));
    return ScheduleStep{"", "choose", "", static_cast<std::uint32_t>(value),
                        static_cast<std::uint32_t>(range)};
  }
  for (const char* key : {"agent", "op"})
    if (!j.contains(key) || !j[key].is_string())
      malformed(file, fmt::format("step {}: missing string field \"{}\"", n, key));
  ScheduleStep step{j["agent"].get<std::string>(), j["op"].get<std::string>(), ""};
  if (step.agent.empty()) malformed(file, fmt::format("step {}: \"agent\" is empty", n));
  if (j.contains("at")) step.at = string_field(j["at"], file, fmt::format("step {}: \"at\"", n));
  if (j.contains("issues")) {
    if (!j["issues"].is_array())
      malformed(file, fmt::format("step {}: \"issues\" must be an array of copy names", n));
    for (const auto& name : j["issues"]) {
      if (!name.is_string())
        malformed(file, fmt::format("step {}: \"issues\" must be an array of copy names", n));
      step.issued.push_back(name.get<std::string>());
    }
  }
  if (j.contains("issues_at")) {
    const auto& at = j["issues_at"];
    if (!at.is_array() || at.size() != step.issued.size())
      malformed(file, fmt::format("step {}: \"issues_at\" must be an array of file:line, one "
                                  "per copy in \"issues\"", n));
    for (const auto& where : at) {
      if (!where.is_string())
        malformed(file, fmt::format("step {}: \"issues_at\" must be an array of file:line", n));
      step.issued_at.push_back(where.get<std::string>());
    }
  }
  return step;
}

// The header fields after "format" and "version".
void parse_header(const nlohmann::json& j, const std::string& file, Schedule& s) {
  if (!j.contains("kernel")) malformed(file, "missing \"kernel\"");
  s.kernel = string_field(j["kernel"], file, "\"kernel\"");
  if (j.contains("params")) {
    if (!j["params"].is_object()) malformed(file, "\"params\" must be an object of strings");
    for (const auto& [k, v] : j["params"].items())
      s.params[k] = string_field(v, file, fmt::format("parameter {}", k));
  }
  if (j.contains("strategy")) s.strategy = string_field(j["strategy"], file, "\"strategy\"");
  if (j.contains("seed")) s.seed = unsigned_field(j["seed"], file, "\"seed\"", UINT64_MAX);
  if (j.contains("max_steps"))
    s.max_steps = static_cast<std::uint32_t>(
        unsigned_field(j["max_steps"], file, "\"max_steps\"", UINT32_MAX));
  if (j.contains("step_timeout")) {
    const auto& t = j["step_timeout"];
    if (!t.is_number() || !std::isfinite(t.get<double>()) || t.get<double>() < 0)
      malformed(file, "\"step_timeout\" must be a number of seconds >= 0");
    s.step_timeout = t.get<double>();
  }
  if (j.contains("bug")) {
    // The report the schedule was written with: null, or an object whose
    // title and kind are strings (replay compares and names it).
    const auto& b = j["bug"];
    auto text = [&b](const char* key) { return !b.contains(key) || b[key].is_string(); };
    if (!b.is_null() && (!b.is_object() || !text("title") || !text("kind")))
      malformed(file, "\"bug\" must be the bug's report (an object whose \"title\" and "
                      "\"kind\" are strings) or null");
    s.bug = b;
  }
}
}  // namespace

std::size_t nesting_depth(const std::string& text, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size() && deepest <= limit; ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::string write_schedule(const Schedule& s) {
  nlohmann::json head;
  head["format"] = "heddle-schedule";
  head["version"] = Schedule::kVersion;
  head["kernel"] = s.kernel;
  head["params"] = s.params;
  head["strategy"] = s.strategy;
  if (s.seed) head["seed"] = *s.seed;
  head["max_steps"] = s.max_steps;
  head["step_timeout"] = s.step_timeout;
  std::string out = "{\n";
  for (auto& [k, v] : head.items()) out += fmt::format("  {}: {},\n", nlohmann::json(k).dump(), v.dump());
  out += fmt::format("  \"bug\": {},\n", s.bug.dump());
  out += "  \"steps\": [\n";
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    out += fmt::format("    {}{}\n", step_json(s.steps[i], i + 1).dump(),
                       i + 1 < s.steps.size() ? "," : "");
  out += "  ]\n}\n";
  return out;
}

Schedule read_schedule(const std::string& text, const std::string& file) {
  if (text.size() > kMaxScheduleBytes) malformed(file, over_limit_words(text.size(), kMaxScheduleBytes));
  if (nesting_depth(text, kMaxScheduleDepth) > kMaxScheduleDepth)
    malformed(file, fmt::format("JSON nested deeper than heddle's limit of {} levels",
                                kMaxScheduleDepth));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    malformed(file, fmt::format("JSON syntax error at {}", position(text, e.byte > 0 ? e.byte - 1 : 0)));
  } catch (const nlohmann::json::exception& e) {
    malformed(file, fmt::format("JSON error: {}", e.what()));
  }
  if (!j.is_object() || !j.contains("format") || j["format"] != "heddle-schedule")
    malformed(file, "missing \"format\": \"heddle-schedule\"");
  if (!j.contains("version")) malformed(file, "missing \"version\"");
  const auto version = unsigned_field(j["version"], file, "\"version\"", UINT64_MAX);
  if (version != Schedule::kVersion)
    malformed(file, fmt::format("format version {} is not supported (this heddle reads {})",
                                version, Schedule::kVersion));
  Schedule s;
  parse_header(j, file, s);
  if (!j.contains("steps") || !j["steps"].is_array()) malformed(file, "missing \"steps\" array");
  const auto& steps = j["steps"];
  if (steps.size() > kMaxScheduleSteps)
    malformed(file, fmt::format("{} steps, over heddle's limit of {}", steps.size(), kMaxScheduleSteps));
  s.steps.reserve(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) s.steps.push_back(parse_step(steps[i], file, i + 1));
  return s;
}

BoundedRead read_bounded(const std::string& path, std::uint64_t max_bytes) {
  BoundedRead r;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.status = BoundedRead::Status::cannot_open;
    r.error = std::strerror(errno);
    return r;
  }
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size > 0 && static_cast<std::uint64_t>(size) > max_bytes) {
    r.status = BoundedRead::Status::too_big;
    r.size = static_cast<std::uint64_t>(size);
    return r;
  }
  in.seekg(0, std::ios::beg);
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) r.status = BoundedRead::Status::io_error;
  else r.text = ss.str();
  return r;
}

std::string over_limit_words(std::uint64_t size, std::uint64_t max_bytes) {
  return fmt::format("it is {} MiB, over heddle's limit of {} MiB", size >> 20, max_bytes >> 20);
}

Schedule load_schedule(const std::string& path) {
  // Refuse a huge file before reading it (schedules arrive with bug reports).
  BoundedRead r = read_bounded(path, kMaxScheduleBytes);
  switch (r.status) {
    case BoundedRead::Status::cannot_open:
      throw UsageError(fmt::format("cannot read schedule file {}: {}", path, r.error));
    case BoundedRead::Status::too_big: malformed(path, over_limit_words(r.size, kMaxScheduleBytes));
    case BoundedRead::Status::io_error:
      throw UsageError(fmt::format("cannot read schedule file {}", path));
    case BoundedRead::Status::ok: break;
  }
  return read_schedule(r.text, path);
}

}  // namespace heddle
