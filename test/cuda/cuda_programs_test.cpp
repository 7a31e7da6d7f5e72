// `heddle cuda -- ./app`: the whole programs of kernels/cuda/apps run under
// heddle's CUDA runtime. Each test runs the heddle binary on a program built
// by meson with nvcc (-cudart shared, compute_90a PTX).
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "test/support/harness.hpp"

using Catch::Matchers::Contains;
using heddle::test::cli;
using heddle::test::source_line;

namespace {

#ifdef HEDDLE_CUDA_APPS
// The program `name` built by kernels/cuda/meson.build.
std::string app(const std::string& name) { return std::string(HEDDLE_CUDA_APPS) + "/" + name; }

std::string temp_file(const std::string& name) { return heddle::test::temp_dir() + "/" + name; }
#endif

}  // namespace

#ifndef HEDDLE_CUDA_APPS
TEST_CASE("heddle cuda: skipped (no nvcc or CUDA headers: kernels/cuda/apps are not built)",
          "[cuda]") {
  std::fprintf(stderr, "test/cuda: SKIPPED: nvcc or the CUDA headers were not found, so "
                       "kernels/cuda/apps and heddle's libcudart.so.13 are not built\n");
}
#else

TEST_CASE("heddle cuda: the shipped #2162 epilogue races at the tensormap rewrite", "[cuda]") {
  const std::string out = temp_file("epilogue.json");
  auto r = cli("cuda --out " + out + " -- " + app("epilogue_app") + " shipped");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Contains("data race"));
  CHECK_THAT(r.out, Contains("kernel epilogue_shipped"));
  CHECK_THAT(r.out, Contains("launch 1"));
  // The descriptor rewrite and the in-flight store's read, at the .cu lines.
  CHECK_THAT(r.out, Contains(source_line("kernels/cuda/tma_store_epilogue.cu",
                                                  "tensormap_cp_fence_release(gdesc").substr(13)));
  CHECK_THAT(r.out, Contains(source_line("kernels/cuda/tma_store_epilogue.cu",
                                                  "tma_store_2d(gdesc").substr(13)));
  CHECK_THAT(r.out, Contains("replay it: heddle cuda --replay " + out));
  CHECK_THAT(r.out, !Contains("Passed"));  // stopped before its own check

  SECTION("the counterexample replays through the same program") {
    auto again = cli("cuda --replay " + out + " -- " + app("epilogue_app") + " shipped");
    CHECK(again.code == 1);
    CHECK_THAT(again.out, Contains("data race"));
  }
  SECTION("a replay against another launch is refused") {
    auto other = cli("cuda --replay " + out + " -- " + app("epilogue_app") + " fixed");
    CHECK(other.code == 2);
    CHECK_THAT(other.err, Contains("the schedule is for cuda/epilogue_shipped"));
  }
}

TEST_CASE("heddle cuda: --keep-going explores a checked launch on past its first bug", "[cuda]") {
  // Every interleaving of the shipped epilogue races; without the flag the
  // launch stops at the first, with it the exploration ends exhaustive.
  auto first =
      cli("cuda --out " + temp_file("kg1.json") + " -- " + app("epilogue_app") + " shipped");
  CHECK(first.code == 1);
  CHECK_THAT(first.out, Contains("stopped at the first bug"));
  const std::string out = temp_file("kg2.json");
  auto all = cli("cuda --keep-going --out " + out + " -- " + app("epilogue_app") + " shipped");
  CHECK(all.code == 1);
  CHECK_THAT(all.out, Contains("data race"));
  CHECK_THAT(all.out, Contains("3 executions explored; exhaustive"));
  CHECK_THAT(all.out, Contains("with a bug: 3"));
  CHECK_THAT(all.out, Contains("replay it: heddle cuda --replay " + out));
}

TEST_CASE("heddle cuda: the fixed epilogue verifies and the program prints its own Passed",
          "[cuda]") {
  auto r = cli("cuda -- " + app("epilogue_app") + " fixed");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("epilogue_app (fixed): 0 wrong elements: Passed"));
  CHECK_THAT(r.err, Contains("checked:"));
  CHECK_THAT(r.err, Contains("exhaustive"));
}

TEST_CASE("heddle cuda: a TMA + mbarrier pipeline, correct and releasing early", "[cuda]") {
  auto good = cli("cuda -- " + app("pipeline_app") + " correct");
  CHECK(good.code == 0);
  CHECK_THAT(good.out, Contains("expected 1329: Passed"));  // sum of i%13+1, i < 192
  auto bad = cli("cuda --out " + temp_file("pipe.json") + " -- " + app("pipeline_app") +
                 " early_release");
  CHECK(bad.code == 1);
  CHECK_THAT(bad.out, Contains("data race"));
  CHECK_THAT(bad.out, Contains("tma_load_pipeline.cu"));
}

