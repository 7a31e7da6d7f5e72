// dpor, the default strategy: optimal DPOR in polynomial space (Abdulla et
// al., CAV 2024, POP). One execution per Mazurkiewicz trace, like `optimal`
// (wakeup trees, JACM 2017 Alg. 2), but each race is reversed eagerly
// instead of stored in a wakeup tree, so its state grows with the execution
// length, not with the number of executions; the algorithm itself lives in
// checker/explore/dpor/pop.hpp. Data choices run one POP exploration per
// assignment of values (checker/explore/dpor/data_choices.hpp). A split run
// (checker/explore/split/) explores its work items with this strategy too.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "checker/engine/strategy.hpp"
#include "checker/explore/dpor/data_choices.hpp"
#include "checker/explore/dpor/pop.hpp"
#include "checker/explore/split/work_split.hpp"

namespace heddle {

class DporStrategy final : public Strategy {
 public:
  DporStrategy() = default;
  /// Explores work item `k` of `split` only (no data choices).
  DporStrategy(const WorkSplit& split, std::size_t k) : item_(true) { start(split, k); }
  /// Explores work item `k` of `split` next, on the storage of the last one.
  void start(const WorkSplit& split, std::size_t k);
  /// The prefix positions whose guarded items the races of the work item
  /// explored called for (sorted).
  const std::vector<std::uint32_t>& calls() const { return core_->calls(); }

  std::string name() const override { return "dpor"; }
  bool begin_execution() override;
  AgentId pick(const Choice& c) override { return core_->next(c); }
  std::uint32_t choose(std::uint32_t n, const ExecutionRecord& ex) override;
  void end_execution(const ExecutionRecord& ex) override {
    if (!stopping_) core_->end(ex);
  }
  void stopping() override { stopping_ = true; }
  bool exhaustive() const override { return core_->done(); }
  StrategyStats stats() const override;
  std::vector<std::string> notes() const override;

 private:
  /// Keeps the finished exploration's statistics and starts a fresh one.
  void retire_core();

  std::unique_ptr<dpor::PopDpor> core_ = std::make_unique<dpor::PopDpor>();
  dpor::DataChoices choices_;
  std::uint64_t sleep_blocked_ = 0;
  std::uint64_t peak_bytes_ = 0;
  bool item_ = false;      // one work item of a split run (no data choices)
  bool stopping_ = false;  // the run ends after this execution: no race analysis
};

}  // namespace heddle
