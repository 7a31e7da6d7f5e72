// wgmma in the PTX front end: the values one mma_async computes from its
// descriptors (two layouts), the mainloop of kernels/cuda/wgmma_mainloop.cu
// against its hand-written model (kernels/cutlass/wgmma_mainloop, the
// oracle), the in-flight race's counterexample replayed from its file, the
// accumulator that may not be touched before the wait, and the forms that
// are refused at load time.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "checker/engine/errors.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

const char* kMainloopArgs =
    "desc_a=tensormap:A,shape=1024x3,box=1024x1,elem=2 desc_b=tensormap:B,shape=128x3,box=128x1,elem=2 "
    "out=buffer:2048 k_tiles=u32:3";

PtxLaunch mainloop(const char* entry, int warps) {
  return {ptx_data("wgmma_mainloop.ptx"), entry, 32 * warps, kMainloopArgs};
}

long line_in(const std::string& text, const std::string& marker) {
  return 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find(marker)), '\n');
}

// One warp issues an m64n8k16 mma (scale-d 0) on
// zeroed shared memory, commits, then `body` (which may touch %f1 early),
// waits and stores %f1.
std::string one_mma(const std::string& body, const std::string& mma_tail = "1, 1, 0, 0") {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry acc(.param .u64 out_param)
{{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<6>;
  .shared .align 1024 .b8 sA[2048];
  .shared .align 1024 .b8 sB[256];
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, sA;
  shr.u32 %r2, %r1, 4;
  cvt.u64.u32 %rd2, %r2;
  or.b64 %rd2, %rd2, 68720001024;
  mov.u32 %r1, sB;
  shr.u32 %r2, %r1, 4;
  cvt.u64.u32 %rd3, %r2;
  or.b64 %rd3, %rd3, 68720001024;
  mov.f32 %f1, 0f00000000;
  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00000000;
  mov.f32 %f4, 0f00000000;
  setp.ne.u32 %p1, %r1, %r1;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%f1, %f2, %f3, %f4}}, %rd2, %rd3, %p1, {};
  wgmma.commit_group.sync.aligned;
{}
  wgmma.wait_group.sync.aligned 0;
  cvta.to.global.u64 %rd4, %rd1;
  st.global.f32 [%rd4], %f1;
  ret;
}}
)",
                     mma_tail, body);
}

}  // namespace

TEST_CASE("ptx wgmma: an mma computes D from the descriptors' layout, unswizzled and 128B-swizzled", "[ptx][wgmma]") {
  // The kernel compares every accumulator with plain arithmetic and counts
  // mismatches in `bad`; its writes follow the CUTLASS layouts, not the
  // address arithmetic of models/ptx/wgmma.cpp.
  for (const char* entry : {"wgmma_tile_interleave", "wgmma_tile_swizzle128"}) {
    INFO(entry);
    PtxLaunch l{ptx_data("wgmma_tile.ptx"), entry, 128, "out=buffer:2048 bad=buffer:4"};
    Outcomes o = outcomes(build_ptx(l), ptx_values(l), RunConfig{});
    CHECK(o.verdicts == std::set<std::string>{"ok"});
    REQUIRE(o.final_states.size() == 1);
    CHECK_THAT(*o.final_states.begin(), Catch::Contains("bad=00000000\n"));
  }
}

TEST_CASE("ptx wgmma: the mainloop verifies at 2 to 5 warps, as its CUTLASS model", "[ptx][wgmma]") {
  for (int warps : {2, 3, 5}) {
    INFO(warps << " warps");
    RunResult r = run_ptx(mainloop("wgmma_correct", warps));
    CHECK(r.verdict == Verdict::ok);
    CHECK(r.exhaustive);
  }
  CHECK(run("cutlass/wgmma_mainloop", {{"variant", "correct"}}).verdict == Verdict::ok);
}

