// What a run found: its counters, verdict, first bug and schedule (the
// explorer's result, shared by sequential and split runs).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/explore/dpor/guard.hpp"
#include "checker/explore/cex/minimize.hpp"
#include "checker/explore/run.hpp"

namespace heddle {

/// Counters every run reports.
struct RunStats {
  std::uint64_t executions = 0;
  std::uint64_t buggy = 0;          // executions that ended in a bug
  std::uint64_t deadlocked = 0;     // executions that ended blocked
  std::uint64_t sleep_blocked = 0;  // from the strategy (0 for optimal DPOR)
  std::uint64_t abandoned = 0;      // executions the strategy gave up (not in `executions`)
  std::uint64_t discarded = 0;      // executions a failed assume() discarded (not in `executions`)
  std::uint64_t peak_state_bytes = 0;  // from the strategy: its exploration state, at most
  std::uint32_t max_depth = 0;      // most steps in one execution
  double seconds = 0;
};

/// What one work item of a split run found (checker/explore/split/work_split.hpp).
struct ItemOutcome {
  std::uint64_t item = 0;        // its index in the split
  std::uint64_t executions = 0;
  std::uint64_t buggy = 0;
  std::uint64_t deadlocked = 0;
  std::uint32_t max_depth = 0;
  std::uint64_t discarded = 0;   // by a failed assume()
  bool bug = false;              // it stopped at a bug (stop at the first bug)
  bool done = false;             // every trace of the item explored
  std::vector<std::uint32_t> calls;     // prefix positions of guarded items it called for
  std::optional<dpor::Guard> skipped;   // guarded, and no item of this run called for it
};

/// The split a run used, with what each of its items found.
struct SplitInfo {
  std::uint64_t fingerprint = 0;
  std::uint64_t items = 0;
  std::uint32_t shard = 0, shards = 0;  // shards == 0: every item
  std::uint64_t probes = 0;
  std::vector<ItemOutcome> outcomes;   // of the items explored (or cut), by index
  std::optional<std::uint64_t> bug_item;  // the item the reported bug is from
};

/// One distinct bug of a --keep-going run: bugs are the same when their
/// kind and source sites are (the two accesses of a race; the title otherwise).
struct DistinctBug {
  std::string key;
  BugReport bug;
  Schedule schedule;                             // minimized when it replays
  std::optional<Counterexample> counterexample;
  std::uint64_t executions = 0;                  // executions that ended in it
};

/// What a run found.
struct RunResult {
  Verdict verdict = Verdict::ok;
  bool exhaustive = false;       // every execution covered, no budget hit
  std::string stopped_by;        // "max-executions", "time-limit", "first bug",
                                 // "preemption-bound", ""
  RunStats stats;
  std::optional<BugReport> bug;  // the first bug found
  std::optional<Schedule> schedule;  // its replayable schedule
  std::vector<std::string> notes;    // model notes, each once, in first-seen order
  std::vector<std::string> restrictions;  // the model's restricting options (not exhaustive)
  std::optional<std::uint64_t> seed; // the seed a randomized strategy used
  std::optional<Counterexample> counterexample;  // sizes before/after minimization
  std::optional<SplitInfo> split;    // set by split runs (--jobs, --shard)
  std::vector<DistinctBug> distinct; // --keep-going: every distinct bug, in the order found
};

/// Appends each string of `from` that `to` lacks, in order (notes and
/// restrictions: each once, in first-seen order).
inline void add_once(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const auto& s : from)
    if (std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
}

/// Makes a run whose model restricted its exploration not exhaustive (its
/// verdict then says why it stopped: "restriction").
inline void apply_restrictions(RunResult& r) {
  if (r.restrictions.empty()) return;
  r.exhaustive = false;
  if (!r.bug && r.stopped_by.empty()) r.stopped_by = "restriction";
}

/// Called after each execution (tests use it to collect final states).
using ExecutionObserver = std::function<void(const ExecutionRecord&, Ending)>;

}  // namespace heddle
