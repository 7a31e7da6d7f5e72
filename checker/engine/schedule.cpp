#include "checker/engine/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution.hpp"

namespace heddle {

std::vector<ScheduleStep> schedule_steps(const Execution& ex) {
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
  std::vector<std::vector<std::string>> issued(end);
  for (const auto& a : ex.agents())
    if (a->kind == Agent::Kind::async && a->created_by >= 0 &&
        static_cast<std::size_t>(a->created_by) < end)
      issued[static_cast<std::size_t>(a->created_by)].push_back(a->name);
  emit_choices_of(0);
  for (std::size_t i = 0; i < end; ++i) {
    const Event& e = trace[i];
    out.push_back(ScheduleStep{ex.agents()[index(e.agent)]->name,
                               ex.describe(e.op, e.object, e.has_object), where(e.loc)});
    out.back().issued = std::move(issued[i]);
    emit_choices_of(static_cast<std::uint32_t>(i + 1));
  }
  return out;
}

namespace {
nlohmann::json step_json(const ScheduleStep& s, std::size_t n) {
  if (s.is_choice()) return {{"step", n}, {"choose", s.value}, {"of", s.range}};
  nlohmann::json j{{"step", n}, {"agent", s.agent}, {"op", s.op}, {"at", s.at}};
  if (!s.issued.empty()) j["issues"] = s.issued;
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

ScheduleStep parse_step(const nlohmann::json& j, const std::string& file, std::size_t n) {
  if (!j.is_object()) malformed(file, fmt::format("step {} is not an object", n));
  if (j.contains("choose")) {
    if (!j["choose"].is_number_unsigned() || !j.value("of", nlohmann::json()).is_number_unsigned())
      malformed(file, fmt::format("step {}: a choice needs unsigned \"choose\" and \"of\"", n));
    return ScheduleStep{"", "choose", "", j["choose"].get<std::uint32_t>(),
                        j["of"].get<std::uint32_t>()};
  }
  for (const char* key : {"agent", "op"})
    if (!j.contains(key) || !j[key].is_string())
      malformed(file, fmt::format("step {}: missing string field \"{}\"", n, key));
  ScheduleStep step{j["agent"].get<std::string>(), j["op"].get<std::string>(),
                    j.value("at", std::string())};
  if (j.contains("issues")) {
    if (!j["issues"].is_array())
      malformed(file, fmt::format("step {}: \"issues\" must be an array of copy names", n));
    for (const auto& name : j["issues"]) {
      if (!name.is_string())
        malformed(file, fmt::format("step {}: \"issues\" must be an array of copy names", n));
      step.issued.push_back(name.get<std::string>());
    }
  }
  return step;
}
}  // namespace

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
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    malformed(file, fmt::format("JSON syntax error at {}", position(text, e.byte > 0 ? e.byte - 1 : 0)));
  }
  if (!j.is_object() || j.value("format", "") != "heddle-schedule")
    malformed(file, "missing \"format\": \"heddle-schedule\"");
  if (!j.contains("version") || !j["version"].is_number_integer())
    malformed(file, "missing \"version\"");
  if (j["version"].get<int>() != Schedule::kVersion)
    malformed(file, fmt::format("format version {} is not supported (this heddle reads {})",
                                j["version"].get<int>(), Schedule::kVersion));
  Schedule s;
  try {
    s.kernel = j.at("kernel").get<std::string>();
    s.params = j.value("params", std::map<std::string, std::string>{});
    s.strategy = j.value("strategy", std::string());
    if (j.contains("seed")) s.seed = j["seed"].get<std::uint64_t>();
    s.max_steps = j.value("max_steps", 0u);
    s.step_timeout = j.value("step_timeout", 0.0);
    s.bug = j.value("bug", nlohmann::json());
  } catch (const nlohmann::json::exception& e) {
    malformed(file, e.what());
  }
  if (!j.contains("steps") || !j["steps"].is_array()) malformed(file, "missing \"steps\" array");
  for (std::size_t i = 0; i < j["steps"].size(); ++i)
    s.steps.push_back(parse_step(j["steps"][i], file, i + 1));
  return s;
}

Schedule load_schedule(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("cannot read schedule file {}", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return read_schedule(ss.str(), path);
}

}  // namespace heddle
