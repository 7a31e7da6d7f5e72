// Async wgmma (PTX ISA §9.7.15): operands read in the async proxy at the
// mma's own step, wgmma-groups waited by wait_group N, mmas of one thread
// in issue order.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/gpu/cutlass.hpp"
#include "models/gpu/gpu.hpp"
#include "test/support/harness.hpp"
#include "test/support/mentions.hpp"

using namespace heddle;
using namespace heddle::gpu;

namespace {
using test::accessed_by;
using test::mentions;

// test/wgmma_operand: one thread writes a shared operand, (fence=1) fences
// the async proxy, issues an mma on it and waits (wait=1) before it
// overwrites the operand; the accumulator is read after the wait.
const Registration wgmma_operand =
    kernel("test/wgmma_operand", "a thread rewrites a wgmma operand")
        .param("fence", 1, "1: fence.proxy.async between the write and the mma", 0, 1)
        .param("wait", 1, "1: wgmma.wait_group 0 before the overwrite", 0, 1)
        .param("arrive", 1, "1: wgmma.fence before the mma", 0, 1)
        .body([](const Params& p) {
          const bool fence = p.get_int("fence") == 1, wait = p.get_int("wait") == 1;
          const bool arrive = p.get_int("arrive") == 1;
          grid(LaunchConfig{1, 1, {{"mma"}}});
          auto sA = shared<int>("sA", 2);
          auto sB = shared<int>("sB", 2);
          auto acc = accumulator<int>("acc", 1);
          current_grid().launch([=](const ThreadInfo&) {
            View<int> a = sA, b = sB;
            a.store(0, 3), a.store(1, 4), b.store(0, 1), b.store(1, 2);
            if (fence) fence_proxy_async();
            if (arrive) wgmma_fence();
            wgmma_mma_async(acc, a, b);
            wgmma_commit_group();
            if (wait) wgmma_wait_group(0);
            a.store(0, 0);  // the next tile's operand
            if (!wait) wgmma_wait_group(0);
            observe("acc", std::to_string(acc.load(0)));
          });
        });

}  // namespace

TEST_CASE("wgmma reads its operands in the async proxy, until wait_group covers it",
          "[gpu][wgmma]") {
  auto ok = test::outcomes("test/wgmma_operand", {}, RunConfig{});
  CHECK(ok.verdicts == std::set<std::string>{"ok"});
  REQUIRE(ok.final_states.size() == 1);
  CHECK(ok.final_states.begin()->find("acc=11") != std::string::npos);  // 3*1 + 4*2

  RunResult no_fence = test::run("test/wgmma_operand", {{"fence", "0"}});
  REQUIRE(no_fence.bug);
  CHECK(no_fence.verdict == Verdict::race);
  CHECK(accessed_by(*no_fence.bug, "wgmma.read_a"));

  RunResult no_wait = test::run("test/wgmma_operand", {{"wait", "0"}});
  REQUIRE(no_wait.bug);
  CHECK(no_wait.verdict == Verdict::race);
  CHECK(accessed_by(*no_wait.bug, "wgmma.read_a"));

  RunResult no_arrive = test::run("test/wgmma_operand", {{"arrive", "0"}});
  REQUIRE(no_arrive.bug);
  CHECK(no_arrive.verdict == Verdict::model_error);
  CHECK(mentions(*no_arrive.bug, "wgmma.fence"));
}

TEST_CASE("wgmma mainloop: releasing a stage whose wgmma is in flight races", "[gpu][wgmma]") {
  struct Variant { const char* name; Verdict expect; };
  for (Variant v : {Variant{"correct", Verdict::ok}, Variant{"release_in_flight", Verdict::race},
                    Variant{"wait_depth", Verdict::race}, Variant{"acc_early", Verdict::race}}) {
    INFO(v.name);
    RunResult r = test::run("cutlass/wgmma_mainloop", {{"variant", v.name}});
    CHECK(r.verdict == v.expect);
    if (v.expect == Verdict::ok) CHECK(r.exhaustive);
    if (!r.bug) continue;
    if (std::string(v.name) != "acc_early") {
      // The wgmma's operand read and the next TMA load into the stage.
      CHECK(accessed_by(*r.bug, "wgmma.read_a"));
      CHECK(accessed_by(*r.bug, "bulk_load.write_smem"));
    } else {
      CHECK(accessed_by(*r.bug, "wgmma.write_acc"));
      CHECK(mentions(*r.bug, "wgmma.wait_group N (warpgroup_wait<N>())"));  // how to wait
    }
    RunResult again = test::replay(*r.schedule);
    REQUIRE(again.bug);
    CHECK(report_to_json(*again.bug) == r.schedule->bug);
  }
  RunResult three = test::run("cutlass/wgmma_mainloop", {{"stages", "3"}, {"k_tiles", "5"}});
  CHECK(three.verdict == Verdict::ok);
}

TEST_CASE("wgmma and cp.async footprints: dpor reaches every final state dfs does",
          "[gpu][wgmma][cp_async][dpor]") {
  // Small enough for dfs to exhaust: the differential check of
  // checker/DESIGN.md § Checking the checker (same verdicts, same final
  // states) for the new operations.
  struct Case { const char* kernel; std::map<std::string, std::string> params; };
  for (const Case& c : {Case{"cutlass/wgmma_mainloop", {{"stages", "1"}, {"k_tiles", "2"}}},
                        Case{"ampere/cp_async_pipeline",
                             {{"stages", "2"}, {"k_tiles", "2"}, {"variant", "mbarrier"}}},
                        Case{"ampere/cp_async_pipeline", {{"stages", "2"}, {"k_tiles", "3"}}}}) {
    INFO(c.kernel);
    RunConfig dfs, dpor;
    dfs.strategy = "dfs";
    auto a = test::outcomes(c.kernel, c.params, dfs);
    auto b = test::outcomes(c.kernel, c.params, dpor);
    CHECK(a.verdicts == b.verdicts);
    CHECK(a.final_states == b.final_states);
  }
}
