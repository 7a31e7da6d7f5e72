#include "checker/explore/split/trial.hpp"

#include <chrono>

#include "checker/explore/forwarding.hpp"

namespace heddle {
namespace {
// Adds the steps of every execution that ends, abandoned ones too, to `steps`.
class StepCount final : public ForwardingStrategy {
 public:
  StepCount(std::unique_ptr<Strategy> inner, std::atomic<std::uint64_t>& steps)
      : ForwardingStrategy(std::move(inner)), steps_(steps) {}
  void end_execution(const ExecutionRecord& ex) override {
    steps_.fetch_add(ex.trace().size());
    ForwardingStrategy::end_execution(ex);
  }

 private:
  std::atomic<std::uint64_t>& steps_;
};
}  // namespace

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

void Trial::advance(std::uint64_t limit) {
  limit_.store(limit);
  if (!done_.load() && !error_ && steps_.load() < limit) run();
}

void Trial::run() {
  try {
    if (!strategy_) {
      pool_.emplace(config_.stack_bytes);
      strategy_ = std::make_unique<StepCount>(make_strategy(config_), steps_);
    }
    // Resumed: run_loop adds the strategy's notes again at its end.
    for (const auto& n : strategy_->notes()) std::erase(state_.result.notes, n);
    auto stop = [&]() -> std::string {
      if (steps_.load() >= limit_.load()) return "split";
      return budget_spent(config_, state_.result.stats.executions, start_);
    };
    run_loop(kernel_, params_, config_, *strategy_, *pool_, limits_, observer_, stop, state_);
    done_.store(state_.result.stopped_by != "split");
  } catch (...) {
    error_ = std::current_exception();
  }
}

bool Trial::finished_below(std::uint64_t steps) const {
  return done_.load() && steps_.load() < steps;
}

bool Trial::decide(std::uint64_t steps) {
  if (thread_.joinable()) {
    limit_.store(steps);
    thread_.join();
  } else {
    advance(steps);
  }
  if (error_) std::rethrow_exception(error_);
  return finished_below(steps);
}

}  // namespace heddle
