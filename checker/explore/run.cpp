#include "checker/explore/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

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

ModelIdentity model_identity(const Kernel& kernel, const Params& params) {
  return ModelIdentity{model_hash(kernel, params), setup_words(kernel)};
}

Ending run_execution(const Kernel& kernel, const Params& params, Strategy& strategy,
                     Execution& ex) {
  // The words formatted once per kernel and OS thread (probes, replays and
  // shrinking run one execution at a time).
  thread_local ModelIdentity last;
  thread_local std::string last_name, last_at;
  if (last.where_words.empty() || last_name != kernel.name || last_at != kernel.at) {
    last_name = kernel.name;
    last_at = kernel.at;
    last.where_words = setup_words(kernel);
  }
  last.hash = model_hash(kernel, params);
  return run_execution(kernel, params, strategy, ex, last);
}

Ending run_execution(const Kernel& kernel, const Params& params, Strategy& strategy,
                     Execution& ex, const ModelIdentity& identity) {
  ex.set_strategy(&strategy);
  if (!ex.run_setup([&] { kernel.setup(params); }, identity.hash, identity.where_words))
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
