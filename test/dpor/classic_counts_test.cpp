// dpor (POP) and optimal (wakeup trees) on the classic DPOR benchmarks: exactly the optimal number of
// traces (one per Mazurkiewicz trace) and no sleep-set-blocked executions.
// The expected counts are the Optimal column of
// shared/reference/dpor-benchmarks.md.
#include <catch2/catch.hpp>

#include "test/support/harness.hpp"

using namespace heddle;

namespace {
struct Case {
  const char* kernel;
  std::map<std::string, std::string> params;
  std::uint64_t traces;
  std::uint64_t deadlocks = 0;
};

RunResult run_optimal(const Case& c, const std::string& strategy) {
  RunConfig config;
  config.strategy = strategy;
  config.stop_at_first_bug = false;
  return test::run(c.kernel, c.params, config);
}
}  // namespace

TEST_CASE("dpor and optimal explore exactly the optimal count on the classic benchmarks", "[dpor]") {
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  const std::vector<Case> cases = {
      {"classic/lastzero", {{"n", "3"}}, 12},
      {"classic/lastzero", {{"n", "5"}}, 64},
      {"classic/lastzero", {{"n", "6"}}, 144},
      {"classic/lastzero", {{"n", "8"}}, 704},
      {"classic/lastzero", {{"n", "10"}}, 3328},
      {"classic/readers", {{"n", "2"}}, 4},
      {"classic/readers", {{"n", "8"}}, 256},
      {"classic/indexer", {{"n", "11"}}, 1},
      {"classic/indexer", {{"n", "12"}}, 8},
      {"classic/indexer", {{"n", "13"}}, 64},
      {"classic/filesystem", {{"n", "13"}}, 1},
      {"classic/filesystem", {{"n", "14"}}, 2},
      {"classic/filesystem", {{"n", "16"}}, 8},
      {"classic/sigma", {{"n", "2"}}, 3},
      {"classic/sigma", {{"n", "3"}}, 15},
      {"classic/sigma", {{"n", "4"}}, 105},
      {"classic/sigma", {{"n", "5"}}, 945},
      {"classic/casrot", {{"n", "3"}}, 5},
      {"classic/casrot", {{"n", "4"}}, 14},
      {"classic/casrot", {{"n", "5"}}, 43},
      {"classic/casrot", {{"n", "6"}}, 144},
      {"classic/casrot", {{"n", "7"}}, 523},
      {"classic/n_writers_a_reader", {{"n", "2"}}, 6},
      {"classic/n_writers_a_reader", {{"n", "3"}}, 24},
      {"classic/n_writers_a_reader", {{"n", "4"}}, 120},
      {"classic/n_writers_a_reader", {{"n", "5"}}, 720},
      {"classic/philosophers", {{"n", "2"}, {"order", "ordered"}}, 2},
      {"classic/philosophers", {{"n", "3"}, {"order", "ordered"}}, 6},
      {"classic/philosophers", {{"n", "4"}, {"order", "ordered"}}, 14},
      {"classic/philosophers", {{"n", "5"}, {"order", "ordered"}}, 30},
      {"classic/philosophers", {{"n", "6"}, {"order", "ordered"}}, 62},
      {"classic/philosophers", {{"n", "2"}, {"order", "ring"}}, 3, 1},
      {"classic/philosophers", {{"n", "3"}, {"order", "ring"}}, 7, 1},
      {"classic/philosophers", {{"n", "4"}, {"order", "ring"}}, 15, 1},
      {"classic/philosophers", {{"n", "5"}, {"order", "ring"}}, 31, 1},
      {"classic/philosophers", {{"n", "6"}, {"order", "ring"}}, 63, 1},
  };
  for (const auto& c : cases) {
    auto r = run_optimal(c, strategy);
    INFO(strategy << " " << c.kernel << " n=" << c.params.at("n") << (c.params.count("order") ? " " + c.params.at("order") : ""));
    CHECK(r.exhaustive);
    CHECK(r.stats.executions == c.traces);
    CHECK(r.stats.sleep_blocked == 0);
    CHECK(r.stats.deadlocked == c.deadlocks);
  }
}
