#include "checker/report/shard_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checker/engine/bounded_read.hpp"
#include "checker/engine/errors.hpp"
#include "checker/engine/program_name.hpp"

namespace heddle {

namespace {
// A skipped guarded item's guard, or null.
nlohmann::json guard_json(const std::optional<dpor::Guard>& g) {
  if (!g) return nullptr;
  return {{"from", g->from}, {"at", g->at}};
}
}  // namespace

nlohmann::json split_json(const SplitInfo& split, const RunResult& r) {
  nlohmann::json j;
  j["fingerprint"] = fmt::format("{:016x}", split.fingerprint);
  j["items"] = split.items;
  j["shard"] = split.shard;
  j["shards"] = split.shards;
  j["probes"] = split.probes;
  nlohmann::json outcomes = nlohmann::json::array();
  for (const auto& o : split.outcomes)
    outcomes.push_back({o.item, o.executions, o.buggy, o.deadlocked, o.max_depth, o.discarded,
                        o.bug, o.done, o.calls, guard_json(o.skipped)});
  // [item, executions, buggy, deadlocked, max_depth, discarded, bug, done, calls, skipped]
  j["outcomes"] = outcomes;
  j["bug_item"] = split.bug_item ? nlohmann::json(*split.bug_item) : nlohmann::json();
  j["schedule"] = r.schedule ? nlohmann::json(write_schedule(*r.schedule)) : nlohmann::json();
  return j;
}

namespace {
[[noreturn]] void bad(const std::string& file, const std::string& why) {
  throw UsageError(fmt::format("{} merge: {}: {}", program_name(), file, why));
}

// True when `j` has no field `key`, or one of the JSON type `is` accepts.
template <typename Is>
bool absent_or(const nlohmann::json& j, const char* key, Is is) {
  return !j.contains(key) || (j[key].*is)();
}

// Refuses a summary whose fields merge reads have the wrong JSON types, so
// that merge reads them without a type error.
void check_fields(const nlohmann::json& j, const std::string& path) {
  using J = nlohmann::json;
  auto wrong = [&](const char* key, const char* what) {
    bad(path, fmt::format("\"{}\" must be {}", key, what));
  };
  if (!j.contains("kernel") || !j["kernel"].is_string()) wrong("kernel", "the kernel's name");
  if (!j.contains("params") || !j["params"].is_object()) wrong("params", "an object of strings");
  for (const auto& [k, v] : j["params"].items())
    if (!v.is_string()) wrong("params", "an object of strings");
  if (!absent_or(j, "strategy", &J::is_string)) wrong("strategy", "a strategy's name");
  if (!absent_or(j, "stopped_by", &J::is_string)) wrong("stopped_by", "a string");
  if (!absent_or(j, "notes", &J::is_array)) wrong("notes", "an array of strings");
  if (!absent_or(j, "restricted", &J::is_array)) wrong("restricted", "an array of strings");
  if (!absent_or(j, "stats", &J::is_object) ||
      (j.contains("stats") && !absent_or(j["stats"], "seconds", &J::is_number)))
    wrong("stats", "an object whose \"seconds\" is a number");
  if (!absent_or(j, "counterexample", &J::is_object) && !j["counterexample"].is_null())
    wrong("counterexample", "an object");
  if (j.contains("counterexample") && j["counterexample"].is_object()) {
    const J& c = j["counterexample"];
    for (const char* k : {"steps", "preemptions", "original_steps", "original_preemptions"})
      if (!absent_or(c, k, &J::is_number_unsigned)) wrong("counterexample", "an object of counts");
    if (!absent_or(c, "minimized", &J::is_boolean) || !absent_or(c, "note", &J::is_string))
      wrong("counterexample", "an object of counts, a flag and a note");
  }
}

// Reads one summary, refusing what is too big or nested too deep to parse safely.
nlohmann::json read_summary_file(const std::string& path) {
  BoundedRead r = read_bounded(path, kMaxSummaryBytes);
  switch (r.status) {
    case BoundedRead::Status::cannot_open: bad(path, fmt::format("cannot read it: {}", r.error));
    case BoundedRead::Status::too_big: bad(path, over_limit_words(r.size, kMaxSummaryBytes));
    case BoundedRead::Status::io_error: bad(path, "cannot read it");
    case BoundedRead::Status::ok: break;
  }
  const std::string& text = r.text;
  if (nesting_depth(text, kMaxScheduleDepth) > kMaxScheduleDepth)
    bad(path, fmt::format("JSON nested deeper than heddle's limit of {} levels", kMaxScheduleDepth));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) bad(path, "not JSON (a summary written by heddle run --summary-json?)");
  if (!j.is_object() || !j.contains("split") || !j["split"].is_object())
    bad(path, "not a shard summary: it has no \"split\" section (run with --shard I/N "
              "--summary-json FILE)");
  check_fields(j, path);
  if (!j.contains("heddle_version") || j["heddle_version"] != kHeddleVersion)
    bad(path, fmt::format("it was not written by this heddle version ({}): run every shard and "
                          "merge with one build",
                          kHeddleVersion));
  if (!j.contains("verdict") || !j["verdict"].is_string())
    bad(path, "\"verdict\" must be the shard's verdict");
  return j;
}


// Field `key` of `j` as an unsigned number at most `max`.
std::uint64_t number(const nlohmann::json& j, const char* key, const std::string& file,
                     std::uint64_t max = UINT64_MAX) {
  if (!j.contains(key) || !j[key].is_number_unsigned() || j[key].get<std::uint64_t>() > max)
    bad(file, fmt::format("\"{}\" must be a whole number from 0 to {}", key, max));
  return j[key].get<std::uint64_t>();
}

// The positions an outcome's races called for: sorted small numbers.
std::vector<std::uint32_t> read_calls(const nlohmann::json& row, const std::string& file) {
  if (!row.is_array()) bad(file, "an outcome's calls are not an array");
  std::vector<std::uint32_t> out;
  for (const auto& v : row) {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > UINT32_MAX)
      bad(file, "an outcome's calls hold a value that is not a prefix position");
    out.push_back(v.get<std::uint32_t>());
  }
  if (!std::is_sorted(out.begin(), out.end())) bad(file, "an outcome's calls are not sorted");
  return out;
}

