// Shard summaries: the "split" section a split run (--jobs, --shard) adds to
// its summary JSON, and `heddle merge`, which puts a run's shards together.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "checker/explore/result.hpp"

namespace heddle {

/// The "split" section of a summary: the split's fingerprint, the outcome of
/// each item explored, and the schedule of the run's bug (replayable).
nlohmann::json split_json(const SplitInfo& split, const RunResult& r);

/// Limits on merge's input: summaries arrive from other machines.
inline constexpr std::size_t kMaxSummaryBytes = std::size_t{256} << 20;
inline constexpr std::uint32_t kMaxShards = 100000;
/// Far above what a split makes (kSplitTarget times one level's branching).
inline constexpr std::uint64_t kMaxItems = std::uint64_t{1} << 24;

/// The heddle version a summary names; merge takes shards of one version only.
inline constexpr const char* kHeddleVersion = "0.1.0";

/// What the shards of one run found together.
struct MergedRun {
  std::string kernel;
  std::map<std::string, std::string> params;
  std::string strategy;
  RunResult result;                 // counts, verdict, counterexample sizes; no bug report
  std::optional<Schedule> schedule;  // the reported bug's schedule (replay gives its report)
  std::string bug_verdict;           // the verdict the bug's shard reported ("" without a bug)
  std::string bug_file;              // that shard's summary file
};

/// Merges the summaries in `files`, one per shard of one run; UsageError
/// naming the file and the problem when they do not make one run.
MergedRun merge_shards(const std::vector<std::string>& files);

}  // namespace heddle
