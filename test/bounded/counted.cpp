#include "test/bounded/counted.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include "checker/engine/execution.hpp"

namespace heddle::test {
namespace {

// What the wrapper saw in the execution running now.
struct Tally {
  std::uint32_t preemptions = 0;
  std::optional<AgentId> last;  // the last thread that ran
};

// Wraps the strategy named by `inner`, counting preemptions of each
// execution into `tally`; everything else is the inner strategy's.
class Counting final : public Strategy {
 public:
  Counting(std::unique_ptr<Strategy> inner, Tally& tally) : inner_(std::move(inner)), tally_(tally) {}
  std::string name() const override { return inner_->name(); }
  bool begin_execution() override {
    tally_ = Tally{};
    return inner_->begin_execution();
  }
  AgentId pick(const Choice& c) override {
    AgentId a = inner_->pick(c);
    if (a == kAbandon) return a;
    // Async steps are transparent: only a thread step can preempt, and only
    // the last thread that ran can be preempted.
    if (c.execution.agents()[index(a)]->kind != Agent::Kind::thread) return a;
    if (tally_.last && *tally_.last != a &&
        std::find(c.enabled.begin(), c.enabled.end(), *tally_.last) != c.enabled.end())
      ++tally_.preemptions;
    tally_.last = a;
    return a;
  }
  std::uint32_t choose(std::uint32_t n, const ExecutionRecord& ex) override {
    return inner_->choose(n, ex);
  }
  void end_execution(const ExecutionRecord& ex) override { inner_->end_execution(ex); }
  bool exhaustive() const override { return inner_->exhaustive(); }
  std::string stopped_by() const override { return inner_->stopped_by(); }
  StrategyStats stats() const override { return inner_->stats(); }
  std::vector<std::string> notes() const override { return inner_->notes(); }

 private:
  std::unique_ptr<Strategy> inner_;
  Tally& tally_;
};

Tally& tally() {
  static Tally t;
  return t;
}

std::string& inner_name() {
  static std::string name;
  return name;
}

const bool registered = [] {
  register_strategy("test/counting", [](const RunConfig& c) {
    RunConfig inner = c;
    inner.strategy = inner_name();
    return std::make_unique<Counting>(make_strategy(inner), tally());
  });
  return true;
}();

}  // namespace

std::set<std::string> CountedRun::states(std::uint32_t k) const {
  std::set<std::string> out;
  for (const auto& e : executions)
    if (e.preemptions <= k && e.verdict == "ok") out.insert(e.state);
  return out;
}

std::set<std::string> CountedRun::verdicts(std::uint32_t k) const {
  std::set<std::string> out;
  for (const auto& e : executions)
    if (e.preemptions <= k) out.insert(e.verdict);
  return out;
}

std::uint32_t CountedRun::max_preemptions() const {
  std::uint32_t m = 0;
  for (const auto& e : executions) m = std::max(m, e.preemptions);
  return m;
}

std::uint32_t CountedRun::min_bug_preemptions() const {
  std::uint32_t m = UINT32_MAX;
  for (const auto& e : executions)
    if (e.verdict != "ok") m = std::min(m, e.preemptions);
  return m;
}

CountedRun counted_run(const std::string& kernel, const std::map<std::string, std::string>& params,
                       RunConfig config) {
  const Kernel& k = find_kernel(kernel);
  inner_name() = config.strategy;
  config.strategy = "test/counting";
  CountedRun run;
  run.result = explore(k, k.resolve(params), config, [&](const ExecutionRecord& ex, Ending) {
    Counted c;
    c.preemptions = tally().preemptions;
    c.verdict = ex.bug() ? verdict_name(ex.bug()->kind) : "ok";
    if (!ex.bug()) c.state = ex.final_state();
    run.executions.push_back(std::move(c));
  });
  return run;
}

RunConfig bounded_config(std::optional<std::uint32_t> k) {
  RunConfig c;
  c.strategy = "bounded";
  c.preemption_bound = k;
  c.minimize = false;
  return c;
}

}  // namespace heddle::test