// A skipped guarded item's guard, or none for null.
std::optional<dpor::Guard> read_guard(const nlohmann::json& j, const std::string& file) {
  if (j.is_null()) return std::nullopt;
  if (!j.is_object() || !j.contains("from") || !j["from"].is_number_unsigned() ||
      !j.contains("at") || !j["at"].is_number_unsigned() || j["at"].get<std::uint64_t>() > UINT32_MAX)
    bad(file, "an outcome's guard is malformed");
  return dpor::Guard{j["from"].get<std::uint64_t>(), j["at"].get<std::uint32_t>()};
}

// One item's outcome from its JSON row.
ItemOutcome outcome(const nlohmann::json& row, const std::string& file) {
  if (!row.is_array() || row.size() != 10) bad(file, "an outcome is not a row of 10 values");
  for (std::size_t k = 0; k < 6; ++k)
    if (!row[k].is_number_unsigned()) bad(file, "an outcome holds a value that is not a count");
  if (!row[6].is_boolean() || !row[7].is_boolean()) bad(file, "an outcome's flags are not true/false");
  return {row[0].get<std::uint64_t>(), row[1].get<std::uint64_t>(), row[2].get<std::uint64_t>(),
          row[3].get<std::uint64_t>(),
          static_cast<std::uint32_t>(std::min<std::uint64_t>(row[4].get<std::uint64_t>(), UINT32_MAX)),
          row[5].get<std::uint64_t>(), row[6].get<bool>(), row[7].get<bool>(),
          read_calls(row[8], file), read_guard(row[9], file)};
}

// The guarded items that a shard skipped although another shard's item
// calls for them, as "item K (shard S/N)".
std::vector<std::string> needed_guarded(const std::map<std::uint64_t, ItemOutcome>& all,
                                        const std::map<std::uint64_t, std::uint64_t>& shard_of,
                                        std::uint64_t shards) {
  std::vector<std::string> out;
  for (const auto& [k, o] : all) {
    if (!o.skipped) continue;
    for (auto it = all.lower_bound(o.skipped->from); it != all.end() && it->first < k; ++it)
      if (o.skipped->called_by(it->second.calls)) {
        out.push_back(fmt::format("item {} (shard {}/{})", k, shard_of.at(k), shards));
        break;
      }
  }
  return out;
}

