// The C++ model API's reading of bulk waits for TMA loads (issue 47 item 3,
// checker/DESIGN.md § Bulk async-groups and TMA loads): by default
// bulk_commit_group(); bulk_wait_group_read(0) covers the tensormap read of
// a TMA load issued before, so a mainloop may rewrite the tensormap next
// (CUTLASS v4.0.0 #2294); LaunchConfig::ptx_strict takes the ISA's letter.
#include <catch2/catch.hpp>

#include "models/gpu/gpu.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::gpu;

namespace {
// test/tma_desc_drain: one producer loads box (0, 0) of A through `desc`,
// drains its bulk groups (drain=1), rewrites desc to point at B, then waits
// for the load on `full` and checks the tile it got.
const Registration tma_desc_drain =
    kernel("test/tma_desc_drain", "a TMA load, a bulk drain, a tensormap rewrite")
        .param("drain", 1, "1: commit_group; wait_group.read 0 before the rewrite", 0, 1)
        .param("strict", 0, "1: LaunchConfig::ptx_strict", 0, 1)
        .body([](const Params& p) {
          const bool drain = p.get_int("drain") == 1;
          LaunchConfig cfg{1, 1, {{"producer"}}};
          cfg.ptx_strict = p.get_int("strict") == 1;
          grid(cfg);
          auto A = global<int>("A", 4), B = global<int>("B", 4);
          for (std::size_t i = 0; i < 4; ++i) A.init(i, 1), B.init(i, 2);
          TensorMap desc = global_tensormap("tmap", describe_boxes(A, 4, 1, 1));
          const std::uint64_t next = describe_boxes(B, 4, 1, 1).global_address;
          auto sA = shared<int>("sA", 4);
          auto& full = make<Mbarrier>("full", 1);
          current_grid().launch([=, &full](const ThreadInfo&) {
            View<int> s = sA;
            full.arrive_expect_tx(4 * sizeof(int));
            tensor_load(span(s), desc, 0, 0, full);
            if (drain) {
              bulk_commit_group();
              bulk_wait_group_read(0);
            }
            tensormap_replace_global_address(desc, next);
            full.wait_parity(0);
            check(s.load(0) == 1, "the load read the rewritten tensormap");
          });
        });

RunResult drain_run(int drain, int strict) {
  return test::run("test/tma_desc_drain",
                   {{"drain", std::to_string(drain)}, {"strict", std::to_string(strict)}});
}
}  // namespace

TEST_CASE("gpu: a bulk drain covers an earlier TMA load's tensormap read by default", "[gpu][strict]") {
  RunResult r = drain_run(1, 0);
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  for (int strict : {0, 1}) {
    CAPTURE(strict);
    RunResult no_drain = drain_run(0, strict);
    REQUIRE(no_drain.verdict == Verdict::race);
    CHECK(format_report(*no_drain.bug).find("--ptx-strict") == std::string::npos);
  }
  RunResult strict = drain_run(1, 1);
  REQUIRE(strict.verdict == Verdict::race);
  CHECK_THAT(format_report(*strict.bug),
             Catch::Contains("under --ptx-strict it covers no mbarrier-completed load") &&
                 Catch::Contains("tma_desc_drain_test.cpp"));
}
