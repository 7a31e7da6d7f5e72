#include "checker/explore/explorer.hpp"

#include <chrono>

#include "checker/engine/execution.hpp"
#include "checker/explore/loop.hpp"

namespace heddle {

RunResult explore(const Kernel& kernel, const Params& params, const RunConfig& config,
                  const ExecutionObserver& observer) {
  if (config.jobs > 0 || config.shards > 0) {
    RunResult split = explore_split(kernel, params, config, observer);
    apply_restrictions(split);
    return split;
  }
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  FaultHandlers handlers;
  arm_step_watchdog(config.step_timeout);
  StackPool pool(config.stack_bytes);
  auto strategy = make_strategy(config);
  if (config.decorate) strategy = config.decorate(std::move(strategy));
  LoopState state;
  RunResult& result = state.result;
  result.seed = strategy->seed() ? strategy->seed() : config.seed;
  ExecutionLimits limits = run_limits(config, start);
  run_loop(kernel, params, config, *strategy, pool, limits, observer,
           [&] { return budget_spent(config, result.stats.executions, start); }, state);
  finish_bugs(kernel, params, config, state, pool, limits);
  result.stats.seconds = elapsed();
  apply_restrictions(result);
  return result;
}

}  // namespace heddle
