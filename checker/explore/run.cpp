#include "checker/explore/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <stdexcept>

#include "checker/engine/execution.hpp"
#include "checker/engine/errors.hpp"
#include "checker/engine/user_site.hpp"

namespace heddle {
namespace {
std::map<std::string, StrategyFactory>& factories() {
  static std::map<std::string, StrategyFactory> f;
  return f;
}

}  // namespace

namespace {
// The kernel's name and parameters, hashed (FNV-1a, with a separator after each string).
std::uint64_t model_hash(const Kernel& kernel, const Params& params) {
  std::uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](const std::string& s) {
    for (unsigned char c : s) hash = (hash ^ c) * 1099511628211ull;
    hash = (hash ^ 0xff) * 1099511628211ull;
  };
  mix(kernel.name);
  for (const auto& [k, v] : params.values()) mix(k), mix(v);
  return hash;
}

std::string setup_words(const Kernel& kernel) {
  return fmt::format("in the setup (body) of kernel {}, declared at {}", kernel.name, kernel.at);
}
}  // namespace

Model::Model(const Kernel& k, const Params& p, const ExecutionLimits& l)
    : kernel(k), params(p), limits(l) {
  // The words formatted once per kernel and OS thread (probes, replays and
  // shrinking build a Model for each execution they run).
  thread_local std::string words, words_name, words_at;
  if (words.empty() || words_name != k.name || words_at != k.at) {
    words_name = k.name;
    words_at = k.at;
    words = setup_words(k);
  }
  identity = ModelIdentity{model_hash(k, p), words};
}

Runner::Runner(const Model& model, StackPool& pool) : model_(model), pool_(pool) {}

Runner::~Runner() = default;

Ending Runner::run(Strategy& strategy) {
  if (ex_ && !broken_) {
    ex_->renew();
  } else {
    ex_.reset();  // (its fibers go back to the pool before a new one takes them)
    ex_ = std::make_unique<Execution>(model_.limits, pool_);
  }
  broken_ = true;
  const Ending ending = run_execution(model_, strategy, *ex_);
  broken_ = false;
  return ending;
}

const ExecutionRecord& Runner::last() const {
  if (!ex_) throw std::logic_error("[heddle bug] Runner::last() before any run");
  return *ex_;
}

Ending run_execution(const Model& model, Strategy& strategy, Execution& ex) {
  const Kernel& kernel = model.kernel;
  ex.set_strategy(&strategy);
  if (!ex.run_setup([&] { kernel.setup(model.params); }, model.identity.hash,
                    model.identity.where_words))
    return Ending::bug;
  try {
    return ex.run(strategy);
  } catch (const ModelError& e) {
    ex.fail(Verdict::model_error, e.what(),
            {error_site(e.where, fmt::format("in kernel {} (declared at {}), outside its threads",
                                             kernel.name, kernel.at))});
    return Ending::bug;
  }
}

void register_strategy(const std::string& name, StrategyFactory f) {
  factories()[name] = std::move(f);
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (auto& [n, f] : factories()) names.push_back(n);
  return names;
}

std::unique_ptr<Strategy> make_strategy(const RunConfig& c) {
  auto it = factories().find(c.strategy);
  if (it == factories().end()) {
    auto near = closest(c.strategy, strategy_names());
    throw UsageError(fmt::format("unknown strategy {}; available: {}", c.strategy,
                                 fmt::join(strategy_names(), ", ")));
  }
  return it->second(c);
}

RunConfig replay_config(const Schedule& s, RunConfig base) {
  base.strategy = "replay";
  base.seed = s.seed;
  if (s.max_steps) base.max_steps = s.max_steps;
  if (s.step_timeout > 0) base.step_timeout = s.step_timeout;
  base.replay = s;
  return base;
}

}  // namespace heddle
