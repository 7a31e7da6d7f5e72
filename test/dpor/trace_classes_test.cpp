// dpor against brute force: dfs's executions grouped into Mazurkiewicz
// traces, against the traces dpor explores: every one, once. On the TPU
// collectives (DMA semaphore waits enabled by a copy's completion that
// comes later in the trace) and on random models.
//
// A trace is named by its events and the order of its dependent pairs.
// Agent ids follow creation order, which differs between interleavings, so
// an event is named by its agent's creation path (creating event,
// recursively, and the rank among the agents that event created) and its
// index in that agent.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <set>
#include <vector>

#include "checker/dpor/event.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
std::string name_of(const Execution& ex, std::size_t k) {
  const Event& e = ex.trace()[k];
  const Agent& a = *ex.agents()[index(e.agent)];
  std::string who = std::to_string(index(e.agent));
  if (a.created_by >= 0) {
    int rank = 0;
    for (std::size_t b = 0; b < index(e.agent); ++b) rank += ex.agents()[b]->created_by == a.created_by;
    who = "(" + name_of(ex, static_cast<std::size_t>(a.created_by)) + ")#" + std::to_string(rank);
  }
  return who + "." + std::to_string(e.agent_event);
}

/// The distinct traces a strategy explores, and its run's result.
struct Classes {
  std::set<std::set<std::string>> traces;
  RunResult result;
};

Classes explore_classes(const std::string& kernel, const char* strategy,
                        const std::map<std::string, std::string>& params = {}) {
  const auto& k = find_kernel(kernel);
  RunConfig c;
  c.strategy = strategy;
  c.stop_at_first_bug = false;
  Classes out;
  out.result = explore(k, k.resolve(params), c, [&](const Execution& ex, Ending) {
    const auto& t = ex.trace();
    std::set<std::string> order;
    for (std::size_t j = 0; j < t.size(); ++j) {
      order.insert(name_of(ex, j));  // which events ran, then their order
      for (std::size_t i = 0; i < j; ++i) {
        auto a = dpor::event_info(t, i, false), b = dpor::event_info(t, j, false);
        if (a.agent != b.agent && dpor::dependent(a, b))
          order.insert(name_of(ex, i) + "<" + name_of(ex, j));
      }
    }
    out.traces.insert(std::move(order));
  });
  return out;
}
}  // namespace

TEST_CASE("dpor explores every trace of the GPU and TPU kernels once", "[dpor]") {
  // dfs: right_permute 920 executions in 4 traces, all_gather 44,880 in 4.
  // Known gap of the wakeup-tree strategy `optimal` (JACM 2017, Alg. 2, as
  // implemented here): it explores 2 of the 4 traces in both; verdicts and
  // final states still agree. `dpor` (POP) explores all 4.
  using Args = std::map<std::string, std::string>;
  const std::vector<std::pair<const char*, Args>> kernels = {
      {"pallas_tpu/right_permute", {}},
      {"pallas_tpu/all_gather", {}},
      {"pallas_tpu/double_buffered_copy", {}},
      {"cutlass/grouped_gemm_epilogue", {{"fixed", "true"}}},
      {"cutlass/pipeline_tma_async", {}},
  };
  for (const auto& [kernel, params] : kernels) {
    auto brute = explore_classes(kernel, "dfs", params);
    auto got = explore_classes(kernel, "dpor", params);
    INFO(kernel);
    REQUIRE(brute.result.exhaustive);
    REQUIRE(got.result.exhaustive);
    CHECK(got.traces == brute.traces);
    // Each trace once. Whether a wait moved before a step can run there is
    // not known in advance when another step could unblock it (an mbarrier
    // wait, a DMA semaphore wait): such a schedule is tried, and given up
    // when the wait turns out blocked (abandoned, not an execution). That
    // waste stays well below the traces explored.
    CHECK(got.result.stats.executions == brute.traces.size());
    CHECK(got.result.stats.sleep_blocked == 0);
    CHECK(got.result.stats.abandoned <= brute.traces.size());
    WARN(kernel << ": " << brute.traces.size() << " traces, " << got.result.stats.abandoned
                << " schedules abandoned");
  }
}

TEST_CASE("dpor explores every trace of random models once", "[dpor]") {
  // The trace classes dfs reaches, named by creation paths, against those
  // dpor explores: the same set, and no trace twice. HEDDLE_LONG=1: 3,000.
  // mix=1 models (awaits several writers can satisfy, spawned children)
  // are the second half.
  const int models = std::getenv("HEDDLE_LONG") != nullptr ? 3000 : 300;
  int missed = 0, twice = 0;
  for (int m = 0; m < 2 * models; ++m) {
    const int seed = m % models + 1;
    const std::map<std::string, std::string> params = {
        {"seed", std::to_string(seed)},
        {"threads", std::to_string(2 + seed % 3)},
        {"budget", std::to_string(3 + seed % 5)},
        {"mix", m < models ? "0" : "1"}};
    auto brute = explore_classes("test/random", "dfs", params);
    auto got = explore_classes("test/random", "dpor", params);
    INFO("seed " << seed << " mix " << params.at("mix"));
    REQUIRE(got.result.exhaustive);
    CHECK(got.traces == brute.traces);
    missed += got.traces != brute.traces;
    CHECK(got.result.stats.sleep_blocked == 0);
    if (got.result.stats.executions != got.traces.size()) {
      ++twice;
      WARN("seed " << seed << " mix " << params.at("mix") << ": " << got.result.stats.executions << " executions, "
                   << got.traces.size() << " traces");
    }
  }
  WARN(2 * models << " random models: " << missed << " with a trace missed, " << twice
              << " with a trace explored twice");
  CHECK(twice == 0);
}
