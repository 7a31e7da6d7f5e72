// Hostile PTX that used to crash heddle or pass as "verified" (issue 51,
// items 1 and 4; issue 54, item 5): each is now a model error at its PTX
// line, or the value the ISA defines.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

// Entry `k(out)`: %rd1 = out, %r1 = %tid.x, %r2 = the address of the
// 16-byte shared array `bars`; thread 0 runs `body`.
std::string kernel(const std::string& body) {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out_param)
{{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  .shared .align 8 .b8 bars[16];
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bars;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $DONE;
{}
$DONE:
  ret;
}}
)",
                     body);
}

// Runs `body` and expects a model error whose title holds `title`, reported
// at the line of `marker`.
void expect_model_error(const std::string& body, const std::string& marker, const std::string& title) {
  INFO(body);
  std::string text = kernel(body);
  RunResult r = run_ptx(PtxLaunch{write_ptx(text), "k", 32, "out=buffer:64"});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK_THAT(r.bug->title, Catch::Contains(title));
  CHECK_THAT(format_report(*r.bug), Catch::Contains(fmt::format("kernel.ptx:{}", line_of(text, marker))));
}

}  // namespace

TEST_CASE("ptx: an address near 2^64 is out of bounds, not a wrapped access (no SIGSEGV)", "[ptx][hostile]") {
  expect_model_error("  mov.u64 %rd2, -4;\n  ld.global.u32 %r3, [%rd2];", "ld.global",
                     "unmapped global address 0xfffffffffffffffc");
  expect_model_error("  mov.u64 %rd2, -4;\n  ld.u32 %r3, [%rd2];", "ld.u32", "0xfffffffffffffffc");
  expect_model_error("  mov.u64 %rd2, -4;\n  st.shared.u32 [%rd2], %r1;", "st.shared", "unmapped shared address");
  expect_model_error("  mov.u64 %rd2, 4294967304;\n  mbarrier.init.shared::cta.b64 [%rd2], 1;", "mbarrier.init",
                     "past the CTA's");
}

TEST_CASE("ptx: mbarrier counts outside the ISA's range and misaligned mbarriers are model errors", "[ptx][hostile]") {
  expect_model_error("  mbarrier.init.shared::cta.b64 [%r2], 1048576;", "mbarrier.init", "with count 1048576: the count must be 1 to 1048575");
  expect_model_error("  mbarrier.init.shared::cta.b64 [%r2], -1;", "mbarrier.init", "with count -1");
  expect_model_error("  mbarrier.init.shared::cta.b64 [%r2], 0;", "mbarrier.init", "with count 0");
  expect_model_error("  mbarrier.init.shared::cta.b64 [%r2+4], 1;", "mbarrier.init", "at shared address 0x84 is not 8-byte aligned");
  // init 1, then 5 arrivals at once: the pending count would underflow.
  expect_model_error("  mbarrier.init.shared::cta.b64 [%r2], 1;\n  mbarrier.arrive.shared::cta.b64 %rd2, [%r2], 5;",
                     "mbarrier.arrive", "arrives 5 times on bars[0], whose phase needs 1 more arrivals");
  // A count the phase needs is fine: init 5, arrive 5 completes the phase.
  RunResult r = run_ptx(PtxLaunch{write_ptx(kernel("  mbarrier.init.shared::cta.b64 [%r2], 5;\n"
                                                   "  mbarrier.arrive.shared::cta.b64 %rd2, [%r2], 5;\n"
                                                   "  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;")),
                                  "k", 32, "out=buffer:64"});
  CHECK(r.verdict == Verdict::ok);
}

TEST_CASE("ptx: INT64_MIN / -1 and -INT64_MIN wrap as the hardware does", "[ptx][hostile]") {
  std::string body = R"(  mov.u64 %rd2, 0x8000000000000000;
  div.s64 %rd3, %rd2, -1;
  st.global.u64 [%rd1], %rd3;
  rem.s64 %rd3, %rd2, -1;
  st.global.u64 [%rd1+8], %rd3;
  neg.s64 %rd3, %rd2;
  st.global.u64 [%rd1+16], %rd3;
  abs.s64 %rd3, %rd2;
  st.global.u64 [%rd1+24], %rd3;
  mov.u32 %r3, 0x80000000;
  div.s32 %r4, %r3, -1;
  st.global.u32 [%rd1+32], %r4;)";
  PtxLaunch l{write_ptx(kernel(body)), "k", 1, "out=buffer:36"};
  // Two's complement: -(-2^63) is -2^63 again, the remainder 0; 32-bit likewise.
  const std::uint32_t lo = 0, hi = 0x80000000u;
  CHECK(final_out(l) == "out=" + u32_hex({lo, hi, 0, 0, lo, hi, lo, hi, hi}) + "\n");
}

TEST_CASE("ptx: brkpt and trap stop the kernel at their line; brkpt's report names NDEBUG", "[ptx][hostile]") {
  // CUTLASS's debug checks (NVIDIA/cutlass#2126: a producer warp calls
  // consumer_wait) compile to brkpt without -DNDEBUG; the report says so.
  expect_model_error("  brkpt;", "brkpt", "a debug-only check failed");
  expect_model_error("  brkpt;", "brkpt", "NDEBUG");
  expect_model_error("  trap;", "trap", "the kernel aborts here");
}

TEST_CASE("ptx: a tensormap acquire fence on a null range orders nothing and is no fault", "[ptx][hostile]") {
  // CUTLASS 3.8's epilogue: warps 1-3 of a consumer warp group fence a null
  // tensormap pointer (store_init gives only warp 0 one).
  RunResult r = run_ptx(PtxLaunch{write_ptx(kernel("  mov.u64 %rd2, 0;\n"
                                                   "  fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;")),
                                  "k", 32, "out=buffer:64"});
  INFO((r.bug ? format_report(*r.bug) : std::string()));
  CHECK(r.verdict == Verdict::ok);
}
