#include "checker/explore/trial.hpp"

#include <chrono>

namespace heddle {

Trial::Trial(const Kernel& kernel, const Params& params, const RunConfig& config,
             const ExecutionLimits& limits, std::chrono::steady_clock::time_point start,
             ExecutionObserver observer)
    : kernel_(kernel),
      params_(params),
      config_(config),
      limits_(limits),
      start_(start),
      observer_(std::move(observer)) {}

Trial::~Trial() {
  limit_.store(0);  // an error elsewhere: stop at the next execution
  if (thread_.joinable()) thread_.join();
}

void Trial::start() {
  thread_ = std::thread([this] {
    FaultHandlers handlers;  // this thread's signal stack
    arm_step_watchdog(config_.step_timeout);
    run();
  });
}

void Trial::run() {
  try {
    using Clock = std::chrono::steady_clock;
    StackPool pool(config_.stack_bytes);
    auto strategy = make_strategy(config_);
    const RunStats& s = state_.result.stats;
    auto stop = [&]() -> std::string {
      work_.store(s.executions + s.abandoned + s.discarded);
      if (work_.load() >= limit_.load()) return "split";
      const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
      return budget_spent(config_, s.executions, elapsed);
    };
    run_loop(kernel_, params_, config_, *strategy, pool, limits_, observer_, stop, state_);
    work_.store(s.executions + s.abandoned + s.discarded);
    done_.store(state_.result.stopped_by != "split");
  } catch (...) {
    error_ = std::current_exception();
  }
}

bool Trial::finished_below(std::uint64_t probes) const {
  return done_.load() && work_.load() < probes;
}

bool Trial::decide(std::uint64_t probes) {
  limit_.store(probes);
  if (thread_.joinable())
    thread_.join();
  else
    run();
  if (error_) std::rethrow_exception(error_);
  return finished_below(probes);
}

}  // namespace heddle
