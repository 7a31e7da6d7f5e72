// Workers that explore some of a split's work items (checker/explore/
// split.hpp) on threads, each with its own fibers, stack pool and strategy.
// They take items in order; a guarded item waits for the items of its
// range, so that it knows whether one of them called for it. Once an item
// finds a bug (and the run stops at the first), later items stop.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <set>
#include <vector>

#include "checker/explore/loop.hpp"
#include "checker/explore/split/work_split.hpp"

namespace heddle {

/// One pass over some items of a split: what the workers take, and what they found.
struct ItemPass {
  ItemPass(const Kernel& kernel, const Params& params, const RunConfig& config,
           const WorkSplit& split, std::vector<std::size_t> mine, ExecutionLimits limits,
           std::chrono::steady_clock::time_point start, ExecutionObserver observer);

  const Kernel& kernel;
  const Params& params;
  const RunConfig& config;
  const WorkSplit& split;
  const std::vector<std::size_t> mine;  // the split's items this pass explores, in item order
  std::vector<LoopState> states;        // one per entry of mine
  ExecutionLimits limits;
  std::chrono::steady_clock::time_point start;
  ExecutionObserver observer;  // thread-safe
  // A cache line each: every execution reads `cut`, and under
  // --max-executions adds to `executions` (without, nothing counts there:
  // a line both workers write at every execution costs each a miss).
  alignas(64) std::atomic<std::size_t> next{0};
  // The first entry of mine with a bug, once stopping.
  alignas(64) std::atomic<std::size_t> cut{SIZE_MAX};
  alignas(64) std::atomic<std::uint64_t> executions{0};
  std::mutex failed_mu{};
  std::exception_ptr failed{};  // the first error a worker met (rethrown by run_items)
  // Finished entries of mine, with the guarded items each called for.
  std::mutex done_mu{};
  std::condition_variable done_cv{};
  std::vector<char> finished;                     // per entry of mine
  std::vector<std::vector<std::uint32_t>> calls;  // per entry of mine
  std::vector<char> skipped;                      // per entry of mine: guarded, not called for
  std::set<std::size_t> later{};  // guarded entries left for the end (smallest first: no deadlock)
};

/// Explores `pass`'s items on `jobs` threads, the caller's (on `pool`) one
/// of them. Rethrows the first error a worker met.
void run_items(ItemPass& pass, std::uint32_t jobs, StackPool& pool);

}  // namespace heddle
