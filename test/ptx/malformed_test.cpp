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

TEST_CASE("ptx: forms the interpreter cannot run are refused at load, naming them", "[ptx]") {
  for (const Bad& b :
       {Bad{"$L:\n$L:", "10:1: label $L is defined twice"},
        Bad{"  bar.arrive 1;", "9:3: `bar.arrive`: bar.arrive needs a thread count"},
        Bad{"  setp.xy.u32 %r3, %r1, %r2;", "the comparison .xy is not interpreted"},
        Bad{"  atom.global.nand.b32 %r1, [%rd1], %r2;", "this atomic operation is not interpreted"},
        Bad{"  atom.global.min.f32 %r1, [%rd1], %r2;", "a floating-point atomic other than add"},
        Bad{"  mul.wide.u64 %rd2, %rd1, %rd1;", ".wide doubles a 16- or 32-bit type"},
        Bad{"  rem.f32 %r1, %r2, %r3;", "this floating-point operation is not interpreted"},
        // (token-form mbarrier waits and 3d-5d TMA are interpreted now: test/ptx/cluster_test.cpp,
        // bulk_test.cpp)
        Bad{"  ld.param.u64 %rd2, [out_param+8];", "ld.param reads bytes [8:16] of parameter out_param, which has 8"},
        Bad{"  add.u32 %r1, [%rd1], 1;", "9:3: `add.u32`: operand 2 must be a register, a number or a name"},
        Bad{"  st.const.u32 [%rd1], %r1;", ".const memory is read-only"}})
    expect_rejected(b);
}

TEST_CASE("ptx: module variables and dynamic shared memory that cannot be laid out are refused", "[ptx]") {
  auto module = [](const char* decl, const char* body) {
    return write_ptx(fmt::format(".version 9.0\n.target sm_90a\n.address_size 64\n{}\n"
                                 ".visible .entry k(.param .u64 out_param)\n{{\n  .reg .b32 %r<3>;\n"
                                 "{}\n  ret;\n}}\n",
                                 decl, body));
  };
  struct Case {
    std::string path;
    const char* expect;
  };
  for (const Case& c :
       {Case{module(".extern .global .align 4 .b8 table[16];", ""), "4:1: .global variable table is declared .extern"},
        Case{module(".global .align 4 .u32 t[2] = {1, 2, 3};", ""), "variable t has 2 elements but its initializer more"},
        Case{module(".global .align 8 .u64 p = generic(q);", ""), "the initializer value `generic(q)` is not a number"},
        Case{module(".extern .shared .align 16 .b8 smem[];", "  mov.u32 %r1, smem;"),
             "smem is dynamic shared memory (extern .shared, line 4): give its size in bytes with --smem"}}) {
    INFO(c.expect);
    try {
      build_ptx(PtxLaunch{c.path, "k", 32, "out_param=buffer:8"});
      FAIL("accepted");
    } catch (const UsageError& e) {
      CHECK_THAT(e.what(), Catch::Contains(c.expect));
    }
  }
}

TEST_CASE("ptx: launch arguments that do not fit their parameters are usage errors (exit 2)", "[ptx]") {
  const std::string two = write_ptx(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  ret;
}
)");
  struct Case {
    const char* args;
    const char* expect;
  };
  for (const Case& c :
       {Case{"--arg out=buffer:8 --arg n=u32:4294967296", "--arg n: 4294967296 is not a u32 value"},
        Case{"--arg out=buffer:8 --arg n=u64:4294967296", "4294967296 does not fit the parameter's 4 bytes (parameter n of kernel k"},
        Case{"--arg out=buffer:8 --arg n=i32:-2147483649", "is not a i32 value"},
        Case{"--arg out=u32:4294967296 --arg n=u32:1", "--arg out: 4294967296 is not a u32 value"},
        Case{"--arg otu=buffer:8 --arg n=u32:1", "--arg otu: parameter 1 of kernel k is named out ("},
        Case{"--arg n=u32:1 --arg out=buffer:8", "--arg n is given as argument 1 but names parameter 2"},
        Case{"--arg out=buffer:8 --arg n=buffer:8", "a pointer needs a 64-bit parameter"},
        Case{"--arg out=tensormap:t,shape=0x0,box=1x1 --arg n=u32:1", "has a dimension of 0; each must be 1 to 2^31"},
        Case{"--arg out=tensormap:t,shape=8x8,box=0x8 --arg n=u32:1", "has a dimension of 0"},
        Case{"--arg out=tensormap:t,shape=8x8,box=8x8,elem=3 --arg n=u32:1", "elem=3 is not an element size"}}) {
    INFO(c.args);
    CliResult r = cli(fmt::format("run --ptx {} --kernel k {}", two, c.args));
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.expect));
  }
  CHECK(cli(fmt::format("run --ptx {} --kernel k --arg out=buffer:8 --arg n=u32:4294967295", two)).code == 0);
  CHECK(cli(fmt::format("run --ptx {} --kernel k --arg out=buffer:8 --arg n=i32:-1", two)).code == 0);
}