// A shard's bug, told three ways, must agree: its verdict, the item its
// bug came from (one of its own, marked as stopped at a bug), and the
// bug's schedule, for this kernel and these parameters (issue 51.3: a bug
// dropped or replaced on the way is an error, never a verdict).
void check_bug_fields(const nlohmann::json& j, const std::map<std::uint64_t, ItemOutcome>& mine,
                      const std::string& file) {
  const std::string verdict = j["verdict"].get<std::string>();
  const bool says_bug = verdict != "verified" && verdict != "no_bug_found";
  const auto& s = j["split"];
  const bool has_item = s.contains("bug_item") && !s["bug_item"].is_null();
  bool any_bug_row = false;
  for (const auto& [k, o] : mine) any_bug_row |= o.bug;
  if (says_bug != has_item || (any_bug_row && !has_item))
    bad(file, fmt::format("its verdict ({}) and its \"bug_item\" ({}) disagree{}: the summary was "
                          "changed or cut; run the shard again",
                          verdict, has_item ? s["bug_item"].dump() : "none",
                          any_bug_row ? ", and an item of it stopped at a bug" : ""));
  if (!has_item) return;
  const std::uint64_t b = number(s, "bug_item", file);
  auto it = mine.find(b);
  if (it == mine.end() || !it->second.bug)
    bad(file, fmt::format("its \"bug_item\" {} is not one of its items that stopped at a bug", b));
  if (!s.contains("schedule") || !s["schedule"].is_string())
    bad(file, "its bug has no schedule");
  Schedule sched = read_schedule(s["schedule"].get<std::string>(), file);
  if (sched.kernel != j["kernel"].get<std::string>() ||
      sched.params != j["params"].get<std::map<std::string, std::string>>())
    bad(file, fmt::format("its bug's schedule is for kernel {} with other parameters, not for "
                          "this run's kernel {}",
                          sched.kernel, j["kernel"].get<std::string>()));
  if (sched.bug.is_null() || !sched.bug.is_object() || sched.bug.value("kind", "") != verdict)
    bad(file, fmt::format("its bug's schedule does not record the {} its verdict names", verdict));
}

// The header every shard of one run shares.
std::string identity(const nlohmann::json& j) {
  const auto& s = j["split"];
  return nlohmann::json{j.value("heddle_version", nlohmann::json()),
                        j.value("kernel", nlohmann::json()), j.value("params", nlohmann::json()),
                        j.value("strategy", nlohmann::json()), s.value("fingerprint", nlohmann::json()),
                        s.value("items", nlohmann::json()), s.value("shards", nlohmann::json())}
      .dump();
}