TEST_CASE("ptx wgmma: releasing the stage of an mma in flight races with the next TMA load", "[ptx][wgmma]") {
  std::string cu = source_line("kernels/cuda/wgmma_mainloop.cu", "wgmma_m64n8k16(d, wgmma_desc(sA[s]");
  std::string load = source_line("kernels/cuda/wgmma_mainloop.cu", "tma_load_2d(sA[s]");
  for (int warps : {2, 3, 5}) {
    INFO(warps << " warps");
    RunResult r = run_ptx(mainloop("wgmma_release_in_flight", warps));
    REQUIRE(r.verdict == Verdict::race);
    CHECK(r.stats.executions == 1);
    REQUIRE(r.bug->accesses.size() == 2);
    std::string both = r.bug->accesses[0].at + " " + r.bug->accesses[1].at;
    CHECK_THAT(both, Catch::Contains(cu + " via wgmma_mainloop.ptx:"));
    CHECK_THAT(both, Catch::Contains(load + " via wgmma_mainloop.ptx:"));
  }
  CHECK(run("cutlass/wgmma_mainloop", {{"variant", "release_in_flight"}}).verdict == Verdict::race);
}

TEST_CASE("ptx wgmma: heddle run --ptx writes the in-flight race's counterexample, and replay reproduces it", "[ptx][wgmma]") {
  std::string dir = temp_dir();
  // Each value of the launch as an --arg, as kernels_test.cpp spells it.
  std::string args = std::regex_replace(kMainloopArgs, std::regex("(^| )"), "$1--arg ");
  CliResult r = cli(fmt::format("run -q --ptx {} --kernel wgmma_release_in_flight --block 96 --out {}/cex.json {}",
                                ptx_data("wgmma_mainloop.ptx"), dir, args));
  REQUIRE(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("race: data race on sA bytes [0:2048]"));
  CliResult replayed = cli(fmt::format("replay {}/cex.json", dir));
  CHECK(replayed.code == 1);
  CHECK_THAT(replayed.out, Catch::Contains("race: data race on sA bytes [0:2048]"));
  // The same two accesses, at the same lines, as the run reported.
  std::string mma = source_line("kernels/cuda/wgmma_mainloop.cu", "wgmma_m64n8k16(d, wgmma_desc(sA[s]");
  std::string load = source_line("kernels/cuda/wgmma_mainloop.cu", "tma_load_2d(sA[s]");
  for (const std::string& at : {mma, load}) {
    CHECK_THAT(r.out, Catch::Contains(at + " via wgmma_mainloop.ptx:"));
    CHECK_THAT(replayed.out, Catch::Contains(at + " via wgmma_mainloop.ptx:"));
  }
  CHECK(replayed.err.find("warning") == std::string::npos);
}

TEST_CASE("ptx wgmma: an accumulator touched before wgmma.wait_group is a model error at its line", "[ptx][wgmma]") {
  std::string early = one_mma("  mov.f32 %f5, %f2;");
  RunResult r = run_ptx({write_ptx(early), "acc", 32, "out=buffer:4"});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("uses %f2, an accumulator register of the wgmma.mma_async "
                                           "at PTX line " + std::to_string(line_in(early, "wgmma.mma_async"))));
  CHECK_THAT(format_report(*r.bug), Catch::Contains(fmt::format("kernel.ptx:{}", line_in(early, "mov.f32 %f5"))));
  RunResult fine = run_ptx({write_ptx(one_mma("  mov.f32 %f5, 0f3f800000;")), "acc", 32, "out=buffer:4"});
  CHECK(fine.verdict == Verdict::ok);
}

TEST_CASE("ptx wgmma: forms the interpreter does not run are refused at load time", "[ptx][wgmma]") {
  struct Bad {
    std::string text, why;
  };
  std::vector<Bad> cases = {
      {one_mma("", "1, 1, 1, 0"), "only K-major operands"},
      {one_mma("", "1, 2, 0, 0"), "imm-scale-a and imm-scale-b must be the immediates 1 or -1"},
  };
  std::string m64n16 = one_mma("");
  m64n16.replace(m64n16.find("m64n8k16"), 8, "m64n16k16");
  cases.push_back({m64n16, "is a vector of 8 registers"});
  for (const Bad& b : cases) {
    INFO(b.why);
    CliResult r = cli(fmt::format("run --ptx {} --kernel acc --block 32 --arg out=buffer:4", write_ptx(b.text)));
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(fmt::format(":{}:", line_in(b.text, "wgmma.mma_async"))));
    CHECK_THAT(r.err, Catch::Contains(b.why));
  }
}
