// PTX the fuzzer (test/fuzz/fuzz_ptx.cpp) made that once got past the
// decoder and failed inside the interpreter: each is now a usage error at
// its line, before any execution.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "checker/engine/errors.hpp"
#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {
// Entry `k(out)` whose body (line 9 on) is `body`.
std::string kernel_with(const std::string& body) {
  return fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out_param)
{{
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out_param];
{}
  ret;
}}
)",
                     body);
}

struct Bad {
  const char* body;
  const char* expect;  // in the UsageError building the kernel throws
};

void expect_rejected(const Bad& b) {
  INFO(b.body);
  PtxLaunch l{write_ptx(kernel_with(b.body)), "k", 32, "out_param=buffer:8"};
  try {
    build_ptx(l);
    FAIL("accepted");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains(b.expect));
  }
}
}  // namespace

TEST_CASE("ptx: an instruction with too few operands is a usage error at its line", "[ptx]") {
  for (const Bad& b : {Bad{"  mov.u32 %r1;", "9:3: `mov.u32` takes 2 operands, 1 given"},
                       Bad{"  add.s32 %r1, %r2;", "9:3: `add.s32` takes 3 operands, 2 given"},
                       Bad{"  ld.global.v2.u32 %r1, [%rd1];", "9:3: `ld.global.v2.u32` moves a vector of 2"},
                       Bad{"  st.global.u32 [%rd1];", "9:3: `st.global.u32` takes 2 operands, 1 given"}})
    expect_rejected(b);
  std::string path = write_ptx(kernel_with("  mov.u32 %r1;"));
  CHECK(cli(fmt::format("run --ptx {} --kernel k --arg out_param=buffer:8", path)).code == 2);
}

TEST_CASE("ptx: numbers, sizes and nesting past what heddle models are usage errors", "[ptx]") {
  const std::string deep = std::string(30000, '{') + std::string(30000, '}');
  for (const Bad& b : {Bad{"  mov.u32 %r1, 99999999999999999999;", "kernel.ptx: the integer 99999999999999999999 does not fit"},
                       Bad{"  .reg .b32 %q<99999999>;", "99999999 is not a count from 0 to 1048576"},
                       Bad{"  .reg .b32 %q<20000>;", "9:13: kernel k declares more than 16384 registers"},
                       Bad{"  .shared .b8 big[1048576];", "shared variable big ends at byte 1048704"},
                       // 30,000 nested blocks overflowed the parser's stack (a segfault)
                       Bad{deep.c_str(), "9:64: braces nested more than 64 deep"}})
    expect_rejected(b);
}