// merge_shards, on summaries that may still hold surprises for a type check.
MergedRun merge_summaries(const std::vector<std::string>& files) {
  if (files.empty()) throw UsageError(program_name() + " merge: give the summaries of every shard of one run");
  std::vector<nlohmann::json> sums;
  for (const auto& f : files) sums.push_back(read_summary_file(f));
  const std::uint64_t shards = number(sums[0]["split"], "shards", files[0], kMaxShards);
  const std::uint64_t items = number(sums[0]["split"], "items", files[0], kMaxItems);
  if (shards == 0) bad(files[0], "the run was not sharded (--jobs only): there is nothing to merge");
  std::map<std::uint64_t, std::size_t> by_shard;  // shard -> file
  for (std::size_t f = 0; f < sums.size(); ++f) {
    if (identity(sums[f]) != identity(sums[0]))
      bad(files[f], fmt::format("it is not a shard of the same run as {} (kernel, parameters, "
                                "strategy or work split differ: same heddle build and model?)",
                                files[0]));
    const std::uint64_t s = number(sums[f]["split"], "shard", files[f], shards - 1);
    if (!by_shard.emplace(s, f).second)
      bad(files[f], fmt::format("shard {}/{} is given twice (also {})", s, shards, files[by_shard[s]]));
  }
  for (std::uint64_t s = 0; s < shards; ++s)
    if (!by_shard.count(s))
      throw UsageError(fmt::format("{} merge: shard {}/{} is missing: give all {} summaries",
                                   program_name(), s, shards, shards));
  MergedRun m;
  m.kernel = sums[0].value("kernel", "");
  m.params = sums[0]["params"].get<std::map<std::string, std::string>>();
  m.strategy = sums[0].value("strategy", "dpor");
  std::map<std::uint64_t, ItemOutcome> all;
  std::map<std::uint64_t, std::uint64_t> shard_of;  // item -> shard
  std::optional<std::uint64_t> bug_item;
  std::size_t bug_file = 0;
  for (std::size_t f = 0; f < sums.size(); ++f) {
    const auto& s = sums[f]["split"];
    if (!s.contains("outcomes") || !s["outcomes"].is_array()) bad(files[f], "no \"outcomes\" array");
    for (const auto& row : s["outcomes"]) {
      ItemOutcome o = outcome(row, files[f]);
      if (o.item >= items) bad(files[f], fmt::format("item {} is not one of the split's", o.item));
      if (!all.emplace(o.item, o).second) bad(files[f], fmt::format("item {} is listed twice", o.item));
      shard_of[o.item] = number(s, "shard", files[f]);
    }
    std::map<std::uint64_t, ItemOutcome> mine;
    for (const auto& row : s["outcomes"]) {
      ItemOutcome o = outcome(row, files[f]);
      mine.emplace(o.item, o);
    }
    check_bug_fields(sums[f], mine, files[f]);
    if (s.contains("bug_item") && !s["bug_item"].is_null()) {
      const std::uint64_t b = number(s, "bug_item", files[f], items - 1);
      if (!bug_item || b < *bug_item) bug_item = b, bug_file = f;
    }
  }
  RunResult& r = m.result;
  const std::uint64_t last = bug_item ? *bug_item : items - 1;
  bool complete = true;
  for (std::uint64_t k = 0; items > 0 && k <= last; ++k) {
    auto it = all.find(k);
    if (it == all.end() || !it->second.done) complete = false;
    if (it == all.end()) continue;
    r.stats.executions += it->second.executions;
    r.stats.buggy += it->second.buggy;
    r.stats.deadlocked += it->second.deadlocked;
    r.stats.discarded += it->second.discarded;
    r.stats.max_depth = std::max(r.stats.max_depth, it->second.max_depth);
  }
  for (const auto& j : sums) {
    if (j.contains("stats") && j["stats"].contains("seconds"))
      r.stats.seconds = std::max(r.stats.seconds, j["stats"]["seconds"].get<double>());
    for (const auto& n : j.value("notes", nlohmann::json::array()))
      if (n.is_string() && n.get<std::string>().rfind("shard ", 0) != 0 &&
          std::find(r.notes.begin(), r.notes.end(), n.get<std::string>()) == r.notes.end())
        r.notes.push_back(n.get<std::string>());
  }
  r.notes.push_back(fmt::format("merged from {} shards", shards));
  const std::vector<std::string> needed = needed_guarded(all, shard_of, shards);
  for (const auto& n : needed)
    r.notes.push_back(fmt::format(
        "guarded work {} was skipped, but another shard's race calls for it: run that shard "
        "again with --explore-guarded and merge again",
        n));
  complete &= needed.empty();
  r.exhaustive = !bug_item && complete;
  for (const auto& j : sums)
    for (const auto& n : j.value("restricted", nlohmann::json::array()))
      if (n.is_string() && std::find(r.restrictions.begin(), r.restrictions.end(),
                                     n.get<std::string>()) == r.restrictions.end())
        r.restrictions.push_back(n.get<std::string>());
  apply_restrictions(r);
  if (bug_item) {
    r.stopped_by = "first bug";
    const auto& sched = sums[bug_file]["split"]["schedule"];
    if (!sched.is_string()) bad(files[bug_file], "its bug has no schedule");
    m.schedule = read_schedule(sched.get<std::string>(), files[bug_file]);
    m.bug_verdict = sums[bug_file]["verdict"].get<std::string>();
    m.bug_file = files[bug_file];
    const auto& c = sums[bug_file].value("counterexample", nlohmann::json());
    if (c.is_object())
      r.counterexample = Counterexample{c.value("steps", 0u), c.value("preemptions", 0u),
                                        c.value("original_steps", 0u),
                                        c.value("original_preemptions", 0u),
                                        c.value("minimized", false), c.value("note", "")};
  } else if (!complete) {
    for (const auto& j : sums)
      if (r.stopped_by.empty()) r.stopped_by = j.value("stopped_by", "");
    if (r.stopped_by.empty()) r.stopped_by = needed.empty() ? "incomplete shard" : "guarded items";
  }
  return m;
}
}  // namespace

MergedRun merge_shards(const std::vector<std::string>& files) {
  try {
    return merge_summaries(files);
  } catch (const nlohmann::json::exception& e) {
    // check_fields should have said it better: a field it does not check.
    throw UsageError(fmt::format("{} merge: a summary holds a value of the wrong type ({})",
                                 program_name(), e.what()));
  }
}

}  // namespace heddle
