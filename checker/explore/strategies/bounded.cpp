// bounded: DPOR within a preemption bound K (--preemption-bound K), or
// iterative bounding (--preemption-bound auto, the default): K = 0, 1, 2, ...
// until a bound finds a bug or cuts nothing (Musuvathi and Qadeer, "Iterative
// context bounding for systematic testing of multithreaded programs", PLDI
// 2007, Sec. 3), so the first bug found has the fewest preemptions. Each
// bound is explored with BPOR (checker/explore/dpor/bounded.hpp, which says why BPOR
// and not TruSt-based bounding). Data choices (heddle::choose) are plain DFS
// branch points: every value is explored under every schedule prefix.
#include <fmt/format.h>

#include <memory>

#include "checker/explore/dpor/bounded.hpp"
#include "checker/explore/run.hpp"

namespace heddle {
namespace {

std::string preemptions(std::uint32_t k) {
  return fmt::format("{} preemption{}", k, k == 1 ? "" : "s");
}

class Bounded final : public Strategy {
 public:
  explicit Bounded(const RunConfig& c)
      : automatic_(!c.preemption_bound),
        bound_(c.preemption_bound.value_or(0)),
        core_(std::make_unique<dpor::BoundedDpor>(bound_)) {}

  std::string name() const override { return "bounded"; }

  bool begin_execution() override {
    if (core_->begin()) return true;
    if (!automatic_ || bug_seen_ || core_->stats().cut == 0) return false;
    // Iterative bounding: this bound cut something and found no bug.
    core_ = std::make_unique<dpor::BoundedDpor>(++bound_);
    return core_->begin();
  }

  AgentId pick(const Choice& c) override { return core_->next(c); }
  std::uint32_t choose(std::uint32_t n, const ExecutionRecord&) override {
    return core_->choose(n);
  }

  void end_execution(const ExecutionRecord& ex) override {
    bug_seen_ |= ex.bug().has_value();
    core_->end(ex);
  }

  // Exhaustive only when the last bound explored cut no branch.
  bool exhaustive() const override { return core_->done() && core_->stats().cut == 0; }
  std::string stopped_by() const override { return "preemption-bound"; }

  // No sleep sets (see checker/explore/dpor/bounded.hpp), so no sleep-set-blocked
  // executions: the default stats() (all zero) are exact.

  std::vector<std::string> notes() const override {
    const std::uint32_t k = bound_;
    const std::string mode = automatic_ ? fmt::format("bound {} (auto)", k)
                                        : fmt::format("bound {}", k);
    if (bug_seen_) {
      if (automatic_ && k > 0)
        return {fmt::format("bounded: no bug in any execution with at most {}; found with {}",
                            preemptions(k - 1), mode)};
      return {fmt::format("bounded: found with {}", mode)};
    }
    if (!core_->done())
      return {fmt::format("bounded: a budget stopped the run while exploring {}", mode)};
    if (core_->stats().cut == 0)
      return {fmt::format("bounded: {} cut nothing, so every execution was explored", mode)};
    return {fmt::format("bounded: explored all executions with at most {} ({}); the bound cut "
                        "{} branch{}, so schedules with more preemptions are unexplored",
                        preemptions(k), mode, core_->stats().cut,
                        core_->stats().cut == 1 ? "" : "es")};
  }

 private:
  bool automatic_;
  std::uint32_t bound_;
  std::unique_ptr<dpor::BoundedDpor> core_;
  bool bug_seen_ = false;
};

const bool bounded_registered = [] {
  register_strategy("bounded", [](const RunConfig& c) { return std::make_unique<Bounded>(c); });
  return true;
}();

}  // namespace
}  // namespace heddle
