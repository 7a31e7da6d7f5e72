// Progress: a line redrawn in place on a terminal, plain lines in logs,
// nothing with --quiet or in short piped runs.
#include <catch2/catch.hpp>

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
}  // namespace

TEST_CASE("progress text: executions, rate, depth, elapsed, budget left", "[ci]") {
  RunConfig c;
  CHECK(run_progress_text(1000, 12, 2.0, c) ==
        "heddle: 1000 executions, 500/s, depth 12, 2.0 s elapsed, budget: none (runs until "
        "exhaustive)");
  c.time_limit = 10;
  c.max_executions = 5000;
  CHECK(run_progress_text(1000, 12, 2.0, c) ==
        "heddle: 1000 executions, 500/s, depth 12, 2.0 s elapsed, budget: 8 s left, 4000 "
        "executions left");
}

TEST_CASE("progress appears on a pseudo-terminal, in place", "[ci][slow]") {
  if (!on_path("script")) {
    WARN("skipped: util-linux script(1) is not installed, so no pseudo-terminal can be made");
    return;
  }
  std::string tty = on_pty(kSlow);
  INFO(tty);
  CHECK(tty.find("\r\x1b[K" "heddle: ") != std::string::npos);
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
  CHECK(job.find("\r\x1b[K" "heddle: 0/1 cases done, 0 failed") != std::string::npos);
  CHECK(job.find("running: ci/slow") != std::string::npos);
}

TEST_CASE("progress is not drawn when piped; logs get plain lines", "[ci][slow]") {
  auto piped = run_binary(kSlow, "");
  CHECK(piped.code == 0);
  CHECK(piped.err.find("executions, ") == std::string::npos);  // default: a line every 5 s
  CHECK(piped.err.find('\r') == std::string::npos);
  auto log = run_binary(kSlow, "--progress-interval 0.4");
  INFO(log.err);
  CHECK(log.err.find("heddle: ") == 0);
  CHECK(count_of(log.err, " executions, ") >= 2);
  CHECK(log.err.find('\r') == std::string::npos);
  CHECK(log.err.find('\x1b') == std::string::npos);
  CHECK(log.out.find("executions, ") == std::string::npos);  // progress stays off stdout
}
