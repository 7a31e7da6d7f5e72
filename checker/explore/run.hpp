// Running one execution, and the run configuration with the strategy
// registry: the base of the explore layer, used by the explorer and by
// minimization (which follows schedules) alike.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checker/engine/execution_record.hpp"
#include "checker/engine/schedule.hpp"
#include "checker/engine/strategy.hpp"
#include "checker/registry.hpp"

namespace heddle {

class Execution;  // checker/engine/execution.hpp
class StackPool;  // checker/engine/fiber.hpp

/// Wraps a run's strategy in a decorator (capture, metrics); see RunConfig::decorate.
using StrategyDecorator = std::function<std::unique_ptr<Strategy>(std::unique_ptr<Strategy>)>;

/// Every knob of a run. Zero means "no limit" for the budgets.
struct RunConfig {
  std::string strategy = "dpor";      // dpor | dfs | replay | (further strategies register)
  std::uint64_t max_executions = 0;   // budget: executions explored
  std::uint32_t max_steps = 100000;   // per execution; beyond it: livelock
  double time_limit = 0;              // budget: wall seconds for the whole run
  double step_timeout = 10;           // seconds one fiber step may run
  std::size_t stack_bytes = 256 * 1024;  // per thread fiber
  bool stop_at_first_bug = true;      // false: count every buggy execution
  bool finish_after_bug = false;      // run each buggy execution to its end, keeping its
                                      // first bug, so the final values show what it did
  std::optional<std::uint64_t> seed;  // random strategies (none: chosen from the clock)
  std::uint32_t pct_depth = 3;        // pct: bug depth d (d-1 priority change points)
  /// bounded: at most K preemptions; none = auto (K = 0, 1, 2, ... until a bug).
  std::optional<std::uint32_t> preemption_bound;
  bool minimize = true;               // minimal counterexample, checker/DESIGN.md § Counterexamples
  std::optional<Schedule> replay;     // the schedule to follow (strategy replay)
  std::uint32_t jobs = 0;             // dpor split into work items on N threads (0: no split)
  std::uint32_t shard = 0;            // with shards > 0: explore only work items k % shards == shard
  std::uint32_t shards = 0;
  bool explore_guarded = false;       // a shard explores its guarded work items unasked
  bool split_trial = true;            // a split run takes a plain exploration that needs
                                      // less work than its probes (checker/explore/split/trial.hpp)
  bool observer_thread_safe = false;  // a split run's workers may call the observer at once
                                      // (else they take a lock around each call)
  StrategyDecorator decorate;         // when set, wraps the strategy (e.g. timeline capture)
};

/// Builds a strategy from a run configuration (by registered name).
using StrategyFactory = std::function<std::unique_ptr<Strategy>(const RunConfig&)>;
/// Registers a strategy under `name` (one file per strategy registers itself).
void register_strategy(const std::string& name, StrategyFactory f);
/// Creates the named strategy; UsageError with suggestions when unknown.
std::unique_ptr<Strategy> make_strategy(const RunConfig& c);
/// Names of the registered strategies.
std::vector<std::string> strategy_names();

/// The configuration that replays `s`: strategy replay, and the seed and
/// limits the schedule was recorded with (they shape its outcome).
RunConfig replay_config(const Schedule& s, RunConfig base = {});

/// What the setup check knows a model by: a hash of the kernel's name and
/// parameters, and the words that place its setup in reports.
struct ModelIdentity {
  std::uint64_t hash = 0;
  std::string where_words;
};
/// A model to check: a kernel, its parameters (both outlive the Model) and
/// the limits of one execution, with its identity computed once.
struct Model {
  Model(const Kernel& k, const Params& p, const ExecutionLimits& l);
  const Kernel& kernel;
  const Params& params;
  ExecutionLimits limits;
  ModelIdentity identity;
};

/// The one place that builds and runs executions of a model: the
/// explorer's loop, the split's probes, replay and the counterexample
/// followers all run theirs here. Each run() after the first renews the
/// same execution, keeping its storage (a loop of executions builds none).
class Runner {
 public:
  Runner(const Model& model, StackPool& pool);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  /// Runs one execution under `strategy` (setup, then the steps); model
  /// errors in setup become bugs of the execution. The caller has called
  /// strategy.begin_execution() and calls end_execution(last()) after.
  Ending run(Strategy& strategy);
  /// The execution run last (valid until the next run()).
  const ExecutionRecord& last() const;
  /// The model it runs.
  const Model& model() const noexcept { return model_; }

 private:
  const Model& model_;
  StackPool& pool_;
  std::unique_ptr<Execution> ex_;  // (the controller stays out of this header)
  // The last run ended by an exception (a follower stopping it mid-step):
  // the next run builds a new execution instead of renewing that one.
  bool broken_ = false;
};

/// What Runner::run does, on an execution the caller renews itself (the
/// engine's own tests run several models on one execution).
Ending run_execution(const Model& model, Strategy& strategy, Execution& ex);

}  // namespace heddle
