// A strategy decorator's base: forwards every call to the wrapped strategy,
// so that a decorator (timeline capture, replay --steps, the dfs estimate)
// overrides only the calls it watches (STYLE.md: cross-cutting checks as
// decorators around a scheduler).
#pragma once
#include <memory>

#include "checker/engine/strategy.hpp"

namespace heddle {

/// Forwards everything to `inner`; decorators derive from it.
class ForwardingStrategy : public Strategy {
 public:
  explicit ForwardingStrategy(std::unique_ptr<Strategy> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  bool begin_execution() override { return inner_->begin_execution(); }
  AgentId pick(const Choice& c) override { return inner_->pick(c); }
  std::uint32_t choose(std::uint32_t n, const ExecutionRecord& ex) override {
    return inner_->choose(n, ex);
  }
  void end_execution(const ExecutionRecord& ex) override { inner_->end_execution(ex); }
  void stopping() override { inner_->stopping(); }
  bool exhaustive() const override { return inner_->exhaustive(); }
  std::string stopped_by() const override { return inner_->stopped_by(); }
  StrategyStats stats() const override { return inner_->stats(); }
  std::optional<std::uint64_t> seed() const override { return inner_->seed(); }
  std::vector<std::string> notes() const override { return inner_->notes(); }

 private:
  std::unique_ptr<Strategy> inner_;
};

}  // namespace heddle
