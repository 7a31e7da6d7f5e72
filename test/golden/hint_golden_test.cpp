// One hint, the right one: each race report ends with exactly one hint line
// saying what would order the two accesses in this model, checked on its
// own and against a golden report (test/golden/expected/NAME.txt; rewrite
// them with HEDDLE_UPDATE_GOLDEN=1 and read the difference).
#include <fmt/format.h>

#include <sstream>

#include "test/golden/golden.hpp"

using namespace heddle;
using heddle::test::check_golden;
using heddle::test::has;

namespace {
/// The minimized counterexample's report and schedule, as `heddle run` prints them.
std::string report_of(const std::string& kernel, const std::map<std::string, std::string>& params) {
  RunResult r = test::run(kernel, params);
  REQUIRE(r.bug);
  REQUIRE(r.bug->kind == Verdict::race);
  return format_report(*r.bug) + "\n" + format_schedule(*r.schedule, &*r.bug);
}

/// The report's one hint line (fails unless there is exactly one).
std::string hint_of(const std::string& report) {
  std::string hint;
  std::size_t hints = 0;
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  hint: ", 0) == 0) hint = line, ++hints;
  INFO(report);
  REQUIRE(hints == 1);
  return hint;
}

/// The schedule line of (sub-)step `n` ("1", "1.1"), or "" when there is none.
std::string schedule_line(const std::string& report, const std::string& n) {
  const std::string key = fmt::format("\n  {:>4}  ", n);
  auto from = report.find(key);
  if (from == std::string::npos) return "";
  return report.substr(from + 1, report.find('\n', from + 1) - from - 1);
}

/// True when `line` is the issuing line of `copy` by `agent` at `at`.
bool issue_line(const std::string& line, const std::string& agent, const std::string& copy,
                const std::string& at) {
  return has(line, "  " + agent + " ") && has(line, "  issue " + copy + " ") &&
         line.size() >= at.size() && line.compare(line.size() - at.size(), at.size(), at) == 0;
}

}  // namespace

TEST_CASE("hint: a missing wait names the wait and its depth (tensormap rewrite)", "[hints]") {
  std::string report = report_of("cutlass/grouped_gemm_epilogue", {});
  std::string hint = hint_of(report);
  INFO(hint);
  CHECK(has(hint, "hint: a missing wait: "));
  // The rewrite came before the second group was committed: depth 0, the
  // fix CUTLASS 3.9.0 made (tma_store_wait<0> before the descriptor update).
  CHECK(has(hint, "c0.warp0 accessed these bytes at step 1 without waiting for tma_store "));
  CHECK(has(hint, "which reads them (tma.read_desc)"));
  CHECK(has(hint, "cp.async.bulk.wait_group.read 0 (tma_store_wait<0>()"));
  CHECK(has(hint, "to depth 0: 0 newer groups may stay in flight"));
  // The copy is named by what it moves, and its issue is a line of the schedule.
  CHECK(has(report, "tma_store sD[0:128] -> tensormap_D box (0, 0)"));
  // Issuing is a step line of its own (1.1: during step 1, after its
  // operation), with the issuing agent and the issue's source line.
  CHECK(issue_line(schedule_line(report, "1.1"), "c0.warp0",
                   "tma_store sD[128:256] -> tensormap_D box (0, 0)",
                   test::source_line("kernels/cutlass/grouped_gemm_epilogue.cpp", "tensor_store(desc")));
  CHECK_FALSE(has(hint, "fence"));
  check_golden("missing_wait_tensormap", report);
}

TEST_CASE("hint: a stage rewritten under a TMA store needs a wait, not a fence", "[hints]") {
  // Two groups in flight, waited to depth 2: the older store (stage 0) needs depth 1.
  std::string report = report_of("hints/stage_reuse", {{"depth", "2"}});
  std::string hint = hint_of(report);
  INFO(hint);
  CHECK(has(hint, "hint: a missing wait: "));
  CHECK(has(hint, "which reads them (bulk_store.read_smem)"));
  CHECK(has(hint, "cp.async.bulk.wait_group.read 1 (tma_store_wait<1>()"));
  CHECK(has(hint, "to depth 1: 1 newer group may stay in flight"));
  CHECK_FALSE(has(hint, "fence"));
  CHECK_FALSE(has(report, "proxy fence"));
  check_golden("missing_wait_stage_reuse", report);
  // Waiting to the depth the hint names removes the race.
  CHECK_FALSE(test::run("hints/stage_reuse", {{"depth", "1"}}).bug);
}

