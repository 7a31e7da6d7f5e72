#include "checker/explorer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <algorithm>
#include <map>

#include "checker/errors.hpp"

namespace heddle {
namespace {
std::map<std::string, StrategyFactory>& factories() {
  static std::map<std::string, StrategyFactory> f;
  return f;
}

// Runs one execution of the model; returns how it ended.
Ending run_one(const Kernel& kernel, const Params& params, Strategy& strategy, Execution& ex) {
  ex.set_strategy(&strategy);
  try {
    kernel.setup(params);
  } catch (const ModelError& e) {
    ex.fail(Verdict::model_error, fmt::format("kernel setup failed: {}", e.what()),
            {fmt::format("at {}", where(e.where))});
    return Ending::bug;
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    ex.fail(Verdict::model_error, fmt::format("kernel setup threw: {}", e.what()));
    return Ending::bug;
  }
  try {
    return ex.run(strategy);
  } catch (const ModelError& e) {
    ex.fail(Verdict::model_error, e.what(), {fmt::format("at {}", where(e.where))});
    return Ending::bug;
  }
}
}  // namespace

void register_strategy(const std::string& name, StrategyFactory f) {
  factories()[name] = std::move(f);
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (auto& [n, f] : factories()) names.push_back(n);
  return names;
}

std::unique_ptr<Strategy> make_strategy(const RunConfig& c) {
  auto it = factories().find(c.strategy);
  if (it == factories().end()) {
    auto near = closest(c.strategy, strategy_names());
    throw UsageError(fmt::format("unknown strategy {}; available: {}", c.strategy,
                                 fmt::join(strategy_names(), ", ")));
  }
  return it->second(c);
}

RunResult explore(const Kernel& kernel, const Params& params, const RunConfig& config,
                  const ExecutionObserver& observer) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  install_fault_handlers();
  arm_step_watchdog(config.step_timeout);
  StackPool pool(config.stack_bytes);
  auto strategy = make_strategy(config);
  RunResult result;
  ExecutionLimits limits{config.max_steps, config.step_timeout, config.finish_after_bug};
  for (;;) {
    if (config.max_executions && result.stats.executions >= config.max_executions) {
      result.stopped_by = "max-executions";
      break;
    }
    if (config.time_limit > 0 && elapsed() >= config.time_limit) {
      result.stopped_by = "time-limit";
      break;
    }
    if (!strategy->begin_execution()) {
      result.exhaustive = true;
      break;
    }
    Execution ex(limits, pool);
    Ending ending = run_one(kernel, params, *strategy, ex);
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
      result.bug = ex.bug();
      result.verdict = ex.bug()->kind;
      Schedule s{kernel.name, params.values(), strategy->name(), config.seed,
                 schedule_steps(ex), report_to_json(*ex.bug())};
      result.schedule = std::move(s);
      spdlog::debug("bug found in execution {}", result.stats.executions);
    }
    if (config.stop_at_first_bug) {
      result.stopped_by = "first bug";
      break;
    }
  }
  result.stats.sleep_blocked = strategy->stats().sleep_blocked;
  result.stats.seconds = elapsed();
  return result;
}

}  // namespace heddle
