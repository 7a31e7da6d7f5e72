#include "checker/explore/strategies/dpor.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution_record.hpp"
#include "checker/explore/run.hpp"

namespace heddle {

void DporStrategy::start(const WorkSplit& split, std::size_t k) {
  const WorkItem& it = split.items[k];
  core_->reset();
  core_->start_at(it.prefix, it.sleep, it.wakers, split.agents, split.objects);
  for (const auto& w : it.watches) core_->watch(w.at, w.asleep);
}

bool DporStrategy::begin_execution() {
  choices_.begin_execution();
  while (!core_->begin()) {  // every trace of this assignment explored
    if (!choices_.advance()) return false;
    retire_core();
  }
  return true;
}

std::uint32_t DporStrategy::choose(std::uint32_t n, const ExecutionRecord& ex) {
  if (item_)
    throw UsageError(
        "--jobs and --shard do not support data choices (heddle::choose) yet: run this kernel "
        "without them");
  const Agent* self = ex.self();
  return choices_.value(self ? index(core_->canonical(ex, self->id)) : dpor::DataChoices::kSetup,
                        n);
}

StrategyStats DporStrategy::stats() const {
  return {sleep_blocked_ + core_->stats().sleep_blocked,
          std::max(peak_bytes_, core_->stats().peak_state_bytes)};
}

std::vector<std::string> DporStrategy::notes() const {
  if (!choices_.any()) return {};
  return {fmt::format("dpor: data choices explored by value: {} assignments, each explored "
                      "exhaustively",
                      choices_.assignments())};
}

void DporStrategy::retire_core() {
  sleep_blocked_ += core_->stats().sleep_blocked;
  peak_bytes_ = std::max(peak_bytes_, core_->stats().peak_state_bytes);
  core_ = std::make_unique<dpor::PopDpor>();
}

namespace {
const bool registered = [] {
  register_strategy("dpor", [](const RunConfig&) { return std::make_unique<DporStrategy>(); });
  return true;
}();
}  // namespace

}  // namespace heddle
