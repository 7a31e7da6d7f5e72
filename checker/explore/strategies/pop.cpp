// dpor, the default strategy: optimal DPOR in polynomial space (Abdulla et
// al., CAV 2024, POP). One execution per Mazurkiewicz trace, like `optimal`
// (wakeup trees, JACM 2017 Alg. 2), but each race is reversed eagerly
// instead of stored in a wakeup tree, so its state grows with the execution
// length, not with the number of executions; the algorithm itself lives in
// checker/explore/dpor/pop.hpp. Data choices run one POP exploration per assignment
// of values (checker/explore/dpor/data_choices.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "checker/explore/dpor/data_choices.hpp"
#include "checker/explore/dpor/pop.hpp"
#include "checker/engine/execution.hpp"
#include "checker/explore/run.hpp"
#include "checker/explore/split.hpp"
#include "checker/engine/errors.hpp"

namespace heddle {
namespace {

class Pop final : public Strategy {
 public:
  Pop() = default;
  /// Explores one work item of `split` only.
  Pop(const WorkSplit& split, const WorkItem& it) : item_(true) { start(split, it); }
  /// Explores work item `it` next, on the storage of the last one.
  void start(const WorkSplit& split, const WorkItem& it) {
    core_->reset();
    core_->start_at(it.prefix, it.sleep, it.wakers, split.agents, split.objects);
    for (const auto& w : it.watches) core_->watch(w.at, w.asleep);
  }
  std::string name() const override { return "dpor"; }
  bool begin_execution() override {
    choices_.begin_execution();
    while (!core_->begin()) {  // every trace of this assignment explored
      if (!choices_.advance()) return false;
      retire_core();
    }
    return true;
  }
  AgentId pick(const Choice& c) override { return core_->next(c); }
  std::uint32_t choose(std::uint32_t n, const Execution& ex) override {
    if (item_)
      throw UsageError(
          "--jobs and --shard do not support data choices (heddle::choose) yet: run this kernel "
          "without them");
    const Agent* self = ex.self();
    return choices_.value(self ? index(core_->canonical(ex, self->id)) : dpor::DataChoices::kSetup,
                          n);
  }
  void end_execution(const Execution& ex) override {
    if (!stopping_) core_->end(ex);
  }
  void stopping() override { stopping_ = true; }
  const std::vector<std::uint32_t>& calls() const { return core_->calls(); }
  bool exhaustive() const override { return core_->done(); }
  StrategyStats stats() const override {
    return {sleep_blocked_ + core_->stats().sleep_blocked,
            std::max(peak_bytes_, core_->stats().peak_state_bytes)};
  }
  std::vector<std::string> notes() const override {
    if (!choices_.any()) return {};
    return {fmt::format("dpor: data choices explored by value: {} assignments, each explored "
                        "exhaustively",
                        choices_.assignments())};
  }

 private:
  // Keeps the finished exploration's statistics and starts a fresh one.
  void retire_core() {
    sleep_blocked_ += core_->stats().sleep_blocked;
    peak_bytes_ = std::max(peak_bytes_, core_->stats().peak_state_bytes);
    core_ = std::make_unique<dpor::PopDpor>();
  }

  std::unique_ptr<dpor::PopDpor> core_ = std::make_unique<dpor::PopDpor>();
  dpor::DataChoices choices_;
  std::uint64_t sleep_blocked_ = 0;
  std::uint64_t peak_bytes_ = 0;
  bool item_ = false;  // one work item of a split run (no data choices)
  bool stopping_ = false;  // the run ends after this execution: no race analysis
};

}  // namespace

std::unique_ptr<Strategy> make_item_strategy(const WorkSplit& split, std::size_t k) {
  return std::make_unique<Pop>(split, split.items[k]);
}

std::unique_ptr<Strategy> make_item_strategy(const WorkSplit& split, const WorkItem& item) {
  return std::make_unique<Pop>(split, item);
}

void restart_item_strategy(Strategy& strategy, const WorkSplit& split, std::size_t k) {
  auto* pop = dynamic_cast<Pop*>(&strategy);
  if (pop == nullptr) throw std::logic_error("[heddle bug] split: not a work item's strategy");
  pop->start(split, split.items[k]);
}

std::vector<std::uint32_t> item_calls(const Strategy& item) {
  const auto* pop = dynamic_cast<const Pop*>(&item);
  if (pop == nullptr) throw std::logic_error("[heddle bug] split: not a work item's strategy");
  return pop->calls();
}

namespace {
const bool pop_registered = [] {
  register_strategy("dpor", [](const RunConfig&) { return std::make_unique<Pop>(); });
  return true;
}();

}  // namespace
}  // namespace heddle
