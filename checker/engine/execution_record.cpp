#include "checker/engine/execution_record.hpp"

#include <fmt/format.h>

#include <map>
#include <string_view>

namespace heddle {

std::vector<std::pair<std::string, std::string>> ExecutionRecord::object_states() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [id, d] : described_) {
    std::string words = d->describe();
    if (!words.empty()) out.emplace_back(object_name(id), std::move(words));
  }
  return out;
}

std::string ExecutionRecord::final_state() const {
  std::map<std::string, std::string> sorted(observed_.begin(), observed_.end());
  std::string out;
  for (auto& [k, v] : sorted) out += fmt::format("{}={}\n", k, v);
  return out;
}

std::string ExecutionRecord::describe(const char* op, ObjectId object, bool has_object) const {
  if (!has_object) return op;
  // "name words" (an operation with an argument): "name(object) words".
  std::string_view name(op), words;
  if (auto space = name.find(' '); space != std::string_view::npos)
    words = name.substr(space), name = name.substr(0, space);
  return fmt::format("{}({}){}", name, object_name(object), words);
}

}  // namespace heddle
