#include "checker/engine/bug.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "checker/engine/range_words.hpp"
#include "checker/engine/source_path.hpp"

namespace heddle {
namespace {
constexpr std::array<std::pair<Verdict, const char*>, 7> kNames{{
    {Verdict::ok, "ok"},
    {Verdict::race, "race"},
    {Verdict::deadlock, "deadlock"},
    {Verdict::assertion, "assertion"},
    {Verdict::model_error, "model_error"},
    {Verdict::livelock, "livelock"},
    {Verdict::async_error, "async_error"},
}};

// One access in words; its proxy only where the report involves a
// non-generic one (TPU and plain models have no proxies to speak of).
std::string describe(const AccessInfo& a, bool proxies, const std::string& title) {
  return fmt::format("{} {} of {} by {}{} at {}, step {}", a.op, a.write ? "(write)" : "(read)",
                     range_words(a.region, unit_in_title(title, a.region), a.first,
                                 std::uint64_t{a.last} + 1 - a.first),
                     a.agent,
                     proxies ? fmt::format(" ({} proxy)", a.proxy) : std::string(), a.at, a.step);
}
}  // namespace

const char* verdict_name(Verdict v) {
  for (auto& [k, n] : kNames)
    if (k == v) return n;
  return "unknown";
}

std::optional<Verdict> parse_verdict(const std::string& s) {
  for (auto& [k, n] : kNames)
    if (s == n) return k;
  return std::nullopt;
}

std::string where(const std::source_location& loc) {
  // Relative to the user's source root (source_path), so reports do not
  // depend on where the tree was checked out or built.
  return fmt::format("{}:{}", source_path(loc.file_name()), loc.line());
}

std::string format_report(const BugReport& bug) {
  std::string out = fmt::format("{}: {}\n", verdict_name(bug.kind), bug.title);
  const bool proxies = std::any_of(bug.accesses.begin(), bug.accesses.end(),
                                   [](const AccessInfo& a) { return a.proxy != "generic"; });
  for (std::size_t i = 0; i < bug.accesses.size(); ++i)
    out += fmt::format("  access {}: {}\n", i + 1, describe(bug.accesses[i], proxies, bug.title));
  for (const auto& d : bug.details) out += fmt::format("  {}\n", d);
  return out;
}

nlohmann::json report_to_json(const BugReport& bug) {
  nlohmann::json j;
  j["kind"] = verdict_name(bug.kind);
  j["title"] = bug.title;
  j["details"] = bug.details;
  j["step"] = bug.step;
  j["accesses"] = nlohmann::json::array();
  for (const auto& a : bug.accesses) {
    j["accesses"].push_back({{"agent", a.agent}, {"op", a.op}, {"region", a.region},
                             {"first", a.first}, {"last", a.last}, {"write", a.write},
                             {"proxy", a.proxy}, {"at", a.at}, {"step", a.step}});
  }
  return j;
}

}  // namespace heddle
