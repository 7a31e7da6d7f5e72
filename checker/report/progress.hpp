// Live progress of long runs on stderr: redrawn in place on a terminal, a
// plain line every few seconds elsewhere (CI logs), nothing with --quiet.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "checker/explore/explorer.hpp"

namespace heddle {

/// How progress is shown.
enum class ProgressMode { off, terminal, plain };

/// The mode for stderr: off when `quiet`, terminal when stderr is a tty, else plain.
ProgressMode detect_progress_mode(bool quiet);

/// A progress line that throttles itself: callers report as often as they
/// like, and the line is drawn only when due.
class ProgressLine {
 public:
  /// `plain_interval`: seconds between plain lines (terminal lines redraw every 0.1 s).
  ProgressLine(ProgressMode mode, double plain_interval = 5, std::FILE* out = stderr);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Draws `text()` when a redraw is due; `text` is not called otherwise.
  void update(const std::function<std::string()>& text);
  /// Erases the terminal line (before the final report is printed).
  void finish();
  /// Seconds since construction.
  double elapsed() const;
  ProgressMode mode() const noexcept { return mode_; }

 private:
  using Clock = std::chrono::steady_clock;
  ProgressMode mode_;
  double interval_;  // seconds between two drawings
  std::FILE* out_;
  Clock::time_point start_;
  Clock::time_point next_;  // the next drawing is due then
  bool drawn_ = false;      // a terminal line is on screen
};

/// The progress text of one kernel's run: executions, executions/s, depth of
/// the last execution, elapsed time and what is left of the budget.
std::string run_progress_text(std::uint64_t executions, std::uint32_t depth, double elapsed,
                              const RunConfig& config);

}  // namespace heddle
