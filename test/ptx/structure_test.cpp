// Program structure beyond one kernel body: module-scope .global/.const
// variables with initializers (PTX ISA 5.4) and dynamic shared memory
// sized by the launch (--smem).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

const char* kGlobals = R"(.version 9.0
.target sm_90a
.address_size 64
.global .align 4 .u32 table[4] = {7, 0x10, -1, 0f3F800000};
.const .align 8 .b64 seed = 12345;
.visible .global .align 4 .u32 counter;
.visible .entry k(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r2, %tid.x;
  and.b32 %r4, %r2, 31;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra $DONE;
  atom.global.add.u32 %r3, [counter], 5;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra $DONE;
  mov.u64 %rd2, table;
  ld.global.u32 %r1, [%rd2+8];
  st.global.u32 [%rd1], %r1;
  ld.global.u32 %r1, [table+12];
  st.global.u32 [%rd1+4], %r1;
  ld.const.u64 %rd3, [seed];
  st.global.u64 [%rd1+8], %rd3;
$DONE:
  ret;
}
)";

// Warp 0 writes its lanes' tids to smem, a barrier, warp 1 reads them back
// into out; thread 0 also stores smem's shared address to out[32].
std::string dynamic_smem(bool barrier) {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 out_param)
{{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 buf[40];
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, smem;
  add.u32 %r5, %r4, %r3;
  setp.gt.u32 %p1, %r1, 31;
  @%p1 bra $READ;
  st.shared.u32 [%r5], %r1;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $READ;
  st.global.u32 [%rd1+128], %r4;
$READ:
  {}
  @!%p1 bra $DONE;
  ld.shared.u32 %r6, [%r5];
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
$DONE:
  ret;
}}
)",
                     barrier ? "bar.sync 0;" : "");
}

}  // namespace

TEST_CASE("ptx: module .global and .const variables hold their initializers", "[ptx][structure]") {
  PtxLaunch l{write_ptx(kGlobals), "k", 64, "out=buffer:16"};
  std::string state = final_out(l);
  // table[2] = -1 as a u32, table[3] = the bits of 1.0f, seed = 12345 as a u64.
  CHECK_THAT(state, Catch::Contains("out=" + u32_hex({0xffffffffu, 0x3f800000u, 12345u, 0}) + "\n"));
  // counter: thread 0 of each of the two warps added 5 (10 = 0x0a), little-endian.
  CHECK_THAT(state, Catch::Contains("counter=0a000000"));
  CHECK_THAT(state, Catch::Contains("table=07000000" "10000000" "ffffffff" "0000803f"));
}

TEST_CASE("ptx: dynamic shared memory takes the launch's --smem size, after the static variables", "[ptx][structure]") {
  PtxLaunch ok{write_ptx(dynamic_smem(true)), "k", 64, "out=buffer:132"};
  ok.smem = 128;
  std::vector<std::uint32_t> want;
  for (std::uint32_t t = 0; t < 32; ++t) want.push_back(t);
  // buf is at 128 (the first shared byte heddle hands out) and ends at 168;
  // smem follows at the next multiple of 1024 (decode.cpp: CUDA code takes
  // dynamic shared memory as aligned to the 128-byte swizzle's period), 1024.
  want.push_back(1024);
  // A buffer over 64 bytes is observed as the FNV-1a hash of its bytes (launch.cpp).
  std::string hex = u32_hex(want);
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < hex.size(); i += 2) h = (h ^ std::stoul(hex.substr(i, 2), nullptr, 16)) * 1099511628211ull;
  CHECK(final_out(ok) == fmt::format("out={:016x}\n", h));
  PtxLaunch racy{write_ptx(dynamic_smem(false)), "k", 64, "out=buffer:132"};
  racy.smem = 128;
  RunResult r = run_ptx(racy);
  REQUIRE(r.verdict == Verdict::race);
  CHECK_THAT(r.bug->title, Catch::Contains("smem"));
  // 64 bytes do not hold 32 lanes' words: an out-of-bounds access, not a silent one.
  PtxLaunch small{write_ptx(dynamic_smem(true)), "k", 64, "out=buffer:132"};
  small.smem = 64;
  r = run_ptx(small);
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains("unmapped shared address"));
  CliResult c = cli(fmt::format("run --ptx {} --kernel k --block 64 --arg out=buffer:132 --smem 128", ok.file));
  CHECK(c.code == 0);
  c = cli(fmt::format("run --ptx {} --kernel k --block 64 --arg out=buffer:132 --smem lots", ok.file));
  CHECK(c.code == 2);
  CHECK_THAT(c.err, Catch::Contains("--smem lots: expected a number of bytes"));
}

