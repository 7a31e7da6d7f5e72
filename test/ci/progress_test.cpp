// Progress: a line redrawn in place on a terminal, plain lines in logs,
// nothing with --quiet or in short piped runs.
#include <catch2/catch.hpp>

#include <sstream>
#include <thread>
#include <vector>

#include "checker/registry.hpp"
#include "checker/report/progress.hpp"
#include "test/ci/ci_support.hpp"

using namespace heddle;
using namespace heddle::test;

namespace {
/// Runs `cmd` on a pseudo-terminal with util-linux script(1); returns what
/// the terminal showed (stdout and stderr together).
std::string on_pty(const std::string& cmd) {
  std::string dir = temp_dir();
  std::string line = "script -qec \"" + cmd + "\" /dev/null >" + dir + "/tty 2>&1 </dev/null";
  [[maybe_unused]] int rc = std::system(line.c_str());
  std::string out = slurp(dir + "/tty");
  std::filesystem::remove_all(dir);
  return out;
}
const std::string kSlow = std::string(HEDDLE_CI_FIXTURE) + " run ci/slow --time-limit 1.5";
// Progress names the program that runs: the fixture, a binary of its own (issue 50.17).
const std::string kProgram = "heddle_ci_fixture: ";
}  // namespace

TEST_CASE("progress text: kernel, executions, rate, depth, elapsed, work and budget left",
          "[ci]") {
  RunConfig c;
  RunProgress p{"demo/handoff (fixed=false)", 1000, 12, 2.0, std::nullopt};
  CHECK(run_progress_text(p, c) ==
        "heddle: demo/handoff (fixed=false): 1000 executions, 500/s, depth 12, 2.0 s elapsed, "
        "left: unknown, budget: none (runs until exhaustive)");
  c.time_limit = 10;
  c.max_executions = 5000;
  p.estimated = 4500;
  CHECK(run_progress_text(p, c) ==
        "heddle: demo/handoff (fixed=false): 1000 executions, 500/s, depth 12, 2.0 s elapsed, "
        "left: ~3500 executions (estimated), budget: 8 s left, 4000 executions left");
  // Randomized strategies have no work left to estimate, only a budget.
  c.strategy = "random";
  p.estimated.reset();
  CHECK(run_progress_text(p, c).find("left: unknown") == std::string::npos);
}

TEST_CASE("progress text fits the terminal's columns, dropping the least useful parts first",
          "[ci]") {
  RunConfig c;
  c.time_limit = 10;
  c.max_executions = 5000;
  RunProgress p{"pallas_tpu/all_reduce (devices=8 dma_order=any steps=7)", 123456, 148, 20.0,
                4.5e6};
  const std::string full = run_progress_text(p, c);
  REQUIRE(full.size() > 150);  // the case the issue measured: 150-205 characters
  CHECK(run_progress_text(p, c, 60, 0) == full);
  for (std::size_t cols : {200u, 120u, 79u, 59u, 39u, 20u}) {
    const std::string fit = run_progress_text(p, c, 60, cols);
    INFO(cols << ": " << fit);
    CHECK(fit.size() <= cols);
    CHECK(fit.rfind("heddle: ", 0) == 0);
    if (cols >= 59) CHECK(fit.find("123456 exec") != std::string::npos);  // the count stays
    if (cols >= 79) CHECK(fit.find("all_reduce") != std::string::npos);
  }
  // A run that may not end keeps saying so in a narrow terminal.
  RunConfig none;
  RunProgress slow{"ci/slow", 1000, 24, 61.0, std::nullopt};
  const std::string warned = run_progress_text(slow, none, 60, 79);
  CHECK(warned.size() <= 79);
  CHECK(warned.find("may not end: add --time-limit") != std::string::npos);
  CHECK(fit_columns("abcdefgh", 6) == "abc...");
  CHECK(fit_columns("abc", 6) == "abc");
}

TEST_CASE("a run with no budget that looks unbounded says so after a while", "[ci]") {
  RunConfig c;
  RunProgress p{"ci/slow", 1000, 24, 61.0, std::nullopt};
  const std::string warning = "; this run may not end: add --time-limit S or --max-executions N";
  CHECK(run_progress_text(p, c).ends_with(warning));  // 60 s by default
  p.elapsed = 59;
  CHECK_FALSE(run_progress_text(p, c).ends_with(warning));
  p.elapsed = 61;
  p.estimated = 1100;  // 100 left at 16/s: about to end
  CHECK_FALSE(run_progress_text(p, c).ends_with(warning));
  p.estimated = 1e9;
  CHECK(run_progress_text(p, c).ends_with(warning));
  c.time_limit = 100;  // a budget bounds it
  CHECK_FALSE(run_progress_text(p, c).ends_with(warning));
}

