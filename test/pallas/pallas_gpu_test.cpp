// Mosaic GPU (plgpu) kernels exported from JAX (test/pallas/data/plgpu_*.json,
// made by test/pallas/export_data.py from kernels/pallas_gpu/race_tests.py)
// run on models/gpu: verdicts, the kernel's Python lines in the report,
// replay, and the output check against the expected value.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test/support/harness.hpp"

using namespace heddle;

namespace {
const char* kRacePy = "kernels/pallas_gpu/race_tests.py";

std::string kernel(const std::string& name) {
  return fmt::format("pallas:{}/test/pallas/data/{}.json", HEDDLE_SOURCE_ROOT, name);
}
}  // namespace

TEST_CASE("plgpu: a TMA load racing a plain store of its source, at both Python lines",
          "[pallas][gpu]") {
  auto r = test::run(kernel("plgpu_unsynchronized"));
  REQUIRE(r.verdict == Verdict::race);
  REQUIRE(r.bug);
  REQUIRE(r.bug->accesses.size() == 2);
  std::vector<std::string> at{r.bug->accesses[0].at, r.bug->accesses[1].at};
  std::sort(at.begin(), at.end());
  std::vector<std::string> want{
      test::source_line(kRacePy, "out_ref[...] = 42"),
      test::source_line(kRacePy, "plgpu.copy_gmem_to_smem(out_ref, smem_ref, barrier_ref)")};
  std::sort(want.begin(), want.end());
  CHECK(at == want);
  REQUIRE(r.schedule);
  auto replayed = test::replay(*r.schedule);
  CHECK(replayed.verdict == Verdict::race);
  REQUIRE(replayed.schedule);
  CHECK(replayed.schedule->steps == r.schedule->steps);
}

TEST_CASE("plgpu: waiting the barrier first is verified, out == 42 in every schedule",
          "[pallas][gpu]") {
  auto r = test::run(kernel("plgpu_synchronized"));
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
}

TEST_CASE("plgpu: a commit_smem by the issuing thread after the barrier orders another thread's "
          "write before its TMA load", "[pallas][gpu]") {
  auto r = test::run(kernel("plgpu_cross_thread"));
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
}

TEST_CASE("plgpu: exiting with an unwaited TMA store is an async error naming its line",
          "[pallas][gpu]") {
  auto r = test::run(kernel("plgpu_unawaited_store"));
  REQUIRE(r.verdict == Verdict::async_error);
  REQUIRE(r.bug);
  CHECK(r.bug->title.find(test::source_line(kRacePy, "plgpu.copy_smem_to_gmem(smem_ref, out_ref)")) !=
        std::string::npos);
}
