// The PTX front end on small hand-written PTX: lanes, divergence and
// reconvergence, shuffles, loops, atomics and barriers across warps; syntax
// errors and unsupported instructions with their line; the CLI's exit codes.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

// A PTX module with one entry `name(out)`: registers %p, %r, %rd declared,
// %rd1 = out and %r1 = %tid.x loaded, then `body`.
std::string entry(const std::string& name, const std::string& body) {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry {}(.param .u64 out_param)
{{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
{}
}}
)",
                     name, body);
}

// Odd lanes compute 3*tid, even lanes tid+100 (a divergent if/else); then
// every lane takes its neighbour's value (shfl.bfly 1) and stores it.
const char* kDiverge = R"(
  and.b32 %r2, %r1, 1;
  setp.eq.s32 %p1, %r2, 0;
  @%p1 bra $EVEN;
  mul.lo.s32 %r3, %r1, 3;
  bra.uni $JOIN;
$EVEN:
  add.s32 %r3, %r1, 100;
$JOIN:
  shfl.sync.bfly.b32 %r4|%p2, %r3, 1, 31, -1;
  mul.wide.u32 %rd3, %r1, 4;
  cvta.to.global.u64 %rd2, %rd1;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;)";

// Each lane loops tid times summing 0..tid-1 (lanes leave the loop at
// different trips), then stores the sum.
const char* kLoop = R"(
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
$LOOP:
  setp.ge.u32 %p1, %r3, %r1;
  @%p1 bra $DONE;
  add.s32 %r2, %r2, %r3;
  add.s32 %r3, %r3, 1;
  bra.uni $LOOP;
$DONE:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;)";

// Lane 0 and lane 1 of every warp add tid+1 to out[0] with atom.add.
const char* kAtomic = R"(
  and.b32 %r3, %r1, 31;
  setp.gt.u32 %p1, %r3, 1;
  @%p1 bra $DONE;
  add.s32 %r4, %r1, 1;
  atom.global.add.u32 %r2, [%rd1], %r4;
$DONE:
  ret;)";

// Warp 0 writes shared memory, every warp meets at bar.sync 0, warp 1 reads
// it; with `racy`, warp 1 reads before the barrier.
std::string handoff(bool racy) {
  const char* read = "@%p1 ld.shared.u32 %r5, [%r4];";
  return entry("handoff", fmt::format(R"(
  .shared .align 4 .b8 buf[128];
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  shl.b32 %r3, %r3, 2;
  mov.u32 %r4, buf;
  add.s32 %r4, %r4, %r3;
  setp.ne.s32 %p1, %r2, 0;
  @%p1 bra $SKIP;
  st.shared.u32 [%r4], %r1;
$SKIP:
  {}
  bar.sync 0;
  {}
  ret;)",
                                      racy ? read : "", racy ? "" : read));
}

// Each lane copies 4 bytes of global memory to shared memory with cp.async,
// commits, waits the group and reads them back; with `racy`, it reads first.
std::string cp_async_kernel(bool racy) {
  const char* read = "ld.shared.u32 %r5, [%r4];";
  return entry("copy", fmt::format(R"(
  .shared .align 4 .b8 buf[128];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, buf;
  add.s32 %r4, %r4, %r3;
  cvt.u64.u32 %rd2, %r3;
  add.s64 %rd3, %rd1, %rd2;
  cp.async.ca.shared.global [%r4], [%rd3], 4;
  cp.async.commit_group;
  {}
  cp.async.wait_group 0;
  {}
  ret;)",
                                   racy ? read : "", racy ? "" : read));
}

// Thread 0 of each CTA stores ctaid.x + 7 to out[ctaid.x].
const char* kCtaIds = R"(
  mov.u32 %r2, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $DONE;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  add.s32 %r3, %r2, 7;
  st.global.u32 [%rd3], %r3;
$DONE:
  ret;)";

// A TMA store through a __grid_constant__ CUtensorMap parameter, as nvcc
// emits it (mov of the param symbol, cvta.param); `fence` or not.
std::string grid_constant(bool fence) {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry gc(.param .align 64 .b8 gc_param_0[128], .param .u32 gc_param_1)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .shared .align 128 .b8 tile[256];
  mov.b64 %rd1, gc_param_0;
  ld.param.u32 %r1, [gc_param_1];
  mov.u32 %r2, %tid.x;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, tile;
  add.s32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r2;
  {}
  bar.sync 0;
  setp.ne.s32 %p1, %r2, 0;
  @%p1 bra $DONE;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r8, 0;
  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {{%r1, %r8}}], [%r4];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
