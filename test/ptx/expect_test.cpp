// PTX launches with input data and expected outputs (issue 50.13):
// --arg NAME=buffer:FILE fills a buffer, --expect NAME=FILE[,tol=X] checks
// it at kernel exit, and mistakes in either are usage errors.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

// Lane 0 adds 1 to the input's first u32 and copies its second word (a float32) to out.
const char* kIncrement = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry inc(.param .u64 in_param, .param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [in_param];
  ld.param.u64 %rd2, [out_param];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $DONE;
  ld.global.u32 %r2, [%rd1];
  add.u32 %r3, %r2, 1;
  st.global.u32 [%rd2], %r3;
  ld.global.u32 %r4, [%rd1+4];
  st.global.u32 [%rd2+4], %r4;
$DONE:
  ret;
}
)";

// Writes a u32 and a float32 into a file of 8 bytes and returns its path.
std::string words(const std::string& dir, const std::string& name, std::uint32_t u, float f) {
  std::string path = dir + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&u), 4);
  out.write(reinterpret_cast<const char*>(&f), 4);
  return path;
}

}  // namespace

TEST_CASE("ptx: a buffer filled from a file, checked against an expected file", "[ptx][expect]") {
  const std::string dir = temp_dir(), ptx = write_ptx(kIncrement);
  const std::string in = words(dir, "in.bin", 41, 1.0f);
  const std::string run = fmt::format("run --ptx {} --kernel inc --arg in=buffer:{} --arg out=buffer:8", ptx, in);
  CliResult ok = cli(run + " --expect out=" + words(dir, "good.bin", 42, 1.0f));
  INFO(ok.out << ok.err);
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Catch::Contains("verified"));
  CliResult bad = cli(run + " --expect out=" + words(dir, "bad.bin", 43, 1.0f) + " --out " + dir + "/cex.json");
  INFO(bad.out << bad.err);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.out, Catch::Contains(fmt::format("assertion: check failed at kernel exit: buffer out "
                                                  "does not hold {}/bad.bin: byte 0 is 0x2a, expected 0x2b",
                                                  dir)));
  // The expectation is part of the kernel's parameters: the counterexample replays it.
  CliResult replayed = cli("replay " + dir + "/cex.json");
  CHECK(replayed.code == 1);
  CHECK_THAT(replayed.out, Catch::Contains("byte 0 is 0x2a, expected 0x2b"));
}

TEST_CASE("ptx: --expect with a tolerance compares float32 values", "[ptx][expect]") {
  const std::string dir = temp_dir(), ptx = write_ptx(kIncrement);
  const std::string run = fmt::format("run --ptx {} --kernel inc --arg in=buffer:{} --arg out=buffer:8 --expect out={}",
                                      ptx, words(dir, "in.bin", 41, 1.0f), words(dir, "near.bin", 42, 1.0005f));
  CHECK(cli(run + ",tol=1e-3").code == 0);
  CliResult tight = cli(run + ",tol=1e-4 --out /dev/null");
  INFO(tight.out << tight.err);
  CHECK(tight.code == 1);
  CHECK_THAT(tight.out, Catch::Contains("float32 element 1 (bytes [4:8]) is 1, expected 1.0005 within 0.0001"));
  CHECK(cli(run + " --out /dev/null").code == 1);  // no tolerance: the bytes differ
}

TEST_CASE("ptx: a wrong --expect or input file is a usage error", "[ptx][expect]") {
  const std::string dir = temp_dir(), ptx = write_ptx(kIncrement);
  const std::string in = words(dir, "in.bin", 41, 1.0f);
  const std::string run = fmt::format("run --ptx {} --kernel inc --arg in=buffer:{} --arg out=buffer:8", ptx, in);
  struct Bad {
    std::string args, message;
  };
  for (const Bad& b : std::vector<Bad>{
           {" --expect outt=" + in, "--expect outt=" + in + ": outt is not a buffer argument"},
           {" --expect out", "expected NAME=FILE[,tol=X]"},
           {" --expect out=" + dir + "/none.bin", "--expect out: cannot read " + dir + "/none.bin"},
           {" --expect out=" + in + ",tol=x", "tol=x is not a tolerance"},
           {" --expect out=" + ptx, "bytes, buffer out has 8"}}) {
    INFO(b.args);
    CliResult r = cli(run + b.args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(b.message));
  }
  CliResult missing = cli(fmt::format("run --ptx {} --kernel inc --arg in=buffer:{}/no.bin --arg out=buffer:8", ptx, dir));
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains(fmt::format("--arg in: cannot read {}/no.bin", dir)));
}
