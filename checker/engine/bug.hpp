// Bug reports: what went wrong, where, and the schedule that shows it.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

namespace heddle {

/// The outcome of a run or the kind of a bug.
enum class Verdict { ok, race, deadlock, assertion, model_error, livelock, async_error };
/// The last Verdict: loops over the bug kinds (Execution::met) end here.
inline constexpr Verdict kLastVerdict = Verdict::async_error;

/// Stable lowercase name of a verdict ("race", "deadlock", ...).
const char* verdict_name(Verdict v);
/// Parses a verdict name; nullopt when unknown.
std::optional<Verdict> parse_verdict(const std::string& s);

/// A source location as stored in reports ("file:line").
std::string where(const std::source_location& loc);

/// One side of a race: who accessed what, where and when.
struct AccessInfo {
  std::string agent;
  std::string op;          // "store", "load", "tma_store.read_desc", ...
  std::string region;
  std::uint32_t first = 0; // element range [first, last]
  std::uint32_t last = 0;
  bool write = false;
  std::string proxy;       // "generic" or "async"
  std::string at;          // file:line
  std::uint32_t step = 0;  // schedule step (1-based; 0 = before the first step)
};

/// A bug found in one execution.
struct BugReport {
  Verdict kind = Verdict::ok;
  std::string title;                 // one line
  std::vector<std::string> details;  // further lines (blocked ops, reasons)
  std::vector<AccessInfo> accesses;  // the two racing accesses, for races
  std::uint32_t step = 0;            // step at which it was detected
};

/// Text form of a report (without the schedule).
std::string format_report(const BugReport& bug);
/// JSON form of a report.
nlohmann::json report_to_json(const BugReport& bug);

}  // namespace heddle
