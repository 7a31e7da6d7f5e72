#include "checker/explore/loop.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include <algorithm>

#include "checker/engine/interrupt.hpp"

namespace heddle {

std::string budget_spent(const RunConfig& config, std::uint64_t executions,
                         std::chrono::steady_clock::time_point start) {
  if (interrupt_signal() != 0) return "interrupted";
  if (config.max_executions && executions >= config.max_executions) return "max-executions";
  if (config.time_limit > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >=
          config.time_limit)
    return "time-limit";
  return "";
}

namespace {
// The replayable schedule of `ex`, which ended in a bug.
Schedule bug_schedule(const Kernel& kernel, const Params& params, const RunConfig& config,
                      const std::string& strategy, const ExecutionRecord& ex,
                      std::optional<std::uint64_t> seed) {
  return Schedule{kernel.name,       params.values(),   strategy,
                  seed,              config.max_steps,  config.step_timeout,
                  schedule_steps(ex), report_to_json(*ex.bug())};
}

// Counts `ex`'s bug among the distinct ones, keeping a new one's schedule and trace.
void note_distinct(const Kernel& kernel, const Params& params, const RunConfig& config,
                   const std::string& strategy, const ExecutionRecord& ex, LoopState& state) {
  auto& distinct = state.result.distinct;
  std::string key = distinct_key(*ex.bug());
  for (auto& d : distinct)
    if (d.key == key) {
      ++d.executions;
      return;
    }
  distinct.push_back({std::move(key), *ex.bug(),
                      bug_schedule(kernel, params, config, strategy, ex, state.result.seed),
                      std::nullopt, 1});
  state.distinct_traces.push_back(capture_bug_trace(ex));
}
}  // namespace

std::string distinct_key(const BugReport& bug) {
  std::string key = verdict_name(bug.kind);
  if (bug.accesses.empty()) return key + " " + bug.title;
  std::vector<std::string> sites;
  for (const auto& a : bug.accesses) sites.push_back(a.at);
  std::sort(sites.begin(), sites.end());
  for (const auto& s : sites) key += " " + s;
  return key;
}

void keep_first_bug(const Kernel& kernel, const Params& params, const RunConfig& config,
                    const std::string& strategy, const ExecutionRecord& ex, RunResult& result) {
  result.bug = ex.bug();
  result.verdict = ex.bug()->kind;
  result.schedule = bug_schedule(kernel, params, config, strategy, ex, result.seed);
  spdlog::debug("bug found in execution {}", result.stats.executions);
}

namespace {
// Replaces the first bug's schedule by its minimized form, when one replays.
void minimize_into(const Kernel& kernel, const Params& params, const BugTrace& trace,
                   StackPool& pool, const ExecutionLimits& limits, RunResult& result) {
  const Model model(kernel, params, limits);
  Runner runner(model, pool);
  Minimized m = minimize_counterexample(runner, trace, *result.schedule);
  result.counterexample = m.info;
  if (!m.info.minimized) return;
  result.bug = m.bug;
  result.schedule->steps = std::move(m.steps);
  result.schedule->bug = report_to_json(m.bug);
}

// A place for one execution in a run-wide count under a budget (a split
// run's): taken before the execution runs, so that workers never overrun
// the budget together, and given back at the end of the iteration unless
// kept (an execution that turns out none: abandoned, discarded, not begun).
class BudgetPlace {
 public:
  BudgetPlace(std::atomic<std::uint64_t>* count, std::uint64_t budget) : count_(count) {
    if (count_ == nullptr || count_->fetch_add(1) < budget || budget == 0) return;
    count_->fetch_sub(1);
    count_ = nullptr;
    refused_ = true;
  }
  BudgetPlace(const BudgetPlace&) = delete;
  BudgetPlace& operator=(const BudgetPlace&) = delete;
  ~BudgetPlace() {
    if (count_ != nullptr) count_->fetch_sub(1);
  }
  /// True when the budget had no place left.
  bool refused() const { return refused_; }
  /// The execution counts: the place stays taken.
  void keep() { count_ = nullptr; }

