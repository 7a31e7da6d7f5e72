// Which reading of cp.async.bulk.wait_group(.read) heddle encodes for TMA
// loads (issue 47 item 3, checker/DESIGN.md § Bulk async-groups and TMA
// loads): by default a bulk wait covers the tensormap reads of the thread's
// TMA loads issued before the groups it covers, as CUTLASS v4.0.0's mainloop
// tensormap rewrite (#2294: tma_desc_commit_group(); tma_desc_wait_group();)
// and DeepGEMM rely on; --ptx-strict keeps the ISA's letter and names it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

constexpr const char* kArgs = "out=buffer:16 T=buffer:64 map=tensormap:T,shape=4x4,box=4x1";
constexpr const char* kStrictWords = "under --ptx-strict it covers no mbarrier-completed load";

// A mainloop producer: a TMA load of box (0, 0) through `map`, then `between`,
// then the rewrite of the tensormap for the next tile (a generic write of its
// 128 bytes, racing with the load's tensormap read while that is in flight),
// then the mbarrier wait for the load; `after` runs last (reads sbuf).
std::string mainloop(const std::string& between, const std::string& after = "") {
  return ptx_entry("mainloop", fmt::format(R"(
  .shared .align 128 .b8 sbuf[16];
  .shared .align 8 .b64 bar;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 16;
  mov.u32 %r10, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sbuf], [%rd3, {{%r10, %r10}}], [bar];
  {}
  add.s64 %rd6, %rd2, 16;
  tensormap.replace.tile.global_address.global.b1024.b64 [%rd3], %rd6;
  fence.proxy.tensormap::generic.release.gpu;
$WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  {}
  ret;)",
                                           between, after),
                   {"out", "T", "map"});
}

const std::string kDrain = "cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group.read 0;";

RunResult run_mainloop(const std::string& text, bool strict) {
  PtxLaunch l{write_ptx(text), "mainloop", 1, kArgs};
  l.strict = strict;
  return run_ptx(l);
}

}  // namespace

TEST_CASE("ptx: commit_group; wait_group.read 0 before a tensormap rewrite covers the earlier TMA "
          "load by default", "[ptx][bulk][strict]") {
  RunResult r = run_mainloop(mainloop(kDrain), false);
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  // The full form covers the tensormap read too.
  r = run_mainloop(mainloop("cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group 0;"), false);
  CHECK(r.verdict == Verdict::ok);
}

TEST_CASE("ptx: under --ptx-strict the drain covers no TMA load, and the report says so",
          "[ptx][bulk][strict]") {
  std::string text = mainloop(kDrain);
  RunResult r = run_mainloop(text, true);
  REQUIRE(r.verdict == Verdict::race);
  std::string report = format_report(*r.bug);
  CHECK_THAT(report, Catch::Contains(kStrictWords));
  CHECK_THAT(report, Catch::Contains("PTX ISA 9.7.9.25.6.1"));
  CHECK_THAT(report, Catch::Contains(fmt::format("kernel.ptx:{}", line_of(text, "wait_group.read 0"))));
  CHECK_THAT(report, Catch::Contains("wait on mbarrier"));
}

TEST_CASE("ptx: a tensormap rewrite with no drain races under both readings",
          "[ptx][bulk][strict]") {
  for (bool strict : {false, true}) {
    CAPTURE(strict);
    RunResult r = run_mainloop(mainloop(""), strict);
    REQUIRE(r.verdict == Verdict::race);
    CHECK_THAT(r.bug->title, Catch::Contains("map"));
    CHECK_THAT(format_report(*r.bug), !Catch::Contains(kStrictWords));
  }
}

TEST_CASE("ptx: the drain covers only loads issued before the groups it waits for",
          "[ptx][bulk][strict]") {
  // No commit: the load is in no committed group, so wait_group.read 0 has nothing to wait for.
  RunResult r = run_mainloop(mainloop("cp.async.bulk.wait_group.read 0;"), false);
  REQUIRE(r.verdict == Verdict::race);
  // wait_group.read 1 leaves the load's group pending.
  r = run_mainloop(mainloop("cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group.read 1;"), false);
  REQUIRE(r.verdict == Verdict::race);
}

TEST_CASE("ptx: a bulk wait orders a TMA load's tensormap read, never its shared-memory write",
          "[ptx][bulk][strict]") {
  // Reading sbuf after the bulk wait but before the mbarrier wait races with the load's write.
  std::string text = ptx_entry("early", R"(
  .shared .align 128 .b8 sbuf[16];
  .shared .align 8 .b64 bar;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 16;
  mov.u32 %r10, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sbuf], [%rd3, {%r10, %r10}], [bar];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ld.shared.u32 %r1, [sbuf];
$WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $WAIT;
  ret;)",
                               {"out", "T", "map"});
  RunResult r = run_ptx({write_ptx(text), "early", 1, kArgs});
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("sbuf"));
}
