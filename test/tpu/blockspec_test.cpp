// The Pallas TPU vocabulary of issue 13: sync_copy, blocked grids split
// across cores by dimension semantics, emit_pipeline, and signals to a
// semaphore of another core; each with a racy and a fixed kernel.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/tpu/pipeline.hpp"
#include "test/support/harness.hpp"
#include "test/support/presets.hpp"

using namespace heddle;
using heddle::test::run;

namespace {
using Params = std::map<std::string, std::string>;
const char* kHandoff = "pallas_tpu/sync_copy_handoff";
const char* kMegacore = "pallas_tpu/megacore_reduce";
const char* kSplit = "pallas_tpu/emit_pipeline_split";

std::set<std::string> agents_of(const RunResult& r) {
  std::set<std::string> out;
  for (const auto& a : r.bug->accesses) out.insert(a.agent);
  return out;
}

// dfs and dpor reach the same final states and verdicts (differential:
// checker/DESIGN.md § Checking the checker).
void same_outcomes(const std::string& kernel, const Params& params) {
  INFO(kernel);
  auto brute = test::outcomes(kernel, params, test::with_strategy("dfs"));
  auto dpor = test::outcomes(kernel, params, test::with_strategy("dpor"));
  REQUIRE(brute.result.exhaustive);
  REQUIRE(dpor.result.exhaustive);
  CHECK(dpor.final_states == brute.final_states);
  CHECK(dpor.verdicts == brute.verdicts);
  CHECK(dpor.result.stats.executions <= brute.result.stats.executions);
}
}  // namespace

TEST_CASE("grid_points: the first parallel dimension is split into one share per core",
          "[tpu]") {
  using tpu::GridPoint;
  using Points = std::vector<GridPoint>;
  CHECK(tpu::grid_points({2, 2}, {"arbitrary", "parallel"}, 0, 2) == Points{{0, 0}, {1, 0}});
  CHECK(tpu::grid_points({2, 2}, {"arbitrary", "parallel"}, 1, 2) == Points{{0, 1}, {1, 1}});
  CHECK(tpu::grid_points({3, 1}, {"parallel", "parallel"}, 1, 2) == Points{{2, 0}});
  CHECK(tpu::grid_points({2}, {"arbitrary"}, 1, 2).empty());  // no parallel dim: core 0 only
  CHECK(tpu::grid_points({2}, {"arbitrary"}, 0, 2) == Points{{0}, {1}});
  CHECK(tpu::grid_points({2, 2}, {"parallel", "arbitrary"}, 0, 1).size() == 4);
}

TEST_CASE("block_elements: row-major offsets of a block, squeezed dimensions", "[tpu]") {
  const auto loc = std::source_location::current();
  using E = std::vector<std::int64_t>;
  CHECK(tpu::block_elements({2, 4}, {1, 2}, {1, 1}, "x", loc) == E{6, 7});
  CHECK(tpu::block_elements({4, 4}, {2, 2}, {1, 0}, "x", loc) == E{8, 9, 12, 13});
  CHECK(tpu::block_elements({3, 2}, {std::nullopt, 2}, {2, 0}, "x", loc) == E{4, 5});
  CHECK_THROWS_WITH(tpu::block_elements({2, 4}, {1, 2}, {0, 2}, "x", loc),
                    Catch::Contains("block 2 of x is outside the array (dimension 1, size 4)"));
}

TEST_CASE("sync_copy orders the core's later accesses after the copy", "[tpu]") {
  for (const char* order : {"any", "on_wait", "eager"}) {
    INFO("dma_order=" << order);
    auto ok = test::outcomes("test/tpu_sync_copy", {{"dma_order", order}}, RunConfig{});
    CHECK(ok.result.exhaustive == (std::string(order) == "any"));  // the others restrict
    CHECK(ok.result.stopped_by == (std::string(order) == "any" ? "" : "restriction"));
    CHECK(ok.verdicts == std::set<std::string>{"ok"});
    CHECK(ok.final_states == std::set<std::string>{"read=5\n"});
    // The same accesses between an async copy's start and its wait race.
    auto racy = run("test/tpu_sync_copy", {{"dma_order", order}, {"async", "true"}});
    CHECK(racy.verdict == Verdict::race);
  }
}