TEST_CASE("ptx: a file without -lineinfo or for another target than sm_90a gets a warning", "[ptx][structure]") {
  std::string path = write_ptx(kGlobals);
  CliResult r = cli(fmt::format("run --ptx {} --kernel k --block 64 --arg out=buffer:16", path));
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("warning: " + path + ": kernel k has no .loc lines"));
  CHECK_THAT(r.err, !Catch::Contains("heddle models Hopper"));
  std::string old = kGlobals;
  old.replace(old.find("sm_90a"), 6, "sm_80");
  r = cli(fmt::format("run --ptx {} --kernel k --block 64 --arg out=buffer:16", write_ptx(old)));
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("the PTX targets `sm_80`, heddle models Hopper"));
}

TEST_CASE("ptx: the run's header shows the launch shape, defaults filled in", "[ptx][structure]") {
  std::string path = write_ptx(kGlobals);
  CliResult r = cli(fmt::format("run --ptx {} --kernel k --block 64 --arg out=buffer:16", path));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("note: launch: grid 1x1x1, block 64x1x1 (2 warps each), "
                                    "cluster 1x1x1\n"));
  r = cli(fmt::format("run --ptx {} --kernel k --grid 2 --block 32,2 --arg out=buffer:16", path));
  CHECK_THAT(r.out, Catch::Contains("note: launch: grid 2x1x1, block 32x2x1 (2 warps each)"));
}

TEST_CASE("ptx: a struct parameter by value: ld.param.v2, offsets, and its address", "[ptx][structure]") {
  const char* text = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry s(.param .align 8 .b8 s_param_0[16], .param .u64 s_param_1)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  ld.param.v2.u32 {%r1, %r2}, [s_param_0];
  ld.param.u64 %rd1, [s_param_0+8];
  ld.param.u64 %rd2, [s_param_1];
  mov.u64 %rd3, s_param_0;
  cvta.param.u64 %rd4, %rd3;
  ld.u32 %r3, [%rd4+4];
  ld.param.u32 %r4, [%rd3];
  add.u32 %r5, %r1, %r2;
  st.global.u32 [%rd2], %r5;
  st.global.u32 [%rd2+4], %r3;
  st.global.u32 [%rd2+8], %r4;
  st.global.u64 [%rd2+16], %rd1;
  ret;
}
)";
  // struct { u32 a = 5; u32 b = 7; u64 c = 0x0123456789abcdef; }, little-endian.
  PtxLaunch l{write_ptx(text), "s", 1, "p=bytes:0500000007000000efcdab8967452301 out=buffer:24"};
  CHECK(final_out(l) == "out=" + u32_hex({12, 7, 5, 0, 0x89abcdefu, 0x01234567u}) + "\n");
  CliResult r = cli(fmt::format("run --ptx {} --kernel s --block 1 --arg p=bytes:{} --arg out=buffer:24", l.file,
                                std::string(34, '0')));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("17 bytes given, the parameter has 16"));
  r = cli(fmt::format("run --ptx {} --kernel s --block 1 --arg p=bytes:xyz --arg out=buffer:24", l.file));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("bytes:HEX takes 1 to 4096 bytes"));
}
