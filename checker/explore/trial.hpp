// A plain dpor exploration run beside the work split of a --jobs or
// --shard run (explore_split). Splitting pays for its probes, each a whole
// execution: a tree that a plain exploration finishes in less work than
// the split's probes is not worth splitting, and the run is that
// exploration instead, as a split of one item (the root). The rule depends
// on the model only (the split's probe count, and the work the plain
// exploration takes), so every N and every shard decide alike: the trial
// is taken when it ends on its own (done, a bug, a user's budget) after
// fewer units of work (executions, abandoned and discarded ones) than the
// split ran probes. Fewer, not as many: a trial stopped at the limit and
// one that ends right there look alike only after the fact, and which of
// the two happens depends on when the split tells it its limit.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <thread>

#include "checker/explore/loop.hpp"

namespace heddle {

/// The plain exploration, on a thread of its own or on the caller's.
class Trial {
 public:
  /// `limits` as the run's executions get them; `start`: when the run started.
  /// `observer` sees its executions, also those of a trial the run does not take.
  Trial(const Kernel& kernel, const Params& params, const RunConfig& config,
        const ExecutionLimits& limits, std::chrono::steady_clock::time_point start,
        ExecutionObserver observer);
  Trial(const Trial&) = delete;
  Trial& operator=(const Trial&) = delete;
  ~Trial();

  /// Starts it on its own thread, with no limit yet.
  void start();
  /// Whether it finished in less work than `probes` (a split that has run
  /// that many probes may stop: the trial is the run). Never waits.
  bool finished_below(std::uint64_t probes) const;
  /// Limits it to `probes` units of work (the split's total), waits for it
  /// (or runs it here, when not started), and says whether it finished
  /// below them. Rethrows its error.
  bool decide(std::uint64_t probes);
  /// Its loop's state (after decide() said true).
  LoopState& state() { return state_; }

 private:
  void run();

  const Kernel& kernel_;
  const Params& params_;
  const RunConfig& config_;
  ExecutionLimits limits_;
  std::chrono::steady_clock::time_point start_;
  ExecutionObserver observer_;
  LoopState state_;
  std::atomic<std::uint64_t> limit_{UINT64_MAX};  // units of work it may take
  std::atomic<std::uint64_t> work_{0};            // executions, abandoned and discarded ones
  std::atomic<bool> done_{false};                 // it ended on its own (not at limit_)
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace heddle
