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

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

#include "checker/explore/dpor/event.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
std::string name_of(const ExecutionRecord& ex, std::size_t k) {
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
  out.result = explore(k, k.resolve(params), c, [&](const ExecutionRecord& ex, Ending) {
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
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  // dfs: right_permute 920 executions in 4 traces, all_gather 44,880 in 4.
  // `optimal` explored 2 of the 4 in both until a reversed step was compared
  // by what it declared and also what it did: the step before a TPU
  // semaphore wait writes that semaphore once it runs (models/tpu).
  using Args = std::map<std::string, std::string>;
  const std::vector<std::pair<const char*, Args>> kernels = {
      {"pallas_tpu/right_permute", {}},
      {"pallas_tpu/all_gather", {}},
      {"pallas_tpu/double_buffered_copy", {}},
      {"cutlass/grouped_gemm_epilogue", {{"fixed", "true"}}},
      {"cutlass/pipeline_tma_async", {}},
      // Under the coarser relation (commuting signals, arrivals and tx, a
      // store's write apart from its .read wait) each of these is one trace:
      // dfs runs 920 and 2,840 executions.
      {"pallas_tpu/all_reduce", {}},
      {"cutlass/pipeline_tma_async", {{"consumers", "2"}, {"k_tiles", "2"}}},
      // Waits of several units (test/tpu/models.cpp): a reversal that moves
      // a wait before a signal is pruned only when too few units are left.
      {"test/tpu_amounts", {}},
      {"test/tpu_waits", {}},
      {"test/tpu_waits", {{"copies", "4"}}},
  };
  for (const auto& [kernel, params] : kernels) {
    auto brute = explore_classes(kernel, "dfs", params);
    auto got = explore_classes(kernel, strategy.c_str(), params);
    INFO(strategy << " " << kernel);
    REQUIRE(brute.result.exhaustive);
    REQUIRE(got.result.exhaustive);
    CHECK(got.traces == brute.traces);
    // Each trace once. Whether a wait moved before a step can run there is
    // not known in advance when another step could unblock it (an mbarrier
    // wait, a DMA semaphore wait): such a schedule is tried, and dpor gives
    // it up when the wait turns out blocked (abandoned, not an execution).
    // optimal runs on into a trace already covered (sleep-blocked). That
    // waste stays below the traces explored (a few schedules for a kernel
    // that the coarser relation reduces to one trace).
    const auto& st = got.result.stats;
    CHECK(st.executions - st.sleep_blocked == brute.traces.size());
    if (strategy == "dpor") CHECK(st.sleep_blocked == 0);
    CHECK(st.abandoned + st.sleep_blocked <= std::max<std::size_t>(brute.traces.size(), 4));
    WARN(strategy << " " << kernel << ": " << brute.traces.size() << " traces, " << st.abandoned
                  << " schedules abandoned, " << st.sleep_blocked << " executions sleep-blocked");
  }
}

TEST_CASE("dpor explores every trace of random models once", "[dpor]") {
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  // The trace classes dfs reaches, named by creation paths, against those
  // dpor explores: the same set, and no trace twice. HEDDLE_LONG=1: 3,000
  // (optimal missed one trace of seed 9619 until sleepers a wakeup step
  // left asleep stopped vouching for reversals; see the next test case).
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
    auto got = explore_classes("test/random", strategy.c_str(), params);
    INFO(strategy << " seed " << seed << " mix " << params.at("mix"));
    REQUIRE(got.result.exhaustive);
    CHECK(got.traces == brute.traces);
    missed += got.traces != brute.traces;
    if (strategy == "dpor") CHECK(got.result.stats.sleep_blocked == 0);
    if (got.result.stats.executions - got.result.stats.sleep_blocked != got.traces.size()) {
      ++twice;
      WARN("seed " << seed << " mix " << params.at("mix") << ": " << got.result.stats.executions << " executions, "
                   << got.traces.size() << " traces");
    }
  }
  WARN(strategy << ", " << 2 * models << " random models: " << missed << " with a trace missed, "
                << twice << " with a trace explored twice");
  CHECK(twice == 0);
}

TEST_CASE("optimal explores every trace once when a wakeup step is a failed CAS", "[dpor]") {
  // A failed CAS is a read, a successful one a write. A reversal puts the
  // CAS in the wakeup tree as a write (it may succeed there); when it runs
  // and fails, a sleeping read or failed CAS on the same object stays
  // asleep, though the tree's leaves assumed it woken (JACM 2017, Sec. 6.1).
  // It must not then skip a reversal it does not cover: each of these lost
  // one trace (test/failed_cas order 0: C, C's load, A, B), and with it a
  // final state on test/random seed 3368 (mix=1). Counts from dfs.
  struct Model {
    const char* kernel;
    std::map<std::string, std::string> params;
  };
  std::vector<Model> models = {
      {"test/random", {{"seed", "3368"}, {"threads", "4"}, {"budget", "6"}, {"mix", "1"}}},
      {"test/random", {{"seed", "9619"}, {"threads", "3"}, {"budget", "7"}}},
  };
  for (int plain = 0; plain < 2; ++plain)
    for (int order = 0; order < 6; ++order)
      models.push_back({"test/failed_cas",
                        {{"plain", std::to_string(plain)}, {"order", std::to_string(order)}}});
  for (const auto& m : models) {
    auto brute = explore_classes(m.kernel, "dfs", m.params);
    auto got = explore_classes(m.kernel, "optimal", m.params);
    std::string args;
    for (const auto& [k, v] : m.params) args += " " + k + "=" + v;
    INFO(m.kernel << args);
    REQUIRE(got.result.exhaustive);
    CHECK(got.traces == brute.traces);
    CHECK(got.result.stats.executions == brute.traces.size());
    CHECK(got.result.stats.sleep_blocked == 0);
  }
}

namespace {
RunConfig with_strategy(const std::string& s) {
  RunConfig c;
  c.strategy = s;
  return c;
}

/// True when a run noted an over-subscribed barrier (ArrivalLedger): its
/// arrivals' labels depend on who else waits to arrive, so two orders with
/// one state may carry two labellings; only final states are compared then.
bool over_subscribed(const RunResult& r) {
  for (const auto& n : r.notes)
    if (n.find("over-subscribed") != std::string::npos) return true;
  return false;
}

/// Explores random models 1..models of generator `mix` with dfs and
/// `strategy`: returns the models with a trace missed and explored twice.
/// Models with an over-subscribed barrier are counted in `loose`.
std::pair<int, int> classes_agree(const std::string& strategy, int models, const char* mix,
                                  std::uint64_t& traces, int* loose = nullptr) {
  int missed = 0, twice = 0;
  for (int seed = 1; seed <= models; ++seed) {
    const std::map<std::string, std::string> params = {
        {"seed", std::to_string(seed)},
        {"threads", std::to_string(2 + seed % 3)},
        {"budget", std::to_string(3 + seed % 5)},
        {"mix", mix}};
    auto brute = explore_classes("test/random", "dfs", params);
    auto got = explore_classes("test/random", strategy.c_str(), params);
    INFO(strategy << " seed " << seed << " mix " << mix);
    REQUIRE(got.result.exhaustive);
    if (loose != nullptr && over_subscribed(brute.result)) {
      ++*loose;
      CHECK(test::outcomes("test/random", params, with_strategy(strategy)).final_states ==
            test::outcomes("test/random", params, with_strategy("dfs")).final_states);
      continue;
    }
    CHECK(got.traces == brute.traces);
    missed += got.traces != brute.traces;
    traces += brute.traces.size();
    if (strategy == "dpor") CHECK(got.result.stats.sleep_blocked == 0);
    if (got.result.stats.executions - got.result.stats.sleep_blocked != got.traces.size()) {
      ++twice;
      WARN("seed " << seed << " mix " << mix << ": " << got.result.stats.executions
                   << " executions, " << got.traces.size() << " traces");
    }
  }
  return {missed, twice};
}
}  // namespace

TEST_CASE("dpor explores every trace of random models with commutative updates once", "[dpor]") {
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  // mix=3 (counter adds, semaphore signals and reads, mbarrier arrivals and
  // tx, parity waits, named-barrier syncs): the classes are those of the
  // coarser relation (dependent() in the trace naming above), so two
  // commuting signals are one trace, and dpor must run each class once.
  // HEDDLE_LONG=1: 3,000.
  // A model with an over-subscribed barrier (its arrivals race for the last
  // slots of a phase) is compared by final states only (see over_subscribed).
  const int models = std::getenv("HEDDLE_LONG") != nullptr ? 3000 : 300;
  std::uint64_t traces = 0;
  int loose = 0;
  auto [missed, twice] = classes_agree(strategy, models, "3", traces, &loose);
  WARN(strategy << ", " << models << " mix=3 models, " << traces << " traces: " << missed
                << " with a trace missed, " << twice << " with a trace explored twice; "
                << loose << " with an over-subscribed barrier compared by final states");
  CHECK(loose < models / 4);
  CHECK(missed == 0);
  if (strategy == "dpor") CHECK(twice == 0);
}

TEST_CASE("dpor explores every trace of random mix=2 models once", "[dpor]") {
  const std::string strategy = GENERATE(as<std::string>{}, "dpor", "optimal");
  // mix=2 (try_lock, signal(2), wait pairs, overlapping buffer ranges,
  // two-phase copies, grandchildren, proxy fences, counter awaits, CAS
  // loops, async signals): every trace dfs reaches, once. HEDDLE_LONG=1: 3,000.
  const int models = std::getenv("HEDDLE_LONG") != nullptr ? 3000 : 300;
  std::uint64_t traces = 0;
  auto [missed, twice] = classes_agree(strategy, models, "2", traces);
  WARN(strategy << ", " << models << " mix=2 models, " << traces << " traces: " << missed
                << " with a trace missed, " << twice << " with a trace explored twice");
  CHECK(missed == 0);
  if (strategy == "dpor") CHECK(twice == 0);
}
