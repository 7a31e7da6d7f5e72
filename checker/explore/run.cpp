#include "checker/explore/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "checker/engine/errors.hpp"
#include "checker/engine/user_site.hpp"

namespace heddle {
namespace {
std::map<std::string, StrategyFactory>& factories() {
  static std::map<std::string, StrategyFactory> f;
  return f;
}

}  // namespace

Ending run_execution(const Kernel& kernel, const Params& params, Strategy& strategy, Execution& ex) {
  ex.set_strategy(&strategy);
  // The model's identity for the setup determinism check: its name and
  // parameters, hashed (FNV-1a, with a separator after each string).
  std::uint64_t model = 14695981039346656037ull;
  auto mix = [&model](const std::string& s) {
    for (unsigned char c : s) model = (model ^ c) * 1099511628211ull;
    model = (model ^ 0xff) * 1099511628211ull;
  };
  mix(kernel.name);
  for (const auto& [k, v] : params.values()) mix(k), mix(v);
  // Formatted once per kernel and OS thread, not once per execution.
  thread_local std::string words_name, words_at, where_words;
  if (where_words.empty() || words_name != kernel.name || words_at != kernel.at) {
    words_name = kernel.name;
    words_at = kernel.at;
    where_words =
        fmt::format("in the setup (body) of kernel {}, declared at {}", kernel.name, kernel.at);
  }
  if (!ex.run_setup([&] { kernel.setup(params); }, model, where_words)) return Ending::bug;
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
