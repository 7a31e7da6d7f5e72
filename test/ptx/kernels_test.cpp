// The must-show kernels of kernels/cuda, from the PTX nvcc emitted for them
// (test/ptx/data): each buggy one is found in the first execution with the
// counterexample at its CUDA and PTX lines, each fixed one verifies
// exhaustively, and the verdicts agree with the hand-written models of
// kernels/cutlass (the oracle).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <regex>

#include "test/ptx/ptx_support.hpp"
#include "test/support/harness.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {

const char* kEpilogueArgs = "desc=tensormap:D0,shape=256x1,box=128x1 D1=buffer:1024 subtiles=u32:1";
const char* kPipelineArgs = "desc=tensormap:A,shape=64x3,box=64x1 sums=buffer:16 k_tiles=u32:3";
const char* kFenceArgs = "desc=tensormap:out,shape=64x2,box=64x1 tiles=u32:2";

PtxLaunch epilogue(const char* entry, int warps) {
  return {ptx_data("tma_store_epilogue.ptx"), entry, 32 * warps, kEpilogueArgs};
}
PtxLaunch pipeline(const char* entry, int warps) {
  return {ptx_data("tma_load_pipeline.ptx"), entry, 32 * warps, kPipelineArgs};
}
PtxLaunch fence(const char* entry, int warps) {
  return {ptx_data("tma_store_fence.ptx"), entry, 32 * warps, kFenceArgs};
}

// Where an access must be reported: the .cu line of `cu_marker`, and a PTX
// line of entry `entry` in the data file holding `ptx_marker` (nvcc unrolls
// loops, so one source line has several PTX lines).
struct Site {
  std::string file, cu_marker, entry, ptx_marker;
};

bool reported_at(const std::string& at, const Site& s) {
  std::string cu = source_line("kernels/cuda/" + s.file + ".cu", s.cu_marker);
  if (at.rfind(cu, 0) != 0) return false;
  // An inlined helper's line is followed by its call sites (" via :59").
  std::size_t from = cu.size();
  while (at.compare(from, 6, " via :") == 0) from = at.find_first_not_of("0123456789", from + 6);
  std::string prefix = fmt::format(" via {}.ptx:", s.file);
  if (at.compare(from, prefix.size(), prefix) != 0) return false;
  long line = std::stol(at.substr(from + prefix.size()));
  std::string ptx = slurp(ptx_data(s.file + ".ptx"));
  std::size_t entry = ptx.find(".entry " + s.entry + "("), pos = 0;
  for (long l = 1; l < line && pos != std::string::npos; ++l) pos = ptx.find('\n', pos) + 1;
  std::string text = ptx.substr(pos, ptx.find('\n', pos) - pos);
  return pos > entry && text.find(s.ptx_marker) != std::string::npos;
}

// Each expected site is where one of the race's two accesses is reported.
void check_sites(const RunResult& r, const std::vector<Site>& want) {
  REQUIRE(r.bug->accesses.size() == want.size());
  for (const Site& s : want) {
    bool found = false;
    for (const AccessInfo& a : r.bug->accesses) found = found || reported_at(a.at, s);
    INFO(s.cu_marker << " / " << s.ptx_marker << " in " << r.bug->accesses[0].at << " and "
                     << r.bug->accesses[1].at);
    CHECK(found);
  }
}

void check_found_first(const PtxLaunch& l, const std::vector<Site>& want) {
  RunResult r = run_ptx(l);
  REQUIRE(r.verdict == Verdict::race);
  CHECK(r.stats.executions == 1);
  check_sites(r, want);
  RunResult again = run_ptx(l);  // found the same way on every run
  REQUIRE(again.schedule);
  CHECK(write_schedule(*again.schedule) == write_schedule(*r.schedule));
}

}  // namespace

TEST_CASE("ptx kernels: the #2162 epilogue races on its tensormap at 2 to 4 warps", "[ptx]") {
  std::vector<Site> want = {
      {"tma_store_epilogue", "tensormap_cp_fence_release(gdesc", "epilogue_shipped",
       "tensormap.cp_fenceproxy"},
      {"tma_store_epilogue", "tma_store_2d(gdesc", "epilogue_shipped", "cp.async.bulk.tensor"}};
  for (int warps : {2, 3, 4}) {
    INFO(warps << " warps");
    check_found_first(epilogue("epilogue_shipped", warps), want);
  }
}

TEST_CASE("ptx kernels: the fixed epilogue verifies, with the CUTLASS model's trace count", "[ptx]") {
  RunResult r = run_ptx(epilogue("epilogue_fixed", 2));
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  RunResult model = run("cutlass/grouped_gemm_epilogue",
                        {{"fixed", "true"}, {"subtiles", "1"}, {"others", "1"}});
  CHECK(model.verdict == Verdict::ok);
  CHECK(r.stats.executions == model.stats.executions);  // one warp per model thread
  RunResult shipped = run("cutlass/grouped_gemm_epilogue", {{"subtiles", "1"}, {"others", "1"}});
  CHECK(shipped.verdict == run_ptx(epilogue("epilogue_shipped", 2)).verdict);
}

TEST_CASE("ptx kernels: the TMA-load mainloop verifies at 2 to 4 warps", "[ptx]") {
  for (int warps : {2, 3, 4}) {
    INFO(warps << " warps");
    RunResult r = run_ptx(pipeline("pipeline_correct", warps));
    CHECK(r.verdict == Verdict::ok);
    CHECK(r.exhaustive);
    if (warps <= 3) {  // the oracle: PipelineTmaAsync with one consumer per consumer warp
      RunResult model = run("cutlass/pipeline_tma_async",
                            {{"variant", "correct"}, {"consumers", std::to_string(warps - 1)}});
      CHECK(model.verdict == r.verdict);
    }
  }
}