$DONE:
  ret;
}}
)",
                     fence ? "fence.proxy.async.shared::cta;" : "");
}

}  // namespace

TEST_CASE("ptx: a divergent if/else reconverges before a shuffle", "[ptx]") {
  PtxLaunch l{write_ptx(entry("diverge", kDiverge)), "diverge", 8, "out=buffer:32"};
  std::vector<std::uint32_t> want;
  for (std::uint32_t lane = 0; lane < 8; ++lane) {
    std::uint32_t from = lane ^ 1;
    want.push_back(from % 2 == 0 ? from + 100 : 3 * from);
  }
  CHECK(final_out(l) == "out=" + u32_hex(want) + "\n");
}

TEST_CASE("ptx: an address offset written +-N (as nvcc does) is negative", "[ptx]") {
  PtxLaunch l{write_ptx(entry("neg", R"(
  cvta.to.global.u64 %rd2, %rd1;
  add.s64 %rd3, %rd2, 8;
  mov.u32 %r2, 7;
  st.global.u32 [%rd3+-8], %r2;
  mov.u32 %r3, 9;
  st.global.u32 [%rd3 - -4], %r3;
  ret;)")), "neg", 1, "out=buffer:16"};
  CHECK(final_out(l) == "out=" + u32_hex({7, 0, 0, 9}) + "\n");
}

TEST_CASE("ptx: lanes leave a loop after different trip counts", "[ptx]") {
  PtxLaunch l{write_ptx(entry("loop", kLoop)), "loop", 16, "out=buffer:64"};
  std::vector<std::uint32_t> want;
  for (std::uint32_t t = 0; t < 16; ++t) want.push_back(t * (t - 1) / 2 * (t > 0));
  CHECK(final_out(l) == "out=" + u32_hex(want) + "\n");
}

TEST_CASE("ptx: atom.add by two lanes of each of two warps, every order explored", "[ptx]") {
  PtxLaunch l{write_ptx(entry("atomic", kAtomic)), "atomic", 64, "out=buffer:4"};
  Outcomes o = outcomes(build_ptx(l), ptx_values(l), RunConfig{});
  CHECK(o.verdicts == std::set<std::string>{"ok"});
  CHECK(o.final_states == std::set<std::string>{"out=" + u32_hex({1 + 2 + 33 + 34}) + "\n"});
  CHECK(o.result.exhaustive);
  CHECK(o.result.stats.executions == 6);  // the orders of two pairs of conflicting atomics: C(4,2)
}

TEST_CASE("ptx: bar.sync orders shared memory across warps; without it, a race", "[ptx]") {
  PtxLaunch ok{write_ptx(handoff(false)), "handoff", 64, "out=buffer:4"};
  RunResult r = run_ptx(ok);
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  PtxLaunch racy{write_ptx(handoff(true)), "handoff", 64, "out=buffer:4"};
  r = run_ptx(racy);
  REQUIRE(r.verdict == Verdict::race);
  CHECK(r.bug->title.find("buf") != std::string::npos);
}

TEST_CASE("ptx: cp.async copies are waited by cp.async.wait_group; a read before is a race", "[ptx]") {
  RunResult r = run_ptx({write_ptx(cp_async_kernel(false)), "copy", 32, "out=buffer:128"});
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  r = run_ptx({write_ptx(cp_async_kernel(true)), "copy", 32, "out=buffer:128"});
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("buf"));
  CHECK_THAT(r.bug->accesses.at(0).op + r.bug->accesses.at(1).op, Catch::Contains("cp.async.write_smem"));
}

TEST_CASE("ptx: a grid of CTAs, each with its own shared memory and barriers", "[ptx]") {
  PtxLaunch ids{write_ptx(entry("ids", kCtaIds)), "ids", 32, "out=buffer:12", 3};
  CHECK(final_out(ids) == "out=" + u32_hex({7, 8, 9}) + "\n");
  PtxLaunch ok{write_ptx(handoff(false)), "handoff", 64, "out=buffer:4", 2};
  RunResult r = run_ptx(ok);
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  PtxLaunch racy{write_ptx(handoff(true)), "handoff", 64, "out=buffer:4", 2};
  r = run_ptx(racy);
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("buf@cta"));
  CHECK(r.bug->accesses.at(0).agent.substr(0, 4) == r.bug->accesses.at(1).agent.substr(0, 4));
}

