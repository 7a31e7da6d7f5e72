// Device functions (.func, call/ret with .param blocks, recursion), local
// memory (nvcc's __local_depot through %SP/%SPL, ld/st.local, generic
// addresses into it), and the vprintf/__assertfail builtins.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

// fact(n) calls itself; each lane computes fact(tid % 8) and adds a value it
// kept in its local memory: tid (odd lanes: tid + 100), read back by index.
const char* kCalls = R"(.version 9.0
.target sm_90a
.address_size 64
.func  (.param .b32 func_retval0) fact(.param .b32 fact_param_0)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  ld.param.u32 %r1, [fact_param_0];
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra $BASE;
  add.u32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r2;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r3, [retval0];
  }
  mul.lo.u32 %r4, %r3, %r1;
  st.param.b32 [func_retval0], %r4;
  ret;
$BASE:
  mov.u32 %r4, 1;
  st.param.b32 [func_retval0], %r4;
  ret;
}
.visible .entry k(.param .u64 out_param)
{
  .local .align 8 .b8 __local_depot0[16];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 7;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r2;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r3, [retval0];
  }
  st.u32 [%SP], %r1;
  add.u32 %r4, %r1, 100;
  st.local.u32 [%SPL+4], %r4;
  and.b32 %r5, %r1, 1;
  mul.wide.u32 %rd2, %r5, 4;
  add.u64 %rd3, %SPL, %rd2;
  ld.local.u32 %r6, [%rd3];
  add.u32 %r7, %r3, %r6;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r7;
  ret;
}
)";

// printf("x=%d y=%.1f\n", tid, tid * 0.5) from every thread, then
// assert(x < LIMIT) as nvcc compiles them (k.cu line 12).
std::string printing(int limit) {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.extern .func  (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.extern .func __assertfail(.param .b64 __assertfail_param_0, .param .b64 __assertfail_param_1,
    .param .b32 __assertfail_param_2, .param .b64 __assertfail_param_3, .param .b64 __assertfail_param_4) .noreturn;
.global .align 1 .b8 $str[13] = {{120, 61, 37, 100, 32, 121, 61, 37, 46, 49, 102, 10, 0}};
.global .align 1 .b8 $str1[7] = {{120, 32, 60, 32, 51, 50, 0}};
.global .align 1 .b8 $str2[5] = {{107, 46, 99, 117, 0}};
.global .align 1 .b8 $str3[2] = {{107, 0}};
.visible .entry k(.param .u64 out_param)
{{
  .local .align 8 .b8 __local_depot0[16];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f64 %fd<3>;
  .reg .b64 %rd<12>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  mov.u32 %r1, %tid.x;
  cvt.rn.f64.u32 %fd1, %r1;
  mul.f64 %fd2, %fd1, 0d3FE0000000000000;
  st.local.u32 [%SPL], %r1;
  st.local.f64 [%SPL+8], %fd2;
  mov.u64 %rd2, $str;
  cvta.global.u64 %rd3, %rd2;
  add.u64 %rd4, %SP, 0;
  {{
  .param .b64 param0;
  st.param.b64 [param0], %rd3;
  .param .b64 param1;
  st.param.b64 [param1], %rd4;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r2, [retval0];
  }}
  setp.lt.u32 %p1, %r1, {};
  @%p1 bra $OK;
  mov.u64 %rd5, $str1;
  cvta.global.u64 %rd6, %rd5;
  mov.u64 %rd7, $str2;
  cvta.global.u64 %rd8, %rd7;
  mov.u64 %rd9, $str3;
  cvta.global.u64 %rd10, %rd9;
  mov.u32 %r3, 12;
  mov.u64 %rd11, 1;
  {{
  .param .b64 param0;
  st.param.b64 [param0], %rd6;
  .param .b64 param1;
  st.param.b64 [param1], %rd8;
  .param .b32 param2;
  st.param.b32 [param2], %r3;
  .param .b64 param3;
  st.param.b64 [param3], %rd10;
  .param .b64 param4;
  st.param.b64 [param4], %rd11;
  call.uni __assertfail, (param0, param1, param2, param3, param4);
  }}
$OK:
  ret;
}}
)",
                     limit);
}

std::uint32_t factorial(std::uint32_t n) { return n < 2 ? 1 : n * factorial(n - 1); }

}  // namespace

TEST_CASE("ptx: a recursive .func and local memory, each lane its own frames", "[ptx][calls]") {
  PtxLaunch l{write_ptx(kCalls), "k", 16, "out=buffer:64"};
  std::vector<std::uint32_t> want;
  for (std::uint32_t t = 0; t < 16; ++t) want.push_back(factorial(t % 8) + (t % 2 == 1 ? t + 100 : t));
  CHECK(final_out(l) == "out=" + u32_hex(want) + "\n");
}

TEST_CASE("ptx: printf prints each thread's line; a failed assert is a failed check at its line", "[ptx][calls]") {
  std::string ok = printing(32);
  RunResult r = run_ptx(PtxLaunch{write_ptx(ok), "k", 4, "out=buffer:4"});
  CHECK(r.verdict == Verdict::ok);
  for (int t = 0; t < 4; ++t) {
    std::string line = fmt::format("printf [cta 0 warp 0 lane {}] x={} y={:.1f}", t, t, t * 0.5);
    CHECK(std::find(r.notes.begin(), r.notes.end(), line) != r.notes.end());
  }
  std::string bad = printing(2);
  r = run_ptx(PtxLaunch{write_ptx(bad), "k", 4, "out=buffer:4"});
  REQUIRE(r.verdict == Verdict::assertion);
  CHECK_THAT(r.bug->title, Catch::Contains("assertion `x < 32` failed (k.cu:12, in k; cta 0 warp 0 lane 2)"));
  CHECK_THAT(format_report(*r.bug), Catch::Contains(fmt::format("kernel.ptx:{}", line_of(bad, "call.uni __assertfail"))));
}

TEST_CASE("ptx: calls the interpreter cannot make are refused at load", "[ptx][calls]") {
  struct Case {
    std::string text;
    const char* expect;
  };
  const std::string head = ".version 9.0\n.target sm_90a\n.address_size 64\n";
  for (const Case& c :
       {Case{head + ".extern .func ext(.param .b32 a);\n.visible .entry k()\n{\n  .param .b32 p;\n  call.uni ext, (p);\n  ret;\n}\n",
             "8:3: call of ext, which is declared without a body"},
        Case{head + ".visible .entry k()\n{\n  call.uni nowhere;\n  ret;\n}\n", "6:3: call of nowhere, which is not a .func"},
        Case{head + ".func f(.param .b32 a)\n{\n  ret;\n}\n.visible .entry k()\n{\n  call.uni f;\n  ret;\n}\n",
             "10:3: call of f with 0 arguments: it takes 1"},
        Case{head + ".visible .entry k()\n{\n  .param .b32 p;\n  st.param.b64 [p], 1;\n  ret;\n}\n",
             "7:3: `st.param.b64` accesses bytes [0:8] of p, which has 4"}}) {
    INFO(c.text);
    try {
      build_ptx(PtxLaunch{write_ptx(c.text), "k", 32, ""});
      FAIL("accepted");
    } catch (const UsageError& e) {
      CHECK_THAT(e.what(), Catch::Contains(c.expect));
    }
  }
}
