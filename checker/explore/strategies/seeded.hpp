// What the randomized strategies (random, pct) share: seed and budget.
#pragma once
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "checker/explore/run.hpp"

namespace heddle {

/// Executions a randomized strategy runs when --max-executions is not given.
inline constexpr std::uint64_t kDefaultRandomExecutions = 1000;

/// A seed and an execution budget, resolved from the run configuration.
class Seeded {
 public:
  explicit Seeded(const RunConfig& c)
      : seed_(c.seed ? *c.seed : clock_seed()),
        chosen_(!c.seed),
        limit_(c.max_executions ? c.max_executions : kDefaultRandomExecutions),
        defaulted_(c.max_executions == 0),
        rng_(seed_) {}

  /// False once the budget is used; counts the execution otherwise.
  bool next_execution() { return executions_ < limit_ && (++executions_, true); }
  /// A uniform value in [0, n) (n > 0); the same on every platform.
  std::uint64_t below(std::uint64_t n) { return rng_() % n; }
  std::uint64_t seed() const { return seed_; }
  /// The lines the report prints: the seed if it was chosen, the budget if defaulted.
  std::vector<std::string> notes(const std::string& strategy) const {
    std::vector<std::string> out;
    if (chosen_)
      out.push_back(fmt::format("{}: seed {} chosen from the clock (rerun with --seed {})",
                                strategy, seed_, seed_));
    if (defaulted_)
      out.push_back(fmt::format("{}: no --max-executions given, so it stops after {} executions",
                                strategy, limit_));
    return out;
  }

 private:
  static std::uint64_t clock_seed() {
    auto t = std::chrono::system_clock::now().time_since_epoch().count();
    return static_cast<std::uint64_t>(t) % 1000000007ull;  // short enough to type
  }
  std::uint64_t seed_;
  bool chosen_;
  std::uint64_t limit_;
  bool defaulted_;
  std::uint64_t executions_ = 0;
  std::mt19937_64 rng_;  // the standard fixes its output sequence: runs reproduce
};

}  // namespace heddle
