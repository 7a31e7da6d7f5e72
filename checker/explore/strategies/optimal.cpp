// optimal: optimal DPOR with wakeup trees and sleep sets (Abdulla et al.,
// JACM 2017, Alg. 2), the default strategy until POP (strategies/dpor.cpp)
// took the name dpor; kept as a second optimal explorer to compare with.
// Differences from dpor: a reversal whose wait turns out blocked runs on
// into a covered trace (counted sleep-blocked) instead of being given up,
// its memory grows with its wakeup trees, and it has no data choices. The
// algorithm itself lives in checker/explore/dpor/optimal.hpp.
#include "checker/explore/dpor/optimal.hpp"
#include "checker/engine/errors.hpp"
#include "checker/explore/run.hpp"

namespace heddle {
namespace {

class Dpor final : public Strategy {
 public:
  std::string name() const override { return "optimal"; }
  bool begin_execution() override { return core_.begin(); }
  AgentId pick(const Choice& c) override { return core_.next(c); }
  std::uint32_t choose(std::uint32_t, const ExecutionRecord&) override {
    // A data choice would be one more kind of branching point whose
    // alternatives are mutually dependent; not implemented yet.
    throw ModelError(
        "heddle::choose is not supported by the optimal strategy: run this kernel with "
        "--strategy dfs");
  }
  void end_execution(const ExecutionRecord& ex) override {
    if (!stopping_) core_.end(ex);
  }
  void stopping() override { stopping_ = true; }
  bool exhaustive() const override { return core_.done(); }
  StrategyStats stats() const override { return {core_.stats().sleep_blocked}; }

 private:
  dpor::OptimalDpor core_;
  bool stopping_ = false;  // the run ends after this execution: no race analysis
};

const bool dpor_registered = [] {
  register_strategy("optimal", [](const RunConfig&) { return std::make_unique<Dpor>(); });
  return true;
}();

}  // namespace
}  // namespace heddle