TEST_CASE("sync_copy_handoff: presets, the race and the deadlock, dfs agrees with dpor",
          "[tpu]") {
  test::check_presets(kHandoff);
  auto early = run(kHandoff, {{"bug", "signal_early"}});
  REQUIRE(early.verdict == Verdict::race);
  CHECK(early.bug->title.find("dev0.partial[") != std::string::npos);
  auto own = run(kHandoff, {{"bug", "own_core"}});
  REQUIRE(own.verdict == Verdict::deadlock);
  bool names_wait = false;
  for (const auto& line : own.bug->details)
    names_wait |= line.find("dev0.core1 blocked at semaphore_wait(dev0.core1.ready)") == 0;
  CHECK(names_wait);
  auto ok = test::outcomes(kHandoff, {}, RunConfig{});
  CHECK(ok.final_states == std::set<std::string>{"out[0]=8\nout[1]=12\n"});
  same_outcomes(kHandoff, {{"elems", "1"}});
  same_outcomes(kHandoff, {{"elems", "1"}, {"bug", "signal_early"}});
}

TEST_CASE("megacore_reduce: parallel columns verify, a parallel reduction axis races", "[tpu]") {
  test::check_presets(kMegacore);
  // Per core: two x blocks, one w block (its index does not change along
  // the rows) and one output write-back (the block stays in VMEM).
  auto ok = test::outcomes(kMegacore, {}, RunConfig{});
  CHECK(ok.result.exhaustive);
  CHECK(ok.final_states ==
        std::set<std::string>{"dmas=8\nout[0]=30\nout[1]=64\nout[2]=102\nout[3]=144\n"});
  auto bad = run(kMegacore, {{"semantics", "arbitrary,parallel"}});
  REQUIRE(bad.verdict == Verdict::race);
  CHECK(bad.bug->title.find("dev0.out[") != std::string::npos);
  CHECK(bad.bug->accesses[0].op == "dma.write");
  CHECK(bad.bug->accesses[1].op == "dma.write");
  CHECK(agents_of(bad).size() == 2);
  for (const char* order : {"eager", "on_wait"})
    CHECK(run(kMegacore, {{"dma_order", order}}).verdict == Verdict::ok);
}

TEST_CASE("emit_pipeline_split: per-core halves verify, the same half races", "[tpu]") {
  test::check_presets(kSplit);
  auto ok = test::outcomes(kSplit, {{"blocks", "2"}, {"block", "1"}}, RunConfig{});
  CHECK(ok.result.exhaustive);
  CHECK(ok.final_states ==
        std::set<std::string>{"out[0]=2\nout[1]=8\nout[2]=14\nout[3]=20\n"});
  auto bad = run(kSplit, {{"same_half", "true"}});
  REQUIRE(bad.verdict == Verdict::race);
  CHECK(bad.bug->title.find("dev0.out[") != std::string::npos);
  same_outcomes(kSplit, {{"blocks", "1"}, {"block", "1"}});
  same_outcomes(kSplit, {{"blocks", "1"}, {"block", "1"}, {"same_half", "true"}});
}

TEST_CASE("blocked calls reject bad specs and mismatched refs at the model's line", "[tpu]") {
  auto r = run("test/tpu_bad_blockspec", {{"what", "semantics"}});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK(r.bug->title.find("dimension semantics \"core\"") != std::string::npos);
  r = run("test/tpu_bad_blockspec", {{"what", "block"}});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK(r.bug->title.find("block dimension 0 of v is 8, the array's 4") != std::string::npos);
  r = run("test/tpu_bad_blockspec", {{"what", "ref"}});
  REQUIRE(r.verdict == Verdict::model_error);
  CHECK(r.bug->title.find("v is an array of 4 elements, but its ref has 3") != std::string::npos);
}

TEST_CASE("block_layout: an edge block sticking out of the array keeps its in-bounds part", "[tpu]") {
  const auto loc = std::source_location::current();
  using E = std::vector<std::int64_t>;
  // Block (0, 1) of 2x2 blocks on a 2x3 array: column 2 only, rows 0 and 1,
  // at buffer positions 0 and 2 of the 2x2 buffer.
  auto edge = tpu::block_layout({2, 3}, {2, 2}, {0, 1}, "x", loc);
  CHECK(edge.array == E{2, 5});
  CHECK(edge.buffer == E{0, 2});
  // paged_attention's m_ref: a 128-wide block of a 1-wide array.
  auto narrow = tpu::block_layout({1, 1, 1, 1}, {std::nullopt, 1, std::nullopt, 128}, {0, 0, 0, 0},
                                  "m_ref", loc);
  CHECK(narrow.array == E{0});
  CHECK(narrow.buffer == E{0});
  auto whole = tpu::block_layout({4, 4}, {2, 2}, {1, 0}, "x", loc);
  CHECK(whole.buffer == E{0, 1, 2, 3});
}