TEST_CASE("the dfs tree estimate is exact on uniform trees, and on any tree once all leaves are seen",
          "[ci]") {
  // A uniform tree (every path 3 x 2 = 6): the estimate is exact after one leaf.
  TreeEstimate uniform;
  for (int leaf = 0; leaf < 6; ++leaf) {
    uniform.branch(3);
    uniform.branch(2);
    uniform.leaf();
    REQUIRE(uniform.total());
    CHECK(*uniform.total() == Approx(6.0));
  }
  CHECK_FALSE(TreeEstimate().total());
  // A real dfs run (three threads, two critical sections each): its tree
  // is far from uniform, and the estimate after all of its leaves is exact.
  TreeEstimate slow;
  RunConfig c;
  c.strategy = "dfs";
  c.decorate = slow.decorator();
  const Kernel& k = find_kernel("test/locked_writers");
  RunResult r = explore(k, k.resolve({{"n", "3"}, {"rounds", "2"}}), c);
  REQUIRE(r.exhaustive);
  REQUIRE(slow.total());
  // Once every leaf is seen the weighted backtrack estimate is exact (the
  // 1/P_i of all leaves of a tree sum to 1).
  CHECK(*slow.total() == Approx(static_cast<double>(r.stats.executions)).epsilon(1e-6));
}

TEST_CASE("progress appears on a pseudo-terminal, in place", "[ci][slow]") {
  if (!on_path("script")) {
    WARN("skipped: util-linux script(1) is not installed, so no pseudo-terminal can be made");
    return;
  }
  std::string tty = on_pty("stty cols 200; " + kSlow);  // wide: the line's full form
  INFO(tty);
  CHECK(tty.find("\r\x1b[K" + kProgram) != std::string::npos);
  CHECK(tty.find(" executions, ") != std::string::npos);
  CHECK(tty.find("/s, depth 24, ") != std::string::npos);  // 4 threads x 3 x (lock, unlock)
  CHECK(tty.find(" s left") != std::string::npos);
  CHECK(tty.find("summary: no bug found") != std::string::npos);
  // --quiet turns it off, also on a terminal.
  std::string quiet = on_pty(kSlow + " --quiet");
  CHECK(quiet.find("executions, ") == std::string::npos);
  CHECK(quiet.find("summary: no bug found") != std::string::npos);
  // The CI job shows its own line: cases done and running.
  std::string job = on_pty(std::string(HEDDLE_CI_FIXTURE) +
                           " run --all --filter ci/slow --budget-per-kernel 1");
  CHECK(job.find("\r\x1b[K" + kProgram + "0/1 cases done, 0 failed") != std::string::npos);
  CHECK(job.find("running: ci/slow") != std::string::npos);
}

TEST_CASE("on a narrow terminal each redrawn progress line fits without wrapping",
          "[ci][slow]") {
  if (!on_path("script") || !on_path("stty")) {
    WARN("skipped: script(1) or stty is not installed, so no pseudo-terminal can be made");
    return;
  }
  std::string tty = on_pty("stty cols 60; " + kSlow);
  INFO(tty);
  const std::string redraw = "\r\x1b[K";
  std::size_t at = tty.find(redraw), lines = 0;
  while (at != std::string::npos) {
    std::size_t next = tty.find(redraw, at + redraw.size());
    std::string line = tty.substr(at + redraw.size(), next == std::string::npos
                                                          ? std::string::npos
                                                          : next - at - redraw.size());
    line = line.substr(0, line.find('\n'));  // the report follows the last erase
    CHECK(line.size() <= 59);
    lines += !line.empty();
    at = next;
  }
  CHECK(lines >= 2);
}

TEST_CASE("progress is not drawn when piped; logs get plain lines", "[ci][slow]") {
  auto piped = run_binary(kSlow, "");
  CHECK(piped.code == 0);
  CHECK(piped.err.find("executions, ") == std::string::npos);  // default: a line every 5 s
  CHECK(piped.err.find('\r') == std::string::npos);
  auto log = run_binary(kSlow, "--progress-interval 0.4");
  INFO(log.err);
  CHECK(log.err.find(kProgram) == 0);
  CHECK(count_of(log.err, " executions, ") >= 2);
  CHECK(log.err.find('\r') == std::string::npos);
  CHECK(log.err.find('\x1b') == std::string::npos);
  CHECK(log.out.find("executions, ") == std::string::npos);  // progress stays off stdout
}

TEST_CASE("a count kept by several threads at once loses nothing", "[ci]") {
  ThreadCount count;
  std::vector<std::thread> threads;
  for (int t = 0; t < 20; ++t)  // more threads than slots: some share one
    threads.emplace_back([&count] {
      for (int k = 0; k < 20000; ++k) count.add();
    });
  for (auto& t : threads) t.join();
  CHECK(count.total() == 400000);
}

TEST_CASE("a split run's workers report progress together, counts rising",
          "[ci][slow]") {
  auto log = run_binary(kSlow, "--jobs 2 --progress-interval 0.05");
  INFO(log.err);
  REQUIRE(log.code == 0);
  std::vector<std::uint64_t> counts;
  std::istringstream lines(log.err);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(" executions, ");
    const std::string head = kProgram + "ci/slow: ";
    if (line.rfind(head, 0) != 0 || at == std::string::npos) continue;
    counts.push_back(std::stoull(line.substr(head.size(), at - head.size())));
  }
  REQUIRE(counts.size() >= 2);
  CHECK(counts.front() > 0);
  // Both workers' executions, summed when a line is drawn: never less than before.
  for (std::size_t k = 1; k < counts.size(); ++k) CHECK(counts[k] > counts[k - 1]);
  // (The lines also count the executions of the plain trial run beside the
  // split, so their last count may pass the run's own.)
}
