// dpor, the default strategy: optimal DPOR in polynomial space (Abdulla et
// al., CAV 2024, POP). One execution per Mazurkiewicz trace, like `optimal`
// (wakeup trees, JACM 2017 Alg. 2), but each race is reversed eagerly
// instead of stored in a wakeup tree, so its state grows with the execution
// length, not with the number of executions; the algorithm itself lives in
// checker/dpor/pop.hpp.
#include "checker/dpor/pop.hpp"
#include "checker/errors.hpp"
#include "checker/explorer.hpp"

namespace heddle {
namespace {

class Pop final : public Strategy {
 public:
  std::string name() const override { return "dpor"; }
  bool begin_execution() override { return core_.begin(); }
  AgentId pick(const Choice& c) override { return core_.next(c); }
  std::uint32_t choose(std::uint32_t, const Execution&) override {
    throw ModelError(
        "heddle::choose is not supported by the dpor strategy: run this kernel with "
        "--strategy dfs");
  }
  void end_execution(const Execution& ex) override { core_.end(ex); }
  bool exhaustive() const override { return core_.done(); }
  StrategyStats stats() const override {
    return {core_.stats().sleep_blocked, core_.stats().peak_state_bytes};
  }

 private:
  dpor::PopDpor core_;
};

const bool registered = [] {
  register_strategy("dpor", [](const RunConfig&) { return std::make_unique<Pop>(); });
  return true;
}();

}  // namespace
}  // namespace heddle