TEST_CASE("heddle cuda: a 3-D swizzled TMA box with padded strides, partly outside its tensor",
          "[cuda]") {
  // The program checks each byte of the loaded box (zero fill outside the
  // tensor, the 128-byte swizzle in shared memory) and of the stored tensor
  // (nothing written outside it, padding untouched): box-after-box, dense
  // strides, a missing swizzle or a store past the edge each fail it.
  auto r = cli("cuda -- " + app("tma3d_app"));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("tma3d_app: 0 wrong bytes: Passed"));
  CHECK_THAT(r.err, Contains("launch 1 tma3d_round_trip<<<1, 32>>>: checked"));
}

TEST_CASE("heddle cuda: --sms sets the multiprocessors the device reports", "[cuda]") {
  auto four = cli("cuda --sms 4 -- " + app("tma3d_app"));
  CHECK(four.code == 0);
  CHECK_THAT(four.out, Contains("tma3d_app: a device with 4 SMs"));
  CHECK_THAT(cli("cuda -- " + app("tma3d_app")).out, Contains("a device with 132 SMs"));
  CHECK(cli("cuda --sms 0 -- " + app("tma3d_app")).code == 2);
  auto bad = cli("cuda --sms many -- " + app("tma3d_app"));
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Contains("--sms many"));
}

TEST_CASE("heddle cuda: init, checked and verification kernels; --check picks one", "[cuda]") {
  auto r = cli("cuda --check block_sum -- " + app("three_kernels_app"));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("(block 0 expects 253), 0 mismatches: Passed"));
  CHECK_THAT(r.err, Contains("launch 1 init<<<64, 64>>>: one schedule, 32 CTAs at a time"));
  CHECK_THAT(r.err, Contains("launch 2 block_sum<<<2, 64>>>: checked"));
  CHECK_THAT(r.err, Contains("launch 3 verify<<<2, 32>>>: one schedule"));
  auto racy = cli("cuda --check 'block_sum*' --out " + temp_file("racy.json") + " -- " +
                  app("three_kernels_app") + " racy");
  CHECK(racy.code == 1);
  CHECK_THAT(racy.out, Contains("data race"));
  CHECK_THAT(racy.out, Contains("launch 2, kernel block_sum_racy"));
}

TEST_CASE("heddle cuda: bad programs get clear errors", "[cuda]") {
  SECTION("a program with SASS only") {
    auto r = cli("cuda -- " + app("three_kernels_sass"));
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Contains("no PTX"));
    CHECK_THAT(r.err, Contains("-gencode arch=compute_90a,code=compute_90a"));
  }
  SECTION("a runtime function heddle does not implement") {
    auto r = cli("cuda -- " + app("unknown_call_app"));
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Contains("the program called cudaGraphCreate"));
  }
  SECTION("a kernel that writes past its buffer") {
    auto r = cli("cuda --out " + temp_file("oob.json") + " -- " + app("oob_app"));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Contains(source_line("kernels/cuda/apps/oob_app.cu",
                                                    "heddle-cuda: out of bounds").substr(18)));
    CHECK_THAT(r.out, Contains("out of bounds of every allocation"));
    CHECK_THAT(r.out, !Contains("oob_app: done"));
  }
  SECTION("a kernel that never finishes hits the step budget") {
    auto r = cli("cuda --max-steps 500 --out " + temp_file("hang.json") + " -- " + app("hang_app"));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Contains("livelock or unbounded loop: 500 steps"));
    CHECK_THAT(r.out, Contains("hang_app.cu:"));
  }
  SECTION("the program's own failure and crash are reported as such") {
    auto failed = cli("cuda -- sh -c 'exit 4'");
    CHECK(failed.code == 4);
    CHECK_THAT(failed.err, Contains("exited with status 4 after 0 kernel launches"));
    auto crashed = cli("cuda -- sh -c 'kill -SEGV $$'");
    CHECK(crashed.code == 128 + 11);
    CHECK_THAT(crashed.err, Contains("crashed (signal 11"));
  }
  SECTION("a program that is not there") {
    auto r = cli("cuda -- /nonexistent/app");
    CHECK(r.code == 2);
  }
  SECTION("a bad option") {
    auto r = cli("cuda --strategy nosuch -- " + app("oob_app"));
    CHECK(r.code == 2);
  }
}
#endif
