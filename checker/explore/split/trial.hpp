// A plain dpor exploration run beside the work split of a --jobs or
// --shard run (explore_split). Splitting pays for its probes, each a whole
// execution: a tree that a plain exploration finishes in fewer steps than
// the split's probes ran is not worth splitting, and the run is that
// exploration instead, as a split of one item (the root).
//
// The rule depends on the model only (the steps of the split's probes,
// and those of the plain exploration, abandoned schedules included), so
// every N and every shard decide alike: the trial is taken when it ends on
// its own (done, a bug, a user's budget) after fewer steps than the split
// ran. Fewer, not as many: a trial stopped at its limit and one that ends
// right there look alike only after the fact, and which of the two happens
// depends on when the split tells it its limit.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include "checker/engine/fiber.hpp"
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
  /// Runs it here (not started) until it ends or has run `limit` steps.
  void advance(std::uint64_t limit);
  /// Whether it ended in fewer steps than `steps` (a split whose probes
  /// ran that many may stop: the trial is the run). Never waits.
  bool finished_below(std::uint64_t steps) const;
  /// Limits it to `steps` (the split's probes' total), waits for it (or
  /// advances it here, when not started), and says whether it ended below
  /// them. Rethrows its error.
  bool decide(std::uint64_t steps);
  /// Its loop's state (after decide() said true).
  LoopState& state() { return state_; }

 private:
  /// Runs (or resumes) the exploration until it ends or reaches limit_.
  void run();

  const Kernel& kernel_;
  const Params& params_;
  const RunConfig& config_;
  ExecutionLimits limits_;
  std::chrono::steady_clock::time_point start_;
  ExecutionObserver observer_;
  LoopState state_;
  std::optional<StackPool> pool_;      // made by the thread that runs it
  std::unique_ptr<Strategy> strategy_;  // dpor, its steps counted into steps_
  std::atomic<std::uint64_t> limit_{UINT64_MAX};  // steps it may run
  std::atomic<std::uint64_t> steps_{0};           // steps its executions ran, abandoned ones too
  std::atomic<bool> done_{false};                 // it ended on its own (not at limit_)
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace heddle