TEST_CASE("ptx: an mbarrier used before mbarrier.init is a model error at its line", "[ptx]") {
  std::string text = entry("early", R"(
  .shared .align 8 .b8 bars[16];
  mov.u32 %r2, bars;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $DONE;
  mbarrier.arrive.shared::cta.b64 _, [%r2];
$DONE:
  ret;)");
  RunResult r = run_ptx({write_ptx(text), "early", 32, "out=buffer:4"});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("uses the mbarrier at bars[0] before mbarrier.init"));
  CHECK_THAT(format_report(*r.bug), Catch::Contains(fmt::format("kernel.ptx:{}", line_of(text, "mbarrier.arrive"))));
}

TEST_CASE("ptx: an mbarrier.init that no barrier orders before another warp's arrive races", "[ptx]") {
  auto kernel = [](bool ordered) {
    return entry("init", fmt::format(R"(
  .shared .align 8 .b8 bars[8];
  mov.u32 %r2, bars;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $INITED;
  mbarrier.init.shared::cta.b64 [%r2], 1;
$INITED:
  {}
  setp.ne.u32 %p2, %r1, 32;
  @%p2 bra $DONE;
  mbarrier.arrive.shared::cta.b64 _, [%r2];
$DONE:
  ret;)", ordered ? "bar.sync 0;" : ""));
  };
  RunResult r = run_ptx({write_ptx(kernel(true)), "init", 64, "out=buffer:4"});
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  r = run_ptx({write_ptx(kernel(false)), "init", 64, "out=buffer:4"});
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("bars bytes [0:8]"));
  CHECK(r.stats.executions == 1);
}

TEST_CASE("ptx: a __grid_constant__ tensormap parameter, with and without the proxy fence", "[ptx]") {
  const char* args = "tmap=tensormap:out,shape=128x1,box=64x1 c=u32:64";
  RunResult r = run_ptx({write_ptx(grid_constant(true)), "gc", 64, args});
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  r = run_ptx({write_ptx(grid_constant(false)), "gc", 64, args});
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("tile"));
}

TEST_CASE("ptx: a syntax error names the file, line and the column of the bad token", "[ptx]") {
  std::string bad = entry("k", "  mov.u32 %r2 %tid.x;\n  ret;");
  long line = line_of(bad, "mov.u32 %r2");
  PtxLaunch l{write_ptx(bad), "k", 32, ""};
  try {
    build_ptx(l);
    FAIL("a syntax error was accepted");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains(fmt::format("kernel.ptx:{}:15: PTX syntax error", line)));
    CHECK_THAT(e.what(), Catch::Contains("mov.u32 %r2 %tid.x;"));
  }
}

TEST_CASE("ptx: an unsupported instruction is named with its line; the CLI exits 2", "[ptx]") {
  std::string text = entry("k", "  tanh.approx.f32 %r2, %r1;\n  ret;");
  std::string path = write_ptx(text);
  CliResult r = cli(fmt::format("run --ptx {} --kernel k --block 32 --arg out=buffer:4", path));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains(fmt::format(":{}:3: unsupported PTX instruction "
                                                "`tanh.approx.f32`",
                                                line_of(text, "tanh"))));
  r = cli(fmt::format("run --ptx {} --kernel nope", path));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("has no kernel entry nope; its entries: k"));
}

TEST_CASE("ptx: launch arguments are checked against the kernel's parameters", "[ptx]") {
  std::string path = write_ptx(entry("atomic", kAtomic));
  CliResult r = cli(fmt::format("run --ptx {} --kernel atomic", path));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("takes 1 parameters; give one --arg for each"));
  r = cli(fmt::format("run --ptx {} --kernel atomic --arg out=bufer:4", path));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown kind bufer"));
  r = cli("run --kernel atomic");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--kernel works with --ptx only"));
  r = cli(fmt::format("run --ptx {} --kernel atomic --block 64 --arg out=buffer:4", path));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("verified"));
}