TEST_CASE("hint: a missing proxy fence says who fences before which barrier", "[hints]") {
  // Thread 0 writes smem and arrives; thread 1 waits and loads over it: no commit_smem.
  std::string report = report_of("mosaic/cross_thread_gmem_to_smem_copy", {{"form", "thread"}});
  std::string hint = hint_of(report);
  INFO(hint);
  CHECK(has(hint, "hint: a missing proxy fence: "));
  CHECK(has(hint, "t0 must run fence.proxy.async (fence_view_async_shared() / "
                  "plgpu.commit_smem()) after its store (write) before step 1"));
  CHECK(has(hint, "and before mbarrier.arrive(thread_barrier) at step 1"));
  CHECK(has(hint, ", or t1 after that and before it issues bulk_load in -> smem (during step "));
  CHECK_FALSE(has(hint, "wait"));
  check_golden("missing_proxy_fence", report);
}

TEST_CASE("hint: a missing barrier or semaphore (the tutorial's handoff)", "[hints]") {
  std::string report = report_of("demo/handoff", {});
  std::string hint = hint_of(report);
  INFO(hint);
  CHECK(has(hint, "hint: a missing barrier or semaphore: nothing orders producer's access "
                  "before consumer's (consumer does synchronize with producer, but only with "
                  "what producer did before this access"));
  CHECK_FALSE(has(hint, "fence"));
  CHECK_FALSE(has(report, "proxy"));  // no proxies to speak of in a plain model
  check_golden("missing_sync_handoff", report);
  // Two writers that never synchronize at all: no "does synchronize" clause.
  std::string plain = hint_of(report_of("test/unsync_writers", {}));
  CHECK(has(plain, "hint: a missing barrier or semaphore: nothing orders "));
  CHECK_FALSE(has(plain, "does synchronize"));
}

TEST_CASE("hint: a TPU DMA read before its wait names .wait() on its semaphore", "[hints]") {
  std::string report = report_of("hints/dma_read_early", {});
  std::string hint = hint_of(report);
  INFO(hint);
  CHECK(has(hint, "hint: a missing wait: "));
  CHECK(has(hint, "dev0 must wait for it with .wait() on dev0.copy_sem before that access"));
  // The DMA is named by what it moves, and its start issues it in the schedule.
  CHECK(has(report, " by dma dev0.x_hbm[2:4] -> dev0.xbuf at "));
  CHECK(issue_line(schedule_line(report, "1.1"), "dev0", "dma dev0.x_hbm[2:4] -> dev0.xbuf",
                   test::source_line("test/golden/models.cpp", "copy.start()")));
  CHECK_FALSE(has(report, "proxy"));  // TPU reports in TPU words
  check_golden("missing_wait_dma", report);
}

TEST_CASE("hint: a TMA store buffer reused by another warp: wait_group.read, then the barrier",
          "[hints]") {
  // Warp 0's barrier arrival comes before it waited for its store's read of
  // sC: the barrier orders w1's refill after the issue, not after the read.
  std::string report = report_of("hints/store_buffer_cross_warp", {});
  std::string hint = hint_of(report);
  INFO(hint);
  CHECK(has(hint, "hint: a missing barrier or semaphore: "));
  CHECK(has(hint, "w0 must wait for bulk_store sC -> out first: wait with "
                  "cp.async.bulk.wait_group.read 0 (tma_store_wait<0>()"));
  CHECK(has(hint, "then w0 must release (arrive on a barrier, signal a semaphore) after that "
                  "wait, so that the barrier orders w1 after it"));
  CHECK_FALSE(has(hint, "completion must be signalled"));
  check_golden("missing_wait_cross_warp", report);
  // Doing what the hint says removes the race.
  CHECK_FALSE(test::run("hints/store_buffer_cross_warp", {{"fixed", "true"}}).bug);
}

TEST_CASE("hint: a reused receive semaphore names the DMA that satisfied the wait", "[hints]") {
  std::string report = report_of("pallas_tpu/ring_reuse_recv_sem", {});
  std::string hint = hint_of(report);
  INFO(hint);
  CHECK(has(hint, "hint: a wait satisfied by another completion: the wait on dev2.recv_sem "
                  "(wait_recv(dev2.recv_sem) at step "));
  CHECK(has(hint, "returned because rdma dev1.out[0] -> dev2.recv_buf[1] (step "));
  CHECK(has(hint, "the copy this access meant (rdma dev1.out[1] -> dev2.recv_buf[0]) was still "
                  "in flight"));
  // Not the wrong direction the generic hint gave (the reader releasing after its read).
  CHECK_FALSE(has(hint, "must release"));
  check_golden("misled_wait_ring", report);
}

TEST_CASE("hint: a wait on an mbarrier's old parity names the phase it saw", "[hints]") {
  std::string report = report_of("hints/wrong_parity", {});
  std::string hint = hint_of(report);
  INFO(hint);
  CHECK(has(hint, "hint: a wait satisfied by another completion: the wait on full "
                  "(mbarrier.try_wait.parity(full) for parity 0 at step "));
  CHECK(has(hint, "the copy this access meant (tma_load tmap_A box (1, 0) -> sA[2:4]) was still "
                  "in flight"));
  // The schedule says which parity each wait asked for.
  CHECK(has(report, "mbarrier.try_wait.parity(full) for parity 0"));
  check_golden("misled_wait_parity", report);
}
