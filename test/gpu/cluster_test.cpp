// Cluster vocabulary: multicast TMA loads (PTX ISA §9.7.9.25.5.1
// .multicast::cluster), barrier.cluster (§9.7.13.3), remote mbarrier
// arrivals and distributed shared memory through mapa (Shared<T>::peer).
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/gpu/gpu.hpp"
#include "test/support/harness.hpp"
#include "test/support/mentions.hpp"
#include "test/support/presets.hpp"

using namespace heddle;
using namespace heddle::gpu;

namespace {
using test::accessed_by;
using test::mentions;

// test/cluster_misuse: a multicast with CTA mask `mask` from rank 0 of a
// 2-CTA cluster; or barrier.cluster misuse (`misuse`: wait_first, arrive_twice).
const Registration cluster_misuse =
    kernel("test/cluster_misuse", "multicast masks and barrier.cluster call order")
        .param("mask", 3, "the multicast CTA mask", 0, 15)
        .choice("misuse", "none", {"none", "wait_first", "arrive_twice"}, "barrier.cluster misuse")
        .body([](const Params& p) {
          const auto mask = static_cast<std::uint16_t>(p.get_int("mask"));
          const std::string misuse = p.get("misuse");
          grid(LaunchConfig{2, 2, {{"t0"}}});
          auto A = global<int>("A", 2, 7);
          auto desc = global_tensormap("tmap_A", describe_boxes(A, 2, 1, 1));
          auto sA = shared<int>("sA", 2);
          auto full = per_cta<Mbarrier>("full", std::uint32_t{1});
          current_grid().launch([=](const ThreadInfo& t) {
            if (misuse == "wait_first") barrier_cluster_wait();
            if (misuse == "arrive_twice") barrier_cluster_arrive();
            if (misuse != "none") return cluster_sync();
            full.local()->arrive_expect_tx((mask >> t.rank & 1u) ? 8 : 0);
            if (t.rank == 0) tensor_load_multicast(sA, 0, 2, desc, 0, 0, full, mask);
            full.local()->wait_parity(0);
            View<int> a = sA;
            observe("a" + std::to_string(t.cta), std::to_string(wgmma_read(a, 1)));
          });
        });

}  // namespace

TEST_CASE("multicast TMA loads write every CTA of the mask and complete on its mbarrier",
          "[gpu][cluster]") {
  test::check_presets("hopper/tma_multicast");
  auto both = test::outcomes("test/cluster_misuse", {{"mask", "3"}}, RunConfig{});
  CHECK(both.verdicts == std::set<std::string>{"ok"});
  REQUIRE(both.final_states.size() == 1);
  CHECK(both.final_states.begin()->find("a0=7") != std::string::npos);
  CHECK(both.final_states.begin()->find("a1=7") != std::string::npos);
  // Mask 2 writes only rank 1's stage (rank 0 expects no bytes).
  CHECK(test::run("test/cluster_misuse", {{"mask", "2"}}).verdict == Verdict::ok);
  for (const char* mask : {"0", "4"}) {
    INFO(mask);
    RunResult r = test::run("test/cluster_misuse", {{"mask", mask}});
    REQUIRE(r.bug);
    CHECK(r.verdict == Verdict::model_error);
    CHECK(mentions(*r.bug, "multicast CTA mask"));
  }
  // Rank 0 reusing a stage that rank 1 still reads: found as the next
  // tile's bytes in flight at rank 1's phase completion, or as a race.
  auto early = test::outcomes("hopper/tma_multicast", {{"variant", "local_release"}}, RunConfig{});
  CHECK(early.verdicts.count("ok") == 0);
  CHECK(early.verdicts.count("race") == 1);
  RunResult unarmed = test::run("hopper/tma_multicast", {{"variant", "unarmed"}});
  REQUIRE(unarmed.bug);
  CHECK(unarmed.bug->title.find("full[0]@cta1") != std::string::npos);
  CHECK(test::run("hopper/tma_multicast", {{"ctas", "3"}, {"stages", "2"}, {"k_tiles", "2"}})
            .verdict == Verdict::ok);
}

TEST_CASE("barrier.cluster and remote mbarrier arrivals order DSMEM stores", "[gpu][cluster]") {
  test::check_presets("hopper/dsmem_exchange");
  for (const char* v : {"relaxed", "no_wait", "mbarrier_local"}) {
    INFO(v);
    RunResult r = test::run("hopper/dsmem_exchange", {{"variant", v}});
    REQUIRE(r.bug);
    CHECK(accessed_by(*r.bug, "store"));
    CHECK(accessed_by(*r.bug, "load"));
  }
  for (const char* v : {"fixed", "mbarrier"})
    CHECK(test::run("hopper/dsmem_exchange", {{"ctas", "3"}, {"variant", v}}).verdict ==
          Verdict::ok);
  for (const char* misuse : {"wait_first", "arrive_twice"}) {
    INFO(misuse);
    RunResult r = test::run("test/cluster_misuse", {{"misuse", misuse}});
    REQUIRE(r.bug);
    CHECK(r.verdict == Verdict::model_error);
    CHECK(mentions(*r.bug, "barrier.cluster"));
  }
}

TEST_CASE("cluster footprints: dpor reaches every final state dfs does", "[gpu][cluster][dpor]") {
  struct Case { const char* kernel; std::map<std::string, std::string> params; };
  // (Two multicast k-tiles are beyond dfs: one tile, 1638 executions.)
  for (const Case& c : {Case{"hopper/tma_multicast", {{"k_tiles", "1"}}},
                        Case{"hopper/tma_multicast", {{"k_tiles", "1"}, {"variant", "unarmed"}}},
                        Case{"hopper/dsmem_exchange", {}},
                        Case{"hopper/dsmem_exchange", {{"variant", "relaxed"}}}}) {
    INFO(c.kernel);
    RunConfig dfs;
    dfs.strategy = "dfs";
    auto a = test::outcomes(c.kernel, c.params, dfs);
    auto b = test::outcomes(c.kernel, c.params, RunConfig{});
    CHECK(a.verdicts == b.verdicts);
    CHECK(a.final_states == b.final_states);
  }
}