TEST_CASE("ptx kernels: a consumer releasing its stage early races with the next TMA load", "[ptx]") {
  std::vector<Site> want = {
      {"tma_load_pipeline", "sum += sA[s][i]", "pipeline_early_release", "ld.shared.u32"},
      {"tma_load_pipeline", "tma_load_2d(sA[s]", "pipeline_early_release", "cp.async.bulk.tensor"}};
  for (int warps : {2, 3, 4}) {
    INFO(warps << " warps");
    RunResult r = run_ptx(pipeline("pipeline_early_release", warps));
    REQUIRE(r.verdict == Verdict::race);
    CHECK(r.stats.executions == 1);
    check_sites(r, want);
    // The read is in mainloop<true>, a __device__ template inlined into the
    // kernel: the report names the kernel's call too (issue 50.6).
    const std::string cu = "kernels/cuda/tma_load_pipeline.cu";
    const std::string call = source_line(cu, "mainloop<true>(desc_a");
    const std::string read = source_line(cu, "sum += sA[s][i]");
    bool via = false;
    for (const AccessInfo& a : r.bug->accesses)
      via |= a.at.rfind(read + " via :" + call.substr(call.rfind(':') + 1) + " via ", 0) == 0;
    CHECK(via);
  }
  for (const char* consumers : {"1", "2"})
    CHECK(run("cutlass/pipeline_tma_async", {{"variant", "early_release"}, {"consumers", consumers}})
              .verdict == Verdict::race);
}

TEST_CASE("ptx kernels: a TMA store without fence.proxy.async races; fenced, it verifies", "[ptx]") {
  std::vector<Site> want = {
      {"tma_store_fence", "tile[i] = 1 + t * 10 + i", "store_no_fence", "st.shared.f32"},
      {"tma_store_fence", "tma_store_2d(desc_out", "store_no_fence", "cp.async.bulk.tensor"}};
  for (int warps : {2, 3, 4}) {
    INFO(warps << " warps");
    check_found_first(fence("store_no_fence", warps), want);
  }
  RunResult r = run_ptx(fence("store_fenced", 2));
  CHECK(r.verdict == Verdict::ok);
  CHECK(r.exhaustive);
  // The oracle: the CUTLASS epilogue model with one group, with and without its fence.
  CHECK(run("cutlass/grouped_gemm_epilogue", {{"groups", "1"}, {"no_fence", "true"}, {"others", "1"}})
            .verdict == Verdict::race);
  CHECK(run("cutlass/grouped_gemm_epilogue", {{"groups", "1"}, {"others", "1"}}).verdict ==
        Verdict::ok);
}

TEST_CASE("ptx kernels: heddle run --ptx writes a counterexample that replay reproduces", "[ptx]") {
  std::string dir = temp_dir();
  std::string cmd = fmt::format(
      "run -q --ptx {} --kernel epilogue_shipped --block 64 --out {}/cex.json {}",
      ptx_data("tma_store_epilogue.ptx"), dir, std::regex_replace(kEpilogueArgs, std::regex("(^| )"), "$1--arg "));
  CliResult r = cli(cmd);
  REQUIRE(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("race: data race on desc bytes [0:128]"));
  CliResult replayed = cli(fmt::format("replay {}/cex.json", dir));
  CHECK(replayed.code == 1);
  CHECK_THAT(replayed.out, Catch::Contains("race: data race on desc bytes [0:128]"));
  CHECK(replayed.err.find("warning") == std::string::npos);
}

#ifdef HEDDLE_CUDA_PTX_DIR
TEST_CASE("ptx kernels: the committed PTX is what nvcc emits for kernels/cuda now", "[ptx]") {
  // Regenerate with: ninja -C build kernels/cuda/NAME.ptx, then copy it to
  // test/ptx/data with its .file paths cut to kernels/cuda/ (as normalise does).
  // The .debug_str section holds internal names that carry a hash of the
  // source path (its length, and so the section's line breaks, varies with the
  // checkout): it is cut whole, so the build folder cannot decide the test.
  // A .file line names the path nvcc was reached by (/usr/local/cuda/bin or
  // /usr/local/cuda-13.0/bin, as PATH decides): only the file's name is kept.
  auto normalise = [](const std::string& text) {
    std::string t = std::regex_replace(text, std::regex("(\\.file\t[0-9]+ \")[^\"]*/([^\"/]*\")"), "$1$2");
    std::size_t debug = t.find(".section\t.debug_str");
    return debug == std::string::npos ? t : t.substr(0, debug);
  };
  for (const char* k : {"tma_store_epilogue", "tma_load_pipeline", "tma_store_fence",
                        "wgmma_mainloop", "wgmma_tile", "wgmma_fp8", "cluster_exchange"}) {
    INFO(k);
    std::string path = fmt::format("{}/{}.ptx", HEDDLE_CUDA_PTX_DIR, k);
    if (!std::ifstream(path)) {
      WARN(path << " is not built (ninja -C build builds it): not compared");
      continue;
    }
    std::string built = slurp(path);
    std::string committed = slurp(ptx_data(std::string(k) + ".ptx"));
    std::regex version("Cuda compilation tools, release [^\n]*");
    std::smatch a, b;
    bool same_nvcc = std::regex_search(built, a, version) && std::regex_search(committed, b, version) &&
                     a.str() == b.str();
    if (!same_nvcc) {
      WARN("another nvcc than the one that made test/ptx/data: not compared");
      continue;
    }
    CHECK(normalise(built) == normalise(committed));
  }
}
#endif
