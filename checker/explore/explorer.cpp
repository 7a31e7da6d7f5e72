#include "checker/explore/explorer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "checker/engine/errors.hpp"

namespace heddle {
namespace {
// The budget that ends the run now, or "" while none is spent.
std::string budget_spent(const RunConfig& config, std::uint64_t executions, double elapsed) {
  if (config.max_executions && executions >= config.max_executions) return "max-executions";
  if (config.time_limit > 0 && elapsed >= config.time_limit) return "time-limit";
  return "";
}

// Records the run's first bug and its replayable schedule.
void keep_first_bug(const Kernel& kernel, const Params& params, const RunConfig& config,
                    const std::string& strategy, const Execution& ex, RunResult& result) {
  result.bug = ex.bug();
  result.verdict = ex.bug()->kind;
  result.schedule = Schedule{kernel.name,      params.values(),    strategy,
                             result.seed,      config.max_steps,   config.step_timeout,
                             schedule_steps(ex), report_to_json(*ex.bug())};
  spdlog::debug("bug found in execution {}", result.stats.executions);
}

// Replaces the first bug's schedule by its minimized form, when one replays.
void minimize_into(const Kernel& kernel, const Params& params, const BugTrace& trace,
                   StackPool& pool, const ExecutionLimits& limits, RunResult& result) {
  Minimized m = minimize_counterexample(kernel, params, trace, *result.schedule, pool, limits);
  result.counterexample = m.info;
  if (!m.info.minimized) return;
  result.bug = m.bug;
  result.schedule->steps = std::move(m.steps);
  result.schedule->bug = report_to_json(m.bug);
}
}  // namespace

RunResult explore(const Kernel& kernel, const Params& params, const RunConfig& config,
                  const ExecutionObserver& observer) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  FaultHandlers handlers;
  arm_step_watchdog(config.step_timeout);
  StackPool pool(config.stack_bytes);
  auto strategy = make_strategy(config);
  if (config.decorate) strategy = config.decorate(std::move(strategy));
  RunResult result;
  result.seed = strategy->seed() ? strategy->seed() : config.seed;
  // A replayed schedule is reported exactly as written, never re-minimized.
  const bool minimize = config.minimize && config.strategy != "replay";
  // Exploring every execution (no stop at the first bug): a buggy execution
  // runs on to its end, or the executions behind its bug would never be
  // seen (DPOR only reverses races in the part of the trace that ran).
  ExecutionLimits limits{config.max_steps, config.step_timeout,
                         config.finish_after_bug || !config.stop_at_first_bug};
  if (config.time_limit > 0)
    limits.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(config.time_limit));
  std::vector<Event> trace_storage;  // recycled between executions
  std::optional<BugTrace> bug_trace;  // the first bug's execution, for minimization
  for (;;) {
    // Abandoned schedules are not executions: they never spend the budget
    // of executions (the time limit still bounds them).
    result.stopped_by = budget_spent(config, result.stats.executions, elapsed());
    if (!result.stopped_by.empty()) break;
    if (!strategy->begin_execution()) {
      // Randomized strategies stop on their own default budget: not exhaustive.
      result.exhaustive = strategy->exhaustive();
      if (!result.exhaustive) result.stopped_by = strategy->stopped_by();
      break;
    }
    Execution ex(limits, pool);
    ex.adopt_trace_storage(std::move(trace_storage));
    Ending ending = run_execution(kernel, params, *strategy, ex);
    struct Recycle {
      Execution& ex;
      std::vector<Event>& into;
      ~Recycle() { into = ex.release_trace_storage(); }
    } recycle{ex, trace_storage};
    if (ending == Ending::abandoned) {
      // Not an execution of the model (a reversal that cannot run): no
      // final state, no verdict; a bug met on the way is met again elsewhere.
      ++result.stats.abandoned;
      strategy->end_execution(ex);
      continue;
    }
    ++result.stats.executions;
    result.stats.max_depth =
        std::max(result.stats.max_depth, static_cast<std::uint32_t>(ex.trace().size()));
    strategy->end_execution(ex);
    for (const auto& n : ex.notes())
      if (std::find(result.notes.begin(), result.notes.end(), n) == result.notes.end())
        result.notes.push_back(n);
    if (observer) observer(ex, ending);
    if (!ex.bug()) continue;
    ++result.stats.buggy;
    if (ex.bug()->kind == Verdict::deadlock) ++result.stats.deadlocked;
    if (!result.bug) {
      keep_first_bug(kernel, params, config, strategy->name(), ex, result);
      if (minimize) bug_trace = capture_bug_trace(ex);
    }
    if (config.stop_at_first_bug) {
      result.stopped_by = "first bug";
      break;
    }
  }
  for (auto& n : strategy->notes()) result.notes.push_back(std::move(n));
  if (bug_trace && result.schedule) {
    // Counterexamples end at their bug: replays of candidates stop there.
    limits.finish_after_bug = false;
    limits.deadline = {};  // the bug is found: its counterexample is shrunk whatever the time
    minimize_into(kernel, params, *bug_trace, pool, limits, result);
  }
  const StrategyStats strategy_stats = strategy->stats();
  result.stats.sleep_blocked = strategy_stats.sleep_blocked;
  result.stats.peak_state_bytes = strategy_stats.peak_state_bytes;
  result.stats.seconds = elapsed();
  return result;
}

}  // namespace heddle