 private:
  std::atomic<std::uint64_t>* count_;
  bool refused_ = false;
};

// True when the run's deadline has passed or a signal came: an execution
// abandoned now was cut short, not given up by the strategy.
bool cut_short(const ExecutionLimits& limits) {
  return interrupt_signal() != 0 || (limits.deadline != std::chrono::steady_clock::time_point{} &&
                                     std::chrono::steady_clock::now() > limits.deadline);
}

// The max-executions budget is spent: the run is exhaustive all the same
// when the strategy has no execution left (a budget of exactly the number
// of executions, issue 50.9). Asking begins one, which is then not run.
void ran_out_of_executions(Strategy& strategy, RunResult& result) {
  if (strategy.begin_execution()) {
    result.stopped_by = "max-executions";
    return;
  }
  result.exhaustive = strategy.exhaustive();
  result.stopped_by = result.exhaustive ? "" : strategy.stopped_by();
}
}  // namespace

void run_loop(const Kernel& kernel, const Params& params, const RunConfig& config,
              Strategy& strategy, StackPool& pool, const ExecutionLimits& limits,
              const ExecutionObserver& observer, const std::function<std::string()>& stop,
              LoopState& state) {
  RunResult& result = state.result;
  const bool minimize = config.minimize && config.strategy != "replay";
  const Model model(kernel, params, limits);
  Runner runner(model, pool);
  for (;;) {
    // Abandoned schedules are not executions: they never spend the budget
    // of executions (the time limit still bounds them).
    result.stopped_by = stop();
    if (result.stopped_by == "max-executions") {
      ran_out_of_executions(strategy, result);
      break;
    }
    if (!result.stopped_by.empty()) break;
    BudgetPlace place(state.executions, config.max_executions);
    if (place.refused()) {
      ran_out_of_executions(strategy, result);
      break;
    }
    if (!strategy.begin_execution()) {
      // Randomized strategies stop on their own default budget: not exhaustive.
      result.exhaustive = strategy.exhaustive();
      if (!result.exhaustive) result.stopped_by = strategy.stopped_by();
      break;
    }
    Ending ending = runner.run(strategy);
    const ExecutionRecord& ex = runner.last();
    if (ending == Ending::abandoned) {
      // Not an execution of the model (a reversal that cannot run): no
      // final state, no verdict; a bug met on the way is met again elsewhere.
      // One cut by the deadline or a signal is no schedule given up.
      if (!cut_short(limits)) ++result.stats.abandoned;
      strategy.end_execution(ex);
      continue;
    }
    if (ending == Ending::discarded) {
      // An assume() failed: the strategy learns from it (its races are
      // real), but it is no execution of the model, and no verdict.
      ++result.stats.discarded;
      strategy.end_execution(ex);
      continue;
    }
    ++result.stats.executions;
    place.keep();
    result.stats.max_depth =
        std::max(result.stats.max_depth, static_cast<std::uint32_t>(ex.trace().size()));
    // The run's last execution, stopped at its bug, needs no analysis of
    // what to explore next: DPOR's race analysis of a livelock's 100,000
    // steps ran for minutes past --time-limit (issue 54.6). A replay's end
    // checks the schedule, and its decorators record the execution there.
    // Decorators (timelines, estimates) still see the execution end.
    if (ex.bug() && config.stop_at_first_bug && config.strategy != "replay") strategy.stopping();
    strategy.end_execution(ex);
    add_once(result.notes, ex.notes());
    add_once(result.restrictions, ex.restrictions());
    if (observer) observer(ex, ending);
    if (!ex.bug()) continue;
    ++result.stats.buggy;
    if (ex.bug()->kind == Verdict::deadlock) ++result.stats.deadlocked;
    if (!result.bug) {
      keep_first_bug(kernel, params, config, strategy.name(), ex, result);
      if (minimize) state.bug_trace = capture_bug_trace(ex);
    }
    if (!config.stop_at_first_bug) note_distinct(kernel, params, config, strategy.name(), ex, state);
    if (config.stop_at_first_bug) {
      result.stopped_by = "first bug";
      break;
    }
  }
  for (auto& n : strategy.notes()) result.notes.push_back(std::move(n));
  const StrategyStats strategy_stats = strategy.stats();
  result.stats.sleep_blocked = strategy_stats.sleep_blocked;
  result.stats.peak_state_bytes = strategy_stats.peak_state_bytes;
}

ExecutionLimits run_limits(const RunConfig& config, std::chrono::steady_clock::time_point start) {
  // Exploring every execution (no stop at the first bug): a buggy execution
  // runs on to its end, or the executions behind its bug would never be
  // seen (DPOR only reverses races in the part of the trace that ran).
  ExecutionLimits limits{config.max_steps, config.step_timeout,
                         config.finish_after_bug || !config.stop_at_first_bug};
  if (config.time_limit > 0)
    limits.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(config.time_limit));
  return limits;
}

namespace {
// Shrinks each distinct bug's counterexample (--keep-going).
void minimize_distinct(const Kernel& kernel, const Params& params, LoopState& state,
                       StackPool& pool, ExecutionLimits limits) {
  limits.finish_after_bug = false;
  limits.deadline = {};
  const Model model(kernel, params, limits);
  Runner runner(model, pool);
  for (std::size_t k = 0; k < state.result.distinct.size(); ++k) {
    DistinctBug& d = state.result.distinct[k];
    Minimized m = minimize_counterexample(runner, state.distinct_traces[k], d.schedule);
    d.counterexample = m.info;
    if (!m.info.minimized) continue;
    d.bug = m.bug;
    d.schedule.steps = std::move(m.steps);
    d.schedule.bug = report_to_json(m.bug);
  }
}

}  // namespace

void finish_bugs(const Kernel& kernel, const Params& params, const RunConfig& config,
                 LoopState& state, StackPool& pool, ExecutionLimits limits) {
  RunResult& result = state.result;
  const bool shrink = config.minimize && config.strategy != "replay";
  if (result.distinct.empty() || !result.schedule) {
    if (!state.bug_trace || !result.schedule || !shrink) return;
    // Counterexamples end at their bug: replays of candidates stop there.
    limits.finish_after_bug = false;
    limits.deadline = {};  // the bug is found: its counterexample is shrunk whatever the time
    minimize_into(kernel, params, *state.bug_trace, pool, limits, result);
    return;
  }
  if (shrink) minimize_distinct(kernel, params, state, pool, limits);
  const DistinctBug& first = result.distinct.front();
  result.bug = first.bug;
  result.schedule = first.schedule;
  result.counterexample = first.counterexample;
}

}  // namespace heddle
